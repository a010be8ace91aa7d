"""Reading QTI 3.0 content packages (ours, or other tools' choice items) into a bank.

The manifest names the items and tests (``imsqti_item_xmlv3p0``, ``imsqti_test_xmlv3p0``); each choice item
(one ``qti-choice-interaction``) becomes a question in its ``xml:lang``, items ``QUESTION-LOCALE`` of several
languages one question with translations. A choice's explanation is its ``qti-feedback-block`` or
``qti-modal-feedback`` (identifier = the choice), the general one the feedback shown on any answer (moe-lms's
``show-hide="hide"`` one, or one called ``general_explanation``). The package's LOM gives the bank's id, titles,
source language and tags; tests give the intro (their rubric). Packages are read through :mod:`moe_lms.zipsafe`
and :mod:`moe_lms.xmlsafe`.
"""

from __future__ import annotations

import copy
import html
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from lxml import etree

from ...locales import from_language_tag, locale_info
from ...media import bank_texts, packaged_media
from ...model import Bank, Kind, Translation
from ...problems import Problem, ProblemsFound, Severity
from ...richtext import MATHML_NS, TEX_ANNOTATION, markdown_from_rich_html
from ...text import plain_text
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
from ..ims.cp import open_package
from ..ims.xhtml import FROM_SPAN, VOID, add_text
from ..qti_item import read_numerical_rules
from .write import (
    CP,
    ITEM_TYPE,
    LOM,
    LOM_CATALOG,
    MANIFEST,
    NOT_ANSWERED,
    QTI,
    TEST_TYPE,
    TRUE_FALSE_CLASS,
    XML_LANG,
    kebab,
)

MAX_ITEM_ELEMENTS = 5_000
GENERAL_NAMES = ("general_explanation", "general")


def q(tag: str) -> str:
    return f"{{{QTI}}}{tag}"


def local(element: etree._Element) -> str:
    return etree.QName(element).localname if isinstance(element.tag, str) else ""


# --- QTI 3 XHTML back to HTML ------------------------------------------------------------------------------------


def _plain(element: etree._Element) -> etree._Element | str:
    """A no-namespace HTML copy of a QTI XHTML element; a formula becomes its LaTeX between \\( \\) or \\[ \\]."""
    tag = local(element)
    if etree.QName(element).namespace == MATHML_NS and tag == "math":
        annotation = element.find(f".//{{{MATHML_NS}}}annotation[@encoding='{TEX_ANNOTATION}']")
        latex = annotation.text if annotation is not None and annotation.text else "".join(element.itertext())
        return f"\\[{latex}\\]" if element.get("display") == "block" else f"\\({latex}\\)"
    classes = (element.get("class") or "").split()
    tag = next((FROM_SPAN[c] for c in classes if tag == "span" and c in FROM_SPAN), tag)
    out = etree.Element(tag)
    for name, value in element.attrib.items():
        if name == XML_LANG:
            out.set("lang", value)
        elif "{" not in name and name != "class":
            out.set(name, value)
    kept = [c for c in classes if c.startswith("language-") and tag == "code"]
    if kept:
        out.set("class", " ".join(kept))
    out.text = element.text if element.text or tag in VOID else ""  # "" keeps <li></li> from becoming <li/>
    for child in element:
        if not isinstance(child.tag, str):
            add_text(out, child.tail)
            continue
        made = _plain(child)
        if isinstance(made, str):
            add_text(out, made + (child.tail or ""))
        else:
            made.tail = child.tail
            out.append(made)
    return out


def html_of(container: etree._Element, skip: tuple[str, ...] = ()) -> str:
    holder = _plain(copy.copy(container))
    assert not isinstance(holder, str)
    for child in list(holder):
        if child.tag in skip:
            _add_text_before(child)
            holder.remove(child)
    parts = [html.escape(holder.text or "", quote=False)]
    parts.extend(etree.tostring(child, encoding="unicode") for child in holder)  # (tails included, escaped)
    return "".join(parts).strip()


