"""Locale resolution: the one place that decides which text a learner sees in a locale.

Each string resolves to its reviewed translation; to a draft only when the caller asks; otherwise to the
source text. Fallbacks are never silent: every resolved string says where it came from and in which
language it is, and the view counts what fell back.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, cached_property
from typing import NamedTuple

from babel import Locale, UnknownLocaleError

from .model import (
    LOCALE_PATTERN,
    Bank,
    Choice,
    Question,
    Quiz,
    Section,
    StringField,
    Translation,
    bank_strings,
    inline_strings,
    path_of,
    question_sources,
    question_strings,
    string_count,
    string_offset,
    strings,
)
from .text import render_as_themselves_everywhere, visible_length
from .translations import DRAFT, PRESENT, STALE, PackedCatalog, StringIndex

LOCALE_TAG = re.compile(LOCALE_PATTERN)


class Status(StrEnum):
    """A translation's state, as the coverage table reports it."""

    REVIEWED = "reviewed"
    DRAFT = "draft"
    STALE = "stale"  # translated from a source text that has since changed
    MISSING = "missing"


class Origin(StrEnum):
    """Where a resolved string came from."""

    SOURCE = "source"  # the locale is the bank's source locale
    REVIEWED = "reviewed"
    DRAFT = "draft"
    FALLBACK = "fallback"  # no usable translation: the source text stands in


@dataclass(frozen=True)
class LocaleInfo:
    tag: str
    name: str  # in its own language: "اردو", "Tiếng Việt"
    english_name: str
    rtl: bool

    @property
    def direction(self) -> str:
        return "rtl" if self.rtl else "ltr"

    @property
    def lang(self) -> str:
        """BCP 47 form for lang/xml:lang attributes (pt_BR -> pt-BR)."""
        return self.tag.replace("_", "-")


def _parse(tag: str) -> Locale:
    try:
        return Locale.parse(tag)
    except (UnknownLocaleError, ValueError) as exc:
        raise ValueError(f"unknown locale {tag!r}: {exc}") from None


def check_locale(tag: str) -> None:
    """Raise ValueError, as :func:`locale_info` does, for a tag Babel does not know; without loading the locale's
    data (about 5 ms a locale), which only what shows a language's name or direction needs."""
    _parse(tag)


@cache
def from_language_tag(lang: str) -> str | None:
    """The bank locale tag (``pt_BR``) for a language tag as files carry it (BCP 47 ``pt-BR`` in ``xml:lang``,
    ``lang`` or a manifest, a Moodle idnumber's ``pt_BR``), or None when it is not one or Babel does not know it.
    The one reader of locale tags in files: every importer asks it."""
    parts = lang.strip().replace("-", "_").split("_")
    tag = "_".join([parts[0].lower(), *parts[1:]])
    if not LOCALE_TAG.fullmatch(tag):
        return None
    try:
        locale_info(tag)
    except ValueError:
        return None
    return tag


def locale_info(tag: str) -> LocaleInfo:
    loc = _parse(tag)
    name = loc.get_display_name(loc) or tag
    english = loc.get_display_name(Locale("en")) or tag
    return LocaleInfo(tag=tag, name=name[:1].upper() + name[1:], english_name=english, rtl=loc.text_direction == "rtl")


def translation_status(bank: Bank, locale: str, path: str, source: str) -> Status:
    t = bank.translations.get(locale, {}).get(path)
    if t is None or not t.text:
        return Status.MISSING
    if t.source != source:
        return Status.STALE
    return Status.DRAFT if t.draft else Status.REVIEWED


def _status_of_state(state: int) -> Status:
    if not state & PRESENT:
        return Status.MISSING
    if state & STALE:
        return Status.STALE
    return Status.DRAFT if state & DRAFT else Status.REVIEWED


@dataclass(frozen=True)
class Coverage:
    locale: str
    total: int
    counts: dict[Status, int]

    def __getitem__(self, status: Status) -> int:
        return self.counts.get(status, 0)

    @property
    def complete(self) -> bool:
        """No string missing or stale (drafts count as present, needing review)."""
        return self[Status.MISSING] == 0 and self[Status.STALE] == 0


