"""Writing a QTI 3.0 content package: an item per question per locale, a test per locale, the images, a manifest.

Layout (entries in a fixed order, fixed times and permissions: the same bank gives the same bytes)::

    imsmanifest.xml             IMS CP 1.2 in the QTI 3 profile; LOM says the bank's id, titles, language, tags
    items/QUESTION-LOCALE.xml   qti-assessment-item, one choice interaction
    tests/BANK-LOCALE.xml       qti-assessment-test: one part, one section, the intro as its rubric
    tests/BANK-QUIZ-LOCALE.xml  with --quiz, instead: the quiz (a section per section, its draws; items of its pools)
    media/…                     the images the texts show, referred to as ../media/…

An item is :mod:`..qti_item`'s model, the one QTI 2.1's items are made of, spelled in QTI 3
(:func:`sub_as_qti21` turns ``responseCondition`` into ``qti-response-condition``): the same identifiers (the item
``QUESTION-LOCALE``, each choice its bank id), shape, mapping and contents, and the same response processing for
SCORE, written inline (a player need fetch no template): 0 unanswered, MAXSCORE for the keyed response, otherwise
0 (single answer) or the response's mapping (multiple answer: each correct choice adds points/right, each wrong one
takes points/wrong, bounded by 0 and the points).

FEEDBACK is where the two versions differ. QTI 2.1's items add each chosen choice, and ``general_explanation``, to
FEEDBACK with ``multiple`` over FEEDBACK itself: the shape Canvas's importer reads. Players do not all evaluate that
as the specification says: the Citolab player these items are tested in turns a NULL FEEDBACK into an object (so
the general explanation never showed) and joins a multiple-valued one into one string (so a second chosen choice
would hide the first's). Here FEEDBACK starts as ``not_answered`` and an answer sets it to the response itself
(the chosen choices); a ``qti-feedback-block`` per choice shows when FEEDBACK holds that choice, and the general
explanation's (``show-hide="hide"``, identifier ``not_answered``) whenever FEEDBACK holds anything else: on every
answer.

The feedback is blocks in the item body after the choices, not modal dialogs: the Citolab player opens a modal
feedback as a dialog over the item, and the general explanation's (the last) covered the chosen choice's until it
was closed. Blocks read in order, the chosen choices' explanations first, then the general one, each in the
item's language and direction (``xml:lang``, ``dir``: a modal feedback has neither in the QTI 3 schema, and the
player showed Urdu feedback left to right).

Math is MathML 3 (latex2mathml's presentation markup with its LaTeX as an annotation); every text names its
language (``xml:lang``) and direction (``dir``) where it differs from the item's, and the item body says the
item's direction.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import BinaryIO

from lxml import etree

from ... import __version__
from ...locales import LocalizedView, Resolved, locale_info, resolve
from ...media import image_references, media_of, shown_media
from ...model import Bank, Kind, MediaItem, Question, Quiz, quiz_bank
from ...problems import Problem, ProblemsFound
from ...richtext import Profile, render_block, render_inline, rendering
from ...zipout import ZipStream
from .. import ExportOptions
from ..ims.cp import Packaging
from ..ims.xhtml import QtiXhtml
from ..qti_item import (
    FIXED,
    IDENTIFIER,
    LANG,
    MAX_CHOICES,
    POINTS,
    SHUFFLE,
    expression,
    item_identifier,
    item_values,
    numerical_scoring,
    plain_title,
    quiz_controls,
    quiz_part,
    renderer,
    scoring,
    set_outcome,
    stem_title,
)

QTI = "http://www.imsglobal.org/xsd/imsqtiasi_v3p0"
QTI_XSD_URL = "https://purl.imsglobal.org/spec/qti/v3p0/schema/xsd/imsqti_asiv3p0_v1p0.xsd"
CP = "http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1"
CP_XSD_URL = "https://purl.imsglobal.org/spec/qti/v3p0/schema/xsd/imsqtiv3p0_imscpv1p2_v1p0.xsd"
LOM = "http://ltsc.ieee.org/xsd/LOM"
LOM_XSD_URL = "https://purl.imsglobal.org/spec/md/v1p3/schema/xsd/imsmd_loose_v1p3p2.xsd"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
SCHEMA_LOCATION = f"{{{XSI}}}schemaLocation"

MANIFEST = "imsmanifest.xml"
ITEM_TYPE = "imsqti_item_xmlv3p0"
TEST_TYPE = "imsqti_test_xmlv3p0"
TOOL_NAME = "moe-lms"
LOM_CATALOG = "moe-lms"
# FEEDBACK's default: it stays so until an answer replaces it with the chosen choices, and the general explanation
# shows (show-hide="hide") whenever FEEDBACK is anything else. (A bank id never holds "_": no choice is called so.)
NOT_ANSWERED = "not_answered"
OTHER_VALUE = "other_value"  # FEEDBACK of a numerical answer no value's range holds (no choice id holds "_")
TRUE_FALSE_CLASS = "moe-true-false"


def q(tag: str) -> str:
    return f"{{{QTI}}}{tag}"


def sub(
    parent: etree._Element, tag: str, attrib: dict[str, str] | None = None, text: str | None = None
) -> etree._Element:
    element = etree.SubElement(parent, q(tag), attrib)
    if text is not None:
        element.text = text
    return element


_WORD = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def kebab(name: str) -> str:
    """A QTI 2.1 name as QTI 3 spells it: responseCondition -> response-condition, baseType -> base-type."""
    return _WORD.sub("-", name).lower()


def sub_as_qti21(
    parent: etree._Element, tag: str, attrib: dict[str, str] | None = None, text: str | None = None
) -> etree._Element:
    """:class:`..qti_item.Sub` for QTI 3: the shared model's QTI 2.1 names (``responseCondition``, ``baseType``)
    spelled in QTI 3 (``qti-response-condition``, ``base-type``)."""
    attributes = {kebab(name): value for name, value in (attrib or {}).items()}
    return sub(parent, f"qti-{kebab(tag)}", attributes, text)


def item_path(question_id: str, locale: str) -> str:
    return f"items/{item_identifier(question_id, locale)}.xml"


def test_path(bank: Bank, locale: str, quiz: Quiz | None = None) -> str:
    """``tests/<bank>-<locale>.xml``; a quiz's ``tests/<bank>-<quiz>-<locale>.xml`` (as in QTI 2.1)."""
    return f"tests/{bank.id}-{locale}.xml" if quiz is None else f"tests/{bank.id}-{quiz.id}-{locale}.xml"


