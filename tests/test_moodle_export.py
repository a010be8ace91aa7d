"""Moodle XML export: the structure Moodle's importer reads, per locale and as multilang, refusing what it mangles."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from moe_lms.formats.moodle import (
    GRADES,
    MULTILANG_RUN,
    answer_fractions,
    check_moodle_xml,
    grade_shares,
    on_grade_list,
    split_languages,
)
from moe_lms.model import Bank, Choice, Question, Translation
from moe_lms.problems import ProblemsFound
from moe_lms.richtext import direction_style

from .moodle_banks import UR, export, parse, questions, text_of, trilingual_bank

# How a Moodle export wraps Urdu text: direction, language, and the layout Moodle keeps (issue 26).
UR_WRAPPER = f'<div dir="rtl" lang="ur" style="{direction_style("ur")}">'

FIELDS_IN_MOODLE_ORDER = [
    "name", "questiontext", "generalfeedback", "defaultgrade", "penalty", "hidden", "idnumber", "single",
    "shuffleanswers", "answernumbering", "showstandardinstruction", "correctfeedback", "partiallycorrectfeedback",
    "incorrectfeedback", "shownumcorrect",
]  # fmt: skip


def marked(lang: str, html: str) -> str:
    """Text as a per-locale export writes it: in a block saying its language (and direction)."""
    return f'<div dir="ltr" lang="{lang}">{html}</div>'


def test_every_text_of_a_per_locale_export_says_its_language_vietnamese_and_english_too() -> None:
    """Issue 10, item 3: only Urdu and English fallbacks were marked; Vietnamese text carried no lang."""
    for locale in ("en", "vi"):
        root = parse(export(trilingual_bank(), locale))
        texts = [t.text for q in root.findall("question") for t in q.iter("text")]
        texts = [t for t in texts if t and t.startswith("<")] + [a.findtext("text") or "" for a in root.iter("answer")]
        assert texts
        for text in texts:
            assert re.match(r'<div dir="ltr" lang="(en|vi)">', text), text


def test_without_locales_every_locale_gets_its_own_category_source_first() -> None:
    root = parse(export(trilingual_bank()))
    categories = questions(root, "category")
    assert [text_of(c, "category") for c in categories] == [
        "$course$/Expert parallelism/English",
        f"$course$/Expert parallelism/{UR}",
        "$course$/Expert parallelism/Tiếng Việt",
    ]
    assert [c.findtext("idnumber") for c in categories] == ["ep-bank-en", "ep-bank-ur", "ep-bank-vi"]
    assert len(questions(root)) == 3 * 3


def test_the_category_info_holds_the_localized_title_and_intro() -> None:
    root = parse(export(trilingual_bank(), "vi"))
    (category,) = questions(root, "category")
    assert category.find("info").get("format") == "html"
    assert text_of(category, "info") == (
        marked("vi", "<h3>Tiếng Việt: Expert parallelism</h3>")
        + marked("vi", "<p>Tiếng Việt: Answers appear when you take the quiz.</p>")
    )


def test_each_question_is_a_multichoice_with_every_field_moodle_reads_in_its_order() -> None:
    root = parse(export(trilingual_bank(), "en"))
    first = questions(root)[0]
    tags = [child.tag for child in first]
    assert tags == [*FIELDS_IN_MOODLE_ORDER, "answer", "answer", "answer", "answer", "tags"]
    assert text_of(first, "name") == "ep-distributes: What does expert parallelism distribute across GPUs?"
    assert first.find("questiontext").get("format") == "html"
    assert text_of(first, "questiontext") == marked("en", "<p>What does expert parallelism distribute across GPUs?</p>")
    assert text_of(first, "generalfeedback") == marked("en", "<p>Experts are sharded across devices.</p>")
    assert first.findtext("defaultgrade") == "1.0000000"
    assert first.findtext("penalty") == "0.3333333"
    assert first.findtext("hidden") == "0"
    assert first.findtext("idnumber") == "ep-distributes-en"
    assert first.findtext("single") == "true"
    assert first.findtext("shuffleanswers") == "true"
    assert first.findtext("answernumbering") == "abc"
    assert text_of(first, "correctfeedback") == marked("en", "<p>Your answer is correct.</p>")
    assert text_of(first, "incorrectfeedback") == marked("en", "<p>Your answer is incorrect.</p>")
    assert [t.text for t in first.findall("tags/tag/text")] == ["moe", "parallelism"]


def test_the_key_is_the_answer_at_100_and_every_answer_carries_its_choice_explanation() -> None:
    root = parse(export(trilingual_bank(), "en"))
    answers = questions(root)[0].findall("answer")
    assert [a.get("fraction") for a in answers] == ["0", "0", "100", "0"]
    assert [a.get("format") for a in answers] == ["html"] * 4
    assert [a.findtext("text") for a in answers][2] == marked("en", "The experts of an MoE layer")
    assert [a.findtext("feedback/text") for a in answers] == [
        marked("en", "<p>That is data parallelism.</p>"),
        marked("en", "<p>That is tensor parallelism.</p>"),
        marked("en", "<p>Yes.</p>"),
        marked("en", "<p>Unrelated to MoE.</p>"),
    ]


def test_multiple_answer_questions_share_100_among_the_correct_and_minus_100_among_the_wrong() -> None:
    root = parse(export(trilingual_bank(), "en"))
    costs = questions(root)[1]
    assert costs.findtext("single") == "false"
    assert costs.findtext("shuffleanswers") == "false"
    assert costs.findtext("defaultgrade") == "2.0000000"
    assert [a.get("fraction") for a in costs.findall("answer")] == ["33.33333", "-50", "33.33333", "-50", "33.33333"]


def test_true_false_questions_are_unnumbered_single_answer_multichoice_keeping_their_texts() -> None:
    root = parse(export(trilingual_bank(), "en"))
    true_false = questions(root)[2]
    assert true_false.findtext("single") == "true"
    assert true_false.findtext("answernumbering") == "none"
    assert true_false.findtext("penalty") == "1.0000000"
    assert [(a.findtext("text"), a.get("fraction")) for a in true_false.findall("answer")] == [
        (marked("en", "True"), "0"),
        (marked("en", "False"), "100"),
    ]


@pytest.mark.parametrize("correct", range(1, 21))
def test_any_number_of_correct_choices_up_to_20_gets_fractions_on_the_grade_list_adding_to_100(correct: int) -> None:
    shares = grade_shares(correct)
    assert shares is not None and len(shares) == correct
    assert all(share in GRADES for share in shares)
    assert abs(sum(Decimal(s) for s in shares) - 100) < Decimal("0.001")
    assert max(Decimal(s) for s in shares) - min(Decimal(s) for s in shares) <= 5


def test_equal_shares_where_the_grade_list_has_them_and_the_closest_mix_otherwise() -> None:
    assert grade_shares(3) == ("33.33333",) * 3
    assert grade_shares(7) == ("14.28571",) * 7
    assert grade_shares(11) == ("10",) * 9 + ("5",) * 2
    assert grade_shares(21) is None


def test_wrong_choices_beyond_twenty_each_cost_the_smallest_grade() -> None:
    choices = [Choice(id="a", text="A", correct=True, explanation="x")]
    choices += [Choice(id=f"w{i}", text="W", explanation="x") for i in range(25)]
    q = Question(id="many", kind="multiple", stem="s", explanation="e", choices=tuple(choices))
    fractions = answer_fractions(q)
    assert fractions[0] == "100" and set(fractions[1:]) == {"-5"}
    assert all(on_grade_list(Decimal(f)) for f in fractions)


def test_bank_order_is_kept_in_every_category() -> None:
    root = parse(export(trilingual_bank()))
    ids = [q.findtext("idnumber") for q in questions(root)]
    assert ids[:3] == ["ep-distributes-en", "ep-costs-en", "ep-true-en"]
    assert ids[3:6] == ["ep-distributes-ur", "ep-costs-ur", "ep-true-ur"]


def test_idnumbers_are_unique_within_each_category() -> None:
    data = export(trilingual_bank())
    assert check_moodle_xml(data) == []
    root = parse(data)
    assert len({q.findtext("idnumber") for q in questions(root)}) == 9


def test_urdu_text_is_wrapped_right_to_left_and_marked_urdu() -> None:
    root = parse(export(trilingual_bank(), "ur"))
    first = questions(root)[0]
    assert text_of(first, "questiontext") == (
        f"{UR_WRAPPER}<p>{UR} What does expert parallelism distribute across GPUs?</p></div>"
    )
    assert first.find("answer").findtext("text") == f"{UR_WRAPPER}{UR} Full model copies</div>"


def test_text_that_fell_back_to_the_source_is_marked_with_its_real_language() -> None:
    root = parse(export(trilingual_bank(), "ur"))
    assert text_of(questions(root)[0], "generalfeedback") == (
        '<div dir="ltr" lang="en"><p>Experts are sharded across devices.</p></div>'
    )
    vietnamese = parse(export(trilingual_bank(), "vi"))
    assert text_of(questions(vietnamese)[2], "questiontext") == (
        '<div dir="ltr" lang="en"><p>Each token runs every expert.</p></div>'
    )


def test_drafts_are_used_only_when_asked() -> None:
    def costs_explanation(**options: bool) -> str:
        return text_of(questions(parse(export(trilingual_bank(), "vi", **options)))[1], "generalfeedback")

    assert costs_explanation() == '<div dir="ltr" lang="en"><p>Tokens travel twice per layer.</p></div>'
    assert costs_explanation(include_drafts=True) == marked("vi", "<p>Tiếng Việt: Tokens travel twice per layer.</p>")


def test_markdown_is_rendered_to_sanitised_html() -> None:
    bank = trilingual_bank()
    q = bank.questions[0].model_copy(update={"stem": "Run `x` <script>alert(1)</script> *now*"})
    bank = bank.model_copy(update={"questions": (q, *bank.questions[1:])})
    stem = text_of(questions(parse(export(bank, "en")))[0], "questiontext")
    assert stem == marked("en", "<p>Run <code>x</code> &lt;script&gt;alert(1)&lt;/script&gt; <em>now</em></p>")


def test_the_same_bank_gives_byte_identical_output() -> None:
    for options in ({}, {"multilang": True}):
        assert export(trilingual_bank(), **options) == export(trilingual_bank(), **options)


def test_markup_characters_and_cdata_terminators_give_a_well_formed_file() -> None:
    nasty = "a ]]> b & c < d > e ]]]]> <![CDATA[ f"
    bank = trilingual_bank(title=nasty)
    q = bank.questions[0].model_copy(update={"stem": nasty, "explanation": nasty})
    bank = bank.model_copy(update={"questions": (q, *bank.questions[1:])})
    root = parse(export(bank, "en"))
    assert text_of(questions(root)[0], "questiontext") == marked(
        "en", "<p>a ]]&gt; b &amp; c &lt; d &gt; e ]]]]&gt; &lt;![CDATA[ f</p>"
    )
    # A category name is plain text that Moodle shows as HTML: "<!" (which would open a comment there) reads "‹!".
    assert text_of(questions(root, "category")[0], "category") == f"$course$/{nasty.replace('<!', '‹!')}/English"


def test_text_the_bank_escaped_never_becomes_a_tag_in_a_question_name_or_category() -> None:
    """Names are plain text that Moodle shows as HTML: "&lt;script&gt;" in the bank must not come out as <script>."""
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt; routing"
    bank = trilingual_bank(title=escaped)
    q = bank.questions[0].model_copy(update={"stem": escaped})
    root = parse(export(bank.model_copy(update={"questions": (q, *bank.questions[1:])}), "en"))
    name = questions(root)[0].findtext("name/text")
    assert name == "ep-distributes: ‹script>alert(1)‹/script> routing"
    assert "<" not in text_of(questions(root, "category")[0], "category")


def test_a_slash_in_the_bank_title_is_doubled_in_the_category_path_as_moodle_expects() -> None:
    root = parse(export(trilingual_bank(title="/MoE / serving/"), "en"))
    assert text_of(questions(root, "category")[0], "category") == "$course$/ //MoE // serving// /English"


def test_characters_xml_cannot_carry_are_an_error_naming_the_question_and_the_file() -> None:
    bank = trilingual_bank()
    ur = dict(bank.translations["ur"])
    ur["ep-costs/choices/b/text"] = Translation("bad \x00 byte", bank.questions[1].choices[1].text)
    bank = bank.model_copy(update={"translations": {**bank.translations, "ur": ur}})
    with pytest.raises(ProblemsFound) as info:
        export(bank)
    (problem,) = info.value.problems
    assert problem.file == "locales/ur.po"
    assert problem.where == "question 'ep-costs'"
    assert "choice 'b'" in problem.message and "U+0000" in problem.message and "XML 1.0" in problem.message


def test_a_single_answer_question_without_a_key_is_refused_not_written() -> None:
    bank = trilingual_bank()
    keyless = Question.model_construct(**{**dict(bank.questions[0]), "choices": tuple(
        c.model_copy(update={"correct": False}) for c in bank.questions[0].choices
    )})  # fmt: skip
    bank = Bank.model_construct(**{**dict(bank), "questions": (keyless, *bank.questions[1:])})
    with pytest.raises(ProblemsFound) as info:
        export(bank)
    assert [p.where for p in info.value.problems] == ["question 'ep-distributes'"]
    assert "exactly one correct choice" in info.value.problems[0].message


def test_a_question_with_fewer_than_two_choices_is_refused() -> None:
    bank = trilingual_bank()
    lonely = Question.model_construct(**{**dict(bank.questions[0]), "choices": bank.questions[0].choices[2:3]})
    bank = Bank.model_construct(**{**dict(bank), "questions": (lonely, *bank.questions[1:])})
    with pytest.raises(ProblemsFound, match="below 2"):
        export(bank)


def test_more_than_twenty_correct_choices_cannot_be_graded_by_moodle_and_are_refused() -> None:
    choices = tuple(Choice(id=f"c{i}", text="C", correct=True, explanation="x") for i in range(21))
    q = Question(id="many", kind="multiple", stem="s", explanation="e", choices=choices)
    bank = Bank(id="b", title="t", questions=(q,))
    with pytest.raises(ProblemsFound, match="at most 20"):
        export(bank)


def test_a_text_that_renders_to_nothing_is_an_error_not_an_empty_question() -> None:
    bank = trilingual_bank()
    q = bank.questions[0].model_copy(update={"stem": "<!-- x -->"})
    bank = bank.model_copy(update={"questions": (q, *bank.questions[1:])})
    with pytest.raises(ProblemsFound, match="renders to no text"):
        export(bank, "en")


def test_only_the_requested_locales_are_exported() -> None:
    root = parse(export(trilingual_bank(), "ur"))
    assert [c.findtext("idnumber") for c in questions(root, "category")] == ["ep-bank-ur"]
    assert {q.findtext("idnumber") for q in questions(root)} == {"ep-distributes-ur", "ep-costs-ur", "ep-true-ur"}


# --- multilang ------------------------------------------------------------------------------------------------


def test_multilang_gives_one_category_and_one_question_per_bank_question() -> None:
    root = parse(export(trilingual_bank(), multilang=True))
    (category,) = questions(root, "category")
    assert text_of(category, "category") == "$course$/Expert parallelism"
    assert category.findtext("idnumber") == "ep-bank-multilang"
    assert [q.findtext("idnumber") for q in questions(root)] == ["ep-distributes", "ep-costs", "ep-true"]


def test_multilang_spans_are_adjacent_and_carry_only_lang_and_class() -> None:
    root = parse(export(trilingual_bank(), multilang=True))
    stem = text_of(questions(root)[0], "questiontext")
    assert stem == (
        '<p><span lang="en" class="multilang"><bdi dir="ltr" lang="en">What does expert parallelism distribute '
        "across GPUs?</bdi></span>"
        f'<span lang="ur" class="multilang"><bdi dir="rtl" lang="ur">{UR} What does expert parallelism '
        "distribute across GPUs?</bdi></span>"
        '<span lang="vi" class="multilang"><bdi dir="ltr" lang="vi">Tiếng Việt: What does expert parallelism '
        "distribute across GPUs?</bdi></span></p>"
    )
    assert MULTILANG_RUN.fullmatch(stem[3:-4]), "the paragraph holds one run the filter acts on"
    for span in re.findall(r"<span[^>]*>", stem):
        assert re.fullmatch(r'<span lang="(en|ur|vi)" class="multilang">', span)


BLOCK_OF_A_RUN = re.compile(r"<(p|h[1-6])>(.*?)</\1>", re.S)


def test_every_text_of_a_multilang_export_is_one_run_of_spans_or_blocks_each_holding_one() -> None:
    """Issue 11, item 11: with Moodle's "Content cleaning everywhere" on, HTMLPurifier moves a block element out of
    a span before the multilang filter runs, and learners saw every language. Spans hold inline text only."""
    root = parse(export(trilingual_bank(), multilang=True))
    texts = [t.text for q in root.findall("question") for t in q.iter("text") if t.getparent().tag != "name"]
    texts = [t for t in texts if t and not t.startswith(("moe", "parallelism", "$course$"))]  # tags are plain
    assert texts
    for text in texts:
        if text.startswith("<span"):  # an inline text (a choice)
            runs = [text]
        else:
            blocks = BLOCK_OF_A_RUN.findall(text)
            assert "".join(f"<{tag}>{inner}</{tag}>" for tag, inner in blocks) == text
            runs = [inner for _, inner in blocks]
        for run in runs:
            assert MULTILANG_RUN.fullmatch(run), run
            assert not re.search(r"<(p|div|h[1-6]|ul|ol|li|table|pre|blockquote)\b", run), run


def test_a_text_of_several_paragraphs_gives_each_language_its_own_blocks() -> None:
    bank = trilingual_bank()
    q = bank.questions[0].model_copy(update={"explanation": "First paragraph.\n\nSecond paragraph."})
    bank = bank.model_copy(update={"questions": (q, *bank.questions[1:])})
    shown = split_languages(text_of(questions(parse(export(bank, multilang=True)))[0], "generalfeedback"))
    assert shown is not None
    both = (
        '<p><bdi dir="ltr" lang="en">First paragraph.</bdi></p><p><bdi dir="ltr" lang="en">Second paragraph.</bdi></p>'
    )
    assert shown["en"].replace("<p></p>", "") == both
    assert shown["ur"].replace("<p></p>", "") == both  # a fallback, marked as English


def test_a_list_cannot_go_into_a_multilang_span_and_says_what_to_do() -> None:
    bank = trilingual_bank()
    q = bank.questions[0].model_copy(update={"explanation": "- one\n- two"})
    bank = bank.model_copy(update={"questions": (q, *bank.questions[1:])})
    with pytest.raises(ProblemsFound, match="export one file per locale instead"):
        export(bank, multilang=True)


def test_moodles_filter_shows_each_language_its_own_text_and_fallbacks_marked() -> None:
    root = parse(export(trilingual_bank(), multilang=True))
    shown = split_languages(text_of(questions(root)[0], "generalfeedback"))
    assert shown == {
        "en": '<p><bdi dir="ltr" lang="en">Experts are sharded across devices.</bdi></p>',
        "ur": '<p><bdi dir="ltr" lang="en">Experts are sharded across devices.</bdi></p>',
        "vi": '<p><bdi dir="ltr" lang="vi">Tiếng Việt: Experts are sharded across devices.</bdi></p>',
    }


def test_multilang_puts_the_direction_on_an_element_inside_the_span() -> None:
    root = parse(export(trilingual_bank(), multilang=True))
    answer = questions(root)[0].find("answer").findtext("text")
    assert f'<span lang="ur" class="multilang"><bdi dir="rtl" lang="ur">{UR} Full model copies</bdi></span>' in answer


def test_regional_locales_use_moodle_language_pack_codes_in_spans() -> None:
    bank = trilingual_bank(target_locales=["pt_BR"])
    bank = bank.model_copy(update={"translations": {}})
    stem = text_of(questions(parse(export(bank, multilang=True)))[0], "questiontext")
    assert '<span lang="pt_br" class="multilang"><bdi dir="ltr" lang="en">' in stem


def test_a_span_in_the_text_cannot_go_into_a_multilang_export() -> None:
    bank = trilingual_bank()
    q = bank.questions[0].model_copy(update={"stem": 'A <span lang="x">nested</span> span'})
    bank = bank.model_copy(update={"questions": (q, *bank.questions[1:])})
    with pytest.raises(ProblemsFound, match="multilang filter ends a language at the first </span>"):
        export(bank, multilang=True)
    assert export(bank, "en")  # a plain export is fine


def test_multilang_with_a_single_locale_is_that_locales_plain_export() -> None:
    assert export(trilingual_bank(), "vi", multilang=True) == export(trilingual_bank(), "vi")
