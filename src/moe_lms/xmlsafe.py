"""Parsing XML that came from outside: no entities, no DTDs, no network, bounded size.

Every importer reads untrusted files through here, so a billion-laughs file or an external-entity fetch
is refused with a clear error instead of exhausting memory or leaking files.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypedDict

from lxml import etree

from .problems import MoeLmsError

MAX_XML_BYTES = 64 * 1024 * 1024


class UnsafeXmlError(MoeLmsError, ValueError):
    """The XML is malformed, too large, or uses a feature we refuse (DTD, entities)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.message = message


# No entities, no DTD, no network, libxml2's size limits: for the whole-document and the streaming parser alike.
# Comments and processing instructions are not content: dropping them at parse time keeps the text on both sides
# of one as one text (a reader taking an element's .text would otherwise lose what follows a comment).
class _SafeOptions(TypedDict):
    resolve_entities: bool
    no_network: bool
    load_dtd: bool
    dtd_validation: bool
    huge_tree: bool
    remove_blank_text: bool
    remove_comments: bool
    remove_pis: bool


_SAFE = _SafeOptions(
    resolve_entities=False,
    no_network=True,
    load_dtd=False,
    dtd_validation=False,
    huge_tree=False,
    remove_blank_text=False,
    remove_comments=True,
    remove_pis=True,
)


def _parser() -> etree.XMLParser:
    return etree.XMLParser(**_SAFE)


_DOCTYPE_REFUSED = "documents with a DOCTYPE are refused (entities and DTDs are not allowed)"


def _check_size(data: bytes, max_bytes: int) -> None:
    if len(data) > max_bytes:
        raise UnsafeXmlError(f"document is {len(data):,} bytes; the limit is {max_bytes:,}")


def _refuse_entities(element: etree._Element) -> None:
    for entity in element.iter(etree.Entity):
        raise UnsafeXmlError(f"entity reference {entity.text} is refused", entity.sourceline)


@dataclass(frozen=True)
class Budget:
    """How much of a document is parsed before it is refused: a file's byte size says little about the memory its
    tree takes (a 40 KB zip member of two million ``<p/>`` becomes gigabytes once parsed and converted), so the
    parse counts elements and nesting as it goes and stops at the first one over."""

    max_elements: int
    max_depth: int


def parse_untrusted(
    data: bytes, *, max_bytes: int = MAX_XML_BYTES, budget: Budget | None = None, keep_comments_and_pis: bool = False
) -> etree._Element:
    """Parse outside XML safely and return its root element; with ``budget``, refuse a document with more
    elements or deeper nesting than it allows, as soon as the parser reaches the first one too many. With
    ``keep_comments_and_pis`` (for a check of them: media.check_svg), comments and processing instructions stay."""
    _check_size(data, max_bytes)
    try:
        if keep_comments_and_pis:
            options = _SafeOptions(**{**_SAFE, "remove_comments": False, "remove_pis": False})
            parser = etree.XMLParser(**options)
            root = etree.fromstring(data, parser=parser) if budget is None else _parse_within(data, budget)
        else:
            root = etree.fromstring(data, parser=_parser()) if budget is None else _parse_within(data, budget)
    except etree.XMLSyntaxError as exc:
        raise UnsafeXmlError(f"not well-formed XML: {exc.msg}", exc.lineno) from None
    tree = root.getroottree()
    if tree.docinfo.doctype or tree.docinfo.internalDTD is not None:
        raise UnsafeXmlError(_DOCTYPE_REFUSED, 1)
    _refuse_entities(root)
    return root


def _parse_within(data: bytes, budget: Budget) -> etree._Element:
    events = etree.iterparse(io.BytesIO(data), events=("start", "end"), **_SAFE)
    elements = depth = 0
    root: etree._Element | None = None
    for event, element in events:
        if event == "end":
            depth -= 1
            continue
        if root is None:
            root = element
        elements += 1
        depth += 1
        if elements > budget.max_elements:
            raise UnsafeXmlError(f"more than {budget.max_elements:,} elements; refused", element.sourceline)
        if depth > budget.max_depth:
            raise UnsafeXmlError(f"elements nested more than {budget.max_depth} deep; refused", element.sourceline)
    if root is None:
        raise UnsafeXmlError("not well-formed XML: the document is empty", 1)
    return root


def iterparse_untrusted(
    data: bytes, *, max_bytes: int = MAX_XML_BYTES, budget: Budget | None = None
) -> Iterator[etree._Element]:
    """Parse outside XML safely, a piece at a time: the root element first, as soon as it starts (its tag and
    attributes are there, not its children), then each child of the root once it is complete.

    A child is emptied once the next one is asked for, so memory holds one child at a time instead of a tree
    about ten times the file's size. The refusals are those of :func:`parse_untrusted`; ``budget`` bounds each
    child of the root (its elements, and the nesting below the root), refused as soon as the parser passes it.
    """
    _check_size(data, max_bytes)
    events = etree.iterparse(io.BytesIO(data), events=("start", "end"), **_SAFE)
    root: etree._Element | None = None
    depth = 0
    elements = 0  # of the child of the root being read, ``child``
    child = etree.Element("none")  # replaced by the first child of the root
    try:
        for event, element in events:
            if event == "start":
                depth += 1
                if budget is not None and root is not None:
                    if depth == 2:
                        elements, child = 0, element
                    elements += 1
                    if elements > budget.max_elements:
                        message = (
                            f"<{child.tag!s}> at line {child.sourceline} has more than {budget.max_elements:,} elements"
                        )
                        raise UnsafeXmlError(f"{message}; refused", element.sourceline)
                    if depth - 1 > budget.max_depth:
                        message = f"elements nested more than {budget.max_depth} deep; refused"
                        raise UnsafeXmlError(message, element.sourceline)
                if root is None:
                    root = element
                    docinfo = element.getroottree().docinfo
                    if docinfo.doctype or docinfo.internalDTD is not None:
                        raise UnsafeXmlError(_DOCTYPE_REFUSED, 1)
                    yield root
                continue
            depth -= 1
            if depth == 1 and root is not None:
                _refuse_entities(element)
                yield element
                element.clear()
                while element.getprevious() is not None:  # only finished siblings: the parser may be ahead
                    del root[0]
    except etree.XMLSyntaxError as exc:
        raise UnsafeXmlError(f"not well-formed XML: {exc.msg}", exc.lineno) from None
    if root is None:
        raise UnsafeXmlError("not well-formed XML: the document is empty", 1)
    _refuse_entities(root)
