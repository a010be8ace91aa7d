"""Skeletons: XML of one shape built once with lxml, serialised once, then filled with escaped text per record.

A large export writes tens of thousands of elements of a handful of shapes (a QTI item with four choices, a
manifest resource, ...). Building each one element by element and serialising it costs far more than the text
it carries. A skeleton is the shape built with lxml, exactly as the element-by-element code builds it, but with
markers where the values go (:func:`slot` as an element's text or tail or as an attribute value, :func:`raw`
as text where a serialised XML fragment goes). It is serialised once by lxml and split at its markers;
:meth:`Skeleton.fill` joins the pieces with each value escaped exactly as libxml2 escapes it in that place, so
the bytes are those lxml would write for the same tree (tests/test_skeleton.py checks this for every
character XML can carry). A value XML 1.0 cannot carry raises ValueError, as lxml does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence

from lxml import etree

_SLOT = "\ue000"
_RAW = "\ue001"
_END = "\ue002"
_MARKER = re.compile(f"([{_SLOT}{_RAW}])([0-9]+){_END}")

# What libxml2 (2.14) writes as a reference, in element text and in attribute values; everything else is
# written as is (UTF-8). One regex each finds whether a value needs any work at all (most need none).
_TEXT_WORK = re.compile("[&<>\r\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_ATTRIBUTE_WORK = re.compile('[&<>"\r\n\t\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]')
NOT_XML = "All strings must be XML compatible: Unicode or ASCII, no NULL bytes or control characters"
# What lxml refuses to put in a tree (XML 1.0's Char production), and refuses here with its message. (The model
# refuses more, the C1 controls too: that is the bank's rule, checked when text comes in, not the writer's.)
_NOT_XML_CHARACTER = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def slot(index: int) -> str:
    """The marker of value ``index``, escaped for where it stands (text or attribute). It may stand in several
    places; each is escaped for its own."""
    return f"{_SLOT}{index}{_END}"


def raw(index: int) -> str:
    """The marker of value ``index`` as element text, where the value is XML serialised elsewhere by lxml (a
    filled skeleton or a serialised element), inserted as is."""
    return f"{_RAW}{index}{_END}"


def escape_text(value: str) -> str:
    """``value`` as libxml2 writes it as element text (UTF-8 output)."""
    if _TEXT_WORK.search(value) is None:
        return value
    if _NOT_XML_CHARACTER.search(value):
        raise ValueError(NOT_XML)
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;")


def escape_attribute(value: str) -> str:
    """``value`` as libxml2 writes it as an attribute value in double quotes (UTF-8 output)."""
    if _ATTRIBUTE_WORK.search(value) is None:
        return value
    if _NOT_XML_CHARACTER.search(value):
        raise ValueError(NOT_XML)
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    return value.replace("\r", "&#13;").replace("\n", "&#10;").replace("\t", "&#9;")


def cdata(value: str) -> str:
    """``value`` as libxml2 writes it as a CDATA section (UTF-8 output): a "]]>" in it ends one section after
    "]]" and starts the next with ">", as lxml writes ``etree.CDATA(value)``."""
    if _NOT_XML_CHARACTER.search(value):
        raise ValueError(NOT_XML)
    return "<![CDATA[" + value.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def xml_compatible(value: str) -> bool:
    """Whether XML 1.0 can carry every character of ``value`` (what lxml accepts in a tree)."""
    return _NOT_XML_CHARACTER.search(value) is None


def serialise(element: etree._Element, *, declaration: bool = False, pretty_print: bool = False) -> str:
    """The element as lxml writes it into a UTF-8 file (with the XML declaration if asked, indented if asked),
    as text."""
    data: bytes = etree.tostring(element, encoding="UTF-8", xml_declaration=declaration, pretty_print=pretty_print)
    return data.decode("utf-8")


def inner(holder: etree._Element) -> str:
    """What ``holder`` holds, serialised in its context (its namespace declarations apply, none are repeated):
    the way to serialise elements that belong inside a larger document."""
    text = serialise(holder)
    return text[text.index(">") + 1 : text.rindex("</")] if not text.endswith("/>") else ""


class Skeleton:
    """A serialised shape, split at its markers. ``fill(values)`` is the document with ``values[i]`` at the
    marker(s) of index ``i``."""

    def __init__(self, serialised: str, verbatim: Collection[int] = ()) -> None:
        """``verbatim``: indices of values that never hold a character XML escapes or refuses (ids, numbers,
        language tags), inserted as they are."""
        parts = _MARKER.split(serialised)
        # split() gives piece, kind, index, piece, kind, index, ..., piece
        pieces = parts[0::3]
        self._template: list[str] = [""] * (2 * len(pieces) - 1)
        self._template[0::2] = pieces
        self._plan: list[tuple[Callable[[str], str] | None, int]] = []
        in_tag = False
        for n, (kind, index) in enumerate(zip(parts[1::3], parts[2::3], strict=True)):
            opened, closed = pieces[n].rfind("<"), pieces[n].rfind(">")
            if opened != closed:  # otherwise the piece is all inside one tag or one text: the state carries over
                in_tag = opened > closed
            if kind == _RAW and in_tag:
                raise ValueError("a raw marker stands in an attribute")
            escape = None if kind == _RAW or int(index) in verbatim else escape_attribute if in_tag else escape_text
            self._plan.append((escape, int(index)))
        self._template_bytes = [piece.encode("utf-8") for piece in self._template]

    @classmethod
    def of(
        cls,
        element: etree._Element,
        *,
        declaration: bool = False,
        verbatim: Collection[int] = (),
        pretty_print: bool = False,
    ) -> Skeleton:
        """The skeleton of ``element`` serialised (``pretty_print``: indented as lxml indents it; an element whose
        content is a marker is indented as one holding text, which is what it holds once filled)."""
        return cls(serialise(element, declaration=declaration, pretty_print=pretty_print), verbatim)

    @classmethod
    def inside(cls, holder: etree._Element, verbatim: Collection[int] = ()) -> Skeleton:
        """The skeleton of what ``holder`` holds (see :func:`inner`)."""
        return cls(inner(holder), verbatim)

    def fill(self, values: Sequence[str]) -> str:
        return "".join(self._parts(values))

    def fill_bytes(self, values: Sequence[str]) -> bytes:
        """:meth:`fill` encoded in UTF-8, cheaper than encoding it (the pieces are encoded once, and a document
        with one character beyond Latin-1 is no longer copied as a wide string)."""
        parts = self._template_bytes.copy()
        parts[1::2] = [(values[i] if escape is None else escape(values[i])).encode("utf-8") for escape, i in self._plan]
        return b"".join(parts)

    def _parts(self, values: Sequence[str]) -> list[str]:
        parts = self._template.copy()
        parts[1::2] = [values[i] if escape is None else escape(values[i]) for escape, i in self._plan]
        return parts

    def around(self, values: Sequence[str], index: int) -> tuple[str, str]:
        """The document before and after the one marker of index ``index`` (the others filled with ``values``),
        for a document whose middle is streamed."""
        (position,) = [2 * n + 1 for n, (_, i) in enumerate(self._plan) if i == index]
        parts = self._parts(values)
        return "".join(parts[:position]), "".join(parts[position + 1 :])
