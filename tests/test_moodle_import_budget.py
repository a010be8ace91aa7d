"""Moodle XML is read a question at a time, and each question within a budget of what parsing it builds:
45 MB of <answer> in one question, within the 64 MiB file limit, took 3.4 GB and 50 s to import."""

from __future__ import annotations

from pathlib import Path

from moe_lms.formats import moodle

from .limited import run_capped


def _one_question(body: str) -> bytes:
    return (
        '<?xml version="1.0"?>\n<quiz>\n<question type="multichoice">\n'
        "<name><text>big</text></name>\n"
        '<questiontext format="html"><text>Which?</text></questiontext>\n'
        f"{body}</question>\n</quiz>\n"
    ).encode()


def test_a_question_of_a_million_answers_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    answers = '<answer fraction="0"><text>x</text></answer>\n' * 1_000_000
    file = tmp_path / "big.xml"
    file.write_bytes(_one_question(answers))
    assert file.stat().st_size < 64 * 2**20  # within the size limit
    result = run_capped("import", "moodle", str(file), "-o", str(tmp_path / "bank"))
    assert result.returncode == 1, result.stderr[-2000:]
    limit = moodle.QUESTION_BUDGET.max_elements
    assert f"big.xml:{limit // 2 + 3}: error: <question> at line 3 has more than {limit:,} elements" in result.stderr
    assert not (tmp_path / "bank").exists()


def test_a_question_nested_deeper_than_the_budget_is_refused_with_its_line() -> None:
    depth = moodle.QUESTION_BUDGET.max_depth + 5
    result = moodle.load(_one_question("<b>" * depth + "</b>" * depth), file="deep.xml")
    assert result.bank is None
    assert [str(p) for p in result.problems] == [
        f"deep.xml:6: error: elements nested more than {moodle.QUESTION_BUDGET.max_depth} deep; refused"
    ]


def test_a_question_with_many_answers_within_the_budget_imports() -> None:
    answers = (
        '<answer fraction="100"><text>yes</text></answer>\n' + '<answer fraction="0"><text>no</text></answer>\n' * 500
    )
    result = moodle.load(_one_question(answers), file="many.xml")
    assert result.bank is not None and len(result.bank.questions[0].choices) == 501
