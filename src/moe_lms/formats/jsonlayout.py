"""JSON documents of one shape, written many times with different values: the bytes ``json.dumps`` writes.

``json.dumps`` with ``indent`` runs Python's pure-Python encoder (the C encoder only runs without indent), which
was most of the Canvas export's time (issue 29, docs/design/speed.md: 10,000 classic-quiz bodies take 0.16 s
this way, 0.71 s through ``json.dumps``; no Canvas floor covers it yet, so whether it stays is open there). A
:class:`Layout` instead serialises its skeleton once per place in a document, with a placeholder where each
named value goes, and keeps the UTF-8 text around them; each document
then costs one escaping per value (``json.encoder.encode_basestring``, the C function ``json.dumps`` with
``ensure_ascii=False`` uses for every string) and one ``bytes.join``. (``str.format`` of such a template scans it
character by character on every call, which cost more than the values.) A property test holds the result equal
to ``json.dumps`` of the filled skeleton, encoded, for any skeleton and any values.

A skeleton is JSON data (dicts with str keys, lists, str, int, float, bool, None) where a :class:`Slot` stands
for a value filled in later. A slot may also be a dict key: a dict whose keys are slots has only slot keys, and
is filled with keys that sort (as ``sort_keys`` sorts them) in the order of their slots' names.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

_escape = json.encoder.encode_basestring  # (ensure_ascii=False; C when _json is there, as in CPython)

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A placeholder as json.dumps writes it: the slot's name between two NULs (a NUL is always written \u0000).
_PLACEHOLDER = re.compile(r'"\\u0000([A-Za-z_][A-Za-z0-9_]*)\\u0000"')


def encode_string(text: str) -> bytes:
    """``text`` as json.dumps(ensure_ascii=False) writes it, in UTF-8."""
    return _escape(text).encode()


@dataclass(frozen=True)
class Slot:
    """A value of a skeleton, filled per document from a mapping of names to values."""

    name: str

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise ValueError(f"a slot's name is an identifier: {self.name!r}")


def token(value: Any) -> bytes:
    """``value`` (a str, int, float, bool or None) as json.dumps writes it, in UTF-8."""
    kind = type(value)
    if kind is str:
        return _escape(value).encode()
    if kind is bool:
        return b"true" if value else b"false"
    if kind is int:
        return int.__repr__(value).encode()
    if kind is float and math.isfinite(value):
        return float.__repr__(value).encode()
    return json.dumps(value).encode()  # None, NaN, the infinities, subclasses: json's own spelling


def tokens(values: Mapping[str, Any]) -> dict[str, bytes]:
    """Every value as json.dumps writes it, by name."""
    return {name: token(value) for name, value in values.items()}


def _placeheld(skeleton: Any) -> Any:
    """The skeleton with each slot a placeholder string (which no constant may look like)."""
    if isinstance(skeleton, Slot):
        return f"\0{skeleton.name}\0"
    if isinstance(skeleton, dict):
        slots = [key for key in skeleton if isinstance(key, Slot)]
        if slots and (len(slots) != len(skeleton) or [s.name for s in slots] != sorted(s.name for s in slots)):
            raise ValueError("a dict with slot keys has only slot keys, in the order of their names")
        return {_placeheld(key): _placeheld(value) for key, value in skeleton.items()}
    if isinstance(skeleton, list):
        return [_placeheld(item) for item in skeleton]
    if isinstance(skeleton, str) and "\0" in skeleton:
        raise ValueError("a skeleton's constant string holds no NUL (placeholders are made of them)")
    return skeleton


class Template:
    """The bytes of a skeleton's JSON around its slots; :meth:`fill` puts a document together."""

    __slots__ = ("_frame", "_values", "names")

    def __init__(self, text: str) -> None:
        """``text``: the JSON with each slot its placeholder."""
        parts = _PLACEHOLDER.split(text)  # text, name, text, name, …, text
        self.names = tuple(parts[1::2])
        self._frame: list[bytes] = [part.encode() for part in parts]  # (a name's place is overwritten)
        names = self.names
        self._values: Callable[[Mapping[str, bytes]], Sequence[bytes]] = (
            itemgetter(*names) if len(names) > 1 else lambda tokens: [tokens[name] for name in names]
        )

    def fill(self, tokens: Mapping[str, bytes]) -> bytes:
        """The document with each slot its token (see :func:`tokens`)."""
        frame = self._frame.copy()
        frame[1::2] = self._values(tokens)
        return b"".join(frame)


def template(skeleton: Any, *, indent: int | None = None, level: int = 0, compact: bool = False) -> Template:
    """The template of ``json.dumps(skeleton, ensure_ascii=False, sort_keys=True, indent=indent)``
    (``separators=(",", ":")`` when ``compact``), every line after the first indented ``level`` more levels (as
    the document it sits in is indented)."""
    separators = (",", ":") if compact else None
    text = json.dumps(_placeheld(skeleton), ensure_ascii=False, sort_keys=True, indent=indent, separators=separators)
    if indent is not None and level:
        text = text.replace("\n", "\n" + " " * indent * level)  # (JSON strings never hold a raw newline)
    return Template(text)


def fill(skeleton: Any, values: Mapping[str, Any]) -> Any:
    """The skeleton with each slot its value (new containers throughout)."""
    if isinstance(skeleton, Slot):
        return values[skeleton.name]
    if isinstance(skeleton, dict):
        return {fill(key, values): fill(value, values) for key, value in skeleton.items()}
    if isinstance(skeleton, list):
        return [fill(item, values) for item in skeleton]
    return skeleton


@dataclass(frozen=True)
class Layout:
    """One shape of document: its skeleton, and its template at each indent and level asked for (made once)."""

    skeleton: Any
    _templates: dict[tuple[int | None, int, bool], Template] = field(default_factory=dict, compare=False, repr=False)

    def template(self, *, indent: int | None = None, level: int = 0, compact: bool = False) -> Template:
        key = (indent, level, compact)
        made = self._templates.get(key)
        if made is None:
            made = self._templates[key] = template(self.skeleton, indent=indent, level=level, compact=compact)
        return made

    def dumps(self, values: Mapping[str, Any], *, indent: int | None = None, level: int = 0) -> bytes:
        """``json.dumps(fill(skeleton, values), ensure_ascii=False, sort_keys=True, indent=indent)``, encoded."""
        return self.template(indent=indent, level=level).fill(tokens(values))
