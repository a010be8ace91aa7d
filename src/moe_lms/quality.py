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

This module must not know any output format or the CLI; it reads files only to name a finding's PO line.

Why it is over 700 lines (issue 19): the one pass over every string that ``check`` runs (:func:`survey`, kept for
the 100k bank's memory floor) lives beside the separate checks it is held to, so that both are read together.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from itertools import accumulate, compress, repeat
from operator import sub
from pathlib import Path
from typing import NamedTuple

from babel import Locale, UnknownLocaleError
from babel.core import get_global, parse_locale
from babel.numbers import get_decimal_symbol, get_group_symbol

from . import po
from .glossary import Glossary, Term, fold
from .loader import (
    LIST_START,
    LOCALES_DIR,
    MAYBE_ORDERED_LIST,
    YamlLines,
    bank_yaml_path,
    describe,
    display_path,
    path_where,
    po_line,
    yaml_path,
)
from .locales import CharacterShare, Status, translation_status
from .model import Bank, Translation, bank_strings, inline_strings, question_sources, strings
from .problems import Problem, Severity
from .text import MARKDOWN_CHARACTERS, markdown_renders_blank, render_block, visible_length
from .translations import DRAFT, PRESENT, STALE, PackedCatalog, StringIndex


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
    PLACEHOLDER = "placeholder"  # a parameterised question's {expression} (moe_lms.variants): kept as written


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
    # A parameterised question's {expression} outside math (inside, its math span holds it): no words of the prose.
    Rule(
        SpanKind.PLACEHOLDER,
        re.compile(r"(?<!\{)\{(?!\{)(?P<expr>[^{}\n]+)\}"),
        lambda m: m.group("expr").strip(),
        _blank,
        "{",
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
    translation_findings already made (by :func:`survey`)."""
    findings = translation_findings(bank, glossary) if findings is None else list(findings)
    if strict:
        for locale in bank.target_locales:
            findings += review_findings(bank, locale, REVIEW_LISTED)
    return findings_as_problems(directory, findings, strict=strict)


# --- one pass over every string, for `check` --------------------------------------------------------------------
#
# Kept for the memory floor (issue 19, docs/design/speed.md): without it, `moe-lms check` of the 100k bank (ur and
# vi, ~390 MB of PO each) ran the separate checks below and peaked at 1.95 GiB (/usr/bin/time -v, 186 s of CPU on
# a loaded machine), over the 1 GiB floor; with it the old tree was at 0.92 GiB when stopped at 96 s of CPU
# (issue 13 measured 821 MiB for the whole command). The separate checks stay as what this pass is held to
# (tests/test_quality.py) and for catalogs that are not packed.
#
# `check` reads every string of a large bank for four purposes: whether it renders to nothing (loader's
# rendering_problems), what the quality checks above say of each translation, and how many characters a learner
# reads in each locale (locales.character_share). Each alone looks at every string; done together, a block of
# strings is joined once (with NUL, which no loaded text holds) and the questions most strings answer the same
# way are asked of the whole block in C: which strings hold a character Markdown or a span rule reads, which start
# or end as Markdown does, what numbers each holds, each one case-folded. A string none of those marks is plain
# text, and what every check says of it follows from that (why, beside each step below); every other string, and
# every translation a step cannot clear, is given to the thorough function, which says exactly what it says alone.
# tests/test_quality.py checks the pass against the separate checks on generated banks.

_BLOCK = 512  # strings joined at a time: bounded memory, whatever the bank's size
# A state byte -> 1 when an export serves the translation (reviewed: locales.LocalizedView), else 0; and the reverse.
_SERVED = bytes(1 if state & PRESENT and not state & (DRAFT | STALE) else 0 for state in range(256))
_FELL_BACK = bytes(1 - served for served in _SERVED)
# A character that Markdown reads or that a span rule starts with.
_SPECIAL_CHARACTERS = _TRIGGER_CHARACTERS | frozenset(MARKDOWN_CHARACTERS)
# Each text's first word of 4 letters or more (_LONG_WORD's first match), found after each NUL of a block.
_FIRST_LONG_WORD = re.compile(r"\x00(?:[^\x00]*?([^\W\d_]{4,}))?")
_DOUBLE_SPACE = re.compile("  ")  # (a regular expression finds it faster than str.find)
# Plain text that still reads as Markdown: a string that starts with a space or a list, heading or quote mark or a
# list number, or is empty (text.has_no_markdown_syntax); one that ends with a space; a double space.
_MARKDOWN_START = re.compile(r"\x00(?=[-+=>\ufeff\s\x00]|\d+[.)])")
_MARKDOWN_END = re.compile(r"\x00(?<=\s\x00)")
# Numbers, read from a block's UTF-8 bytes: every byte but an ASCII digit, "." and "," (and the NUL between texts)
# becomes a space; the runs left that hold a digit are each text's numbers as written (the span rule's numbers lie
# in those runs, so texts with the same runs have the same numbers). A text with another script's digit or an
# Arabic separator is read by the span rule itself (_OTHER_NUMERALS marks it).
_NUMBER_BYTES = bytes(c if c in b"0123456789.,\x00" else 0x20 for c in range(256))
_NO_DIGIT_RUN = re.compile(rb"(?<![0-9.,])[.,]+(?![0-9.,])")
_NUMBER = RULES[-1].pattern


@cache
def _special_or_numeral() -> re.Pattern[str]:
    """Matches a special character (_SPECIAL_CHARACTERS) or a character of a number the span rule reads that is
    not ASCII: another script's digit, ٫ or ٬, and any character outside the Basic Multilingual Plane, where some
    scripts' digits are (one range keeps the character set a bitmap, which regular expressions test fastest)."""
    others = [ch for ch in map(chr, range(128, 0x10000)) if ch.isdecimal()]
    characters = "".join(sorted(_SPECIAL_CHARACTERS)) + "".join(others) + "٫٬"
    return re.compile("[" + re.escape(characters) + "\U00010000-\U0010ffff]")


class _Block:
    """A block of texts, joined, and what one look at the join says of each."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        joined = "\x00" + "\x00".join(texts) + "\x00"
        self.joined = joined
        # offsets[i] is the NUL before text i; offsets[len(texts)] the last one.
        self.offsets = list(accumulate((len(t) + 1 for t in texts), initial=0))
        # Texts with a Markdown or span character: every check reads them the thorough way.
        # Texts with a digit of another script or an Arabic separator: their numbers() says too little.
        special: set[int] = set()
        numerals: set[int] = set()
        offsets, search, at = self.offsets, _special_or_numeral().search, 0
        while (m := search(joined, at)) is not None:
            i = bisect_right(offsets, m.start()) - 1
            if m.group() in _SPECIAL_CHARACTERS:
                special.add(i)
                at = offsets[i + 1]
            else:  # (a special character later in the text is still to be found)
                numerals.add(i)
                at = m.end()
        self.special = special
        self.numerals = numerals
        # Texts that do not render as themselves although they have no Markdown character.
        unplain = {bisect_right(offsets, m.start()) - 1 for m in _MARKDOWN_START.finditer(joined)}
        unplain.update(bisect_right(offsets, m.start()) - 2 for m in _MARKDOWN_END.finditer(joined))
        at, search = 0, _DOUBLE_SPACE.search
        while (m := search(joined, at)) is not None:
            i = bisect_right(offsets, m.start()) - 1
            unplain.add(i)
            at = offsets[i + 1]
        unplain.discard(len(texts))  # (the last NUL matched by the start rule)
        self.unplain = unplain

    def numbers(self) -> list[bytes]:
        """Each text's runs of ASCII digits, "." and "," that hold a digit, in one string (see _NUMBER_BYTES)."""
        runs = b" ".join(self.joined.encode().translate(_NUMBER_BYTES).split())
        runs = b" ".join(_NO_DIGIT_RUN.sub(b"", runs).split())
        return runs.replace(b" \x00", b"\x00").replace(b"\x00 ", b"\x00").split(b"\x00")[1:-1]

    def words(self) -> list[str]:
        """_source's word of each text (its first word of 4 letters or more, else its first word), case-folded."""
        words = _FIRST_LONG_WORD.findall(self.joined)[:-1]  # (the last NUL starts no text)
        for i, word in enumerate(words):
            if not word:
                found = _WORD.search(self.texts[i])
                words[i] = found.group() if found else ""
        return "\x00".join(words).casefold().split("\x00")

    def folded(self) -> list[str]:
        """Each text case-folded (casefold reads no context: the join's folding is each text's)."""
        return self.joined.casefold().split("\x00")[1:-1]

    def clearly_in_script(self, script: str) -> list[bool]:
        """_clearly_in_script of each text (the same evenly spaced samples, their letters counted in one go)."""
        samples = "\x00".join([t[:: len(t) // 64 + 1] for t in self.texts]).replace(" ", "")
        inside = _outside_script_but_nul(script).sub("", samples).split("\x00")
        return [4 * len(a) >= 3 * len(b) for a, b in zip(inside, samples.split("\x00"), strict=True)]

    def visible_lengths(self, inline: bytearray | bytes) -> list[int]:
        """text.visible_length of each text (a text without a Markdown character: its characters but spaces)."""
        texts = self.texts
        lengths = list(map(sub, map(len, texts), map(str.count, texts, repeat(" "))))
        for i in self.special:
            lengths[i] = visible_length(self.texts[i], inline=bool(inline[i]))
        return lengths


@dataclass
class Survey:
    """What ``check`` reports about a bank's text, found in one pass (see above)."""

    rendering: list[Problem]  # loader.rendering_problems
    findings: list[Finding]  # translation_findings
    shares: dict[str, CharacterShare]  # character_share of each target locale


def survey(directory: Path, bank: Bank, glossary: Glossary | None) -> Survey | None:
    """loader.rendering_problems, translation_findings and the character share of every target locale, in one
    pass; None when a catalog is not packed for this bank (then the separate checks apply)."""
    catalogs: dict[str, PackedCatalog] = {}
    for locale, catalog in bank.translations.items():
        if not (isinstance(catalog, PackedCatalog) and catalog.index.questions is bank.questions):
            return None
        catalogs[locale] = catalog
    index = next(iter(catalogs.values())).index if catalogs else StringIndex(bank)
    sources = [text for _, text in bank_strings(bank)]
    inline = bytearray(len(sources))  # which strings render inline: the title, each choice's text, a unit
    for q in bank.questions:
        sources += question_sources(q)
        inline += bytes(inline_strings(q))
    assert len(sources) == index.size
    inline[0] = 1
    checked = [_Locale(bank, loc, glossary) for loc in bank.target_locales if bank.translations.get(loc)]
    share_locales = [loc for loc in bank.target_locales if loc in catalogs]
    in_locale = dict.fromkeys(bank.target_locales, 0)
    source_total = 0
    total = dict.fromkeys(bank.target_locales, 0)

    blank_sources: list[int] = []
    list_starts: list[int] = []
    blank_translations: dict[str, list[int]] = {locale: [] for locale in catalogs}
    findings: list[Finding] = []
    n = len(sources)
    for first in range(0, n, _BLOCK):
        last = min(first + _BLOCK, n)
        src = _Block(sources[first:last])
        for i in sorted(src.special | src.unplain):
            text = src.texts[i]
            if markdown_renders_blank(text, inline=bool(inline[first + i])):
                blank_sources.append(first + i)
            elif not inline[first + i] and MAYBE_ORDERED_LIST.search(text) and LIST_START.search(render_block(text)):
                list_starts.append(first + i)
        # (a plain text renders as itself: blank only when empty, which _MARKDOWN_START marks; its <p> holds no list)
        source_lengths = src.visible_lengths(inline[first:last])
        source_total += sum(source_lengths)
        translated: dict[str, tuple[list[str], bytes, _Block]] = {}
        for locale, catalog in catalogs.items():
            states, texts = catalog.run(first, last - first)  # ("" where no translation is present)
            block = _Block(texts)
            translated[locale] = (texts, states, block)
            for i in sorted(block.special | block.unplain):
                if states[i] & PRESENT and markdown_renders_blank(texts[i], inline=bool(inline[first + i])):
                    blank_translations[locale].append(first + i)
        for locale in share_locales:
            _, served, block = translated[locale]
            lengths = block.visible_lengths(inline[first:last])
            count = sum(compress(lengths, served.translate(_SERVED)))
            in_locale[locale] += count
            total[locale] += count + sum(compress(source_lengths, served.translate(_FELL_BACK)))
        findings += _block_findings(first, src, checked, translated, glossary, index)

    yaml_file = bank_yaml_path(directory)
    rendering: list[Problem] = []
    if blank_sources or list_starts:
        lines = YamlLines(yaml_file)
        numbers = {q.id: k for k, q in enumerate(bank.questions)}
        for o in sorted(blank_sources + list_starts):
            path = index.string(o)[0]
            line, column = lines.locate(yaml_path(bank, numbers, path))
            if o in blank_sources:
                message = f"{describe(path)} renders to no text at all (only markup the sanitiser removes)"
                rendering.append(Problem(display_path(yaml_file), line, message, path_where(path), column))
            else:
                message = (
                    f"{describe(path)} has a numbered list that does not start at 1; QTI 2.1 lists have no start "
                    "number, so QTI packages (and Canvas imports of them) number it from 1"
                )
                rendering.append(
                    Problem(display_path(yaml_file), line, message, path_where(path), column, severity=Severity.WARNING)
                )
    for locale, bad in blank_translations.items():
        po_file = directory / LOCALES_DIR / f"{locale}.po"
        for o in bad:
            path = index.string(o)[0]
            message = f"the {locale} translation of {describe(path)} renders to no text at all"
            rendering.append(Problem(display_path(po_file), po_line(po_file, path), message, path_where(path)))
    # (a locale without a catalog serves every string from the source)
    shares = {
        locale: CharacterShare(locale, in_locale[locale], total[locale] if locale in catalogs else source_total)
        for locale in bank.target_locales
    }
    return Survey(rendering, findings, shares)


def _block_findings(
    first: int,
    src: _Block,
    checked: list[_Locale],
    translated: Mapping[str, tuple[list[str], bytes, _Block]],
    glossary: Glossary | None,
    index: StringIndex,
) -> list[Finding]:
    """translation_findings of one block of strings: what a plain source and its plain translation cannot have
    (each test below is the one _check_one makes first) is cleared here; every other pair goes to _check_one."""
    if not checked:
        return []
    source_numbers = src.numbers()
    words = src.words()
    matched_in = glossary.matched_in_each(src.texts) if glossary else None
    thorough: list[set[int]] = []
    for loc in checked:
        texts, states, block = translated[loc.locale]
        numbers = block.numbers()
        numerals = src.numerals | block.numerals
        folded = block.folded()
        clear = block.clearly_in_script(loc.script) if loc.outside is not None and loc.script else None
        accepted_of: dict[str, tuple[str, ...]] = {}  # a text the glossary matched -> its term's accepted renderings
        doubtful: set[int] = set()
        special = src.special | block.special
        for i, state in enumerate(states):
            if not state & PRESENT:
                continue
            if state & STALE or i in special:
                # (stale: checked against the source it was made from; a span character: the full analysis)
                doubtful.add(i)
                continue
            if (numbers[i] != source_numbers[i] or i in numerals) and _NUMBER.findall(texts[i]) != _NUMBER.findall(
                src.texts[i]
            ):  # (other numbers: parity_problems reads them as the locale writes numbers)
                doubtful.add(i)
                continue
            word = words[i]
            if word and word in folded[i]:  # maybe the source again
                doubtful.add(i)
                continue
            text = texts[i]
            if clear is not None and not clear[i]:
                doubtful.add(i)
                continue
            if matched_in is None or not matched_in[i]:
                continue
            # The source's glossary terms (what glossary.matches would say, as a set), each rendered as accepted.
            if not unicodedata.is_normalized("NFC", text):
                doubtful.add(i)
                continue
            lowered = folded[i]
            for matched in matched_in[i]:
                accepted = accepted_of.get(matched)
                if accepted is None:
                    known = glossary.term_of(matched) if glossary else None
                    accepted = accepted_of[matched] = loc.accepted[id(known[0])] if known else ()
                if accepted and accepted[0] not in lowered and not any(a in lowered for a in accepted[1:]):
                    doubtful.add(i)
                    break
        thorough.append(doubtful)
    findings: list[Finding] = []
    for i in sorted(set().union(*thorough)):
        ordinal = first + i
        path, source = index.string(ordinal)
        doubting = [loc for loc, doubtful in zip(checked, thorough, strict=True) if i in doubtful]
        _check_string(doubting, ordinal, path, source, glossary, findings)
    return findings
