"""Translation quality checks: what ``moe-lms check`` says about each translation beyond its syntax.

Four checks run on every translation a PO file holds (reviewed, draft or stale; a stale one against the source
it was made from):

- **glossary**: the source contains a glossary term, the translation none of the locale's accepted renderings;
- **parity**: numbers, code spans, math, link and image URLs, inline HTML tags and emphasis differ;
- **untranslated**: the translation reads the same as the source, apart from code, numbers and kept terms;
- **script**: most of the translation's letters are in another script than the locale's (CLDR's likely script).

Under ``--strict`` a fifth, **review**, names every learner-visible string that is missing, stale or a draft.

Findings are values (:class:`Finding`); :func:`check_translations` turns them into problems naming the PO file,
the entry's line and the string's path, as warnings (errors under ``--strict``). Every translation is held to the
glossary alike, the owner's seed strings too: a seed string with an error ships corrected, its seed text on record in
the bank's ERRATA.md.

Why not translate-toolkit's pofilter checks (``translate.filters.checks.StandardChecker``), evaluated for this:
they read plain text, not Markdown, so they cannot tell a link's text from its URL, count the digits inside a
URL or code span as numbers, and do not check emphasis or code spans; ``numbers`` flags a correct Urdu number
written in Urdu digits (۸ for 8) and knows no locale's decimal comma (vi writes 1,5 for 1.5); and its per-character
number scan costs about 10 µs a string, 2 s for the 200,000 translations of a 10,000-question bank, which
``check`` as a whole must beat. So the span extractor below is our own: one function, :func:`analyse`, driven by
a list of rules, where a new kind of span is one more rule.

Each check runs string by string, once for every locale (the source analysed once); the one-pass version of the
checks that ran beside them, over blocks of strings joined, is gone (issue 19: ``check`` has no speed floor;
docs/design/speed.md has its figures).

This module must not know any output format or the CLI; it reads files only to name a finding's PO line.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import NamedTuple

from babel import Locale, UnknownLocaleError
from babel.core import get_global, parse_locale
from babel.numbers import get_decimal_symbol, get_group_symbol

from . import po
from .glossary import Glossary, Term, fold
from .loader import (
    LOCALES_DIR,
)
from .locales import Status, translation_status
from .model import Bank, Translation, strings
from .problems import Problem, Severity
from .translations import DRAFT, PRESENT, STALE, PackedCatalog


class Check(StrEnum):
    GLOSSARY = "glossary"
    PARITY = "parity"
    UNTRANSLATED = "untranslated"
    SCRIPT = "script"
    REVIEW = "review"


@dataclass(frozen=True)
class Finding:
    locale: str
    path: str  # the string's path, the PO entry's msgctxt
    check: Check
    message: str

    def __str__(self) -> str:
        return f"{self.check}: {self.message}"


# --- spans: what must survive translation unchanged ----------------------------------------------------------


class SpanKind(StrEnum):
    CODE = "code span"
    MATH = "math"
    IMAGE = "image"  # a bank image, by file name: a translation may show its own localised copy (media/ur/x.svg)
    LINK = "link"  # a link's or a remote image's URL, an autolink, a bare URL
    HTML = "HTML tag"
    STRONG = "strong emphasis"
    EMPHASIS = "emphasis"
    STRIKE = "strikethrough"
    NUMBER = "number"


class Span(NamedTuple):
    kind: SpanKind
    key: str  # what a translation must have the same of
    text: str  # as written


class Analysis(NamedTuple):
    spans: tuple[Span, ...]
    prose: str  # what a reader reads as words: code, math, URLs and tags taken out, link text kept


@dataclass(frozen=True)
class Rule:
    kind: SpanKind
    pattern: re.Pattern[str]
    key: Callable[[re.Match[str]], str | None]  # None: take the match out of the text, but it is no span
    # What of the match the later rules and the prose see (None: all of it, as it stands).
    keep: Callable[[re.Match[str]], str] | None
    trigger: str = ""  # the text must contain one of these characters for the rule to be tried ("" = always)
    triggers: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "triggers", frozenset(self.trigger))


def _blank(_: re.Match[str]) -> str:
    return " "


def _group(name: str) -> Callable[[re.Match[str]], str]:
    return lambda m: m.group(name) or ""


def _either(*names: str) -> Callable[[re.Match[str]], str]:
    return lambda m: next((m.group(n) for n in names if m.group(n) is not None), "")


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def _tag_key(m: re.Match[str]) -> str | None:
    name = m.group("name").lower()
    if name in _BIDI_TAGS:
        return None
    urls = " ".join(f'{a}="{v}"' for a, v in _URL_ATTRIBUTE.findall(m.group("attrs") or ""))
    return ("/" if m.group("close") else "") + name + (f" {urls}" if urls else "")


# A translator may add these to order mixed-direction text (an English term inside Urdu); they are not content.
_BIDI_TAGS = frozenset({"bdi", "bdo"})
_URL_ATTRIBUTE = re.compile(r"""\b(href|src)\s*=\s*["']?([^"'\s>]*)""", re.IGNORECASE)
_ESCAPED = re.compile(r"\\[!-/:-@\[-`{-~]")
_LINK_URL = r"<[^<>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*"
_LINK_TITLE = r"""(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?"""

# In order: a rule sees the text the rules before it left (code first: nothing inside a code span is anything else).
RULES: tuple[Rule, ...] = (
    Rule(
        SpanKind.CODE,
        re.compile(r"(?<!`)(?P<fence>`+)(?!`)(?P<code>.+?)(?<!`)(?P=fence)(?!`)", re.DOTALL),
        lambda m: m.group("code").strip(),
        _blank,
        "`",
    ),
    Rule(
        SpanKind.MATH,
        re.compile(
            r"\$\$(?P<display>.+?)\$\$|(?<![\\$\w])\$(?=[^\s$])(?P<inline>[^$\n]+?)(?<=[^\s$])\$(?![\d$])", re.DOTALL
        ),
        lambda m: _squeeze(_either("display", "inline")(m)),
        _blank,
        "$",
    ),
    Rule(
        SpanKind.LINK,
        re.compile(r"<(?P<url>(?:https?|ftp|mailto):[^\s<>]*)>", re.IGNORECASE),
        _group("url"),
        _blank,
        "<",
    ),
    Rule(
        SpanKind.HTML,
        re.compile(r"<(?P<close>/)?(?P<name>[A-Za-z][A-Za-z0-9-]*)(?P<attrs>\s[^<>]*)?/?>|<!--.*?-->", re.DOTALL),
        lambda m: _tag_key(m) if m.group("name") else None,
        _blank,
        "<",
    ),
    Rule(
        SpanKind.IMAGE,
        re.compile(rf"!\[(?P<text>(?:[^\[\]\\]|\\.)*)\]\(\s*<?(?P<path>media/[^\s()<>]*?)>?{_LINK_TITLE}\s*\)"),
        lambda m: m.group("path").rsplit("/", 1)[-1],
        _group("text"),  # the alt text is prose: translated like any other
        "[",
    ),
    Rule(
        SpanKind.LINK,
        re.compile(
            rf"!?\[(?P<text>(?:[^\[\]\\]|\\.|\[[^\[\]]*\])*)\]\(\s*(?P<url>{_LINK_URL}){_LINK_TITLE}\s*\)", re.DOTALL
        ),
        lambda m: m.group("url").removeprefix("<").removesuffix(">"),
        _group("text"),
        "[",
    ),
    Rule(
        SpanKind.LINK, re.compile(r"\b(?:https?|ftp)://[^\s<>()]+[^\s<>().,;:!?'\"]"), lambda m: m.group(), _blank, ":"
    ),
    Rule(
        SpanKind.STRONG,
        re.compile(r"\*\*(?=\S)(?P<a>.+?)(?<=\S)\*\*|(?<!\w)__(?=\S)(?P<b>.+?)(?<=\S)__(?!\w)", re.DOTALL),
        lambda m: "",
        _either("a", "b"),
        "*_",
    ),
    Rule(
        SpanKind.EMPHASIS,
        re.compile(
            r"(?<!\*)\*(?=[^\s*])(?P<a>.+?)(?<=[^\s*])\*(?!\*)|(?<!\w)_(?=[^\s_])(?P<b>.+?)(?<=[^\s_])_(?!\w)",
            re.DOTALL,
        ),
        lambda m: "",
        _either("a", "b"),
        "*_",
    ),
    Rule(SpanKind.STRIKE, re.compile(r"~~(?=\S)(?P<a>.+?)(?<=\S)~~", re.DOTALL), lambda m: "", _group("a"), "~"),
    # Any script's digits (Urdu writes ۸ for 8); separators of any locale, read per locale when compared.
    Rule(SpanKind.NUMBER, re.compile(r"\d+(?:[.,٫٬]\d+)*"), lambda m: _ascii_digits(m.group()), None),
)
# Counted, not compared by content: a translation may move emphasis to other words.
_COUNTED = frozenset({SpanKind.STRONG, SpanKind.EMPHASIS, SpanKind.STRIKE})
# Text none of whose characters is one of these has no span at all (the common case, decided in C).
# Every rule but the last (numbers) has a trigger; a backslash escape is read by the full pass too.
assert RULES[-1].kind is SpanKind.NUMBER and all(rule.trigger for rule in RULES[:-1])
_TRIGGER_CHARACTERS = frozenset("\\").union(*(rule.trigger for rule in RULES))
_FIRST_LOOK = re.compile(f"[{re.escape(''.join(sorted(_TRIGGER_CHARACTERS)))}]|{RULES[-1].pattern.pattern}")


def _ascii_digits(number: str) -> str:
    if number.isascii():
        return number
    return "".join(str(unicodedata.decimal(ch)) if ch.isdecimal() else ch for ch in number)


def analyse(markdown: str, rules: Sequence[Rule] = RULES) -> Analysis:
    """The spans of a Markdown text that a translation must keep, and the prose around them."""
    if rules is RULES:
        # One scan finds what the common case needs: no span at all, or numbers and nothing else.
        tokens = _FIRST_LOOK.findall(markdown)
        if not tokens:
            return Analysis((), markdown)
        present = _TRIGGER_CHARACTERS.intersection(tokens)
        if not present:
            number = SpanKind.NUMBER
            return Analysis(tuple([Span(number, n if n.isascii() else _ascii_digits(n), n) for n in tokens]), markdown)
    else:
        present = frozenset(markdown)
    text = _ESCAPED.sub(" ", markdown) if "\\" in markdown else markdown
    found: list[Span] = []
    for rule in rules:
        if rule.trigger and rule.triggers.isdisjoint(present):
            continue
        if rule.keep is None:
            for m in rule.pattern.finditer(text):
                key = rule.key(m)
                if key is not None:
                    found.append(Span(rule.kind, key, m.group()))
            continue

        def take(m: re.Match[str], rule: Rule = rule) -> str:
            key = rule.key(m)
            if key is not None:
                found.append(Span(rule.kind, key, m.group()))
            assert rule.keep is not None
            return rule.keep(m)

        text = rule.pattern.sub(take, text)
    return Analysis(tuple(found), text)


# --- numbers, read the way each locale writes them -----------------------------------------------------------


@cache
def _number_symbols(locale: str) -> tuple[str, str]:
    """(decimal, group) symbols of a locale, from CLDR."""
    try:
        return get_decimal_symbol(locale), get_group_symbol(locale)
    except (UnknownLocaleError, ValueError):
        return ".", ","


def _number_value(raw: str, decimal: str, group: str) -> str:
    """A number written with these symbols, in one canonical form ("1,000.50" -> "1000.5")."""
    text = raw.replace("٬", group).replace("٫", decimal).replace(group, "")
    if decimal != ".":
        text = text.replace(decimal, ".")
    whole, point, fraction = text.partition(".")
    if "." in fraction:
        return raw
    whole, fraction = whole.lstrip("0") or "0", fraction.rstrip("0")
    return f"{whole}.{fraction}" if point and fraction else whole


def _number_problems(source: list[str], translation: list[str], source_locale: str, locale: str) -> list[str]:
    src = _number_symbols(source_locale)
    tgt = _number_symbols(locale)
    wanted = [(raw, _number_value(raw, *src)) for raw in source]
    offered = [(raw, {_number_value(raw, *tgt), _number_value(raw, *src)}) for raw in translation]
    missing = []
    for raw, value in wanted:
        for k, (_, values) in enumerate(offered):
            if value in values:
                del offered[k]
                break
        else:
            missing.append(raw)
    return [f"number {raw} is missing" for raw in missing] + [
        f"number {raw} is not in the source" for raw, _ in offered
    ]


def parity_problems(source: Analysis, translation: Analysis, source_locale: str, locale: str) -> list[str]:
    """What differs between the spans of a source text and of its translation, one message each."""
    if source.spans == translation.spans or _keys(source) == _keys(translation):
        return []  # (the common case: the same spans, maybe in another order)
    messages: list[str] = []
    for kind in SpanKind:
        src = [s for s in source.spans if s.kind is kind]
        tgt = [s for s in translation.spans if s.kind is kind]
        if not src and not tgt:
            continue
        if kind is SpanKind.NUMBER:
            messages += _number_problems([s.key for s in src], [s.key for s in tgt], source_locale, locale)
        elif kind in _COUNTED:
            if len(src) != len(tgt):
                messages.append(f"the source has {len(src)} {kind} span(s), the translation {len(tgt)}")
        else:
            have, want = Counter(s.key for s in tgt), Counter(s.key for s in src)
            messages += [f"{_shown(kind, key)} is missing" for key in (want - have).elements()]
            messages += [f"{_shown(kind, key)} is not in the source" for key in (have - want).elements()]
    return messages


def _keys(analysis: Analysis) -> list[tuple[str, str]]:
    return sorted((s.kind.value, s.key) for s in analysis.spans)


def _shown(kind: SpanKind, key: str) -> str:
    if kind is SpanKind.CODE:
        return f"code span `{key}`"
    if kind is SpanKind.MATH:
        return f"math ${key}$"
    if kind is SpanKind.LINK:
        return f'link to "{key}"'
    if kind is SpanKind.IMAGE:
        return f"image {key}"
    return f"{kind} <{key}>"


# --- scripts ----------------------------------------------------------------------------------------------------

# Unicode character names start with the script's name; where CLDR's English name for a script differs, this says
# which names belong to it.
_SCRIPT_NAMES = {
    "Hans": ("CJK",),
    "Hant": ("CJK",),
    "Jpan": ("CJK", "HIRAGANA", "KATAKANA"),
    "Kore": ("HANGUL", "CJK"),
    "Beng": ("BENGALI",),
    "Mymr": ("MYANMAR",),
}
_NOT_LETTERS = re.compile(r"[\W\d_]+")
_WORD = re.compile(r"[^\W\d_]+")
_WORDS = re.compile(r"[^\W_](?:[\w'’-]*[^\W_])?")  # words as a reader sees them: "DeepSeek-V3", "top-k", "don't"

_LONG_WORD = re.compile(r"[^\W\d_]{4,}")
_LETTERS = re.compile(r"[^\W\d_]")


@cache
def locale_script(tag: str) -> str | None:
    """The ISO 15924 script a locale is written in (its own subtag, else CLDR's likely one): ur -> Arab."""
    try:
        loc = Locale.parse(tag)
    except (UnknownLocaleError, ValueError):
        return None
    if loc.script:
        return str(loc.script)
    likely = get_global("likely_subtags").get(loc.language)  # "ur" -> "ur_Arab_PK"
    return parse_locale(likely)[2] if likely else None


def script_name(script: str) -> str:
    return str(Locale("en").scripts.get(script, script))


@cache
def _outside_script(script: str) -> re.Pattern[str] | None:
    """Matches runs of characters that are not letters of ``script`` (None if Unicode names no letter of it)."""
    members = _script_letters(script)
    return re.compile(f"[^{members}]+") if members else None


@cache
def _outside_script_but_nul(script: str) -> re.Pattern[str]:
    """_outside_script, but leaving NUL, which joins texts in a block (see _Block)."""
    return re.compile(f"[^{_script_letters(script)}\x00]+")


@cache
def _script_letters(script: str) -> str:
    """The letters of ``script`` as the inside of a regular expression's character set ("" if there are none)."""
    prefixes = _SCRIPT_NAMES.get(script) or (script_name(script).upper().split()[0],)
    ranges: list[list[int]] = []
    for cp in range(0x32000):
        ch = chr(cp)
        if ch.isalpha() and unicodedata.name(ch, "").startswith(prefixes):
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1][1] = cp
            else:
                ranges.append([cp, cp])
    return "".join(re.escape(chr(a)) + (f"-{re.escape(chr(b))}" if b > a else "") for a, b in ranges)


