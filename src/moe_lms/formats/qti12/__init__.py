"""IMS QTI 1.2.1 items, both directions: the one item model IMS Common Cartridge 1.1 and Canvas's own QTI share.

An item is a choice question (``response_lid`` with a ``render_choice``), scored by ``resprocessing`` and with
one ``itemfeedback`` per choice plus the general explanation. The two flavours differ only in metadata:

- **Common Cartridge** (:attr:`Flavour.CC`): ``cc_profile`` names the question type (``cc.multiple_choice.v0p1``,
  ``cc.multiple_response.v0p1``, ``cc.true_false.v0p1``) and ``cc_weighting`` the points. Moodle's importer
  (moodle/moodle backup/cc/entity11.quiz.class.php) takes the type from ``cc_profile``, the points from
  ``cc_weighting`` (as an integer), each answer's feedback from the ``displayfeedback`` of the respcondition whose
  ``varequal`` names it, and the general feedback from every ``continue="Yes"`` respcondition's feedback.
- **Canvas** (:attr:`Flavour.CANVAS`): ``question_type``, ``points_possible``, ``original_answer_ids`` and
  ``assessment_question_identifierref``, as Canvas writes them when it exports a quiz (instructure/canvas-lms
  lib/cc/qti/qti_items.rb, ``add_question``) and text2qti writes them. The same file is Canvas's reference for the
  shapes both flavours share: ``response_lid ident="response1"``, a ``decvar`` SCORE of 0–100, the general
  feedback ``general_fb`` shown by a ``<other/>`` respcondition (Canvas reads it as the question's neutral
  comment), each answer's ``<answer id>_fb`` shown by a ``continue="Yes"`` respcondition on its ``varequal``
  (read into the answer's comments), and the scoring respcondition last with ``continue="No"``
  (``multiple_choice_resprocessing`` / ``multiple_answers_resprocessing``). Canvas converts QTI 1.2 to 2.1 before
  reading it (gems/plugins/qti_exporter/lib/qti/converter.rb); the reader,
  gems/plugins/qti_exporter/lib/qti/assessment_item_converter.rb, takes ``question_type``, ``points_possible``,
  ``assessment_question_identifierref`` and ``original_answer_ids`` from the item metadata
  (``parse_instructure_metadata``), the neutral comments from feedback named ``general_…`` and each answer's comments
  from the feedback its condition shows (``get_feedback`` / ``attach_feedback_values``).

Every text is HTML in ``mattext texttype="text/html"``, wrapped in ``<div lang=".." dir="..">`` so the LMS renders
the language and direction (right-to-left Urdu included) and ``xml:lang`` on the ``mattext`` says the same for QTI
readers. Text that fell back to the source locale carries the source's language. Reading accepts what others write
too (Canvas exports, text2qti, Moodle): no wrapper, plain text, feedback found by structure or by name.

Why it is over 700 lines (issue 19): it is the one item model both flavours share, writer and the reader's item
parsing together, so that what one writes the other reads (the round-trip tests hold them to it); read.py and the
cc11 and canvas_qti packages hold what differs. It must not know a package layout or a manifest.
"""

from __future__ import annotations

import html
import io
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from typing import IO, TYPE_CHECKING, NamedTuple, Protocol

import lxml.html
from lxml import etree

from ...locales import LocalizedView, Origin, Resolved, from_language_tag, locale_info
from ...model import Kind, MediaItem, Question
from ...problems import Problem, Severity
from ...richtext import (
    NOWRAP_STYLE,
    Profile,
    direction_style,
    latin_isolated,
    markdown_from_rich_html,
    plain_text,
    render_block,
    render_inline,
)
from ...skeleton import Skeleton, escape_text, raw, slot, xml_compatible
from ...unrender import markdown_from_html
from ..imported import ParsedChoice, ParsedItem, number, slug
from ..ims.xhtml import inherited_lang

if TYPE_CHECKING:
    from lxml.etree._serializer import _IncrementalFileWriter

QTI = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
SCHEMA_LOCATION = f"{{{XSI}}}schemaLocation"
CC_QTI_XSD_URL = "http://www.imsglobal.org/profile/cc/ccv1p1/ccv1p1_qtiasiv1p2p1_v1p0.xsd"
QTI_XSD_URL = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2p1.xsd"
NSMAP = {None: QTI, "xsi": XSI}

RESPONSE = "response1"
GENERAL_FEEDBACK = "general_fb"  # Canvas: the question's neutral comments (qti_items.rb item_feedback)
TAGS_FIELD = "moe_lms_tags"
KIND_FIELD = "moe_lms_kind"  # the bank's kind where the declared type differs (see _declared)
# The bank's overall messages, named as Canvas's exporter names them and its importer reads them (qti_items.rb; see
# _CANVAS_FEEDBACK_WORDS): the correct comments, shown with the scoring condition, and the incorrect comments.
CORRECT_FEEDBACK, INCORRECT_FEEDBACK = OVERALL = ("correct_fb", "general_incorrect_fb")
CANVAS_GENERAL_FEEDBACK = frozenset({GENERAL_FEEDBACK, *OVERALL})


class Flavour(Enum):
    CC = "cc"
    CANVAS = "canvas"


CC_PROFILES = {
    Kind.SINGLE: "cc.multiple_choice.v0p1",
    Kind.MULTIPLE: "cc.multiple_response.v0p1",
    Kind.TRUE_FALSE: "cc.true_false.v0p1",
}
CANVAS_TYPES = {
    Kind.SINGLE: "multiple_choice_question",
    Kind.MULTIPLE: "multiple_answers_question",
    Kind.TRUE_FALSE: "true_false_question",
}
KIND_OF_TYPE = {v: k for k, v in (*CC_PROFILES.items(), *CANVAS_TYPES.items())}


def q(tag: str) -> str:
    return f"{{{QTI}}}{tag}"


def num(value: float) -> str:
    """1 not 1.0, so output never depends on how the bank spelled a number."""
    number = float(value)
    return str(int(number)) if number.is_integer() else repr(number)


# Canvas sorts feedback by its identifier before it looks at the conditions (gems/plugins/qti_exporter/lib/qti/
# assessment_item_converter.rb get_feedback): /wrong|incorrect|_IC$/ → incorrect comments, /correct|_C$/ → correct
# comments, /solution/ → example solution, /general_|_all/ → neutral comments; and get_feedback_id drops an answer's
# feedback whose id matches /general_|_all|wrong|incorrect|correct|(_IC$)|(_C$)/i. An answer's feedback must match
# none of them.
_CANVAS_FEEDBACK_WORDS = re.compile(r"wrong|correct|solution|general_|_all|_IC$|_C$", re.I)


def canvas_reads_as_answer_feedback(ident: str) -> bool:
    """Whether Canvas keeps feedback named ``ident`` as an answer's comments (not the question's)."""
    return _CANVAS_FEEDBACK_WORDS.search(ident) is None


