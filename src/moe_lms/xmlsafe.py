"""Parsing XML that came from outside: no entities, no DTDs, no network, bounded size.

Every importer reads untrusted files through here, so a billion-laughs file or an external-entity fetch
is refused with a clear error instead of exhausting memory or leaking files.
"""

from __future__ import annotations

from lxml import etree

MAX_XML_BYTES = 64 * 1024 * 1024


class UnsafeXmlError(ValueError):
    """The XML is malformed, too large, or uses a feature we refuse (DTD, entities)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.message = message


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_blank_text=False,
    )


def parse_untrusted(data: bytes, *, max_bytes: int = MAX_XML_BYTES) -> etree._Element:
    """Parse outside XML safely and return its root element."""
    if len(data) > max_bytes:
        raise UnsafeXmlError(f"document is {len(data):,} bytes; the limit is {max_bytes:,}")
    try:
        root = etree.fromstring(data, parser=_parser())
    except etree.XMLSyntaxError as exc:
        raise UnsafeXmlError(f"not well-formed XML: {exc.msg}", exc.lineno) from None
    tree = root.getroottree()
    if tree.docinfo.doctype or tree.docinfo.internalDTD is not None:
        raise UnsafeXmlError("documents with a DOCTYPE are refused (entities and DTDs are not allowed)", 1)
    for element in root.iter(etree.Entity):
        raise UnsafeXmlError(f"entity reference {element.text} is refused", element.sourceline)
    return root
