"""The QTI 2.1 export (:func:`write`): one ``assessmentItem`` per question per locale, one ``assessmentTest`` per
locale, the manifest and the stylesheet, built with lxml and streamed into a deterministic zip (sorted entries,
fixed timestamps and permissions, no seeking).

The item is :mod:`moe_lms.formats.qti_item`'s model spelled in QTI 2.1: :func:`_item_element` builds it from one
description of its shape, with real text (:func:`build_item`) or with skeleton markers (:class:`_Items`, the way
the package's items are written: element by element is under the speed floor, see there).

This module must not know how a package is read back or checked (:mod:`.read`, :mod:`.validate`).
"""

from __future__ import annotations

import copy
import heapq
import html
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache
from typing import BinaryIO

from lxml import etree

from ... import __version__
from ...bulk import gc_paused
from ...locales import LocalizedView, Resolved, resolve
from ...model import XML_ILLEGAL, Bank, Kind, Question, Quiz, quiz_bank
from ...numeric import number_text
from ...problems import Problem, ProblemsFound
from ...richtext import (
    Profile,
    latin_isolated,
    render_block,
    render_inline,
    rendering,
)
from ...skeleton import Skeleton, inner, raw, slot
from ...zipout import ZipStream
from .. import ExportOptions
from ..qti_item import (
    BODY_CLASS,
    FIXED,
    GENERAL_FEEDBACK,
    IDENTIFIER,
    LANG,
    MAX_CHOICES,
    ONE_PARAGRAPH,
    POINTS,
    SHUFFLE,
    TITLE,
    ContentMaker,
    ItemShape,
    add_to_feedback,
    always_marked,
    choice_feedback,
    expression,
    item_identifier,
    item_values,
    numerical_scoring,
    plain_title,
    qti_number,
    quiz_controls,
    quiz_part,
    renderer,
    scoring,
    set_outcome,
    shorten,
    stem_title,
)
from .manifest import item_media, package_url, write_manifest
from .names import (
    ITEM_STYLESHEET_HREF,
    MANIFEST,
    QTI,
    QTI_XSD_URL,
    SCHEMA_LOCATION,
    STYLESHEET,
    STYLESHEET_CSS,
    TOOL_NAME,
    TRUE_FALSE_CLASS,
    XML_LANG,
    XSI,
    direction_of,
    item_path,
    qname,
    qti_sub,
    test_path,
)
from .xhtml import append_html


def _content(
    element: etree._Element, resolved: Resolved, context_lang: str, render: Callable[[str], str], *, always: bool
) -> None:
    """Fill ``element`` with one resolved string; say its language and direction where they differ from the
    context (fallbacks stay visible as source-language text), or always when ``always``."""
    _mark_language(element, resolved.lang, context_lang, always=always)
    append_html(element, _in_direction(resolved.lang, render(resolved.text)))


def _in_direction(lang: str, rendered: str) -> str:
    """Rendered text of language ``lang``: in a right-to-left one, a Latin-only text (the choice "64 KiB") as an LTR
    isolate (a span of class moe-bdi moe-ltr in QTI 2.1's XHTML; "KiB 64" else)."""
    return latin_isolated(rendered) if direction_of(lang) == "rtl" else rendered


def _mark_language(element: etree._Element, lang: str, context_lang: str, *, always: bool) -> None:
    if always or lang != context_lang:
        element.set("class", f"moe-{direction_of(lang)}")
        if lang != context_lang:
            element.set(XML_LANG, lang)


def _response_processing(item: etree._Element, kind: Kind, choice_ids: Sequence[str]) -> None:
    """Scoring, then one condition per choice setting FEEDBACK: choosing an answer scores it and shows that
    choice's explanation and the general one (``match_correct`` would set SCORE only, and no feedback shows)."""
    multiple = kind is Kind.MULTIPLE
    processing = qti_sub(item, "responseProcessing")
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
    holder = etree.Element(qname("holder"), nsmap={None: QTI})
    if name == "SCORE":
        _outcome(holder, "SCORE", "single", "float", "0")
    elif name == "FEEDBACK":
        _outcome(holder, "FEEDBACK", "multiple", "identifier", None)
    elif name == "stylesheet":
        qti_sub(holder, "stylesheet", {"href": ITEM_STYLESHEET_HREF, "type": "text/css"})
    elif name.startswith("scoring-"):
        scoring(qti_sub, holder, multiple=name.endswith("multiple"))
    else:
        choice_feedback(qti_sub, holder, multiple=name.endswith("multiple"))
    return holder[0]


