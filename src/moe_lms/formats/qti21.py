"""QTI 2.1 content packages (IMS CP 1.1 zip), both directions: export, semantic checks, import.

A package holds one ``assessmentItem`` per question per locale, one ``assessmentTest`` per locale and a
stylesheet that gives right-to-left languages their direction (QTI 2.1 has no ``dir`` attribute). Items
carry their own responseProcessing: the standard ``match_correct`` template sets only SCORE, so feedback bound
to FEEDBACK would never show; ours sets SCORE and adds the chosen choice(s) and ``general_explanation`` to
FEEDBACK.

Everything that leaves is built with lxml and streamed into a deterministic zip (sorted entries, fixed
timestamps and permissions, no seeking). Everything that comes in is read through :mod:`moe_lms.xmlsafe`
with limits on file count and sizes, declared and actual.
"""

from __future__ import annotations

import copy
import heapq
import html
import itertools
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import BinaryIO, NamedTuple, Protocol, TypeVar

import lxml.html
from lxml import etree

from .. import __version__
from ..bulk import gc_paused
from ..locales import LocalizedView, Resolved, locale_info, resolve
from ..media import bank_texts, image_references, media_of, packaged_media
from ..model import XML_ILLEGAL, Bank, Kind, MediaItem, Question, Translation
from ..problems import Problem, ProblemsFound, Severity
from ..richtext import (
    MATHML_NS,
    TEX_ANNOTATION,
    Profile,
    markdown_from_rich_html,
    mathml,
    plain_text,
    render_block,
    render_inline,
    rendering,
)
from ..schemas import Schemas
from ..skeleton import Skeleton, inner, raw, slot
from ..text import renders_as_itself, visible_text
from ..translations import PackedCatalog
from ..unrender import markdown_from_html
from ..xmlsafe import UnsafeXmlError
from ..zipout import ZipStream
from ..zipsafe import MAX_FILES, SafeZip, UnsafePackage, resolve_href
from . import ExportOptions, Format
from .imported import ParsedChoice, ParsedItem, number, question_of, same_lang, slug, translate, validated_bank

# --- names ---------------------------------------------------------------------------------------------------

QTI = "http://www.imsglobal.org/xsd/imsqti_v2p1"
QTI_XSD_URL = "http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1.xsd"
CP = "http://www.imsglobal.org/xsd/imscp_v1p1"
CP_XSD_URL = "http://www.imsglobal.org/xsd/imscp_v1p1.xsd"
LOM = "http://ltsc.ieee.org/xsd/LOM"
LOM_XSD_URL = "http://www.imsglobal.org/xsd/imsmd_loose_v1p3p2.xsd"
QTI_MD = "http://www.imsglobal.org/xsd/imsqti_metadata_v2p1"
QTI_MD_XSD_URL = "http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_metadata_v2p1.xsd"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
SCHEMA_LOCATION = f"{{{XSI}}}schemaLocation"

# Canvas treats a package as QTI 2 only if the manifest root declares a QTI 2 namespace (imsqti_v2p1 …), and
# reads items only from resources whose type starts with imsqti_item_xmlv2p (canvas-lms qti/converter.rb).
MANIFEST_NSMAP = {None: CP, "imsmd": LOM, "imsqti": QTI_MD, "qti": QTI, "xsi": XSI}
ITEM_TYPE = "imsqti_item_xmlv2p1"
TEST_TYPE = "imsqti_test_xmlv2p1"
ITEM_TYPE_PREFIX = "imsqti_item_xmlv2p"
TEST_TYPE_PREFIX = "imsqti_test_xmlv2p"

MANIFEST = "imsmanifest.xml"
STYLESHEET = "style/moe-lms.css"
ITEM_STYLESHEET_HREF = f"../{STYLESHEET}"  # items/ and tests/ are both one folder down
STYLE_ID = "STYLE"
TOOL_NAME = "moe-lms"
LOM_CATALOG = "moe-lms"
# FEEDBACK value that shows the general explanation. Choice ids cannot hold "_", so it never names a choice, and
# Canvas's importer reads a modalFeedback whose identifier starts "general_" as the question's neutral comment.
GENERAL_FEEDBACK = "general_explanation"
TRUE_FALSE_CLASS = "moe-true-false"
# What parsing one member may build, whatever its bytes (a 40 KB package of two million <p/> in one item took
# 4.2 GB and five minutes to import); zipsafe bounds the whole package. A moe-lms item has about 100 elements,
# a rich one a few thousand; a test has one per item.
MAX_ITEM_ELEMENTS = 5_000
MAX_TEST_ELEMENTS = MAX_FILES + 1_000

STYLESHEET_CSS = b"""\
/* moe-lms: text direction by language. QTI 2.1 has no dir attribute (it arrived in 2.2), so every item
   body, feedback and rubric carries a class naming its direction, and xml:lang naming its language. */
.moe-rtl { direction: rtl; unicode-bidi: isolate; text-align: start; }
.moe-ltr { direction: ltr; unicode-bidi: isolate; text-align: start; }
.moe-u { text-decoration: underline; }
.moe-s { text-decoration: line-through; }
"""


def _q(tag: str) -> str:
    return f"{{{QTI}}}{tag}"


def _sub(
    parent: etree._Element, tag: str, attrib: dict[str, str] | None = None, text: str | None = None
) -> etree._Element:
    """A structural QTI element on a line of its own, for people reading the XML. Text from Markdown never
    goes through here (see :func:`append_html`), so it is left exactly as rendered."""
    if parent.text is None and not len(parent):
        parent.text = "\n"
    element = etree.SubElement(parent, _q(tag), attrib)
    element.tail = "\n"
    if text is not None:
        element.text = text
    return element


def _tag(element: etree._Element) -> str:
    return etree.QName(element).text


def _num(value: float) -> str:
    """Numbers as QTI values: 1 not 1.0, so output never depends on how the bank spelled them."""
    number = float(value)
    return str(int(number)) if number.is_integer() else repr(number)


def item_identifier(question_id: str, locale: str) -> str:
    return f"{question_id}-{locale}"


def item_path(question_id: str, locale: str) -> str:
    return f"items/{item_identifier(question_id, locale)}.xml"


def test_path(bank: Bank, locale: str) -> str:
    return f"tests/{bank.id}-{locale}.xml"


def _direction(lang: str) -> str:
    return locale_info(lang.replace("-", "_")).direction


# --- HTML <-> QTI's XHTML subset -------------------------------------------------------------------------------

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
_ONE_PARAGRAPH = re.compile(r"^<p>([^<]*)</p>$")


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
    if tag == "code" and re.fullmatch(r"language-[\w+#.-]+", language):  # a fenced block's language (richtext.py)
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
    simple = _ONE_PARAGRAPH.match(fragment)
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


# --- export ----------------------------------------------------------------------------------------------------


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _title(markdown: str, limit: int = 256) -> str:
    """A one-line plain-text title from inline Markdown (QTI ``title`` attributes are plain text)."""
    return _shorten(plain_text(markdown), limit)


def _stem_title(markdown: str, limit: int = 80) -> str:
    """An item's title: the start of its stem as rendered, so equivalent Markdown gives the same title. (With math
    or an image: the text with its formulas' LaTeX and images' alt text.)"""
    if "$" in markdown or "![" in markdown:
        return _shorten(plain_text(markdown), limit)
    return _rendered_title(render_block(markdown), limit)


def _rendered_title(rendered: str, limit: int = 80) -> str:
    simple = _ONE_PARAGRAPH.match(rendered)
    return _shorten(visible_text(simple.group(1) if simple else rendered), limit)  # plain text: never a tag


def _content(
    element: etree._Element, resolved: Resolved, context_lang: str, render: Callable[[str], str], *, always: bool
) -> None:
    """Fill ``element`` with one resolved string; say its language and direction where they differ from the
    context (fallbacks stay visible as source-language text), or always when ``always``."""
    _mark_language(element, resolved.lang, context_lang, always=always)
    append_html(element, render(resolved.text))


def _mark_language(element: etree._Element, lang: str, context_lang: str, *, always: bool) -> None:
    if always or lang != context_lang:
        element.set("class", f"moe-{_direction(lang)}")
        if lang != context_lang:
            element.set(XML_LANG, lang)


