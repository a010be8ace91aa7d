"""Reading an assessment test back (QTI 2.1 and QTI 3): its sections with their items, draws and shuffling, its
time limit and attempts, and from the source language's tests of sections, the bank's quizzes.

The writing half is :mod:`..qti_item`'s ``quiz_part`` and ``quiz_controls``, which both versions share already. QTI
3 spells QTI 2.1's names in kebab case with a ``qti-`` prefix; a reader passes how its version spells them
(:class:`Spelling`). This module must not know packages or items beyond their paths.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from ...numbers_in import MAX_ATTEMPTS, whole_number
from ...zipsafe import MAX_FILES, resolve_href
from ..imported import ImportedText, ParsedItem, number, plain_markdown, slug


@dataclass(frozen=True)
class Spelling:
    """How one QTI version spells QTI 2.1's element names (``element``: to a Clark name) and attribute names."""

    element: Callable[[str], str]
    attribute: Callable[[str], str]


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
    intro: ImportedText | None
    items: list[str]
    sections: list[ParsedSection] = field(default_factory=list)
    max_time: float | None = None  # seconds (timeLimits maxTime)
    max_attempts: int | None = None  # the first testPart's itemSessionControl: tries at each item (0: unlimited)

    @property
    def is_quiz(self) -> bool:
        """Whether the test is a quiz of sections (more than one, or one that draws), not one list of items."""
        return len(self.sections) > 1 or any(s.select is not None for s in self.sections)


@dataclass(frozen=True)
class TestParts:
    """What a test says besides its identity: its sections that hold items, time limit and tries at each item."""

    sections: list[ParsedSection]
    max_time: float | None
    max_attempts: int | None


def read_parts(root: etree._Element, path: str, spelling: Spelling, *, file: str) -> TestParts:
    """The sections (each its own items, resolved from ``path``; nested sections have theirs), ``selection
    select``, ``ordering shuffle``, ``timeLimits maxTime`` and the first part's ``itemSessionControl
    maxAttempts`` of an assessment test. A draw or a number of tries that is no whole number in range raises
    BadNumber naming ``file``, the line and the attribute as the version spells it."""
    tag, attribute = spelling.element, spelling.attribute

    def whole(element: etree._Element, name: str, high: int) -> int | None:
        what = f"<{etree.QName(element).localname} {attribute(name)}>"
        return whole_number(
            element.get(attribute(name)), low=0, high=high, file=file, line=element.sourceline, what=what
        )

    sections = []
    for section in root.iter(tag("assessmentSection")):
        own = [resolve_href(path, r.get("href", "")) for r in section.iterfind(tag("assessmentItemRef"))]
        selection = section.find(tag("selection"))
        ordering = section.find(tag("ordering"))
        sections.append(
            ParsedSection(
                section.get("identifier", ""),
                section.get("title"),
                [r for r in own if r],
                whole(selection, "select", MAX_FILES) if selection is not None else None,
                ordering is not None and ordering.get("shuffle") == "true",
            )
        )
    limits = root.find(tag("timeLimits"))
    control = root.find(f"{tag('testPart')}/{tag('itemSessionControl')}")
    return TestParts(
        [s for s in sections if s.items],
        number(limits.get(attribute("maxTime"))) if limits is not None else None,
        whole(control, "maxAttempts", MAX_ATTEMPTS) if control is not None else None,
    )


def quizzes_of(
    tests: list[ParsedTest], source: str, bank_id: str | None, items: Mapping[str, ParsedItem[Any]]
) -> list[dict[str, object]]:
    """The bank's quizzes: each source-language test of sections, its draws and settings (``items``: the items by
    package path)."""
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
                section["title"] = plain_markdown(part.title)
            if part.select is not None and 0 < part.select < len(ids):
                section["draw"] = part.select
            sections.append(section)
        quiz: dict[str, object] = {
            "id": slug(ident) or f"quiz-{len(quizzes) + 1}",
            "title": plain_markdown(test.title or ident),
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
