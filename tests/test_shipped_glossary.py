"""The shipped bank's glossary, errata and draft records: each translation uses the glossary or says why not."""

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
    text = unicodedata.normalize("NFC", translation).casefold()
    misses = []
    for term in GLOSSARY:
        for form in term["source"]:
            if mentions(source, form) and not any(
                unicodedata.normalize("NFC", r).casefold() in text for r in renderings(term, locale, form)
            ):
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
def test_every_translation_uses_the_glossary_or_carries_an_erratum(locale: str) -> None:
    misses = {}
    for path, e in entries(locale).items():
        if not e.msgstr or notes(e, "errata"):
            continue
        missed = glossary_misses(e.msgid, e.msgstr, locale)
        if missed:
            misses[path] = missed
    assert misses == {}


@pytest.mark.parametrize("locale", LOCALES)
def test_each_errata_suggestion_itself_uses_the_glossary(locale: str) -> None:
    for path, e in entries(locale).items():
        for suggested in notes(e, "errata-suggested"):
            assert glossary_misses(e.msgid, suggested, locale) == [], (locale, path)


@pytest.mark.parametrize("locale", LOCALES)
def test_errata_only_on_reviewed_seed_strings_with_one_suggestion_each(locale: str) -> None:
    for path, e in entries(locale).items():
        if notes(e, "errata"):
            assert not e.fuzzy, (locale, path)
            assert len(notes(e, "errata-suggested")) == 1, (locale, path)


def test_errata_md_lists_exactly_the_po_errata() -> None:
    table = (SHIPPED_BANK_DIR / "ERRATA.md").read_text(encoding="utf-8")
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] in LOCALES:
            rows[(cells[0], cells[1].strip("`"))] = cells
    expected = {(loc, path) for loc in LOCALES for path, e in entries(loc).items() if notes(e, "errata")}
    assert set(rows) == expected
    for (locale, path), (_, _, seed, _, suggested) in rows.items():
        e = entries(locale)[path]
        assert seed == e.msgstr and suggested == notes(e, "errata-suggested")[0], (locale, path)


@pytest.mark.parametrize("locale", LOCALES)
def test_every_draft_says_who_wrote_it_and_nothing_is_marked_reviewed(locale: str) -> None:
    for path, e in entries(locale).items():
        if e.fuzzy:
            assert len(notes(e, "draft")) == 1, (locale, path)
        assert notes(e, "reviewed") == [], (locale, path)


@pytest.mark.parametrize("locale", LOCALES)
def test_known_ambiguities_are_gone_from_the_drafts(locale: str) -> None:
    ambiguous = {"vi": ["lớp học được", "mã thông báo", "trọng lượng", "độ dốc"],
                 "ur": ["ماہر حساب", "توجہ کے سربراہ", "تدریجی", "ہم آہنگی", "سبھی سے تمام"]}[locale]  # fmt: skip
    for path, e in entries(locale).items():
        if e.fuzzy:
            assert [a for a in ambiguous if a in e.msgstr] == [], (locale, path)


def test_numbers_survive_translation() -> None:
    for locale in LOCALES:
        for path, e in entries(locale).items():
            if e.fuzzy and e.msgstr:
                assert sorted(re.findall(r"\d+", e.msgid)) == sorted(re.findall(r"\d+", e.msgstr)), (locale, path)


def test_glossary_sits_beside_the_bank() -> None:
    assert Path(SHIPPED_BANK_DIR / "glossary.yaml").is_file()
