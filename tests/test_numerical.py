"""Numerical questions (issue 30): the learner types a number; the bank gives the key and the values a learner is
likely to reach, each with its explanation. `check` refuses what no platform could grade, naming file and line."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from moe_lms.loader import check_bank, load_bank, save_bank
from moe_lms.locales import resolve
from moe_lms.model import Kind, strings
from moe_lms.numeric import number_text, typed_number

from .numerical_bank import numerical_bank

GOOD = """\
id: demo
title: Demo bank
target_locales: [ur, vi]
questions:
  - id: capacity-tokens
    kind: numerical
    points: 1
    stem: How many tokens can each expert accept?
    explanation: Capacity is 469.
    unit: tokens
    tolerance: 0
    choices:
      - id: right
        value: 469
        correct: true
        explanation: why 469
      - id: truncated
        value: 468
        explanation: this rounds 468.75 down
      - id: no-top-k
        value: 59
        tolerance: 0.5
        explanation: you left top-k out
"""


def problems(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "bank.yaml").write_text(textwrap.dedent(text), encoding="utf-8")
    _bank, found = check_bank(tmp_path)
    return [str(p) for p in found]


def test_the_issue_shape_loads_as_a_numerical_question(tmp_path: Path) -> None:
    assert problems(tmp_path, GOOD) == []
    q = load_bank(tmp_path).question("capacity-tokens")
    assert q.kind is Kind.NUMERICAL and q.unit == "tokens"
    assert [(c.id, q.value_of(c), q.tolerance_of(c), c.correct) for c in q.choices] == [
        ("right", 469.0, 0.0, True),
        ("truncated", 468.0, 0.0, False),
        ("no-top-k", 59.0, 0.5, False),
    ]


def test_a_typed_number_matches_the_value_whose_range_holds_it() -> None:
    q = numerical_bank().question("dispatch-kib")  # tolerance 0.05 on every value
    assert q.matching(224).id == "both-ways"  # type: ignore[union-attr]
    assert q.matching(224.04).id == "both-ways"  # type: ignore[union-attr]
    assert q.matching(112).id == "dispatch-only"  # type: ignore[union-attr]
    assert q.matching(224.2) is None
    assert numerical_bank().question("capacity-tokens").matching(59.5).id == "no-top-k"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("change", "line", "message"),
    [
        (("        correct: true\n", ""), 13, "a numerical question needs a correct value (correct: true on one of"),
        (
            ("        value: 468\n", "        value: 468.5\n        tolerance: 0.5\n"),
            18,
            "question 'capacity-tokens', choice 'truncated': the values of choices 'right' (469) and 'truncated' "
            "(468.5 ± 0.5) overlap",
        ),
        (("value: 469", "value: .inf"), 14, "choice 'right': value: inf is not a finite number"),
        (("value: 469", "value: .nan"), 14, "choice 'right': value: nan is not a finite number"),
        (
            ("value: 469", 'value: "469"'),
            14,
            "choice 'right': value: '469' is text, not a number: write the number without quotes",
        ),
        (
            ("        value: 468\n", "        value: 468\n        text: 468 tokens\n"),
            19,
            "choice 'truncated': a numerical question's choice has no text",
        ),
        (("        value: 468\n", ""), 17, "choice 'truncated': missing required key 'value'"),
        (
            ("tolerance: 0.5", "tolerance: -1"),
            22,
            "choice 'no-top-k': tolerance: -1 is less than the least it may be, 0",
        ),
    ],
)
def test_check_refuses_a_numerical_question_no_platform_could_grade(
    tmp_path: Path, change: tuple[str, str], line: int, message: str
) -> None:
    assert change[0] in GOOD
    found = problems(tmp_path, GOOD.replace(*change, 1))
    assert len(found) == 1, found
    assert found[0].startswith(f"{tmp_path / 'bank.yaml'}:{line}:"), found
    assert "question 'capacity-tokens'" in found[0] and message in found[0], found


def test_a_choice_question_keeps_its_text_and_refuses_numbers(tmp_path: Path) -> None:
    single = GOOD.replace("    kind: numerical\n", "").replace("    unit: tokens\n    tolerance: 0\n", "")
    assert problems(tmp_path, single) == [
        f"{tmp_path / 'bank.yaml'}:10:9: error: question 'capacity-tokens', choice 'right': missing required key 'text'"
    ]
    with_texts = single.replace("        value: ", "        text: a number\n        value: ")
    found = problems(tmp_path, with_texts)
    assert len(found) == 1 and ":12:16: error: question 'capacity-tokens', choice 'right': 'value' is a key" in found[0]


def test_unit_and_explanations_are_po_strings_and_values_never() -> None:
    bank = numerical_bank()
    paths = [path for path, _ in strings(bank) if path.startswith("capacity-tokens/")]
    assert paths == [
        "capacity-tokens/stem",
        "capacity-tokens/explanation",
        "capacity-tokens/unit",
        "capacity-tokens/choices/right/explanation",
        "capacity-tokens/choices/truncated/explanation",
        "capacity-tokens/choices/no-top-k/explanation",
    ]
    assert not any(text in ("469", "468", "59") for _, text in strings(bank))


def test_a_bank_with_numerical_questions_round_trips_through_yaml_and_po(tmp_path: Path) -> None:
    bank = numerical_bank()
    save_bank(bank, tmp_path)
    text = (tmp_path / "bank.yaml").read_text(encoding="utf-8")
    assert "value: 469\n" in text and "tolerance: 0.5\n" in text and "text:" not in text.split("ep-what")[0]
    po = (tmp_path / "locales" / "ur.po").read_text(encoding="utf-8")
    assert 'msgctxt "capacity-tokens/unit"\nmsgid "tokens"\nmsgstr "ٹوکن"' in po
    assert 'msgid "469"' not in po
    again = load_bank(tmp_path)
    assert again.questions == bank.questions
    view = resolve(again, "ur")
    q = again.question("capacity-tokens")
    assert view.unit(q).text == "ٹوکن"  # type: ignore[union-attr]
    assert view.choice_explanation(q, q.choices[2]).text == "آپ نے top-k چھوڑ دیا۔"
    assert resolve(again, "vi").choice_explanation(q, q.choices[1]).text.startswith("Cách này làm tròn 468,75")


@pytest.mark.parametrize(
    ("typed", "locale", "number"),
    [
        ("468,75", "vi", 468.75),
        ("468.75", "vi", 468.75),
        ("۴۶۹", "ur", 469.0),
        ("٤٦٨٫٧٥", "ur", 468.75),
        ("۴۶۸.۷۵", "ur", 468.75),
        ("-2", "en", -2.0),
        ("468,75", "en", None),  # a comma is a decimal point only where the locale says so
        ("469 tokens", "en", None),
        ("", "en", None),
    ],
)
def test_a_typed_answer_is_read_in_the_locales_digits_and_separator(
    typed: str, locale: str, number: float | None
) -> None:
    assert typed_number(typed, locale) == number


def test_values_are_written_in_their_shortest_exact_form() -> None:
    assert [number_text(v) for v in (469.0, 468.75, 0.05, 1e-6, -0.0, 1792.0)] == [
        "469", "468.75", "0.05", "1e-06", "0", "1792"
    ]  # fmt: skip