def _expression(parent: etree._Element, tag: str, **attrib: str) -> etree._Element:
    return _sub(parent, tag, attrib)


def _set_outcome(parent: etree._Element, identifier: str) -> etree._Element:
    return _sub(parent, "setOutcomeValue", {"identifier": identifier})


def _base_value(parent: etree._Element, base_type: str, value: str) -> None:
    _sub(parent, "baseValue", {"baseType": base_type}, value)


def _add_to_feedback(parent: etree._Element, value: str) -> etree._Element:
    """FEEDBACK := FEEDBACK plus ``value`` (NULL sub-expressions of ``multiple`` are ignored, so the first works)."""
    both = _sub(_set_outcome(parent, "FEEDBACK"), "multiple")
    _expression(both, "variable", identifier="FEEDBACK")
    return _sub(both, "baseValue", {"baseType": "identifier"}, value)


def _scoring(parent: etree._Element, multiple: bool) -> None:
    """SCORE: 0 unanswered, MAXSCORE for the correct response, else the mapping (multiple) or 0 (single); an
    answered item also adds the general explanation to FEEDBACK."""
    condition = _sub(parent, "responseCondition")
    unanswered = _sub(condition, "responseIf")
    _expression(_sub(unanswered, "isNull"), "variable", identifier="RESPONSE")
    _base_value(_set_outcome(unanswered, "SCORE"), "float", "0")
    answered = _sub(condition, "responseElse")
    inner = _sub(answered, "responseCondition")
    correct = _sub(inner, "responseIf")
    match = _sub(correct, "match")
    _expression(match, "variable", identifier="RESPONSE")
    _expression(match, "correct", identifier="RESPONSE")
    _expression(_set_outcome(correct, "SCORE"), "variable", identifier="MAXSCORE")
    otherwise = _set_outcome(_sub(inner, "responseElse"), "SCORE")
    if multiple:
        _expression(otherwise, "mapResponse", identifier="RESPONSE")
    else:
        _base_value(otherwise, "float", "0")
    _add_to_feedback(answered, GENERAL_FEEDBACK)


def _choice_feedback(parent: etree._Element, multiple: bool) -> None:
    """If the choice (its id filled in later, twice) was chosen, add it to FEEDBACK. One condition per choice is
    also the shape Canvas's QTI importer reads to attach each modalFeedback to its answer."""
    chosen = _sub(_sub(parent, "responseCondition"), "responseIf")
    if multiple:
        test = _sub(chosen, "member")
        _base_value(test, "identifier", "")
        _expression(test, "variable", identifier="RESPONSE")
    else:
        test = _sub(chosen, "match")
        _expression(test, "variable", identifier="RESPONSE")
        _base_value(test, "identifier", "")
    _add_to_feedback(chosen, "")


def _response_processing(item: etree._Element, kind: Kind, choice_ids: Sequence[str]) -> None:
    """Scoring, then one condition per choice setting FEEDBACK: choosing an answer scores it and shows that
    choice's explanation and the general one (``match_correct`` would set SCORE only, and no feedback shows)."""
    multiple = kind is Kind.MULTIPLE
    processing = _sub(item, "responseProcessing")
    processing.append(_copy(_template("scoring-multiple" if multiple else "scoring-single")))
    for choice_id in choice_ids:
        condition = _copy(_template("choice-multiple" if multiple else "choice-single"))
        chosen = condition[0]
        test_value = chosen[0][0] if multiple else chosen[0][1]
        test_value.text = choice_id
        chosen[1][0][1].text = choice_id  # setOutcomeValue / multiple / baseValue
        processing.append(condition)


def _copy(element: etree._Element) -> etree._Element:
    """A deep copy: lxml's ``__copy__`` copies the whole subtree in C, without ``copy.deepcopy``'s memo."""
    return copy.copy(element)


@cache
def _template(name: str) -> etree._Element:
    """Parts items share, built once and deep-copied (in C) into each item."""
    holder = etree.Element(_q("holder"), nsmap={None: QTI})
    if name == "SCORE":
        _outcome(holder, "SCORE", "single", "float", "0")
    elif name == "FEEDBACK":
        _outcome(holder, "FEEDBACK", "multiple", "identifier", None)
    elif name == "stylesheet":
        _sub(holder, "stylesheet", {"href": ITEM_STYLESHEET_HREF, "type": "text/css"})
    elif name.startswith("scoring-"):
        _scoring(holder, multiple=name.endswith("multiple"))
    else:
        _choice_feedback(holder, multiple=name.endswith("multiple"))
    return holder[0]


def _outcome(item: etree._Element, identifier: str, cardinality: str, base_type: str, default: str | None) -> None:
    declaration = _sub(item, "outcomeDeclaration", {"identifier": identifier, "cardinality": cardinality})
    declaration.set("baseType", base_type)
    if default is not None:
        _sub(_sub(declaration, "defaultValue"), "value", text=default)


# --- items: one description of their shape, used element by element or as a skeleton -------------------------


class _Shape(NamedTuple):
    """What the elements of an item depend on; items of one shape differ only in their text."""

    kind: Kind
    choices: int
    correct: int


# An item's values, by position: these, then the choice ids, the correct choices' ids, the mapped value of each
# choice (multiple-answer), and its contents: the prompt, each choice, each choice's feedback, the general one.
_IDENTIFIER, _TITLE, _LANG, _BODY_CLASS, _SHUFFLE, _MAX_CHOICES, _POINTS = range(7)
_FIXED = 7

# Builds the element holding one content of an item: (parent, tag, attributes, index among the item's contents).
ContentMaker = Callable[[etree._Element, str, dict[str, str], int], None]


def _item_element(shape: _Shape, values: Sequence[str], content: ContentMaker) -> etree._Element:
    """An ``assessmentItem`` of ``shape`` with ``values`` (see _IDENTIFIER): real text, or skeleton markers."""
    n, k = shape.choices, shape.correct
    ids = values[_FIXED : _FIXED + n]
    correct_ids = values[_FIXED + n : _FIXED + n + k]
    mapped = values[_FIXED + n + k : _FIXED + 2 * n + k]
    item = etree.Element(_q("assessmentItem"), nsmap={None: QTI, "xsi": XSI})
    item.set(SCHEMA_LOCATION, f"{QTI} {QTI_XSD_URL}")
    item.set("identifier", values[_IDENTIFIER])
    item.set("title", values[_TITLE])
    item.set("adaptive", "false")
    item.set("timeDependent", "false")
    item.set(XML_LANG, values[_LANG])
    item.set("toolName", TOOL_NAME)
    item.set("toolVersion", __version__)

    multiple = shape.kind is Kind.MULTIPLE
    response = _sub(item, "responseDeclaration", {"identifier": "RESPONSE"})
    response.set("cardinality", "multiple" if multiple else "single")
    response.set("baseType", "identifier")
    correct = _sub(response, "correctResponse")
    for choice_id in correct_ids:
        _sub(correct, "value", text=choice_id)
    if multiple:
        mapping = _sub(response, "mapping", {"lowerBound": "0", "upperBound": values[_POINTS], "defaultValue": "0"})
        for choice_id, value in zip(ids, mapped, strict=True):
            _sub(mapping, "mapEntry", {"mapKey": choice_id, "mappedValue": value})
    item.append(_copy(_template("SCORE")))
    _outcome(item, "MAXSCORE", "single", "float", values[_POINTS])
    item.append(_copy(_template("FEEDBACK")))
    item.append(_copy(_template("stylesheet")))

    body = _sub(item, "itemBody", {"class": values[_BODY_CLASS]})
    interaction = _sub(body, "choiceInteraction", {"responseIdentifier": "RESPONSE"})
    interaction.set("shuffle", values[_SHUFFLE])
    interaction.set("maxChoices", values[_MAX_CHOICES])
    if shape.kind is Kind.TRUE_FALSE:
        interaction.set("class", TRUE_FALSE_CLASS)
    content(interaction, "prompt", {}, 0)
    for j, choice_id in enumerate(ids):
        content(interaction, "simpleChoice", {"identifier": choice_id}, 1 + j)

    _response_processing(item, shape.kind, ids)
    for j, choice_id in enumerate([*ids, GENERAL_FEEDBACK]):
        modal = _sub(item, "modalFeedback", {"outcomeIdentifier": "FEEDBACK", "showHide": "show"})
        modal.set("identifier", choice_id)
        content(modal, "div", {}, 1 + n + j)
    return item


