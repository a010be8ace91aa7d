"""Rendered HTML to and from QTI 2.1's XHTML subset (:func:`append_html`, :func:`html_of`).

Writing is :class:`..ims.xhtml.QtiXhtml` in QTI 2.1's vocabulary (``dir`` becomes a class); reading undoes it.

This module must not know items, tests or packages: it converts one fragment at a time.
"""

from __future__ import annotations

import copy
import html

from lxml import etree

from ...richtext import MATHML_NS, NOWRAP_CLASS, TEX_ANNOTATION
from ..ims.xhtml import FROM_SPAN, VOID, QtiXhtml, add_text
from .names import QTI, XML_LANG

# QTI 2.1 has no dir attribute: a direction is a class; a short isolate kept on one line keeps its class (richtext.py)
_QTI21 = QtiXhtml(QTI, direction_as_class=True, kept_classes=frozenset({NOWRAP_CLASS}))
append_html = _QTI21.append


def html_of(container: etree._Element) -> str:
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
            add_text(holder, child.tail)
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
        if cls in FROM_SPAN and tag == "span":
            tag = FROM_SPAN[cls]
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
    copy.text = element.text if element.text or tag in VOID else ""  # "" keeps <li></li> from becoming <li/>
    for child in element:
        if isinstance(child.tag, str):
            copy.append(_plain_copy(child))
        else:
            add_text(copy, child.tail)
    copy.tail = element.tail
    return copy
