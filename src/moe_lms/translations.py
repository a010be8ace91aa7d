"""One locale's translations packed for large banks: the text as UTF-8 in one buffer, found by ordinal.

A string's ordinal is its position in :func:`model.strings` order. A 10,000-question bank has 100,000 strings
a locale: as a dict of path to Translation they cost about 50 MiB a locale (a dict entry, a tuple and a str
object each, and two bytes a character for Urdu or Vietnamese); packed, about the size of their UTF-8 text.
The loader builds these; everything else reads them as a ``Mapping[str, Translation]`` like any catalog, or,
where speed matters (locales.LocalizedView), by ordinal.
"""

from __future__ import annotations

import difflib
from array import array
from bisect import bisect_right
from collections.abc import Iterator, Mapping, Sequence
from itertools import accumulate

from .model import (
    Bank,
    Question,
    Translation,
    bank_strings,
    question_sources,
    question_string_count,
    question_strings,
    string_offset,
)

# Bits of a string's state byte.
LISTED = 1  # the PO file has an entry for it, translated or not
PRESENT = 2  # it has a translation
DRAFT = 4  # the translation needs review (PO fuzzy)
STALE = 8  # translated from a source text that has since changed (set only with PRESENT)
# The state of a translated string, by its draft flag (0 or 1).
_TRANSLATED_STATE = bytes([LISTED | PRESENT, LISTED | PRESENT | DRAFT]) + bytes(254)


class StringIndex:
    """Ordinals of a bank's strings, computed from its questions instead of kept as 100,000 path strings."""

    def __init__(self, bank: Bank) -> None:
        self.questions = bank.questions  # identity tells a view whether this index describes its bank
        self._heads = bank_strings(bank)
        self._head_ordinal = {path: i for i, (path, _) in enumerate(self._heads)}
        self._number: dict[str, int] = {}
        self._bases = array("q")
        ordinal = len(self._heads)
        for number, q in enumerate(bank.questions):
            self._number[q.id] = number
            self._bases.append(ordinal)
            ordinal += question_string_count(q)
        self.size = ordinal
        # Whether each string, as a view of (locale, include_drafts) resolves it, renders as itself everywhere:
        # 0 not yet known, 1 no, 2 yes (locales.LocalizedView.question_plain). Every writer asks it of every
        # text, so a build's files (and the workers forked after the first asked) share one answer per string.
        self.plain: dict[tuple[str, bool], bytearray] = {}

    def base(self, question: Question) -> int:
        """The ordinal of a question's stem; its explanation and choices' strings follow in question_strings order."""
        return self._bases[self._number[question.id]]

    def ordinal(self, path: str) -> int | None:
        """The ordinal of the string at ``path``, or None if the bank has no such string."""
        head = self._head_ordinal.get(path)
        if head is not None:
            return head
        question_id, _, rest = path.partition("/")
        number = self._number.get(question_id)
        if number is None:
            return None
        base = self._bases[number]
        if rest == "stem":
            return base
        if rest == "explanation":
            return base + 1
        q = self.questions[number]
        if rest == "unit":
            return base + 2 if q.numerical and q.unit is not None else None
        kind, _, rest = rest.partition("/")
        choice_id, _, field = rest.partition("/")
        if kind != "choices" or field not in ("text", "explanation") or (q.numerical and field == "text"):
            return None
        for j, c in enumerate(q.choices):
            if c.id == choice_id:
                return base + string_offset(q, "explanation" if field == "explanation" else "text", j)
        return None

    def neighbours(self, path: str) -> list[str]:
        """Paths a mistyped ``path`` may have meant: the bank's own strings, and those of the question whose id
        is closest to the one in ``path`` (looking at 100,000 paths for each mistake would take seconds)."""
        candidates = [head for head, _ in self._heads]
        question_id = path.partition("/")[0]
        close = (
            [question_id] if question_id in self._number else difflib.get_close_matches(question_id, self._number, n=1)
        )
        if close:
            number = self._number[close[0]]
            base = self._bases[number]
            count = question_string_count(self.questions[number])
            candidates += [p for p, _ in self.strings(base, count)]
        return candidates

    def strings(self, first: int, count: int) -> list[tuple[str, str]]:
        """(path, source text) of ``count`` strings from ordinal ``first`` on, as model.strings gives them."""
        paths, sources = self.columns(first, count)
        return list(zip(paths, sources, strict=True))

    def columns(self, first: int, count: int) -> tuple[list[str], list[str]]:
        """What :meth:`strings` gives, as two lists (the paths, and the source texts): no tuple per string."""
        heads = self._heads[first : first + count]
        paths = [path for path, _ in heads]
        sources = [source for _, source in heads]
        ordinal = first + len(heads)
        end = min(first + count, self.size)
        if ordinal >= end:
            return paths, sources
        number = bisect_right(self._bases, ordinal) - 1
        skip = ordinal - self._bases[number]
        last = bisect_right(self._bases, end - 1)
        more_paths: list[str] = []
        more_sources: list[str] = []
        for q in self.questions[number:last]:  # whole questions, in question_strings order; trimmed below
            qid = q.id
            if q.numerical:
                more_paths += [path for path, _ in _question_paths(q)]
                more_sources += question_sources(q)
                continue
            more_paths += (f"{qid}/stem", f"{qid}/explanation")
            more_sources += (q.stem, q.explanation)
            for c in q.choices:
                prefix = f"{qid}/choices/{c.id}/"
                more_paths += (prefix + "text", prefix + "explanation")
                more_sources += (c.text, c.explanation)
        wanted = end - ordinal
        paths += more_paths[skip : skip + wanted]
        sources += more_sources[skip : skip + wanted]
        return paths, sources

    def string(self, ordinal: int) -> tuple[str, str]:
        return self.strings(ordinal, 1)[0]