def _render(shape: _Shape, index: int) -> Callable[[str], str]:
    """How content ``index`` is rendered: the choices inline, the prompt and the feedback as blocks."""
    return render_inline if 1 <= index <= shape.choices else render_block


def _always_marked(shape: _Shape, index: int) -> bool:
    """Feedback always says its direction; the prompt and choices only when they fell back."""
    return index > shape.choices


_T = TypeVar("_T")


def _item_text(q: Question, view: LocalizedView) -> tuple[_Shape, list[str], list[Resolved], list[int]]:
    """One question in one locale: its shape, its values before the contents (no title yet), its contents, and
    whether each content renders as itself everywhere (LocalizedView.question_plain)."""
    texts = view.question_texts(q)  # stem, explanation, then each choice's text and explanation
    plain = view.question_plain(q, texts)
    ids = [c.id for c in q.choices]
    correct_ids = [c.id for c in q.choices if c.correct]
    points = _num(q.points)
    if q.kind is Kind.MULTIPLE:
        right, wrong = len(correct_ids), len(ids) - len(correct_ids)
        mapped = [_num(q.points / right if c.correct else -q.points / wrong) for c in q.choices]
        max_choices = str(len(ids))
    else:
        mapped = [""] * len(ids)
        max_choices = "1"
    info = view.info
    values = [
        item_identifier(q.id, view.locale),
        "",
        info.lang,
        f"moe-lms moe-{info.direction}",
        "true" if q.shuffle else "false",
        max_choices,
        points,
        *ids,
        *correct_ids,
        *mapped,
    ]
    return _Shape(q.kind, len(ids), len(correct_ids)), values, _content_order(texts), _content_order(list(plain))


def _content_order(question_order: Sequence[_T]) -> list[_T]:
    """question_texts order (stem, explanation, each choice's text and explanation) as an item's contents go:
    the stem, each choice, the general feedback, each choice's feedback."""
    return [question_order[0], *question_order[2::2], *question_order[3::2], question_order[1]]


def build_item(question: Question, view: LocalizedView) -> etree._Element:
    """One question in one locale as an ``assessmentItem``, element by element (:class:`_Items` writes the same
    bytes faster)."""
    shape, values, contents, _ = _item_text(question, view)
    values[_TITLE] = _stem_title(contents[0].text)
    lang = view.info.lang

    def content(parent: etree._Element, tag: str, attributes: dict[str, str], index: int) -> None:
        element = _sub(parent, tag, attributes)
        _content(element, contents[index], lang, _render(shape, index), always=_always_marked(shape, index))

    return _item_element(shape, values, content)


# How a rendered content goes into its element (append_html's cases): nothing at all, bare text, one paragraph of
# text, or markup (serialised element by element).
_EMPTY, _BARE, _PARAGRAPH, _MARKUP = range(4)


def _form(rendered: str) -> tuple[int, str]:
    """The form of rendered HTML and what fills it: the text (unescaped) or, for markup, the HTML."""
    if "<" not in rendered:
        form, text = _BARE, rendered
    else:
        simple = _ONE_PARAGRAPH.match(rendered)
        if simple is None:
            return _MARKUP, rendered
        form, text = _PARAGRAPH, simple.group(1)
    if "&" in text:
        text = html.unescape(text)
    return (form, text) if text or form == _PARAGRAPH else (_EMPTY, "")


def _markup(rendered: str) -> str:
    """Rendered HTML as the serialised content of a QTI element (see :func:`append_html`)."""
    holder = etree.Element(_q("holder"), nsmap={None: QTI})
    append_html(holder, rendered)
    return inner(holder)


class _Items:
    """Serialised items, the bytes :func:`build_item` gives, from one skeleton per shape, locale and form of the
    contents (with their language): a handful for a whole bank, and several times faster."""

    # Distinct skeletons kept; a bank whose items are more varied than that builds the rest as it goes.
    LIMIT = 512

    def __init__(self) -> None:
        self._skeletons: dict[tuple[object, ...], Skeleton] = {}

    def _skeleton(self, shape: _Shape, lang: str, forms: tuple[tuple[str, int], ...]) -> Skeleton:
        base = _FIXED + 2 * shape.choices + shape.correct  # values before the contents

        def content(parent: etree._Element, tag: str, attributes: dict[str, str], index: int) -> None:
            element = _sub(parent, tag, attributes)
            content_lang, form = forms[index]
            _mark_language(element, content_lang, lang, always=_always_marked(shape, index))
            if form == _BARE:
                append_html(element, slot(base + index))
            elif form == _PARAGRAPH:
                append_html(element, f"<p>{slot(base + index)}</p>")
            elif form == _MARKUP:
                element.text = raw(base + index)

        element = _item_element(shape, [slot(i) for i in range(base)], content)
        # Every value before the contents but the title is an id, a number, a language tag or a constant.
        return Skeleton.of(element, declaration=True, verbatim=set(range(base)) - {_TITLE})

    def serialise(self, question: Question, view: LocalizedView) -> bytes:
        shape, values, contents, plain = _item_text(question, view)
        lang = values[_LANG]
        key: list[object] = [shape, lang]
        for index, resolved in enumerate(contents):
            text = resolved.text
            inline = 1 <= index <= shape.choices
            if text and plain[index]:  # nearly every text: its own HTML
                form = _BARE if inline else _PARAGRAPH
                if index == 0:
                    values[_TITLE] = _shorten(text, 80)  # (what _stem_title gives for such text)
            else:
                rendered = render_inline(text) if inline else render_block(text)
                form, text = _form(rendered)
                if form == _MARKUP:
                    text = _markup(rendered)
                if index == 0:
                    values[_TITLE] = _stem_title(resolved.text)
            values.append(text)
            key += (resolved.lang, form)
        found = tuple(key)
        skeleton = self._skeletons.get(found)
        if skeleton is None:
            pairs = tuple(zip(key[2::2], key[3::2], strict=True))
            skeleton = self._skeleton(shape, lang, pairs)  # type: ignore[arg-type]
            if len(self._skeletons) < self.LIMIT:
                self._skeletons[found] = skeleton
        return skeleton.fill_bytes(values)


def build_test(bank: Bank, view: LocalizedView) -> etree._Element:
    """The bank in one locale as an ``assessmentTest``: one part, one section, items in bank order."""

    def references(section: etree._Element) -> None:
        for q in bank.questions:
            _sub(section, "assessmentItemRef", _item_reference(q, view))

    return _test_element(bank, view, references)


def _item_reference(q: Question, view: LocalizedView) -> dict[str, str]:
    return {"identifier": item_identifier(q.id, view.locale), "href": f"../{item_path(q.id, view.locale)}"}


def _test_element(bank: Bank, view: LocalizedView, references: Callable[[etree._Element], None]) -> etree._Element:
    test = etree.Element(_q("assessmentTest"), nsmap={None: QTI, "xsi": XSI})
    test.set(SCHEMA_LOCATION, f"{QTI} {QTI_XSD_URL}")
    test.set("identifier", f"{bank.id}-{view.locale}")
    title = _title(view.title.text)
    test.set("title", title)
    test.set("toolName", TOOL_NAME)
    test.set("toolVersion", __version__)
    _outcome(test, "SCORE", "single", "float", "0")
    _outcome(test, "MAXSCORE", "single", "float", "0")
    _sub(test, "stylesheet", {"href": ITEM_STYLESHEET_HREF, "type": "text/css"})
    part = _sub(test, "testPart", {"identifier": "part", "navigationMode": "nonlinear", "submissionMode": "individual"})
    _sub(part, "itemSessionControl", {"showFeedback": "true"})
    section = _sub(part, "assessmentSection", {"identifier": "section", "title": title, "visible": "true"})
    intro = view.intro
    if intro is not None:
        rubric = _sub(section, "rubricBlock", {"view": "candidate", "class": f"moe-{_direction(intro.lang)}"})
        rubric.set(XML_LANG, intro.lang)
        append_html(rubric, render_block(intro.text))
    references(section)
    processing = _sub(test, "outcomeProcessing")
    for identifier in ("SCORE", "MAXSCORE"):
        _expression(_sub(_set_outcome(processing, identifier), "sum"), "testVariables", variableIdentifier=identifier)
    return test


