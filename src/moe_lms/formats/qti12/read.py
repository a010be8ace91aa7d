"""QTI 1.2 packages into a bank: the reading both the Common Cartridge and the Canvas QTI importers share.

A package's ``questestinterop`` files are read through :mod:`moe_lms.zipsafe` (zip-slip, zip bombs, symbolic
links, size and count limits) and :mod:`moe_lms.xmlsafe` (no DTD, entities or network). Items of one question in
several languages (ids ``<question>-<locale>``, ``xml:lang``) become one question with translations, as the QTI 2.1
importer does; strings that fell back to the source language on export carry its language and are not taken as
translations.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from lxml import etree

from ...locales import from_language_tag, locale_info
from ...media import bank_texts, packaged_media
from ...model import Bank, Translation
from ...numbers_in import MAX_ATTEMPTS, MAX_MINUTES, finite_number, whole_number
from ...problems import Problem, ProblemsFound
from ...xmlsafe import UnsafeXmlError
from ...zipsafe import MAX_FILES, SafeZip, UnsafePackage
from ..imported import ParsedItem, assemble, plain_markdown, same_lang, slug, validated_bank
from . import WEB_RESOURCES, Text, parse_item, q, text_of

MANIFEST = "imsmanifest.xml"


@dataclass
class SectionFound:
    """A part of a quiz: a question group (``selection_number``: how many an attempt draws, ``points_per_item``),
    or a run of items outside groups."""

    ident: str
    title: str | None
    items: list[str] = field(default_factory=list)
    draw: int | None = None
    points: float | None = None


@dataclass
class Assessment:
    """A quiz of the package: its language, title, intro and item identifiers in order; its sections when it has
    question groups (a Canvas quiz with groups: lib/cc/qti/qti_generator.rb ``add_group``), and its settings."""

    ident: str
    locale: str | None
    title: str | None
    intro: Text | None
    items: list[str] = field(default_factory=list)
    sections: list[SectionFound] = field(default_factory=list)
    time_limit: int | None = None  # minutes (qmd_timelimit)
    attempts: int | None = None  # cc_maxattempts; 0: unlimited


@dataclass
class Found:
    """What a package holds, before it becomes a bank."""

    items: dict[str, ParsedItem[Text]] = field(default_factory=dict)  # by item ident, first seen wins
    assessments: list[Assessment] = field(default_factory=list)
    bank_id: str | None = None
    titles: list[tuple[str, str]] = field(default_factory=list)  # (language, plain text)
    language: str | None = None
    tags: tuple[str, ...] = ()
    problems: list[Problem] = field(default_factory=list)


def open_package(data: bytes, name: str) -> tuple[SafeZip, etree._Element | None]:
    """The zip, checked, and its manifest (None when it has none)."""
    try:
        package = SafeZip(data)
        manifest = package.xml(MANIFEST) if MANIFEST in package.infos else None
    except (UnsafePackage, UnsafeXmlError) as exc:
        raise ProblemsFound([Problem(name, getattr(exc, "line", None), str(exc))]) from None
    return package, manifest


def read_qti_file(package: SafeZip, path: str, name: str, default_locale: str, found: Found) -> None:
    """Every choice item of one ``questestinterop`` file (an objectbank or an assessment) into ``found``."""
    place = f"{name}!/{path}"
    try:
        root = package.xml(path)
    except (UnsafePackage, UnsafeXmlError) as exc:
        found.problems.append(Problem(place, getattr(exc, "line", None), str(exc)))
        return
    if root.tag != q("questestinterop"):
        found.problems.append(
            Problem(place, root.sourceline, f"expected a QTI 1.2 questestinterop, found {etree.QName(root).text}")
        )
        return
    for assessment in root.iterfind(q("assessment")):
        if any(a.ident == assessment.get("ident", "") for a in found.assessments):
            continue  # a second copy of a quiz (Canvas course exports hold a CC and a Canvas one): the first is kept
        lang = assessment.get("{http://www.w3.org/XML/1998/namespace}lang")
        rubric = assessment.find(f"{q('rubric')}/{q('material')}")
        intro = text_of(list(rubric.iter(q("mattext"))), lang, inline=False) if rubric is not None else None
        entry = Assessment(
            assessment.get("ident", ""), from_language_tag(lang) if lang else None, assessment.get("title"), intro
        )
        for item in assessment.iter(q("item")):
            entry.items.append(item.get("ident", ""))
            _add(item, place, default_locale, found)
        _read_sections(assessment, entry, place)
        if entry.locale is None:
            first = next((found.items[i].locale for i in entry.items if i in found.items), None)
            entry.locale = first
        found.assessments.append(entry)
    for bank in root.iterfind(q("objectbank")):
        if found.bank_id is None and bank.get("ident"):
            found.bank_id = bank.get("ident")
        for item in bank.iterfind(q("item")):
            _add(item, place, default_locale, found)


def _number(text: str | None) -> float | None:
    value = finite_number(text)
    return None if value is None else float(value)


def _read_sections(assessment: etree._Element, entry: Assessment, place: str) -> None:
    """The question groups of an assessment (sections inside its section, with ``selection_ordering``) and its
    settings, as Canvas's importer reads them (gems/plugins/qti_exporter/lib/qti/assessment_test_converter.rb)."""
    found = {
        (f.findtext(q("fieldlabel")) or "").strip(): f
        for f in assessment.iterfind(f"{q('qtimetadata')}/{q('qtimetadatafield')}")
    }
    fields = {label: (f.findtext(q("fieldentry")) or "").strip() for label, f in found.items()}
    limit = _number(fields.get("qmd_timelimit"))
    entry.time_limit = int(limit) if limit and 0 < limit <= MAX_MINUTES else None
    attempts = fields.get("cc_maxattempts", "")
    entry.attempts = (
        0
        if attempts.lower() == "unlimited"
        else whole_number(
            attempts, low=0, high=MAX_ATTEMPTS, file=place, what="the qtimetadatafield cc_maxattempts",
            line=found["cc_maxattempts"].sourceline if "cc_maxattempts" in found else None,
        )
    )  # fmt: skip
    sections: list[SectionFound] = []
    grouped = False
    for top in assessment.iterfind(q("section")):
        for child in top:
            if child.tag == q("item"):
                if not sections or sections[-1].draw is not None or sections[-1].ident.startswith("group:"):
                    sections.append(SectionFound(f"part-{len(sections) + 1}", None))
                sections[-1].items.append(child.get("ident", ""))
            elif child.tag == q("section"):
                grouped = True
                selection = child.find(f"{q('selection_ordering')}/{q('selection')}")
                count = selection.find(q("selection_number")) if selection is not None else None
                number = (
                    whole_number(
                        count.text, low=0, high=MAX_FILES, file=place, line=count.sourceline,
                        what="<selection_number>",
                    )
                    if count is not None
                    else None
                )  # fmt: skip
                per_item = (
                    selection.find(f"{q('selection_extension')}/{q('points_per_item')}")
                    if selection is not None
                    else None
                )
                group = SectionFound(
                    "group:" + child.get("ident", f"group-{len(sections) + 1}"),
                    child.get("title"),
                    [i.get("ident", "") for i in child.iter(q("item"))],
                    number,
                    _number(per_item.text) if per_item is not None else None,
                )
                sections.append(group)
    if grouped:
        entry.sections = sections


