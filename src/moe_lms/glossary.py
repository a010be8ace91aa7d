"""A bank's glossary: every technical term and how each target locale renders it (``glossary.yaml``).

```yaml
terms:
  - source: [expert parallelism]      # source-locale forms, matched case-insensitively on word boundaries;
    note: for translators             # an English plural (-s/-es) of a form matches too
    ur: {use: "…", also: ["…"]}       # the required rendering and accepted variants
    vi: keep                          # keep the source term as it is
```

The file is optional. It is read with the same care as bank.yaml: every problem names its line, unknown keys
get a suggestion, a locale the bank does not translate into is an error.
"""

from __future__ import annotations

import bisect
import codecs
import difflib
import itertools
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml_rs
from babel import Locale, UnknownLocaleError

from .loader import YamlLines, display_path
from .model import TEXT_ILLEGAL
from .problems import Problem

GLOSSARY_FILE = "glossary.yaml"
KEEP = "keep"


@dataclass(frozen=True)
class Rendering:
    """How one locale renders a term: ``keep`` it as in the source, or ``use`` a translation (``also`` accepted)."""

    keep: bool = False
    use: str = ""
    also: tuple[str, ...] = ()


@dataclass(frozen=True)
class Term:
    forms: tuple[str, ...]  # source-locale forms, as the glossary spells them
    renderings: Mapping[str, Rendering]  # by locale; a locale left out is not checked for this term
    note: str | None = None
    line: int | None = None

    def accepted(self, locale: str) -> tuple[str, ...]:
        """Every text whose presence in a translation counts as rendering this term (empty: not checked)."""
        r = self.renderings.get(locale)
        if r is None:
            return ()
        return self.forms if r.keep else (r.use, *r.also)


def fold(text: str) -> str:
    """The form renderings are compared in: NFC, then case-folded (which leaves uncased scripts as they are)."""
    return unicodedata.normalize("NFC", text).casefold()


class FormMatcher:
    """Finds glossary forms in text as the regular expression ``(?<!\\w)(?:form|…)(?:e?s)?(?!\\w)`` did
    (case-insensitive, any run of white space between a form's words, an English plural, word boundaries, the
    longest form where several start at one place, matches not overlapping), in time linear in the text whatever
    the number of forms: an Aho-Corasick automaton (pyahocorasick). The one big alternation it replaces tried
    every form at every character: 3,000 terms against a 400 KB text did not finish in 120 s."""

    def __init__(self, forms: Iterable[str]) -> None:
        import ahocorasick

        self._automaton = ahocorasick.Automaton()
        for form in forms:
            key = _lower(" ".join(form.split()))
            for variant in (key, key + "s", key + "es"):
                self._automaton.add_word(variant, len(variant))
        self._automaton.make_automaton()

    def _spans(self, text: str) -> Iterator[tuple[int, int]]:
        """(start, end) in ``text`` of each match, left to right."""
        folded, where = _normalised(text)
        best: dict[int, int] = {}  # start -> end of the longest match starting there, in ``folded``
        for last, length in self._automaton.iter(folded):
            start, end = last - length + 1, last + 1
            if (start and _is_word(folded[start - 1])) or (end < len(folded) and _is_word(folded[end])):
                continue
            if best.get(start, -1) < end:
                best[start] = end
        reached = 0
        for start in sorted(best):
            if start >= reached:
                reached = best[start]
                yield (where(start), where(reached - 1) + 1)

    def findall(self, text: str) -> list[str]:
        """Each match, as written in ``text``."""
        return [text[start:end] for start, end in self._spans(text)]

    def sub(self, replacement: str, text: str) -> str:
        """``text`` with every match replaced by ``replacement``."""
        parts, done = [], 0
        for start, end in self._spans(text):
            parts += [text[done:start], replacement]
            done = end
        return "".join(parts) + text[done:] if parts else text


