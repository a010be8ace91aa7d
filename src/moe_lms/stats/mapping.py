"""Texts an LMS reports, mapped back to question and choice ids per locale.

An LMS that reports text (Moodle's Responses report, Canvas's student analysis) shows a question's stem and the
chosen choices' texts as plain text, each in its own way (Moodle's html_to_text upper-cases bold, Canvas strips
tags). Both sides are reduced to a fingerprint: NFKC, case-folded, letters, marks and digits only. A text the
bank says two ways in one question (two choices alike) cannot be mapped, and is refused.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from ..locales import resolve
from ..model import Bank, Kind
from ..richtext import plain_text


@lru_cache(maxsize=65536)
def fingerprint(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in folded if unicodedata.category(ch)[0] in "LMN")


@dataclass(frozen=True)
class Entry:
    locale: str
    question: str
    stem: str  # fingerprint
    choices: dict[str, str]  # fingerprint -> choice id
    multiple: bool  # takes several answers (a reported answer may join several choices)


class TextIndex:
    """The bank's stems and choice texts per locale, as fingerprints."""

    def __init__(self, bank: Bank) -> None:
        self.bank = bank.id
        self.entries: list[Entry] = []
        self.by_question: dict[tuple[str, str], Entry] = {}
        self.ambiguous: dict[tuple[str, str], str] = {}
        for locale in bank.locales:
            view = resolve(bank, locale)
            for q in bank.questions:
                choices: dict[str, str] = {}
                for c in q.choices:
                    key = fingerprint(plain_text(view.choice_text(q, c).text))
                    if key in choices:
                        self.ambiguous[(locale, q.id)] = f"choices {choices[key]} and {c.id} read the same"
                    choices[key] = c.id
                stem = fingerprint(plain_text(view.stem(q).text))
                entry = Entry(locale, q.id, stem, choices, q.kind is Kind.MULTIPLE)
                self.entries.append(entry)
                self.by_question[(locale, q.id)] = entry
        self.entries.sort(key=lambda e: -len(e.stem))

    def questions(self, text: str) -> list[Entry]:
        """The (locale, question) entries whose stem the reported text begins with: the longest stem wins, and a
        stem said alike in several locales gives one entry per locale."""
        key = fingerprint(text)
        found: list[Entry] = []
        for e in self.entries:
            if found and len(e.stem) < len(found[0].stem):
                break
            if e.stem and key.startswith(e.stem):
                found.append(e)
        return found

    def choices(self, entry: Entry, text: str, separator: str | None) -> frozenset[str] | str:
        """The choice ids a reported answer names (``separator`` joins several), or why it names none."""
        if (entry.locale, entry.question) in self.ambiguous:
            return (
                f"cannot map an answer of question {entry.question!r}: {self.ambiguous[(entry.locale, entry.question)]}"
            )
        whole = entry.choices.get(fingerprint(text))
        if whole is not None:
            return frozenset((whole,))
        if separator is None or not entry.multiple:
            return f"answer {text[:80]!r} is none of question {entry.question!r}'s choices in {entry.locale}"
        parts = text.split(separator)
        picked = _split(parts, entry.choices)
        if picked is None:
            return f"answer {text[:80]!r} is not a set of question {entry.question!r}'s choices in {entry.locale}"
        return frozenset(picked)


def _split(parts: list[str], choices: dict[str, str]) -> list[str] | None:
    """``parts`` read as consecutive runs, each run (joined back) one choice's text; None when no reading works."""
    best: list[list[str] | None] = [None] * (len(parts) + 1)
    best[0] = []
    for end in range(1, len(parts) + 1):
        for start in range(end):
            before = best[start]
            if before is None:
                continue
            found = choices.get(fingerprint("".join(parts[start:end])))
            if found is not None:
                best[end] = [*before, found]
                break
    return best[len(parts)]
