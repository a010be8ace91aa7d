"""The shipped bank carries the seed documents' texts exactly, except where ERRATA.md corrects one, with a key and
explanations for everything."""

from __future__ import annotations

import re
import unicodedata

from click.testing import CliRunner

from moe_lms.cli import main
from moe_lms.locales import Status, coverage, resolve
from moe_lms.model import Bank, strings

from .test_errata import errata

ENGLISH_IN_SEEDS = (5, 7, 8)  # the seeds left these questions in English
ANSWER_KEY = {
    "ep-distributes": "c",
    "ep-communication": "a",
    "moe-sparse-compute": "d",
    "routing-load-imbalance": "b",
    "capacity-padding": "a",
    "hide-all-to-all": "d",
    "top2-dispatch-combine": "b",
    "straggler-expert": "c",
}


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def test_eight_questions_of_four_choices_in_seed_order(shipped_bank: Bank, seeds: dict) -> None:  # type: ignore[type-arg]
    assert [q.id for q in shipped_bank.questions] == list(ANSWER_KEY)
    assert all([c.id for c in q.choices] == ["a", "b", "c", "d"] for q in shipped_bank.questions)
    assert all(len(qs) == 8 and all(len(c) == 4 for _, c in qs) for _, _, qs in seeds.values())


def test_answer_key(shipped_bank: Bank) -> None:
    assert {q.id: [c.id for c in q.correct_choices] for q in shipped_bank.questions} == {
        qid: [cid] for qid, cid in ANSWER_KEY.items()
    }


def test_questions_left_in_english_by_the_seeds_are_verbatim(shipped_bank: Bank, seeds: dict) -> None:  # type: ignore[type-arg]
    for number in ENGLISH_IN_SEEDS:
        q = shipped_bank.questions[number - 1]
        for _, _, seed_questions in seeds.values():
            stem, choices = seed_questions[number - 1]
            assert q.stem == nfc(stem)
            assert [c.text for c in q.choices] == [nfc(c) for c in choices]


def awaiting_review(locale: str) -> set[str]:
    """The strings written since the last review that wait for an independent second pass: each is marked fuzzy
    with a `# draft:` comment, and learners read the English until a reviewer who did not write it clears the mark."""
    from moe_lms.po import read_po

    from .conftest import SHIPPED_BANK_DIR

    text = (SHIPPED_BANK_DIR / "locales" / f"{locale}.po").read_text(encoding="utf-8")
    return {
        e.context
        for e in read_po(text).entries
        if e.fuzzy
        and e.context
        and any(c.startswith("# draft:") and "awaiting an independent review" in c for c in e.comments)
    }


def seed_strings(shipped_bank: Bank, seed: tuple[str, str, list[tuple[str, list[str]]]]) -> dict[str, str]:
    """The paths of one seed document's strings (title, intro, stems and choices of questions 1-4 and 6), each with
    the seed text as written."""
    title, intro, seed_questions = seed
    found = {"title": title, "intro": intro}
    for number, (stem, choices) in enumerate(seed_questions, start=1):
        if number in ENGLISH_IN_SEEDS:
            continue
        q = shipped_bank.questions[number - 1]
        found[f"{q.id}/stem"] = stem
        for c, text in zip(q.choices, choices, strict=True):
            found[f"{q.id}/choices/{c.id}/text"] = text
    return found


def learner_reads(shipped_bank: Bank, seeds: dict, locale: str) -> dict[str, str]:  # type: ignore[type-arg]
    """What the PO file holds for each seed string: the seed text, or the shipped text where ERRATA.md corrects it
    (the learner reads it once it is reviewed)."""
    rows = errata()
    found = {}
    for path, seed in seed_strings(shipped_bank, seeds[locale]).items():
        row = rows.get((locale, path))
        if row is not None:
            assert row.seed == seed, (locale, path)
        found[path] = seed if row is None else row.shipped
    return found


def test_seed_translations_are_reviewed_and_verbatim_unless_errata_md_corrects_them(
    shipped_bank: Bank,
    seeds: dict,  # type: ignore[type-arg]
) -> None:
    for locale in seeds:
        catalog = shipped_bank.translations[locale]
        expected = learner_reads(shipped_bank, seeds, locale)
        for path, text in expected.items():
            assert catalog[path].text == nfc(text), (locale, path)
            assert not catalog[path].draft or path in awaiting_review(locale), (locale, path)
        view = resolve(shipped_bank, locale)
        assert view.title.text == nfc(expected["title"])


def test_urdu_choices_end_as_the_english_ones_do_without_a_full_stop(shipped_bank: Bank) -> None:
    # The native review (2026-12-01): nine seed choices ended in "۔" beside choices of the same question without one.
    for path, t in shipped_bank.translations["ur"].items():
        if path.endswith("/text") and not t.source.endswith("."):
            assert not t.text.endswith("\u06d4"), path
    assert shipped_bank.translations["ur"]["feedback/correct"].text.endswith("\u06d4")  # sentences keep theirs


def test_every_choice_has_an_explanation_of_one_to_three_sentences(shipped_bank: Bank) -> None:
    for q in shipped_bank.questions:
        assert len(q.explanation) > 80, q.id
        for c in q.choices:
            sentences = len(re.findall(r"[.!?](?:\s|$)", c.explanation))
            assert 1 <= sentences <= 3, (q.id, c.id, c.explanation)


def test_every_ur_and_vi_string_is_reviewed_or_awaits_its_second_pass(shipped_bank: Bank) -> None:
    # The seed strings (title, intro, stem + 4 choices of questions 1-4 and 6) and, since the independent
    # back-translation pass (REVIEW.md), every other string too: nothing missing or stale, and a draft only where a
    # later change waits for its independent review.
    total = sum(1 for _ in strings(shipped_bank))
    for locale in ("ur", "vi"):
        cov = coverage(shipped_bank, locale)
        assert (cov[Status.MISSING], cov[Status.STALE], cov[Status.DRAFT]) == (0, 0, len(awaiting_review(locale)))
        assert cov[Status.REVIEWED] == total - len(awaiting_review(locale))


def test_all_text_is_nfc(shipped_bank: Bank) -> None:
    for locale, catalog in shipped_bank.translations.items():
        for path, t in catalog.items():
            assert unicodedata.is_normalized("NFC", t.text), (locale, path)


def test_check_on_the_shipped_bank_exits_0_and_prints_coverage() -> None:
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 0, result.output
    assert "ur" in result.output and "Urdu" in result.output and "rtl" in result.output
    assert "vi" in result.output and "Vietnamese" in result.output
    assert result.output.rstrip().endswith("ok")


def test_seed_msgstrs_are_byte_identical_in_the_po_files(shipped_bank: Bank, seeds: dict) -> None:  # type: ignore[type-arg]
    """Not only equal after NFC on loading: the PO files carry the user's seed text exactly as written, wherever
    ERRATA.md does not correct it."""
    from moe_lms.po import read_po

    from .conftest import SHIPPED_BANK_DIR

    for locale in seeds:
        text = (SHIPPED_BANK_DIR / "locales" / f"{locale}.po").read_text(encoding="utf-8")
        msgstrs = {e.context: e.msgstr for e in read_po(text).entries if not e.fuzzy}
        for path, expected in learner_reads(shipped_bank, seeds, locale).items():
            if path not in awaiting_review(locale):
                assert msgstrs[path] == expected, (locale, path)
