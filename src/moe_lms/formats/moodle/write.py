"""The Moodle XML export (:func:`write`): what Moodle imports with nothing lost.

A ``category`` question per locale (``$course$/<bank title>/<language name>``, idnumber ``<bank-id>-<locale>``, the
localized title and intro in ``<info>``) followed by one ``multichoice`` per bank question (idnumber
``<question-id>-<locale>``). With ``multilang`` there is one category (``$course$/<bank title>``, idnumber
``<bank-id>-multilang``) and one question per bank question (idnumber ``<question-id>``) whose every text is made
of runs of multilang spans (:mod:`.texts`). Text in a right-to-left locale is wrapped in ``<div dir="rtl"
lang="ur">`` (every locale's text says its language); text that fell back to the source locale is wrapped with
the source's ``dir`` and ``lang``, so fallbacks stay visible (and the importer does not take them for
translations).

What Moodle's own importer mangles silently or fatally (measured on Moodle 4.5) is refused here with a problem
naming the question: single-answer questions without a 100% answer, fractions off Moodle's grade list, fewer than
two answers, duplicate idnumbers in a category, characters XML cannot carry, multilang spans the filter would
mis-read.

This module must not know how a Moodle file is read back (:mod:`.read`) or checked (:mod:`.validate`).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import BinaryIO

from lxml import etree

from ...bulk import gc_paused
from ...locales import LocalizedView, resolve
from ...model import (
    Bank,
    Kind,
    Question,
    resolve_quiz,
)
from ...numeric import number_text
from ...problems import Problem, ProblemsFound, Severity
from ...richtext import Profile, render_block, render_inline, rendering
from .. import ExportOptions
from .files import attach_files, plugin_url
from .shape import (
    CATEGORY_NAME_LENGTH,
    FEEDBACK_ELEMENTS,
    MULTILANG_SUFFIX,
    NAME_LENGTH,
    key_fractions,
    on_grade_list,
    visible_of,
)
from .texts import Texts, Unwritable


def _set(node: etree._Element, value: str) -> None:
    """Text of an element; HTML goes in CDATA, as Moodle writes it, so the file stays readable (lxml splits "]]>")."""
    node.text = etree.CDATA(value) if ("<" in value or "&" in value or ">" in value) else value


def _text_element(parent: etree._Element, tag: str, value: str | None, **attributes: str) -> etree._Element:
    element = etree.SubElement(parent, tag, attributes)
    text = etree.SubElement(element, "text")
    if value is not None:
        _set(text, value)
    return element


def _xml_char(ch: str) -> bool:
    code = ord(ch)
    return code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or code >= 0x10000


def _not_xml(what: str, value: str) -> Unwritable:
    bad = next((ch for ch in value if not _xml_char(ch)), "?")
    return Unwritable(f"{what} contains U+{ord(bad):04X}, which XML 1.0 cannot carry")


def _category_segment(name: str) -> str:
    """One category name in a Moodle path: '/' doubled, a space against a leading or trailing '/', 255 at most."""
    name = " ".join(name.split())
    if len(name) > CATEGORY_NAME_LENGTH:
        name = name[: CATEGORY_NAME_LENGTH - 1] + "…"
    escaped = name.replace("/", "//")
    if escaped.startswith("/"):
        escaped = " " + escaped
    if escaped.endswith("/"):
        escaped += " "
    return escaped


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _category(bank: Bank, texts: Texts, below: Sequence[tuple[str, str]] = ()) -> etree._Element:
    """The category of a locale's questions (or of every locale's, multilang); ``below``: (name, id) of the
    categories under it, a quiz's then a section's, which hold a section's pool (and say nothing of the bank)."""
    path = "$course$/" + _category_segment(visible_of(render_inline(bank.title)))
    if texts.multilang:
        idnumber = f"{bank.id}-{MULTILANG_SUFFIX}"
    else:
        view = texts.views[0]
        path += "/" + _category_segment(view.info.name)
        idnumber = f"{bank.id}-{view.locale}"
    for name, ident in below:
        path += "/" + _category_segment(name)
        idnumber += f"-{ident}"
    element = etree.Element("question", type="category")
    info = "" if below else texts.info()
    try:
        _text_element(element, "category", path)
        _text_element(element, "info", info, format="html")
    except ValueError:
        raise _not_xml("the bank title or intro", path + info) from None
    attach_files(element, bank.media)
    etree.SubElement(element, "idnumber").text = idnumber
    return element