def _add_text_before(child: etree._Element) -> None:
    parent = child.getparent()
    if parent is None or not child.tail:
        return
    previous = child.getprevious()
    if previous is not None:
        previous.tail = (previous.tail or "") + child.tail
    else:
        parent.text = (parent.text or "") + child.tail


_PACKAGE_SRC = re.compile(r'(<img\b[^>]*\bsrc=")\.\./')


@dataclass(frozen=True)
class Text:
    html: str
    lang: str | None
    inline: bool

    def markdown(self) -> str:
        fragment = _PACKAGE_SRC.sub(r"\1", self.html) if "../" in self.html else self.html
        return markdown_from_rich_html(
            fragment, lambda f: markdown_from_html(f, inline=self.inline, tidy=False) or plain_text(f)
        )


def text_of(element: etree._Element, inherited: str | None, *, inline: bool) -> Text:
    """A string from a QTI element; our feedback wraps its text in one ``div class="moe-feedback"``."""
    children = [c for c in element if isinstance(c.tag, str)]
    lang = element.get(XML_LANG) or inherited
    if (
        len(children) == 1
        and "moe-feedback" in (children[0].get("class") or "").split()
        and not (element.text or "").strip()
    ):
        element, lang = children[0], children[0].get(XML_LANG) or lang
    return Text(html_of(element), lang, inline)


# --- items --------------------------------------------------------------------------------------------------------


def parse_item(root: etree._Element, path: str, problems: list[Problem]) -> ParsedItem[Text] | None:
    """A choice item; None (with a warning) for other items."""
    where = f"item {root.get('identifier', '')!r}"

    def skip(message: str) -> None:
        problems.append(Problem(path, root.sourceline, message, where, severity=Severity.WARNING))

    if root.tag != q("qti-assessment-item"):
        skip(f"not a QTI 3 qti-assessment-item ({etree.QName(root).text}); not imported")
        return None
    interactions = [e for e in root.iter() if isinstance(e.tag, str) and local(e).endswith("-interaction")]
    if len(interactions) == 1 and interactions[0].tag == q("qti-text-entry-interaction"):
        return _parse_numerical(root, path, interactions[0], skip)
    if len(interactions) != 1 or interactions[0].tag != q("qti-choice-interaction"):
        skip("not an item with one qti-choice-interaction; moe-lms imports choice items")
        return None
    interaction = interactions[0]
    lang = root.get(XML_LANG) or "en"
    locale = from_language_tag(lang) or "en"
    identifier = root.get("identifier", "")
    qid = identifier.removesuffix(f"-{locale}") if identifier.endswith(f"-{locale}") else identifier
    declarations = {d.get("identifier"): d for d in root.iterfind(q("qti-response-declaration"))}
    response = declarations.get(interaction.get("response-identifier"))
    if response is None:
        skip(f"the interaction's response {interaction.get('response-identifier')!r} is not declared")
        return None
    correct = {(v.text or "").strip() for v in response.iterfind(f"{q('qti-correct-response')}/{q('qti-value')}")}
    multiple = response.get("cardinality") == "multiple"
    kind = Kind.MULTIPLE if multiple else Kind.SINGLE
    if TRUE_FALSE_CLASS in (interaction.get("class") or "").split() and not multiple:
        kind = Kind.TRUE_FALSE
    points = None
    for outcome in root.iterfind(q("qti-outcome-declaration")):
        if outcome.get("identifier") == "MAXSCORE":
            points = number(outcome.findtext(f"{q('qti-default-value')}/{q('qti-value')}"))
    feedback: dict[str, etree._Element] = {}
    general = None
    shown = [*root.iterfind(q("qti-modal-feedback")), *root.iter(q("qti-feedback-block"))]  # (moe-lms's: blocks)
    for modal in shown:
        body = modal.find(q("qti-content-body"))
        body = modal if body is None else body
        ident = modal.get("identifier", "")
        if (modal.get("show-hide") == "hide" and ident == NOT_ANSWERED) or ident in GENERAL_NAMES:
            general = body
        elif modal.get("show-hide", "show") == "show":
            feedback.setdefault(ident, body)
    prompt = interaction.find(q("qti-prompt"))
    if prompt is None:  # the question is the item body before the interaction
        body = root.find(q("qti-item-body"))
        prompt = etree.Element(q("div"))
        for node in body if body is not None else ():
            if node is interaction:
                break
            if isinstance(node.tag, str):
                prompt.append(copy.deepcopy(node))
    choices = [
        ParsedChoice(
            id=c.get("identifier", ""),
            text=text_of(c, lang, inline=True),
            correct=c.get("identifier", "") in correct,
            explanation=text_of(feedback[c.get("identifier", "")], lang, inline=False)
            if c.get("identifier", "") in feedback
            else None,
        )
        for c in interaction.iterfind(q("qti-simple-choice"))
    ]
    return ParsedItem(
        path=path,
        qid=slug(qid),
        locale=locale,
        kind=kind,
        points=points if points is not None and points > 0 else 1,
        shuffle=interaction.get("shuffle") == "true",
        stem=text_of(prompt, lang, inline=False),
        explanation=text_of(general, lang, inline=False) if general is not None else None,
        choices=choices,
    )


