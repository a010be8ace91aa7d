"""The shipped bank's glossary and review records: every translation, the corrected seed strings included, uses the
glossary, and every entry says who reviewed it (ERRATA.md's own tests: test_errata.py)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
import yaml

from moe_lms.model import Bank
from moe_lms.po import PoEntry, read_po

from .conftest import SHIPPED_BANK_DIR

LOCALES = ("ur", "vi")
GLOSSARY = yaml.safe_load((SHIPPED_BANK_DIR / "glossary.yaml").read_text(encoding="utf-8"))["terms"]


def entries(locale: str) -> dict[str, PoEntry]:
    text = (SHIPPED_BANK_DIR / "locales" / f"{locale}.po").read_text(encoding="utf-8")
    return {e.context: e for e in read_po(text).entries if e.context is not None and not e.obsolete}


def notes(entry: PoEntry, kind: str) -> list[str]:
    """The text of the translator comments of one kind (`errata`, `errata-suggested`, `draft`, `reviewed`)."""
    out = []
    for raw in entry.comments:
        body = raw.removeprefix("#").strip()
        if body.startswith(f"{kind}:"):
            out.append(body.removeprefix(f"{kind}:").strip())
    return out


def mentions(source: str, form: str) -> bool:
    """The convention's match: case-insensitive, on word boundaries, an English plural (-s/-es) included."""
    return re.search(rf"(?<!\w){re.escape(form)}(?:s|es)?(?!\w)", source, re.IGNORECASE) is not None


def renderings(term: dict, locale: str, form: str) -> list[str]:  # type: ignore[type-arg]
    rule = term[locale]
    if rule == "keep":
        return [form]
    return [rule["use"], *rule.get("also", [])]


def glossary_misses(source: str, translation: str, locale: str) -> list[str]:
    """The forms of ``source`` whose term ``translation`` does not render. Longest form first, and a form's match is
    taken out of the source, so "gate weights" is one term and not also "weight" (as moe-lms's checker reads it)."""
    text = unicodedata.normalize("NFC", translation).casefold()
    forms = sorted(((form, term) for term in GLOSSARY for form in term["source"]), key=lambda ft: -len(ft[0]))
    misses = []
    for form, term in forms:
        if mentions(source, form):
            source = re.sub(rf"(?<!\w){re.escape(form)}(?:s|es)?(?!\w)", " ", source, flags=re.IGNORECASE)
            if not any(unicodedata.normalize("NFC", r).casefold() in text for r in renderings(term, locale, form)):
                misses.append(form)
    return misses


def test_the_glossary_has_every_required_term_with_a_rendering_per_locale() -> None:
    forms = {form for term in GLOSSARY for form in term["source"]}
    required = {
        "expert", "expert parallelism", "router", "gate", "token", "all-to-all", "dispatch", "combine",
        "capacity factor", "load balancing", "GPU", "gradient", "weight", "attention head", "top-k",
        "straggler", "latency", "throughput", "MoE", "feed-forward", "parameter",
    }  # fmt: skip
    assert required <= forms
    for term in GLOSSARY:
        for locale in LOCALES:
            rule = term[locale]
            assert rule == "keep" or (isinstance(rule, dict) and rule["use"]), (term["source"], locale)


def test_every_technical_term_of_the_bank_is_in_the_glossary(shipped_bank: Bank) -> None:
    # A lecturer's list of the bank's jargon; each must be covered by some glossary form.
    jargon = ["MoE", "expert", "router", "token", "all-to-all", "GPU", "FLOPs", "top-k", "gradient", "padding",
              "capacity factor", "straggler", "latency", "hidden state", "feed-forward", "all-reduce"]  # fmt: skip
    forms = {form.casefold() for term in GLOSSARY for form in term["source"]}
    assert {j.casefold() for j in jargon} <= forms


@pytest.mark.parametrize("locale", LOCALES)
def test_every_translation_uses_the_glossary(locale: str) -> None:
    misses = {}
    for path, e in entries(locale).items():
        if not e.msgstr:
            continue
        missed = glossary_misses(e.msgid, e.msgstr, locale)
        if missed:
            misses[path] = missed
    assert misses == {}


# The questions the seed documents left in English: all their text, like every explanation and the feedback
# messages, was drafted by the project and then reviewed; everything else is the owner's seed text.
DRAFTED_QUESTIONS = ("capacity-padding", "top2-dispatch-combine", "straggler-expert")
REVIEW_NOTE = "independent back-translation pass 2026-12-01; "
# The quiz's strings (issue 23) came after REVIEW.md: their second pass keeps its back-translation in the note itself.
QUIZ_REVIEW_NOTE = "independent second review pass 2026-12-01 (issue 23), by a reviewer who did not write it; "
# The quiz sections added in issue 33 (lecturer review Q-1) had their first pass on 2026-12-05, in the same form.
QUIZ_REVIEW_NOTES = (
    QUIZ_REVIEW_NOTE,
    "independent back-translation pass 2026-12-05 (issue 33), by a reviewer who did not write it; ",
)


def is_seed(path: str) -> bool:
    if path in ("title", "intro"):
        return True
    question, _, rest = path.partition("/")
    return question not in DRAFTED_QUESTIONS and (rest == "stem" or rest.endswith("/text"))


