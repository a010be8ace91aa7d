"""Writing Canvas's own QTI 1.2 package: what Canvas exports for a quiz (*Export quiz*, a QTI .zip) and text2qti writes.

Layout, one quiz per locale (``<quiz>`` is ``<bank-id>-<locale>``)::

    imsmanifest.xml               an ``imsqti_xmlv1p2`` resource per quiz, depending on its metadata resource
    <quiz>/<quiz>.xml             questestinterop/assessment, section ``root_section``, the items
    <quiz>/assessment_meta.xml    Canvas's quiz settings (namespace http://canvas.instructure.com/xsd/cccv1p0)

What Canvas reads, and where (instructure/canvas-lms):

- gems/plugins/qti_exporter/lib/qti/converter.rb: a manifest without a QTI 2 namespace is QTI 1.2, converted to
  2.1 before the questions are read; then ``post_process_assessments`` reads the metadata.
- lib/cc/importer/canvas/quiz_metadata_converter.rb: finds ``assessment_meta.xml`` under a
  ``learning-application-resource`` as ``<assessment ident>/assessment_meta.xml`` (so the folder must be named
  after the assessment), and reads title, description, quiz_type, scoring_policy, points_possible,
  allowed_attempts, shuffle_answers, show_correct_answers, one_question_at_a_time, cant_go_back, available and an
  ``assignment`` node.
- lib/cc/qti/qti_items.rb (the exporter these files mirror): per item ``question_type``, ``points_possible``,
  ``original_answer_ids`` and ``assessment_question_identifierref``; answers as ``response_label``; comments as
  ``itemfeedback`` ``general_fb`` (neutral), ``<answer>_fb`` (the answer's comments) linked by ``displayfeedback``
  from the respcondition on that answer; see :mod:`..qti12`.

One of the bank's quizzes (``ExportOptions.quiz``; ``<quiz>`` is then ``<bank-id>-<quiz-id>-<locale>``) keeps its
sections as Canvas's own exporter writes a question group (lib/cc/qti/qti_generator.rb ``add_group``): a
``section`` inside ``root_section`` with ``selection_ordering/selection/selection_number`` (the draw) and
``selection_extension/points_per_item``, its items after it. Canvas's importer makes each one a question group
with that ``pick_count`` and ``question_points`` (gems/plugins/qti_exporter/lib/qti/assessment_test_converter.rb
``process_section``); ``qmd_timelimit`` and ``cc_maxattempts`` in the assessment's metadata, ``time_limit``,
``allowed_attempts`` and ``shuffle_answers`` in assessment_meta.xml carry its settings. Such sections go beyond the
Common Cartridge profile of QTI (one section of items), which only a whole-bank package keeps to.
"""

from __future__ import annotations

import io
import re
from functools import partial
from typing import IO, TYPE_CHECKING, BinaryIO

from lxml import etree

from ...bulk import gc_paused
from ...locales import LocalizedView, resolve
from ...media import shown_media
from ...model import Bank, DrawnSection, Question, Quiz, resolve_quiz
from ...problems import Problem, ProblemsFound
from ...richtext import plain_text, render_block, rendering
from ...zipout import ZipStream
from .. import ExportOptions
from ..qti12 import (
    QTI as QTI_NS,
)
from ..qti12 import (
    Flavour,
    Items,
    ItemsAt,
    around,
    build_item,
    document,
    metadata,
    num,
    put,
    q,
    rich_profile,
    serialise,
    web_resource_path,
    wrapped_html,
    write_items,
)

if TYPE_CHECKING:
    from lxml.etree._serializer import _IncrementalFileWriter

CP = "http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"
IMSMD = "http://www.imsglobal.org/xsd/imsmd_v1p2"
CANVAS = "http://canvas.instructure.com/xsd/cccv1p0"
CANVAS_XSD_URL = "https://canvas.instructure.com/xsd/cccv1p0.xsd"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
MANIFEST = "imsmanifest.xml"
ASSESSMENT_META = "assessment_meta.xml"
QTI_ASSESSMENT_TYPE = "imsqti_xmlv1p2"  # lib/cc/cc_helper.rb QTI_ASSESSMENT_TYPE (quiz-only export)
LOR = "associatedcontent/imscc_xmlv1p1/learning-application-resource"  # lib/cc/cc_helper.rb LOR


def quiz_ident(bank: Bank, locale: str, quiz: Quiz | None = None) -> str:
    return f"{bank.id}-{locale}" if quiz is None else f"{bank.id}-{quiz.id}-{locale}"


def quiz_path(bank: Bank, locale: str, quiz: Quiz | None = None) -> str:
    ident = quiz_ident(bank, locale, quiz)
    return f"{ident}/{ident}.xml"


def meta_path(bank: Bank, locale: str, quiz: Quiz | None = None) -> str:
    return f"{quiz_ident(bank, locale, quiz)}/{ASSESSMENT_META}"


