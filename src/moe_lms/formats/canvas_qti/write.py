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
"""

from __future__ import annotations

import re
from functools import partial
from typing import IO, TYPE_CHECKING, BinaryIO

from lxml import etree

from ...bulk import gc_paused
from ...locales import LocalizedView, resolve
from ...media import shown_media
from ...model import Bank
from ...problems import Problem, ProblemsFound
from ...richtext import plain_text, render_block, rendering
from ...zipout import ZipStream
from .. import ExportOptions
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


def quiz_ident(bank: Bank, locale: str) -> str:
    return f"{bank.id}-{locale}"


def quiz_path(bank: Bank, locale: str) -> str:
    ident = quiz_ident(bank, locale)
    return f"{ident}/{ident}.xml"


def meta_path(bank: Bank, locale: str) -> str:
    return f"{quiz_ident(bank, locale)}/{ASSESSMENT_META}"


def _title(markdown: str, limit: int = 255) -> str:
    text = " ".join(plain_text(markdown).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _el(parent: etree._Element, namespace: str, tag: str, text: str | None = None, **attrib: str) -> etree._Element:
    element = etree.SubElement(parent, f"{{{namespace}}}{tag}", attrib)
    if text is not None:
        element.text = text
    return element


def build_manifest(bank: Bank, views: dict[str, LocalizedView]) -> etree._Element:
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
    _el(title, IMSMD, "string", _title(next(iter(views.values())).title.text))
    _el(root, CP, "organizations")
    resources = _el(root, CP, "resources")
    for locale in views:
        ident = quiz_ident(bank, locale)
        resource = _el(resources, CP, "resource", identifier=ident, type=QTI_ASSESSMENT_TYPE)
        _el(resource, CP, "file", href=quiz_path(bank, locale))
        _el(resource, CP, "dependency", identifierref=f"{ident}-meta")
        meta_resource = _el(
            resources, CP, "resource", identifier=f"{ident}-meta", type=LOR, href=meta_path(bank, locale)
        )
        _el(meta_resource, CP, "file", href=meta_path(bank, locale))
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


def build_meta(bank: Bank, view: LocalizedView) -> etree._Element:
    """Canvas's quiz settings: a graded quiz, unlimited attempts, answers shown after submitting, unpublished."""
    ident = quiz_ident(bank, view.locale)
    quiz = etree.Element(f"{{{CANVAS}}}quiz", nsmap={None: CANVAS, "xsi": XSI})
    quiz.set("identifier", ident)
    quiz.set(f"{{{XSI}}}schemaLocation", f"{CANVAS} {CANVAS_XSD_URL}")
    title = _title(view.title.text)
    points = num(sum(question.points for question in bank.questions))
    _el(quiz, CANVAS, "title", title)
    _el(quiz, CANVAS, "description", wrapped_html(view.intro, render_block) if view.intro is not None else "")
    for tag, value in (
        # One setting for the whole quiz: shuffled only if every question may be (as the payload writer decides).
        ("shuffle_answers", "true" if all(question.shuffle for question in bank.questions) else "false"),
        ("scoring_policy", "keep_highest"),
        ("quiz_type", "assignment"),
        ("points_possible", points),
        ("show_correct_answers", "true"),
        ("allowed_attempts", "-1"),
        ("one_question_at_a_time", "false"),
        ("cant_go_back", "false"),
        ("available", "false"),
    ):
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


def write(bank: Bank, options: ExportOptions, out: BinaryIO) -> None:
    """Stream the package for ``options.locales`` into ``out``: byte-identical for the same bank and options. Items
    from skeletons (:class:`..qti12.Items`)."""
    views = {loc: resolve(bank, loc, include_drafts=options.include_drafts) for loc in options.locales}
    package = ZipStream(out)  # entries in a fixed order, fixed timestamps and permissions, no seeking
    items = Items()
    with gc_paused(), rendering(rich_profile(bank.media, Flavour.CANVAS)):
        package.add(MANIFEST, serialise(build_manifest(bank, views)))
        try:
            for loc, view in views.items():
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