def feedback_idents(choice_ids: Sequence[str]) -> list[str]:
    """Each choice's feedback identifier: ``<choice>_fb``, as Canvas names answer feedback, unless Canvas would read
    that as another kind of feedback; then ``choice<n>_fb`` (``n`` counting from 1), or ``choice<n>-<k>_fb`` where
    that is taken. Never the same for two choices, nor one of the item's own (``general_fb``, the overall ones)."""
    wanted = [f"{choice_id}_fb" for choice_id in choice_ids]
    taken = {ident for ident in wanted if canvas_reads_as_answer_feedback(ident)} | {GENERAL_FEEDBACK, *OVERALL}
    idents = []
    for index, ident in enumerate(wanted):
        if not canvas_reads_as_answer_feedback(ident):
            ident, k = f"choice{index + 1}_fb", 1
            while ident in taken:
                k += 1
                ident = f"choice{index + 1}-{k}_fb"
            taken.add(ident)
        idents.append(ident)
    return idents


def item_ident(question_id: str, locale: str) -> str:
    return f"{question_id}-{locale}"


# --- writing -----------------------------------------------------------------------------------------------------


def _sub(
    parent: etree._Element, tag: str, attrib: dict[str, str] | None = None, text: str | None = None
) -> etree._Element:
    element = etree.SubElement(parent, q(tag), attrib)
    if text is not None:
        element.text = text
    return element


def wrapped_html(resolved: Resolved, render: Callable[[str], str]) -> str:
    """A string as HTML in a ``div`` that names its language and direction (what LMSs render from)."""
    info = locale_info(resolved.lang.replace("-", "_"))
    style = f' style="{direction_style(info.lang)}"' if info.rtl else ""  # (what each LMS keeps: right-to-left.md)
    # (a Latin-only text, the choice "64 KiB", is an LTR isolate in a right-to-left wrapper: KiB 64 else)
    rendered = latin_isolated(render(resolved.text)) if info.rtl else render(resolved.text)
    return f'<div lang="{html.escape(info.lang)}" dir="{info.direction}"{style}>{rendered}</div>'


# Images travel as Canvas and Common Cartridge carry them: files under web_resources/ (Canvas's exporter: lib/cc/
# cc_helper.rb WEB_RESOURCES_FOLDER), referred to from the HTML by a path each importer resolves:
# - a cartridge: $IMS-CC-FILEBASE$../web_resources/<path>, as Moodle's own CC export writes it. Moodle's CC restore
#   resolves the token against the folder of the QTI file (backup/cc/entities.class.php update_sources, full_path),
#   and every QTI file of a cartridge sits one folder down (quiz-<locale>/, question_bank/); Canvas's cartridge
#   import drops the token and a leading ../ and finds the file by its path under web_resources/ (lib/cc/importer/
#   standard/converter.rb replace_urls, get_canvas_att_replacement_url, find_file_migration_id).
# - Canvas's QTI package: web_resources/<path>, the path Canvas registers the file under. Its QTI importer removes
#   only tokens matching /\$[A-Z_]*\$/ (which $IMS-CC-FILEBASE$, with its hyphens, does not) and looks the rest up
#   among the package's files (gems/plugins/qti_exporter/lib/qti/html_helper.rb sanitize_html!,
#   find_best_path_match).
WEB_RESOURCES = "web_resources"
FILEBASE = "$IMS-CC-FILEBASE$"


def web_resource_path(item: MediaItem) -> str:
    """Where a bank image sits in a cartridge or Canvas package: ``web_resources/media/x.png``."""
    return f"{WEB_RESOURCES}/{item.path}"


def image_url(flavour: Flavour) -> Callable[[MediaItem], str]:
    """How the items of ``flavour`` refer to a bank image (see WEB_RESOURCES)."""
    if flavour is Flavour.CC:
        return lambda item: f"{FILEBASE}../{WEB_RESOURCES}/{item.path}"
    return web_resource_path


def rich_profile(media: Mapping[str, MediaItem], flavour: Flavour) -> Profile:
    """Math as \\(…\\) / \\[…\\] (MathJax in Canvas and Moodle), images from web_resources/."""
    return Profile(math="tex", image_url=image_url(flavour), media=media, isolate="span")  # (Canvas imports both)


# An image's src as our items and others' write it: $IMS-CC-FILEBASE$/<path under web_resources/> (Canvas's and
# earlier moe-lms cartridges), $IMS-CC-FILEBASE$../web_resources/<path> (Moodle's, ours), web_resources/<path>.
_PACKAGE_SRC = re.compile(
    r"(?:(?:\$|%24)IMS-CC-FILEBASE(?:\$|%24)(?:/|\.\./" + WEB_RESOURCES + "/)|" + WEB_RESOURCES + "/)"
)


def package_image_path(src: str) -> str | None:
    """The path under web_resources/ of an image ``src`` (HTML-unescaped) that points into the package, else None."""
    found = _PACKAGE_SRC.match(src)
    return src[found.end() :] if found else None


# White space as PHP's PCRE [[:space:]] reads it (ASCII only: a no-break space is none).
_GAP = re.compile(r"(<[^<>]*>)([ \t\n\r\f\v]+)(?=<[^<>]*>)")
_BLOCK_TAG = re.compile(r"</?(?:p|div|ul|ol|li|pre|code|h[1-6]|blockquote|table|thead|tbody|tr|td|th|hr|br)\b")
_PRE = re.compile(r"(<pre\b.*?</pre>)", re.S)
NBSP = "\u00a0"


def _prose_gap(match: re.Match[str]) -> str:
    left, gap = match.group(1), match.group(2)
    right = match.string[match.end() :]  # (starts with the next tag)
    if _BLOCK_TAG.match(left) or _BLOCK_TAG.match(right):
        return left + gap  # between blocks: text_to_html deletes it, and it shows nothing anyway
    return left + NBSP * len(gap)  # between inline elements (</strong> <em>) it is a word space


def _code_gap(match: re.Match[str]) -> str:
    return match.group(1) + NBSP * len(match.group(2))  # (in a <pre>, each space counts)