def media_path(item: MediaItem) -> str:
    return item.path  # media/… at the package root, as in the bank


def package_url(item: MediaItem) -> str:
    """How an item or test (one folder down) refers to a packaged image."""
    return f"../{media_path(item)}"


def package_profile(bank: Bank) -> Profile:
    """MathML, packaged images, code blocks unhighlighted (no style attributes in QTI's XHTML)."""
    return Profile(math="mathml", image_url=package_url, media=bank.media, highlight="none")


# --- HTML into QTI 3's XHTML (the shared converter; QTI 3 keeps dir) -------------------------------------------

append_html = QtiXhtml(QTI, direction_as_class=False).append


def content(
    parent: etree._Element, tag: str, resolved: Resolved, context_lang: str, render: Callable[[str], str]
) -> etree._Element:
    """One string in a new ``tag`` element, its language and direction said where they differ from the context."""
    element = sub(parent, tag)
    if resolved.lang != context_lang:
        element.set(XML_LANG, resolved.lang)
        element.set("dir", locale_info(resolved.lang.replace("-", "_")).direction)
    append_html(element, render(resolved.text))
    return element


# --- items and tests: the shared model in QTI 3's names (see the module docstring) ---------------------------------


def _outcome(parent: etree._Element, identifier: str, cardinality: str, base_type: str, default: str | None) -> None:
    declaration = sub(parent, "qti-outcome-declaration", {"identifier": identifier, "cardinality": cardinality})
    declaration.set("base-type", base_type)
    if default is not None:
        sub(sub(declaration, "qti-default-value"), "qti-value", text=default)