def _title(markdown: str, limit: int = 255) -> str:
    text = " ".join(plain_text(markdown).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _el(parent: etree._Element, namespace: str, tag: str, text: str | None = None, **attrib: str) -> etree._Element:
    element = etree.SubElement(parent, f"{{{namespace}}}{tag}", attrib)
    if text is not None:
        element.text = text
    return element


def build_manifest(bank: Bank, views: dict[str, LocalizedView], quiz: Quiz | None = None) -> etree._Element:
    root = etree.Element(f"{{{CP}}}manifest", nsmap={None: CP, "imsmd": IMSMD, "xsi": XSI})
    root.set("identifier", f"MANIFEST-{bank.id}")
    root.set(
        f"{{{XSI}}}schemaLocation",
        f"{CP} http://www.imsglobal.org/xsd/imscp_v1p1.xsd {IMSMD} http://www.imsglobal.org/xsd/imsmd_v1p2p2.xsd",
    )
    meta = _el(root, CP, "metadata")
    _el(meta, CP, "schema", "IMS Content")
    _el(meta, CP, "schemaversion", "1.1.3")
    title = _el(_el(_el(meta, IMSMD, "lom"), IMSMD, "general"), IMSMD, "title")
    first = next(iter(views.values()))
    _el(title, IMSMD, "string", _title((first.title if quiz is None else first.quiz_title(quiz)).text))
    _el(root, CP, "organizations")
    resources = _el(root, CP, "resources")
    for locale in views:
        ident = quiz_ident(bank, locale, quiz)
        resource = _el(resources, CP, "resource", identifier=ident, type=QTI_ASSESSMENT_TYPE)
        _el(resource, CP, "file", href=quiz_path(bank, locale, quiz))
        _el(resource, CP, "dependency", identifierref=f"{ident}-meta")
        meta_href = meta_path(bank, locale, quiz)
        meta_resource = _el(resources, CP, "resource", identifier=f"{ident}-meta", type=LOR, href=meta_href)
        _el(meta_resource, CP, "file", href=meta_href)
    for image in shown_media(views.values()):  # as Canvas exports course files: webcontent under web_resources/
        path = web_resource_path(image)
        resource = _el(resources, CP, "resource", identifier=media_resource(image.path), type="webcontent", href=path)
        _el(resource, CP, "file", href=path)
    return root


def media_resource(path: str) -> str:
    """The resource identifier of a bank image (an XML NCName made from its bank path)."""
    return "MEDIA-" + re.sub(r"[^A-Za-z0-9_.-]", "_", path)


def _assessment(bank: Bank, view: LocalizedView, stream: IO[bytes], items: ItemsAt) -> None:
    ident = quiz_ident(bank, view.locale)
    attrib = {"ident": ident, "title": _title(view.title.text)}
    # No xml:lang here: lxml's xmlfile writes it under a made-up prefix on an open element. The items say theirs.
    with document(stream, Flavour.CANVAS) as xf, xf.element(q("assessment"), attrib):
        xf.write("\n")
        put(xf, metadata(None, [("cc_maxattempts", "unlimited")]))
        with xf.element(q("section"), {"ident": "root_section"}):
            xf.write("\n")
            items(xf)
        xf.write("\n")


def write_assessment(bank: Bank, view: LocalizedView, stream: IO[bytes]) -> None:
    """The quiz of one locale, its items built element by element (:func:`write` writes the same bytes)."""

    def items(xf: _IncrementalFileWriter) -> None:
        for question in bank.questions:
            put(xf, build_item(question, view, Flavour.CANVAS))

    _assessment(bank, view, stream, items)


def build_meta(bank: Bank, view: LocalizedView, the_quiz: Quiz | None = None) -> etree._Element:
    """Canvas's quiz settings: a graded quiz, unlimited attempts, answers shown after submitting, unpublished (a
    quiz of the bank's: its attempts and time limit, and the points of an attempt)."""
    ident = quiz_ident(bank, view.locale, the_quiz)
    quiz = etree.Element(f"{{{CANVAS}}}quiz", nsmap={None: CANVAS, "xsi": XSI})
    quiz.set("identifier", ident)
    quiz.set(f"{{{XSI}}}schemaLocation", f"{CANVAS} {CANVAS_XSD_URL}")
    if the_quiz is None:
        title, intro = _title(view.title.text), view.intro
        points = num(sum(question.points for question in bank.questions))
        shuffle = all(question.shuffle for question in bank.questions)
        attempts = "-1"
    else:
        title, intro = _title(view.quiz_title(the_quiz).text), view.quiz_intro(the_quiz)
        sections = resolve_quiz(bank, the_quiz)
        points = num(sum(s.attempt_points for s in sections))
        shuffle = all(question.shuffle for s in sections for question in s.questions)
        attempts = "-1" if not the_quiz.attempts else str(the_quiz.attempts)  # (absent or 0: unlimited)
    _el(quiz, CANVAS, "title", title)
    _el(quiz, CANVAS, "description", wrapped_html(intro, render_block) if intro is not None else "")
    fields = [
        # One setting for the whole quiz: shuffled only if every question may be (as the payload writer decides).
        ("shuffle_answers", "true" if shuffle else "false"),
        ("scoring_policy", "keep_highest"),
        ("quiz_type", "assignment"),
        ("points_possible", points),
        ("show_correct_answers", "true"),
        ("allowed_attempts", attempts),
        ("one_question_at_a_time", "false"),
        ("cant_go_back", "false"),
        ("available", "false"),
    ]
    if the_quiz is not None and the_quiz.time_limit_minutes is not None:
        fields.append(("time_limit", str(the_quiz.time_limit_minutes)))
    for tag, value in fields:
        _el(quiz, CANVAS, tag, value)
    assignment = _el(quiz, CANVAS, "assignment", identifier=f"{ident}-assignment")
    for tag, value in (
        ("title", title),
        ("workflow_state", "unpublished"),
        ("quiz_identifierref", ident),
        ("points_possible", points),
        ("grading_type", "points"),
        ("submission_types", "online_quiz"),
    ):
        _el(assignment, CANVAS, tag, value)
    return quiz


def _with_points(question: Question, points: float) -> Question:
    """The question worth ``points`` in a quiz (itself when that is its own value)."""
    return question if question.points == points else question.model_copy(update={"points": points})


def _selection(section: DrawnSection) -> etree._Element:
    """A question group's draw as Canvas writes it: how many each attempt gets, and the points of each."""
    ordering = etree.Element(q("selection_ordering"), nsmap={None: QTI_NS})
    selection = etree.SubElement(ordering, q("selection"))
    etree.SubElement(selection, q("selection_number")).text = str(section.draw)
    extension = etree.SubElement(selection, q("selection_extension"))
    etree.SubElement(extension, q("points_per_item")).text = num(section.group_points or max(section.points))
    return ordering


def _quiz_assessment(bank: Bank, view: LocalizedView, the_quiz: Quiz, stream: IO[bytes]) -> None:
    """A quiz of the bank's: its questions outside groups in root_section, each drawing section a group in it."""
    ident = quiz_ident(bank, view.locale, the_quiz)
    attrib = {"ident": ident, "title": _title(view.quiz_title(the_quiz).text)}
    fields = [("cc_maxattempts", str(the_quiz.attempts) if the_quiz.attempts else "unlimited")]
    if the_quiz.time_limit_minutes is not None:
        fields.insert(0, ("qmd_timelimit", str(the_quiz.time_limit_minutes)))
    with document(stream, Flavour.CANVAS) as xf, xf.element(q("assessment"), attrib):
        xf.write("\n")
        put(xf, metadata(None, fields))
        with xf.element(q("section"), {"ident": "root_section"}):
            xf.write("\n")
            for section in resolve_quiz(bank, the_quiz):
                questions = [_with_points(qn, p) for qn, p in zip(section.questions, section.points, strict=True)]
                if not section.random_group(the_quiz.shuffle_questions):  # (a group's questions come shuffled)
                    for question in questions:
                        put(xf, build_item(question, view, Flavour.CANVAS))
                    continue
                title = view.section_title(the_quiz, section.section)
                group = {"ident": f"{ident}-{section.id}", "title": _title(title.text) if title else section.id}
                with xf.element(q("section"), group):
                    xf.write("\n")
                    put(xf, _selection(section))
                    for question in questions:
                        put(xf, build_item(question, view, Flavour.CANVAS))
                xf.write("\n")
        xf.write("\n")


def write(bank: Bank, options: ExportOptions, out: BinaryIO) -> None:
    """Stream the package for ``options.locales`` into ``out``: byte-identical for the same bank and options. Items
    from skeletons (:class:`..qti12.Items`); a quiz's (``options.quiz``) element by element, in its sections."""
    views = {loc: resolve(bank, loc, include_drafts=options.include_drafts) for loc in options.locales}
    the_quiz = None if options.quiz is None else bank.quiz(options.quiz)
    package = ZipStream(out)  # entries in a fixed order, fixed timestamps and permissions, no seeking
    items = Items()
    with gc_paused(), rendering(rich_profile(bank.media, Flavour.CANVAS)):
        package.add(MANIFEST, serialise(build_manifest(bank, views, the_quiz)))
        try:
            for loc, view in views.items():
                if the_quiz is not None:
                    buffer = io.BytesIO()  # (a quiz is a few sections of a bank: built whole)
                    _quiz_assessment(bank, view, the_quiz, buffer)
                    package.add(quiz_path(bank, loc, the_quiz), buffer.getvalue())
                    package.add(meta_path(bank, loc, the_quiz), serialise(build_meta(bank, view, the_quiz)))
                    continue
                head, tail = around(partial(_assessment, bank, view))
                with package.open(quiz_path(bank, loc)) as entry:
                    entry.write(head)
                    write_items((items.serialise(q, view, Flavour.CANVAS) for q in bank.questions), entry)
                    entry.write(tail)
                package.add(meta_path(bank, loc), serialise(build_meta(bank, view)))
            for image in shown_media(views.values()):
                package.add(web_resource_path(image), image.data)
        except ValueError as exc:  # characters XML cannot carry, from a translation
            raise ProblemsFound([Problem(f"locales ({', '.join(views)})", None, str(exc))]) from None
        package.close()
