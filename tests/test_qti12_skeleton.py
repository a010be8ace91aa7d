"""Common Cartridge and Canvas QTI packages are written from skeletons (moe_lms.skeleton) for speed, each cartridge
item made once for its quiz and the question bank; every quiz and bank holds exactly the bytes written element by
element (qti12.build_item, lxml's xmlfile), whatever the text, its language, its markup and its rich content."""

from __future__ import annotations

import importlib
import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from moe_lms import variants
from moe_lms.formats import ExportOptions, canvas_qti, cc11, qti12
from moe_lms.loader import load_bank
from moe_lms.locales import resolve
from moe_lms.model import Bank, Translation
from moe_lms.problems import ProblemsFound
from moe_lms.richtext import rendering
from moe_lms.skeleton import NOT_XML

from .qti12_support import export, members
from .qti_support import rich_bank
from .strategies import banks

# (the packages' __init__ names the write function ``write``, hiding the module of that name)
cc_write = importlib.import_module("moe_lms.formats.cc11.write")
canvas_write = importlib.import_module("moe_lms.formats.canvas_qti.write")
FORMATS = ["cc11", "canvas-qti"]
SHIPPED = sorted((Path(__file__).resolve().parents[1] / "question_bank").iterdir())


def element_by_element(format_name: str, bank: Bank, include_drafts: bool) -> dict[str, bytes]:
    """The quizzes (and, for a cartridge, its question bank) of every locale, items built element by element."""
    views = {loc: resolve(bank, loc, include_drafts=include_drafts) for loc in bank.locales}
    files = {}
    flavour = qti12.Flavour.CC if format_name == "cc11" else qti12.Flavour.CANVAS
    with rendering(qti12.rich_profile(bank.media, flavour)):
        for loc, view in views.items():
            stream = io.BytesIO()
            if format_name == "cc11":
                cc_write.write_assessment(bank, view, stream)
                files[cc_write.quiz_path(loc)] = stream.getvalue()
            else:
                canvas_write.write_assessment(bank, view, stream)
                files[canvas_write.quiz_path(bank, loc)] = stream.getvalue()
        if format_name == "cc11":
            stream = io.BytesIO()
            cc_write.write_bank(bank, views, stream)
            files[cc_write.BANK_PATH] = stream.getvalue()
    return files


def assert_written_element_by_element(format_name: str, bank: Bank, include_drafts: bool = False) -> None:
    package = members(export(format_name, bank, include_drafts=include_drafts))
    expected = element_by_element(format_name, bank, include_drafts)
    assert {name: package[name] for name in expected} == expected


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(banks(max_questions=4), st.booleans(), st.sampled_from(FORMATS))
def test_quizzes_and_banks_are_the_bytes_written_element_by_element(
    bank: Bank, include_drafts: bool, format_name: str
) -> None:
    assert_written_element_by_element(format_name, bank, include_drafts)


@pytest.mark.parametrize("format_name", FORMATS)
@pytest.mark.parametrize("translate_all", [False, True])
@pytest.mark.parametrize("include_drafts", [False, True])
def test_markdown_fallbacks_and_right_to_left_text_are_unchanged(
    format_name: str, translate_all: bool, include_drafts: bool
) -> None:
    assert_written_element_by_element(format_name, rich_bank(translate_all=translate_all), include_drafts)


@pytest.mark.parametrize("format_name", FORMATS)
@pytest.mark.parametrize("bank_dir", SHIPPED, ids=lambda path: path.name)
def test_the_shipped_banks_math_images_and_code_are_unchanged(format_name: str, bank_dir: Path) -> None:
    bank = load_bank(bank_dir)
    if not variants.has_variants(bank):
        assert_written_element_by_element(format_name, bank)
        return
    # The writers see a parameterised question's variants, expanded before them (issue 31). A cartridge's quizzes
    # then ask the first variant of each, which the element-by-element reference does not know: its question bank
    # is compared, and every member of the other formats.
    expanded = variants.expand(bank)
    package = members(export(format_name, expanded))
    expected = element_by_element(format_name, expanded, False)
    if format_name == "cc11":
        expected = {name: data for name, data in expected.items() if not name.startswith("quiz-")}
    assert expected and {name: package[name] for name in expected} == expected


@pytest.mark.parametrize("format_name", FORMATS)
def test_a_bank_more_varied_than_the_skeletons_kept_is_unchanged(
    format_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(qti12.Items, "LIMIT", 1)
    assert_written_element_by_element(format_name, rich_bank())


HOSTILE = [
    "]]> and <![CDATA[ x ]]>",
    "a & b < c > d",
    "line\r\nbreak",
    "tab\there",
    "$x^2$ and \\$5",
    "Ends with a space ",
    " starts with one",
    "1. a list number",
    "> a quote",
    "double  space",
    "\u202eright-to-left override\u202c",
    "<script>alert(1)</script>",
    "&amp; &lt;p&gt; &#1; &#x1F600;",
    "",
]


@pytest.mark.parametrize("format_name", FORMATS)
@pytest.mark.parametrize("text", HOSTILE)
def test_text_each_fast_path_must_leave_to_the_thorough_one_is_unchanged(format_name: str, text: str) -> None:
    bank = rich_bank()
    question = bank.questions[0]
    choices = (question.choices[0].model_copy(update={"explanation": text}), *question.choices[1:])
    question = question.model_copy(update={"stem": text or "stem", "choices": choices})
    bank = bank.model_copy(update={"questions": (question, *bank.questions[1:])})
    # The same text as an Urdu translation of another question's stem, which only the bank's loader would refuse.
    translations = dict(bank.translations)
    translations["ur"] = {**translations["ur"], f"{bank.questions[1].id}/stem": Translation(text, "x")}
    bank = bank.model_copy(update={"translations": translations})
    assert_written_element_by_element(format_name, bank, include_drafts=True)


@pytest.mark.parametrize("format_name", FORMATS)
@pytest.mark.parametrize("bad", ["\x07", "\ufffe", "\x00"])
def test_a_translation_xml_cannot_carry_is_refused_with_lxml_s_message(format_name: str, bad: str) -> None:
    bank = rich_bank()
    question = bank.questions[1]
    translations = dict(bank.translations)
    translations["ur"] = {
        **translations["ur"],
        f"{question.id}/choices/{question.choices[0].id}/explanation": Translation(f"bell {bad}", "x"),
    }
    bank = bank.model_copy(update={"translations": translations})
    with pytest.raises(ValueError, match="XML compatible"):
        element_by_element(format_name, bank, include_drafts=True)
    with pytest.raises(ProblemsFound) as refused:
        export(format_name, bank, include_drafts=True)
    assert [problem.message for problem in refused.value.problems] == [NOT_XML]
    # The locale it names is the export's, as before.
    assert refused.value.problems[0].file == f"locales ({', '.join(bank.locales)})"


def test_a_cartridge_of_one_locale_holds_the_same_items_in_its_quiz_and_its_bank() -> None:
    bank = rich_bank(translate_all=True)
    options = ExportOptions.for_bank(bank, ("ur",))
    package = members(cc11.FORMAT.dump(bank, options))
    quiz, question_bank = package[cc_write.quiz_path("ur")], package[cc_write.BANK_PATH]
    items = quiz[quiz.index(b"<item ") : quiz.rindex(b"</item>")]
    assert items in question_bank and items.count(b"<item ") == len(bank.questions)
    assert canvas_qti.FORMAT.dump(bank, options)  # (the Canvas package of the same locale is written too)