def _test_bytes(bank: Bank, view: LocalizedView) -> bytes:
    """The bytes of :func:`build_test`, its item references (one per question) from a skeleton of one."""

    def references(section: etree._Element) -> None:
        if section.text is None and not len(section):
            section.text = "\n"
        _add_text(section, raw(0))

    before, after = Skeleton.of(_test_element(bank, view, references), declaration=True).around([""], 0)
    holder = etree.Element(_q("holder"), nsmap={None: QTI})
    holder.text = ""  # so the reference is laid out as one among others
    _sub(holder, "assessmentItemRef", {"identifier": slot(0), "href": slot(1)})
    reference = Skeleton.inside(holder, verbatim={0, 1})  # ids and paths made of ids
    parts = [before]
    for q in bank.questions:
        attributes = _item_reference(q, view)
        parts.append(reference.fill((attributes["identifier"], attributes["href"])))
    parts.append(after)
    return "".join(parts).encode("utf-8")


# --- the manifest ----------------------------------------------------------------------------------------------


def _leaf(parent: etree._Element, namespace: str, tag: str, text: str = "", **attrib: str) -> etree._Element:
    """A manifest element with text; an empty one keeps its end tag (``<file href="…"></file>``)."""
    element = etree.SubElement(parent, f"{{{namespace}}}{tag}", attrib)
    element.text = text
    return element


def _add_lom(
    parent: etree._Element,
    entry: str,
    titles: Iterable[tuple[str, str]],
    languages: Sequence[str],
    keywords: Iterable[str] = (),
    keyword_language: str = "",
) -> None:
    """LOM ``general``: identifier, title (one string per language), languages and keywords (tags, which are
    words of the bank's source language whatever the locale: ``keyword_language``)."""
    general = etree.SubElement(etree.SubElement(parent, f"{{{LOM}}}lom"), f"{{{LOM}}}general")
    identifier = etree.SubElement(general, f"{{{LOM}}}identifier")
    _leaf(identifier, LOM, "catalog", LOM_CATALOG)
    _leaf(identifier, LOM, "entry", entry)
    title = etree.SubElement(general, f"{{{LOM}}}title")
    for lang, text in titles:
        _leaf(title, LOM, "string", text, language=lang)
    for language in languages:
        _leaf(general, LOM, "language", language)
    for keyword in keywords:
        _leaf(etree.SubElement(general, f"{{{LOM}}}keyword"), LOM, "string", keyword, language=keyword_language)


def _resource(
    parent: etree._Element,
    identifier: str,
    kind: str,
    href: str,
    dependencies: Iterable[str],
    files: Iterable[str] = (),
) -> etree._Element:
    """A ``resource`` with its ``metadata`` element, returned for the caller to fill, then its file (and the images
    it shows, ``files``) and dependencies."""
    resource = etree.SubElement(parent, f"{{{CP}}}resource", {"identifier": identifier, "type": kind, "href": href})
    resource.tail = "\n"
    metadata = etree.SubElement(resource, f"{{{CP}}}metadata")
    _leaf(resource, CP, "file", href=href)
    for file in files:
        _leaf(resource, CP, "file", href=file)
    for dependency in dependencies:
        _leaf(resource, CP, "dependency", identifierref=dependency)
    return metadata


def _qti_metadata(parent: etree._Element) -> None:
    metadata = etree.SubElement(parent, f"{{{QTI_MD}}}qtiMetadata")
    _leaf(metadata, QTI_MD, "timeDependent", "false")
    _leaf(metadata, QTI_MD, "interactionType", "choiceInteraction")
    _leaf(metadata, QTI_MD, "feedbackType", "nonadaptive")
    _leaf(metadata, QTI_MD, "solutionAvailable", "true")
    _leaf(metadata, QTI_MD, "toolName", TOOL_NAME)
    _leaf(metadata, QTI_MD, "toolVersion", __version__)


class _Writable(Protocol):
    def write(self, data: bytes, /) -> int: ...


def _manifest_holder() -> etree._Element:
    return etree.Element(f"{{{CP}}}holder", nsmap=MANIFEST_NSMAP)


class _ManifestWriter:
    """Writes imsmanifest.xml incrementally, one resource at a time, so memory stays flat as banks grow; item
    resources from one skeleton per number of tags."""

    def __init__(self, stream: _Writable) -> None:
        self.stream = stream
        self._items: dict[int, Skeleton] = {}
        self._pending: list[str] = []
        self._size = 0

    def write(self, text: str) -> None:
        """Text of the manifest, written on in pieces of about 64 KiB (as deflated, the same bytes)."""
        self._pending.append(text)
        self._size += len(text)
        if self._size > 65536:
            self.flush()

    def flush(self) -> None:
        self.stream.write("".join(self._pending).encode("utf-8"))
        self._pending, self._size = [], 0

    def head_and_tail(self, bank: Bank, views: dict[str, LocalizedView]) -> tuple[str, str]:
        """The manifest around its resources; the package metadata says what the importer needs to rebuild the
        bank: its id, title per locale, source language and tags."""
        root = {
            "identifier": f"MANIFEST-{bank.id}",
            SCHEMA_LOCATION: f"{CP} {CP_XSD_URL} {LOM} {LOM_XSD_URL} {QTI_MD} {QTI_MD_XSD_URL}",
        }
        manifest = etree.Element(f"{{{CP}}}manifest", root, nsmap=MANIFEST_NSMAP)
        manifest.text = "\n"
        metadata = etree.SubElement(manifest, f"{{{CP}}}metadata")
        metadata.tail = "\n"
        _leaf(metadata, CP, "schema", "QTIv2.1 Package")
        _leaf(metadata, CP, "schemaversion", "1.0.0")
        titles = [(v.title.lang, _title(v.title.text, limit=1000)) for v in views.values()]
        # The bank's source language first (the importer reads it as the source), then each the package holds.
        source = locale_info(bank.source_locale).lang
        languages = list(dict.fromkeys([source, *(v.info.lang for v in views.values())]))
        _add_lom(metadata, bank.id, titles, languages, bank.tags, source)
        _leaf(manifest, CP, "organizations").tail = "\n"
        resources = _leaf(manifest, CP, "resources", "\n" + raw(0))
        resources.tail = "\n"
        return Skeleton.of(manifest, declaration=True).around([""], 0)

    def test(self, bank: Bank, view: LocalizedView) -> None:
        holder = _manifest_holder()
        items = (_item_resource_id(q.id, view.locale) for q in bank.questions)
        path = test_path(bank, view.locale)
        metadata = _resource(holder, f"TEST-{view.locale}", TEST_TYPE, path, itertools.chain([STYLE_ID], items))
        title = view.title
        _add_lom(metadata, f"{bank.id}-{view.locale}", [(title.lang, _title(title.text, 1000))], [view.info.lang])
        self.write(inner(holder))

    def _item_skeleton(self, tags: int) -> Skeleton:
        skeleton = self._items.get(tags)
        if skeleton is None:
            holder = _manifest_holder()
            metadata = _resource(holder, slot(0), ITEM_TYPE, slot(1), [STYLE_ID])
            keywords = [slot(7 + i) for i in range(tags)]
            _add_lom(metadata, slot(2), [(slot(3), slot(4))], [slot(5)], keywords, slot(6))
            _qti_metadata(metadata)
            # Ids, paths made of ids and language tags, but the title (4).
            skeleton = self._items[tags] = Skeleton.inside(holder, verbatim=set(range(7 + tags)) - {4})
        return skeleton

    def item(self, q: Question, view: LocalizedView) -> None:
        stem = view.stem(q)
        files = item_media(view, q)
        if files:  # (rare: an item showing images lists them as its files; built whole, not from the skeleton)
            holder = _manifest_holder()
            metadata = _resource(
                holder, _item_resource_id(q.id, view.locale), ITEM_TYPE, item_path(q.id, view.locale), [STYLE_ID], files
            )
            title = _stem_title(stem.text)
            _add_lom(metadata, q.id, [(stem.lang, title)], [view.info.lang], q.tags, view.source_info.lang)
            _qti_metadata(metadata)
            self.write(inner(holder))
            return
        values = [
            _item_resource_id(q.id, view.locale),
            item_path(q.id, view.locale),
            q.id,
            stem.lang,
            _shorten(stem.text, 80) if renders_as_itself(stem.text) else _stem_title(stem.text),
            view.info.lang,
            view.source_info.lang,  # tags are words of the bank's source language
            *q.tags,
        ]
        self.write(self._item_skeleton(len(q.tags)).fill(values))

    def stylesheet(self) -> None:
        holder = _manifest_holder()
        resource = etree.SubElement(
            holder, f"{{{CP}}}resource", {"identifier": STYLE_ID, "type": "webcontent", "href": STYLESHEET}
        )
        resource.tail = "\n"
        _leaf(resource, CP, "file", href=STYLESHEET)
        self.write(inner(holder))