def _lower(text: str) -> str:
    """Lower case, one character for one (a character whose lower case is longer stays as it is)."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


_SPACE_RUN = re.compile(r"\s+")
_UNUSUAL_SPACE = re.compile(r"\s\s|[^\S ]")  # (text with only single spaces needs no map of positions)


def _normalised(text: str) -> tuple[str, Callable[[int], int]]:
    """``text`` lower-cased with every run of white space one space, and where each of its characters was."""
    folded = _lower(text)
    if not _UNUSUAL_SPACE.search(folded):
        return folded, lambda i: i
    pieces: list[str] = []
    runs: list[tuple[int, int, int]] = []  # (where the run's one space is in the result, its start, its end)
    done = length = 0
    for run in _SPACE_RUN.finditer(folded):
        pieces += [folded[done : run.start()], " "]
        length += run.start() - done
        runs.append((length, run.start(), run.end()))
        length += 1
        done = run.end()
    pieces.append(folded[done:])
    spaces = [space for space, _, _ in runs]

    def where(i: int) -> int:
        k = bisect.bisect_right(spaces, i) - 1
        if k < 0:
            return i
        space, start, end = runs[k]
        return start if i == space else end + (i - space - 1)

    return "".join(pieces), where


def _is_word(character: str) -> bool:
    return character.isalnum() or character == "_"


class Glossary:
    def __init__(self, terms: Sequence[Term], file: str = GLOSSARY_FILE) -> None:
        self.terms = tuple(terms)
        self.file = file
        self._by_form = {fold(form): (term, form) for term in self.terms for form in term.forms}
        self._matched: dict[str, tuple[Term, str] | None] = {}  # text the pattern matched -> its term (few kinds)
        self._forms = self._pattern(form for term in self.terms for form in term.forms)
        self._keep: dict[str, FormMatcher | None] = {}

    @staticmethod
    def _pattern(forms: Iterator[str] | Sequence[str]) -> FormMatcher | None:
        ordered = sorted(set(forms))
        return FormMatcher(ordered) if ordered else None

    def __bool__(self) -> bool:
        return bool(self.terms)

    def matches(self, text: str) -> list[tuple[Term, str]]:
        """The terms ``text`` contains, each once, in order of first appearance, with the form that matched
        (as the glossary spells it)."""
        if self._forms is None:
            return []
        found: dict[int, tuple[Term, str]] = {}
        for matched in self._forms.findall(text):
            if matched in self._matched:
                known = self._matched[matched]
            else:
                known = self._matched[matched] = self._term_of(matched)
            if known is not None:
                found.setdefault(id(known[0]), known)
        return list(found.values())

    def matched_in_each(self, texts: Sequence[str]) -> list[set[str]]:
        """What :meth:`matches` matched in each text (each match as written, before it is told which term it is),
        in one scan of the texts joined by NUL: no text holds NUL, and a form's match never reaches over one (NUL is
        neither a word character nor a space)."""
        if self._forms is None or not texts:
            return [set() for _ in texts]
        joined = "\x00".join(texts)
        starts = list(itertools.accumulate((len(text) + 1 for text in texts[:-1]), initial=0))
        found: list[set[str]] = [set() for _ in texts]
        for start, end in self._forms._spans(joined):
            found[bisect.bisect_right(starts, start) - 1].add(joined[start:end])
        return found

    def term_of(self, matched: str) -> tuple[Term, str] | None:
        """The term (and its form, as the glossary spells it) of a text :meth:`matches` matched."""
        if matched in self._matched:
            return self._matched[matched]
        known = self._matched[matched] = self._term_of(matched)
        return known

    def _term_of(self, matched: str) -> tuple[Term, str] | None:
        key = " ".join(fold(matched).split())
        for candidate in (key, key[:-1] if key.endswith("s") else "", key[:-2] if key.endswith("es") else ""):
            if candidate in self._by_form:
                return self._by_form[candidate]
        return None

    def keep_pattern(self, locale: str) -> FormMatcher | None:
        """Matches every form of every term that ``locale`` keeps as it is (None when there is none)."""
        if locale not in self._keep:
            forms = [f for t in self.terms if (r := t.renderings.get(locale)) and r.keep for f in t.forms]
            self._keep[locale] = self._pattern(forms)
        return self._keep[locale]

    def comments(self, locale: str, source: str) -> list[str]:
        """The extracted-comment lines (``#.``) a PO entry with this source text carries, so Poedit and Weblate
        show the translator each term and its required rendering."""
        lines = []
        for term, form in self.matches(source):
            r = term.renderings.get(locale)
            if r is None:
                continue
            rendering = "keep as is" if r.keep else r.use + (f" (also: {', '.join(r.also)})" if r.also else "")
            lines.append(f"glossary: {form} → {rendering}")
        return lines


# --- reading glossary.yaml -----------------------------------------------------------------------------------

_TERM_KEYS = ("source", "note")
_RENDERING_KEYS = ("use", "also")


class _Reader:
    def __init__(self, file: str, lines: YamlLines, target_locales: Sequence[str]) -> None:
        self.file = file
        self.lines = lines
        self.targets = tuple(target_locales)
        self.problems: list[Problem] = []

    def problem(self, path: Sequence[str | int], message: str, where: str | None = None, *, key: bool = False) -> None:
        line, column = self.lines.locate(path, key=key)
        self.problems.append(Problem(self.file, line, message, where, column))

    def text(self, value: Any, path: Sequence[str | int], what: str, where: str | None) -> str | None:
        if not isinstance(value, str) or not value.strip():
            self.problem(path, f"{what}: must be non-empty text", where)
            return None
        bad = TEXT_ILLEGAL.search(value)
        if bad:
            self.problem(path, f"{what}: contains U+{ord(bad.group()):04X}, which XML 1.0 cannot carry", where)
            return None
        return " ".join(unicodedata.normalize("NFC", value).split())

    def texts(self, value: Any, path: Sequence[str | int], what: str, where: str | None) -> list[str]:
        items = value if isinstance(value, list) else [value]
        found = []
        for k, item in enumerate(items):
            text = self.text(item, (*path, k) if isinstance(value, list) else path, what, where)
            if text is not None:
                found.append(text)
        return found

    def unknown_key(self, path: Sequence[str | int], name: Any, known: Sequence[str], where: str | None) -> None:
        hint = difflib.get_close_matches(str(name), known, n=1)
        message = f"unknown key {name!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
        self.problem(path, message, where, key=True)

    def term(self, raw: Any, index: int) -> Term | None:
        path: tuple[str | int, ...] = ("terms", index)
        if not isinstance(raw, dict):
            self.problem(path, "a term must be a mapping with source and a rendering per locale", f"term #{index + 1}")
            return None
        source = raw.get("source")
        first = source[0] if isinstance(source, list) and source else source
        where = f"term {first!r}" if isinstance(first, str) else f"term #{index + 1}"
        if "source" not in raw:
            self.problem(path, "missing required key 'source'", where)
        forms = self.texts(source, (*path, "source"), "source", where) if "source" in raw else []
        if "source" in raw and not forms and isinstance(source, list) and not source:
            self.problem((*path, "source"), "source: list at least one form", where)
        note = raw.get("note")
        if note is not None:
            note = self.text(note, (*path, "note"), "note", where)
        renderings: dict[str, Rendering] = {}
        for key, value in raw.items():
            if key in _TERM_KEYS:
                continue
            if not isinstance(key, str) or not _is_locale(key):
                self.unknown_key((*path, str(key)), key, (*_TERM_KEYS, *self.targets), where)
                continue
            if key not in self.targets:
                targets = ", ".join(self.targets) or "none"
                self.problem(
                    (*path, key), f"locale {key!r} is not one of the bank's target locales ({targets})", where, key=True
                )
                continue
            rendering = self.rendering(value, (*path, key), where, key)
            if rendering is not None:
                renderings[key] = rendering
        if not forms:
            return None
        line, _ = self.lines.locate(path)
        return Term(forms=tuple(forms), renderings=renderings, note=note, line=line)

    def rendering(self, value: Any, path: tuple[str | int, ...], where: str, locale: str) -> Rendering | None:
        if value == KEEP:
            return Rendering(keep=True)
        if not isinstance(value, dict):
            self.problem(path, f"{locale}: must be 'keep' or a mapping {{use: …, also: [...]}}", where)
            return None
        for key in value:
            if key not in _RENDERING_KEYS:
                self.unknown_key((*path, str(key)), key, _RENDERING_KEYS, where)
        if "use" not in value:
            self.problem(path, f"{locale}: missing required key 'use'", where)
            return None
        use = self.text(value["use"], (*path, "use"), f"{locale}.use", where)
        also = self.texts(value.get("also", []), (*path, "also"), f"{locale}.also", where)
        if use is None:
            return None
        return Rendering(use=use, also=tuple(also))


def _is_locale(key: str) -> bool:
    try:
        Locale.parse(key)
    except (UnknownLocaleError, ValueError):
        return False
    return True


def read_glossary(directory: Path, target_locales: Sequence[str]) -> tuple[Glossary | None, list[Problem]]:
    """The bank's glossary (None when the bank has none), and every problem of the file with its line."""
    path = directory / GLOSSARY_FILE
    if not path.exists():
        return None, []
    file = display_path(path)
    try:
        text = path.read_bytes().removeprefix(codecs.BOM_UTF8).decode("utf-8")
    except OSError as exc:
        return None, [Problem(file, None, f"cannot read: {exc.strerror or exc}")]
    except UnicodeDecodeError as exc:
        data = path.read_bytes().removeprefix(codecs.BOM_UTF8)
        line = data.count(b"\n", 0, exc.start) + 1
        return None, [Problem(file, line, f"not UTF-8: byte 0x{data[exc.start]:02x} cannot be decoded")]
    lines = YamlLines(path)
    try:
        raw = yaml_rs.loads(text, parse_datetime=False)
    except yaml_rs.YAMLDecodeError as exc:
        message = str(exc).strip()
        dup = lines.duplicate_key() if "duplicate" in message else None
        if dup:
            return None, [Problem(file, dup[1], f"key {dup[0]!r} appears twice in the same mapping", column=dup[2])]
        where = re.search(r"line (\d+), column (\d+)", message)
        if where:
            first = message.splitlines()[-1].strip()
            return None, [Problem(file, int(where[1]), f"YAML syntax error: {first}", column=int(where[2]))]
        return None, [Problem(file, None, f"YAML error: {message}")]
    reader = _Reader(file, lines, target_locales)
    if not isinstance(raw, dict) or not isinstance(raw.get("terms"), list):
        return None, [Problem(file, 1, "glossary.yaml must be a mapping whose 'terms' is a list of terms")]
    for key in raw:
        if key != "terms":
            reader.unknown_key((str(key),), key, ("terms",), None)
    terms: list[Term] = []
    seen: dict[str, Term] = {}
    for index, raw_term in enumerate(raw["terms"]):
        term = reader.term(raw_term, index)
        if term is None:
            continue
        for form in term.forms:
            other = seen.get(fold(form))
            if other is not None:
                reader.problem(
                    ("terms", index, "source"),
                    f"source form {form!r} is already a form of the term on line {other.line}",
                    f"term {term.forms[0]!r}",
                )
            seen[fold(form)] = term
        terms.append(term)
    if reader.problems:
        return None, reader.problems
    return Glossary(terms, file), []