def _dominant_script(text: str) -> str:
    names = Counter(unicodedata.name(ch, "?").split()[0] for ch in _LETTERS.findall(text))
    return names.most_common(1)[0][0].title() if names else "?"


# --- the checks -------------------------------------------------------------------------------------------------


class _Locale:
    """What the checks of one locale need, computed once."""

    def __init__(self, bank: Bank, locale: str, glossary: Glossary | None) -> None:
        self.locale = locale
        self.source_locale = bank.source_locale
        catalog = bank.translations.get(locale, {})
        packed = isinstance(catalog, PackedCatalog) and catalog.index.questions is bank.questions
        self.packed = catalog if packed and isinstance(catalog, PackedCatalog) else None
        self.catalog: Mapping[str, Translation] = catalog
        self.keep = glossary.keep_pattern(locale) if glossary else None
        # Each term's accepted renderings in this locale, folded (empty: the term is not checked here).
        self.accepted = {id(t): tuple(fold(a) for a in t.accepted(locale)) for t in glossary.terms} if glossary else {}
        script = locale_script(locale)
        self.script = script
        self.outside = _outside_script(script) if script else None

    def translation(self, ordinal: int, path: str, source: str) -> tuple[str, str] | None:
        """(text, the source text it translates) of a string's translation; None when it has none."""
        if self.packed is not None:
            return self.packed.text_and_source(ordinal, source)
        t = self.catalog.get(path)
        return (t.text, t.source) if t is not None and t.text else None

    def words(self, prose: str) -> list[str]:
        """The words that must be translated: letters only, without the terms this locale keeps."""
        if self.keep is not None:
            prose = self.keep.sub(" ", prose)
        return _NOT_LETTERS.sub(" ", prose).casefold().split()