def without_raw_breaks(markup: str) -> str:
    """HTML that Moodle's CC restore shows as it is.

    The restore decodes every character reference (backup/cc/entities.class.php safexml: ``html_entity_decode``)
    and then runs ``text_to_html()`` (backup/converter/moodle1/handlerlib.php, lib/weblib.php), which deletes white
    space between tags and turns each remaining line break into ``<br />``. So: in a ``<pre>`` each line break
    becomes ``<br>`` and white space between tags no-break spaces (the spaces and indentation of highlighted code);
    elsewhere white space between inline elements becomes no-break spaces, a line break between two characters of
    text a space, and white space between blocks or beside a tag stays (text_to_html deletes it or makes it a
    space: it shows the same). :func:`with_raw_breaks` undoes it for a reader.
    (A stem still meets Moodle's re-serialisation, update_sources in entities.class.php: ``<br>`` there becomes
    ``<br></br>``, two breaks.)"""
    if "\n" not in markup and "\r" not in markup and _GAP.search(markup) is None:
        return markup
    markup = markup.replace("\r\n", "\n").replace("\r", "\n")
    parts = _PRE.split(markup)
    for k, part in enumerate(parts):
        if k % 2:  # a <pre> … </pre> (its last line break ends no line)
            code = re.sub(r"\n(?=(?:</[a-z]+>)*</pre>$)", "", part)
            parts[k] = _GAP.sub(_code_gap, code.replace("\n", "<br>"))
        else:
            kept = _GAP.sub(_prose_gap, part)
            parts[k] = re.sub(r"(?<!>)\n(?!<)", " ", kept)  # (one beside a tag text_to_html makes a space)
    return "".join(parts)


def with_raw_breaks(markup: str) -> str:
    """The HTML :func:`without_raw_breaks` was given (but for line breaks inside text, now spaces)."""
    if NBSP not in markup and "<br>" not in markup:
        return markup
    parts = _PRE.split(markup)
    for k, part in enumerate(parts):
        if k % 2:
            code = part.replace("<br>", "\n").replace(NBSP, " ")
            parts[k] = re.sub(r"(?<!\n)((?:</[a-z]+>)*</pre>)$", r"\n\1", code)
        else:
            parts[k] = re.sub(r"(?<=>)\u00a0+(?=<)", lambda m: " " * len(m.group(0)), part)
    return "".join(parts)


def cartridge_html(render: Callable[[str], str]) -> Callable[[str], str]:
    """``render``, then :func:`without_raw_breaks`: how a cartridge's texts are made."""
    return lambda text: without_raw_breaks(render(text))


def material(parent: etree._Element, resolved: Resolved, render: Callable[[str], str]) -> etree._Element:
    """``material/mattext texttype="text/html"`` holding one resolved string, its language on ``xml:lang``."""
    mat = _sub(parent, "material")
    text = _sub(mat, "mattext", {"texttype": "text/html"}, wrapped_html(resolved, render))
    text.set(XML_LANG, resolved.lang)
    return mat


def _field(parent: etree._Element, label: str, entry: str) -> None:
    meta = _sub(parent, "qtimetadatafield")
    _sub(meta, "fieldlabel", text=label)
    _sub(meta, "fieldentry", text=entry)


def metadata(parent: etree._Element | None, fields: Iterable[tuple[str, str]]) -> etree._Element:
    """``qtimetadata`` with one field per (label, entry), appended to ``parent`` (or standing alone)."""
    box = etree.Element(q("qtimetadata"), nsmap={None: QTI}) if parent is None else _sub(parent, "qtimetadata")
    for label, entry in fields:
        _field(box, label, entry)
    return box


