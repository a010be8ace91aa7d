"""Gettext PO catalogs: the translators' side of a bank.

Writing goes through Babel, so the files are what Poedit, Weblate and Crowdin expect. Reading is a small
parser of our own because every error must name its line, which Babel's reader does not keep, and because
it is fast: a 100,000-entry catalog in about 0.3 s, where Babel's reader takes 1.9 s (bench/load_bank.py).
Three readers agree (tests/test_po.py, tests/test_large_banks.py): the line parser is the reference and names
syntax errors; a regex reads one entry at a time; and runs of the plain entries Babel writes come in bulk.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING, TextIO

from .locales import locale_info
from .problems import MoeLmsError

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

# Fixed so that the same translations always give byte-identical files (no timestamps in diffs).
_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


class PoSyntaxError(MoeLmsError, ValueError):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass(slots=True)
class PoEntry:
    context: str | None
    msgid: str
    msgstr: str
    line: int
    fuzzy: bool = False
    obsolete: bool = False
    previous_msgid: str | None = None
    flags: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)


@dataclass
class PoFile:
    header: dict[str, str]
    entries: list[PoEntry]
    header_comments: list[str] = field(default_factory=list)  # the lines before the header entry


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_ESCAPE = re.compile(r'\\(.?)|(")')


def _unquote(token: str, line: int) -> str:
    token = token.strip()
    if len(token) < 2 or token[0] != '"' or token[-1] != '"':
        raise PoSyntaxError(line, f"expected a quoted string, found {token[:40]!r}")
    body = token[1:-1]
    if "\\" not in body and '"' not in body:
        return body

    def unescape(m: re.Match[str]) -> str:
        if m.group(2) is not None or m.group(1) not in _ESCAPES:
            found = m.group(0) if m.group(2) is not None else "\\" + m.group(1)
            raise PoSyntaxError(line, f"bad escape or unescaped quote {found!r} in string")
        return _ESCAPES[m.group(1)]

    return _ESCAPE.sub(unescape, body)


def read_po(text: str) -> PoFile:
    """Parse PO text; raise PoSyntaxError naming the line of the first syntax error."""
    return _collect(iter_po(io.StringIO(text)))


def _collect(entries: Iterable[PoEntry]) -> PoFile:
    header: dict[str, str] = {}
    header_comments: list[str] = []
    collected: list[PoEntry] = []
    for e in entries:
        if e.context is None and e.msgid == "" and not e.obsolete and not collected and not header:
            header, header_comments = parse_header(e.msgstr), e.comments
        else:
            collected.append(e)
    return PoFile(header=header, entries=collected, header_comments=header_comments)


def parse_header(msgstr: str) -> dict[str, str]:
    header: dict[str, str] = {}
    for raw in msgstr.split("\n"):
        key, sep, value = raw.partition(":")
        if sep:
            header[key.strip()] = value.strip()
    return header


_CHUNK = 1 << 16


@dataclass(slots=True)
class Run:
    """Consecutive entries of the plain shape Babel writes (msgctxt, msgid and msgstr on one line each, no
    escapes, maybe ``#, fuzzy``), as parallel lists: most of a large catalog, read without an object per entry.
    Translator, extracted and reference comments before an entry (``# …``, ``#. glossary: …``, ``#: …``) may
    stand in a run; a run does not keep them (its reader, the loader, has no use for them)."""

    line: int  # the first line of the first entry
    contexts: list[str]
    msgids: list[str]
    msgstrs: list[str]
    fuzzy: list[bool]
    blank_after: list[bool]
    comment_lines: list[int] = field(default_factory=list)  # per entry; empty when no entry has a comment

    def line_of(self, k: int) -> int:
        """The line of entry ``k``'s msgctxt, as PoEntry.line counts it."""
        before = 3 * k + sum(self.fuzzy[:k]) + sum(self.blank_after[:k]) + sum(self.comment_lines[: k + 1])
        return self.line + before + self.fuzzy[k]


_PLAIN = re.compile(r'((?:#(?:[ .:][^\n]*)?\n)*)(#, fuzzy\n)?msgctxt "(.*)"\nmsgid "(.*)"\nmsgstr "(.*)"\n(\n?)')
_PLAIN_FIXED = len('msgctxt ""\nmsgid ""\nmsgstr ""\n')
_FUZZY_LINE = len("#, fuzzy\n")


def _plain_run(text: str, line: int) -> Run | None:
    """The chunk as one Run if every entry in it has the plain shape, else None.

    The regex engine finds the entries; the lengths and quote count then prove they tile the chunk exactly,
    with nothing between them and no quote inside a string, so nothing unusual can pass unread.
    """
    body = text.lstrip("\n")
    if not body or "\\" in body:
        return None
    found = _PLAIN.findall(body)
    if not found:
        return None
    comments, fuzzy, contexts, msgids, msgstrs, blanks = (list(column) for column in zip(*found, strict=True))
    count = len(found)
    length = _PLAIN_FIXED * count + sum(map(len, contexts)) + sum(map(len, msgids)) + sum(map(len, msgstrs))
    length += _FUZZY_LINE * (count - fuzzy.count("")) + (count - blanks.count(""))
    commented = count - comments.count("")
    quotes = 6 * count
    if commented:
        every_comment = "".join(comments)
        length += len(every_comment)
        quotes += every_comment.count('"')
    if length != len(body) or body.count('"') != quotes:
        return None
    run = Run(line + len(text) - len(body), contexts, msgids, msgstrs, list(map(bool, fuzzy)), list(map(bool, blanks)))
    if commented:
        run.comment_lines = [c.count("\n") for c in comments]
    return run


def iter_runs(stream: TextIO) -> Iterator[Run | PoEntry]:
    """Like :func:`iter_po`, but a chunk whose entries all have the plain shape comes as one :class:`Run`."""
    return _iter(stream, runs=True)


def iter_po(stream: TextIO) -> Iterator[PoEntry]:
    """Stream a PO file's entries (the header entry first, as it stands), reading it a megabyte at a time.

    Memory stays flat however large the catalog. Chunks end at blank lines, which separate PO entries; a chunk
    the fast path cannot read is handed, with the rest of the file, to the line parser.
    """
    for entry in _iter(stream, runs=False):
        assert isinstance(entry, PoEntry)
        yield entry


def _iter(stream: TextIO, *, runs: bool) -> Iterator[Run | PoEntry]:
    pending, line = "", 1
    while True:
        chunk = stream.read(_CHUNK)
        text = pending + chunk
        cut = text.rfind("\n\n") + 1 if chunk else len(text)
        if cut <= 0:
            pending = text
            continue
        head, pending = text[:cut], text[cut:]
        run = _plain_run(head, line) if runs else None
        split = head.find("\n\n") + 1 if runs and run is None else 0
        if 0 < split < len(head):  # the header entry, then plain entries
            run = _plain_run(head[split:], line + head.count("\n", 0, split))
            if run is not None:
                yield from _entries(head[:split], line)
        if run is not None:
            yield run
            line += head.count("\n")
            if not chunk:
                return
            continue
        try:
            parsed = list(_parse_chunk(head, line))  # whole chunk first: a fallback must not repeat entries
        except _NotCommonShape:
            try:
                rest = _read_po_lines(head + pending + stream.read())
            except PoSyntaxError as exc:
                raise PoSyntaxError(exc.line + line - 1, exc.message) from None
            for e in rest:
                e.line += line - 1
                yield e
            return
        yield from parsed
        line += head.count("\n")
        if not chunk:
            return


def _entries(text: str, line: int) -> list[PoEntry]:
    """The entries of a piece of a PO file that ends at a blank line; ``line`` is the piece's first line."""
    try:
        return list(_parse_chunk(text, line))
    except _NotCommonShape:
        try:
            entries = _read_po_lines(text)
        except PoSyntaxError as exc:
            raise PoSyntaxError(exc.line + line - 1, exc.message) from None
        for e in entries:
            e.line += line - 1
        return entries


class _NotCommonShape(Exception):
    pass


def _parse_chunk(text: str, line: int) -> list[PoEntry]:
    """The entries of a chunk that is not one plain run, by the line reader (``line``: the chunk's first line);
    _NotCommonShape when it finds a problem, so the caller reads on with the rest of the file and names the line.
    (A regex reader of common entries stood between the two until issue 29: 1.08 s against the line reader's
    1.35 s for a 10k bank's 39 MB catalog entry by entry, a path no floor of docs/design/speed.md runs.)"""
    try:
        entries = _read_po_lines(text)
    except PoSyntaxError:
        raise _NotCommonShape from None
    for e in entries:
        e.line += line - 1
    return entries


def _read_po_lines(text: str) -> list[PoEntry]:
    """The reference reader: line by line, every PO construct we accept, precise line numbers in errors."""
    entries: list[PoEntry] = []
    # State of the entry being read.
    fields: dict[str, list[str]] = {}
    previous: dict[str, list[str]] = {}
    flags: list[str] = []
    comments: list[str] = []
    start = 0
    obsolete = False
    current: list[str] | None = None

    def finish() -> None:
        nonlocal fields, previous, flags, comments, start, obsolete, current
        if "msgid" in fields:
            if "msgstr" not in fields:
                raise PoSyntaxError(start, "msgid without msgstr")
            context = "".join(fields["msgctxt"]) if "msgctxt" in fields else None
            msgid = "".join(fields["msgid"])
            entry = PoEntry(
                context=context,
                msgid=msgid,
                msgstr="".join(fields["msgstr"]),
                line=start,
                fuzzy="fuzzy" in flags,
                obsolete=obsolete,
                previous_msgid="".join(previous["msgid"]) if "msgid" in previous else None,
                flags=[f for f in flags if f != "fuzzy"],
                comments=comments,
            )
            entries.append(entry)
        elif fields or previous:
            raise PoSyntaxError(start, "entry has no msgid")
        fields, previous, flags, comments, start, obsolete, current = {}, {}, [], [], 0, False, None

    for number, raw in enumerate(text.split("\n"), start=1):  # not splitlines(): U+0085 is text in PO
        line = raw.strip()
        if not line:
            finish()
            continue
        is_obsolete = line.startswith("#~")
        if is_obsolete:
            line = line[2:].strip()
        if line.startswith("#|"):
            keyword, _, rest = line[2:].strip().partition(" ")
            if keyword.startswith('"') and current is not None:
                current.append(_unquote(line[2:], number))
                continue
            if keyword not in ("msgctxt", "msgid"):
                continue
            if "msgid" in fields:
                finish()
            previous[keyword] = current = [_unquote(rest, number)]
            continue
        if line.startswith("#"):
            if "msgid" in fields and "msgstr" in fields:
                finish()
            if line.startswith("#,"):
                flags.extend(f.strip() for f in line[2:].split(",") if f.strip())
            else:
                comments.append(line)
            current = None
            continue
        if line.startswith('"'):
            if current is None:
                raise PoSyntaxError(number, "string continuation without a keyword before it")
            current.append(_unquote(line, number))
            continue
        keyword, _, rest = line.partition(" ")
        if keyword.startswith("msgstr["):
            raise PoSyntaxError(number, "plural forms are not used by question banks")
        if keyword not in ("msgctxt", "msgid", "msgstr", "msgid_plural"):
            raise PoSyntaxError(number, f"unknown keyword {keyword[:30]!r}")
        if keyword == "msgid_plural":
            raise PoSyntaxError(number, "plural forms are not used by question banks")
        if keyword in fields or (keyword in ("msgctxt", "msgid") and "msgstr" in fields):
            finish()
        if keyword == "msgstr" and "msgid" not in fields:
            raise PoSyntaxError(number, "msgstr without msgid")
        start = start or number
        obsolete = obsolete or is_obsolete
        fields[keyword] = current = [_unquote(rest, number)]
    finish()
    return entries


@cache
def _catalog_class() -> type[Catalog]:
    """Babel's catalog minus the Generated-By header, which would change the file with every Babel release.

    Made when a catalog is first written: importing Babel's catalog module (and the date and time zone code it
    brings) costs about 4 ms of CPU, which a command that only reads PO files, as every export does, need not pay."""
    from babel.messages.catalog import Catalog

    class _Catalog(Catalog):
        def _headers(self) -> list[tuple[str, str]]:
            return [(k, v) for k, v in self._get_mime_headers() if k not in ("Generated-By", "Report-Msgid-Bugs-To")]

        mime_headers = property(_headers, Catalog._set_mime_headers)

    return _Catalog


_HEADER_COMMENT = """\
# {language} translations of the moe-lms question bank {project}.
# msgctxt is the string's stable path: keep it as it is. An entry marked fuzzy is a draft that needs review;
# remove the mark when the translation is reviewed. Update with: moe-lms translations update"""


@dataclass(frozen=True)
class CatalogEntry:
    """One string to write: its path (msgctxt), source (msgid), translation and state."""

    context: str
    msgid: str
    msgstr: str = ""
    fuzzy: bool = False
    previous_msgid: str | None = None
    obsolete: bool = False
    # Comment lines as they stand in the file ("# translator comment", "#. extracted comment", "#: reference"),
    # written before the entry verbatim: Babel would wrap them at 76 columns and drop empty ones.
    comments: tuple[str, ...] = ()


def write_catalog(
    entries: Iterable[CatalogEntry],
    *,
    locale: str,
    project: str,
    language_team: str | None = None,
    header_comment: str | None = None,
) -> bytes:
    """Render a PO file with Babel, deterministically (fixed dates, entries in the order given).

    ``header_comment`` (its lines, each starting with ``#``) replaces the standard one, so that what a file's
    owner wrote there (how the file was reviewed, say) survives an update.
    """
    from babel.messages.pofile import write_po

    entries = list(entries)
    catalog = _catalog_class()(
        header_comment=header_comment
        or _HEADER_COMMENT.format(language=locale_info(locale).english_name, project=project),
        locale=locale,
        project=project,
        version="1",
        creation_date=_EPOCH,
        revision_date=_EPOCH,
        language_team=language_team or f"{locale} <LL@li.org>",
        last_translator="moe-lms",
        fuzzy=False,
    )
    for e in entries:
        flags = ("fuzzy",) if e.fuzzy else ()
        previous_id = (e.previous_msgid,) if e.previous_msgid is not None else ()
        if e.obsolete:
            from babel.messages.catalog import Message

            message = catalog.obsolete[(e.msgid, e.context)] = Message(
                e.msgid, e.msgstr, flags=flags, context=e.context, previous_id=previous_id
            )
        else:
            message = catalog.add(e.msgid, e.msgstr, flags=flags, context=e.context, previous_id=previous_id)
        # Babel guesses these from the msgid (LaTeX braces, "95% of"); bank text is never a format string.
        message.flags -= {"python-format", "python-brace-format"}
    buf = io.BytesIO()
    # (Babel wraps "#| msgid" at 76 columns like a comment, splitting its quoted string over lines that are not
    # PO: the previous msgid is written here instead, one "#|" line for each line a msgid would take)
    write_po(buf, catalog, width=0, include_previous=False, sort_output=False, omit_header=False)
    if not any(e.comments or (e.previous_msgid is not None and not e.obsolete) for e in entries):
        return buf.getvalue()
    return _with_comments(buf.getvalue(), [e for e in entries if not e.obsolete] + [e for e in entries if e.obsolete])


def _with_comments(rendered: bytes, entries: list[CatalogEntry]) -> bytes:
    """Put each entry's comment lines in front of its block, its previous msgid before its msgctxt. Babel
    separates entries by one blank line and writes none inside an entry (a newline in a string is written as
    \\n), so block k + 1 is entry k."""
    out = io.BytesIO()
    view = memoryview(rendered)
    start = rendered.index(b"\n\n") + 2  # after the header entry
    out.write(view[:start])
    for e in entries:
        end = rendered.find(b"\n\n", start) + 2
        if end < 2:
            raise AssertionError("PO entries and the blocks Babel wrote do not line up")
        for line in e.comments:
            if not line.startswith("#") or "\n" in line or line.startswith(("#,", "#|", "#~")):
                raise ValueError(f"not a PO comment line: {line[:40]!r}")
            out.write(line.encode() + b"\n")
        block = view[start:end]
        if e.previous_msgid is not None and not e.obsolete:  # after the flags, before msgctxt
            from babel.messages.pofile import normalize

            at = rendered.index(b"msgctxt " if e.context is not None else b"msgid ", start) - start
            out.write(block[:at])
            lines = normalize(e.previous_msgid, width=0).split("\n")  # (a text of several lines: "" first)
            out.write("".join(f"#| {'msgid ' if k == 0 else ''}{line}\n" for k, line in enumerate(lines)).encode())
            block = block[at:]
        out.write(block)
        start = end
    if start != len(rendered):
        raise AssertionError("PO entries and the blocks Babel wrote do not line up")
    return out.getvalue()


EXTRACTED = "#."
GLOSSARY_COMMENT = "#. glossary:"


def comment_lines(
    kept: Sequence[str], extracted: Sequence[str] = (), *, owned: str | None = GLOSSARY_COMMENT
) -> tuple[str, ...]:
    """An entry's comment lines: the ``kept`` ones (translator comments, references, other extracted comments)
    minus those starting with ``owned``, which ``extracted`` (texts of ``#.`` lines) replaces. Ordered as
    gettext writes them: translator comments, extracted comments, references."""
    kept = [c for c in kept if not (owned and c.startswith(owned))]
    translator = [c for c in kept if not c.startswith(("#.", "#:"))]
    others = [c for c in kept if c.startswith("#.")]
    references = [c for c in kept if c.startswith("#:")]
    return (*translator, *others, *(f"{EXTRACTED} {text}" for text in extracted), *references)


def merge(
    old: Iterable[PoEntry],
    current: Iterable[tuple[str, str]],
    extracted: Callable[[str], Sequence[str]] | None = None,
) -> list[CatalogEntry]:
    """Re-sync a catalog with the source strings, as msgmerge does.

    New strings come in empty; a string whose source changed keeps its old translation, marked fuzzy with
    the previous msgid so translators see what changed; strings the bank no longer has become obsolete.
    Comments stay with their entry; ``extracted(source)`` gives the texts of the ``#. glossary:`` lines an
    entry carries now (old ones are replaced, so running it twice changes nothing).
    """
    by_context: dict[str, PoEntry] = {}
    for e in old:
        if e.context is not None and (e.context not in by_context or by_context[e.context].obsolete):
            by_context[e.context] = e
    merged: list[CatalogEntry] = []
    seen: set[str] = set()
    for context, source in current:
        seen.add(context)
        prior = by_context.get(context)
        notes = comment_lines(prior.comments if prior else (), extracted(source) if extracted else ())
        if prior is None or not prior.msgstr:
            merged.append(CatalogEntry(context, source, comments=notes))
        elif prior.msgid == source and not prior.obsolete:
            merged.append(
                CatalogEntry(context, source, prior.msgstr, prior.fuzzy, prior.previous_msgid, comments=notes)
            )
        else:
            merged.append(
                CatalogEntry(context, source, prior.msgstr, fuzzy=True, previous_msgid=prior.msgid, comments=notes)
            )
    for context, e in by_context.items():
        if context not in seen and e.msgstr:
            # An obsolete entry keeps what a translator wrote; what the bank extracted no longer applies.
            notes = tuple(c for c in e.comments if not c.startswith(("#.", "#:")))
            merged.append(CatalogEntry(context, e.msgid, e.msgstr, e.fuzzy, obsolete=True, comments=notes))
    return merged