def item_media(view: LocalizedView, q: Question) -> list[str]:
    """The package paths of the images a question's item shows in this locale (its stem, choices, feedback)."""
    if not view.bank.media:  # (the common case: a bank without images)
        return []
    found: dict[str, None] = {}
    for resolved in view.question_texts(q):
        for reference in image_references(resolved.text):
            item = media_of(view.bank, reference.path)
            if item is not None:
                found[item.path] = None
    return sorted(found)


def _package_url(item: MediaItem) -> str:
    """An image's URL from an item (items/ is one folder down from the package root, where media/ is)."""
    return f"../{item.path}"


_IMAGE_FROM_ITEM = re.compile(r'(<img\b[^>]*\bsrc=")\.\./')


def _bank_paths(fragment: str) -> str:
    """An item's image URLs (``../media/x.png``) as the bank writes them (``media/x.png``)."""
    return _IMAGE_FROM_ITEM.sub(r"\1", fragment) if "../" in fragment else fragment


def _item_resource_id(question_id: str, locale: str) -> str:
    return f"ITEM-{item_identifier(question_id, locale)}"


def _write_manifest(bank: Bank, views: dict[str, LocalizedView], stream: _Writable) -> None:
    """Tests and items per locale in bank order, then the stylesheet; LOM and QTI metadata on each."""
    writer = _ManifestWriter(stream)
    head, tail = writer.head_and_tail(bank, views)
    writer.write(head)
    for view in views.values():
        writer.test(bank, view)
        for q in bank.questions:
            writer.item(q, view)
    writer.stylesheet()
    writer.write(tail)
    writer.flush()


def _check_text(bank: Bank, locales: Iterable[str]) -> None:
    """Find every translation XML cannot carry before writing anything, and name its question and locale.
    (The bank's own text was checked when it was loaded; translations come from PO files.)"""
    problems = []
    for locale in locales:
        catalog = bank.translations.get(locale, {})
        if isinstance(catalog, PackedCatalog) and not catalog.holds_xml_illegal():
            continue  # (one scan of its UTF-8 text answers for every entry)
        for path, translation in catalog.items():
            bad = XML_ILLEGAL.search(translation.text)
            if bad:
                question, _, what = path.partition("/")
                problems.append(
                    Problem(
                        item_path(question, locale) if what else f"locales/{locale}.po",
                        None,
                        f"{what or path} ({locale}) contains U+{ord(bad.group()):04X}, which XML 1.0 cannot carry",
                        f"question {question!r}" if what else None,
                    )
                )
    if problems:
        raise ProblemsFound(problems)


def _in_name_order(bank: Bank, locales: Iterable[str]) -> Iterator[tuple[Question, str]]:
    """Every (question, locale) in the order of their item file names (zip entries are sorted), merged from one
    sorted run per locale, so no list of every item is ever held."""

    def run(locale: str) -> Iterator[tuple[Question, str]]:
        for q in sorted(bank.questions, key=lambda q: item_path(q.id, locale)):
            yield q, locale

    return heapq.merge(*(run(loc) for loc in locales), key=lambda pair: item_path(pair[0].id, pair[1]))


def package_profile(bank: Bank) -> Profile:
    """How the package renders rich content: math as MathML 2 (with its LaTeX as an annotation), images packaged
    under media/, code plain (no style attribute in QTI's XHTML)."""
    return Profile(math="mathml", image_url=_package_url, media=bank.media, highlight="none")


def write(bank: Bank, options: ExportOptions, out: BinaryIO) -> None:
    """Stream the package for ``options.locales`` into ``out``: byte-identical for the same bank and options."""
    views = {loc: resolve(bank, loc, include_drafts=options.include_drafts) for loc in options.locales}
    _check_text(bank, views)
    items = _Items()
    package = ZipStream(out)  # entries sorted by name, fixed timestamps and permissions, no seeking
    with (
        gc_paused(),
        rendering(package_profile(bank)),
    ):  # (gc: nothing here makes cycles; the collector would only rescan)
        with package.open(MANIFEST) as entry:
            _write_manifest(bank, views, entry)
        for q, loc in _in_name_order(bank, views):
            name = item_path(q.id, loc)
            try:
                data = items.serialise(q, views[loc])
            except ValueError as exc:  # characters XML cannot carry, reached through HTML entities
                raise ProblemsFound([Problem(name, None, str(exc), f"question {q.id!r}")]) from None
            package.add(name, data)
        if bank.media:
            shown = {path for view in views.values() for q in bank.questions for path in item_media(view, q)}
            for path in sorted(shown):
                package.add(path, bank.media[path].data)
        package.add(STYLESHEET, STYLESHEET_CSS)
        for loc in sorted(views, key=lambda loc: test_path(bank, loc)):
            package.add(test_path(bank, loc), _test_bytes(bank, views[loc]))
        package.close()


FORMAT = Format(
    name="qti21",
    description="QTI 2.1 content package (IMS CP zip: items, tests, manifest)",
    suffix=".qti21.zip",
    write=write,
)


# --- reading packages from outside -----------------------------------------------------------------------------


def _cp(tag: str) -> str:
    return f"{{{CP}}}{tag}"


def _lom(tag: str) -> str:
    return f"{{{LOM}}}{tag}"


@dataclass(frozen=True)
class _Resource:
    identifier: str
    kind: str
    path: str | None  # the resource's main file
    files: tuple[str | None, ...]
    dependencies: tuple[str, ...]
    element: etree._Element


def _resources(manifest: etree._Element) -> list[_Resource]:
    found = []
    for res in manifest.iterfind(f"{_cp('resources')}/{_cp('resource')}"):
        files = tuple(resolve_href(MANIFEST, f.get("href", "")) for f in res.iterfind(_cp("file")))
        href = res.get("href")
        path = resolve_href(MANIFEST, href) if href else (files[0] if files else None)
        deps = tuple(d.get("identifierref", "") for d in res.iterfind(_cp("dependency")))
        found.append(_Resource(res.get("identifier", ""), res.get("type", ""), path, files, deps, res))
    return found


# --- semantic checks (what XSD cannot say) -------------------------------------------------------------------

_BUILT_IN_VARIABLES = frozenset({"completionStatus", "duration", "numAttempts"})
_TEMPLATES_SETTING_SCORE = ("match_correct", "map_response", "map_response_point")
_FEEDBACK_TAGS = tuple(_q(t) for t in ("modalFeedback", "feedbackInline", "feedbackBlock"))


@dataclass
class _Report:
    file: str
    where: str | None = None
    problems: list[Problem] = field(default_factory=list)

    def add(self, element: etree._Element | None, message: str, severity: Severity = Severity.ERROR) -> None:
        line = element.sourceline if element is not None else None
        self.problems.append(Problem(self.file, line, message, self.where, severity=severity))

    def refused(self, exc: UnsafeXmlError | UnsafePackage) -> None:
        """A member that could not be read, with the line the parser stopped at."""
        if isinstance(exc, UnsafeXmlError):
            self.problems.append(Problem(self.file, exc.line, exc.message, self.where))
        else:
            self.add(None, str(exc))


