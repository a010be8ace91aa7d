"""GIFT export: Moodle's escaping, per-answer feedback, weights from Moodle's list, and a faithful reader."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st

from moe_lms.cli import main
from moe_lms.formats import ExportOptions, get
from moe_lms.formats.gift import (
    _TO_ESCAPE,
    MOODLE_GRADES,
    GiftSyntaxError,
    category,
    escape,
    identity_comment,
    parse,
    split_weights,
)
from moe_lms.loader import save_bank
from moe_lms.locales import Resolved, locale_info, resolve
from moe_lms.model import Bank, Choice, Question
from moe_lms.numeric import number_text
from moe_lms.richtext import Profile, latin_isolated, plain_text, render_block, render_inline, rendering

from .sample_bank import sample_bank
from .strategies import banks, mixed_texts

GIFT = get("gift")


def export(bank: Bank, locale: str = "en") -> str:
    return GIFT.dump(bank, ExportOptions((locale,))).decode("utf-8")


def one_question_bank(stem: str, choices: list[tuple[str, bool, str]], explanation: str, kind: str = "single") -> Bank:
    question = Question.model_validate(
        {
            "id": "q",
            "kind": kind,
            "stem": stem,
            "explanation": explanation,
            "choices": [
                Choice(id=f"c{i}", text=text, correct=ok, explanation=why) for i, (text, ok, why) in enumerate(choices)
            ],
        }
    )
    return Bank(id="b", title="T", questions=(question,))


def test_control_characters_and_backslash_are_escaped_as_moodle_escapes_them() -> None:
    assert escape("a~b=c#d{e}f:g\\h") == r"a\~b\=c\#d\{e\}f\:g\\h"


def test_line_breaks_become_backslash_n_so_a_question_stays_one_block() -> None:
    assert escape("one\ntwo\r\nthree\rfour") == r"one\ntwo\nthree\nfour"


def test_a_single_answer_question_marks_the_right_choice_with_equals_and_each_choice_has_feedback() -> None:
    text = export(sample_bank())
    block = text.split("// question: ep-distributes\n")[1].split("\n\n")[0]
    lines = block.splitlines()[1:]  # after the idnumber and tags
    div, span = r'<div lang\="en" dir\="ltr">', r'<span lang\="en" dir\="ltr">'
    assert lines[0].startswith(
        rf"::ep-distributes\: What does expert parallelism distribute across GPUs?::[html]{div}<p>What does <strong>"
    )
    assert lines[0].endswith("{")
    assert lines[1] == (
        f"\t~[html]{span}Full copies of the model</span>#[html]{div}<p>That is data parallelism, not expert "
        "parallelism.</p></div>"
    )
    assert lines[2].startswith(f"\t=[html]{span}The feed-forward experts")
    assert (
        lines[4] == f"\t####[html]{div}<p>Expert parallelism shards the experts of an MoE layer across GPUs.</p></div>"
    )
    assert lines[5] == "}"


def test_moodle_keeps_each_questions_idnumber_and_tags_from_the_comment_before_it() -> None:
    """Issue 11, item 13: Moodle 3.6+ reads "// [id:…] [tag:…]" (qformat_default::
    extract_idnumber_and_tags_from_comment); the ids and tags are the Moodle XML export's."""
    bank = sample_bank(tags=("moe",))
    q = bank.questions[0].model_copy(update={"tags": ("routing", "moe")})
    bank = bank.model_copy(update={"questions": (q, *bank.questions[1:])})
    text = export(bank, "ur")
    assert "// question: ep-distributes\n// [id:ep-distributes-ur] [tag:moe] [tag:routing]\n::" in text
    questions = parse(text)
    assert [(question.idnumber, question.tags) for question in questions] == [
        ("ep-distributes-ur", ("moe", "routing")),
        ("ep-costs-ur", ("moe",)),
        ("ep-router-ur", ("moe",)),
    ]


def test_the_reader_reads_idnumber_and_tags_as_moodle_does() -> None:
    source = "// [id:x\\]y] [tag: one ] [tag:two] [id:ignored]\n::n::q {=a ~b}\n"
    [question] = parse(source)
    assert question.idnumber == "x]y" and question.tags == ("one", "two")


def test_every_text_says_its_language_vietnamese_too() -> None:
    """Issue 10, item 3: only Urdu and fallbacks were marked."""
    text = GIFT.dump(sample_bank(), ExportOptions(("vi",), include_drafts=True)).decode("utf-8")
    fields = re.findall(r"\[html\](.*?)(?=#|\{|$)", text, re.MULTILINE)
    assert fields
    for field in fields:
        assert re.match(r'<(div|span) lang\\="(vi|en)" dir\\="ltr">', field), field
    assert r'<div lang\="vi" dir\="ltr">' in text