def reviewed(locale: str) -> dict[str, PoEntry]:
    """The entries the back-translation pass of REVIEW.md reviewed (the former drafts of issue 10)."""
    return {p: e for p, e in entries(locale).items() if any(n.startswith(REVIEW_NOTE) for n in notes(e, "reviewed"))}


@pytest.mark.parametrize("locale", LOCALES)
def test_every_entry_is_reviewed_or_a_draft_that_says_who_wrote_it(locale: str) -> None:
    for path, e in entries(locale).items():
        if e.fuzzy:  # awaiting its independent second pass: the writer says so, and nothing claims a review yet
            [draft] = notes(e, "draft")
            assert "awaiting an independent review" in draft, (locale, path)
            continue
        assert notes(e, "draft") == [], (locale, path)
        history = notes(e, "reviewed")
        if is_seed(path):  # the owner's text: no review note, unless ERRATA.md corrects it
            assert history == [] or all("review" in n for n in history), (locale, path)
        elif path.startswith("quizzes/"):
            assert history[0].startswith(tuple(n + "back-translation " for n in QUIZ_REVIEW_NOTES)), (locale, path)
            assert "matches the source" in history[0] or "fixed:" in history[0], (locale, path)
        else:
            assert history[0].startswith(REVIEW_NOTE) and len(history[0]) > len(REVIEW_NOTE), (locale, path)
        # A later change says what changed and who reviewed it (the native review, or a pass after a draft).
        assert all("review" in n and ("fixed:" in n or "matches" in n) for n in history[1:]), (locale, path)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_po_header_says_the_file_was_reviewed_how_when_and_how_many_entries(locale: str) -> None:
    text = (SHIPPED_BANK_DIR / "locales" / f"{locale}.po").read_text(encoding="utf-8")
    header = " ".join(line.removeprefix("#").strip() for line in text.split('msgid ""')[0].splitlines())
    assert f"Reviewed 2026-12-01: all {len(reviewed(locale))} entries that were drafts" in header
    assert "back to English without reading the source" in header and "REVIEW.md" in header


@pytest.mark.parametrize("locale", LOCALES)
def test_review_md_holds_a_back_translation_and_verdict_for_every_reviewed_entry(locale: str) -> None:
    review = (SHIPPED_BANK_DIR / "REVIEW.md").read_text(encoding="utf-8")
    section = review.split(f"## {'Urdu' if locale == 'ur' else 'Vietnamese'} (`locales/{locale}.po`)")[1]
    section = section.split("\n## ")[0]
    for path in reviewed(locale):
        entry = section.split(f"### `{path}`\n")[1].split("\n### ")[0]
        assert "- Back-translation (of the draft): " in entry and "- Verdict: " in entry, (locale, path)
        if notes(entries(locale)[path], "reviewed")[0].removeprefix(REVIEW_NOTE).startswith("fixed:"):
            assert "- Changed: " in entry, (locale, path)


@pytest.mark.parametrize("locale", LOCALES)
def test_known_ambiguities_are_gone_from_every_translation(locale: str) -> None:
    ambiguous = {"vi": ["lớp học được", "mã thông báo", "trọng lượng", "độ dốc", "một lớp bình thường"],
                 "ur": ["ماہر حساب", "توجہ کے سربراہ", "تدریجی", "ہم آہنگی", "سبھی سے تمام",
                        "ماہرین کا حساب", "ماہر کا حساب", "ترسیلات", "گریڈینٹ کا دھماکہ"]}[locale]  # fmt: skip
    for path, e in entries(locale).items():
        assert [a for a in ambiguous if a in e.msgstr] == [], (locale, path)


# The native review of 2026-12-01 (issue 20): words with a second everyday meaning, calques and second renderings of
# one concept, ruled out in both banks (each is in the glossary's note of its term).
RULED_OUT = {
    "ur": ["حساب", "نفاذ", "توجہ", "ایم او ای", "مواصلت", "فالتو پن", "گریڈینٹ کا دھماکہ", "لوڈ عدم توازن", "امکان",
           "ماہر کمپیوٹیشن", "وزن سے وزن"],
    "vi": ["chú ý", "điểm chậm", "Sự song song của", "Tính song song của", "thành tính toán dense"],
}  # fmt: skip


@pytest.mark.parametrize("bank", ["moe-expert-parallelism", "moe-serving-arithmetic"])
@pytest.mark.parametrize("locale", LOCALES)
def test_words_the_native_review_ruled_out_are_in_no_translation_of_either_bank(bank: str, locale: str) -> None:
    text = (SHIPPED_BANK_DIR.parent / bank / "locales" / f"{locale}.po").read_text(encoding="utf-8")
    for e in read_po(text).entries:
        if not e.obsolete:
            assert [w for w in RULED_OUT[locale] if w in e.msgstr] == [], (bank, locale, e.context)


def test_numbers_survive_translation() -> None:
    for locale in LOCALES:
        for path, e in reviewed(locale).items():
            assert e.msgstr, (locale, path)
            assert sorted(re.findall(r"\d+", e.msgid)) == sorted(re.findall(r"\d+", e.msgstr)), (locale, path)


def test_glossary_sits_beside_the_bank() -> None:
    assert Path(SHIPPED_BANK_DIR / "glossary.yaml").is_file()
