"""The real Moodle 4.5 imports numerical questions from Moodle XML (per locale and multilang) and GIFT, and its
question engine grades typed answers as the bank says: the right value and a value inside its tolerance get full
marks with the right value's explanation, each anticipated value gets 0 with its own explanation, any other number
gets 0 with the catch-all's message; the general explanation shows whatever was typed.

Driven by tests/moodle/moodle_questions.php (MOE_TYPED lists what to type); skips without MOE_MOODLE_DIR as
tests/test_moodle_real.py does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from moe_lms.formats import ExportOptions, get
from moe_lms.locales import resolve
from moe_lms.model import Bank, Question
from moe_lms.numeric import number_text
from moe_lms.richtext import Profile, render_block, rendering

from .numerical_bank import numerical_bank
from .test_moodle_real import _moodle, drive, visible


@pytest.fixture(scope="module")
def moodle() -> Path:
    return _moodle()


def typed_cases(q: Question) -> list[tuple[str, str | None, float]]:
    """(what is typed, the choice whose explanation must show or None, the fraction) for one question."""
    right = q.correct_choices[0]
    cases: list[tuple[str, str | None, float]] = [(number_text(q.value_of(right)), right.id, 1.0)]
    tolerance = q.tolerance_of(right)
    inside = q.value_of(right) + (tolerance / 2 if tolerance else 0)
    cases.append((number_text(inside) if tolerance else f"{number_text(q.value_of(right))}.0", right.id, 1.0))
    for c in q.choices:
        if not c.correct:
            cases.append((number_text(q.value_of(c) + q.tolerance_of(c) / 2), c.id, 0.0))
    cases.append(("123456", None, 0.0))
    return cases


def shown(text: str) -> str:
    with rendering(Profile(math="tex")):
        return visible(render_block(text))


def check_graded(found: dict[str, Any], bank: Bank, q: Question, locales: tuple[str, ...]) -> None:
    """What Moodle stored and showed for ``q``: a multilang file's texts carry every locale's (the filter, off in
    a test site, would pick one), so each locale's text is looked for in what was shown."""
    views = [resolve(bank, locale) for locale in locales]
    assert found["qtype"] == "numerical"
    wanted_answers = [(number_text(q.value_of(c)), 1.0 if c.correct else 0.0, q.tolerance_of(c)) for c in q.choices]
    assert [(a["text"], a["fraction"], a["tolerance"]) for a in found["answers"]] == [*wanted_answers, ("*", 0.0, 0.0)]
    general = [shown(view.explanation(q).text) for view in views]
    assert all(text in visible(found["generalfeedback"]) for text in general)
    graded = {g["typed"]: g for g in found["graded"]}
    for typed, choice_id, fraction in typed_cases(q):
        g = graded[typed]
        assert float(g["fraction"]) == fraction, (q.id, typed, g)
        assert g["state"] == ("gradedright" if fraction == 1 else "gradedwrong"), (q.id, typed, g)
        feedback = " ".join(visible(f) for f in g["outcome_feedback"])
        for view in views:
            if choice_id is None:
                assert shown(view.feedback("incorrect").text) in feedback, (typed, feedback)
            else:
                c = next(c for c in q.choices if c.id == choice_id)
                assert shown(view.choice_explanation(q, c).text) in feedback, (q.id, typed, feedback)
        assert all(text in " ".join(visible(f) for f in g["general_feedback"]) for text in general)


@pytest.mark.parametrize(
    ("fmt", "locale", "multilang"), [("moodle", "ur", False), ("moodle", "vi", True), ("gift", "vi", False)]
)
def test_moodle_grades_typed_answers_to_a_numerical_question(
    moodle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, locale: str, multilang: bool
) -> None:
    bank = numerical_bank()
    locales = bank.locales if multilang else (locale,)
    options = ExportOptions.for_bank(bank, locales, multilang=multilang)
    path = tmp_path / f"numerical.{'xml' if fmt == 'moodle' else 'gift'}"
    path.write_bytes(get(fmt).dump(bank, options))
    numerical = [q for q in bank.questions if q.numerical]
    suffix = "" if multilang else f"-{locale}"
    typed = {f"{q.id}{suffix}": [t for t, _, _ in typed_cases(q)] for q in numerical}
    (tmp_path / "typed.json").write_text(json.dumps(typed), encoding="utf-8")
    monkeypatch.setenv("MOE_TYPED", str(tmp_path / "typed.json"))
    result = drive(
        moodle,
        f"numerical-{fmt}-{locale}{'-multilang' if multilang else ''}",
        "import",
        "xml" if fmt == "moodle" else "gift",
        str(path),
    )
    by_idnumber = {q["idnumber"]: q for q in result["questions"]}
    for q in numerical:
        found = by_idnumber[f"{q.id}{suffix}"]
        check_graded(found, bank, q, locales)
        if fmt == "moodle" and q.unit is not None:
            units = [resolve(bank, loc).unit(q).text for loc in locales]  # type: ignore[union-attr]
            assert found["units"] == list(dict.fromkeys(units))