def _check_item(root: etree._Element, report: _Report) -> None:
    declared: dict[str, str] = {}
    for kind in ("responseDeclaration", "outcomeDeclaration", "templateDeclaration"):
        for declaration in root.iterfind(_q(kind)):
            identifier = declaration.get("identifier", "")
            if identifier in declared:
                report.add(declaration, f"identifier {identifier!r} is declared twice")
            declared.setdefault(identifier, kind)
    responses = {i for i, k in declared.items() if k == "responseDeclaration"}
    outcomes = {i for i, k in declared.items() if k == "outcomeDeclaration"}

    def need(element: etree._Element, identifier: str | None, pool: set[str], what: str) -> None:
        if identifier and identifier not in pool and identifier not in _BUILT_IN_VARIABLES:
            report.add(
                element, f"{etree.QName(element).localname} refers to {what} {identifier!r}, which is not declared"
            )

    everything = set(declared)
    for element in root.iter(_q("variable"), _q("default")):
        need(element, element.get("identifier"), everything, "variable")
    for element in root.iter(_q("correct"), _q("mapResponse"), _q("mapResponsePoint")):
        need(element, element.get("identifier"), responses, "response")
    for element in root.iter(_q("setOutcomeValue"), _q("lookupOutcomeValue")):
        need(element, element.get("identifier"), outcomes, "outcome")
    for element in root.iter(*_FEEDBACK_TAGS):
        need(element, element.get("outcomeIdentifier"), outcomes, "outcome")
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag.endswith("Interaction"):
            need(element, element.get("responseIdentifier"), responses, "response")

    feedback = {f.get("identifier") for f in root.iter(*_FEEDBACK_TAGS)}
    for interaction in root.iter(_q("choiceInteraction")):
        choices: dict[str, etree._Element] = {}
        for choice in interaction.iterfind(_q("simpleChoice")):
            identifier = choice.get("identifier", "")
            if identifier in choices:
                report.add(choice, f"choice identifier {identifier!r} is used twice")
            choices.setdefault(identifier, choice)
            if identifier not in feedback:
                report.add(
                    choice,
                    f"choice {identifier!r} has no feedback bound to it"
                    f" (modalFeedback or feedbackInline with identifier {identifier!r})",
                )
        response_id = interaction.get("responseIdentifier")
        for declaration in root.iterfind(_q("responseDeclaration")):
            if declaration.get("identifier") != response_id:
                continue
            for value in declaration.iterfind(f"{_q('correctResponse')}/{_q('value')}"):
                if (value.text or "").strip() not in choices:
                    report.add(value, f"correctResponse names {value.text!r}, which is not a choice of the interaction")
            for entry in declaration.iterfind(f"{_q('mapping')}/{_q('mapEntry')}"):
                if entry.get("mapKey") not in choices:
                    report.add(
                        entry, f"mapping names {entry.get('mapKey')!r}, which is not a choice of the interaction"
                    )

    processing = root.find(_q("responseProcessing"))
    set_outcomes = {e.get("identifier") for e in root.iter(_q("setOutcomeValue"))}
    if processing is not None and any(t in (processing.get("template") or "") for t in _TEMPLATES_SETTING_SCORE):
        set_outcomes.add("SCORE")
    for element in root.iter(*_FEEDBACK_TAGS):
        outcome = element.get("outcomeIdentifier")
        if outcome in outcomes and outcome not in set_outcomes:
            report.add(
                element,
                f"feedback is bound to outcome {outcome!r}, which responseProcessing never sets, so it never shows"
                " (the match_correct template sets only SCORE)",
            )


def _check_references(root: etree._Element, path: str, package: SafeZip, report: _Report) -> None:
    """Every image an item or test shows (``img src``, ``object data``) is a file of the package."""
    for element in root.iter(_q("img"), _q("object")):
        href = element.get("src") if element.tag == _q("img") else element.get("data")
        if not href or href.startswith("data:"):
            continue
        target = resolve_href(path, href)
        if target is None:
            report.add(element, f"{href!r} is not a file of the package (remote or leaving it)", Severity.WARNING)
        elif target not in package.infos:
            report.add(element, f"{href!r} refers to {target!r}, which is not in the package")


def _check_test(root: etree._Element, path: str, items: set[str], report: _Report) -> None:
    seen: set[str] = set()
    for element in root.iter(_q("testPart"), _q("assessmentSection"), _q("assessmentItemRef")):
        identifier = element.get("identifier", "")
        if identifier in seen:
            report.add(element, f"identifier {identifier!r} is used twice in the test")
        seen.add(identifier)
    for ref in root.iter(_q("assessmentItemRef")):
        target = resolve_href(path, ref.get("href", ""))
        if target is None or target not in items:
            report.add(ref, f"assessmentItemRef href {ref.get('href')!r} does not name an item of the package")
    outcomes = {d.get("identifier") for d in root.iterfind(_q("outcomeDeclaration"))}
    for element in root.iter(_q("setOutcomeValue")):
        if element.get("identifier") not in outcomes:
            report.add(
                element, f"setOutcomeValue refers to outcome {element.get('identifier')!r}, which is not declared"
            )


def _xsd(schema: etree.XMLSchema, root: etree._Element, report: _Report, limit: int = 20) -> None:
    if schema.validate(root):
        return
    errors = list(schema.error_log)
    for error in errors[:limit]:
        report.problems.append(Problem(report.file, error.line, f"XSD: {error.message}", report.where))
    if len(errors) > limit:
        report.problems.append(
            Problem(report.file, None, f"XSD: … and {len(errors) - limit} more error(s)", report.where)
        )


def check_package(data: bytes, schemas: Schemas | None, *, name: str = "package") -> list[Problem]:
    """Every check on a QTI 2.1 package: zip safety, XSD (when ``schemas`` is given), and what XSD cannot check —
    identifiers unique, referenced outcomes declared, correctResponse names a choice, every choice has its
    feedback, the manifest and the zip agree, Canvas's QTI 2 detection."""
    try:
        package = SafeZip(data)
    except UnsafePackage as exc:
        return [Problem(name, None, str(exc))]
    place = f"{name}!/"
    manifest_report = _Report(place + MANIFEST)
    if MANIFEST not in package.infos:
        return [Problem(name, None, f"no {MANIFEST} at the root of the package")]
    try:
        manifest = package.xml(MANIFEST)
    except (UnsafeXmlError, UnsafePackage) as exc:
        return [Problem(manifest_report.file, getattr(exc, "line", None), str(exc))]
    problems = manifest_report.problems
    if manifest.tag != _cp("manifest"):
        manifest_report.add(manifest, f"the root element is {_tag(manifest)}, not an IMS CP 1.1 manifest")
        return problems
    if schemas is not None:
        _xsd(schemas.manifest(), manifest, manifest_report)
    if not any(ns and ns.startswith(QTI.rsplit("/", 1)[0] + "/imsqti_v2p") for ns in manifest.nsmap.values()):
        manifest_report.add(
            manifest, f"the manifest does not declare the QTI 2.1 namespace {QTI}; Canvas will not read it as QTI 2"
        )

    resources = _resources(manifest)
    by_id: dict[str, _Resource] = {}
    listed: set[str] = {MANIFEST}
    for res in resources:
        if res.identifier in by_id:
            manifest_report.add(res.element, f"resource identifier {res.identifier!r} is used twice")
        by_id[res.identifier] = res
        for f, element in zip(res.files, res.element.iterfind(_cp("file")), strict=True):
            if f is None:
                manifest_report.add(element, f"file href {element.get('href')!r} leaves the package or is not a path")
            elif f not in package.infos:
                manifest_report.add(element, f"the manifest lists {f!r}, which is not in the zip")
            else:
                listed.add(f)
        if res.path is not None and res.path not in res.files:
            manifest_report.add(res.element, f"resource {res.identifier!r} href {res.path!r} is not among its files")
    for res in resources:
        for dependency in res.dependencies:
            if dependency not in by_id:
                manifest_report.add(
                    res.element, f"resource {res.identifier!r} depends on {dependency!r}, which is not a resource"
                )
    for member in package.names:
        if member not in listed:
            problems.append(Problem(place + member, None, "the zip holds this file but the manifest does not list it"))

    items = {r.path for r in resources if r.path and r.kind.startswith(ITEM_TYPE_PREFIX) and r.path in package.infos}
    tests = {r.path for r in resources if r.path and r.kind.startswith(TEST_TYPE_PREFIX) and r.path in package.infos}
    item_identifiers: dict[str, str] = {}
    for path in sorted(items | tests):
        report = _Report(place + path)
        try:
            root = package.xml(path, max_elements=MAX_TEST_ELEMENTS if path in tests else MAX_ITEM_ELEMENTS)
        except (UnsafeXmlError, UnsafePackage) as exc:
            report.refused(exc)
            problems.extend(report.problems)
            continue
        if schemas is not None:
            _xsd(schemas.qti(), root, report)
        _check_references(root, path, package, report)
        if root.tag == _q("assessmentItem"):
            identifier = root.get("identifier", "")
            report.where = f"item {identifier!r}"
            if identifier in item_identifiers:
                report.add(root, f"item identifier {identifier!r} is also used by {item_identifiers[identifier]}")
            item_identifiers.setdefault(identifier, path)
            _check_item(root, report)
        elif root.tag == _q("assessmentTest"):
            report.where = f"test {root.get('identifier', '')!r}"
            _check_test(root, path, items, report)
        else:
            report.add(root, f"expected a QTI 2.1 assessmentItem or assessmentTest, found {_tag(root)}")
        problems.extend(report.problems)
    return problems


