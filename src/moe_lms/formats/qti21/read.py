"""The QTI 2.1 import (:func:`read_package`, :func:`load`): a package from outside back into a bank, each item's
locales and their texts assembled by :mod:`moe_lms.formats.imported`; what cannot be read is a problem, never
dropped silently. Packages the export wrote come back exactly (export → import → export is byte-identical).

This module must not know how the export builds its elements: it reads what a package says.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from ...locales import from_language_tag, locale_info
from ...media import bank_texts, packaged_media
from ...model import Bank, Kind, Question, Translation
from ...numbers_in import MAX_ATTEMPTS, whole_number
from ...problems import Problem, ProblemsFound, Severity
from ...richtext import (
    markdown_from_rich_html,
    plain_text,
)
from ...unrender import markdown_from_html
from ...xmlsafe import UnsafeXmlError
from ...zipsafe import MAX_FILES, MAX_ITEM_BYTES, SafeZip, UnsafePackage, resolve_href
from ..imported import ParsedChoice, ParsedItem, number, question_of, same_lang, slug, translate, validated_bank
from ..qti_item import GENERAL_FEEDBACK, read_numerical_rules
from .manifest import _bank_paths, _cp, _lom, _Resource, _resources
from .names import (
    ITEM_TYPE_PREFIX,
    LOM_CATALOG,
    MANIFEST,
    MAX_ITEM_ELEMENTS,
    MAX_TEST_ELEMENTS,
    QTI,
    TEST_TYPE_PREFIX,
    TRUE_FALSE_CLASS,
    XML_LANG,
    _q,
    _tag,
)
from .validate import _FEEDBACK_TAGS, _Report
from .xhtml import _add_text, _html_of


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
    if len(interactions) == 1 and interactions[0].tag == _q("textEntryInteraction"):
        return _parse_numerical(root, resource, default_locale, report, interactions[0])
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
    locale = from_language_tag(lang) if lang else default_locale
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


def _parse_numerical(
    root: etree._Element, resource: _Resource, default_locale: str, report: _Report, interaction: etree._Element
) -> ParsedItem[_Text] | None:
    """A numerical item as moe-lms writes it (qti21.write.build_numerical_item): a float response, a rule per value
    (qti_item.read_numerical_rules), a modalFeedback per value and the general one, the stem before the
    interaction's paragraph and the unit (``span class="moe-unit"``) after the interaction."""
    declaration = next(
        (
            d
            for d in root.iterfind(_q("responseDeclaration"))
            if d.get("identifier") == interaction.get("responseIdentifier")
        ),
        None,
    )
    if declaration is None or declaration.get("baseType") != "float":
        report.add(root, "skipped: a textEntryInteraction is imported only with a float response", Severity.WARNING)
        return None
    lang = root.get(XML_LANG)
    locale = from_language_tag(lang) if lang else default_locale
    if locale is None:
        report.add(root, f"xml:lang {lang!r} is not a language moe-lms knows")
        return None
    processing = root.find(_q("responseProcessing"))
    rules = read_numerical_rules(processing, _q) if processing is not None else []
    if not rules:
        report.add(root, "skipped: no rule of the item compares the response with a value", Severity.WARNING)
        return None
    points: float | int | None = None
    for outcome in root.iterfind(_q("outcomeDeclaration")):
        if outcome.get("identifier") == "MAXSCORE":
            points = number(outcome.findtext(f"{_q('defaultValue')}/{_q('value')}"))
    feedback = {f.get("identifier", ""): f for f in root.iter(*_FEEDBACK_TAGS)}
    body = root.find(_q("itemBody"))
    prompt = etree.Element(_q("prompt"))
    unit = None
    for child in body if body is not None else ():
        if child is interaction or interaction in child.iterdescendants():
            unit = next((s for s in child.iter(_q("span")) if "moe-unit" in (s.get("class") or "").split()), None)
            break
        if isinstance(child.tag, str):
            prompt.append(_clone(child))
    choices: list[ParsedChoice[_Text]] = []
    for rule in rules:
        bound = feedback.get(rule.choice_id)
        explanation = _feedback_text(bound) if bound is not None else None
        choices.append(ParsedChoice(rule.choice_id, None, rule.correct, explanation, rule.value, rule.tolerance))
    general = feedback.get(GENERAL_FEEDBACK)
    stem = _feedback_text(prompt)  # (the one div the stem is in, with its language where it is not the item's)
    suffix = f"-{locale}"
    identifier = root.get("identifier", "")
    qid = identifier.removesuffix(suffix) if identifier.endswith(suffix) else identifier
    return ParsedItem(
        path=report.file,
        qid=slug(qid),
        locale=locale,
        kind=Kind.NUMERICAL,
        points=points if points is not None and points > 0 else 1,
        shuffle=True,
        stem=stem if stem.lang is not None else _Text(stem.html, lang, inline=False),
        explanation=_feedback_text(general) if general is not None else None,
        choices=choices,
        tags=_keywords(resource.element),
        unit=_Text.of(unit, _lang_of(unit) or lang, inline=True) if unit is not None else None,
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
class ParsedSection:
    identifier: str
    title: str | None
    items: list[str]  # package paths
    select: int | None
    shuffle: bool


@dataclass
class ParsedTest:
    identifier: str
    locale: str | None
    title: str | None
    intro: _Text | None
    items: list[str]
    sections: list[ParsedSection] = field(default_factory=list)
    max_time: float | None = None  # seconds (timeLimits maxTime)
    max_attempts: int | None = None  # the first testPart's itemSessionControl: tries at each item (0: unlimited)

    @property
    def is_quiz(self) -> bool:
        """Whether the test is a quiz of sections (more than one, or one that draws), not one list of items."""
        return len(self.sections) > 1 or any(s.select is not None for s in self.sections)


def _parse_test(root: etree._Element, resource: _Resource, report: _Report) -> ParsedTest | None:
    if root.tag != _q("assessmentTest") or resource.path is None:
        report.add(root, f"expected a QTI 2.1 assessmentTest, found {_tag(root)}")
        return None
    general = _lom_general(resource.element)
    lang = general.findtext(_lom("language")) if general is not None else None
    rubric = next((r for r in root.iter(_q("rubricBlock")) if "candidate" in (r.get("view") or "").split()), None)
    path = resource.path
    refs = [resolve_href(path, r.get("href", "")) for r in root.iter(_q("assessmentItemRef"))]
    sections = []
    for section in root.iter(_q("assessmentSection")):  # (a section's own items: nested sections have theirs)
        own = [resolve_href(path, r.get("href", "")) for r in section.iterfind(_q("assessmentItemRef"))]
        selection = section.find(_q("selection"))
        select = (
            whole_number(
                selection.get("select"), low=0, high=MAX_FILES, file=report.file, line=selection.sourceline,
                what="<selection select>",
            )
            if selection is not None
            else None
        )  # fmt: skip
        ordering = section.find(_q("ordering"))
        sections.append(
            ParsedSection(
                section.get("identifier", ""),
                section.get("title"),
                [r for r in own if r],
                select,
                ordering is not None and ordering.get("shuffle") == "true",
            )
        )
    limits = root.find(_q("timeLimits"))
    max_time = number(limits.get("maxTime")) if limits is not None else None
    control = root.find(f"{_q('testPart')}/{_q('itemSessionControl')}")
    attempts = (
        whole_number(
            control.get("maxAttempts"), low=0, high=MAX_ATTEMPTS, file=report.file, line=control.sourceline,
            what="<itemSessionControl maxAttempts>",
        )
        if control is not None
        else None
    )  # fmt: skip
    return ParsedTest(
        identifier=root.get("identifier", ""),
        locale=from_language_tag(lang) if lang else None,
        title=root.get("title"),
        intro=_Text.of(_without(rubric, ()), _lang_of(rubric), inline=False) if rubric is not None else None,
        items=[r for r in refs if r],
        sections=[s for s in sections if s.items],
        max_time=max_time,
        max_attempts=attempts,
    )


def quizzes_of(
    tests: list[ParsedTest], source: str, bank_id: str | None, items: Mapping[str, ParsedItem[Any]]
) -> list[dict[str, object]]:
    """The bank's quizzes: each source-language test of sections, its draws and settings (``items``: the items by
    package path). QTI 3's reader makes its tests of the same :class:`ParsedTest` and reads them back here too."""
    quizzes: list[dict[str, object]] = []
    for test in tests:
        if test.locale != source or not test.is_quiz:
            continue
        ident = test.identifier.removesuffix(f"-{source}")
        if bank_id and ident.startswith(f"{bank_id}-"):
            ident = ident.removeprefix(f"{bank_id}-")
        sections = []
        for number_, part in enumerate(test.sections, start=1):
            ids = list(dict.fromkeys(items[p].qid for p in part.items if p in items))
            if not ids:
                continue
            section: dict[str, object] = {"id": slug(part.identifier) or f"part-{number_}", "questions": ids}
            if part.title and part.title != part.identifier:
                section["title"] = _plain_markdown(part.title)
            if part.select is not None and 0 < part.select < len(ids):
                section["draw"] = part.select
            sections.append(section)
        quiz: dict[str, object] = {
            "id": slug(ident) or f"quiz-{len(quizzes) + 1}",
            "title": _plain_markdown(test.title or ident),
            "sections": sections,
        }
        if any(part.shuffle for part in test.sections):
            quiz["shuffle_questions"] = True
        if test.max_time is not None and test.max_time >= 60:
            quiz["time_limit_minutes"] = int(test.max_time // 60)
        # (not test.max_attempts: QTI's maxAttempts is the tries at each item within one attempt at the test, not
        # the number of attempts at the quiz, which QTI has no place for)
        quizzes.append(quiz)
    return quizzes


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
) -> tuple[dict[str, ParsedItem[_Text]], list[ParsedTest]]:
    """Every item and test the manifest names, parsed (items by path, in manifest order)."""
    items: dict[str, ParsedItem[_Text]] = {}
    tests: list[ParsedTest] = []
    read: set[str] = set()
    for resource in _resources(manifest):
        is_item = resource.kind.startswith(ITEM_TYPE_PREFIX)
        if not (is_item or resource.kind.startswith(TEST_TYPE_PREFIX)):
            continue
        if resource.path in read:  # (a file named by a second resource is the same file: read once)
            continue
        if resource.path is None or resource.path not in package.infos:
            message = f"resource {resource.identifier!r} names no file of the package"
            problems.append(Problem(f"{name}!/{MANIFEST}", resource.element.sourceline, message))
            continue
        read.add(resource.path)
        report = _Report(f"{name}!/{resource.path}")
        try:
            root = package.xml(
                resource.path,
                max_elements=MAX_ITEM_ELEMENTS if is_item else MAX_TEST_ELEMENTS,
                max_bytes=MAX_ITEM_BYTES if is_item else None,
            )
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
    items: dict[str, ParsedItem[_Text]], tests: list[ParsedTest], problems: list[Problem]
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
    default_locale = (from_language_tag(meta.language) if meta.language else None) or "en"
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
    quizzes = quizzes_of(tests, source, bank_id, items)
    if quizzes:
        raw["quizzes"] = quizzes
    return validated_bank(raw, name, problems)


def load(data: bytes, *, name: str = "package.zip") -> Bank:
    """A bank from a QTI 2.1 package; raises ProblemsFound with every error (warnings are dropped)."""
    return read_package(data, name=name)[0]
