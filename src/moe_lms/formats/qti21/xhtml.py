"""Rendered HTML to and from QTI 2.1's XHTML subset (:func:`append_html`, :func:`_html_of`).

text.py's allow-list, less what QTI 2.1 lacks: ``u``, ``s``, ``bdi`` and ``bdo`` become spans with a class (see
the package's CSS), ``dir`` becomes a class, ``lang`` becomes ``xml:lang``, and attributes QTI does not know are
dropped; math is MathML with its LaTeX as an annotation.

This module must not know items, tests or packages: it converts one fragment at a time.
"""

from __future__ import annotations

import copy
import html
import re

import lxml.html
from lxml import etree

from ...richtext import (
    MATHML_NS,
    NOWRAP_CLASS,
    TEX_ANNOTATION,
    mathml,
)
from ..qti_item import ONE_PARAGRAPH
from .names import XML_LANG, _q

# text.py's allow-list, less what QTI 2.1 lacks: u, s, bdi and bdo become spans with a class (see the CSS),
# dir becomes a class, lang becomes xml:lang, and attributes QTI does not know (title, start, rel) are dropped.
_QTI_HTML = frozenset(
    {
        "p", "br", "strong", "em", "b", "i", "sub", "sup", "code", "pre", "kbd", "blockquote", "ul", "ol", "li",
        "a", "span", "div", "table", "thead", "tbody", "tr", "th", "td", "hr", "h3", "h4", "h5", "h6", "img",
    }
)  # fmt: skip
_AS_SPAN = {"u": "moe-u", "s": "moe-s", "bdi": "moe-bdi", "bdo": "moe-bdo"}
_FROM_SPAN = {v: k for k, v in _AS_SPAN.items()}
_VOID = frozenset({"br", "hr", "img"})
# ASCII punctuation Markdown may read as syntax, except & < > which leave as entities (&amp; &lt; &gt;).
_LENGTH = re.compile(r"^[0-9]+%?$")
_INTEGER = re.compile(r"^[0-9]+$")
_LANGUAGE = re.compile(r"^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$")
_ATTRIBUTES: dict[str, tuple[tuple[str, re.Pattern[str] | None], ...]] = {
    "a": (("href", None),),
    "img": (("src", None), ("alt", None), ("width", _LENGTH), ("height", _LENGTH)),
    "td": (("colspan", _INTEGER), ("rowspan", _INTEGER)),
    "th": (("colspan", _INTEGER), ("rowspan", _INTEGER)),
}


def _add_text(parent: etree._Element, text: str | None) -> None:
    if not text:
        return
    if len(parent):
        last = parent[-1]
        last.tail = (last.tail or "") + text
    else:
        parent.text = (parent.text or "") + text


def _convert(source: etree._Element, parent: etree._Element) -> None:
    """Append a copy of one parsed HTML element (and what it holds) to ``parent`` as QTI XHTML."""
    tag = source.tag if isinstance(source.tag, str) else ""
    if not tag:  # a comment or processing instruction: keep only the text after it
        _add_text(parent, source.tail)
        return
    if tag == "math":  # rich.mathml's own formula: made again from its LaTeX, in the MathML namespace
        annotation = source.find(".//annotation")
        latex = annotation.text if annotation is not None and annotation.text else ""
        formula = etree.fromstring(mathml(latex, display=source.get("display") == "block"))
        formula.tail = source.tail
        parent.append(formula)
        return
    classes = []
    if tag in _AS_SPAN:
        classes.append(_AS_SPAN[tag])
        tag = "span"
    elif tag not in _QTI_HTML or (tag == "a" and not source.get("href")):
        tag = "span"
    element = etree.SubElement(parent, _q(tag))
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
        classes.append(f"moe-{direction}")
    language = source.get("class") or ""
    # a fenced block's language, or a short isolate kept on one line (richtext.py)
    if (tag == "code" and re.fullmatch(r"language-[\w+#.-]+", language)) or language == NOWRAP_CLASS:
        classes.append(language)
    if classes:
        element.set("class", " ".join(classes))
    element.text = source.text
    for child in source:
        _convert(child, element)
    element.tail = source.tail


def append_html(parent: etree._Element, fragment: str) -> None:
    """Append sanitised HTML from :mod:`moe_lms.text` to a QTI element as QTI 2.1's XHTML subset.

    Plain text (the common case) skips the HTML parser. Raises ValueError for characters XML cannot carry.
    """
    if "<" not in fragment:
        _add_text(parent, html.unescape(fragment))
        return
    simple = ONE_PARAGRAPH.match(fragment)
    if simple:
        etree.SubElement(parent, _q("p")).text = html.unescape(simple.group(1))
        return
    holder = lxml.html.fragment_fromstring(fragment, create_parent="div")
    _add_text(parent, holder.text)
    for child in holder:
        _convert(child, parent)


def _html_of(container: etree._Element) -> str:
    """The content of a QTI element as plain HTML (for Markdown conversion), undoing :func:`append_html`.
    A MathML formula becomes its LaTeX between \\( \\) or \\[ \\] (see rich.markdown_from_rich_html)."""
    if container.find(f".//{{{MATHML_NS}}}math") is not None:
        container = _tex_for_math(container)
    holder = etree.Element("div")
    holder.text = container.text
    for child in container:
        if isinstance(child.tag, str):
            holder.append(_plain_copy(child))
        elif child.tail:
            _add_text(holder, child.tail)
    parts = [html.escape(holder.text or "", quote=False)]
    # XML syntax with explicit end tags: the HTML serialiser drops optional ones (</li>), which reparses differently.
    parts.extend(etree.tostring(child, encoding="unicode") for child in holder)
    return "".join(parts).strip()


def _tex_for_math(container: etree._Element) -> etree._Element:
    """A copy of ``container`` with each MathML formula replaced by its LaTeX (the annotation moe-lms writes; else
    the formula's text)."""
    clone = copy.deepcopy(container)
    for formula in list(clone.iter(f"{{{MATHML_NS}}}math")):
        annotation = formula.find(f".//{{{MATHML_NS}}}annotation[@encoding='{TEX_ANNOTATION}']")
        latex = annotation.text if annotation is not None and annotation.text else "".join(formula.itertext())
        display = formula.get("display") == "block"
        text = (f"\\[{latex}\\]" if display else f"\\({latex}\\)") + (formula.tail or "")
        parent = formula.getparent()
        assert parent is not None
        previous = formula.getprevious()
        parent.remove(formula)  # (lxml moves the tail with the element)
        if previous is not None:
            previous.tail = (previous.tail or "") + text
        else:
            parent.text = (parent.text or "") + text
    return clone


def _plain_copy(element: etree._Element) -> etree._Element:
    tag = etree.QName(element).localname
    classes = (element.get("class") or "").split()
    for cls in classes:
        if cls in _FROM_SPAN and tag == "span":
            tag = _FROM_SPAN[cls]
    copy = etree.Element(tag)
    for name, value in element.attrib.items():
        if name == XML_LANG:
            copy.set("lang", value)
        elif "{" not in name and name != "class":
            copy.set(name, value)
    for cls in classes:
        if cls in ("moe-rtl", "moe-ltr"):
            copy.set("dir", cls[4:])
        elif cls.startswith("language-") and tag == "code":
            copy.set("class", cls)
    copy.text = element.text if element.text or tag in _VOID else ""  # "" keeps <li></li> from becoming <li/>
    for child in element:
        if isinstance(child.tag, str):
            copy.append(_plain_copy(child))
        else:
            _add_text(copy, child.tail)
    copy.tail = element.tail
    return copy
