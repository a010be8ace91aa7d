"""Problems in the author's words: what YAML read, in terms of what the author wrote, and what to write instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from moe_lms import loader
from moe_lms.model import Kind

BANK = """\
id: demo
title: Demo
questions:
  - id: q1
    stem: Pick one.
    explanation: Because.
    choices:
      - id: a
        text: Right
        correct: true
        explanation: It is right.
      - id: b
        text: Wrong
        explanation: It is wrong.
"""


def messages_of(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "bank.yaml").write_text(text, encoding="utf-8")
    bank, problems = loader.check_bank(tmp_path)
    assert bank is None
    return [str(p).split(": error: ", 1)[1] if ": error: " in str(p) else str(p) for p in problems]


def place_of(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "bank.yaml").write_text(text, encoding="utf-8")
    return [str(p).split(": ", 1)[0].rsplit("bank.yaml:", 1)[1] for p in loader.check_bank(tmp_path)[1]]


@pytest.mark.parametrize(("written", "seen"), [("15", "a number"), ("2.5", "a number"), ("True", "true or false")])
def test_a_number_or_true_where_a_text_goes_says_to_quote_it_as_written(
    tmp_path: Path, written: str, seen: str
) -> None:
    found = messages_of(tmp_path, BANK.replace("        text: Wrong", f"        text: {written}"))
    assert found == [
        f"question 'q1', choice 'b': text: YAML read {written} as {seen}, not a text: put it in quotes: "
        f'text: "{written}"'
    ]


def test_correct_yes_says_to_write_true_or_false(tmp_path: Path) -> None:
    found = messages_of(tmp_path, BANK.replace("        correct: true", "        correct: yes"))
    assert found == [
        "question 'q1', choice 'a': correct: 'yes' is not true or false: write correct: true or correct: false"
    ]


def test_a_key_indented_too_far_is_named_with_the_key_it_should_line_up_with(tmp_path: Path) -> None:
    text = BANK.replace("        text: Wrong", "            text: Wrong")
    found = messages_of(tmp_path, text)
    assert found == [
        "YAML syntax error: `text:` on line 13 is indented more (12 spaces) than `id:` on line 12 (8 spaces), so "
        "YAML read it as part of the value of `id:`: indent `text:` by 8 spaces, as `id:` is "
        "(YAML: mapping values are not allowed in this context)"
    ]
    assert place_of(tmp_path, text) == ["13:17"]


def test_a_key_indented_too_little_is_named_with_what_it_can_line_up_with(tmp_path: Path) -> None:
    found = messages_of(tmp_path, BANK.replace("        explanation: It is wrong.", "       explanation: It is wrong."))
    assert found == [
        "YAML syntax error: `explanation:` on line 14 is indented 7 spaces, which lines up with no key above it: "
        "indent it 8 spaces, as `text:` on line 13 (a key of the same part) or 6 for a new `- ` item, as on line 12 "
        "(YAML: while parsing a block collection, did not find expected '-' indicator)"
    ]


def test_a_colon_inside_a_text_still_says_to_quote_the_text(tmp_path: Path) -> None:
    found = messages_of(tmp_path, BANK.replace("    stem: Pick one.", "    stem: Note: pick one."))
    assert found[0].startswith("YAML syntax error: a colon followed by a space inside a text makes YAML read a new key")


def test_correct_on_a_question_says_where_it_belongs(tmp_path: Path) -> None:
    text = BANK.replace("    explanation: Because.\n", "    explanation: Because.\n    correct: true\n", 1)
    assert messages_of(tmp_path, text) == [
        "question 'q1': 'correct' is a key of a choice, not of a question: write correct: true on the right choice "
        "(a true-false question may instead leave out its choices and say correct: true or false, with "
        "true_explanation and false_explanation)"
    ]


TRUE_FALSE = """\
  - id: q2
    kind: true-false
    stem: Water boils at 100 °C at sea level.
    correct: true
    explanation: At sea level the air pressure is one atmosphere.
    true_explanation: Right, at one atmosphere water boils at 100 °C.
    false_explanation: It does boil at 100 °C there; higher up, at lower pressure, it boils below 100 °C.
"""


def test_a_true_false_question_needs_no_hand_made_choices(tmp_path: Path) -> None:
    (tmp_path / "bank.yaml").write_text(BANK + TRUE_FALSE, encoding="utf-8")
    bank = loader.load_bank(tmp_path)
    question = bank.question("q2")
    assert question.kind is Kind.TRUE_FALSE
    assert [(c.id, c.text, c.correct) for c in question.choices] == [("t", "True", True), ("f", "False", False)]
    assert question.choices[1].explanation.startswith("It does boil")


def test_the_true_false_shorthand_without_its_explanations_says_which_it_needs(tmp_path: Path) -> None:
    text = BANK + "".join(line for line in TRUE_FALSE.splitlines(keepends=True) if "_explanation" not in line)
    assert messages_of(tmp_path, text) == [
        "question 'q2': a true-false question written with correct: true or false explains each answer: "
        "true_explanation (what a learner who answers True reads) and false_explanation (who answers False)"
    ]


def test_a_true_false_question_without_choices_or_correct_says_both_ways(tmp_path: Path) -> None:
    text = BANK + "".join(line for line in TRUE_FALSE.splitlines(keepends=True) if "correct" not in line)
    found = messages_of(tmp_path, text)
    assert "question 'q2': missing required key 'choices': a true-false question needs its two choices" in found[0]


def test_every_problem_comes_in_one_run_images_included(tmp_path: Path) -> None:
    text = BANK.replace("    explanation: Because.\n", "", 1) + (
        "  - id: q2\n"
        '    stem: "Look: ![a cell](media/cell.png)"\n'
        "    explanation: A cell.\n"
        "    choices:\n"
        "      - {id: a, text: x, correct: true, explanation: y}\n"
        "      - {id: b, text: z, explanation: w}\n"
    )
    assert messages_of(tmp_path, text) == [
        "question 'q1': missing required key 'explanation'",
        "question 'q2': the stem: image file 'media/cell.png' does not exist in the bank folder",
    ]


def test_an_image_of_a_question_with_errors_is_checked_too(tmp_path: Path) -> None:
    text = BANK.replace("    stem: Pick one.", '    stem: "![](media/cell.png)"').replace(
        "    explanation: Because.\n", ""
    )
    found = messages_of(tmp_path, text)
    assert "question 'q1': missing required key 'explanation'" in found
    assert (
        "question 'q1': the stem: image 'media/cell.png' has no alt text: say what it shows (for screen readers)"
        in found
    )


def test_a_po_file_of_a_locale_the_bank_does_not_list_says_how_to_add_it(tmp_path: Path) -> None:
    (tmp_path / "bank.yaml").write_text(BANK, encoding="utf-8")
    (tmp_path / "locales").mkdir()
    (tmp_path / "locales" / "de.po").write_text('msgid ""\nmsgstr ""\n', encoding="utf-8")
    problems = loader.check_bank(tmp_path)[1]
    assert [p.message for p in problems] == [
        "locale 'de' is not in the bank's target_locales: to translate into it, add de to target_locales: in "
        "bank.yaml and run `moe-lms translations update` (or delete this file)"
    ]


def test_a_short_form_key_on_another_kind_of_question_says_what_the_short_form_is(tmp_path: Path) -> None:
    text = BANK.replace("    explanation: Because.\n", "    explanation: Because.\n    true_explanation: Yes.\n", 1)
    assert messages_of(tmp_path, text) == [
        "question 'q1': 'true_explanation' belongs to the true-false short form: a question with kind: true-false, "
        "correct: true or false, and no choices"
    ]