# --- import ----------------------------------------------------------------------------------------------------


def _without(container: etree._Element, tags: tuple[str, ...]) -> etree._Element:
    """A copy of ``container`` without the children named (feedback inside a choice is not the choice's text)."""
    copy = etree.Element(container.tag, dict(container.attrib))
    copy.text = container.text
    for child in container:
        if child.tag in tags or not isinstance(child.tag, str):
            _add_text(copy, child.tail)
        else:
            copy.append(_clone(child))
    return copy


def _clone(element: etree._Element) -> etree._Element:
    clone = etree.Element(element.tag, dict(element.attrib))
    clone.text = element.text
    for child in element:
        if isinstance(child.tag, str):
            clone.append(_clone(child))
        else:
            _add_text(clone, child.tail)
    clone.tail = element.tail
    return clone


_MARKDOWN_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


@dataclass(frozen=True)
class _Text:
    """One learner-facing string as found in an item: its content as HTML and the language it is in. HTML, not a
    copy of the elements: a package's texts are kept until the bank is built, and a string is far smaller."""

    html: str
    lang: str | None
    inline: bool

    @classmethod
    def of(cls, container: etree._Element, lang: str | None, inline: bool) -> _Text:
        return cls(_html_of(container), lang, inline)

    def markdown(self) -> str:
        """Markdown that renders back to exactly this content when possible (checked, not hoped); see unrender."""
        return markdown_from_rich_html(_bank_paths(self.html), lambda f: markdown_from_html(f, inline=self.inline))


def _lang_of(element: etree._Element) -> str | None:
    node: etree._Element | None = element
    while node is not None:
        lang = node.get(XML_LANG)
        if lang:
            return lang
        node = node.getparent()
    return None


def _locale_of(lang: str) -> str | None:
    """A bank locale tag (pt_BR) for a BCP 47 language (pt-BR), or None if Babel does not know it."""
    parts = lang.replace("-", "_").split("_")
    tag = "_".join([parts[0].lower(), *parts[1:]])
    if not re.match(r"^[a-z]{2,3}(_[A-Za-z0-9]{2,8})*$", tag):
        return None
    try:
        locale_info(tag)
    except ValueError:
        return None
    return tag


def _feedback_text(element: etree._Element) -> _Text:
    """Our feedback wraps its content in one div that carries language and direction; others' may not."""
    children = [c for c in element if isinstance(c.tag, str)]
    if (
        len(children) == 1
        and children[0].tag == _q("div")
        and not (element.text or "").strip()
        and not (children[0].tail or "").strip()
    ):
        element = children[0]
    return _Text.of(_without(element, ()), _lang_of(element), inline=element.tag == _q("feedbackInline"))


def _parse_item(
    root: etree._Element, resource: _Resource, default_locale: str, report: _Report
) -> ParsedItem[_Text] | None:
    if root.tag != _q("assessmentItem"):
        report.add(root, f"expected a QTI 2.1 assessmentItem, found {_tag(root)}")
        return None
    identifier = root.get("identifier", "")
    report.where = f"item {identifier!r}"
    interactions = [
        e
        for e in root.iter()
        if isinstance(e.tag, str) and e.tag.startswith(f"{{{QTI}}}") and e.tag.endswith("Interaction")
    ]
    if len(interactions) != 1 or interactions[0].tag != _q("choiceInteraction"):
        report.add(root, "skipped: only items with exactly one choiceInteraction can be imported", Severity.WARNING)
        return None
    interaction = interactions[0]
    declaration = next(
        (
            d
            for d in root.iterfind(_q("responseDeclaration"))
            if d.get("identifier") == interaction.get("responseIdentifier")
        ),
        None,
    )
    if declaration is None:
        report.add(interaction, "the choiceInteraction's response is not declared")
        return None
    lang = root.get(XML_LANG)
    locale = _locale_of(lang) if lang else default_locale
    if locale is None:
        report.add(root, f"xml:lang {lang!r} is not a language moe-lms knows")
        return None
    correct = {(v.text or "").strip() for v in declaration.iterfind(f"{_q('correctResponse')}/{_q('value')}")}
    mapping = declaration.find(_q("mapping"))
    if not correct and mapping is not None:
        correct = {
            e.get("mapKey", "") for e in mapping.iterfind(_q("mapEntry")) if (number(e.get("mappedValue")) or 0) > 0
        }
    multiple = declaration.get("cardinality") == "multiple"
    classes = (interaction.get("class") or "").split()
    kind = Kind.MULTIPLE if multiple else Kind.TRUE_FALSE if TRUE_FALSE_CLASS in classes else Kind.SINGLE

    points: float | int | None = None
    for outcome in root.iterfind(_q("outcomeDeclaration")):
        if outcome.get("identifier") == "MAXSCORE":
            points = number(outcome.findtext(f"{_q('defaultValue')}/{_q('value')}"))
    if points is None and mapping is not None:
        points = number(mapping.get("upperBound"))
    if points is None or points <= 0:
        points = 1

    feedback: dict[str, etree._Element] = {}
    for element in root.iter(*_FEEDBACK_TAGS):
        feedback.setdefault(element.get("identifier", ""), element)
    prompt = interaction.find(_q("prompt"))
    if prompt is None:  # the stem as blocks before the interaction, as some tools write it
        prompt = etree.Element(_q("prompt"))
        body = root.find(_q("itemBody"))
        for child in body if body is not None else ():
            if child is interaction or interaction in child.iterdescendants():
                break
            if isinstance(child.tag, str):
                prompt.append(_clone(child))
    choices = []
    for choice in interaction.iterfind(_q("simpleChoice")):
        cid = choice.get("identifier", "")
        bound = feedback.get(cid)
        text = _Text.of(_without(choice, _FEEDBACK_TAGS), _lang_of(choice), inline=True)
        choices.append(ParsedChoice(cid, text, cid in correct, _feedback_text(bound) if bound is not None else None))
    general = feedback.get(GENERAL_FEEDBACK)
    if general is None:
        ids = {c.id for c in choices}
        general = next((f for f in root.iterfind(_q("modalFeedback")) if f.get("identifier") not in ids), None)
    suffix = f"-{locale}"
    qid = identifier.removesuffix(suffix) if identifier.endswith(suffix) else identifier
    return ParsedItem(
        path=report.file,
        qid=slug(qid),
        locale=locale,
        kind=kind,
        points=points,
        shuffle=interaction.get("shuffle") == "true",
        stem=_Text.of(_without(prompt, ()), _lang_of(prompt) if prompt.getparent() is not None else lang, inline=False),
        explanation=_feedback_text(general) if general is not None else None,
        choices=choices,
        tags=_keywords(resource.element),
    )


def _lom_general(element: etree._Element) -> etree._Element | None:
    return element.find(f"{_cp('metadata')}/{_lom('lom')}/{_lom('general')}")


def _keywords(element: etree._Element) -> tuple[str, ...]:
    general = _lom_general(element)
    if general is None:
        return ()
    words = (k.findtext(_lom("string")) or "" for k in general.iterfind(_lom("keyword")))
    return tuple(dict.fromkeys(slug(w) for w in words if w.strip()))


@dataclass
class _BankMetadata:
    id: str | None = None
    titles: list[tuple[str, str]] = field(default_factory=list)  # (language, plain text)
    language: str | None = None
    tags: tuple[str, ...] = ()