@dataclass
class _Template:
    """A question element with everything its category's questions of one shape share; ``slots`` are the positions
    (in document order) of what each question fills in. Copying it is four times faster than building a question."""

    element: etree._Element
    slots: list[int]
    answers: list[int]


class _Questions:
    """Builds and writes the question elements of one category, each a copy of its shape's template filled in
    (:meth:`element`, :meth:`built`)."""

    def __init__(self, bank: Bank, texts: Texts) -> None:
        self.bank = bank
        self.texts = texts
        self.templates: dict[tuple[Kind, int, int], _Template] = {}
        self.feedback = {
            which: texts.html(
                f"the bank's {which.replace('_', ' ')} feedback",
                [view.feedback(which) for view in texts.views],
                render_block,
            )
            for which in FEEDBACK_ELEMENTS
        }
        for which, value in self.feedback.items():
            try:
                _set(etree.Element("text"), value)
            except ValueError:
                raise _not_xml(f"the bank's {which.replace('_', ' ')} feedback", value) from None

    def template(self, kind: Kind, choices: int, tags: int) -> _Template:
        key = (kind, choices, tags)
        if key not in self.templates:
            self.templates[key] = self._build(kind, choices, tags)
        return self.templates[key]

    def _build(self, kind: Kind, choices: int, tags: int) -> _Template:
        element = etree.Element("question", type="multichoice")
        slots: list[etree._Element] = []
        answers: list[etree._Element] = []
        for tag in ("name", "questiontext", "generalfeedback"):
            slots.append(_text_element(element, tag, None, **({} if tag == "name" else {"format": "html"}))[0])
        slots.append(etree.SubElement(element, "defaultgrade"))
        etree.SubElement(element, "penalty").text = f"{1 / (choices - 1):.7f}"
        etree.SubElement(element, "hidden").text = "0"
        slots.append(etree.SubElement(element, "idnumber"))
        etree.SubElement(element, "single").text = "false" if kind is Kind.MULTIPLE else "true"
        slots.append(etree.SubElement(element, "shuffleanswers"))
        # True/false choices go unnumbered; the importer reads a two-answer unnumbered question back as true/false.
        etree.SubElement(element, "answernumbering").text = "none" if kind is Kind.TRUE_FALSE else "abc"
        etree.SubElement(element, "showstandardinstruction").text = "1"
        for which, tag in FEEDBACK_ELEMENTS.items():
            _text_element(element, tag, self.feedback[which], format="html")
        etree.SubElement(element, "shownumcorrect")
        for _ in range(choices):
            answer = _text_element(element, "answer", None, fraction="0", format="html")
            answers.append(answer)
            slots.append(answer[0])
            slots.append(_text_element(answer, "feedback", None, format="html")[0])
        if tags:
            tags_element = etree.SubElement(element, "tags")
            slots.extend(_text_element(tags_element, "tag", None)[0] for _ in range(tags))
        position = {node: i for i, node in enumerate(element.iter())}
        return _Template(element, [position[s] for s in slots], [position[a] for a in answers])

    def values(self, q: Question) -> list[str]:
        """The text of each slot of the question's template, in slot order (see :meth:`element`)."""
        texts, html = self.texts, self.texts.html
        # Every string of the question in each locale, in model.question_strings order (stem, explanation, choices).
        columns = list(zip(*(view.question_texts(q) for view in texts.views), strict=True))
        values = [
            f"{q.id}: {_short(visible_of(render_block(columns[0][0].text)), NAME_LENGTH)}",
            html("the stem", columns[0], render_block),
            html("the explanation", columns[1], render_block),
            f"{float(q.points):.7f}",
            q.id if texts.multilang else f"{q.id}-{texts.views[0].locale}",
            "true" if q.shuffle else "false",
        ]
        for j, c in enumerate(q.choices):
            values.append(html("choice", columns[2 + 2 * j], render_inline, c.id))
            values.append(html("the explanation of choice", columns[3 + 2 * j], render_block, c.id))
        values += _question_tags(self.bank, q)
        return values

    def element(self, q: Question, fractions: tuple[str, ...]) -> etree._Element:
        """The question element, built from its shape's template."""
        values = self.values(q)
        template = self.template(q.kind, len(q.choices), len(values) - 6 - 2 * len(q.choices))
        element = copy.copy(template.element)  # lxml's copy of an element is deep: the whole subtree
        nodes = list(element.iter())
        try:
            for position, value in zip(template.slots, values, strict=True):
                _set(nodes[position], value)
        except ValueError:
            raise _not_xml(*_bad_slot(q, values)) from None
        for position, fraction in zip(template.answers, fractions, strict=True):
            nodes[position].set("fraction", fraction)
        if self.bank.media:
            attach_files(element, self.bank.media)
        return element

    def built(self, q: Question, fractions: tuple[str, ...]) -> bytes:
        """:meth:`element` serialised as write() writes it."""
        element = self.numerical(q) if q.numerical else self.element(q, fractions)
        data: bytes = etree.tostring(element, encoding="UTF-8", pretty_print=True)
        return data

    def numerical(self, q: Question) -> etree._Element:
        """A ``numerical`` question (question/type/numerical in Moodle): an ``<answer>`` per value, fraction 100 for
        a correct one and 0 for an anticipated one, each with its tolerance and explanation; a catch-all ``*`` answer
        for any other number (its feedback the bank's incorrect message: the general explanation is already the
        general feedback, shown whatever was answered); the unit as Moodle's unit, optional and not graded
        (showunits 0, unitgradingtype 0: the learner may type it after the number), one per locale's wording."""
        texts, html = self.texts, self.texts.html
        views = texts.views
        stem = [view.stem(q) for view in views]
        element = etree.Element("question", type="numerical")
        values = [
            ("name", f"{q.id}: {_short(visible_of(render_block(stem[0].text)), NAME_LENGTH)}", None),
            ("questiontext", html("the stem", stem, render_block), "html"),
            ("generalfeedback", html("the explanation", [v.explanation(q) for v in views], render_block), "html"),
        ]
        try:
            for tag, value, fmt in values:
                _text_element(element, tag, value, **({"format": fmt} if fmt else {}))
            etree.SubElement(element, "defaultgrade").text = f"{float(q.points):.7f}"
            etree.SubElement(element, "penalty").text = "0.3333333"
            etree.SubElement(element, "hidden").text = "0"
            etree.SubElement(element, "idnumber").text = q.id if texts.multilang else f"{q.id}-{views[0].locale}"
            for c in q.choices:
                answer = _text_element(
                    element, "answer", number_text(q.value_of(c)), fraction="100" if c.correct else "0"
                )
                answer.set("format", "moodle_auto_format")
                feedback = html(
                    "the explanation of choice", [v.choice_explanation(q, c) for v in views], render_block, c.id
                )
                _text_element(answer, "feedback", feedback, format="html")
                etree.SubElement(answer, "tolerance").text = number_text(q.tolerance_of(c))
            other = _text_element(element, "answer", "*", fraction="0", format="moodle_auto_format")
            _text_element(other, "feedback", self.feedback["incorrect"], format="html")
            etree.SubElement(other, "tolerance").text = "0"
            units = _units(q, views)
            if units:
                unit_list = etree.SubElement(element, "units")
                for name in units:
                    unit = etree.SubElement(unit_list, "unit")
                    etree.SubElement(unit, "multiplier").text = "1"
                    etree.SubElement(unit, "unit_name").text = name
            etree.SubElement(element, "unitgradingtype").text = "0"
            etree.SubElement(element, "unitpenalty").text = "0.1000000"
            etree.SubElement(element, "showunits").text = "0"
            etree.SubElement(element, "unitsleft").text = "0"
        except ValueError:
            raise _not_xml(f"question {q.id!r}", "".join(v for _, v, _ in values)) from None
        tags = _question_tags(self.bank, q)
        if tags:
            tags_element = etree.SubElement(element, "tags")
            for tag in tags:
                _text_element(tags_element, "tag", tag)
        if self.bank.media:
            attach_files(element, self.bank.media)
        return element


