"""Moodle XML import: our own exports come back exactly; files from Moodle become valid banks; nothing is dropped
silently; broken files get an error naming the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from moe_lms.formats.moodle import NO_EXPLANATION, Skipped, load
from moe_lms.loader import load_bank, save_bank
from moe_lms.model import Kind
from moe_lms.problems import Severity

from .moodle_banks import UR, export, trilingual_bank

# A file as Moodle 4.5 exports it: comments, CDATA, editor paragraphs, a category path with "top",
# empty feedback, a true/false and two question types moe-lms does not keep.
FROM_MOODLE = b"""<?xml version="1.0" encoding="UTF-8"?>
<quiz>
<!-- question: 0  -->
  <question type="category">
    <category>
      <text>$course$/top/Default for PHY101/Waves</text>
    </category>
    <info format="moodle_auto_format">
      <text>The default category for questions shared in context 'PHY101'.</text>
    </info>
    <idnumber></idnumber>
  </question>
<!-- question: 101  -->
  <question type="multichoice">
    <name>
      <text>Wave speed</text>
    </name>
    <questiontext format="html">
      <text><![CDATA[<p dir="ltr" style="text-align: left;">What sets the speed of a wave on a string?</p>]]></text>
    </questiontext>
    <generalfeedback format="html">
      <text></text>
    </generalfeedback>
    <defaultgrade>1.0000000</defaultgrade>
    <penalty>0.3333333</penalty>
    <hidden>0</hidden>
    <idnumber></idnumber>
    <single>true</single>
    <shuffleanswers>true</shuffleanswers>
    <answernumbering>abc</answernumbering>
    <showstandardinstruction>0</showstandardinstruction>
    <correctfeedback format="html">
      <text>Your answer is correct.</text>
    </correctfeedback>
    <partiallycorrectfeedback format="html">
      <text>Your answer is partially correct.</text>
    </partiallycorrectfeedback>
    <incorrectfeedback format="html">
      <text>Your answer is incorrect.</text>
    </incorrectfeedback>
    <shownumcorrect/>
    <answer fraction="100" format="html">
      <text><![CDATA[<p dir="ltr" style="text-align: left;">Tension and <strong>mass</strong> per length</p>]]></text>
      <feedback format="html">
        <text><![CDATA[<p>v = &radic;(T/&mu;).</p>]]></text>
      </feedback>
    </answer>
    <answer fraction="0" format="html">
      <text>The amplitude</text>
      <feedback format="html">
        <text></text>
      </feedback>
    </answer>
    <tags>
      <tag><text>Mechanics 1</text></tag>
    </tags>
  </question>
<!-- question: 102  -->
  <question type="shortanswer">
    <name>
      <text>Unit of frequency</text>
    </name>
    <questiontext format="html">
      <text>Name the unit of frequency.</text>
    </questiontext>
    <answer fraction="100"><text>hertz</text></answer>
  </question>
<!-- question: 103  -->
  <question type="truefalse">
    <name>
      <text>Sound in vacuum</text>
    </name>
    <questiontext format="html">
      <text>Sound travels through a vacuum.</text>
    </questiontext>
    <generalfeedback format="html">
      <text>Sound needs a medium.</text>
    </generalfeedback>
    <defaultgrade>2</defaultgrade>
    <idnumber>PHY-sound-1</idnumber>
    <answer fraction="0" format="moodle_auto_format">
      <text>true</text>
      <feedback format="html"><text>No medium, no sound.</text></feedback>
    </answer>
    <answer fraction="100" format="moodle_auto_format">
      <text>false</text>
      <feedback format="html"><text>Right.</text></feedback>
    </answer>
  </question>
  <question type="multichoice">
    <name><text>Wave speed</text></name>
    <questiontext format="html"><text>Which are transverse waves?</text></questiontext>
    <generalfeedback format="html"><text>Light and string waves.</text></generalfeedback>
    <single>false</single>
    <answer fraction="50"><text>Light</text><feedback><text>Yes.</text></feedback></answer>
    <answer fraction="-100"><text>Sound in air</text><feedback><text>Longitudinal.</text></feedback></answer>
    <answer fraction="50"><text>A plucked string</text><feedback><text>Yes.</text></feedback></answer>
  </question>
  <question type="essay">
    <name><text>Explain</text></name>
    <questiontext format="html"><text>Explain resonance.</text></questiontext>
  </question>