def coverage(bank: Bank, locale: str) -> Coverage:
    packed = _packed(bank, locale)
    counts: Counter[Status] = Counter()
    if packed is not None:
        for state, n in packed.state_counts().items():
            counts[_status_of_state(state)] += n
    else:
        counts.update(translation_status(bank, locale, path, source) for path, source in strings(bank))
    return Coverage(locale=locale, total=sum(counts.values()), counts=dict(counts))


# LocalizedView.question_plain's flags as the string index keeps them (0 not known, 1 no, 2 yes) and as it gives
# them (0 no, 1 yes).
_FLAG_TO_BIT = bytes([0, 0, 1]) + bytes(253)
_BIT_TO_FLAG = bytes([1, 2]) + bytes(254)


def _packed(bank: Bank, locale: str) -> PackedCatalog | None:
    """The locale's catalog if it is packed for exactly this bank's strings (so its ordinals and states hold)."""
    catalog = bank.translations.get(locale)
    if isinstance(catalog, PackedCatalog) and catalog.index.questions is bank.questions:
        return catalog
    return None


@dataclass(frozen=True)
class CharacterShare:
    """How much of what a learner reads in a locale's export is in that locale's language.

    Learner-visible text is every string of the bank (title, intro, overall feedback, stems, choices,
    explanations), counted as the characters of its rendered text: no Markdown or HTML syntax, no spaces.
    """

    locale: str
    in_locale: int  # characters of strings served from a translation (or the source, in the source locale)
    total: int  # characters of every string the export serves, translated or fallen back

    @property
    def ratio(self) -> float:
        return self.in_locale / self.total if self.total else 1.0

    def __str__(self) -> str:
        """A percentage rounded down, so that 100% means every character."""
        return f"{math.floor(1000 * self.ratio) / 10:.1f}%"


class Resolved(NamedTuple):
    """A string as a locale shows it. (A named tuple: exporters make one per string, hundreds of thousands.)"""

    text: str
    origin: Origin
    lang: str  # the language the text is really in: the source locale's when it fell back

    @property
    def fell_back(self) -> bool:
        return self.origin is Origin.FALLBACK