def test_true_false_questions_keep_their_choice_text_as_multiple_choice() -> None:
    [question] = [q for q in parse(export(sample_bank())) if q.name.startswith("ep-router:")]
    assert question.single
    assert [(_unwrapped(a.text), a.weight) for a in question.answers] == [("True", 100.0), ("False", 0.0)]


def test_multiple_answer_weights_come_from_moodles_list_right_ones_sum_to_100_wrong_ones_to_minus_100() -> None:
    [question] = [q for q in parse(export(sample_bank())) if q.name.startswith("ep-costs:")]
    assert not question.single
    assert [a.weight for a in question.answers] == [50.0, 50.0, -100.0]


@pytest.mark.parametrize("count", range(1, 21))
def test_any_number_of_right_choices_up_to_20_gets_grades_moodle_accepts(count: int) -> None:
    weights = split_weights(count, "q")
    assert len(weights) == count
    assert set(weights) <= set(MOODLE_GRADES)
    assert sum(map(float, weights)) == pytest.approx(100, abs=1e-3)


def test_three_right_choices_share_100_percent_as_thirds() -> None:
    assert split_weights(3, "q") == ["33.33333"] * 3


def test_urdu_text_is_marked_right_to_left_and_fallbacks_carry_their_real_language() -> None:
    text = export(sample_bank(), "ur")
    assert r'<div lang\="ur" dir\="rtl"><p>ماہرین کی متوازیت' in text
    assert r'#[html]<div lang\="en" dir\="ltr"><p>Splitting heads is tensor parallelism.</p></div>' in text


def test_questions_go_to_the_category_the_moodle_xml_export_uses() -> None:
    assert "\n$CATEGORY: $course$/Expert parallelism for MoE serving/اردو\n\n" in export(sample_bank(), "ur")


def test_a_slash_in_the_bank_title_is_doubled_in_the_category_path() -> None:
    text = export(sample_bank(title="Input/output"))
    assert "$CATEGORY: $course$/Input//output/English\n" in text


def test_the_export_is_byte_identical_each_time() -> None:
    bank = sample_bank()
    assert GIFT.dump(bank, ExportOptions(("ur",))) == GIFT.dump(bank, ExportOptions(("ur",)))


# --- the reader follows Moodle's parser -------------------------------------------------------------------------


def test_the_reader_reads_moodles_own_example_with_weights_and_feedback() -> None:
    source = """// a comment
::Jesus' hometown::Jesus Christ was from {
   ~Jerusalem#This was an important city, but the wrong answer.
   ~%25%Bethlehem#He was born here, but not raised here.
   ~%50%Galilee#You need to be more specific.
   =Nazareth#Yes! That's right!
}
"""
    [question] = parse(source)
    assert question.name == "Jesus' hometown"
    assert question.text == "Jesus Christ was from"
    assert question.text_format == "moodle"
    assert [(a.text, a.weight) for a in question.answers] == [
        ("Jerusalem", 0.0),
        ("Bethlehem", 25.0),
        ("Galilee", 50.0),
        ("Nazareth", 100.0),
    ]
    assert question.answers[3].feedback == "Yes! That's right!"


def test_the_reader_unescapes_as_moodle_does_a_backslash_before_other_characters_stays() -> None:
    [question] = parse(r"::a\:b::[html]x \\\: y \q {=r\#ight#f\=b ~w\}rong ####g\{f}")
    assert question.name == "a:b"
    assert question.text == r"x \: y \q"
    assert [(a.text, a.feedback) for a in question.answers] == [("r#ight", "f=b"), ("w}rong", "")]
    assert question.general_feedback == "g{f"


def test_the_reader_skips_categories_and_comment_only_blocks() -> None:
    assert parse("$CATEGORY: $course$/top/x\n\n// only a comment\n") == []


def test_the_reader_names_the_line_of_a_question_without_answers_closing() -> None:
    with pytest.raises(GiftSyntaxError, match="line 3"):
        parse("// c\n\n::q::text {=a ~b\n")


ADVERSARIAL = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\ufffe\uffff")
    | st.sampled_from(list("~=#{}:\\%[]n/ \n")),
    min_size=1,
    max_size=40,
).filter(
    lambda s: s.strip() and not any(("\x00" <= ch < " " and ch not in "\t\n\r") or "\x7f" <= ch <= "\x9f" for ch in s)
)


