"""A numerical question as a QTI 3.0 item (issue 30): a qti-text-entry-interaction with a float response, the same
per-value tolerance rules as QTI 2.1 in QTI 3's names, FEEDBACK set to the matching value's id; valid against the
QTI 3 schemas, and played by the Citolab player in Chromium as the choice items are (tests/test_qti3.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from moe_lms import schemas
from moe_lms.formats.qti3.validate import check_package
from moe_lms.numeric import number_text

from .numerical_bank import numerical_bank
from .test_qti3 import LOAD, SUBMIT, export, members, page, player, qti3_schemas, site  # noqa: F401  (fixtures)


def test_a_numerical_package_validates_against_the_qti3_schemas(qti3_schemas: schemas.Schemas) -> None:  # noqa: F811
    package = export(numerical_bank())
    files = members(package)
    asi = qti3_schemas.qti3()
    for name in (n for n in files if n.startswith(("items/", "tests/"))):
        assert asi.validate(etree.fromstring(files[name])), (name, asi.error_log)
    assert check_package(package, qti3_schemas) == []
    item = etree.fromstring(files["items/capacity-tokens-ur.xml"])
    ns = {"q": "http://www.imsglobal.org/xsd/imsqtiasi_v3p0"}
    assert item.xpath("q:qti-response-declaration/@base-type", namespaces=ns) == ["float"]
    assert item.xpath("string(//q:span[@class='moe-unit'])", namespaces=ns) == "ٹوکن"


TYPE = """async (typed) => {
    const entry = document.querySelector('qti-text-entry-interaction');
    const input = entry.shadowRoot ? entry.shadowRoot.querySelector('input') : entry.querySelector('input');
    input.value = typed;
    input.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
    input.dispatchEvent(new Event('change', {bubbles: true, composed: true}));
    input.dispatchEvent(new KeyboardEvent('keyup', {bubbles: true, composed: true}));
}"""


@pytest.mark.parametrize("locale", ["en", "ur"])
def test_the_citolab_player_scores_typed_numbers_and_opens_the_matching_values_feedback(
    site: tuple[str, Path],  # noqa: F811
    page: Any,  # noqa: F811
    locale: str,
) -> None:
    bank = numerical_bank()
    _, folder = site
    package = folder / f"{bank.id}-{locale}"
    for name, data in members(export(bank, (locale,))).items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_bytes(data)
    for q in (q for q in bank.questions if q.numerical):
        right = q.correct_choices[0]
        cases = [(number_text(q.value_of(right)), right.id, q.points)]
        cases.append((number_text(q.value_of(right) + q.tolerance_of(right)), right.id, q.points))  # the range's edge
        cases += [(number_text(q.value_of(c)), c.id, 0) for c in q.choices if not c.correct]
        cases.append(("123456", None, 0))
        for typed, choice_id, points in cases:
            page.evaluate(LOAD, f"{package.name}/items/{q.id}-{locale}.xml")
            page.evaluate(TYPE, typed)
            got = page.evaluate(SUBMIT)
            assert got["score"] == pytest.approx(points), (locale, q.id, typed, got)
            assert sorted(got["open"]) == sorted([*([choice_id] if choice_id else []), "not_answered"]), (
                locale, q.id, typed, got
            )  # fmt: skip


def test_the_citolab_player_scores_the_shipped_banks_numerical_questions(
    site: tuple[str, Path],  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    from moe_lms.loader import load_bank

    bank = load_bank(Path(__file__).resolve().parents[1] / "question_bank" / "moe-serving-arithmetic")
    _, folder = site
    package = folder / f"{bank.id}-numerical"
    for name, data in members(export(bank)).items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_bytes(data)
    numerical = [q for q in bank.questions if q.numerical]
    assert len(numerical) >= 3
    for locale in bank.locales:
        for q in numerical:
            for c in q.choices:
                page.evaluate(LOAD, f"{package.name}/items/{q.id}-{locale}.xml")
                page.evaluate(TYPE, number_text(q.value_of(c)))
                got = page.evaluate(SUBMIT)
                assert got["score"] == pytest.approx(q.points if c.correct else 0), (locale, q.id, c.id, got)
                assert sorted(got["open"]) == sorted([c.id, "not_answered"]), (locale, q.id, c.id, got)