def _shorten(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def stem_title(view: LocalizedView, question: Question, limit: int = 80) -> str:
    return _shorten(plain_text(view.stem(question).text), limit)


def _displayfeedback(parent: etree._Element, ident: str) -> None:
    _sub(parent, "displayfeedback", {"feedbacktype": "Response", "linkrefid": ident})


# --- items: one description of their shape, used element by element or as a skeleton ---------------------------


class _Shape(NamedTuple):
    """What the elements of an item depend on; items of one shape differ only in their text."""

    flavour: Flavour
    kind: Kind
    choices: int
    correct: tuple[bool, ...]  # which choices are correct, for a multiple-answer item (its scoring says it); else ()
    tagged: bool
    kind_field: bool = False  # a true/false item declared as multiple choice, its kind in KIND_FIELD (see _declared)


# An item's values, by position: these, then the metadata fields' entries, the choice ids, their feedback idents,
# (CC, one answer) each choice's score, (Canvas, one answer) the correct choice's id; then 2 per content: the
# ``xml:lang`` of its ``mattext`` and its text as XML (the language div around its HTML, escaped).
_IDENT, _TITLE, _LANG, _SHUFFLE = range(4)
_FIXED = 4
# Contents, by position: the stem, each choice, the general feedback, each choice's feedback.
_PER_CONTENT = 2


def _field_labels(shape: _Shape) -> list[str]:
    if shape.flavour is Flavour.CC:
        labels = ["cc_profile", "cc_weighting"]
    else:
        labels = ["question_type", "points_possible", "original_answer_ids", "assessment_question_identifierref"]
    labels = [*labels, TAGS_FIELD] if shape.tagged else labels  # ours: an LMS ignores a field it does not know
    return [*labels, KIND_FIELD] if shape.kind_field else labels


def _declared(question: Question, flavour: Flavour) -> Kind:
    """The kind an item declares. A cartridge's true/false item is multiple choice unless its choices are ``true``
    and ``false``: Moodle's CC restore takes a cc.true_false item's answers by those identifiers and stops the whole
    restore on any other ("Unknown answer identifier", backup/cc/entity11.quiz.class.php
    create_node_course_question_categories_question_category_question_true_false); KIND_FIELD keeps the kind."""
    if (
        flavour is Flavour.CC
        and question.kind is Kind.TRUE_FALSE
        and sorted(c.id for c in question.choices) != ["false", "true"]
    ):
        return Kind.SINGLE
    return question.kind


def _scored_per_choice(shape: _Shape) -> bool:
    # One answer (single, true-false) in the CC profile: the chosen choice's condition scores it, shows its feedback
    # and ends processing, so Moodle, which takes every continue="Yes" condition's feedback as the general feedback
    # (backup/cc/entity11.quiz.class.php get_general_feedback), gets the general explanation alone. Canvas's shape
    # (and every multiple-answer item, where several conditions must fire) keeps scoring in a last condition.
    return shape.flavour is Flavour.CC and shape.kind is not Kind.MULTIPLE


def _overall(shape: _Shape) -> tuple[str, ...]:
    """The overall messages' feedback of an item: Canvas's (read as the question's correct and incorrect comments,
    assessment_item_converter.rb get_feedback). None in a cartridge: Moodle's CC restore would show them to everyone,
    as it takes every continue="Yes" condition's feedback for the general feedback (entity11.quiz.class.php
    get_general_feedback), and a condition that ends processing would end it before the choice's own."""
    return OVERALL if shape.flavour is Flavour.CANVAS else ()


def _contents_start(shape: _Shape) -> int:
    """Where the contents' values start: after the fixed values, fields, ids, feedback idents and scoring's."""
    n = shape.choices
    scoring = n if _scored_per_choice(shape) else 1 if shape.kind is not Kind.MULTIPLE else 0
    return _FIXED + len(_field_labels(shape)) + 2 * n + scoring


# Builds the ``material`` of one content of an item: (parent, index among the item's contents).
ContentMaker = Callable[[etree._Element, int], None]


def _item_element(shape: _Shape, values: Sequence[str], content: ContentMaker) -> etree._Element:
    """An ``item`` of ``shape`` with ``values`` (see _IDENT): real text, or skeleton markers."""
    n = shape.choices
    labels = _field_labels(shape)
    at = _FIXED + len(labels)
    ids, feedback_ids = values[at : at + n], values[at + n : at + 2 * n]
    at += 2 * n
    item = etree.Element(q("item"), {"ident": values[_IDENT], "title": values[_TITLE]}, nsmap={None: QTI})
    item.set(XML_LANG, values[_LANG])
    metadata(_sub(item, "itemmetadata"), zip(labels, values[_FIXED : _FIXED + len(labels)], strict=True))

    presentation = _sub(item, "presentation")
    content(presentation, 0)
    multiple = shape.kind is Kind.MULTIPLE
    lid = _sub(presentation, "response_lid", {"ident": RESPONSE, "rcardinality": "Multiple" if multiple else "Single"})
    render = _sub(lid, "render_choice", {"shuffle": values[_SHUFFLE]})
    for j, choice_id in enumerate(ids):
        content(_sub(render, "response_label", {"ident": choice_id}), 1 + j)

    processing = _sub(item, "resprocessing")
    _sub(
        _sub(processing, "outcomes"),
        "decvar",
        {"maxvalue": "100", "minvalue": "0", "varname": "SCORE", "vartype": "Decimal"},
    )
    general = _sub(processing, "respcondition", {"continue": "Yes"})
    _sub(_sub(general, "conditionvar"), "other")
    _displayfeedback(general, GENERAL_FEEDBACK)
    scored_per_choice = _scored_per_choice(shape)
    for j, choice_id in enumerate(ids):
        chosen = _sub(processing, "respcondition", {"continue": "No" if scored_per_choice else "Yes"})
        _sub(_sub(chosen, "conditionvar"), "varequal", {"respident": RESPONSE}, choice_id)
        if scored_per_choice:
            _sub(chosen, "setvar", {"action": "Set", "varname": "SCORE"}, values[at + j])
        _displayfeedback(chosen, feedback_ids[j])
    if not scored_per_choice:
        scoring = _sub(processing, "respcondition", {"continue": "No"})
        condition = _sub(scoring, "conditionvar")
        if multiple:  # all correct choices and none of the others (Canvas's multiple_answers_resprocessing)
            both = _sub(condition, "and")
            # case="Yes" (compare exactly, as identifiers are): Moodle's CC restore takes as correct only the choices
            # whose varequal says so (backup/cc/entity11.quiz.class.php get_answers), else stores every fraction 0.
            exact = {"case": "Yes"} if shape.flavour is Flavour.CC else {}
            for choice_id, correct in zip(ids, shape.correct, strict=True):
                holder = both if correct else _sub(both, "not")
                _sub(holder, "varequal", {"respident": RESPONSE, **exact}, choice_id)
        else:
            _sub(condition, "varequal", {"respident": RESPONSE}, values[at])
        _sub(scoring, "setvar", {"action": "Set", "varname": "SCORE"}, "100")
    overall = _overall(shape)
    if overall:  # Canvas's shape (qti_items.rb): the correct comments with the key, the incorrect ones otherwise
        _displayfeedback(scoring, CORRECT_FEEDBACK)
        otherwise = _sub(processing, "respcondition", {"continue": "Yes"})
        _sub(_sub(otherwise, "conditionvar"), "other")
        _displayfeedback(otherwise, INCORRECT_FEEDBACK)

    for j, ident in enumerate([GENERAL_FEEDBACK, *feedback_ids, *overall]):
        content(_sub(_sub(item, "itemfeedback", {"ident": ident}), "flow_mat"), 1 + n + j)
    return item


def _item_values(question: Question, view: LocalizedView, flavour: Flavour) -> tuple[_Shape, list[str]]:
    """One question in one locale: its shape and its values before the contents (no title yet)."""
    qn = question
    ident = item_ident(qn.id, view.locale)
    ids = [c.id for c in qn.choices]
    multiple = qn.kind is Kind.MULTIPLE
    declared = _declared(qn, flavour)
    correct = tuple(c.correct for c in qn.choices) if multiple else ()
    shape = _Shape(flavour, qn.kind, len(ids), correct, bool(qn.tags), declared is not qn.kind)
    values = [ident, "", view.info.lang, "Yes" if qn.shuffle else "No"]
    if flavour is Flavour.CC:
        values += (CC_PROFILES[declared], num(qn.points))
    else:
        values += (CANVAS_TYPES[declared], num(qn.points), ",".join(ids), f"{ident}-ref")
    if qn.tags:
        values.append(" ".join(qn.tags))
    if shape.kind_field:
        values.append(qn.kind.value)
    values += ids
    values += feedback_idents(ids)
    if _scored_per_choice(shape):
        values += ["100" if c.correct else "0" for c in qn.choices]
    elif not multiple:
        values.append(qn.correct_choices[0].id)
    return shape, values


def _contents(question: Question, view: LocalizedView, flavour: Flavour) -> list[Resolved]:
    """The item's contents in order: the stem, each choice, the general feedback, each choice's feedback, (Canvas)
    the overall correct and incorrect messages."""
    texts = view.question_texts(question)  # stem, explanation, then each choice's text and explanation
    overall = [view.feedback("correct"), view.feedback("incorrect")] if flavour is Flavour.CANVAS else []
    return [texts[0], *texts[2::2], texts[1], *texts[3::2], *overall]


def _inline(shape: _Shape, index: int) -> bool:
    """Whether content ``index`` is rendered inline (the choices) or as blocks (the stem, the feedback)."""
    return 1 <= index <= shape.choices


NUMERICAL_TYPE = "numerical_question"
CC_FIB = "cc.fib.v0p1"
NUMERICAL_LIST = "moe-anticipated"  # the class of the list of anticipated values in the incorrect comments


def value_classes(choice_id: str, value: float, tolerance: float) -> str:
    """The classes of an anticipated value's list item: its choice id, value and tolerance, where an import finds
    them again. Classes, not data- attributes: Canvas's sanitizer keeps class (canvas_sanitize.rb), not data-*."""
    from ...numeric import number_text

    return f"moe-choice-{choice_id} moe-value-{number_text(value)} moe-tolerance-{number_text(tolerance)}"


def read_value_classes(classes: str) -> tuple[str | None, float | None, float]:
    """What :func:`value_classes` wrote: (choice id, value, tolerance)."""
    found = {}
    for token in classes.split():
        for key in ("choice", "value", "tolerance"):
            if token.startswith(f"moe-{key}-"):
                found[key] = token.removeprefix(f"moe-{key}-")
    value, tolerance = number(found.get("value")), number(found.get("tolerance"))
    return found.get("choice"), None if value is None else float(value), float(tolerance or 0)


def numerical_refusal(question: Question) -> str | None:
    """Why a cartridge cannot carry a numerical question exactly, or None: its QTI profile has no numerical type,
    and its fill-in-the-blank (``cc.fib``) compares the typed text with each value as text, which is exact only when
    no value has a tolerance."""
    if any(question.tolerance_of(c) for c in question.choices):
        return (
            "a numerical question with a tolerance cannot go into a Common Cartridge: its QTI profile has no "
            "numerical type, and a fill-in-the-blank (cc.fib) matches typed text exactly; set every tolerance to 0, "
            "or leave the question out of this export"
        )
    return None


def build_numerical_item(question: Question, view: LocalizedView, flavour: Flavour) -> etree._Element:
    """A numerical question as an item: a ``response_str`` with a ``render_fib``, and per value a condition.

    Canvas (qti_items.rb ``numerical_resprocessing``, read back by lib/qti/numeric_interaction.rb): type
    ``numerical_question``, ``render_fib fibtype="Decimal"``, a condition per correct value ``or(varequal value,
    and(vargte value - tolerance, varlte value + tolerance))`` that scores 100 and shows the value's explanation
    and the correct comments; every Canvas numerical answer is correct, so the anticipated values, each with its
    explanation, are listed (``ul class="moe-anticipated"``, each ``li`` naming its value in its classes:
    :func:`value_classes`) in the incorrect comments, shown otherwise. A cartridge (every tolerance 0,
    :func:`numerical_refusal`): ``cc.fib``, a condition per value on its exact text (score 100 or 0, its
    explanation)."""
    from ...numeric import number_text

    ident = item_ident(question.id, view.locale)
    item = etree.Element(q("item"), {"ident": ident, "title": stem_title(view, question)}, nsmap={None: QTI})
    item.set(XML_LANG, view.info.lang)
    fields: list[tuple[str, str]]
    correct_ids = [c.id for c in question.correct_choices]
    if flavour is Flavour.CC:
        fields = [("cc_profile", CC_FIB), ("cc_weighting", num(question.points))]
    else:
        fields = [
            ("question_type", NUMERICAL_TYPE),
            ("points_possible", num(question.points)),
            ("original_answer_ids", ",".join(correct_ids)),
            ("assessment_question_identifierref", f"{ident}-ref"),
        ]
    if question.tags:
        fields.append((TAGS_FIELD, " ".join(question.tags)))
    fields.append((KIND_FIELD, question.kind.value))
    metadata(_sub(item, "itemmetadata"), fields)
    render = cartridge_html(render_block) if flavour is Flavour.CC else render_block
    presentation = _sub(item, "presentation")
    material(presentation, view.stem(question), render)
    response = _sub(presentation, "response_str", {"ident": RESPONSE, "rcardinality": "Single"})
    fib = _sub(response, "render_fib", {"fibtype": "Decimal"} if flavour is Flavour.CANVAS else {})
    _sub(fib, "response_label", {"ident": "answer1"})
    unit = view.unit(question)
    if unit is not None:
        material(presentation, unit, cartridge_html(render_inline) if flavour is Flavour.CC else render_inline)

    processing = _sub(item, "resprocessing")
    _sub(
        _sub(processing, "outcomes"),
        "decvar",
        {"maxvalue": "100", "minvalue": "0", "varname": "SCORE", "vartype": "Decimal"},
    )
    general = _sub(processing, "respcondition", {"continue": "Yes"})
    _sub(_sub(general, "conditionvar"), "other")
    _displayfeedback(general, GENERAL_FEEDBACK)
    answered = question.choices if flavour is Flavour.CC else question.correct_choices
    idents = dict(zip([c.id for c in question.choices], feedback_idents([c.id for c in question.choices]), strict=True))
    for c in answered:
        value, tolerance = question.value_of(c), question.tolerance_of(c)
        condition = _sub(processing, "respcondition", {"continue": "No"})
        holder = _sub(condition, "conditionvar")
        if flavour is Flavour.CANVAS:
            either = _sub(holder, "or")
            _sub(either, "varequal", {"respident": RESPONSE}, number_text(value))
            both = _sub(either, "and")
            _sub(both, "vargte", {"respident": RESPONSE}, number_text(value - tolerance))
            _sub(both, "varlte", {"respident": RESPONSE}, number_text(value + tolerance))
        else:
            _sub(holder, "varequal", {"respident": RESPONSE}, number_text(value))
        _sub(condition, "setvar", {"action": "Set", "varname": "SCORE"}, "100" if c.correct else "0")
        _displayfeedback(condition, idents[c.id])
        if flavour is Flavour.CANVAS:
            _displayfeedback(condition, CORRECT_FEEDBACK)
    if flavour is Flavour.CANVAS:
        otherwise = _sub(processing, "respcondition", {"continue": "Yes"})
        _sub(_sub(otherwise, "conditionvar"), "other")
        _displayfeedback(otherwise, INCORRECT_FEEDBACK)

    def feedback(ident: str, resolved: Resolved, html: Callable[[str], str] = render) -> None:
        material(_sub(_sub(item, "itemfeedback", {"ident": ident}), "flow_mat"), resolved, html)

    feedback(GENERAL_FEEDBACK, view.explanation(question))
    for c in answered:
        feedback(idents[c.id], view.choice_explanation(question, c))
    if flavour is Flavour.CANVAS:
        feedback(CORRECT_FEEDBACK, view.feedback("correct"))
        incorrect = view.feedback("incorrect")
        anticipated = [c for c in question.choices if not c.correct]
        listed = ""
        for c in anticipated:
            value, tolerance = question.value_of(c), question.tolerance_of(c)
            shown = number_text(value) + (f" ± {number_text(tolerance)}" if tolerance else "")
            explanation = view.choice_explanation(question, c)
            listed += (
                f'<li class="{value_classes(c.id, value, tolerance)}">'
                f'<span dir="ltr" style="{NOWRAP_STYLE}">{shown}</span>: {wrapped_html(explanation, render_block)}</li>'
            )
        with_list = (
            (lambda text: render_block(text) + f'<ul class="{NUMERICAL_LIST}">{listed}</ul>') if listed else render
        )
        feedback(INCORRECT_FEEDBACK, incorrect, with_list)
    return item


def build_item(question: Question, view: LocalizedView, flavour: Flavour) -> etree._Element:
    """One question in one locale as an ``item``, element by element (:class:`Items` writes the same bytes
    faster)."""
    if question.numerical:
        return build_numerical_item(question, view, flavour)
    shape, values = _item_values(question, view, flavour)
    values[_TITLE] = stem_title(view, question)
    contents = _contents(question, view, flavour)

    def content(parent: etree._Element, index: int) -> None:
        render = render_inline if _inline(shape, index) else render_block
        material(parent, contents[index], cartridge_html(render) if flavour is Flavour.CC else render)

    return _item_element(shape, values, content)


class Items:
    """Serialised items, indented as :func:`put` writes them: the bytes :func:`build_item` gives, from one
    skeleton per shape (a handful for a whole bank). A bank's items only; a quiz's are built element by element.
    Measured in issue 29 (docs/design/speed.md): the 10k bank's Canvas QTI export 4.97 s of CPU with it, 9.72 s
    without; no floor covers QTI 1.2 yet, so whether it stays is open there. One per export (it holds a few
    skeletons and each language's wrapper)."""

    # Distinct skeletons kept; a bank whose items are more varied than that builds the rest as it goes.
    LIMIT = 512

    def __init__(self) -> None:
        self._skeletons: dict[_Shape, Skeleton] = {}
        self._wrappers: dict[str, tuple[str, str, str, str]] = {}

    @staticmethod
    def _skeleton(shape: _Shape) -> Skeleton:
        start = _contents_start(shape)

        def content(parent: etree._Element, index: int) -> None:
            at = start + _PER_CONTENT * index
            mattext = _sub(_sub(parent, "material"), "mattext", {"texttype": "text/html"})
            mattext.text = raw(at + 1)
            mattext.set(XML_LANG, slot(at))

        element = _item_element(shape, [slot(i) for i in range(start)], content)
        # Every value is an id, a number, a constant or a language tag, but the title and the contents (raw XML).
        contents = 2 * shape.choices + 2 + len(_overall(shape))
        verbatim = {*range(start), *(start + _PER_CONTENT * i for i in range(contents))} - {_TITLE}
        return Skeleton.of(element, verbatim=verbatim, pretty_print=True)

    def _wrapper(self, lang: str) -> tuple[str, str, str, str]:
        """The start and end of a content's text in language ``lang`` (see :func:`wrapped_html`) as XML text, with
        the paragraph of block text that renders as itself, then without (other HTML holds its own)."""
        found = self._wrappers.get(lang)
        if found is None:
            start, end = wrapped_html(Resolved("", Origin.SOURCE, lang), lambda _: "\0").split("\0")
            start_p, end_p, start, end = (escape_text(s) for s in (start + "<p>", "</p>" + end, start, end))
            found = self._wrappers[lang] = (start_p, end_p, start, end)
        return found

    def _rtl(self, lang: str) -> bool:
        """Whether language ``lang`` is right to left (its wrapper's direction, see :func:`wrapped_html`)."""
        return locale_info(lang.replace("-", "_")).rtl

    def serialise(self, question: Question, view: LocalizedView, flavour: Flavour) -> bytes:
        if question.numerical:  # (few, of no shared shape: built element by element)
            data: bytes = etree.tostring(
                build_numerical_item(question, view, flavour), encoding="UTF-8", pretty_print=True
            )
            return data
        shape, values = _item_values(question, view, flavour)
        texts = view.question_texts(question)  # stem, explanation, then each choice's text and explanation
        plain = view.question_plain(question, texts)  # 1 where a text renders as itself everywhere
        stem = texts[0].text
        fast = plain[0]
        values[_TITLE] = _shorten(stem) if fast else stem_title(view, question)  # (the same for such text)
        wrappers, append = self._wrappers, values.append
        # Text that renders as itself has nothing XML escapes (no & < > \r): it goes in as it is once no text of the
        # item holds a character XML cannot carry (else escape_text refuses it, as lxml would).
        clean = xml_compatible("".join([resolved[0] for resolved in texts]))
        # The contents in order: the stem, each choice (inline), the general feedback, each choice's feedback.
        n = len(texts)
        cartridge = flavour is Flavour.CC
        for block, group in ((True, (0,)), (False, range(2, n, 2)), (True, (1, *range(3, n, 2)))):
            for k in group:
                text, _, lang = texts[k]
                start_p, end_p, start, end = wrappers.get(lang) or self._wrapper(lang)
                append(lang)
                if plain[k] and not (cartridge and ("\n" in text or "\r" in text)):
                    # nearly every text: itself as inline HTML, and <p>text</p> as a block
                    if self._rtl(lang):  # (as wrapped_html: a Latin-only text isolated)
                        append(start + escape_text(latin_isolated(f"<p>{text}</p>" if block else text)) + end)
                        continue
                    if not clean:
                        text = escape_text(text)
                    append(start_p + text + end_p if block else start + text + end)
                else:
                    made = render_block(text) if block else render_inline(text)
                    made = without_raw_breaks(made) if cartridge else made
                    append(start + escape_text(latin_isolated(made) if self._rtl(lang) else made) + end)
        if not cartridge:  # the overall messages (see _overall)
            for text, _, lang in (view.feedback("correct"), view.feedback("incorrect")):
                start_p, end_p, start, end = wrappers.get(lang) or self._wrapper(lang)
                append(lang)
                made = render_block(text)
                append(start + escape_text(latin_isolated(made) if self._rtl(lang) else made) + end)
        skeleton = self._skeletons.get(shape)
        if skeleton is None:
            skeleton = self._skeleton(shape)
            if len(self._skeletons) < self.LIMIT:
                self._skeletons[shape] = skeleton
        return skeleton.fill_bytes(values)


@contextmanager
def document(stream: IO[bytes], flavour: Flavour) -> Iterator[_IncrementalFileWriter]:
    """A ``questestinterop`` document written a piece at a time: callers write each item as soon as it is built,
    so memory holds one item, not the whole bank (each piece re-declares the QTI namespace: same meaning)."""
    location = f"{QTI} {CC_QTI_XSD_URL if flavour is Flavour.CC else QTI_XSD_URL}"
    with etree.xmlfile(stream, encoding="UTF-8") as xf:
        xf.write_declaration()
        with xf.element(q("questestinterop"), {SCHEMA_LOCATION: location}, nsmap=NSMAP):
            xf.write("\n")
            yield xf


def put(xf: _IncrementalFileWriter, element: etree._Element) -> None:
    xf.write(element, pretty_print=True)


ItemsAt = Callable[["_IncrementalFileWriter"], None]


def around(write: Callable[[IO[bytes], ItemsAt], None]) -> tuple[bytes, bytes]:
    """What a document streamed by ``write(stream, items)`` holds before and after its items: ``write`` calls
    ``items(xf)`` where it would :func:`put` them, and writes nothing there. (Cut where the writer stands, so no
    marker that text of the bank could hold.)"""
    buffer = io.BytesIO()
    cuts: list[int] = []

    def items(xf: _IncrementalFileWriter) -> None:
        xf.flush()
        cuts.append(buffer.tell())

    write(buffer, items)
    data = buffer.getvalue()
    (cut,) = cuts
    return data[:cut], data[cut:]


class Sink(Protocol):
    def write(self, data: bytes, /) -> int: ...


def write_items(parts: Iterable[bytes], *sinks: Sink, size: int = 1 << 16) -> None:
    """Serialised items into each of ``sinks`` (zip entries) in pieces of about ``size`` bytes: the same deflated
    bytes as one write each, for far fewer calls."""
    pending: list[bytes] = []
    held = 0
    for part in parts:
        pending.append(part)
        held += len(part)
        if held >= size:
            chunk = b"".join(pending)
            for sink in sinks:
                sink.write(chunk)
            pending, held = [], 0
    if pending:
        chunk = b"".join(pending)
        for sink in sinks:
            sink.write(chunk)


def serialise(root: etree._Element) -> bytes:
    etree.indent(root, space="  ")
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


# --- reading -----------------------------------------------------------------------------------------------------

_WRAPPER = re.compile(r'^\s*<div lang="([^"<>]+)" dir="(?:ltr|rtl)"(?: style="[^"<>]*")?>(.*)</div>\s*$', re.S)
_BARE_DIV = re.compile(r"^\s*<div>(.*)</div>\s*$", re.S)


@dataclass(frozen=True)
class Text:
    """One learner-facing string as found in an item: its HTML and the language it is in (if said)."""

    html: str
    lang: str | None
    inline: bool
    ours: bool = False  # in our language wrapper: HTML text.py wrote, matched as it is (others' is tidied first)

    def markdown(self) -> str:
        fragment = with_raw_breaks(self.html) if self.ours else self.html
        if "IMS-CC-FILEBASE" in fragment or WEB_RESOURCES in fragment:
            fragment = _FILEBASE_SRC.sub(r"\1", fragment)
        return markdown_from_rich_html(
            fragment, lambda f: markdown_from_html(f, inline=self.inline, tidy=not self.ours) or plain_text(f)
        )


# An image in a cartridge or Canvas package, as the bank refers to it: $IMS-CC-FILEBASE$/media/x.png -> media/x.png.
_FILEBASE_SRC = re.compile(r'(<img\b[^>]*\bsrc=")' + _PACKAGE_SRC.pattern)


def text_of(mattexts: list[etree._Element], inherited: str | None, *, inline: bool) -> Text:
    """The HTML of ``mattext`` elements (plain text escaped), unwrapped from our language ``div``."""
    parts, lang = [], None
    for mattext in mattexts:
        content = mattext.text or ""
        if "html" not in (mattext.get("texttype") or "text/plain").lower():
            content = html.escape(content, quote=False)
        parts.append(content)
        lang = lang or mattext.get(XML_LANG)
    return html_text("".join(parts), lang, inline=inline, inherited=inherited)


def html_text(fragment: str, lang: str | None, *, inline: bool, inherited: str | None = None) -> Text:
    """HTML as a Text, unwrapped from our language ``div`` (whose language it takes) or Canvas's bare ``div``."""
    fragment = fragment.strip()
    wrapped = _WRAPPER.match(fragment)
    ours = bool(wrapped and "<div" not in wrapped.group(2).replace("<div>", ""))
    if wrapped and ours:
        lang = lang or wrapped.group(1)
        fragment = wrapped.group(2)
    elif (bare := _BARE_DIV.match(fragment)) and "<div" not in bare.group(1):
        fragment = bare.group(1)  # Canvas wraps question text in a <div>
    return Text(fragment, lang or inherited, inline, ours)


def _mattexts(element: etree._Element | None) -> list[etree._Element]:
    return [] if element is None else list(element.iter(q("mattext")))


def item_metadata(item: etree._Element) -> dict[str, str]:
    fields: dict[str, str] = {}
    for meta in item.iterfind(f"{q('itemmetadata')}/{q('qtimetadata')}/{q('qtimetadatafield')}"):
        label = (meta.findtext(q("fieldlabel")) or "").strip()
        fields.setdefault(label.lower(), (meta.findtext(q("fieldentry")) or "").strip())
    return fields


def _parse_numerical(
    item: etree._Element,
    path: str,
    default_locale: str,
    problems: list[Problem],
    meta: dict[str, str],
    warn: Callable[[str], None],
) -> ParsedItem[Text] | None:
    """A numerical item as :func:`build_numerical_item` writes it. Canvas's: each condition ``or(varequal,
    and(vargte, varlte))`` a correct value (its id from ``original_answer_ids``, its explanation the feedback it
    shows), the anticipated values from the list in the incorrect comments (``li data-choice data-value
    data-tolerance``); a cartridge's cc.fib: each condition on one ``varequal`` a value, correct when it scores.
    The unit is the material after the response."""
    from ..imported import range_of

    ident = item.get("ident", "")
    lang = inherited_lang(item)
    locale = from_language_tag(lang) if lang else default_locale
    if locale is None:
        warn(f"xml:lang {lang!r} is not a language moe-lms knows")
        return None
    item_lang = lang or locale_info(locale).lang
    feedback: dict[str, etree._Element] = {f.get("ident", ""): f for f in item.iterfind(q("itemfeedback"))}

    def feedback_text(idents: Iterable[str]) -> Text | None:
        found = [feedback[i] for i in dict.fromkeys(idents) if i in feedback]
        if not found:
            return None
        return text_of([m for f in found for m in _mattexts(f)], item_lang, inline=False)

    ids = [i for i in meta.get("original_answer_ids", "").split(",") if i]
    choices: list[ParsedChoice[Text]] = []
    general: list[str] = []
    for condition in item.iterfind(f"{q('resprocessing')}/{q('respcondition')}"):
        var = condition.find(q("conditionvar"))
        if var is None:
            continue
        links = [d.get("linkrefid", "") for d in condition.iterfind(q("displayfeedback"))]
        own = [link for link in links if link not in CANVAS_GENERAL_FEEDBACK]
        if var.find(q("other")) is not None:
            general += [link for link in links if link == GENERAL_FEEDBACK]
            continue
        scored = [number(s.text) for s in condition.iterfind(q("setvar")) if (s.get("varname") or "SCORE") == "SCORE"]
        either = var.find(q("or"))
        if either is not None:
            value = number(either.findtext(q("varequal")))
            low = number(either.findtext(f"{q('and')}/{q('vargte')}"))
            high = number(either.findtext(f"{q('and')}/{q('varlte')}"))
            tolerance = range_of(low, high)[1] if low is not None and high is not None else 0.0
        else:
            value, tolerance = number(var.findtext(q("varequal"))), 0.0
        if value is None:
            continue
        n = len(choices)
        cid = ids[n] if n < len(ids) else own[0].removesuffix("_fb") if own else f"value-{n + 1}"
        correct = any(s is not None and s > 0 for s in scored)
        choices.append(ParsedChoice(cid, None, correct, feedback_text(own), float(value), tolerance))
    incorrect = feedback.get(INCORRECT_FEEDBACK)
    listed = "".join(m.text or "" for m in _mattexts(incorrect)) if incorrect is not None else ""
    if NUMERICAL_LIST in listed:
        holder = lxml.html.fragment_fromstring(listed, create_parent="div")
        for li in holder.iter("li"):
            choice_id, value, tolerance = read_value_classes(li.get("class") or "")
            explanation = next((c for c in li if c.tag == "div"), None)
            if value is None or explanation is None:
                continue
            text = html_text(
                lxml.html.tostring(explanation, encoding="unicode"), None, inline=False, inherited=item_lang
            )
            choices.append(
                ParsedChoice(
                    choice_id or f"value-{len(choices) + 1}",
                    None,
                    False,
                    text,
                    value,
                    tolerance,
                )
            )
    presentation = item.find(q("presentation"))
    stem_texts: list[etree._Element] = []
    unit_texts: list[etree._Element] = []
    seen_response = False
    for child in presentation if presentation is not None else ():
        if child.tag == q("response_str"):
            seen_response = True
        elif child.tag == q("material"):
            (unit_texts if seen_response else stem_texts).extend(_mattexts(child))
    points = number(meta.get("cc_weighting") or meta.get("points_possible"))
    suffix = f"-{locale}"
    qid = ident.removesuffix(suffix) if ident.endswith(suffix) else ident
    return ParsedItem(
        path=path,
        ident=ident,
        qid=slug(qid or "question"),
        locale=locale,
        kind=Kind.NUMERICAL,
        points=points if points is not None and points > 0 else 1,
        shuffle=True,
        stem=text_of(stem_texts, item_lang, inline=False),
        explanation=feedback_text(general or [GENERAL_FEEDBACK]),
        choices=choices,
        title=item.get("title"),
        tags=tuple(dict.fromkeys(slug(t) for t in meta.get(TAGS_FIELD, "").split())),
        unit=text_of(unit_texts, item_lang, inline=True) if unit_texts else None,
    )


def parse_item(
    item: etree._Element, path: str, default_locale: str, problems: list[Problem]
) -> ParsedItem[Text] | None:
    """A choice item as Canvas, text2qti, Moodle or moe-lms write it; None (with a warning) for other items."""
    ident = item.get("ident", "")
    where = f"item {ident!r}"

    def warn(message: str, severity: Severity = Severity.WARNING) -> None:
        problems.append(Problem(path, item.sourceline, message, where, severity=severity))

    meta = item_metadata(item)
    declared = meta.get("cc_profile") or meta.get("question_type") or ""
    if declared in (NUMERICAL_TYPE, CC_FIB) and item.find(f".//{q('response_str')}") is not None:
        return _parse_numerical(item, path, default_locale, problems, meta, warn)
    lids = list(item.iter(q("response_lid")))
    if len(lids) != 1 or lids[0].find(q("render_choice")) is None or (declared and declared not in KIND_OF_TYPE):
        warn(f"skipped: only choice questions can be imported (this one is {declared or 'of another kind'})")
        return None
    lid = lids[0]
    respident = lid.get("ident", "")
    lang = inherited_lang(item)
    locale = from_language_tag(lang) if lang else default_locale
    if locale is None:
        warn(f"xml:lang {lang!r} is not a language moe-lms knows", Severity.ERROR)
        return None
    item_lang = lang or locale_info(locale).lang

    render = lid.find(q("render_choice"))
    assert render is not None
    choices: dict[str, ParsedChoice[Text]] = {}
    for label in render.iter(q("response_label")):
        cid = label.get("ident", "")
        choices[cid] = ParsedChoice(cid, text_of(_mattexts(label), item_lang, inline=True))

    feedback: dict[str, etree._Element] = {f.get("ident", ""): f for f in item.iterfind(q("itemfeedback"))}
    general_ids: list[str] = []
    choice_feedback: dict[str, list[str]] = {}
    correct: set[str] = set()
    for condition in item.iterfind(f"{q('resprocessing')}/{q('respcondition')}"):
        var = condition.find(q("conditionvar"))
        if var is None:
            continue
        links = [d.get("linkrefid", "") for d in condition.iterfind(q("displayfeedback"))]
        scores = [number(s.text) for s in condition.iterfind(q("setvar")) if (s.get("varname") or "SCORE") == "SCORE"]
        gives_points = any(s is not None and s > 0 for s in scores)
        direct = [v for v in var.iterfind(q("varequal")) if v.get("respident") in (respident, None)]
        if var.find(q("other")) is not None and not direct:
            # Canvas's correct and incorrect comments are shown by conditions of their own: not the explanation
            general_ids += [link for link in links if link not in CANVAS_GENERAL_FEEDBACK or link == GENERAL_FEEDBACK]
            continue
        both = var.find(q("and"))
        if both is not None and gives_points:
            correct |= {(v.text or "").strip() for v in both.iterfind(q("varequal"))}
        if len(direct) == 1:
            cid = (direct[0].text or "").strip()
            if gives_points:
                correct.add(cid)
            choice_feedback.setdefault(cid, []).extend(link for link in links if link not in CANVAS_GENERAL_FEEDBACK)
        elif direct and gives_points:
            correct |= {(v.text or "").strip() for v in direct}
    if not general_ids and GENERAL_FEEDBACK in feedback:
        general_ids = [GENERAL_FEEDBACK]

    def feedback_text(idents: Iterable[str]) -> Text | None:
        found = [feedback[i] for i in dict.fromkeys(idents) if i in feedback]
        if not found:
            return None
        return text_of([m for f in found for m in _mattexts(f)], item_lang, inline=False)

    fallback = feedback_idents(list(choices))
    for index, (cid, choice) in enumerate(choices.items()):
        links = choice_feedback.get(cid) or [f"{cid}_fb", fallback[index]]
        choice.explanation = feedback_text(links)
        choice.correct = cid in correct
    explanation = feedback_text(general_ids)

    multiple = lid.get("rcardinality", "Single") == "Multiple"
    kind = KIND_OF_TYPE.get(declared) or (Kind.MULTIPLE if multiple else Kind.SINGLE)
    if meta.get(KIND_FIELD) == Kind.TRUE_FALSE.value and kind is Kind.SINGLE and len(choices) == 2:
        kind = Kind.TRUE_FALSE
    points = number(meta.get("cc_weighting") or meta.get("points_possible"))
    if points is None or points <= 0:
        points = 1
    stem_box = lid.getparent()
    stem_texts = [
        m for mat in (stem_box.iterfind(q("material")) if stem_box is not None else ()) for m in _mattexts(mat)
    ]
    suffix = f"-{locale}"
    qid = ident.removesuffix(suffix) if ident.endswith(suffix) else ident
    return ParsedItem(
        path=path,
        ident=ident,
        qid=slug(qid or "question"),
        locale=locale,
        kind=kind,
        points=points,
        shuffle=render.get("shuffle", "No") == "Yes",
        stem=text_of(stem_texts, item_lang, inline=False),
        explanation=explanation,
        choices=list(choices.values()),
        title=item.get("title"),
        tags=tuple(dict.fromkeys(slug(t) for t in meta.get(TAGS_FIELD, "").split())),
    )