class _Source(NamedTuple):
    """What the checks need of a source text, worked out once for every locale."""

    analysis: Analysis
    word: str  # a word of it (of 4 letters or more if it has one), case-folded: a translation without it is not
    # the source text again
    terms: list[tuple[Term, str]]  # the glossary terms it contains, with the form that matched


def _source(text: str, glossary: Glossary | None) -> _Source:
    analysis = analyse(text)
    word = _LONG_WORD.search(analysis.prose) or _WORD.search(analysis.prose)
    terms = glossary.matches(analysis.prose) if glossary else []
    return _Source(analysis, word.group().casefold() if word else "", terms)


def _check_one(loc: _Locale, path: str, source: str, text: str, src: _Source, findings: list[Finding]) -> None:
    tgt = analyse(text)
    if src.analysis.spans != tgt.spans:  # (parity_problems says nothing when they are the same: the common case)
        for message in parity_problems(src.analysis, tgt, loc.source_locale, loc.locale):
            findings.append(Finding(loc.locale, path, Check.PARITY, message))
    lowered = tgt.prose.casefold()
    if src.word and src.word in lowered:  # maybe the source again: read it word by word
        words = loc.words(src.analysis.prose)
        if words and words == loc.words(tgt.prose) and _has_plain_word(src.analysis.prose, loc):
            message = (
                "the translation is the source text"
                if text == source
                else "the translation reads the same as the source (apart from code, numbers and kept terms)"
            )
            findings.append(Finding(loc.locale, path, Check.UNTRANSLATED, message))
            return
    if loc.outside is not None and not _clearly_in_script(tgt.prose, loc.outside):
        prose = loc.keep.sub(" ", tgt.prose) if loc.keep is not None else tgt.prose  # kept terms do not count,
        names = {w for w in _WORDS.findall(src.analysis.prose) if not _plain(w)}
        prose = " ".join(w for w in _WORDS.findall(prose) if w not in names)  # nor names kept from the source
        letters = _NOT_LETTERS.sub("", prose)
        in_script = len(loc.outside.sub("", letters))
        if 2 * in_script < len(letters):
            message = (
                f"mostly in {_dominant_script(letters)} script: {in_script} of {len(letters)} letters are in "
                f"{script_name(loc.script or '')} script, which {loc.locale} is written in"
            )
            findings.append(Finding(loc.locale, path, Check.SCRIPT, message))
    if src.terms:
        # The prose as the glossary compares it (glossary.fold: loaded text is NFC, so mostly just case-folded).
        folded = lowered if unicodedata.is_normalized("NFC", tgt.prose) else fold(tgt.prose)
        accepted_of = loc.accepted
        for term, form in src.terms:
            accepted = accepted_of[id(term)]
            if accepted and accepted[0] not in folded and not any(a in folded for a in accepted[1:]):
                findings.append(Finding(loc.locale, path, Check.GLOSSARY, _glossary_message(term, form, loc.locale)))


