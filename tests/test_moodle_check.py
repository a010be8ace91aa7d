"""check_moodle_xml: the rules Moodle's importer enforces silently or fatally, each reported with its line."""

from __future__ import annotations

import pytest

from moe_lms.formats.moodle import check_moodle_xml
from moe_lms.problems import Severity

from .moodle_banks import export, trilingual_bank


def quiz(*questions: str) -> bytes:
    return ("<quiz>\n" + "\n".join(questions) + "\n</quiz>").encode()


def multichoice(*fractions: str, single: str = "true", idnumber: str = "", name: str = "Q") -> str:
    answers = "".join(f'<answer fraction="{f}"><text>{i}</text></answer>' for i, f in enumerate(fractions))
    return (
        f'<question type="multichoice"><name><text>{name}</text></name><single>{single}</single>'
        f"<idnumber>{idnumber}</idnumber>{answers}</question>"
    )


def category(path: str) -> str:
    return f'<question type="category"><category><text>{path}</text></category></question>'


@pytest.mark.parametrize(
    "options", [{}, {"multilang": True}, {"include_drafts": True}], ids=["per-locale", "multilang", "drafts"]
)
def test_every_export_passes_the_check(options: dict[str, bool]) -> None:
    assert check_moodle_xml(export(trilingual_bank(), **options)) == []


def test_a_sound_file_from_moodle_passes() -> None:
    data = quiz(category("$course$/top/A"), multichoice("100", "0"), multichoice("50", "50", "-100", single="false"))
    assert check_moodle_xml(data) == []


def test_a_single_answer_multichoice_without_a_100_percent_answer_is_an_error() -> None:
    (problem,) = check_moodle_xml(quiz(multichoice("50", "0", name="Keyless")), file="q.xml")
    assert (problem.file, problem.line, problem.where) == ("q.xml", 2, "question 'Keyless'")
    assert "nobody can get right" in problem.message


@pytest.mark.parametrize("fraction", ["33.3", "101", "-7", "abc", "NaN"])
def test_a_fraction_off_the_grade_list_is_an_error_naming_its_answer(fraction: str) -> None:
    problems = check_moodle_xml(quiz(multichoice("100", fraction)))
    assert len(problems) == 1
    assert problems[0].line == 2
    assert "grade list" in problems[0].message or "not a number" in problems[0].message


def test_fractions_moodle_writes_with_seven_digits_are_on_the_list() -> None:
    data = quiz(multichoice("33.33333", "33.33333", "33.33333", "-100", single="false"))
    assert check_moodle_xml(data) == []


def test_a_multichoice_with_fewer_than_two_answers_is_an_error() -> None:
    (problem,) = check_moodle_xml(quiz(multichoice("100")))
    assert "aborts the import mid-file" in problem.message


def test_the_correct_answers_of_a_multiple_answer_question_must_add_up_to_100() -> None:
    (problem,) = check_moodle_xml(quiz(multichoice("50", "25", "-100", single="false")))
    assert "add up to 75%" in problem.message


def test_an_idnumber_used_twice_in_one_category_is_an_error_naming_both_lines() -> None:
    data = quiz(
        category("$course$/A"),
        multichoice("100", "0", idnumber="x"),
        category("$course$/B"),
        multichoice("100", "0", idnumber="x"),
        multichoice("100", "0", idnumber="x", name="Again"),
    )
    (problem,) = check_moodle_xml(data)
    assert (problem.line, problem.where) == (6, "question 'Again'")
    assert "already used in category '$course$/B' at line 5" in problem.message


def test_a_multilang_span_with_more_attributes_than_lang_and_class_is_a_warning() -> None:
    text = '<span lang="en" class="multilang" dir="ltr">A</span><span lang="ur" class="multilang">B</span>'
    data = quiz(
        '<question type="multichoice"><name><text>Q</text></name>'
        f"<questiontext><text><![CDATA[{text}]]></text></questiontext>"
        '<answer fraction="100"><text>a</text></answer><answer fraction="0"><text>b</text></answer></question>'
    )
    (problem,) = check_moodle_xml(data)
    assert problem.severity is Severity.WARNING
    assert "besides lang and class" in problem.message


def test_a_span_inside_a_multilang_span_is_a_warning() -> None:
    text = '<span lang="en" class="multilang">A <span>b</span> c</span><span lang="ur" class="multilang">B</span>'
    data = quiz(
        category("$course$/A").replace("</category>", f"</category><info><text><![CDATA[{text}]]></text></info>")
    )
    (problem,) = check_moodle_xml(data)
    assert "first </span>" in problem.message


def test_a_block_inside_a_multilang_span_is_a_warning() -> None:
    """What moe-lms wrote before issue 11 item 11: Moodle's content cleaning moves the <p> out of the span."""
    text = '<span lang="en" class="multilang"><p>A</p></span><span lang="ur" class="multilang"><p>B</p></span>'
    data = quiz(
        category("$course$/A").replace("</category>", f"</category><info><text><![CDATA[{text}]]></text></info>")
    )
    (problem,) = check_moodle_xml(data)
    assert problem.severity is Severity.WARNING
    assert "contains a <p> block" in problem.message


@pytest.mark.parametrize(
    ("data", "line"),
    [(b"<quiz>\n<question>\n</quiz>", 3), (b"<quiz>\n<x>&nbsp;</x></quiz>", 2), (b"\n\n<other/>", 3)],
    ids=["unclosed", "undefined-entity", "wrong-root"],
)
def test_a_file_that_is_not_moodle_xml_is_one_error_naming_the_line(data: bytes, line: int) -> None:
    (problem,) = check_moodle_xml(data)
    assert problem.line == line and problem.severity is Severity.ERROR
