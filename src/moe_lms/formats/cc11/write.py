"""Writing an IMS Common Cartridge 1.1: a question bank and one assessment per locale, QTI 1.2.1 in the CC profile.

Layout (every name fixed, entries in a fixed order, fixed timestamps: the same bank gives the same bytes)::

    imsmanifest.xml                 CC 1.1 manifest: LOM title per language, one organization item per quiz
    question_bank/questions.xml     questestinterop/objectbank: every question in every locale of the cartridge
    quiz-<locale>/assessment.xml    questestinterop/assessment: the bank in one locale, intro as the rubric

The question bank is one resource because CC 1.1 allows at most one per cartridge; its items are those of the
assessments, so an LMS that imports only banks (Moodle's question categories) or only quizzes gets everything.
Readers: Canvas (instructure/canvas-lms lib/cc/cc_helper.rb names ``imsqti_xmlv1p2/imscc_xmlv1p1/assessment`` and
``.../question-bank`` the Common Cartridge 1.1 types it exports and imports), Moodle (backup/cc/entity11.quiz.class.php:
quizzes from the organization's items, banks from ``question-bank`` resources), Blackboard, Brightspace, Sakai and
Schoology (their *Import Common Cartridge* course tools).
"""

from __future__ import annotations

import re
from functools import partial
from typing import IO, TYPE_CHECKING, BinaryIO

from lxml import etree

from ...bulk import gc_paused
from ...locales import LocalizedView, locale_info, resolve
from ...media import shown_media
from ...model import Bank, variant_of
from ...problems import Problem, ProblemsFound
from ...richtext import plain_text, render_block, rendering
from ...zipout import ZipStream
from .. import ExportOptions
from ..ims.cp import Packaging
from ..qti12 import (
    QTI,
    Flavour,
    Items,
    ItemsAt,
    around,
    build_item,
    cartridge_html,
    document,
    material,
    metadata,
    numerical_refusal,
    put,
    q,
    rich_profile,
    serialise,
    web_resource_path,
    write_items,
)

if TYPE_CHECKING:
    from lxml.etree._serializer import _IncrementalFileWriter

CP = "http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"
LOM_MANIFEST = "http://ltsc.ieee.org/xsd/imsccv1p1/LOM/manifest"
LOM_RESOURCE = "http://ltsc.ieee.org/xsd/imsccv1p1/LOM/resource"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
SCHEMA_LOCATION = (
    f"{CP} http://www.imsglobal.org/profile/cc/ccv1p1/ccv1p1_imscp_v1p2_v1p0.xsd "
    f"{LOM_MANIFEST} http://www.imsglobal.org/profile/cc/ccv1p1/LOM/ccv1p1_lommanifest_v1p0.xsd "
    f"{LOM_RESOURCE} http://www.imsglobal.org/profile/cc/ccv1p1/LOM/ccv1p1_lomresource_v1p0.xsd"
)
MANIFEST = "imsmanifest.xml"
ASSESSMENT_TYPE = "imsqti_xmlv1p2/imscc_xmlv1p1/assessment"
BANK_TYPE = "imsqti_xmlv1p2/imscc_xmlv1p1/question-bank"
BANK_PATH = "question_bank/questions.xml"
BANK_RESOURCE = "QUESTION-BANK"
LOM_CATALOG = "moe-lms"


def quiz_path(locale: str) -> str:
    return f"quiz-{locale}/assessment.xml"


def quiz_resource(locale: str) -> str:
    return f"QUIZ-{locale}"