def _outcome(item: etree._Element, identifier: str, cardinality: str, base_type: str, default: str | None) -> None:
    declaration = qti_sub(item, "outcomeDeclaration", {"identifier": identifier, "cardinality": cardinality})
    declaration.set("baseType", base_type)
    if default is not None:
        qti_sub(qti_sub(declaration, "defaultValue"), "value", text=default)


def _item_element(shape: ItemShape, values: Sequence[str], content: ContentMaker) -> etree._Element:
    """An ``assessmentItem`` of ``shape`` with ``values`` (see IDENTIFIER): real text, or skeleton markers."""
    n, k = shape.choices, shape.correct
    ids = values[FIXED : FIXED + n]
    correct_ids = values[FIXED + n : FIXED + n + k]
    mapped = values[FIXED + n + k : FIXED + 2 * n + k]
    item = etree.Element(qname("assessmentItem"), nsmap={None: QTI, "xsi": XSI})
    item.set(SCHEMA_LOCATION, f"{QTI} {QTI_XSD_URL}")
    item.set("identifier", values[IDENTIFIER])
    item.set("title", values[TITLE])
    item.set("adaptive", "false")
    item.set("timeDependent", "false")
    item.set(XML_LANG, values[LANG])
    item.set("toolName", TOOL_NAME)
    item.set("toolVersion", __version__)

    multiple = shape.kind is Kind.MULTIPLE
    response = qti_sub(item, "responseDeclaration", {"identifier": "RESPONSE"})
    response.set("cardinality", "multiple" if multiple else "single")
    response.set("baseType", "identifier")
    correct = qti_sub(response, "correctResponse")
    for choice_id in correct_ids:
        qti_sub(correct, "value", text=choice_id)
    if multiple:
        mapping = qti_sub(response, "mapping", {"lowerBound": "0", "upperBound": values[POINTS], "defaultValue": "0"})
        for choice_id, value in zip(ids, mapped, strict=True):
            qti_sub(mapping, "mapEntry", {"mapKey": choice_id, "mappedValue": value})
    item.append(_copy(_template("SCORE")))
    _outcome(item, "MAXSCORE", "single", "float", values[POINTS])
    item.append(_copy(_template("FEEDBACK")))
    item.append(_copy(_template("stylesheet")))

    body = qti_sub(item, "itemBody", {"class": values[BODY_CLASS]})
    interaction = qti_sub(body, "choiceInteraction", {"responseIdentifier": "RESPONSE"})
    interaction.set("shuffle", values[SHUFFLE])
    interaction.set("maxChoices", values[MAX_CHOICES])
    if shape.kind is Kind.TRUE_FALSE:
        interaction.set("class", TRUE_FALSE_CLASS)
    content(interaction, "prompt", {}, 0)
    for j, choice_id in enumerate(ids):
        content(interaction, "simpleChoice", {"identifier": choice_id}, 1 + j)

    _response_processing(item, shape.kind, ids)
    for j, choice_id in enumerate([*ids, GENERAL_FEEDBACK]):
        modal = qti_sub(item, "modalFeedback", {"outcomeIdentifier": "FEEDBACK", "showHide": "show"})
        modal.set("identifier", choice_id)
        content(modal, "div", {}, 1 + n + j)
    return item


def build_item(question: Question, view: LocalizedView) -> etree._Element:
    """One question in one locale as an ``assessmentItem``, element by element (:class:`_Items` writes the same
    bytes faster)."""
    if question.numerical:
        return build_numerical_item(question, view)
    shape, values, contents, _ = item_values(question, view)
    values[TITLE] = stem_title(contents[0].text)
    lang = view.info.lang

    def content(parent: etree._Element, tag: str, attributes: dict[str, str], index: int) -> None:
        element = qti_sub(parent, tag, attributes)
        _content(element, contents[index], lang, renderer(shape, index), always=always_marked(shape, index))

    return _item_element(shape, values, content)


