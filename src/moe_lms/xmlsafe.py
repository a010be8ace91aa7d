"""Parsing XML that came from outside: no entities, no DTDs, no network, bounded size.

Every importer reads untrusted files through here, so a billion-laughs file or an external-entity fetch
is refused with a clear error instead of exhausting memory or leaking files.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import TypedDict

from lxml import etree

MAX_XML_BYTES = 64 * 1024 * 1024


class UnsafeXmlError(ValueError):
    """The XML is malformed, too large, or uses a feature we refuse (DTD, entities)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.message = message


# No entities, no DTD, no network, libxml2's size limits: for the whole-document and the streaming parser alike.
class _SafeOptions(TypedDict):
    resolve_entities: bool
    no_network: bool
    load_dtd: bool
    dtd_validation: bool
    huge_tree: bool
    remove_blank_text: bool


_SAFE = _SafeOptions(
    resolve_entities=False,
    no_network=True,
    load_dtd=False,
    dtd_validation=False,
    huge_tree=False,
    remove_blank_text=False,
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


def parse_untrusted(data: bytes, *, max_bytes: int = MAX_XML_BYTES) -> etree._Element:
    """Parse outside XML safely and return its root element."""
    _check_size(data, max_bytes)
    try:
        root = etree.fromstring(data, parser=_parser())
    except etree.XMLSyntaxError as exc:
        raise UnsafeXmlError(f"not well-formed XML: {exc.msg}", exc.lineno) from None
    tree = root.getroottree()
    if tree.docinfo.doctype or tree.docinfo.internalDTD is not None:
        raise UnsafeXmlError(_DOCTYPE_REFUSED, 1)
    _refuse_entities(root)
    return root


def iterparse_untrusted(data: bytes, *, max_bytes: int = MAX_XML_BYTES) -> Iterator[etree._Element]:
    """Parse outside XML safely, a piece at a time: the root element first, as soon as it starts (its tag and
    attributes are there, not its children), then each child of the root once it is complete.

    A child is emptied once the next one is asked for, so memory holds one child at a time instead of a tree
    about ten times the file's size. The refusals are those of :func:`parse_untrusted`.
    """
    _check_size(data, max_bytes)
    events = etree.iterparse(io.BytesIO(data), events=("start", "end"), **_SAFE)
    root: etree._Element | None = None
    depth = 0
    try:
        for event, element in events:
            if event == "start":
                depth += 1
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