def _clearly_in_script(prose: str, outside: re.Pattern[str]) -> bool:
    """A quick look that spares most translations the exact count: three quarters of the characters of an evenly
    spaced sample of at most 64 are letters of the script (spaces, digits and punctuation count against it)."""
    sample = prose[:: len(prose) // 64 + 1].replace(" ", "")
    return 4 * len(outside.sub("", sample)) >= 3 * len(sample)


def _has_plain_word(prose: str, loc: _Locale) -> bool:
    """Whether the words to translate are more than names and acronyms ("NCCL", "vLLM", "DeepSeek-V3" may stay as
    they are; a plain word, "expert" or "Expert", is to be translated)."""
    prose = loc.keep.sub(" ", prose) if loc.keep is not None else prose
    return any(_plain(w) for w in _WORDS.findall(prose))


def _plain(word: str) -> bool:
    """No digit, no capital but maybe the first: a word, not a name or an acronym ("vLLM", "NCCL", "V3")."""
    return word[1:] == word[1:].lower() and not any(ch.isdigit() for ch in word)


def _glossary_message(term: Term, form: str, locale: str) -> str:
    r = term.renderings[locale]
    if r.keep:
        return f'"{form}" should stay "{form}" (the glossary keeps it as is in {locale})'
    also = " (or " + ", ".join(f'"{a}"' for a in r.also) + ")" if r.also else ""
    return f'"{form}" should be "{r.use}"{also}'


def translation_findings(bank: Bank, glossary: Glossary | None = None) -> list[Finding]:
    """Every glossary, parity, untranslated and script finding of every target locale, in bank order.

    Linear in the bank: each source text is analysed once for all locales, regular expressions are compiled once,
    and text with no character a span starts with skips the span rules."""
    locales = [_Locale(bank, loc, glossary) for loc in bank.target_locales if bank.translations.get(loc)]
    findings: list[Finding] = []
    if not locales:
        return findings
    for ordinal, (path, source) in enumerate(strings(bank)):
        _check_string(locales, ordinal, path, source, glossary, findings)
    return findings


def _check_string(
    locales: Iterable[_Locale], ordinal: int, path: str, source: str, glossary: Glossary | None, findings: list[Finding]
) -> None:
    """Every translation check of one string in ``locales``; the source text is analysed once for them all."""
    analysed: _Source | None = None
    for loc in locales:
        found = loc.translation(ordinal, path, source)
        if found is None:
            continue
        text, translated = found
        if translated == source:
            analysed = analysed or _source(source, glossary)
            src = analysed
        else:  # stale: checked against the source text it translates
            src = _source(translated, glossary)
        _check_one(loc, path, translated, text, src, findings)


REVIEW_LISTED = 100  # per locale: enough to start on; the coverage table counts them all


def review_findings(bank: Bank, locale: str, limit: int | None = None) -> list[Finding]:
    """Under --strict: the strings of ``locale`` a learner would read in the source language (the first
    ``limit`` of them), and why."""
    why = {
        Status.MISSING: "not translated: learners read the source text",
        Status.STALE: "stale: the source changed since it was translated; learners read the source text",
        Status.DRAFT: "draft (fuzzy): learners read the source text until it is reviewed",
    }
    catalog = bank.translations.get(locale, {})
    findings = []
    if isinstance(catalog, PackedCatalog) and catalog.index.questions is bank.questions:
        for ordinal, (path, _) in enumerate(strings(bank)):
            state = catalog.state(ordinal)
            if not state & PRESENT:
                status = Status.MISSING
            elif state & STALE:
                status = Status.STALE
            elif state & DRAFT:
                status = Status.DRAFT
            else:
                continue
            findings.append(Finding(locale, path, Check.REVIEW, why[status]))
            if len(findings) == limit:
                break
        return findings
    for path, source in strings(bank):
        status = translation_status(bank, locale, path, source)
        if status is not Status.REVIEWED:
            findings.append(Finding(locale, path, Check.REVIEW, why[status]))
            if len(findings) == limit:
                break
    return findings


# --- findings as problems, at their PO file and line ------------------------------------------------------------


def _entries(po_file: Path, wanted: set[str]) -> dict[str, int]:
    """The line of the PO entries of ``wanted`` paths: one pass over the file."""
    found: dict[str, int] = {}
    if not po_file.exists():
        return found
    with po_file.open(encoding="utf-8-sig") as stream:
        for e in po.iter_po(stream):
            if e.context in wanted and not e.obsolete and e.context not in found:
                found[e.context] = e.line
                if len(found) == len(wanted):
                    break
    return found


def findings_as_problems(directory: Path, findings: Iterable[Finding], *, strict: bool) -> list[Problem]:
    """Each finding at its PO file and entry line: a warning, or an error under ``strict``."""
    by_locale: dict[str, list[Finding]] = {}
    for f in findings:
        by_locale.setdefault(f.locale, []).append(f)
    problems = []
    severity = Severity.ERROR if strict else Severity.WARNING
    for locale, found in by_locale.items():
        po_file = directory / LOCALES_DIR / f"{locale}.po"
        shown = _shown_path(po_file)
        entries = _entries(po_file, {f.path for f in found})
        for f in found:
            problems.append(Problem(shown, entries.get(f.path), str(f), repr(f.path), severity=severity))
    return problems


def _shown_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def check_translations(
    directory: Path, bank: Bank, glossary: Glossary | None, *, strict: bool, findings: list[Finding] | None = None
) -> list[Problem]:
    """What ``moe-lms check`` reports about a bank's translations (see the module's docstring); ``findings``:
    translation_findings already made."""
    findings = translation_findings(bank, glossary) if findings is None else list(findings)
    if strict:
        for locale in bank.target_locales:
            findings += review_findings(bank, locale, REVIEW_LISTED)
    return findings_as_problems(directory, findings, strict=strict)
