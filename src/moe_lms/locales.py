"""Locale resolution: the one place that decides which text a learner sees in a locale.

Each string resolves to its reviewed translation; to a draft only when the caller asks; otherwise to the
source text. Fallbacks are never silent: every resolved string says where it came from and in which
language it is, and the view counts what fell back.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, cached_property

from babel import Locale, UnknownLocaleError

from .model import Bank, Choice, Question, StringField, Translation, path_of, string_count, strings


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


@cache
def locale_info(tag: str) -> LocaleInfo:
    try:
        loc = Locale.parse(tag)
    except (UnknownLocaleError, ValueError) as exc:
        raise ValueError(f"unknown locale {tag!r}: {exc}") from None
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
    counts = Counter(translation_status(bank, locale, path, source) for path, source in strings(bank))
    return Coverage(locale=locale, total=sum(counts.values()), counts=dict(counts))


@dataclass(frozen=True)
class Resolved:
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
        self._is_source = self.locale == self.bank.source_locale
        self._lang, self._source_lang = self.info.lang, self.source_info.lang  # read once per string: cached

    @cached_property
    def fallbacks(self) -> list[str]:
        """Paths whose source text stands in. Computed when first asked: exporters read strings one by one."""
        if self._is_source:
            return []
        return [p for p, s in strings(self.bank) if not self._usable(self._catalog.get(p), s)]

    def _usable(self, t: Translation | None, source: str) -> bool:
        """Whether a translation stands in for ``source`` (the test of _lookup, without building a Resolved)."""
        return t is not None and bool(t.text) and (self.include_drafts or (t.source == source and not t.draft))

    def _lookup(self, path: str, source: str) -> Resolved:
        if self._is_source:
            return Resolved(source, Origin.SOURCE, self._source_lang)
        t = self._catalog.get(path)
        if t is None or not self._usable(t, source):
            return Resolved(source, Origin.FALLBACK, self._source_lang)
        # (a stale translation is a draft of the new source)
        origin = Origin.REVIEWED if t.source == source and not t.draft else Origin.DRAFT
        return Resolved(t.text, origin, self._lang)

    def text(self, path: str, source: str) -> Resolved:
        return self._lookup(path, source)

    # Convenience accessors, so exporters never spell a path.
    @property
    def title(self) -> Resolved:
        return self._lookup("title", self.bank.title)

    @property
    def intro(self) -> Resolved | None:
        return None if self.bank.intro is None else self._lookup("intro", self.bank.intro)

    def feedback(self, which: str) -> Resolved:
        return self._lookup(f"feedback/{which}", getattr(self.bank.feedback, which))

    def question(self, q: Question, which: StringField) -> Resolved:
        return self._lookup(path_of(q, which), getattr(q, which))

    def stem(self, q: Question) -> Resolved:
        return self.question(q, "stem")

    def explanation(self, q: Question) -> Resolved:
        return self.question(q, "explanation")

    def choice_text(self, q: Question, c: Choice) -> Resolved:
        return self._lookup(path_of(q, "text", c), c.text)

    def choice_explanation(self, q: Question, c: Choice) -> Resolved:
        return self._lookup(path_of(q, "explanation", c), c.explanation)

    def summary(self) -> str:
        """One line for the CLI: how much of this locale fell back to the source."""
        if self._is_source:
            return f"{self.locale}: source locale"
        total = string_count(self.bank)
        used = total - len(self.fallbacks)
        drafts = "drafts included" if self.include_drafts else "drafts not included"
        return (
            f"{self.locale}: {used}/{total} strings translated, {len(self.fallbacks)} fell back to "
            f"{self.bank.source_locale} ({drafts})"
        )


def resolve(bank: Bank, locale: str, *, include_drafts: bool = False) -> LocalizedView:
    if locale not in bank.locales:
        raise ValueError(f"bank {bank.id!r} has no locale {locale!r} (it has {', '.join(bank.locales)})")
    return LocalizedView(bank, locale, include_drafts)