def _parse_numerical(
    root: etree._Element, path: str, interaction: etree._Element, skip: Callable[[str], None]
) -> ParsedItem[Text] | None:
    """A numerical item as moe-lms writes it (write.build_numerical_item): a float response, a rule per value
    (qti_item.read_numerical_rules in QTI 3's names), a modal feedback per value and the general one, the stem
    before the interaction's paragraph, the unit (``span class="moe-unit"``) after the interaction."""
    declarations = {d.get("identifier"): d for d in root.iterfind(q("qti-response-declaration"))}
    response = declarations.get(interaction.get("response-identifier"))
    if response is None or response.get("base-type") != "float":
        skip("a qti-text-entry-interaction is imported only with a float response")
        return None
    lang = root.get(XML_LANG) or "en"
    locale = from_language_tag(lang) or "en"
    processing = root.find(q("qti-response-processing"))
    rules = read_numerical_rules(processing, lambda name: q(f"qti-{kebab(name)}")) if processing is not None else []
    if not rules:
        skip("no rule of the item compares the response with a value")
        return None
    points = None
    for outcome in root.iterfind(q("qti-outcome-declaration")):
        if outcome.get("identifier") == "MAXSCORE":
            points = number(outcome.findtext(f"{q('qti-default-value')}/{q('qti-value')}"))
    feedback: dict[str, etree._Element] = {}
    general = None
    for modal in [*root.iterfind(q("qti-modal-feedback")), *root.iter(q("qti-feedback-block"))]:
        body = modal.find(q("qti-content-body"))
        body = modal if body is None else body
        if modal.get("identifier") == NOT_ANSWERED or modal.get("identifier") in GENERAL_NAMES:
            general = body
        else:
            feedback.setdefault(modal.get("identifier", ""), body)
    item_body = root.find(q("qti-item-body"))
    prompt = etree.Element(q("div"))
    unit = None
    for node in item_body if item_body is not None else ():
        if node is interaction or interaction in node.iterdescendants():
            unit = next((s for s in node.iter(q("span")) if "moe-unit" in (s.get("class") or "").split()), None)
            break
        if isinstance(node.tag, str):
            prompt.append(copy.deepcopy(node))
    stem_lang = prompt[0].get(XML_LANG) if len(prompt) == 1 else None
    stem = prompt[0] if len(prompt) == 1 else prompt
    choices: list[ParsedChoice[Text]] = [
        ParsedChoice(
            rule.choice_id,
            None,
            rule.correct,
            text_of(feedback[rule.choice_id], lang, inline=False) if rule.choice_id in feedback else None,
            rule.value,
            rule.tolerance,
        )
        for rule in rules
    ]
    identifier = root.get("identifier", "")
    qid = identifier.removesuffix(f"-{locale}") if identifier.endswith(f"-{locale}") else identifier
    return ParsedItem(
        path=path,
        qid=slug(qid),
        locale=locale,
        kind=Kind.NUMERICAL,
        points=points if points is not None and points > 0 else 1,
        shuffle=True,
        stem=text_of(stem, stem_lang or lang, inline=False),
        explanation=text_of(general, lang, inline=False) if general is not None else None,
        choices=choices,
        unit=text_of(unit, unit.get(XML_LANG) or lang, inline=True) if unit is not None else None,
    )