def feedback_is_the_response(answered: etree._Element, multiple: bool) -> None:
    """FEEDBACK (multiple) := the response: a multiple response as it is, a single one as a container of one."""
    feedback = set_outcome(sub_as_qti21, answered, "FEEDBACK")
    target = feedback if multiple else sub_as_qti21(feedback, "multiple")
    expression(sub_as_qti21, target, "variable", identifier="RESPONSE")


def build_numerical_item(question: Question, view: LocalizedView) -> etree._Element:
    """A numerical question as a ``qti-assessment-item``: a float RESPONSE, the stem, a ``qti-text-entry-interaction``
    and the unit after it; the shared rules (qti_item.numerical_scoring) in QTI 3's names, FEEDBACK set to the
    matching value's id (or ``other_value``) as a container of one, never built from FEEDBACK itself (the module
    docstring says why); a tolerance as decimal bounds (gte, lte), as the Citolab player has none on ``equal``;
    a ``qti-feedback-block`` per value after the box, and the general one whenever FEEDBACK is set."""
    from ...numeric import number_text

    lang = view.info.lang
    stem = view.stem(question)
    item = etree.Element(q("qti-assessment-item"), nsmap={None: QTI, "xsi": XSI})
    item.set(SCHEMA_LOCATION, f"{QTI} {QTI_XSD_URL}")
    item.set("identifier", item_identifier(question.id, view.locale))
    item.set("title", stem_title(stem.text))
    item.set("adaptive", "false")
    item.set("time-dependent", "false")
    item.set(XML_LANG, lang)
    item.set("tool-name", TOOL_NAME)
    item.set("tool-version", __version__)
    response = sub(item, "qti-response-declaration", {"identifier": "RESPONSE", "cardinality": "single"})
    response.set("base-type", "float")
    right = number_text(question.value_of(question.correct_choices[0]))
    sub(sub(response, "qti-correct-response"), "qti-value", text=right)
    _outcome(item, "SCORE", "single", "float", "0")
    points = float(question.points)
    _outcome(item, "MAXSCORE", "single", "float", str(int(points)) if points.is_integer() else repr(points))
    _outcome(item, "FEEDBACK", "multiple", "identifier", NOT_ANSWERED)
    body = sub(item, "qti-item-body", {"dir": view.info.direction})
    content(body, "div", stem, lang, render_block)
    answer = sub(body, "p", {"class": "moe-numerical"})
    entry = sub(answer, "qti-text-entry-interaction", {"response-identifier": "RESPONSE", "expected-length": "12"})
    unit = view.unit(question)
    if unit is not None:
        entry.tail = " "
        content(answer, "span", unit, lang, render_inline).set("class", "moe-unit")

    def mark(branch: etree._Element, choice_id: str | None) -> None:
        feedback = sub_as_qti21(set_outcome(sub_as_qti21, branch, "FEEDBACK"), "multiple")
        sub_as_qti21(feedback, "baseValue", {"baseType": "identifier"}, choice_id or OTHER_VALUE)

    # The feedback as blocks after the box, each in the item's language and direction, as a choice item's (the value's
    # explanation first, the general one after it).
    feedback = [(c.id, "show", view.choice_explanation(question, c)) for c in question.choices]
    feedback.append((NOT_ANSWERED, "hide", view.explanation(question)))
    for identifier, show_hide, text in feedback:
        block = sub(body, "qti-feedback-block", {"outcome-identifier": "FEEDBACK", "show-hide": show_hide})
        block.set("identifier", identifier)
        block.set(XML_LANG, lang)
        block.set("dir", view.info.direction)
        content(sub(block, "qti-content-body"), "div", text, lang, render_block).set("class", "moe-feedback")
    processing = sub(item, "qti-response-processing")
    numerical_scoring(sub_as_qti21, processing, question, mark, lambda answered: None, bounds=True)
    return item