def build_numerical_item(q: Question, view: LocalizedView) -> etree._Element:
    """A numerical question as an item: a float RESPONSE whose ``correctResponse`` is the first correct value, the
    stem, then a ``textEntryInteraction`` followed by the unit; response processing per value
    (qti_item.numerical_scoring) and a ``modalFeedback`` per value and one for the general explanation."""
    lang = view.info.lang
    item = etree.Element(qname("assessmentItem"), nsmap={None: QTI, "xsi": XSI})
    item.set(SCHEMA_LOCATION, f"{QTI} {QTI_XSD_URL}")
    item.set("identifier", item_identifier(q.id, view.locale))
    stem = view.stem(q)
    item.set("title", stem_title(stem.text))
    item.set("adaptive", "false")
    item.set("timeDependent", "false")
    item.set(XML_LANG, lang)
    item.set("toolName", TOOL_NAME)
    item.set("toolVersion", __version__)
    response = qti_sub(item, "responseDeclaration", {"identifier": "RESPONSE", "cardinality": "single"})
    response.set("baseType", "float")
    qti_sub(qti_sub(response, "correctResponse"), "value", text=number_text(q.value_of(q.correct_choices[0])))
    item.append(_copy(_template("SCORE")))
    _outcome(item, "MAXSCORE", "single", "float", qti_number(q.points))
    item.append(_copy(_template("FEEDBACK")))
    item.append(_copy(_template("stylesheet")))
    body = qti_sub(item, "itemBody", {"class": f"moe-lms moe-{view.info.direction}"})
    _content(qti_sub(body, "div"), stem, lang, render_block, always=False)
    answer = qti_sub(body, "p", {"class": "moe-numerical"})
    entry = qti_sub(answer, "textEntryInteraction", {"responseIdentifier": "RESPONSE", "expectedLength": "12"})
    unit = view.unit(q)
    if unit is not None:
        entry.tail = " "
        unit_span = qti_sub(answer, "span")
        _content(unit_span, unit, lang, render_inline, always=False)
        unit_span.set("class", " ".join(filter(None, ["moe-unit", unit_span.get("class")])))
    processing = qti_sub(item, "responseProcessing")
    numerical_scoring(
        qti_sub,
        processing,
        q,
        lambda branch, choice_id: None if choice_id is None else add_to_feedback(qti_sub, branch, choice_id),
        lambda answered: add_to_feedback(qti_sub, answered, GENERAL_FEEDBACK),
    )
    feedback = [(c.id, view.choice_explanation(q, c)) for c in q.choices] + [(GENERAL_FEEDBACK, view.explanation(q))]
    for identifier, text in feedback:
        modal = qti_sub(item, "modalFeedback", {"outcomeIdentifier": "FEEDBACK", "showHide": "show"})
        modal.set("identifier", identifier)
        _content(qti_sub(modal, "div"), text, lang, render_block, always=True)
    return item


# How a rendered content goes into its element (append_html's cases): nothing at all, bare text, one paragraph of
# text, or markup (serialised element by element).
_EMPTY, _BARE, _PARAGRAPH, _MARKUP = range(4)


def _form(rendered: str) -> tuple[int, str]:
    """The form of rendered HTML and what fills it: the text (unescaped) or, for markup, the HTML."""
    if "<" not in rendered:
        form, text = _BARE, rendered
    else:
        simple = ONE_PARAGRAPH.match(rendered)
        if simple is None:
            return _MARKUP, rendered
        form, text = _PARAGRAPH, simple.group(1)
    if "&" in text:
        text = html.unescape(text)
    return (form, text) if text or form == _PARAGRAPH else (_EMPTY, "")


def _markup(rendered: str) -> str:
    """Rendered HTML as the serialised content of a QTI element (see :func:`append_html`)."""
    holder = etree.Element(qname("holder"), nsmap={None: QTI})
    append_html(holder, rendered)
    return inner(holder)