# --- the package --------------------------------------------------------------------------------------------------


@dataclass
class Found:
    items: list[ParsedItem[Text]] = field(default_factory=list)
    tests: dict[str, tuple[str, Text | None]] = field(default_factory=dict)  # locale -> (title, intro)
    quizzes: list[ParsedTest] = field(default_factory=list)  # tests of sections (or one that draws): quizzes
    paths: dict[str, ParsedItem[Text]] = field(default_factory=dict)  # the items by package path
    problems: list[Problem] = field(default_factory=list)


def _lom_general(element: etree._Element) -> etree._Element | None:
    return element.find(f"{{{CP}}}metadata/{{{LOM}}}lom/{{{LOM}}}general")


def _keywords(general: etree._Element | None) -> tuple[str, ...]:
    if general is None:
        return ()
    words = (k.findtext(f"{{{LOM}}}string") or "" for k in general.iterfind(f"{{{LOM}}}keyword"))
    return tuple(dict.fromkeys(slug(w) for w in words if w.strip()))


def read_package(data: bytes, *, name: str = "package.qti3.zip") -> tuple[Bank, list[Problem]]:
    """A bank from a QTI 3 package; raises ProblemsFound with every error, else returns it with warnings."""
    package, manifest = open_package(data, name)
    if manifest.tag != f"{{{CP}}}manifest":
        message = f"the root element is {etree.QName(manifest).text}, not a QTI 3 package manifest ({CP})"
        raise ProblemsFound([Problem(f"{name}!/{MANIFEST}", manifest.sourceline, message)])
    found = Found()
    general = _lom_general(manifest)
    bank_id = None
    titles: dict[str, str] = {}
    languages: list[str] = []
    if general is not None:
        for identifier in general.iterfind(f"{{{LOM}}}identifier"):
            if identifier.findtext(f"{{{LOM}}}catalog") == LOM_CATALOG:
                bank_id = identifier.findtext(f"{{{LOM}}}entry")
        for string in general.iterfind(f"{{{LOM}}}title/{{{LOM}}}string"):
            titles.setdefault(string.get("language") or "", string.text or "")
        languages = [language.text or "" for language in general.iterfind(f"{{{LOM}}}language")]
    read: set[str] = set()
    for resource in manifest.iterfind(f"{{{CP}}}resources/{{{CP}}}resource"):
        kind = resource.get("type", "")
        href = resource.get("href") or next((f.get("href", "") for f in resource.iterfind(f"{{{CP}}}file")), "")
        path = resolve_href(MANIFEST, href)
        if kind not in (ITEM_TYPE, TEST_TYPE):
            continue
        place = f"{name}!/{path or href}"
        if path in read:  # (a file named by a second resource is the same file: read once)
            continue
        if path is None or path not in package.infos:
            found.problems.append(
                Problem(
                    f"{name}!/{MANIFEST}", resource.sourceline, f"the manifest names {href!r}, which is not in the zip"
                )
            )
            continue
        read.add(path)
        try:
            root = package.xml(
                path,
                max_elements=MAX_ITEM_ELEMENTS if kind == ITEM_TYPE else 1_000_000,
                max_bytes=MAX_ITEM_BYTES if kind == ITEM_TYPE else None,
            )
        except (UnsafePackage, UnsafeXmlError) as exc:
            found.problems.append(Problem(place, getattr(exc, "line", None), str(exc)))
            continue
        if kind == ITEM_TYPE:
            item = parse_item(root, place, found.problems)
            if item is not None:
                item.tags = _keywords(_lom_general(resource))
                found.items.append(item)
                found.paths[path] = item
        elif root.tag == q("qti-assessment-test") and (quiz := parse_quiz(root, path, place=place)).is_quiz:
            found.quizzes.append(quiz)
        elif root.tag == q("qti-assessment-test"):
            rubric = root.find(f".//{q('qti-rubric-block')}")
            intro = None
            if rubric is not None:
                body = rubric.find(q("qti-content-body"))
                intro = text_of(body if body is not None else rubric, rubric.get(XML_LANG), inline=False)
            test_locale = root.get("identifier", "").rpartition("-")[2]  # (ours: BANK-LOCALE)
            locale = from_language_tag(test_locale) if test_locale else None
            if locale is not None:
                found.tests[locale] = (root.get("title", ""), intro)
    return _bank(found, name, package, bank_id, titles, languages, _keywords(general))