def build_item(question: Question, view: LocalizedView) -> etree._Element:
    """One question in one locale as a ``qti-assessment-item``: the shared model (:mod:`..qti_item`: its shape,
    identifiers, mapping, contents and scoring) in QTI 3's names, FEEDBACK set as the module docstring says."""
    if question.numerical:
        return build_numerical_item(question, view)
    shape, values, contents, _ = item_values(question, view)
    n, k = shape.choices, shape.correct
    ids = values[FIXED : FIXED + n]
    correct_ids = values[FIXED + n : FIXED + n + k]
    mapped = values[FIXED + n + k : FIXED + 2 * n + k]
    lang = values[LANG]
    multiple = shape.kind is Kind.MULTIPLE

    item = etree.Element(q("qti-assessment-item"), nsmap={None: QTI, "xsi": XSI})
    item.set(SCHEMA_LOCATION, f"{QTI} {QTI_XSD_URL}")
    item.set("identifier", values[IDENTIFIER])
    item.set("title", stem_title(contents[0].text))
    item.set("adaptive", "false")
    item.set("time-dependent", "false")
    item.set(XML_LANG, lang)
    item.set("tool-name", TOOL_NAME)
    item.set("tool-version", __version__)

    response = sub(item, "qti-response-declaration", {"identifier": "RESPONSE"})
    response.set("cardinality", "multiple" if multiple else "single")
    response.set("base-type", "identifier")
    correct = sub(response, "qti-correct-response")
    for choice_id in correct_ids:
        sub(correct, "qti-value", text=choice_id)
    if multiple:
        bounds = {"lower-bound": "0", "upper-bound": values[POINTS], "default-value": "0"}
        mapping = sub(response, "qti-mapping", bounds)
        for choice_id, value in zip(ids, mapped, strict=True):
            sub(mapping, "qti-map-entry", {"map-key": choice_id, "mapped-value": value})
    _outcome(item, "SCORE", "single", "float", "0")
    _outcome(item, "MAXSCORE", "single", "float", values[POINTS])
    _outcome(item, "FEEDBACK", "multiple", "identifier", NOT_ANSWERED)

    body = sub(item, "qti-item-body", {"dir": view.info.direction})
    interaction = sub(body, "qti-choice-interaction", {"response-identifier": "RESPONSE"})
    interaction.set("shuffle", values[SHUFFLE])
    interaction.set("max-choices", values[MAX_CHOICES])
    if shape.kind is Kind.TRUE_FALSE:
        interaction.set("class", TRUE_FALSE_CLASS)
    content(interaction, "qti-prompt", contents[0], lang, renderer(shape, 0))
    for j, choice_id in enumerate(ids):
        content(interaction, "qti-simple-choice", contents[1 + j], lang, renderer(shape, 1 + j)).set(
            "identifier", choice_id
        )

    processing = sub(item, "qti-response-processing")
    scoring(sub_as_qti21, processing, multiple, on_answer=lambda answered: feedback_is_the_response(answered, multiple))
    feedback = [(choice_id, "show") for choice_id in ids] + [(NOT_ANSWERED, "hide")]  # (the general one last)
    for j, (identifier, show_hide) in enumerate(feedback):
        block = sub(body, "qti-feedback-block", {"outcome-identifier": "FEEDBACK", "show-hide": show_hide})
        block.set("identifier", identifier)
        block.set(XML_LANG, lang)
        block.set("dir", view.info.direction)
        text = content(sub(block, "qti-content-body"), "div", contents[1 + n + j], lang, renderer(shape, 1 + n + j))
        text.set("class", "moe-feedback")
    return item