</quiz>
"""


def roundtrip(data: bytes, tmp_path: Path, **options: bool) -> bytes:
    """Import, save as a bank directory, load that again and export with the same options."""
    result = load(data)
    assert result.bank is not None, result.problems
    assert [p for p in result.problems if p.severity is Severity.ERROR] == []
    save_bank(result.bank, tmp_path / "bank")
    reloaded = load_bank(tmp_path / "bank")
    locales = tuple(reloaded.locales) if options.get("multilang") else ()
    return export(reloaded, *locales, **options)


@pytest.mark.parametrize(
    "options",
    [{}, {"multilang": True}, {"include_drafts": True}, {"multilang": True, "include_drafts": True}],
    ids=["per-locale", "multilang", "drafts", "multilang-drafts"],
)
def test_export_import_export_is_byte_identical(options: dict[str, bool], tmp_path: Path) -> None:
    first = export(trilingual_bank(), **options)
    assert roundtrip(first, tmp_path, **options) == first


def test_an_import_of_our_export_gives_back_the_questions_key_and_translations() -> None:
    original = trilingual_bank()
    bank = load(export(original)).bank
    assert bank is not None
    assert (bank.id, bank.title, bank.intro, bank.locales, bank.tags) == (
        original.id, original.title, original.intro, original.locales, original.tags,
    )  # fmt: skip
    for got, want in zip(bank.questions, original.questions, strict=True):
        assert (got.id, got.kind, got.points, got.shuffle, got.tags) == (
            want.id, want.kind, want.points, want.shuffle, want.tags,
        )  # fmt: skip
        assert [c.correct for c in got.choices] == [c.correct for c in want.choices]
        assert [c.explanation for c in got.choices] == [c.explanation for c in want.choices]
    assert bank.translations["ur"]["title"].text == f"{UR} Expert parallelism"
    assert bank.translations["vi"]["ep-costs/choices/c/text"].text == "Tiếng Việt: An all-to-all combine"


def test_fallbacks_and_unused_drafts_do_not_come_back_as_translations() -> None:
    bank = load(export(trilingual_bank())).bank
    assert bank is not None
    assert "ep-distributes/explanation" not in bank.translations["ur"]  # fell back to English
    assert "ep-costs/explanation" not in bank.translations["vi"]  # a draft, not exported without drafts
    assert all(not t.draft for catalog in bank.translations.values() for t in catalog.values())


def test_imported_translations_are_reviewed_including_drafts_that_were_exported() -> None:
    bank = load(export(trilingual_bank(), include_drafts=True)).bank
    assert bank is not None
    costs = bank.translations["vi"]["ep-costs/explanation"]
    assert (costs.text, costs.draft) == ("Tiếng Việt: Tokens travel twice per layer.", False)


def test_multilang_spans_become_locales_and_rtl_wrappers_are_removed() -> None:
    bank = load(export(trilingual_bank(), multilang=True)).bank
    assert bank is not None
    assert bank.locales == ("en", "ur", "vi")
    assert bank.translations["ur"]["ep-distributes/choices/a/text"].text == f"{UR} Full model copies"


def test_a_single_locale_export_imports_as_a_bank_in_that_locale() -> None:
    bank = load(export(trilingual_bank(), "ur")).bank
    assert bank is not None
    assert (bank.source_locale, bank.target_locales) == ("ur", ())
    assert bank.questions[0].stem == f"{UR} What does expert parallelism distribute across GPUs?"


def test_a_file_from_moodle_becomes_a_valid_bank(tmp_path: Path) -> None:
    result = load(FROM_MOODLE, file="phy.xml")
    bank = result.bank
    assert bank is not None
    assert (bank.id, bank.title, bank.source_locale) == ("default-for-phy101", "Default for PHY101", "en")
    assert [q.id for q in bank.questions] == ["wave-speed", "phy-sound-1", "wave-speed-2"]
    speed, sound, transverse = bank.questions
    assert speed.stem == "What sets the speed of a wave on a string?"
    assert [c.id for c in speed.choices] == ["a", "b"]
    assert speed.choices[0].text == "Tension and **mass** per length"
    assert speed.choices[0].explanation == "v = √(T/μ)."
    assert speed.choices[1].explanation == NO_EXPLANATION
    assert speed.explanation == NO_EXPLANATION
    assert speed.tags == ("mechanics-1",)
    assert (sound.kind, sound.points, [c.id for c in sound.choices]) == (Kind.TRUE_FALSE, 2, ["true", "false"])
    assert [c.text for c in sound.choices] == ["True", "False"] and sound.choices[1].correct
    assert transverse.kind is Kind.MULTIPLE
    assert [c.correct for c in transverse.choices] == [True, False, True]
    save_bank(bank, tmp_path / "phy")
    assert load_bank(tmp_path / "phy") == bank


def test_other_question_types_are_listed_with_their_line_never_dropped_silently() -> None:
    result = load(FROM_MOODLE)
    assert [(s.type, s.name) for s in result.skipped] == [("shortanswer", "Unit of frequency"), ("essay", "Explain")]
    assert all(isinstance(s, Skipped) and s.line for s in result.skipped)
    assert str(result.skipped[0]).startswith("line 59: shortanswer question 'Unit of frequency'")


def test_missing_explanations_are_filled_with_a_visible_todo_and_reported() -> None:
    result = load(FROM_MOODLE, file="phy.xml")
    warnings = [p for p in result.problems if "no explanation" in p.message]
    assert len(warnings) == 1
    assert (warnings[0].file, warnings[0].line, warnings[0].severity) == ("phy.xml", 14, Severity.WARNING)
    assert "the general explanation" in warnings[0].message and "choice b" in warnings[0].message


def test_the_locale_of_a_file_that_does_not_say_can_be_given() -> None:
    bank = load(FROM_MOODLE, locale="de").bank
    assert bank is not None and bank.source_locale == "de"


def test_multilang_spans_in_a_file_from_moodle_become_translations() -> None:
    stem = '<span lang="en" class="multilang">Yes?</span><span lang="de" class="multilang">Ja?</span>'
    yes = '<span class="multilang" lang="en">yes</span> <span class="multilang" lang="de">ja</span>'
    data = f"""<quiz><question type="multichoice"><name><text>Q</text></name>
    <questiontext><text><![CDATA[{stem}]]></text></questiontext>
    <generalfeedback><text>Because.</text></generalfeedback>
    <answer fraction="100"><text><![CDATA[{yes}]]></text><feedback><text>Right.</text></feedback></answer>
    <answer fraction="0"><text>no</text><feedback><text>Wrong.</text></feedback></answer>
    </question></quiz>""".encode()
    bank = load(data).bank
    assert bank is not None
    assert bank.locales == ("en", "de")
    assert bank.questions[0].stem == "Yes?"
    assert bank.translations["de"]["q/stem"].text == "Ja?"
    assert bank.translations["de"]["q/choices/a/text"].text == "ja"


def test_a_question_moodle_itself_could_not_grade_is_skipped_with_a_warning() -> None:
    data = b"""<quiz><question type="multichoice"><name><text>Keyless</text></name>
    <questiontext><text>Q?</text></questiontext><generalfeedback><text>E.</text></generalfeedback>
    <answer fraction="0"><text>a</text><feedback><text>x</text></feedback></answer>
    <answer fraction="0"><text>b</text><feedback><text>y</text></feedback></answer>
    </question><question type="multichoice"><name><text>Fine</text></name>
    <questiontext><text>Q?</text></questiontext><generalfeedback><text>E.</text></generalfeedback>
    <answer fraction="100"><text>a</text><feedback><text>x</text></feedback></answer>
    <answer fraction="0"><text>b</text><feedback><text>y</text></feedback></answer>
    </question></quiz>"""
    result = load(data)
    assert result.bank is not None and [q.id for q in result.bank.questions] == ["fine"]
    (warning,) = result.problems
    assert (warning.line, warning.where, warning.severity) == (1, "question 'keyless'", Severity.WARNING)
    assert "exactly one correct choice" in warning.message


@pytest.mark.parametrize(
    ("data", "line", "message"),
    [
        (b"<quiz>\n<question type='multichoice'>\n<name><text>x</text>\n</question>\n</quiz>", 4, "not well-formed"),
        (b"<quiz>\n  <question>\n</quiz>", 3, "not well-formed"),
        (b'<?xml version="1.0"?>\n<!DOCTYPE quiz [<!ENTITY e "x">]>\n<quiz>&e;</quiz>', 1, "DOCTYPE"),
        (b"<questions>\n</questions>", 1, "<quiz>"),
        (b"<quiz>\n<question type='essay'/>\n</quiz>", None, "nothing to import"),
    ],
    ids=["unclosed-element", "unclosed-question", "entities", "wrong-root", "no-questions"],
)
def test_bad_input_is_an_error_naming_the_line_and_the_problem(data: bytes, line: int | None, message: str) -> None:
    result = load(data, file="in.xml")
    assert result.bank is None
    (problem,) = result.problems
    assert (problem.file, problem.line, problem.severity) == ("in.xml", line, Severity.ERROR)
    assert message in problem.message


def test_multilang_spans_in_an_unknown_language_are_skipped_with_a_warning() -> None:
    stem = '<span lang="en" class="multilang">Yes?</span><span lang="xx" class="multilang">Xx?</span>'
    data = f"""<quiz><question type="multichoice"><name><text>Q</text></name>
    <questiontext><text><![CDATA[{stem}]]></text></questiontext>
    <generalfeedback><text>Because.</text></generalfeedback>
    <answer fraction="100"><text>yes</text><feedback><text>Right.</text></feedback></answer>
    <answer fraction="0"><text>no</text><feedback><text>Wrong.</text></feedback></answer>
    </question></quiz>""".encode()
    result = load(data)
    assert result.bank is not None and result.bank.locales == ("en",)
    assert [p.message for p in result.problems] == [
        "multilang spans in language 'xx', which is no locale moe-lms knows; skipped"
    ]


def test_an_xml_comment_inside_a_text_loses_none_of_the_words_around_it() -> None:
    data = b"""<?xml version="1.0" encoding="UTF-8"?>
<quiz>
<question type="multichoice">
  <name><text>q1</text></name>
  <questiontext format="html"><text>Before <!-- an editor's note --> after the comment</text></questiontext>
  <generalfeedback format="html"><text>General <?php echo 1; ?>feedback</text></generalfeedback>
  <defaultgrade>1</defaultgrade>
  <single>true</single>
  <answer fraction="100" format="html"><text>Right <!-- x -->one</text>
    <feedback format="html"><text>Yes</text></feedback></answer>
  <answer fraction="0" format="html"><text>Wrong</text><feedback format="html"><text>No</text></feedback></answer>
</question>
</quiz>
"""
    bank = load(data, file="comments.xml").bank
    assert bank is not None
    question = bank.questions[0]
    assert question.stem == "Before after the comment"
    assert question.explanation == "General feedback"
    assert question.choices[0].text == "Right one"