_SPELLING = Spelling(element=lambda name: q(f"qti-{kebab(name)}"), attribute=kebab)


def parse_quiz(root: etree._Element, path: str, *, place: str = "") -> ParsedTest:
    """A ``qti-assessment-test``'s sections (their items, ``qti-selection select``, ``qti-ordering shuffle``), time
    limit (``qti-time-limits max-time``) and the tries at each item (the first part's ``qti-item-session-control
    max-attempts``, not the quiz's attempts): QTI 2.1's reading of a quiz (:func:`..ims.assessment.quizzes_of`
    makes the quizzes)."""
    parts = read_parts(root, path, _SPELLING, file=place or path)
    identifier = root.get("identifier", "")
    test_locale = identifier.rpartition("-")[2]  # (ours: BANK-QUIZ-LOCALE)
    return ParsedTest(
        identifier=identifier,
        locale=from_language_tag(test_locale) if test_locale else None,
        title=root.get("title"),
        intro=None,
        items=[i for s in parts.sections for i in s.items],
        sections=parts.sections,
        max_time=parts.max_time,
        max_attempts=parts.max_attempts,
    )


def _bank(
    found: Found,
    name: str,
    package: SafeZip,
    bank_id: str | None,
    titles: dict[str, str],
    languages: list[str],
    tags: tuple[str, ...],
) -> tuple[Bank, list[Problem]]:
    problems = found.problems
    groups: dict[str, dict[str, ParsedItem[Text]]] = {}
    for item in found.items:
        versions = groups.setdefault(item.qid, {})
        if item.locale in versions:
            problems.append(Problem(item.path, None, f"a second item of question {item.qid!r} in {item.locale}"))
            continue
        versions[item.locale] = item
    present = list(dict.fromkeys(i.locale for i in found.items))
    if not present:
        raise ProblemsFound([*problems, Problem(name, None, "the package has no choice item moe-lms can import")])
    declared = from_language_tag(languages[0]) if languages else None
    source = declared if declared in present else present[0]
    targets = [loc for loc in present if loc != source]
    questions, translations = assemble(groups, source, targets, problems)
    source_lang = locale_info(source).lang
    source_test = found.tests.get(source)
    title_text = titles.get(source_lang) or (source_test[0] if source_test else "") or posixpath.basename(name)
    title = plain_markdown(title_text)
    intro = source_test[1].markdown() if source_test is not None and source_test[1] is not None else None
    for locale in targets:
        lang, catalog = locale_info(locale).lang, translations[locale]
        other = titles.get(lang) or (found.tests[locale][0] if locale in found.tests else None)
        if other and other.strip() != title_text.strip():
            catalog["title"] = Translation(text=plain_markdown(other), source=title)
        test = found.tests.get(locale)
        if intro and test is not None and test[1] is not None and same_lang(test[1].lang, lang):
            catalog["intro"] = Translation(text=test[1].markdown(), source=intro)
    raw: dict[str, object] = {
        "id": slug(bank_id or posixpath.basename(name).split(".")[0]),
        "title": title,
        "source_locale": source,
        "target_locales": targets,
        "tags": list(tags),
        "questions": questions,
        "translations": translations,
    }
    if intro:
        raw["intro"] = intro
    texts = [*bank_texts(questions), *(t.text for c in translations.values() for t in c.values())]
    raw["media"] = packaged_media(package.read, "", texts, name, problems)
    quizzes = quizzes_of(found.quizzes, source, bank_id, found.paths)
    if quizzes:
        raw["quizzes"] = quizzes
    return validated_bank(raw, name, problems, no_questions="no question of the package could be imported")


def load(data: bytes, *, name: str = "package.qti3.zip") -> Bank:
    return read_package(data, name=name)[0]
