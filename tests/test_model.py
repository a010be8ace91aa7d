"""The model's rules, each with the error a user sees."""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from pydantic import ValidationError

from moe_lms.model import XML_ILLEGAL, Bank, Kind, Question, clean_text, strings


def choice(cid: str, correct: bool = False, **extra: Any) -> dict[str, Any]:
    return {"id": cid, "text": f"Choice {cid}", "correct": correct, "explanation": f"Why {cid}.", **extra}


def question(qid: str = "q1", **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": qid,
        "stem": "What?",
        "explanation": "Because.",
        "choices": [choice("a", True), choice("b")],
    }
    data.update(extra)
    return data


def errors_of(model: type[Bank] | type[Question], data: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as info:
        model.model_validate(data)
    return str(info.value)


def test_a_minimal_single_answer_question_is_valid() -> None:
    q = Question.model_validate(question())
    assert q.kind is Kind.SINGLE
    assert [c.id for c in q.correct_choices] == ["a"]


def test_question_ids_are_unique_in_a_bank() -> None:
    text = errors_of(Bank, {"id": "b", "title": "T", "questions": [question("q1"), question("q1")]})
    assert "question id 'q1' is used more than once" in text


def test_choice_ids_are_unique_in_a_question() -> None:
    text = errors_of(Question, question(choices=[choice("a", True), choice("a")]))
    assert "choice id 'a' is used more than once" in text


def test_an_answer_key_is_checked_however_a_question_comes_into_a_bank() -> None:
    """A question validated inside its bank is not checked twice, but one made without validation (model_construct,
    model_copy) is checked when its bank is validated."""
    two_correct = question(choices=[choice("a", True), choice("b", True)])
    assert "exactly one correct choice, found 2 (a, b)" in errors_of(Question, two_correct)
    text = errors_of(Bank, {"id": "b", "title": "T", "questions": [question("q1"), {**two_correct, "id": "q2"}]})
    assert "questions.1\n  a single-answer question needs exactly one correct choice, found 2 (a, b)" in text
    good = Question.model_validate(question())
    assert Bank.model_validate({"id": "b", "title": "T", "questions": [good]}).questions == (good,)
    two = (*good.choices, good.choices[0].model_copy(update={"id": "c"}))
    made = Question.model_construct(**{**dict(good), "choices": two})  # (no validation, as model_construct says)
    copied = good.model_copy(update={"choices": two})
    for unchecked in (made, copied):
        text = errors_of(Bank, {"id": "b", "title": "T", "questions": [unchecked]})
        assert "questions.0\n  a single-answer question needs exactly one correct choice, found 2 (a, c)" in text


def test_a_question_needs_two_choices() -> None:
    assert "has 1 choice(s); a question needs at least 2" in errors_of(Question, question(choices=[choice("a", True)]))


def test_single_answer_needs_exactly_one_correct_choice() -> None:
    two = question(choices=[choice("a", True), choice("b", True)])
    assert "needs exactly one correct choice, found 2 (a, b)" in errors_of(Question, two)
    none = question(choices=[choice("a"), choice("b")])
    assert "needs exactly one correct choice, found 0" in errors_of(Question, none)


def test_multiple_answer_needs_at_least_one_correct_choice() -> None:
    data = question(kind="multiple", choices=[choice("a"), choice("b")])
    assert "multiple-answer question needs at least one correct choice" in errors_of(Question, data)
    ok = Question.model_validate(question(kind="multiple", choices=[choice("a", True), choice("b", True), choice("c")]))
    assert len(ok.correct_choices) == 2


def test_true_false_has_two_choices_one_correct() -> None:
    data = question(kind="true-false", choices=[choice("a", True), choice("b"), choice("c")])
    assert "true-false question needs exactly 2 choices" in errors_of(Question, data)
    assert Question.model_validate(question(kind="true-false")).kind is Kind.TRUE_FALSE


@pytest.mark.parametrize("field", ["stem", "explanation"])
def test_question_text_may_not_be_empty(field: str) -> None:
    assert "text is empty" in errors_of(Question, question(**{field: "  \n"}))


def test_every_choice_needs_an_explanation() -> None:
    no_explanation = {"id": "b", "text": "B"}
    assert "choices.1.explanation\n  Field required" in errors_of(
        Question, question(choices=[choice("a", True), no_explanation])
    )


@pytest.mark.parametrize("bad", ["Q1", "1q", "q_1", "q 1", "", "q" * 49])
def test_ids_are_short_safe_identifiers(bad: str) -> None:
    text = errors_of(Question, question(bad))
    assert "id\n" in text and ("pattern" in text or "at most 48" in text)


def test_unknown_keys_are_errors() -> None:
    assert "explaination\n  Extra inputs are not permitted" in errors_of(Question, question(explaination="x"))


def test_correct_must_be_a_real_boolean() -> None:
    assert "Input should be a valid boolean" in errors_of(Question, question(choices=[choice("a", "yes"), choice("b")]))


def test_text_xml_cannot_carry_is_rejected() -> None:
    text = errors_of(Question, question(stem="bell \x07 here"))
    assert "contains U+0007 at character 6, which XML 1.0 cannot carry" in text


def test_c1_control_characters_are_rejected_with_what_they_usually_are() -> None:
    """Issue 11, item 24: U+0080-U+009F reached the HTML page raw; HTML forbids them, and "&#x92;" would read as ’."""
    for bad in ("\x7f", "\x85", "\x92", "\x9f"):
        text = errors_of(Question, question(stem=f"it{bad}s"))
        assert f"contains U+{ord(bad):04X} at character 3, a control character that HTML pages cannot show" in text
    assert Question.model_validate(question(stem="it\u2019s \u00a0 fine")).stem == "it\u2019s \u00a0 fine"


def test_text_is_nfc_normalised() -> None:
    decomposed = "Tie\u0302\u0301ng"  # e + circumflex + acute, decomposed
    q = Question.model_validate(question(stem=decomposed))
    assert q.stem == "Tiếng"


def test_source_locale_is_not_a_target() -> None:
    data = {"id": "b", "title": "T", "source_locale": "en", "target_locales": ["en"], "questions": [question()]}
    assert "source locale 'en' is also listed in target_locales" in errors_of(Bank, data)


def test_a_bank_needs_a_question() -> None:
    assert "a bank needs at least one question" in errors_of(Bank, {"id": "b", "title": "T", "questions": []})


def test_models_are_immutable() -> None:
    q = Question.model_validate(question())
    with pytest.raises(ValidationError):
        q.stem = "changed"  # type: ignore[misc]


def test_every_learner_facing_string_has_a_stable_path() -> None:
    bank = Bank.model_validate({"id": "b", "title": "T", "intro": "I", "questions": [question()]})
    assert [p for p, _ in strings(bank)] == [
        "title",
        "intro",
        "feedback/correct",
        "feedback/partially_correct",
        "feedback/incorrect",
        "q1/stem",
        "q1/explanation",
        "q1/choices/a/text",
        "q1/choices/a/explanation",
        "q1/choices/b/text",
        "q1/choices/b/explanation",
    ]


def _clean_text_by_definition(value: str) -> str:
    """clean_text without its shortcut for printable ASCII: the rule itself."""
    bad = XML_ILLEGAL.search(value)
    if bad:
        raise ValueError(f"U+{ord(bad.group()):04X} at character {bad.start() + 1}")
    if not value or value.isspace():
        raise ValueError("text is empty")
    return unicodedata.normalize("NFC", value)


@given(st.text() | st.text(st.characters(max_codepoint=0x7F)) | st.sampled_from(["", " ", "   ", "\t", "\x7f a"]))
@example("plain text")
@example("e\u0301")
@example(" \n")
@example("a\x1fb")
def test_clean_text_accepts_and_normalises_exactly_what_its_rule_says(value: str) -> None:
    try:
        expected = _clean_text_by_definition(value)
    except ValueError as refused:
        with pytest.raises(ValueError) as raised:
            clean_text(value)
        assert str(refused) in str(raised.value)
        return
    assert clean_text(value) == expected