@settings(max_examples=300, deadline=None)
@given(stem=ADVERSARIAL, right=ADVERSARIAL, wrong=ADVERSARIAL, why=ADVERSARIAL, general=ADVERSARIAL)
@example(stem="<A>", right="r", wrong="w", why="y", general="g")  # markup alone: the name is just the id
@example(stem="$0$", right="r", wrong="w", why="y", general="g")  # math: the text is what the writer renders
def test_any_text_survives_a_round_trip_through_the_reader(
    stem: str, right: str, wrong: str, why: str, general: str
) -> None:
    bank = one_question_bank(stem, [(right, True, why), (wrong, False, general)], general)
    [question] = parse(export(bank))
    view = resolve(bank, "en")
    q = bank.questions[0]
    with rendering(Profile(math="tex", drop_images=True)):  # as the GIFT writer renders (formats/gift.py)
        _check_round_trip(question, view, q)


def _check_round_trip(question: Any, view: Any, q: Question) -> None:
    assert question.name == "q" or question.name.startswith("q: ")
    assert question.text_format == "html"
    assert _unwrapped(question.text) == render_block(view.stem(q).text)
    assert [_unwrapped(a.text) for a in question.answers] == [
        render_inline(view.choice_text(q, c).text) for c in q.choices
    ]
    assert [_unwrapped(a.feedback) for a in question.answers] == [
        render_block(view.choice_explanation(q, c).text) for c in q.choices
    ]
    assert [a.weight for a in question.answers] == [100.0, 0.0]
    assert _unwrapped(question.general_feedback) == render_block(view.explanation(q).text)  # the bank holds it NFC


@settings(max_examples=300, deadline=None)
@given(text=st.text(min_size=1, max_size=60))
def test_escaping_then_reading_gives_back_the_trimmed_text(text: str) -> None:
    [question] = parse(f"::n::[html]{escape(text)} {{=a ~b}}")
    assert question.text == text.replace("\r\n", "\n").replace("\r", "\n").strip(" \t\n\r\0\x0b")


def _unwrapped(field: str) -> str:
    """A field without the element that marks its language, if it has one."""
    match = re.fullmatch(r'<(div|span) lang="[^"]+" dir="(?:ltr|rtl)">(.*)</\1>', field, re.DOTALL)
    return match.group(2) if match else field


def _written(resolved: Resolved, render: Callable[[str], str]) -> str:
    """A text as the export writes it: rendered, and in a right-to-left language a Latin-only text isolated."""
    rendered = render(resolved.text)
    return latin_isolated(rendered) if locale_info(resolved.lang.replace("-", "_")).rtl else rendered


@settings(max_examples=40, deadline=None)
@given(banks())
def test_every_bank_in_every_locale_reads_back_question_by_question(bank: Bank) -> None:
    for locale in bank.locales:
        view = resolve(bank, locale)
        parsed = parse(export(bank, locale))
        assert [g.name.split(": ")[0] for g in parsed] == [q.id for q in bank.questions]
        for g, q in zip(parsed, bank.questions, strict=True):
            assert _unwrapped(g.text) == _written(view.stem(q), render_block)
            assert _unwrapped(g.general_feedback) == _written(view.explanation(q), render_block)
            assert [_unwrapped(a.text) for a in g.answers] == [
                _written(view.choice_text(q, c), render_inline) for c in q.choices
            ]
            assert [_unwrapped(a.feedback) for a in g.answers] == [
                _written(view.choice_explanation(q, c), render_block) for c in q.choices
            ]
            weights = [a.weight for a in g.answers]
            if q.kind == "multiple":
                assert not g.single
                assert sum(w for w in weights if w > 0) == pytest.approx(100, abs=1e-3)
                assert sum(w for w in weights if w < 0) == pytest.approx(
                    -100 if len(q.correct_choices) < len(q.choices) else 0, abs=1e-3
                )
            else:
                assert g.single
                assert weights == [100.0 if c.correct else 0.0 for c in q.choices]


# --- the command ---------------------------------------------------------------------------------------------------