def _add(item: etree._Element, place: str, default_locale: str, found: Found) -> None:
    ident = item.get("ident", "")
    if ident in found.items:
        return
    parsed = parse_item(item, place, default_locale, found.problems)
    if parsed is not None:
        found.items[ident] = parsed


def _quizzes(found: Found, source: str, bank_id: str | None, question_ids: dict[str, str]) -> list[dict[str, object]]:
    """The bank's quizzes: each source-language assessment with question groups, its sections and draws."""
    quizzes: list[dict[str, object]] = []
    for assessment in found.assessments:
        if not assessment.sections or assessment.locale != source:
            continue
        ident = assessment.ident.removesuffix(f"-{source}")
        if bank_id and ident.startswith(f"{bank_id}-"):
            ident = ident.removeprefix(f"{bank_id}-")
        sections = []
        shuffled = False  # a group drawing all of its questions: Canvas's way to shuffle them
        for number, part in enumerate(assessment.sections, start=1):
            ids = [question_ids[i] for i in part.items if i in question_ids]
            if not ids:
                continue
            section_id = (
                slug(part.ident.removeprefix("group:").removeprefix(f"{assessment.ident}-")) or f"part-{number}"
            )
            section: dict[str, object] = {"id": section_id, "questions": list(dict.fromkeys(ids))}
            if part.title:
                section["title"] = plain_markdown(part.title)
            if part.draw is not None and 0 < part.draw < len(ids):
                section["draw"] = part.draw
            shuffled = shuffled or (part.draw is not None and part.draw >= len(ids) > 1)
            if part.points is not None and part.points > 0:
                section["points"] = int(part.points) if part.points.is_integer() else part.points
            sections.append(section)
        quiz: dict[str, object] = {
            "id": slug(ident) or f"quiz-{len(quizzes) + 1}",
            "title": plain_markdown(assessment.title or ident),
            "sections": sections,
        }
        if shuffled:
            quiz["shuffle_questions"] = True
        if assessment.time_limit is not None:
            quiz["time_limit_minutes"] = assessment.time_limit
        if assessment.attempts is not None:
            quiz["attempts"] = assessment.attempts
        quizzes.append(quiz)
    return quizzes


