"""`moe-lms check` reports every problem of a bank in one run (issue 34, M2): a question's error does not hide a
quiz's, a quiz's does not hide an image's or a PO file's, and what cannot be checked because of an earlier error is
said, not silently skipped."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from moe_lms.cli import main

QUESTION = """\
  - id: {qid}
    tags: [cells]
    stem: '{stem}'
    explanation: Because.
    choices:
      - id: a
        text: 'Yes'
        correct: true
        explanation: Right.
      - id: b
        text: 'No'
        {second}explanation: Wrong.
"""

QUIZ = """\
quizzes:
  - id: weekly
    title: Weekly check
    sections:
      - id: main
        draw: 6
        from: {tags: [cells]}
"""


def write_bank(
    directory: Path, *, image: bool = False, two_correct: bool = False, quiz: bool = False, bad_tags: bool = False
) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    text = "id: cells\ntitle: Cells\nsource_locale: en\ntarget_locales: []\nquestions:\n"
    for n in range(5):
        stem = f"Question {n}?" + (" ![A cell](media/cell.png)" if image and n == 0 else "")
        second = "correct: true\n        " if two_correct and n == 1 else ""
        question = QUESTION.format(qid=f"q{n}", stem=stem, second=second)
        if bad_tags and n == 1:
            question = question.replace("tags: [cells]", "tags: [Cells!]")
        text += question
    if quiz:
        text += QUIZ
    (directory / "bank.yaml").write_text(text, encoding="utf-8")
    return directory


def check(bank: Path) -> Result:
    return CliRunner().invoke(main, ["check", str(bank)])


def test_a_question_error_a_quiz_error_and_an_image_error_come_in_one_run(tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank", image=True, two_correct=True, quiz=True)
    result = check(bank)
    assert result.exit_code == 1
    assert "image file 'media/cell.png' does not exist in the bank folder" in result.stderr
    assert "question 'q1': a single-answer question needs exactly one correct choice, found 2 (a, b)" in result.stderr
    assert "quiz 'weekly': section 'main' draws 6 of a pool of 5 question(s)" in result.stderr
    assert "3 error(s)." in result.stderr


def test_a_quiz_error_does_not_hide_an_image_error(tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank", image=True, quiz=True)
    result = check(bank)
    assert result.exit_code == 1
    assert "image file 'media/cell.png' does not exist" in result.stderr
    assert "draws 6 of a pool of 5" in result.stderr


def test_a_quiz_error_does_not_hide_a_stray_po_file(tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank", quiz=True)
    (bank / "locales").mkdir()
    (bank / "locales" / "de.po").write_text('msgid ""\nmsgstr ""\n', encoding="utf-8")
    result = check(bank)
    assert "draws 6 of a pool of 5" in result.stderr
    assert "de.po: error: locale 'de' is not in the bank's target_locales" in result.stderr


def test_quizzes_that_cannot_be_checked_for_a_question_error_are_said_to_be_unchecked(tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank", quiz=True, bad_tags=True)
    result = check(bank)
    assert result.exit_code == 1
    assert "question 'q1'" in result.stderr
    assert (
        "note: the quizzes were not checked: question(s) 'q1' have errors in their tags or points, which the "
        "quizzes draw by; fix them and run check again"
    ) in result.stderr


def test_po_files_that_cannot_be_checked_for_a_question_error_are_said_to_be_unchecked(tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank", two_correct=True)
    (bank / "locales").mkdir()
    (bank / "locales" / "de.po").write_text('msgid ""\nmsgstr ""\n', encoding="utf-8")
    result = check(bank)
    assert result.exit_code == 1
    assert (
        "locales: note: 1 PO file(s) not checked: the translations are read against a bank.yaml without "
        "errors" in result.stderr
    )
