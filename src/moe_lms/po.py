"""Gettext PO catalogs: the translators' side of a bank.

Writing goes through Babel, so the files are what Poedit, Weblate and Crowdin expect. Reading is a small
parser of our own because every error must name its line, which Babel's reader does not keep, and because
it reads a 100,000-entry catalog about four times faster (bench/load_bank.py).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

# Fixed so that the same translations always give byte-identical files (no timestamps in diffs).
_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


class PoSyntaxError(ValueError):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass
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
    entries: list[PoEntry] = []
    header: dict[str, str] = {}
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
            if context is None and msgid == "" and not obsolete and not entries and not header:
                for raw in entry.msgstr.splitlines():
                    key, sep, value = raw.partition(":")
                    if sep:
                        header[key.strip()] = value.strip()
            else:
                entries.append(entry)
        elif fields or previous:
            raise PoSyntaxError(start, "entry has no msgid")
        fields, previous, flags, comments, start, obsolete, current = {}, {}, [], [], 0, False, None

    for number, raw in enumerate(text.splitlines(), start=1):
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
            start = start or number
            previous[keyword] = current = [_unquote(rest, number)]
            continue
        if line.startswith("#"):
            if "msgid" in fields and "msgstr" in fields:
                finish()
            start = start or number
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
    return PoFile(header=header, entries=entries)


@dataclass(frozen=True)
class CatalogEntry:
    """One string to write: its path (msgctxt), source (msgid), translation and state."""

    context: str
    msgid: str
    msgstr: str = ""
    fuzzy: bool = False
    previous_msgid: str | None = None
    obsolete: bool = False


def write_catalog(
    entries: Iterable[CatalogEntry], *, locale: str, project: str, language_team: str | None = None
) -> bytes:
    """Render a PO file with Babel, deterministically (fixed dates, entries in the order given)."""
    catalog = Catalog(
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

            catalog.obsolete[(e.msgid, e.context)] = Message(
                e.msgid, e.msgstr, flags=flags, context=e.context, previous_id=previous_id
            )
        else:
            catalog.add(e.msgid, e.msgstr, flags=flags, context=e.context, previous_id=previous_id)
    buf = io.BytesIO()
    write_po(buf, catalog, width=0, include_previous=True, sort_output=False, omit_header=False)
    return buf.getvalue()


def merge(old: Iterable[PoEntry], current: Iterable[tuple[str, str]]) -> list[CatalogEntry]:
    """Re-sync a catalog with the source strings, as msgmerge does.

    New strings come in empty; a string whose source changed keeps its old translation, marked fuzzy with
    the previous msgid so translators see what changed; strings the bank no longer has become obsolete.
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
        if prior is None or not prior.msgstr:
            merged.append(CatalogEntry(context, source))
        elif prior.msgid == source and not prior.obsolete:
            merged.append(CatalogEntry(context, source, prior.msgstr, prior.fuzzy, prior.previous_msgid))
        else:
            merged.append(CatalogEntry(context, source, prior.msgstr, fuzzy=True, previous_msgid=prior.msgid))
    for context, e in by_context.items():
        if context not in seen and e.msgstr:
            merged.append(CatalogEntry(context, e.msgid, e.msgstr, e.fuzzy, obsolete=True))
    return merged