def _units(q: Question, views: Sequence[LocalizedView]) -> list[str]:
    """The unit as each locale words it, plain text (Moodle matches a typed unit against these), once each."""
    names: list[str] = []
    for view in views:
        unit = view.unit(q)
        if unit is not None:
            name = " ".join(visible_of(render_inline(unit.text)).split())
            if name and name not in names:
                names.append(name)
    return names


def _bad_slot(q: Question, values: list[str]) -> tuple[str, str]:
    """Which text of a question's slots XML cannot carry, named."""
    names = ["the stem", "the stem", "the explanation", "", "", ""]
    for c in q.choices:
        names += [f"choice {c.id!r}", f"the explanation of choice {c.id!r}"]
    for name, value in zip(names + ["a tag"] * len(values), values, strict=False):
        if not all(_xml_char(ch) for ch in value):
            return name, value
    return "a text", ""


def _question_tags(bank: Bank, q: Question) -> list[str]:
    """Moodle has no bank-level tags: every question carries the bank's tags first, then its own."""
    return [*bank.tags, *(t for t in q.tags if t not in bank.tags)]


def _structure_problems(bank: Bank) -> tuple[dict[str, tuple[str, ...]], list[Problem]]:
    """Each question's fractions, and what Moodle would import wrongly (the model forbids it; asserted again)."""
    fractions: dict[str, tuple[str, ...]] = {}
    problems: list[Problem] = []
    seen: set[str] = set()
    for q in bank.questions:
        qid = q.id
        if qid in seen:
            message = "the id is used twice; Moodle silently drops the second question's idnumber"
            problems.append(Problem("bank.yaml", None, message, f"question {qid!r}"))
        seen.add(qid)
        if q.numerical:
            fractions[qid] = ()
            continue
        values, messages = _grading(q.kind, tuple([c.correct for c in q.choices]))
        if messages:
            problems += [Problem("bank.yaml", None, message, f"question {qid!r}") for message in messages]
        if values is not None:
            fractions[qid] = values
    return fractions, problems