@dataclass
class LocalizedView:
    """A bank seen in one locale. Exporters read every learner-facing string through it."""

    bank: Bank
    locale: str
    include_drafts: bool = False

    def __post_init__(self) -> None:
        self.info = locale_info(self.locale)
        self.source_info = locale_info(self.bank.source_locale)
        self._catalog = self.bank.translations.get(self.locale, {})
        self._packed = _packed(self.bank, self.locale)
        self._is_source = self.locale == self.bank.source_locale
        self._lang, self._source_lang = self.info.lang, self.source_info.lang  # read once per string: cached
        # A packed string's state byte is usable when it has PRESENT and none of the unusable bits.
        self._unusable = 0 if self.include_drafts else DRAFT | STALE

    @cached_property
    def _plain_flags(self) -> tuple[StringIndex, bytearray] | None:
        """The bank's string index and this view's flags of :meth:`question_plain`, which the index keeps (None:
        the bank has no packed catalog, so no index)."""
        index = next((c.index for c in self.bank.translations.values() if isinstance(c, PackedCatalog)), None)
        if index is None or index.questions is not self.bank.questions:
            return None
        key = (self.locale, self.include_drafts and not self._is_source)
        flags = index.plain.get(key)
        if flags is None:
            flags = index.plain[key] = bytearray(index.size)
        return index, flags

    def question_plain(self, q: Question, texts: Sequence[Resolved | str]) -> bytes:
        """For each of ``texts`` (this view's :meth:`question_texts` of ``q``, or their texts): 1 where the text
        renders as itself in every profile (text.renders_as_itself_everywhere), else 0. Found once per string and
        view for every writer of the bank, and kept by the string index: the test costs more than the answer."""
        found = self._plain_flags
        if found is not None:
            index, flags = found
            base = index.base(q)
            known = flags[base : base + len(texts)]
            if 0 not in known:
                return bytes(known).translate(_FLAG_TO_BIT)
        plain = render_as_themselves_everywhere([t if isinstance(t, str) else t.text for t in texts])
        if found is not None:
            flags[base : base + len(texts)] = plain.translate(_BIT_TO_FLAG)
        return plain

    @cached_property
    def fallbacks(self) -> list[str]:
        """Paths whose source text stands in. Computed when first asked: exporters read strings one by one."""
        if self._is_source:
            return []
        packed = self._packed
        if packed is not None:
            every = packed.index.strings(0, packed.index.size)
            return [path for o, (path, _) in enumerate(every) if self._packed_falls_back(packed.state(o))]
        return [p for p, s in strings(self.bank) if not self._usable(self._catalog.get(p), s)]

    @cached_property
    def fallback_count(self) -> int:
        """How many strings fell back to the source text."""
        if self._is_source:
            return 0
        if self._packed is not None:
            return sum(n for state, n in self._packed.state_counts().items() if self._packed_falls_back(state))
        return len(self.fallbacks)

    def _packed_falls_back(self, state: int) -> bool:
        return not state & PRESENT or bool(state & self._unusable)

    def _usable(self, t: Translation | None, source: str) -> bool:
        """Whether a translation stands in for ``source`` (the test of _lookup, without building a Resolved)."""
        return t is not None and bool(t.text) and (self.include_drafts or (t.source == source and not t.draft))

    def _lookup(self, path: str, source: str) -> Resolved:
        if self._is_source:
            return Resolved(source, Origin.SOURCE, self._source_lang)
        if self._packed is not None:
            ordinal = self._packed.index.ordinal(path)
            if ordinal is not None:
                return self._at(ordinal, source)
        t = self._catalog.get(path)
        if t is None or not self._usable(t, source):
            return Resolved(source, Origin.FALLBACK, self._source_lang)
        # (a stale translation is a draft of the new source)
        origin = Origin.REVIEWED if t.source == source and not t.draft else Origin.DRAFT
        return Resolved(t.text, origin, self._lang)

    def _at(self, ordinal: int, source: str) -> Resolved:
        """A packed string, by ordinal (the index describes this bank, so its states hold for ``source``)."""
        packed = self._packed
        assert packed is not None
        state = packed.state(ordinal)
        if not state & PRESENT or state & self._unusable:
            return Resolved(source, Origin.FALLBACK, self._source_lang)
        origin = Origin.DRAFT if state & (DRAFT | STALE) else Origin.REVIEWED
        return Resolved(packed.text(ordinal), origin, self._lang)

    def text(self, path: str, source: str) -> Resolved:
        return self._lookup(path, source)

    def question_texts(self, q: Question) -> list[Resolved]:
        """Every string of a question in model.question_strings order: stem, explanation, then each choice's text
        and explanation. The fast way to read a whole question."""
        sources = question_sources(q)
        if self._is_source:
            new, origin, lang = tuple.__new__, Origin.SOURCE, self._source_lang  # (Resolved(...) costs twice as much)
            return [new(Resolved, (source, origin, lang)) for source in sources]
        if self._packed is not None:
            # A question's strings read at once (as _at reads each): every writer reads every question this way.
            states, texts = self._packed.run(self._packed.index.base(q), len(sources))
            new, unusable, lang, source_lang = tuple.__new__, self._unusable, self._lang, self._source_lang
            fallback, draft, reviewed = Origin.FALLBACK, Origin.DRAFT, Origin.REVIEWED
            return [
                new(Resolved, (source, fallback, source_lang))
                if not state & PRESENT or state & unusable
                else new(Resolved, (text, draft if state & (DRAFT | STALE) else reviewed, lang))
                for state, text, source in zip(states, texts, sources, strict=True)
            ]
        return [self._lookup(path, source) for path, source in question_strings(q)]

    # Convenience accessors, so exporters never spell a path.
    @property
    def title(self) -> Resolved:
        return self._lookup("title", self.bank.title)

    @property
    def intro(self) -> Resolved | None:
        return None if self.bank.intro is None else self._lookup("intro", self.bank.intro)

    def quiz_title(self, quiz: Quiz) -> Resolved:
        """A quiz's title (the bank's own for the whole-bank quiz, model.whole_bank_quiz)."""
        if not any(z is quiz for z in self.bank.quizzes):
            return self.title
        return self._lookup(f"quizzes/{quiz.id}/title", quiz.title)

    def quiz_intro(self, quiz: Quiz) -> Resolved | None:
        if not any(z is quiz for z in self.bank.quizzes):
            return self.intro
        return None if quiz.intro is None else self._lookup(f"quizzes/{quiz.id}/intro", quiz.intro)

    def section_title(self, quiz: Quiz, section: Section) -> Resolved | None:
        if section.title is None:
            return None
        return self._lookup(f"quizzes/{quiz.id}/sections/{section.id}/title", section.title)

    def feedback(self, which: str) -> Resolved:
        return self._lookup(f"feedback/{which}", getattr(self.bank.feedback, which))

    def question(self, q: Question, which: StringField) -> Resolved:
        if self._packed is not None:
            return self._at(self._packed.index.base(q) + (which == "explanation"), getattr(q, which))
        return self._lookup(path_of(q, which), getattr(q, which))

    def stem(self, q: Question) -> Resolved:
        return self.question(q, "stem")

    def explanation(self, q: Question) -> Resolved:
        return self.question(q, "explanation")

    def choice_text(self, q: Question, c: Choice) -> Resolved:
        return self._choice(q, c, "text")

    def choice_explanation(self, q: Question, c: Choice) -> Resolved:
        return self._choice(q, c, "explanation")

    def unit(self, q: Question) -> Resolved | None:
        """A numerical question's unit (None: it has none)."""
        if q.unit is None:
            return None
        if self._packed is not None:
            return self._at(self._packed.index.base(q) + string_offset(q, "unit"), q.unit)
        return self._lookup(path_of(q, "unit"), q.unit)

    def _choice(self, q: Question, c: Choice, which: StringField) -> Resolved:
        source = getattr(c, which)
        if self._packed is not None:
            for j, other in enumerate(q.choices):
                if other is c:
                    return self._at(self._packed.index.base(q) + string_offset(q, which, j), source)
        return self._lookup(path_of(q, which, c), source)

    @cached_property
    def characters(self) -> CharacterShare:
        """The share of learner-visible characters this view serves in its locale's language."""
        in_locale = total = 0
        for path, source in bank_strings(self.bank):
            resolved = self._lookup(path, source)
            n = visible_length(resolved.text, inline=path == "title" or path.endswith("/title"))
            total += n
            in_locale += 0 if resolved.origin is Origin.FALLBACK else n
        for q in self.bank.questions:
            # question_texts order: stem, explanation, then each choice's text (inline) and explanation.
            for inline, resolved in zip(inline_strings(q), self.question_texts(q), strict=True):
                n = visible_length(resolved.text, inline=inline)
                total += n
                in_locale += 0 if resolved.origin is Origin.FALLBACK else n
        return CharacterShare(self.locale, in_locale, total)

    def summary(self) -> str:
        """One line for the CLI: how much of this locale fell back to the source, in strings and characters."""
        if self._is_source:
            return f"{self.locale}: source locale"
        total = string_count(self.bank)
        fell_back = self.fallback_count
        drafts = "drafts included" if self.include_drafts else "drafts not included"
        return (
            f"{self.locale}: {total - fell_back}/{total} strings translated, {fell_back} fell back to "
            f"{self.bank.source_locale} ({drafts}); {self.characters} of learner-visible characters in {self.locale}"
        )


def character_share(bank: Bank, locale: str, *, include_drafts: bool = False) -> CharacterShare:
    """The share of learner-visible characters a locale's export serves in that locale's language (what the
    coverage table and every export summary report)."""
    return resolve(bank, locale, include_drafts=include_drafts).characters


def resolve(bank: Bank, locale: str, *, include_drafts: bool = False) -> LocalizedView:
    if locale not in bank.locales:
        raise ValueError(f"bank {bank.id!r} has no locale {locale!r} (it has {', '.join(bank.locales)})")
    return LocalizedView(bank, locale, include_drafts)