def build_test(bank: Bank, view: LocalizedView) -> etree._Element:
    """The bank in one locale as a ``qti-assessment-test``: one part, one section, items in bank order."""
    test = etree.Element(q("qti-assessment-test"), nsmap={None: QTI, "xsi": XSI})
    test.set(SCHEMA_LOCATION, f"{QTI} {QTI_XSD_URL}")
    test.set("identifier", f"{bank.id}-{view.locale}")
    title = plain_title(view.title.text)
    test.set("title", title)
    test.set("tool-name", TOOL_NAME)
    test.set("tool-version", __version__)
    _outcome(test, "SCORE", "single", "float", "0")
    _outcome(test, "MAXSCORE", "single", "float", "0")
    part = sub(test, "qti-test-part", {"identifier": "part", "navigation-mode": "nonlinear"})
    part.set("submission-mode", "individual")
    sub(part, "qti-item-session-control", {"show-feedback": "true"})
    section = sub(part, "qti-assessment-section", {"identifier": "section", "title": title, "visible": "true"})
    if view.intro is not None:
        _rubric(section, view.intro)
    for question in bank.questions:
        identifier = item_identifier(question.id, view.locale)
        sub(
            section,
            "qti-assessment-item-ref",
            {"identifier": identifier, "href": f"../{item_path(question.id, view.locale)}"},
        )
    _test_processing(test)
    return test


def _rubric(section: etree._Element, intro: Resolved) -> None:
    rubric = sub(section, "qti-rubric-block", {"view": "candidate", "use": "instructions"})
    rubric.set(XML_LANG, intro.lang)
    rubric.set("dir", locale_info(intro.lang.replace("-", "_")).direction)
    append_html(sub(rubric, "qti-content-body"), render_block(intro.text))


def _test_processing(test: etree._Element) -> None:
    processing = sub(test, "qti-outcome-processing")
    for identifier in ("SCORE", "MAXSCORE"):
        sub(
            sub(set_outcome(sub_as_qti21, processing, identifier), "qti-sum"),
            "qti-test-variables",
            {"variable-identifier": identifier},
        )


def build_quiz_test(bank: Bank, view: LocalizedView, quiz: Quiz) -> etree._Element:
    """A quiz of the bank as a ``qti-assessment-test``: QTI 2.1's (:func:`..qti21.write.build_quiz_test`, the same
    :func:`..qti_item.quiz_part`) in QTI 3's names: ``qti-time-limits max-time``, the part's
    ``qti-item-session-control max-attempts`` (0 unlimited), one ``qti-assessment-section`` per section with its draw
    (``qti-selection select``) and, when the quiz shuffles, ``qti-ordering shuffle``."""
    test = etree.Element(q("qti-assessment-test"), nsmap={None: QTI, "xsi": XSI})
    test.set(SCHEMA_LOCATION, f"{QTI} {QTI_XSD_URL}")
    test.set("identifier", f"{bank.id}-{quiz.id}-{view.locale}")
    test.set("title", plain_title(view.quiz_title(quiz).text))
    test.set("tool-name", TOOL_NAME)
    test.set("tool-version", __version__)
    _outcome(test, "SCORE", "single", "float", "0")
    _outcome(test, "MAXSCORE", "single", "float", "0")
    quiz_controls(sub_as_qti21, test, quiz)

    def reference(question: Question) -> dict[str, str]:
        identifier = item_identifier(question.id, view.locale)
        return {"identifier": identifier, "href": f"../{item_path(question.id, view.locale)}"}

    quiz_part(sub_as_qti21, test, bank, view, quiz, reference, _rubric)
    _test_processing(test)
    return test


# --- the manifest -----------------------------------------------------------------------------------------------


PACKAGING = Packaging(CP, LOM)
_cp = PACKAGING.sub
_lom = PACKAGING.lom_sub
_lom_string = PACKAGING.lom_string