@cache
def _grading(kind: Kind, key: tuple[bool, ...]) -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
    """The fractions of a question with this answer key (None if Moodle cannot grade it), and what Moodle would
    import wrongly. It depends on the kind and the key alone, so a bank's questions share a few results."""
    if len(key) < 2:
        return None, (f"has {len(key)} choice(s); Moodle aborts the import mid-file below 2",)
    try:
        values = key_fractions(kind, key)
    except ValueError as exc:
        return None, (str(exc),)
    problems = []
    numbers = [Decimal(v) for v in values]
    if not all(on_grade_list(n) for n in numbers):
        problems.append(f"fractions {', '.join(values)} are not all on Moodle's grade list")
    if kind is Kind.MULTIPLE:
        if abs(sum((n for n in numbers if n > 0), Decimal(0)) - 100) > Decimal("0.5"):
            problems.append("the fractions of the correct choices do not add up to 100%")
    elif sum(1 for n in numbers if n == 100) != 1:
        problems.append(
            "a single-answer question needs exactly one correct choice; Moodle would import it silently unusable"
        )
    return values, tuple(problems)


def write(bank: Bank, options: ExportOptions, out: BinaryIO) -> None:
    """Stream the bank as Moodle XML: one category per locale, or one multilang category (see the module doc).

    Each question is its shape's template copied and filled (:meth:`_Questions.built`)."""
    fractions, problems = _structure_problems(bank)
    if problems:
        raise ProblemsFound(problems)
    locales = sorted(options.locales, key=bank.locales.index)  # source first, so the importer finds it first
    views = [resolve(bank, locale, include_drafts=options.include_drafts) for locale in locales]
    groups = [Texts(views)] if options.multilang and len(views) > 1 else [Texts([v]) for v in views]
    # Math as \(…\) and \[…\] for Moodle's MathJax filter; images embedded where they appear (moodle_files).
    # Code is highlighted with <span>s, which a multilang text cannot hold: there it stays plain.
    multilang = len(groups) == 1 and groups[0].multilang
    profile = Profile(math="tex", image_url=plugin_url, media=bank.media, highlight="none" if multilang else "inline")
    # The bytes lxml's xmlfile wrote: the declaration, <quiz>, each question indented, then </quiz>.
    with gc_paused(), rendering(profile):
        out.write(b"<?xml version='1.0' encoding='UTF-8'?>\n<quiz>\n")
        for texts in groups:
            file = "bank.yaml" if texts.multilang else _file_of(bank, texts.views[0].locale)
            try:
                builder = _Questions(bank, texts)
            except Unwritable as exc:
                problems.append(Problem(file, None, str(exc), "the bank"))
                continue
            for below, questions in _pools(bank, texts.views[0], options.quiz):
                try:
                    out.write(etree.tostring(_category(bank, texts, below), encoding="UTF-8", pretty_print=True))
                except Unwritable as exc:
                    problems.append(Problem(file, None, str(exc), "the bank"))
                for q in questions:
                    try:
                        out.write(builder.built(q, fractions[q.id]))
                    except Unwritable as exc:
                        problems.append(Problem(file, None, str(exc), f"question {q.id!r}"))
        out.write(b"</quiz>")
    if problems:
        raise ProblemsFound(problems)