def _title(markdown: str, limit: int = 1000) -> str:
    text = " ".join(plain_text(markdown).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


PACKAGING = Packaging(CP, LOM_MANIFEST)
_cp = PACKAGING.sub
_lom = PACKAGING.lom_sub


def build_manifest(bank: Bank, views: dict[str, LocalizedView]) -> etree._Element:
    root = etree.Element(
        f"{{{CP}}}manifest", nsmap={None: CP, "lomimscc": LOM_MANIFEST, "lom": LOM_RESOURCE, "xsi": XSI}
    )
    root.set("identifier", f"MANIFEST-{bank.id}")
    root.set(f"{{{XSI}}}schemaLocation", SCHEMA_LOCATION)
    meta = _cp(root, "metadata")
    _cp(meta, "schema", text="IMS Common Cartridge")
    _cp(meta, "schemaversion", text="1.1.0")
    titles = [(view.title.lang, _title(view.title.text)) for view in views.values()]
    general = PACKAGING.lom_general(meta, LOM_CATALOG, bank.id, titles)
    _lom(general, "language", locale_info(bank.source_locale).lang)
    for tag in bank.tags:
        PACKAGING.lom_string(general, "keyword", locale_info(bank.source_locale).lang, tag)

    organization = _cp(
        _cp(root, "organizations"), "organization", {"identifier": "ORGANIZATION", "structure": "rooted-hierarchy"}
    )
    top = _cp(organization, "item", {"identifier": "ROOT"})
    for locale, view in views.items():
        entry = _cp(top, "item", {"identifier": f"ITEM-{locale}", "identifierref": quiz_resource(locale)})
        _cp(entry, "title", text=_title(view.title.text))
    resources = _cp(root, "resources")
    images = shown_media(views.values())
    for locale in views:
        resource = _cp(resources, "resource", {"identifier": quiz_resource(locale), "type": ASSESSMENT_TYPE})
        _cp(resource, "file", {"href": quiz_path(locale)})
        for image in images:
            _cp(resource, "dependency", {"identifierref": media_resource(image.path)})
    resource = _cp(resources, "resource", {"identifier": BANK_RESOURCE, "type": BANK_TYPE})
    _cp(resource, "file", {"href": BANK_PATH})
    for image in images:  # each image a webcontent resource, as the CC 1.1 profile carries files
        path = web_resource_path(image)
        resource = _cp(resources, "resource", {"identifier": media_resource(image.path), "type": "webcontent"})
        resource.set("href", path)
        _cp(resource, "file", {"href": path})
    return root


def media_resource(path: str) -> str:
    """The resource identifier of a bank image (an XML NCName made from its bank path)."""
    return "MEDIA-" + re.sub(r"[^A-Za-z0-9_.-]", "_", path)


def _assessment(bank: Bank, view: LocalizedView, stream: IO[bytes], items: ItemsAt, note: str | None = None) -> None:
    """The bank in one locale as a CC assessment (``cc.exam.v0p1``), the intro as its rubric; ``items(xf)`` writes
    its items; ``note``, what the cartridge cannot carry, is an XML comment before them (the CC profile of QTI has
    no qticomment and no metadata field of our own)."""
    attrib = {"ident": f"{bank.id}-{view.locale}", "title": _title(view.title.text)}
    # No xml:lang here: lxml's xmlfile writes it under a made-up prefix on an open element. The items say theirs.
    with document(stream, Flavour.CC) as xf, xf.element(q("assessment"), attrib):
        xf.write("\n")
        fields = [
            ("cc_profile", "cc.exam.v0p1"),
            ("qmd_assessmenttype", "Examination"),
            ("qmd_scoretype", "Percentage"),
            ("cc_maxattempts", "unlimited"),
        ]
        put(xf, metadata(None, fields))
        if view.intro is not None:
            rubric = etree.Element(q("rubric"), nsmap={None: QTI})
            material(rubric, view.intro, cartridge_html(render_block))
            put(xf, rubric)
        if note is not None:
            xf.write(etree.Comment(f" {note} "), "\n")
        with xf.element(q("section"), {"ident": "root_section"}):
            xf.write("\n")
            items(xf)
        xf.write("\n")


def _bank(bank: Bank, views: dict[str, LocalizedView], stream: IO[bytes], items: ItemsAt) -> None:
    """Every question in every locale of the cartridge as its one question bank (``objectbank``); ``items(xf)``
    writes the items."""
    with document(stream, Flavour.CC) as xf, xf.element(q("objectbank"), {"ident": bank.id}):
        xf.write("\n")
        put(xf, metadata(None, [("bank_title", _title(next(iter(views.values())).title.text))]))
        items(xf)


def write_assessment(bank: Bank, view: LocalizedView, stream: IO[bytes]) -> None:
    """The assessment of one locale, its items built element by element (:func:`write` writes the same bytes)."""

    def items(xf: _IncrementalFileWriter) -> None:
        for question in bank.questions:
            put(xf, build_item(question, view, Flavour.CC))

    _assessment(bank, view, stream, items)


def write_bank(bank: Bank, views: dict[str, LocalizedView], stream: IO[bytes]) -> None:
    """The question bank, its items built element by element (:func:`write` writes the same bytes)."""

    def items(xf: _IncrementalFileWriter) -> None:
        for view in views.values():
            for question in bank.questions:
                put(xf, build_item(question, view, Flavour.CC))

    _bank(bank, views, stream, items)


def _asked(bank: Bank) -> tuple[set[str] | None, str | None]:
    """What the assessment asks of a bank with variants (moe_lms.variants), and the note that says why: CC 1.1's
    assessment is one section of items without selection (ccv1p1_qtiasiv1p2p1_v1p0.xsd), so it cannot draw one
    variant per attempt. The question bank carries every variant (an LMS can draw from it); the assessment asks the
    first of each, as Canvas's own CC export keeps the first pick_count questions of a group. (None, None) for a bank
    without variants."""
    groups: dict[str, list[str]] = {}
    for question in bank.questions:
        base = variant_of(question.id)
        if base is not None:
            groups.setdefault(base, []).append(question.id)
    if not groups:
        return None, None
    asked = {x.id for x in bank.questions if variant_of(x.id) is None} | {ids[0] for ids in groups.values()}
    said = "; ".join(f"{base}: {len(ids)} variants, this assessment asks {ids[0]}" for base, ids in groups.items())
    note = (
        "moe-lms: Common Cartridge 1.1 cannot draw a question per attempt (an assessment is one section of items, "
        f"without selection), so each parameterised question's variants are all in the question bank and the "
        f"assessment asks one: {said}. Export moodle, qti21, qti3, canvas-qti or olx for a draw per attempt."
    )
    return asked, note


def write(bank: Bank, options: ExportOptions, out: BinaryIO) -> None:
    """Stream the cartridge for ``options.locales`` into ``out``: byte-identical for the same bank and options.

    The question bank holds the quizzes' items in the same order, so each item is made once (from a skeleton,
    :class:`..qti12.Items`) and written into its quiz and into the bank, which is deflated alongside the quizzes
    and written after them (:meth:`ZipStream.held`)."""
    refused = [
        Problem("bank.yaml", None, reason, f"question {q.id!r}")
        for q in bank.questions
        if q.numerical and (reason := numerical_refusal(q)) is not None
    ]
    if refused:
        raise ProblemsFound(refused)
    views = {loc: resolve(bank, loc, include_drafts=options.include_drafts) for loc in options.locales}
    package = ZipStream(out)  # entries in a fixed order, fixed timestamps and permissions, no seeking
    items = Items()
    with gc_paused(), rendering(rich_profile(bank.media, Flavour.CC)):
        package.add(MANIFEST, serialise(build_manifest(bank, views)))
        try:
            question_bank = package.held(BANK_PATH)
            bank_head, bank_tail = around(partial(_bank, bank, views))
            question_bank.write(bank_head)
            asked, note = _asked(bank)
            for loc, view in views.items():
                head, tail = around(partial(_assessment, bank, view, note=note))
                with package.open(quiz_path(loc)) as entry:
                    entry.write(head)
                    if asked is None:
                        parts = (items.serialise(q, view, Flavour.CC) for q in bank.questions)
                        write_items(parts, entry, question_bank)
                    else:
                        for question in bank.questions:
                            sinks = (entry, question_bank) if question.id in asked else (question_bank,)
                            write_items([items.serialise(question, view, Flavour.CC)], *sinks)
                    entry.write(tail)
            question_bank.write(bank_tail)
            package.put(question_bank)
            for image in shown_media(views.values()):
                package.add(web_resource_path(image), image.data)
        except ValueError as exc:  # characters XML cannot carry, from a translation
            raise ProblemsFound([Problem(f"locales ({', '.join(views)})", None, str(exc))]) from None
        package.close()
