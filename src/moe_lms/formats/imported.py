"""What every package importer does once it has parsed its items: one question's items in several locales become a
bank question plus the translations really in each locale, and the assembled bank is validated into problems.

The QTI 2.1 and QTI 1.2 (Common Cartridge, Canvas) importers parse their own XML into these records and share the
rest, so a package reads into the same bank whichever format carried it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from pydantic import ValidationError

from ..locales import locale_info
from ..model import ID_MAX_LENGTH, Bank, Kind, Question, Translation
from ..numbers_in import finite_number
from ..problems import Problem, ProblemsFound, Severity
from ..text import plain_text


class ImportedText(Protocol):
    """A learner-facing string as an importer found it. Each format keeps its own class (QTI 1.2 and 2.1 wrap text
    and refer to images differently) and turns its own markup into Markdown."""

    @property
    def lang(self) -> str | None: ...

    def markdown(self) -> str: ...


T = TypeVar("T", bound=ImportedText)


@dataclass
class ParsedChoice(Generic[T]):
    id: str
    text: T | None  # None: a numerical question's value, which has no text
    correct: bool = False
    explanation: T | None = None
    value: float | None = None  # a numerical question's value and its tolerance
    tolerance: float = 0.0


@dataclass
class ParsedItem(Generic[T]):
    """One item of a package: one question in one locale, kept until every locale's item is read."""

    path: str
    qid: str
    locale: str
    kind: Kind
    points: float | int
    shuffle: bool
    stem: T
    explanation: T | None
    choices: list[ParsedChoice[T]]
    tags: tuple[str, ...] = ()
    ident: str = ""  # QTI 1.2 only: the item's own ident (QTI 2.1 items are known by their path)
    title: str | None = None  # QTI 1.2 only
    unit: T | None = None  # a numerical question's unit

    def texts(self) -> Iterator[T]:
        yield self.stem
        if self.explanation is not None:
            yield self.explanation
        if self.unit is not None:
            yield self.unit
        for c in self.choices:
            if c.text is not None:
                yield c.text
            if c.explanation is not None:
                yield c.explanation


def numerical_fields(item: ParsedItem[T]) -> dict[str, object]:
    """A numerical item's question fields: the unit, and the tolerances as a bank writes them (the most common one
    on the question when it is not 0, each other on its own value), so a bank's question comes back as written."""
    tolerances = [c.tolerance for c in item.choices]
    common = max(sorted(set(tolerances)), key=tolerances.count) if tolerances else 0.0
    fields: dict[str, object] = {}
    if item.unit is not None:
        fields["unit"] = item.unit.markdown()
    if common:
        fields["tolerance"] = common
    fields["choices"] = [
        {
            "id": slug(c.id),
            "value": c.value,
            **({"tolerance": c.tolerance} if c.tolerance != common else {}),
            "correct": c.correct,
            "explanation": c.explanation.markdown(),
        }
        for c in item.choices
        if c.explanation is not None
    ]
    return fields


def range_of(low: float, high: float) -> tuple[float, float]:
    """A range's value and tolerance, worked out in decimal ([223.95, 224.05]: 224 ± 0.05, not binary float noise)."""
    from decimal import Decimal

    from ..numeric import number_text

    lo, hi = Decimal(number_text(low)), Decimal(number_text(high))
    return float((lo + hi) / 2), float((hi - lo) / 2)


def number(text: str | None) -> float | int | None:
    """A finite number written in a package, or None (see :func:`moe_lms.numbers_in.finite_number`)."""
    return finite_number(text)


def slug(value: str) -> str:
    """An id the bank accepts, from an identifier another tool chose."""
    out = re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")
    if not out or not out[0].isalpha():
        out = f"q-{out}".rstrip("-")
    return out[:ID_MAX_LENGTH].rstrip("-")