def _bank_metadata(manifest: etree._Element) -> _BankMetadata:
    meta = _BankMetadata()
    general = _lom_general(manifest)
    if general is None:
        return meta
    identifier = general.find(_lom("identifier"))
    if identifier is not None and identifier.findtext(_lom("catalog")) == LOM_CATALOG:
        meta.id = identifier.findtext(_lom("entry"))
    for string in general.iterfind(f"{_lom('title')}/{_lom('string')}"):
        meta.titles.append((string.get("language") or "", string.text or ""))
    meta.language = general.findtext(_lom("language"))
    meta.tags = _keywords(manifest)
    return meta


def _plain_markdown(text: str) -> str:
    """Markdown whose plain text is exactly ``text`` (titles are plain text in QTI)."""
    text = " ".join(text.split())
    return text if plain_text(text) == text else _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)


@dataclass
class _ParsedTest:
    identifier: str
    locale: str | None
    title: str | None
    intro: _Text | None
    items: list[str]


def _parse_test(root: etree._Element, resource: _Resource, report: _Report) -> _ParsedTest | None:
    if root.tag != _q("assessmentTest") or resource.path is None:
        report.add(root, f"expected a QTI 2.1 assessmentTest, found {_tag(root)}")
        return None
    general = _lom_general(resource.element)
    lang = general.findtext(_lom("language")) if general is not None else None
    rubric = next((r for r in root.iter(_q("rubricBlock")) if "candidate" in (r.get("view") or "").split()), None)
    refs = [resolve_href(resource.path, r.get("href", "")) for r in root.iter(_q("assessmentItemRef"))]
    return _ParsedTest(
        identifier=root.get("identifier", ""),
        locale=_locale_of(lang) if lang else None,
        title=root.get("title"),
        intro=_Text.of(_without(rubric, ()), _lang_of(rubric), inline=False) if rubric is not None else None,
        items=[r for r in refs if r],
    )


def _open(data: bytes, name: str) -> tuple[SafeZip, etree._Element]:
    try:
        package = SafeZip(data)
        if MANIFEST not in package.infos:
            raise UnsafePackage(f"no {MANIFEST} at the root of the package")
        manifest = package.xml(MANIFEST)
    except (UnsafePackage, UnsafeXmlError) as exc:
        raise ProblemsFound([Problem(name, None, str(exc))]) from None
    if manifest.tag != _cp("manifest"):
        message = f"the root element is {_tag(manifest)}, not an IMS CP manifest"
        raise ProblemsFound([Problem(f"{name}!/{MANIFEST}", 1, message)])
    return package, manifest


def _read_resources(
    package: SafeZip, manifest: etree._Element, name: str, default_locale: str, problems: list[Problem]
) -> tuple[dict[str, ParsedItem[_Text]], list[_ParsedTest]]:
    """Every item and test the manifest names, parsed (items by path, in manifest order)."""
    items: dict[str, ParsedItem[_Text]] = {}
    tests: list[_ParsedTest] = []
    for resource in _resources(manifest):
        is_item = resource.kind.startswith(ITEM_TYPE_PREFIX)
        if not (is_item or resource.kind.startswith(TEST_TYPE_PREFIX)):
            continue
        if resource.path is None or resource.path not in package.infos:
            message = f"resource {resource.identifier!r} names no file of the package"
            problems.append(Problem(f"{name}!/{MANIFEST}", resource.element.sourceline, message))
            continue
        report = _Report(f"{name}!/{resource.path}")
        try:
            root = package.xml(resource.path, max_elements=MAX_ITEM_ELEMENTS if is_item else MAX_TEST_ELEMENTS)
        except (UnsafePackage, UnsafeXmlError) as exc:
            report.refused(exc)
        else:
            if is_item and (item := _parse_item(root, resource, default_locale, report)) is not None:
                items[resource.path] = item
            elif not is_item and (test := _parse_test(root, resource, report)) is not None:
                tests.append(test)
        problems.extend(report.problems)
    for test in tests:  # a test without LOM language is in the language of its items
        if test.locale is None:
            test.locale = next((items[p].locale for p in test.items if p in items), None)
    return items, tests


def _group(
    items: dict[str, ParsedItem[_Text]], tests: list[_ParsedTest], problems: list[Problem]
) -> dict[str, dict[str, ParsedItem[_Text]]]:
    """Items by question and locale, questions in test order (then manifest order for items no test names)."""
    order = [p for t in tests for p in t.items if p in items] + list(items)
    groups: dict[str, dict[str, ParsedItem[_Text]]] = {}
    for path in dict.fromkeys(order):
        item = items[path]
        versions = groups.setdefault(item.qid, {})
        if item.locale in versions:
            message = f"question {item.qid!r} has two items in {item.locale} (also {versions[item.locale].path})"
            problems.append(Problem(item.path, None, message))
        else:
            versions[item.locale] = item
    return groups


def read_package(data: bytes, *, name: str = "package.zip") -> tuple[Bank, list[Problem]]:
    """A bank from a QTI 2.1 package (choice items; each question's items in several languages become one
    question with translations). Returns the bank and warnings; raises ProblemsFound with every error."""
    package, manifest = _open(data, name)
    problems: list[Problem] = []
    meta = _bank_metadata(manifest)
    default_locale = (_locale_of(meta.language) if meta.language else None) or "en"
    items, tests = _read_resources(package, manifest, name, default_locale, problems)
    groups = _group(items, tests, problems)
    if not groups:
        problems.append(Problem(name, None, "the package has no choice item moe-lms can import"))
        raise ProblemsFound(problems)
    present = list(dict.fromkeys([*(t.locale for t in tests if t.locale), *(i.locale for i in items.values())]))
    source = default_locale if default_locale in present else present[0]
    source_lang = locale_info(source).lang
    targets = [loc for loc in present if loc != source]

    questions: list[Question] = []
    translations: dict[str, dict[str, Translation]] = {loc: {} for loc in targets}
    foreign: dict[str, int] = {}  # languages of source-locale strings that are not in the source language
    for qid, versions in groups.items():
        question = question_of(qid, versions, source, problems)
        if question is None:
            continue
        questions.append(question)
        for text in versions[source].texts():
            if text.lang is not None and not same_lang(text.lang, source_lang):
                foreign[text.lang] = foreign.get(text.lang, 0) + 1
        for locale, item in versions.items():
            if locale != source:
                translate(question, item, locale, translations[locale], problems)
    if foreign:
        languages = ", ".join(f"{n} in {lang}" for lang, n in foreign.items())
        message = (
            f"the source locale {source} has strings in another language ({languages}): they fell back when the"
            " package was exported; import a package of every locale to keep the original source"
        )
        problems.append(Problem(name, None, message, severity=Severity.WARNING))

    source_test = next((t for t in tests if t.locale == source), None)
    titles = dict(reversed(meta.titles))
    title = _plain_markdown(titles.get(source_lang) or (source_test.title if source_test else None) or name)
    bank_id = meta.id or (source_test.identifier.removesuffix(f"-{source}") if source_test else None)
    raw: dict[str, object] = {
        "id": slug(bank_id or posixpath.basename(name).split(".")[0]),
        "title": title,
        "source_locale": source,
        "target_locales": targets,
        "tags": list(meta.tags),
        "questions": questions,
        "translations": translations,
    }
    intro = source_test.intro.markdown() if source_test is not None and source_test.intro is not None else None
    if intro is not None:
        raw["intro"] = intro
    for test in tests:
        if test.locale not in translations:
            continue
        lang, catalog = locale_info(test.locale).lang, translations[test.locale]
        if lang in titles:  # a title that fell back is in the source language, so it has no entry here
            catalog["title"] = Translation(text=_plain_markdown(titles[lang]), source=title)
        if intro is not None and test.intro is not None and same_lang(test.intro.lang, lang):
            catalog["intro"] = Translation(text=test.intro.markdown(), source=intro)

    texts = [*bank_texts(questions), *(t.text for c in translations.values() for t in c.values())]
    raw["media"] = packaged_media(package.read, "", texts, name, problems)
    # No no_questions problem of its own, unlike QTI 1.2: a bank without questions fails the bank's validation.
    return validated_bank(raw, name, problems)


def load(data: bytes, *, name: str = "package.zip") -> Bank:
    """A bank from a QTI 2.1 package; raises ProblemsFound with every error (warnings are dropped)."""
    return read_package(data, name=name)[0]
