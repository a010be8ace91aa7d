"""Numerical questions in QTI 1.2 (issue 30). Canvas QTI: a ``numerical_question`` item shaped as Canvas exports one
(lib/cc/qti/qti_items.rb numerical_resprocessing), read here the way Canvas's importer reads it
(lib/qti/numeric_interaction.rb get_canvas_answers: each condition's ``or`` holds the exact value, its ``and`` the
value plus the margin; the condition's feedback is the answer's comments). Common Cartridge: ``cc.fib`` with each
value's exact text when no value has a tolerance, else a refusal that says why. Both validate against the CC QTI
1.2.1 profile XSD."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from lxml import etree

from moe_lms import schemas
from moe_lms.formats.cc11.validate import check_package
from moe_lms.formats.qti12 import read_value_classes
from moe_lms.model import Bank
from moe_lms.problems import ProblemsFound
from moe_lms.richtext import plain_text

from .numerical_bank import numerical_bank
from .qti12_support import NS, export, items, members


def canvas_answers(item: etree._Element) -> list[dict[str, object]]:
    """What numeric_interaction.rb makes of an item's conditions (in QTI 1.2's words: respcondition for
    responseIf, varequal for stringMatch, vargte/varlte for the custom operators)."""
    feedback = {
        f.get("ident"): " ".join(plain_text(f.findtext(".//q:mattext", namespaces=NS) or "").split())
        for f in item.iterfind("q:itemfeedback", NS)
    }
    answers = []
    for condition in item.iterfind("q:resprocessing/q:respcondition", NS):
        either = condition.find("q:conditionvar/q:or", NS)
        if either is None:
            continue
        exact = Decimal(either.findtext("q:varequal", namespaces=NS) or "0")
        upper = either.findtext("q:and/q:varlte", namespaces=NS)
        shown = [d.get("linkrefid") for d in condition.iterfind("q:displayfeedback", NS)]
        answers.append(
            {
                "numerical_answer_type": "exact_answer",
                "exact": float(exact),
                "margin": float(Decimal(upper) - exact) if upper is not None else None,
                "weight": 100,
                "comments": feedback[shown[0]],
            }
        )
    return answers


def tolerance_free(bank: Bank) -> Bank:
    questions = tuple(
        q.model_copy(
            update={
                "tolerance": None,
                "choices": tuple(c.model_copy(update={"tolerance": None}) for c in q.choices),
            }
        )
        if q.numerical
        else q
        for q in bank.questions
    )
    return bank.model_copy(update={"questions": questions})


def test_canvas_qti_carries_the_correct_values_and_explains_the_anticipated_ones(schemas_dir: Path) -> None:
    bank = numerical_bank()
    package = export("canvas-qti", bank, ["en"])
    document = members(package)["numerical-check-en/numerical-check-en.xml"]
    # Canvas's own numerical shape, or(varequal, and(vargte, varlte)), is beyond the CC profile: validate checks
    # the rest against it, and the ranges itself.
    assert check_package(package, schemas.load(schemas_dir)) == []
    found = items(document)
    for q in (q for q in bank.questions if q.numerical):
        item = found[f"{q.id}-en"]
        assert item.findtext(".//q:qtimetadatafield[q:fieldlabel='question_type']/q:fieldentry", namespaces=NS) == (
            "numerical_question"
        )
        assert item.find(".//q:response_str/q:render_fib", NS).get("fibtype") == "Decimal"  # type: ignore[union-attr]
        right = q.correct_choices[0]
        assert canvas_answers(item) == [
            {
                "numerical_answer_type": "exact_answer",
                "exact": q.value_of(right),
                "margin": q.tolerance_of(right),
                "weight": 100,
                "comments": " ".join(plain_text(right.explanation).split()),
            }
        ]
        comments = item.findtext(".//q:itemfeedback[@ident='general_incorrect_fb']//q:mattext", namespaces=NS)
        incorrect = etree.fromstring(f"<div>{comments}</div>")
        listed = {read_value_classes(li.get("class") or "")[0]: li for li in incorrect.iter("li")}
        for c in q.choices:
            if not c.correct:
                li = listed[c.id]
                assert read_value_classes(li.get("class") or "") == (c.id, q.value_of(c), q.tolerance_of(c))
                assert plain_text(c.explanation) in " ".join("".join(li.itertext()).split())


def test_a_cartridge_refuses_a_tolerance_and_carries_exact_values_as_fill_in_the_blank(schemas_dir: Path) -> None:
    with pytest.raises(ProblemsFound) as refused:
        export("cc11", numerical_bank(), ["en"])
    assert [p.where for p in refused.value.problems] == ["question 'capacity-tokens'", "question 'dispatch-kib'"]
    assert "has no numerical type" in str(refused.value)
    bank = tolerance_free(numerical_bank())
    package = export("cc11", bank)
    assert check_package(package, schemas.load(schemas_dir)) == []
    found = items(members(package)["quiz-ur/assessment.xml"])
    item = found["capacity-tokens-ur"]
    assert (
        item.findtext(".//q:qtimetadatafield[q:fieldlabel='cc_profile']/q:fieldentry", namespaces=NS) == "cc.fib.v0p1"
    )
    scored = {
        c.findtext("q:conditionvar/q:varequal", namespaces=NS): c.findtext("q:setvar", namespaces=NS)
        for c in item.iterfind("q:resprocessing/q:respcondition", NS)
        if c.find("q:conditionvar/q:varequal", NS) is not None
    }
    assert scored == {"469": "100", "468": "0", "59": "0"}


def test_validate_finds_a_numerical_range_that_leaves_its_value_out() -> None:
    from .qti12_support import rezip

    bank = numerical_bank()
    files = members(export("canvas-qti", bank, ["en"]))
    name = "numerical-check-en/numerical-check-en.xml"
    files[name] = files[name].replace(
        b'<varlte respident="response1">469</varlte>', b'<varlte respident="response1">400</varlte>', 1
    )
    found = [str(p) for p in check_package(rezip(files), None)]
    assert any("the range 469 to 400 does not hold its value 469" in p and "capacity-tokens-en" in p for p in found), (
        found
    )