def build_manifest(bank: Bank, views: dict[str, LocalizedView], quiz: Quiz | None = None) -> etree._Element:
    manifest = etree.Element(f"{{{CP}}}manifest", nsmap={None: CP, "imsmd": LOM, "xsi": XSI})
    manifest.set("identifier", f"MANIFEST-{bank.id}")
    manifest.set(SCHEMA_LOCATION, f"{CP} {CP_XSD_URL} {LOM} {LOM_XSD_URL}")
    metadata = _cp(manifest, "metadata")
    _cp(metadata, "schema", text="QTI Package")
    _cp(metadata, "schemaversion", text="3.0.0")
    titles = [(view.title.lang, plain_title(view.title.text, 1000)) for view in views.values()]
    general = PACKAGING.lom_general(metadata, LOM_CATALOG, bank.id, titles)
    source = locale_info(bank.source_locale).lang
    for language in dict.fromkeys([source, *(v.info.lang for v in views.values())]):
        _lom(general, "language", language)
    for tag in bank.tags:
        _lom_string(general, "keyword", source, tag)
    _cp(manifest, "organizations")
    resources = _cp(manifest, "resources")
    images = shown_media(views.values())
    for locale in views:
        test = _cp(resources, "resource", {"identifier": f"TEST-{locale}", "type": TEST_TYPE})
        test.set("href", test_path(bank, locale, quiz))
        _cp(test, "file", {"href": test_path(bank, locale, quiz)})
        for question in bank.questions:
            _cp(test, "dependency", {"identifierref": _item_resource(question.id, locale)})
    for locale, view in views.items():
        for question in bank.questions:
            resource = _cp(
                resources, "resource", {"identifier": _item_resource(question.id, locale), "type": ITEM_TYPE}
            )
            resource.set("href", item_path(question.id, locale))
            if question.tags:  # the question's tags as the keywords of its items
                general = _lom(_lom(_cp(resource, "metadata"), "lom"), "general")
                for tag in question.tags:
                    _lom_string(general, "keyword", source, tag)
            _cp(resource, "file", {"href": item_path(question.id, locale)})
            for image in item_media(view, question):
                _cp(resource, "dependency", {"identifierref": media_resource(image)})
    for image in images:
        resource = _cp(resources, "resource", {"identifier": media_resource(image), "type": "webcontent"})
        resource.set("href", media_path(image))
        _cp(resource, "file", {"href": media_path(image)})
    return manifest


def item_media(view: LocalizedView, question: Question) -> list[MediaItem]:
    """The images a question's item shows in this locale (its stem, choices, feedback), by path."""
    if not view.bank.media:
        return []
    found: dict[str, MediaItem] = {}
    for resolved in view.question_texts(question):
        for reference in image_references(resolved.text):
            item = media_of(view.bank, reference.path)
            if item is not None:
                found[item.path] = item
    return [found[path] for path in sorted(found)]


def _item_resource(question_id: str, locale: str) -> str:
    return f"ITEM-{item_identifier(question_id, locale)}"


def media_resource(item: MediaItem) -> str:
    """The resource identifier of a bank image (an XML NCName made from its bank path)."""
    return "MEDIA-" + re.sub(r"[^A-Za-z0-9_.-]", "_", item.path)


def serialise(root: etree._Element) -> bytes:
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8") + b"\n"


def write(bank: Bank, options: ExportOptions, out: BinaryIO) -> None:
    """The package for ``options.locales`` into ``out``: byte-identical for the same bank and options. With
    ``options.quiz``, the quiz's test, and items of its questions alone, each at its points in the quiz."""
    quiz = None if options.quiz is None else bank.quiz(options.quiz)
    whole = bank
    if quiz is not None:
        bank = quiz_bank(bank, quiz)
    views = {loc: resolve(bank, loc, include_drafts=options.include_drafts) for loc in options.locales}
    package = ZipStream(out)
    with rendering(package_profile(bank)):
        try:
            package.add(MANIFEST, serialise(build_manifest(bank, views, quiz)))
            for locale, view in views.items():
                for question in bank.questions:
                    package.add(item_path(question.id, locale), serialise(build_item(question, view)))
                test = build_test(bank, view) if quiz is None else build_quiz_test(whole, view, quiz)
                package.add(test_path(bank, locale, quiz), serialise(test))
        except ValueError as exc:  # characters XML cannot carry, from a translation
            raise ProblemsFound([Problem(f"locales ({', '.join(views)})", None, str(exc))]) from None
        for image in shown_media(views.values()):
            package.add(media_path(image), image.data)
    package.close()
