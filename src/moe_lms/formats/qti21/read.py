"""The QTI 2.1 import (:func:`read_package`, :func:`load`): a package from outside back into a bank, each item's
locales and their texts assembled by :mod:`moe_lms.formats.imported`; what cannot be read is a problem, never
dropped silently. Packages the export wrote come back exactly (export → import → export is byte-identical).

This module must not know how the export builds its elements: it reads what a package says.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from lxml import etree

from ...locales import from_language_tag, locale_info
from ...media import bank_texts, packaged_media
from ...model import Bank, Kind, Translation
from ...problems import Problem, ProblemsFound, Severity
from ...richtext import (
    markdown_from_rich_html,
)
from ...unrender import markdown_from_html
from ...xmlsafe import UnsafeXmlError
from ...zipsafe import MAX_ITEM_BYTES, SafeZip, UnsafePackage, resolve_href
from ..imported import (
    ParsedChoice,
    ParsedItem,
    assemble,
    number,
    plain_markdown,
    same_lang,
    slug,
    validated_bank,
)
from ..ims.assessment import ParsedTest, Spelling, quizzes_of, read_parts
from ..ims.cp import Resource, open_package
from ..ims.xhtml import add_text, inherited_lang
from ..qti_item import GENERAL_FEEDBACK, read_numerical_rules
from .manifest import PACKAGING, bank_paths
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
    qname,
    tag_name,
)
from .validate import FEEDBACK_TAGS, Report
from .xhtml import html_of


def _without(container: etree._Element, tags: tuple[str, ...]) -> etree._Element:
    """A copy of ``container`` without the children named (feedback inside a choice is not the choice's text)."""
    copy = etree.Element(container.tag, dict(container.attrib))
    copy.text = container.text
    for child in container:
        if child.tag in tags or not isinstance(child.tag, str):
            add_text(copy, child.tail)
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
            add_text(clone, child.tail)
    clone.tail = element.tail
    return clone


@dataclass(frozen=True)
class _Text:
    """One learner-facing string as found in an item: its content as HTML and the language it is in. HTML, not a
    copy of the elements: a package's texts are kept until the bank is built, and a string is far smaller."""

    html: str
    lang: str | None
    inline: bool

    @classmethod
    def of(cls, container: etree._Element, lang: str | None, inline: bool) -> _Text:
        return cls(html_of(container), lang, inline)

    def markdown(self) -> str:
        """Markdown that renders back to exactly this content when possible (checked, not hoped); see unrender."""
        return markdown_from_rich_html(bank_paths(self.html), lambda f: markdown_from_html(f, inline=self.inline))


def _feedback_text(element: etree._Element) -> _Text:
    """Our feedback wraps its content in one div that carries language and direction; others' may not."""
    children = [c for c in element if isinstance(c.tag, str)]
    if (
        len(children) == 1
        and children[0].tag == qname("div")
        and not (element.text or "").strip()
        and not (children[0].tail or "").strip()
    ):
        element = children[0]
    return _Text.of(_without(element, ()), inherited_lang(element), inline=element.tag == qname("feedbackInline"))


def _parse_item(
    root: etree._Element, resource: Resource, default_locale: str, report: Report
) -> ParsedItem[_Text] | None:
    if root.tag != qname("assessmentItem"):
        report.add(root, f"expected a QTI 2.1 assessmentItem, found {tag_name(root)}")
        return None
    identifier = root.get("identifier", "")
    report.where = f"item {identifier!r}"
    interactions = [
        e
        for e in root.iter()
        if isinstance(e.tag, str) and e.tag.startswith(f"{{{QTI}}}") and e.tag.endswith("Interaction")
    ]
    if len(interactions) == 1 and interactions[0].tag == qname("textEntryInteraction"):
        return _parse_numerical(root, resource, default_locale, report, interactions[0])
    if len(interactions) != 1 or interactions[0].tag != qname("choiceInteraction"):
        report.add(root, "skipped: only items with exactly one choiceInteraction can be imported", Severity.WARNING)
        return None
    interaction = interactions[0]
    declaration = next(
        (
            d
            for d in root.iterfind(qname("responseDeclaration"))
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
    correct = {(v.text or "").strip() for v in declaration.iterfind(f"{qname('correctResponse')}/{qname('value')}")}
    mapping = declaration.find(qname("mapping"))
    if not correct and mapping is not None:
        correct = {
            e.get("mapKey", "") for e in mapping.iterfind(qname("mapEntry")) if (number(e.get("mappedValue")) or 0) > 0
        }
    multiple = declaration.get("cardinality") == "multiple"
    classes = (interaction.get("class") or "").split()
    kind = Kind.MULTIPLE if multiple else Kind.TRUE_FALSE if TRUE_FALSE_CLASS in classes else Kind.SINGLE

    points: float | int | None = None
    for outcome in root.iterfind(qname("outcomeDeclaration")):
        if outcome.get("identifier") == "MAXSCORE":
            points = number(outcome.findtext(f"{qname('defaultValue')}/{qname('value')}"))
    if points is None and mapping is not None:
        points = number(mapping.get("upperBound"))
    if points is None or points <= 0:
        points = 1

    feedback: dict[str, etree._Element] = {}
    for element in root.iter(*FEEDBACK_TAGS):
        feedback.setdefault(element.get("identifier", ""), element)
    prompt = interaction.find(qname("prompt"))
    if prompt is None:  # the stem as blocks before the interaction, as some tools write it
        prompt = etree.Element(qname("prompt"))
        body = root.find(qname("itemBody"))
        for child in body if body is not None else ():
            if child is interaction or interaction in child.iterdescendants():
                break
            if isinstance(child.tag, str):
                prompt.append(_clone(child))
    choices = []
    for choice in interaction.iterfind(qname("simpleChoice")):
        cid = choice.get("identifier", "")
        bound = feedback.get(cid)
        text = _Text.of(_without(choice, FEEDBACK_TAGS), inherited_lang(choice), inline=True)
        choices.append(ParsedChoice(cid, text, cid in correct, _feedback_text(bound) if bound is not None else None))
    general = feedback.get(GENERAL_FEEDBACK)
    if general is None:
        ids = {c.id for c in choices}
        general = next((f for f in root.iterfind(qname("modalFeedback")) if f.get("identifier") not in ids), None)
    suffix = f"-{locale}"
    qid = identifier.removesuffix(suffix) if identifier.endswith(suffix) else identifier
    return ParsedItem(
        path=report.file,
        qid=slug(qid),
        locale=locale,
        kind=kind,
        points=points,
        shuffle=interaction.get("shuffle") == "true",
        stem=_Text.of(
            _without(prompt, ()), inherited_lang(prompt) if prompt.getparent() is not None else lang, inline=False
        ),
        explanation=_feedback_text(general) if general is not None else None,
        choices=choices,
        tags=_keywords(resource.element),
    )


def _parse_numerical(
    root: etree._Element, resource: Resource, default_locale: str, report: Report, interaction: etree._Element
) -> ParsedItem[_Text] | None:
    """A numerical item as moe-lms writes it (qti21.write.build_numerical_item): a float response, a rule per value
    (qti_item.read_numerical_rules), a modalFeedback per value and the general one, the stem before the
    interaction's paragraph and the unit (``span class="moe-unit"``) after the interaction."""
    declaration = next(
        (
            d
            for d in root.iterfind(qname("responseDeclaration"))
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
    processing = root.find(qname("responseProcessing"))
    rules = read_numerical_rules(processing, qname) if processing is not None else []
    if not rules:
        report.add(root, "skipped: no rule of the item compares the response with a value", Severity.WARNING)
        return None
    points: float | int | None = None
    for outcome in root.iterfind(qname("outcomeDeclaration")):
        if outcome.get("identifier") == "MAXSCORE":
            points = number(outcome.findtext(f"{qname('defaultValue')}/{qname('value')}"))
    feedback = {f.get("identifier", ""): f for f in root.iter(*FEEDBACK_TAGS)}
    body = root.find(qname("itemBody"))
    prompt = etree.Element(qname("prompt"))
    unit = None
    for child in body if body is not None else ():
        if child is interaction or interaction in child.iterdescendants():
            unit = next((s for s in child.iter(qname("span")) if "moe-unit" in (s.get("class") or "").split()), None)
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
        unit=_Text.of(unit, inherited_lang(unit) or lang, inline=True) if unit is not None else None,
    )


def _lom_general(element: etree._Element) -> etree._Element | None:
    return PACKAGING.metadata_general(element)


def _keywords(element: etree._Element) -> tuple[str, ...]:
    general = _lom_general(element)
    if general is None:
        return ()
    words = (k.findtext(PACKAGING.lom_tag("string")) or "" for k in general.iterfind(PACKAGING.lom_tag("keyword")))
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
    identifier = general.find(PACKAGING.lom_tag("identifier"))
    if identifier is not None and identifier.findtext(PACKAGING.lom_tag("catalog")) == LOM_CATALOG:
        meta.id = identifier.findtext(PACKAGING.lom_tag("entry"))
    for string in general.iterfind(f"{PACKAGING.lom_tag('title')}/{PACKAGING.lom_tag('string')}"):
        meta.titles.append((string.get("language") or "", string.text or ""))
    meta.language = general.findtext(PACKAGING.lom_tag("language"))
    meta.tags = _keywords(manifest)
    return meta


def _parse_test(root: etree._Element, resource: Resource, report: Report) -> ParsedTest | None:
    if root.tag != qname("assessmentTest") or resource.path is None:
        report.add(root, f"expected a QTI 2.1 assessmentTest, found {tag_name(root)}")
        return None
    general = _lom_general(resource.element)
    lang = general.findtext(PACKAGING.lom_tag("language")) if general is not None else None
    rubric = next((r for r in root.iter(qname("rubricBlock")) if "candidate" in (r.get("view") or "").split()), None)
    path = resource.path
    refs = [resolve_href(path, r.get("href", "")) for r in root.iter(qname("assessmentItemRef"))]
    parts = read_parts(root, path, _SPELLING, file=report.file)
    return ParsedTest(
        identifier=root.get("identifier", ""),
        locale=from_language_tag(lang) if lang else None,
        title=root.get("title"),
        intro=_Text.of(_without(rubric, ()), inherited_lang(rubric), inline=False) if rubric is not None else None,
        items=[r for r in refs if r],
        sections=parts.sections,
        max_time=parts.max_time,
        max_attempts=parts.max_attempts,
    )


def _open(data: bytes, name: str) -> tuple[SafeZip, etree._Element]:
    package, manifest = open_package(data, name)
    if manifest.tag != PACKAGING.cp_tag("manifest"):
        message = f"the root element is {tag_name(manifest)}, not an IMS CP manifest"
        raise ProblemsFound([Problem(f"{name}!/{MANIFEST}", 1, message)])
    return package, manifest


_SPELLING = Spelling(element=qname, attribute=lambda name: name)


def _read_resources(
    package: SafeZip, manifest: etree._Element, name: str, default_locale: str, problems: list[Problem]
) -> tuple[dict[str, ParsedItem[_Text]], list[ParsedTest]]:
    """Every item and test the manifest names, parsed (items by path, in manifest order)."""
    items: dict[str, ParsedItem[_Text]] = {}
    tests: list[ParsedTest] = []
    read: set[str] = set()
    for resource in PACKAGING.resources(manifest):
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
        report = Report(f"{name}!/{resource.path}")
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

    foreign: dict[str, int] = {}  # languages of source-locale strings that are not in the source language

    def count_foreign(item: ParsedItem[_Text]) -> None:
        for text in item.texts():
            if text.lang is not None and not same_lang(text.lang, source_lang):
                foreign[text.lang] = foreign.get(text.lang, 0) + 1

    questions, translations = assemble(groups, source, targets, problems, count_foreign)
    if foreign:
        languages = ", ".join(f"{n} in {lang}" for lang, n in foreign.items())
        message = (
            f"the source locale {source} has strings in another language ({languages}): they fell back when the"
            " package was exported; import a package of every locale to keep the original source"
        )
        problems.append(Problem(name, None, message, severity=Severity.WARNING))

    source_test = next((t for t in tests if t.locale == source), None)
    titles = dict(reversed(meta.titles))
    title = plain_markdown(titles.get(source_lang) or (source_test.title if source_test else None) or name)
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
            catalog["title"] = Translation(text=plain_markdown(titles[lang]), source=title)
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