class _Items:
    """Serialised items, the bytes :func:`build_item` gives, from one skeleton per shape, locale and form of the
    contents (with their language): a handful for a whole bank, and several times faster.

    The one way the package's items are written; :func:`build_item` is the description they are held to
    (tests/test_qti21_skeleton.py). Why not element by element (issue 19, docs/design/speed.md): on the 10k bank
    ``moe-lms export --format qti21`` took 9.03 s of CPU that way against 3.53 s from skeletons, with text2qti at
    39.97 s: 4.4x, under the floor of 8x, where skeletons give 11.3x (medians of 3 alternating runs, loaded machine).
    Building ~50 elements per item in Python (``qti_sub``) and serialising each is what costs.
    """

    # Distinct skeletons kept; a bank whose items are more varied than that builds the rest as it goes.
    LIMIT = 512

    def __init__(self) -> None:
        self._skeletons: dict[tuple[object, ...], Skeleton] = {}

    def _skeleton(self, shape: ItemShape, lang: str, forms: tuple[tuple[str, int], ...]) -> Skeleton:
        base = FIXED + 2 * shape.choices + shape.correct  # values before the contents

        def content(parent: etree._Element, tag: str, attributes: dict[str, str], index: int) -> None:
            element = qti_sub(parent, tag, attributes)
            content_lang, form = forms[index]
            _mark_language(element, content_lang, lang, always=always_marked(shape, index))
            if form == _BARE:
                append_html(element, slot(base + index))
            elif form == _PARAGRAPH:
                append_html(element, f"<p>{slot(base + index)}</p>")
            elif form == _MARKUP:
                element.text = raw(base + index)

        element = _item_element(shape, [slot(i) for i in range(base)], content)
        # Every value before the contents but the title is an id, a number, a language tag or a constant.
        return Skeleton.of(element, declaration=True, verbatim=set(range(base)) - {TITLE})

    def serialise(self, question: Question, view: LocalizedView) -> bytes:
        if question.numerical:  # (few in a bank, and of no shared shape: built element by element)
            data: bytes = etree.tostring(build_numerical_item(question, view), xml_declaration=True, encoding="UTF-8")
            return data
        shape, values, contents, plain = item_values(question, view)
        lang = values[LANG]
        key: list[object] = [shape, lang]
        for index, resolved in enumerate(contents):
            text = resolved.text
            inline = 1 <= index <= shape.choices
            # nearly every text: its own HTML (but in a right-to-left language, which isolates a Latin-only one)
            if text and plain[index] and direction_of(resolved.lang) != "rtl":
                form = _BARE if inline else _PARAGRAPH
                if index == 0:
                    values[TITLE] = shorten(text, 80)  # (what stem_title gives for such text)
            else:
                rendered = _in_direction(resolved.lang, render_inline(text) if inline else render_block(text))
                form, text = _form(rendered)
                if form == _MARKUP:
                    text = _markup(rendered)
                if index == 0:
                    values[TITLE] = stem_title(resolved.text)
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
            qti_sub(section, "assessmentItemRef", _item_reference(q, view))

    return _test_element(bank, view, references)


def _item_reference(q: Question, view: LocalizedView) -> dict[str, str]:
    return {"identifier": item_identifier(q.id, view.locale), "href": f"../{item_path(q.id, view.locale)}"}


def _test_element(bank: Bank, view: LocalizedView, references: Callable[[etree._Element], None]) -> etree._Element:
    test = etree.Element(qname("assessmentTest"), nsmap={None: QTI, "xsi": XSI})
    test.set(SCHEMA_LOCATION, f"{QTI} {QTI_XSD_URL}")
    test.set("identifier", f"{bank.id}-{view.locale}")
    title = plain_title(view.title.text)
    test.set("title", title)
    test.set("toolName", TOOL_NAME)
    test.set("toolVersion", __version__)
    _outcome(test, "SCORE", "single", "float", "0")
    _outcome(test, "MAXSCORE", "single", "float", "0")
    qti_sub(test, "stylesheet", {"href": ITEM_STYLESHEET_HREF, "type": "text/css"})
    part = qti_sub(
        test, "testPart", {"identifier": "part", "navigationMode": "nonlinear", "submissionMode": "individual"}
    )
    qti_sub(part, "itemSessionControl", {"showFeedback": "true"})
    section = qti_sub(part, "assessmentSection", {"identifier": "section", "title": title, "visible": "true"})
    intro = view.intro
    if intro is not None:
        rubric = qti_sub(section, "rubricBlock", {"view": "candidate", "class": f"moe-{direction_of(intro.lang)}"})
        rubric.set(XML_LANG, intro.lang)
        append_html(rubric, render_block(intro.text))
    references(section)
    processing = qti_sub(test, "outcomeProcessing")
    for identifier in ("SCORE", "MAXSCORE"):
        total = qti_sub(set_outcome(qti_sub, processing, identifier), "sum")
        expression(qti_sub, total, "testVariables", variableIdentifier=identifier)
    return test