def build_bank(found: Found, name: str, package: SafeZip | None = None) -> tuple[Bank, list[Problem]]:
    """The bank of what a package holds; raises ProblemsFound with every error, else returns it with warnings.
    Images its text shows are read from ``package``'s web_resources/ folder."""
    problems = found.problems
    order = [i for a in found.assessments for i in a.items if i in found.items] + list(found.items)
    groups: dict[str, dict[str, ParsedItem[Text]]] = {}
    for ident in dict.fromkeys(order):
        item = found.items[ident]
        versions = groups.setdefault(item.qid, {})
        if item.locale in versions:
            base, n = item.qid, 2
            while item.locale in groups.get(item.qid, {}):
                item.qid = f"{base[:44]}-{n}"
                n += 1
            groups.setdefault(item.qid, {})[item.locale] = item
        else:
            versions[item.locale] = item
    if not groups:
        problems.append(Problem(name, None, "the package has no choice question moe-lms can import"))
        raise ProblemsFound(problems)
    default = from_language_tag(found.language) if found.language else None
    present = list(
        dict.fromkeys([*(a.locale for a in found.assessments if a.locale), *(i.locale for i in found.items.values())])
    )
    source = default if default in present else present[0]
    source_lang = locale_info(source).lang
    targets = [loc for loc in present if loc != source]

    questions, translations = assemble(groups, source, targets, problems)

    source_quiz = next((a for a in found.assessments if a.locale == source), None)
    titles = dict(reversed(found.titles))
    title_text = titles.get(source_lang) or (source_quiz.title if source_quiz else None) or posixpath.basename(name)
    title = plain_markdown(title_text)
    bank_id = found.bank_id or (source_quiz.ident.removesuffix(f"-{source}") if source_quiz else None)
    raw: dict[str, object] = {
        "id": slug(bank_id or posixpath.basename(name).split(".")[0]),
        "title": title,
        "source_locale": source,
        "target_locales": targets,
        "tags": list(found.tags),
        "questions": questions,
        "translations": translations,
    }
    intro = source_quiz.intro.markdown() if source_quiz is not None and source_quiz.intro is not None else None
    if intro:
        raw["intro"] = intro
    for quiz in found.assessments:
        if quiz.locale not in translations:
            continue
        lang, catalog = locale_info(quiz.locale).lang, translations[quiz.locale]
        quiz_title = titles.get(lang) or quiz.title
        if quiz_title and quiz_title.strip() != title_text.strip():
            catalog["title"] = Translation(text=plain_markdown(quiz_title), source=title)
        if intro and quiz.intro is not None and same_lang(quiz.intro.lang, lang):
            catalog["intro"] = Translation(text=quiz.intro.markdown(), source=intro)
    quizzes = _quizzes(found, source, bank_id, {ident: item.qid for ident, item in found.items.items()})
    if quizzes:
        raw["quizzes"] = quizzes
    if package is not None:
        texts = [*bank_texts(questions), *(t.text for c in translations.values() for t in c.values())]
        raw["media"] = packaged_media(package.read, f"{WEB_RESOURCES}/", texts, name, problems)
    return validated_bank(raw, name, problems, no_questions="no question of the package could be imported")