def _question_paths(q: Question) -> list[tuple[str, str]]:
    return list(question_strings(q))


class PackedCatalog(Mapping[str, Translation]):
    """A locale's translations of the strings of one bank (its ``index``), filled in by the loader."""

    def __init__(self, index: StringIndex) -> None:
        self.index = index
        self._text = bytearray()
        self._start = array("Q", bytes(8 * index.size))
        self._length = array("I", bytes(4 * index.size))
        self._state = bytearray(index.size)
        self._stale_source: dict[int, str] = {}  # the msgid a stale translation was made from
        self._present = 0

    # --- filling -----------------------------------------------------------------------------------------------

    def listed(self, ordinal: int) -> bool:
        return bool(self._state[ordinal] & LISTED)

    def any_listed(self, first: int, count: int) -> bool:
        return self._state[first : first + count].count(0) != count

    def add(self, ordinal: int, text: str, draft: bool, stale_source: str | None = None) -> None:
        """Record one PO entry: an empty ``text`` marks the string as listed but untranslated."""
        self.add_run(ordinal, [text], [draft], {0: stale_source} if stale_source is not None else {})

    def add_run(self, first: int, texts: Sequence[str], drafts: Sequence[bool], stale: Mapping[int, str]) -> None:
        """Record consecutive strings from ordinal ``first`` on; ``stale`` maps a position in the run to the old
        source text of a translation that is stale. The caller has checked the texts (loader.clean_text)."""
        self.index.plain.clear()  # (what a view resolves may change)
        encoded = [t.encode() for t in texts]
        lengths = array("I", map(len, encoded))
        starts = array("Q", accumulate(lengths[:-1], initial=len(self._text)))
        end = first + len(encoded)
        self._start[first:end] = starts
        self._length[first:end] = lengths
        self._text += b"".join(encoded)
        if len(drafts) != len(texts):
            raise ValueError(f"{len(texts)} texts but {len(drafts)} draft flags")
        # One state byte per string, made in C: 0 or 1 (a draft) translated to the state of a translated string,
        # then the few untranslated strings (no text) set apart.
        states = bytearray(map(bool, drafts)).translate(_TRANSLATED_STATE)
        if lengths.count(0):
            for position in (p for p, length in enumerate(lengths) if not length):
                states[position] = LISTED
        for position, source in stale.items():
            if texts[position]:
                states[position] |= STALE
                self._stale_source[first + position] = source
        self._state[first:end] = states
        self._present += len(encoded) - lengths.count(0)

    # --- reading -----------------------------------------------------------------------------------------------

    def state(self, ordinal: int) -> int:
        return self._state[ordinal]

    def text(self, ordinal: int) -> str:
        start = self._start[ordinal]
        return self._text[start : start + self._length[ordinal]].decode()

    def run(self, first: int, count: int) -> tuple[bytes, list[str]]:
        """The state bytes and the texts ("" where none) of ``count`` strings from ``first`` on, read at once
        (what reading them one by one with :meth:`state` and :meth:`text` gives)."""
        end = first + count
        text = self._text
        spans = zip(self._start[first:end], self._length[first:end], strict=True)
        return bytes(self._state[first:end]), [text[start : start + length].decode() for start, length in spans]

    def text_and_source(self, ordinal: int, source: str) -> tuple[str, str] | None:
        """What :meth:`translation` says, as (text, the source it translates), without building a Translation."""
        state = self._state[ordinal]
        if not state & PRESENT:
            return None
        start = self._start[ordinal]
        text = self._text[start : start + self._length[ordinal]].decode()
        return text, self._stale_source[ordinal] if state & STALE else source

    def translation(self, ordinal: int, source: str) -> Translation | None:
        """The translation of the string at ``ordinal``, whose current source text is ``source``."""
        state = self._state[ordinal]
        if not state & PRESENT:
            return None
        return Translation(self.text(ordinal), self._stale_source.get(ordinal, source), bool(state & DRAFT))

    def ordinals_holding(self, *needles: bytes) -> list[int]:
        """The ordinals of the translations whose UTF-8 text contains one of ``needles`` (found with bytes.find,
        at memchr speed: most catalogs have none, and then no entry is looked at)."""
        positions = []
        text = self._text
        for needle in needles:
            at = text.find(needle)
            while at != -1:
                positions.append(at)
                at = text.find(needle, at + 1)
        if not positions:
            return []
        present = [o for o in range(self.index.size) if self._length[o]]
        present.sort(key=self._start.__getitem__)
        starts = [self._start[o] for o in present]
        found: dict[int, None] = {}
        for position in positions:
            i = bisect_right(starts, position) - 1
            if i >= 0 and position < starts[i] + self._length[present[i]]:
                found[present[i]] = None
        return sorted(found)

    def state_counts(self) -> dict[int, int]:
        """How many strings are in each state (a state byte is a combination of the bits above)."""
        return {state: n for state in range(16) if (n := self._state.count(state))}

    def __getitem__(self, path: str) -> Translation:
        ordinal = self.index.ordinal(path)
        found = None if ordinal is None else self.translation(ordinal, self.index.string(ordinal)[1])
        if found is None:
            raise KeyError(path)
        return found

    def __iter__(self) -> Iterator[str]:
        return (path for path, _ in self._items())

    def __len__(self) -> int:
        return self._present

    def items(self) -> Iterator[tuple[str, Translation]]:  # type: ignore[override]
        """In bank order, without looking each path up again."""
        return self._items()

    def values(self) -> Iterator[Translation]:  # type: ignore[override]
        return (t for _, t in self._items())

    def _items(self) -> Iterator[tuple[str, Translation]]:
        step = 4096
        for first in range(0, self.index.size, step):
            if self._state[first : first + step].count(0) == min(step, self.index.size - first):
                continue
            for offset, (path, source) in enumerate(self.index.strings(first, step)):
                found = self.translation(first + offset, source)
                if found is not None:
                    yield path, found
