"""Rendered HTML (text.py's allow-list) into the XHTML subset QTI items carry, for QTI 2.1 and QTI 3 alike.

The two versions differ only in their vocabulary: the namespace, and how a direction is said (QTI 2.1 has no
``dir`` attribute, so ``dir`` becomes a ``moe-rtl``/``moe-ltr`` class; QTI 3 keeps ``dir``). Both make ``u``,
``s``, ``bdi`` and ``bdo`` spans with a class (see the QTI 2.1 package's CSS; QTI 3's profile lets bdi and bdo hold
text only, and richtext isolates math in a bdi), ``lang`` becomes ``xml:lang``, attributes QTI does not know
(title, start, rel) are dropped, and math is MathML with its LaTeX as an annotation.

:func:`append_fragment` is the shell every XML writer of rendered HTML shares (OLX's too, with its own copy rule).
This module must not know items, tests or packages: it converts one fragment at a time.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import lxml.html
from lxml import etree

from ...richtext import mathml

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
QTI_HTML = frozenset(
    {
        "p", "br", "strong", "em", "b", "i", "sub", "sup", "code", "pre", "kbd", "blockquote", "ul", "ol", "li",
        "a", "span", "div", "table", "thead", "tbody", "tr", "th", "td", "hr", "h3", "h4", "h5", "h6", "img",
    }
)  # fmt: skip
AS_SPAN = {"u": "moe-u", "s": "moe-s", "bdi": "moe-bdi", "bdo": "moe-bdo"}
FROM_SPAN = {v: k for k, v in AS_SPAN.items()}
VOID = frozenset({"br", "hr", "img"})
# A rendered text that is one paragraph of plain text (the common case) skips the HTML parser.
ONE_PARAGRAPH = re.compile(r"^<p>([^<]*)</p>$")
_LENGTH = re.compile(r"^[0-9]+%?$")
_INTEGER = re.compile(r"^[0-9]+$")
_LANGUAGE = re.compile(r"^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$")
_CODE_LANGUAGE = re.compile(r"language-[\w+#.-]+")  # a fenced block's language (richtext.py)
_ATTRIBUTES: dict[str, tuple[tuple[str, re.Pattern[str] | None], ...]] = {
    "a": (("href", None),),
    "img": (("src", None), ("alt", None), ("width", _LENGTH), ("height", _LENGTH)),
    "td": (("colspan", _INTEGER), ("rowspan", _INTEGER)),
    "th": (("colspan", _INTEGER), ("rowspan", _INTEGER)),
}

Convert = Callable[[etree._Element, etree._Element], None]


def add_text(parent: etree._Element, text: str | None) -> None:
    """Append text after what ``parent`` holds (the last child's tail, or its own text)."""
    if not text:
        return
    if len(parent):
        last = parent[-1]
        last.tail = (last.tail or "") + text
    else:
        parent.text = (parent.text or "") + text


def inherited_lang(element: etree._Element) -> str | None:
    """The ``xml:lang`` in force at ``element``: its own, else its nearest ancestor's."""
    node: etree._Element | None = element
    while node is not None:
        lang = node.get(XML_LANG)
        if lang:
            return lang
        node = node.getparent()
    return None


def append_fragment(parent: etree._Element, fragment: str, convert: Convert, paragraph: str) -> None:
    """Append a rendered HTML fragment to ``parent``, each parsed element through ``convert``. Plain text and one
    plain paragraph (``paragraph`` is the target's tag for it) skip the HTML parser. Raises ValueError for
    characters XML cannot carry."""
    if "<" not in fragment:
        add_text(parent, html.unescape(fragment))
        return
    simple = ONE_PARAGRAPH.match(fragment)
    if simple:
        etree.SubElement(parent, paragraph).text = html.unescape(simple.group(1))
        return
    holder = lxml.html.fragment_fromstring(fragment, create_parent="div")
    add_text(parent, holder.text)
    for child in holder:
        convert(child, parent)


class QtiXhtml:
    """The converter for one QTI version: ``namespace`` its elements', ``direction_as_class`` whether ``dir``
    becomes a class (QTI 2.1) or stays an attribute (QTI 3), ``kept_classes`` the classes of the rendering it
    keeps (besides a fenced block's language), for its package's CSS."""

    def __init__(self, namespace: str, *, direction_as_class: bool, kept_classes: frozenset[str] = frozenset()) -> None:
        self._prefix = f"{{{namespace}}}"
        self._paragraph = f"{self._prefix}p"
        self._direction_as_class = direction_as_class
        self._kept_classes = kept_classes

    def append(self, parent: etree._Element, fragment: str) -> None:
        """Append sanitised HTML from :mod:`moe_lms.text` to a QTI element as QTI XHTML (ValueError for characters
        XML cannot carry)."""
        append_fragment(parent, fragment, self._convert, self._paragraph)

    def _convert(self, source: etree._Element, parent: etree._Element) -> None:
        """Append a copy of one parsed HTML element (and what it holds) to ``parent`` as QTI XHTML."""
        tag = source.tag if isinstance(source.tag, str) else ""
        if not tag:  # a comment or processing instruction: keep only the text after it
            add_text(parent, source.tail)
            return
        if tag == "math":  # richtext.mathml's own formula: made again from its LaTeX, in the MathML namespace
            annotation = source.find(".//annotation")
            latex = annotation.text if annotation is not None and annotation.text else ""
            formula = etree.fromstring(mathml(latex, display=source.get("display") == "block"))
            formula.tail = source.tail
            parent.append(formula)
            return
        classes = []
        if tag in AS_SPAN:
            classes.append(AS_SPAN[tag])
            tag = "span"
        elif tag not in QTI_HTML or (tag == "a" and not source.get("href")):
            tag = "span"
        element = etree.SubElement(parent, self._prefix + tag)
        for name, pattern in _ATTRIBUTES.get(tag, ()):
            value = source.get(name)
            if name == "alt" and value is None:
                value = ""  # QTI requires alt
            if value is not None and (pattern is None or pattern.match(value)):
                element.set(name, value)
        lang = source.get("lang")
        if lang and _LANGUAGE.match(lang):
            element.set(XML_LANG, lang)
        direction = source.get("dir")
        if direction in ("rtl", "ltr"):
            if self._direction_as_class:
                classes.append(f"moe-{direction}")
            else:
                element.set("dir", direction)
        language = source.get("class") or ""
        if (tag == "code" and _CODE_LANGUAGE.fullmatch(language)) or language in self._kept_classes:
            classes.append(language)
        if classes:
            element.set("class", " ".join(classes))
        element.text = source.text
        for child in source:
            self._convert(child, element)
        element.tail = source.tail
