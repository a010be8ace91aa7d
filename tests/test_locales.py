"""Locale resolution: reviewed text, drafts only on request, visible fallbacks, coverage counts."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from moe_lms.locales import Origin, Status, check_locale, coverage, from_language_tag, locale_info, resolve
from moe_lms.model import Bank, Translation


def bank_with(translations: dict[str, Translation]) -> Bank:
    data: dict[str, Any] = {
        "id": "b",
        "title": "Title",
        "target_locales": ["ur", "vi"],
        "questions": [
            {
                "id": "q1",
                "stem": "Stem",
                "explanation": "Why",
                "choices": [
                    {"id": "a", "text": "A", "correct": True, "explanation": "Right"},
                    {"id": "b", "text": "B", "explanation": "Wrong"},
                ],
            }
        ],
    }
    return Bank.model_validate(data).model_copy(update={"translations": {"ur": translations}})


BANK = bank_with(
    {
        "title": Translation("عنوان", "Title"),
        "q1/stem": Translation("سوال", "Stem", draft=True),
        "q1/explanation": Translation("پرانی وجہ", "Old why"),  # stale: the source changed since
    }
)


def test_reviewed_translations_are_used() -> None:
    view = resolve(BANK, "ur")
    assert view.title.text == "عنوان"
    assert view.title.origin is Origin.REVIEWED
    assert view.title.lang == "ur"


def test_drafts_are_used_only_when_asked() -> None:
    q = BANK.questions[0]
    assert resolve(BANK, "ur").stem(q).text == "Stem"
    assert resolve(BANK, "ur").stem(q).origin is Origin.FALLBACK
    assert resolve(BANK, "ur", include_drafts=True).stem(q).text == "سوال"
    assert resolve(BANK, "ur", include_drafts=True).stem(q).origin is Origin.DRAFT


def test_fallbacks_carry_the_source_language_so_they_can_be_marked() -> None:
    fallback = resolve(BANK, "ur").choice_text(BANK.questions[0], BANK.questions[0].choices[0])
    assert (fallback.text, fallback.origin, fallback.lang, fallback.fell_back) == ("A", Origin.FALLBACK, "en", True)


def test_stale_translations_fall_back_unless_drafts_are_included() -> None:
    q = BANK.questions[0]
    assert resolve(BANK, "ur").explanation(q).text == "Why"
    assert resolve(BANK, "ur", include_drafts=True).explanation(q).text == "پرانی وجہ"


def test_every_fallback_is_counted() -> None:
    view = resolve(BANK, "ur")
    assert len(view.fallbacks) == 9  # 10 strings, one reviewed
    assert view.summary() == (
        "ur: 1/10 strings translated, 9 fell back to en (drafts not included); "
        "5.2% of learner-visible characters in ur"  # 5 of 95: only the title "عنوان" is served in Urdu
    )
    assert len(resolve(BANK, "ur", include_drafts=True).fallbacks) == 7


def test_source_locale_never_falls_back() -> None:
    view = resolve(BANK, "en")
    assert view.fallbacks == []
    assert view.title.origin is Origin.SOURCE


def test_coverage_counts_each_state() -> None:
    cov = coverage(BANK, "ur")
    assert (cov[Status.REVIEWED], cov[Status.DRAFT], cov[Status.STALE], cov[Status.MISSING], cov.total) == (
        1,
        1,
        1,
        7,
        10,
    )
    assert not cov.complete
    assert coverage(BANK, "vi")[Status.MISSING] == 10


def test_unknown_locale_of_a_bank_is_refused() -> None:
    with pytest.raises(ValueError, match="has no locale 'fr'"):
        resolve(BANK, "fr")


def test_direction_and_names_come_from_babel() -> None:
    ur, vi = locale_info("ur"), locale_info("vi")
    assert (ur.rtl, ur.direction, ur.english_name, ur.name) == (True, "rtl", "Urdu", "اردو")
    assert (vi.rtl, vi.direction, vi.english_name, vi.name) == (False, "ltr", "Vietnamese", "Tiếng Việt")
    assert locale_info("pt_BR").lang == "pt-BR"


@settings(max_examples=200, deadline=None)
@given(
    st.from_regex(r"\A[a-z]{2,3}(_[A-Za-z0-9]{2,8}){0,2}\Z")
    | st.sampled_from(["en", "ur", "vi", "pt_BR", "sr_Latn", "zh_Hant_TW", "xq"])
)
def test_a_bank_s_locales_are_checked_as_locale_info_would_take_them(tag: str) -> None:
    """Reading a bank only checks that Babel knows its locales (loading a locale's data is for what shows its name
    or direction): it refuses exactly the tags locale_info refuses."""
    try:
        locale_info(tag)
    except ValueError as exc:
        with pytest.raises(ValueError, match="unknown locale") as refused:
            check_locale(tag)
        assert str(refused.value) == str(exc)
    else:
        check_locale(tag)


@pytest.mark.parametrize(
    ("language", "locale"),
    [("pt-BR", "pt_BR"), ("UR", "ur"), (" vi ", "vi"), ("en_US", "en_US"), ("zh-Hant-TW", "zh_Hant_TW")],
)
def test_a_language_tag_in_a_file_is_read_as_the_bank_locale_tag(language: str, locale: str) -> None:
    assert from_language_tag(language) == locale


@pytest.mark.parametrize("language", ["", "x", "english", "qq", "en--US", "1en"])
def test_what_is_not_a_language_tag_babel_knows_is_none(language: str) -> None:
    assert from_language_tag(language) is None
