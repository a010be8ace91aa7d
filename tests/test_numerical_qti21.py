"""A numerical question as a QTI 2.1 item (issue 30): a textEntryInteraction with a float response, response
processing that compares with each value's tolerance and sets FEEDBACK to the matching value's id, a modalFeedback per
value and the general one. Every item validates against the official XSD, and a real QTI 2.1 engine (qti-sdk, TAO's)
scores typed answers as the bank says."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from moe_lms import schemas
from moe_lms.formats import ExportOptions, get
from moe_lms.locales import resolve
from moe_lms.model import Bank, Question
from moe_lms.richtext import plain_text

from .numerical_bank import numerical_bank
from .qti_support import members
from .qtisdk_support import score


def cases(q: Question) -> list[tuple[float | None, str | None, float]]:
    """(the number a delivery system hands over, the value whose explanation shows or None, the score)."""
    right = q.correct_choices[0]
    found: list[tuple[float | None, str | None, float]] = [(q.value_of(right), right.id, q.points)]
    tolerance = q.tolerance_of(right)
    found.append((q.value_of(right) + tolerance, right.id, q.points))  # the edge of the range: inside
    for c in q.choices:
        if not c.correct:
            found.append((q.value_of(c) - q.tolerance_of(c), c.id, 0.0))
    found += [(123456.0, None, 0.0), (None, None, 0.0)]
    return found


def package(bank: Bank, locales: tuple[str, ...]) -> dict[str, bytes]:
    return members(get("qti21").dump(bank, ExportOptions.for_bank(bank, locales)))


def test_every_file_of_a_numerical_package_validates_against_the_official_xsds(schemas_dir: Path) -> None:
    validators = schemas.load(schemas_dir)
    files = package(numerical_bank(), ())
    for name, data in files.items():
        if name.endswith(".xml"):
            schema = validators.manifest() if name == "imsmanifest.xml" else validators.qti()
            assert schema.validate(etree.fromstring(data)), (name, [str(e) for e in schema.error_log][:5])
    item = etree.fromstring(files["items/capacity-tokens-ur.xml"])
    ns = {"q": "http://www.imsglobal.org/xsd/imsqti_v2p1"}
    assert item.xpath("q:responseDeclaration/@baseType", namespaces=ns) == ["float"]
    assert len(item.xpath("//q:textEntryInteraction", namespaces=ns)) == 1
    assert item.xpath("string(//q:span[@class='moe-unit'])", namespaces=ns) == "ٹوکن"


@pytest.mark.parametrize("locale", ["en", "ur", "vi"])
def test_qti_sdk_scores_typed_numbers_and_shows_the_matching_values_explanation(tmp_path: Path, locale: str) -> None:
    bank = numerical_bank()
    view = resolve(bank, locale)
    files = package(bank, (locale,))
    numerical = [q for q in bank.questions if q.numerical]
    items = {q.id: files[f"items/{q.id}-{locale}.xml"] for q in numerical}
    results = score(items, {q.id: [typed for typed, _, _ in cases(q)] for q in numerical}, tmp_path)
    for q in numerical:
        general = plain_text(view.explanation(q).text)
        for (typed, choice_id, points), result in zip(cases(q), results[q.id], strict=True):
            assert result["score"] == points, (q.id, typed, result)
            shown = {s["identifier"]: s["text"] for s in result["shown"]}
            if typed is None:
                assert shown == {}, result
                continue
            wanted = {"general_explanation"} | ({choice_id} if choice_id else set())
            assert set(shown) == wanted, (q.id, typed, result)
            assert shown["general_explanation"] == general
            if choice_id is not None:
                c = next(c for c in q.choices if c.id == choice_id)
                assert shown[choice_id] == plain_text(view.choice_explanation(q, c).text), (q.id, typed)


def test_qti_sdk_scores_the_shipped_banks_numerical_questions_in_every_locale(tmp_path: Path) -> None:
    from moe_lms.loader import load_bank

    bank = load_bank(Path(__file__).resolve().parents[1] / "question_bank" / "moe-serving-arithmetic")
    files = package(bank, ())
    numerical = [q for q in bank.questions if q.numerical]
    assert len(numerical) >= 3
    items = {f"{q.id}-{loc}": files[f"items/{q.id}-{loc}.xml"] for q in numerical for loc in bank.locales}
    typed = {f"{q.id}-{loc}": [q.value_of(c) for c in q.choices] for q in numerical for loc in bank.locales}
    results = score(items, typed, tmp_path)
    for q in numerical:
        for loc in bank.locales:
            for c, result in zip(q.choices, results[f"{q.id}-{loc}"], strict=True):
                assert result["score"] == (q.points if c.correct else 0), (loc, q.id, c.id, result)
                assert set(result["feedback"]) == {c.id, "general_explanation"}, (loc, q.id, c.id, result)