def test_export_gift_writes_one_locale_to_a_file_named_after_the_bank_and_locale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_bank(sample_bank(), tmp_path / "bank")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["export", "--format", "gift", "bank", "--locale", "ur"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert len(parse((tmp_path / "sample-quiz.ur.gift.txt").read_text(encoding="utf-8"))) == 3


def test_export_gift_with_two_locales_is_a_usage_error(tmp_path: Path) -> None:
    save_bank(sample_bank(), tmp_path / "bank")
    result = CliRunner().invoke(
        main, ["export", "--format", "gift", str(tmp_path / "bank"), "--locale", "ur", "--locale", "vi"]
    )
    assert result.exit_code == 2
    assert "one language per file" in result.output


# --- the fast writer against the thorough one ---------------------------------------------------------------------


def _thorough_escape(text: str) -> str:
    """escape() as Moodle's exporter escapes, one character at a time."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip(" \t\n\r\0\x0b")
    return "".join(_TO_ESCAPE.get(ch, ch) for ch in text)


def _thorough_export(bank: Bank, locale: str) -> str:
    """The GIFT file built field by field through the renderer (the writer before its fast paths)."""
    view = resolve(bank, locale)

    def field(resolved: Any, *, block: bool) -> str:
        rendered = _written(resolved, render_block if block else render_inline)
        info = view.source_info if resolved.lang != view.info.lang else view.info
        tag = "div" if block else "span"
        return "[html]" + _thorough_escape(f'<{tag} lang="{info.lang}" dir="{info.direction}">{rendered}</{tag}>')

    parts = [f"// {bank.id} ({view.locale}), exported by moe-lms as Moodle GIFT\n\n$CATEGORY: {category(view)}\n"]
    with rendering(Profile(math="tex", drop_images=True)):
        for q in bank.questions:
            name = " ".join(plain_text(view.stem(q).text).split())
            name = name if len(name) <= 80 else name[:79].rstrip() + "…"
            lines = [
                f"// question: {q.id}",
                identity_comment(view, q),
                f"::{_thorough_escape(f'{q.id}: {name}' if name else q.id)}::{field(view.stem(q), block=True)}{{"
                + ("#" if q.numerical else ""),
            ]
            if q.numerical:  # (issue 30: a value per line, then any other number's message)
                for c in q.choices:
                    weight, value = ("100" if c.correct else "0"), number_text(q.value_of(c))
                    explained = field(view.choice_explanation(q, c), block=True)
                    lines.append(f"\t=%{weight}%{value}:{number_text(q.tolerance_of(c))}#{explained}")
                lines.append(f"\t~#{field(view.feedback('incorrect'), block=True)}")
                lines.append(f"\t####{field(view.explanation(q), block=True)}")
                lines.append("}")
                parts.append("\n" + "".join(line + "\n" for line in lines))
                continue
            if q.kind == "multiple":
                right = iter(split_weights(len(q.correct_choices), q.id))
                wrong_count = len(q.choices) - len(q.correct_choices)
                wrong = iter(split_weights(wrong_count, q.id) if wrong_count else [])
                marks = [f"~%{next(right)}%" if c.correct else f"~%-{next(wrong)}%" for c in q.choices]
            else:
                marks = ["=" if c.correct else "~" for c in q.choices]
            for mark, c in zip(marks, q.choices, strict=True):
                text = field(view.choice_text(q, c), block=False)
                lines.append(f"\t{mark}{text}#{field(view.choice_explanation(q, c), block=True)}")
            lines.append(f"\t####{field(view.explanation(q), block=True)}")
            lines.append("}")
            parts.append("\n" + "".join(line + "\n" for line in lines))
    return "".join(parts)


@settings(max_examples=500, deadline=None)
@given(text=st.text(max_size=60) | ADVERSARIAL)
def test_escaping_maps_character_by_character_as_moodle_escapes(text: str) -> None:
    assert escape(text) == _thorough_escape(text)


@settings(max_examples=60, deadline=None)
@given(banks(texts=mixed_texts))
def test_the_export_is_byte_for_byte_the_field_by_field_rendering_in_every_locale(bank: Bank) -> None:
    for locale in bank.locales:
        assert export(bank, locale) == _thorough_export(bank, locale)


def test_the_shipped_banks_export_as_the_field_by_field_rendering() -> None:
    from moe_lms import variants
    from moe_lms.loader import load_bank

    for bank_dir in sorted(Path(__file__).resolve().parents[1].glob("question_bank/*/")):
        # (a parameterised question's variants, as every writer gets them: issue 31)
        bank = variants.expand(load_bank(bank_dir), grouped_whole_bank=False)
        for locale in bank.locales:
            written = GIFT.dump(bank, ExportOptions((locale,), drop_images=True)).decode()  # (it shows images)
            assert written == _thorough_export(bank, locale), (bank_dir.name, locale)