def build_quiz_test(bank: Bank, view: LocalizedView, quiz: Quiz) -> etree._Element:
    """A quiz of the bank as an ``assessmentTest``: its time limit (``timeLimits``), its attempts (the part's
    ``itemSessionControl maxAttempts``, 0 unlimited), and one ``assessmentSection`` per section, each with its draw
    (``selection select``) and, when the quiz shuffles, ``ordering shuffle``. Canvas's importer reads these into a
    quiz with question groups (gems/plugins/qti_exporter/lib/qti/assessment_test_converter.rb)."""
    test = etree.Element(qname("assessmentTest"), nsmap={None: QTI, "xsi": XSI})
    test.set(SCHEMA_LOCATION, f"{QTI} {QTI_XSD_URL}")
    test.set("identifier", f"{bank.id}-{quiz.id}-{view.locale}")
    test.set("title", plain_title(view.quiz_title(quiz).text))
    test.set("toolName", TOOL_NAME)
    test.set("toolVersion", __version__)
    _outcome(test, "SCORE", "single", "float", "0")
    _outcome(test, "MAXSCORE", "single", "float", "0")
    quiz_controls(qti_sub, test, quiz)
    qti_sub(test, "stylesheet", {"href": ITEM_STYLESHEET_HREF, "type": "text/css"})

    def rubric(section: etree._Element, intro: Resolved) -> None:
        block = qti_sub(section, "rubricBlock", {"view": "candidate", "class": f"moe-{direction_of(intro.lang)}"})
        block.set(XML_LANG, intro.lang)
        append_html(block, render_block(intro.text))

    quiz_part(qti_sub, test, bank, view, quiz, lambda q: _item_reference(q, view), rubric)
    processing = qti_sub(test, "outcomeProcessing")
    for identifier in ("SCORE", "MAXSCORE"):
        total = qti_sub(set_outcome(qti_sub, processing, identifier), "sum")
        expression(qti_sub, total, "testVariables", variableIdentifier=identifier)
    return test


def _check_text(bank: Bank, locales: Iterable[str]) -> None:
    """Find every translation XML cannot carry before writing anything, and name its question and locale.
    (The bank's own text was checked when it was loaded; translations come from PO files.)"""
    problems = []
    for locale in locales:
        for path, translation in bank.translations.get(locale, {}).items():
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
    return Profile(math="mathml", image_url=package_url, media=bank.media, highlight="none", styles=False)


def write(bank: Bank, options: ExportOptions, out: BinaryIO) -> None:
    """Stream the package for ``options.locales`` into ``out``: byte-identical for the same bank and options."""
    quiz = None if options.quiz is None else bank.quiz(options.quiz)
    tests_of = bank
    if quiz is not None:  # the quiz's questions alone, and its test
        bank = quiz_bank(bank, quiz)
    views = {loc: resolve(bank, loc, include_drafts=options.include_drafts) for loc in options.locales}
    _check_text(bank, views)
    items = _Items()
    package = ZipStream(out)  # entries sorted by name, fixed timestamps and permissions, no seeking
    with (
        gc_paused(),
        rendering(package_profile(bank)),
    ):  # (gc: nothing here makes cycles; the collector would only rescan)
        with package.open(MANIFEST) as entry:
            write_manifest(bank, views, entry, quiz)
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
        for loc in sorted(views, key=lambda loc: test_path(bank, loc, quiz)):
            test = build_test(bank, views[loc]) if quiz is None else build_quiz_test(tests_of, views[loc], quiz)
            package.add(test_path(bank, loc, quiz), etree.tostring(test, xml_declaration=True, encoding="UTF-8"))
        package.close()
