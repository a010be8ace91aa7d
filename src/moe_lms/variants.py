"""Parameterised questions: one question written once, expanded into concrete variants before any writer sees it.

A question with ``params`` is a template: ``{expression}`` in any of its texts (and, for a numerical question, in
a value) is computed from one combination of the params' values (moe_lms.expressions). :func:`expand` turns each
template into ``variants`` ordinary questions ``<id>~1`` … (all the valid combinations when ``variants`` is absent),
drawn deterministically (the same bank gives the same variants, so the same bytes), and every quiz that asks the
template into a quiz whose section draws one of them: a pool each format already delivers (a Moodle category and a
random question, a QTI section selecting 1, a Canvas question group, an OLX problem bank, the HTML page's draw). A
bank without quizzes gets one, the whole bank with each template's variants a section drawing 1, so a whole-bank
export carries every variant, grouped.

Translations stay templates: the PO files hold ``{T}``, never numbers; a variant's translated text is the
translated template with the variant's numbers written in that locale (Babel: vi ``468,75``).

A combination whose choices collide (a distractor equal to the key or to another choice once computed) is never
drawn; :func:`problems` names a template with fewer valid combinations than ``variants``, an expression that does
not evaluate (a division by zero) and a translation whose placeholders differ from the source's.

This module must not know any output format; it reads the model and writes the model.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from .expressions import Expression, ExpressionError, Number, Part, parse, parse_template, placeholders, render
from .model import (
    MAX_VARIANTS,
    VARIANT_MARK,
    WHOLE_BANK,
    Bank,
    Kind,
    Question,
    Quiz,
    Section,
    Translation,
    question_strings,
    section_pool,
    variant_of,
)

MAX_COMBINATIONS = 10_000  # the product of the params' value counts that a template may have


@dataclass(frozen=True)
class VariantProblem:
    """Something wrong with a parameterised question: ``loc`` is where in the question (``("choices", 1, "text")``),
    ``params`` the combination it happens for, if it depends on one."""

    question: str
    loc: tuple[str | int, ...]
    message: str
    params: Mapping[str, Number] | None = None

    def describe(self) -> str:
        if self.params is None:
            return self.message
        shown = ", ".join(f"{name}={value!r}" for name, value in self.params.items())
        return f"{self.message} (with {shown})"


def is_parameterised(q: Question) -> bool:
    return q.params is not None


def has_variants(bank: Bank) -> bool:
    """Whether the bank has a parameterised question (a loaded bank's templates, before :func:`expand`)."""
    return any(q.params is not None for q in bank.questions)


# --- one template ------------------------------------------------------------------------------------------------


def _texts(q: Question) -> Iterator[tuple[tuple[str | int, ...], str, str]]:
    """(loc in the question, string path, text) of each of its texts, in :func:`model.question_strings` order."""
    index = {c.id: n for n, c in enumerate(q.choices)}
    for path, text in question_strings(q):
        parts = path.split("/")
        if parts[1] == "choices":
            yield ("choices", index[parts[2]], parts[3]), path, text
        else:
            yield (parts[1],), path, text


@dataclass(frozen=True)
class Template:
    question: Question
    parts: tuple[tuple[tuple[str | int, ...], str, tuple[Part, ...]], ...]  # (loc, path, parsed) of each text
    values: tuple[tuple[int, Expression], ...] = ()  # a numerical question's values written as expressions

    @property
    def names(self) -> tuple[str, ...]:
        assert self.question.params is not None
        return tuple(self.question.params)

    def combinations(self) -> Iterator[dict[str, Number]]:
        assert self.question.params is not None
        values = self.question.params.values()
        for combo in itertools.product(*values):
            yield dict(zip(self.names, combo, strict=True))

    def rendered(self, params: Mapping[str, Number], locale: str) -> dict[str, str]:
        """Each text's path and its text for these params."""
        return {path: render(parts, params, locale) for _loc, path, parts in self.parts}

    def computed(self, params: Mapping[str, Number]) -> dict[int, float]:
        """A numerical question's values for these params, by choice index."""
        return {index: float(expression.evaluate(params)) for index, expression in self.values}


def template_of(q: Question) -> tuple[Template | None, list[VariantProblem]]:
    """The question's texts (and values) parsed (None and the problems when one cannot be)."""
    assert q.params is not None
    names = set(q.params)
    parts = []
    problems = []
    for loc, path, text in _texts(q):
        try:
            parts.append((loc, path, parse_template(text, names)))
        except ExpressionError as exc:
            problems.append(VariantProblem(q.id, loc, str(exc)))
    values = []
    for index, choice in enumerate(q.choices):
        if choice.value_template is None:
            continue
        loc = ("choices", index, "value")
        written = choice.value_template.strip()
        if not (written.startswith("{") and written.endswith("}")) or written.count("{") != 1:
            problems.append(VariantProblem(q.id, loc, f"{written!r}: a value is a number or one {{expression}}"))
            continue
        try:
            values.append((index, parse(written[1:-1], names)))
        except ExpressionError as exc:
            problems.append(VariantProblem(q.id, loc, f"{written!r}: {exc}"))
    return (None if problems else Template(q, tuple(parts), tuple(values))), problems


def _collision(q: Question, texts: Mapping[str, str], values: Mapping[int, float]) -> str | None:
    """Why this combination cannot be asked: two choices that read the same once computed, or (numerical) two
    values whose ranges meet (a typed number would match both)."""
    if q.kind is Kind.NUMERICAL:
        ranges: list[tuple[str, float, float]] = []
        for index, choice in enumerate(q.choices):
            value = values.get(index, choice.value)
            assert value is not None
            tolerance = q.tolerance_of(choice)
            for other, low, high in ranges:
                if value - tolerance <= high and low <= value + tolerance:
                    return f"the values of choices {other!r} and {choice.id!r} meet ({value:g})"
            ranges.append((choice.id, value - tolerance, value + tolerance))
        return None
    seen: dict[str, str] = {}
    for choice in q.choices:
        said = " ".join(texts[f"{q.id}/choices/{choice.id}/text"].split())
        other = seen.setdefault(said, choice.id)
        if other != choice.id:
            return f"choices {other!r} and {choice.id!r} both read {said!r}"
    return None


@dataclass(frozen=True)
class Drawn:
    """The combinations a template's variants are made of, in the order of their numbers (~1, ~2 …)."""

    template: Template
    combinations: tuple[dict[str, Number], ...]


def draw(q: Question, source_locale: str) -> tuple[Drawn | None, list[VariantProblem]]:
    """The variants' combinations: every combination evaluated (any error is a problem), those whose choices
    collide or that repeat another's texts left out, then ``variants`` of the rest picked by a generator seeded
    with the question's id (so the same bank draws the same), kept in combination order."""
    assert q.params is not None
    template, problems = template_of(q)
    if template is None:
        return None, problems
    total = 1
    for values in q.params.values():
        total *= len(values)
    if total > MAX_COMBINATIONS:
        message = f"params: make {total:,} combinations; at most {MAX_COMBINATIONS:,} are allowed"
        return None, [VariantProblem(q.id, ("params",), message)]
    valid: list[dict[str, Number]] = []
    seen: set[tuple[object, ...]] = set()
    collided: list[tuple[dict[str, Number], str]] = []
    for combo in template.combinations():
        texts: dict[str, str] = {}
        for loc, path, parts in template.parts:
            try:
                texts[path] = render(parts, combo, source_locale)
            except ExpressionError as exc:
                return None, [VariantProblem(q.id, loc, f"an expression does not evaluate: {exc}", combo)]
        try:
            computed = template.computed(combo)
        except ExpressionError as exc:
            index = next(i for i, e in template.values if _fails(e, combo))
            loc = ("choices", index, "value")
            return None, [VariantProblem(q.id, loc, f"an expression does not evaluate: {exc}", combo)]
        why = _collision(q, texts, computed)
        if why is not None:
            collided.append((combo, why))
            continue
        key = (*texts.values(), *sorted(computed.items()))
        if key not in seen:
            seen.add(key)
            valid.append(combo)
    wanted = q.variants if q.variants is not None else len(valid)
    if q.variants is None and len(valid) > MAX_VARIANTS:
        message = (
            f"params: give {len(valid)} valid combinations; say how many to draw with variants: "
            f"(at most {MAX_VARIANTS})"
        )
        return None, [VariantProblem(q.id, ("params",), message)]
    if len(valid) < max(wanted, 1):
        message = f"asks for {wanted} variant(s) but only {len(valid)} of the {total} combinations of params: are valid"
        if collided:
            combo, why = collided[0]
            shown = ", ".join(f"{name}={value!r}" for name, value in combo.items())
            message += f" ({len(collided)} collide, e.g. with {shown}: {why})"
        return None, [VariantProblem(q.id, ("variants",) if q.variants is not None else ("params",), message)]
    if wanted < len(valid):
        picked = sorted(random.Random(q.id).sample(range(len(valid)), wanted))
        valid = [valid[i] for i in picked]
    return Drawn(template, tuple(valid)), []


def _fails(expression: Expression, params: Mapping[str, Number]) -> bool:
    try:
        expression.evaluate(params)
    except ExpressionError:
        return True
    return False


def variant_id(question_id: str, number: int) -> str:
    return f"{question_id}{VARIANT_MARK}{number}"


def _variant(template: Template, number: int, params: Mapping[str, Number], locale: str) -> Question:
    """One concrete question, validated like a hand-written one (under the template's id, then renamed)."""
    q = template.question
    texts = template.rendered(params, locale)
    values = template.computed(params)
    data = q.model_dump(exclude={"params", "variants"}, exclude_defaults=True)
    data["id"] = q.id
    for loc, path, _parts in template.parts:
        if loc[0] == "choices":
            data["choices"][loc[1]][loc[2]] = texts[path]
        else:
            data[str(loc[0])] = texts[path]
    for index, value in values.items():
        choice = data["choices"][index]
        choice.pop("value_template", None)
        choice["value"] = value
    made = Question.model_validate(data)
    return made.model_copy(update={"id": variant_id(q.id, number)})


# --- the bank ----------------------------------------------------------------------------------------------------


def problems(bank: Bank) -> list[VariantProblem]:
    """Everything that keeps the bank's templates from being expanded, and the quizzes that ask a template in a
    way no format can deliver (a section that draws from a pool holding one among other questions)."""
    found: list[VariantProblem] = []
    for q in bank.questions:
        if q.params is None:
            continue
        if VARIANT_MARK in q.id:  # (the id pattern refuses it; a guard for banks built in code)
            found.append(VariantProblem(q.id, ("id",), f"an id may not hold {VARIANT_MARK!r}"))
        found += draw(q, bank.source_locale)[1]
        if q.kind is Kind.TRUE_FALSE:
            continue
    for number, quiz in enumerate(bank.quizzes):
        for index, section in enumerate(quiz.sections):
            pool, _missing = section_pool(bank, section)
            templates = [q for q in pool if q.params is not None]
            if templates and section.draw is not None and len(pool) > 1 and section.draw < len(pool):
                message = (
                    f"quiz {quiz.id!r}, section {section.id!r} draws {section.draw} of {len(pool)} questions, among "
                    f"them the parameterised {templates[0].id!r}, whose variants are a draw of their own: put it in a "
                    f"section of its own (questions: [{templates[0].id}], draw: 1)"
                )
                found.append(VariantProblem(templates[0].id, ("quizzes", number, "sections", index, "draw"), message))
    return found


def translation_problems(bank: Bank, locale: str, catalog: Mapping[str, Translation]) -> list[tuple[str, str]]:
    """(path, message) for each translation of a template's text whose placeholders are not the source's: a
    translation keeps every ``{expression}`` exactly as the source writes it (only the words around it change)."""
    found = []
    for q in bank.questions:
        if q.params is None:
            continue
        for path, source in question_strings(q):
            t = catalog.get(path)
            if t is None or not t.text:
                continue
            want, got = placeholders(source), placeholders(t.text)
            if want != got:
                missing = sorted(set(want) - set(got))
                extra = sorted(set(got) - set(want))
                said = []
                if missing:
                    said.append("lacks " + ", ".join("{" + p + "}" for p in missing))
                if extra:
                    said.append("has " + ", ".join("{" + p + "}" for p in extra) + " that the source has not")
                if not said:
                    said.append("repeats a placeholder a different number of times")
                found.append((path, f"the {locale} translation {' and '.join(said)}: keep the source's placeholders"))
                continue
            try:
                parse_template(t.text, set(q.params))
            except ExpressionError as exc:
                found.append((path, f"the {locale} translation: {exc}"))
    return found


class VariantsError(ValueError):
    """A bank whose templates cannot be expanded (check reports the same with lines: moe_lms.loader)."""


def expand(bank: Bank, *, grouped_whole_bank: bool = True) -> Bank:
    """The bank with each template replaced by its variants (in its place), translations computed per variant, and
    each quiz asking a template drawing one of its variants. With ``grouped_whole_bank`` a bank with templates gets
    the whole-bank quiz (id ``all``) written out: every ordinary question once, each template's variants a section
    drawing 1. A bank without templates is returned as it is."""
    if not has_variants(bank):
        return bank
    found = problems(bank)
    if found:
        raise VariantsError("; ".join(f"question {p.question!r}: {p.describe()}" for p in found))
    questions: list[Question] = []
    groups: dict[str, tuple[str, ...]] = {}
    extra: dict[str, dict[str, Translation]] = {locale: {} for locale in bank.translations}
    for q in bank.questions:
        if q.params is None:
            questions.append(q)
            continue
        drawn, _ = draw(q, bank.source_locale)
        assert drawn is not None
        ids = []
        for number, combo in enumerate(drawn.combinations, start=1):
            made = _variant(drawn.template, number, combo, bank.source_locale)
            questions.append(made)
            ids.append(made.id)
            for locale, catalog in bank.translations.items():
                extra[locale].update(_translations(drawn.template, made, combo, locale, catalog))
        groups[q.id] = tuple(ids)
    quizzes = tuple(_quiz(bank, quiz, groups) for quiz in bank.quizzes)
    translations: dict[str, Mapping[str, Translation]] = {}
    if grouped_whole_bank and not any(z.id == WHOLE_BANK for z in quizzes):
        quizzes += (_whole_bank(bank, groups),)
        for locale, catalog in bank.translations.items():
            title = catalog.get("title")
            if title is not None:
                extra[locale][f"quizzes/{WHOLE_BANK}/title"] = title
            intro = catalog.get("intro")
            if intro is not None:
                extra[locale][f"quizzes/{WHOLE_BANK}/intro"] = intro
    for locale, catalog in bank.translations.items():
        # (a template's own entries go: its texts are no string of the expanded bank)
        kept = {path: t for path, t in catalog.items() if path.partition("/")[0] not in groups}
        translations[locale] = {**kept, **extra[locale]}
    return bank.model_copy(update={"questions": tuple(questions), "quizzes": quizzes, "translations": translations})


def _translations(
    template: Template, made: Question, params: Mapping[str, Number], locale: str, catalog: Mapping[str, Translation]
) -> Iterator[tuple[str, Translation]]:
    """A variant's translations: each translated template with the variant's numbers written for ``locale``; one
    whose source has changed since it was translated stays stale (its old source cannot equal the variant's)."""
    names = set(template.names)
    for (_loc, path, parts), (new_path, new_source) in zip(template.parts, question_strings(made), strict=True):
        t = catalog.get(path)
        if (t is None or not t.text) and language_neutral(parts):
            # Nothing in it to translate ("{ceil(x)}"): the numbers alone, written for the locale.
            yield new_path, Translation(render(parts, params, locale), new_source, False)
            continue
        if t is None or not t.text:
            continue
        try:
            text = render(parse_template(t.text, names), params, locale)
        except ExpressionError:
            continue  # (check refuses such a translation: translation_problems)
        current = t.source == _source_of(template, path)
        yield new_path, Translation(text, new_source if current else t.source, t.draft)


def language_neutral(parts: Sequence[Part]) -> bool:
    """Whether a template's text is numbers alone (placeholders, digits, signs, math, no word): the same in every
    language but for how its numbers are written, so no translator is asked for it."""
    return not any(ch.isalpha() for part in parts if isinstance(part, str) for ch in part)


def _source_of(template: Template, path: str) -> str:
    for p, text in question_strings(template.question):
        if p == path:
            return text
    raise KeyError(path)


def _quiz(bank: Bank, quiz: Quiz, groups: Mapping[str, tuple[str, ...]]) -> Quiz:
    """The quiz with each template it asks replaced by a section drawing one of its variants (a section that is
    the template alone keeps its id, title and draw; one that takes all its questions is split around it)."""
    sections: list[Section] = []
    taken = {s.id for s in quiz.sections}
    for section in quiz.sections:
        pool, _missing = section_pool(bank, section)
        if not any(q.id in groups for q in pool):
            sections.append(section)
            continue
        if len(pool) == 1:
            only = pool[0]
            sections.append(
                section.model_copy(update={"questions": groups[only.id], "pool": None, "draw": section.draw or 1})
            )
            continue
        sections += _split(section, pool, groups, taken)
    return quiz.model_copy(update={"sections": tuple(sections)})


def _unused(base: str, taken: set[str]) -> str:
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    taken.add(name)
    return name


def _split(
    section: Section, pool: Sequence[Question], groups: Mapping[str, tuple[str, ...]], taken: set[str]
) -> list[Section]:
    """A section that takes all its questions, as runs of its ordinary questions and one section per template
    (the first part keeps the section's id and title)."""
    parts: list[Section] = []
    run: list[str] = []

    def close_run() -> None:
        if run:
            first = not parts
            sid = section.id if first else _unused(f"{section.id}-{len(parts) + 1}", taken)
            title = section.title if first else None
            parts.append(_section(sid, title, tuple(run), None, section.points))
            run.clear()

    for q in pool:
        if q.id not in groups:
            run.append(q.id)
            continue
        close_run()
        first = not parts
        sid = section.id if first else _unused(q.id, taken)
        parts.append(_section(sid, section.title if first else None, groups[q.id], 1, section.points))
    close_run()
    return parts


def _section(
    sid: str, title: str | None, questions: tuple[str, ...], draw: int | None, points: float | None
) -> Section:
    # Built without validation: a variant's id (capacity~1) is no Identifier an author may write.
    return Section.model_construct(id=sid, title=title, questions=questions, pool=None, draw=draw, points=points)


def _whole_bank(bank: Bank, groups: Mapping[str, tuple[str, ...]]) -> Quiz:
    """The whole-bank quiz of a bank with templates: its questions in bank order, each template's variants a
    section drawing one."""
    whole = _section(WHOLE_BANK, None, tuple(q.id for q in bank.questions), None, None)
    taken = {WHOLE_BANK}
    return Quiz(
        id=WHOLE_BANK,
        title=bank.title,
        intro=bank.intro,
        sections=tuple(_split(whole, bank.questions, groups, taken)),
    )


__all__ = [
    "MAX_COMBINATIONS",
    "Drawn",
    "VariantProblem",
    "VariantsError",
    "draw",
    "expand",
    "has_variants",
    "problems",
    "translation_problems",
    "variant_id",
    "variant_of",
]