def same_lang(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and a.replace("_", "-").lower() == b.replace("_", "-").lower()


def question_of(qid: str, versions: dict[str, ParsedItem[T]], source: str, problems: list[Problem]) -> Question | None:
    """The bank question of one question's items (by locale), from its source-locale item; None, with the
    problems, when that item is missing, lacks feedback or is not a valid question."""
    item = versions.get(source)
    if item is None:
        any_item = next(iter(versions.values()))
        problems.append(Problem(any_item.path, None, f"question {qid!r} has no item in the source locale {source}"))
        return None
    where = f"question {qid!r}"
    missing = [c.id for c in item.choices if c.explanation is None]
    if missing or item.explanation is None:
        what = [f"choice {m!r}" for m in missing] + (["the question"] if item.explanation is None else [])
        message = f"no feedback for {', '.join(what)}; a bank question needs an explanation for each"
        problems.append(Problem(item.path, None, message, where))
        return None
    raw: dict[str, object] = {
        "id": qid,
        "kind": item.kind.value,
        "points": item.points,
        "shuffle": item.shuffle,
        "stem": item.stem.markdown(),
        "explanation": item.explanation.markdown(),
        "choices": [
            {
                "id": slug(c.id),
                "text": c.text.markdown() if c.text is not None else "",
                "correct": c.correct,
                "explanation": c.explanation.markdown(),
            }
            for c in item.choices
            if c.explanation is not None
        ],
        "tags": list(item.tags),
    }
    if item.kind is Kind.NUMERICAL:
        raw.update(numerical_fields(item))
    try:
        return Question.model_validate(raw)
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            message = error["msg"].removeprefix("Value error, ")
            field_path = ".".join(str(p) for p in error["loc"])
            problems.append(Problem(item.path, None, f"{field_path}: {message}" if field_path else message, where))
        return None


def translate(
    question: Question, item: ParsedItem[T], locale: str, catalog: dict[str, Translation], problems: list[Problem]
) -> None:
    """Record the strings of ``item`` that really are in ``locale``: a string that fell back to the source locale
    on export carries the source's language and is no translation."""
    lang = locale_info(locale).lang
    choices = {slug(c.id): c for c in item.choices}
    if set(choices) != {c.id for c in question.choices}:
        message = f"its choices ({', '.join(choices)}) differ from the source locale's"
        problems.append(Problem(item.path, None, message, f"question {question.id!r}"))
        return
    pairs: list[tuple[str, str, T | None]] = [
        (f"{question.id}/stem", question.stem, item.stem),
        (f"{question.id}/explanation", question.explanation, item.explanation),
    ]
    if question.numerical and question.unit is not None:
        pairs.append((f"{question.id}/unit", question.unit, item.unit))
    for c in question.choices:
        found = choices[c.id]
        if not question.numerical:
            pairs.append((f"{question.id}/choices/{c.id}/text", c.text, found.text))
        pairs.append((f"{question.id}/choices/{c.id}/explanation", c.explanation, found.explanation))
    for path, source_text, text in pairs:
        if text is not None and same_lang(text.lang, lang):
            catalog[path] = Translation(text=text.markdown(), source=source_text)


def assemble(
    groups: dict[str, dict[str, ParsedItem[T]]],
    source: str,
    targets: list[str],
    problems: list[Problem],
    seen: Callable[[ParsedItem[T]], None] | None = None,
) -> tuple[list[Question], dict[str, dict[str, Translation]]]:
    """The bank's questions and each target locale's catalog from items grouped by question and locale (each
    group's ``source`` item the question, the others its translations); ``seen`` is called with the source item of
    every question kept."""
    questions: list[Question] = []
    translations: dict[str, dict[str, Translation]] = {loc: {} for loc in targets}
    for qid, versions in groups.items():
        question = question_of(qid, versions, source, problems)
        if question is None:
            continue
        questions.append(question)
        if seen is not None:
            seen(versions[source])
        for locale, item in versions.items():
            if locale != source:
                translate(question, item, locale, translations[locale], problems)
    return questions, translations


_MARKDOWN_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def plain_markdown(text: str) -> str:
    """Markdown whose plain text is exactly ``text`` (titles are plain text in the packages), white space folded."""
    text = " ".join(text.split())
    return text if plain_text(text) == text else _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)


def validated_bank(
    raw: dict[str, object], name: str, problems: list[Problem], *, no_questions: str | None = None
) -> tuple[Bank, list[Problem]]:
    """The bank ``raw`` describes, with the warnings; raises ProblemsFound with every error, the bank's own
    included. ``no_questions``: the error for a bank left without questions, where the importer names it itself
    (QTI 1.2 does; QTI 2.1 leaves it to the bank's validation)."""
    if any(p.severity is Severity.ERROR for p in problems):
        raise ProblemsFound(problems)
    if no_questions is not None and not raw["questions"]:
        raise ProblemsFound([*problems, Problem(name, None, no_questions)])
    try:
        return Bank.model_validate(raw), problems
    except ValidationError as exc:
        errors = [Problem(name, None, e["msg"].removeprefix("Value error, ")) for e in exc.errors(include_url=False)]
        raise ProblemsFound(problems + errors) from None