def _pools(
    bank: Bank, view: LocalizedView, quiz_id: str | None
) -> list[tuple[list[tuple[str, str]], Sequence[Question]]]:
    """The categories below the locale's and the questions of each: none and every question for the whole bank;
    for a quiz, one per section, ``<quiz>/<section>``, its pool at its points in the quiz, so that Moodle's "random
    question from this category" draws from exactly that pool. (A multilang file names them in the source locale.)"""
    if quiz_id is None:
        return [([], bank.questions)]
    quiz = bank.quiz(quiz_id)
    quiz_name = (visible_of(render_inline(view.quiz_title(quiz).text)), quiz.id)
    pools: list[tuple[list[tuple[str, str]], Sequence[Question]]] = []
    for drawn in resolve_quiz(bank, quiz):
        title = view.section_title(quiz, drawn.section)
        name = visible_of(render_inline(title.text)) if title is not None else drawn.id
        pools.append(([quiz_name, (name, drawn.id)], drawn.scored()))
    return pools


def quiz_steps(bank: Bank, locale: str, quiz_id: str, include_drafts: bool = False) -> list[str]:
    """What to do in Moodle after importing a quiz's file, one line per section: Moodle XML holds each section's
    pool in a category, and the quiz itself (its draw) is made in Moodle with random questions."""
    view = resolve(bank, locale, include_drafts=include_drafts)
    top = f"{visible_of(render_inline(bank.title))}/{view.info.name}"
    steps = []
    for below, questions in _pools(bank, view, quiz_id):
        category = "/".join([top, *(name for name, _ident in below)])
        drawn = next(d for d in resolve_quiz(bank, bank.quiz(quiz_id)) if d.id == below[-1][1])
        if drawn.draw < len(questions):
            steps.append(
                f"in the quiz, Add → a random question, category {category!r}, Number of random questions: "
                f"{drawn.draw} (of {len(questions)})"
            )
        else:
            steps.append(f"in the quiz, Add → from question bank, category {category!r}: all {len(questions)}")
    return steps


def _file_of(bank: Bank, locale: str) -> str:
    return "bank.yaml" if locale == bank.source_locale else f"locales/{locale}.po"


def warnings(bank: Bank, options: ExportOptions) -> list[Problem]:
    """The Moodle XML file's warnings channel: what a quiz's file cannot carry (formats.caveats), and a note of the
    steps that make the quiz in Moodle from its pools, said at once so that an import is not taken for the quiz."""
    from ..caveats import moodle

    found = moodle(bank, options)
    if options.quiz is None or not options.locales:
        return found
    steps = quiz_steps(bank, options.locales[0], options.quiz, options.include_drafts)  # (other locales: alike)
    message = (
        "Moodle XML carries the quiz's pools, not the quiz: each section's questions are in a category of their own. "
        "After the import, create the quiz in Moodle (Add an activity or resource → Quiz) and make the draw there "
        "with random questions (docs/how-to/quizzes.md):" + "".join(f"\n  - {step}" for step in steps)
    )
    return [*found, Problem("bank.yaml", None, message, severity=Severity.NOTE)]
