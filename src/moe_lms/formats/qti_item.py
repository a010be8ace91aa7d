"""The QTI item model every QTI writer shares: QTI 2.1 (:mod:`.qti21`) and QTI 3.0 (:mod:`.qti3`).

What a question becomes as a QTI item, independent of how a QTI version spells its elements:

- **identifiers** come from the bank's ids: the item is ``<question-id>-<locale>`` (:func:`item_identifier`), each
  choice keeps its choice id as its identifier, and :data:`GENERAL_FEEDBACK` names the general explanation (a
  choice id cannot hold ``_``, so it never names a choice);
- **the item's shape** (:class:`ItemShape`: kind, number of choices, number of correct ones) decides every element;
  items of one shape differ only in their values (:func:`item_values`, positions :data:`IDENTIFIER` … :data:`FIXED`)
  and contents (:func:`content_order`: the prompt, each choice, each choice's feedback, the general feedback);
- **response processing** sets two outcomes: SCORE (0 unanswered, MAXSCORE for the correct response, else the
  mapping for multiple-answer or 0) and FEEDBACK, the identifiers of the chosen choices plus
  :data:`GENERAL_FEEDBACK` once answered (:func:`scoring`, :func:`choice_feedback`). The standard ``match_correct``
  template sets SCORE only, so feedback bound to FEEDBACK would never show. The rules are built through a
  :class:`Sub` the writer passes, which spells each QTI 2.1 element name (``responseCondition``) in its version;
- **titles** are plain text from the rendered stem (:func:`stem_title`) or inline Markdown (:func:`plain_title`).

This module must not know a namespace, a package layout (manifest, paths, stylesheet) or the XHTML subset a
version allows: those belong to each version's package (``formats/qti21/``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol, TypeVar

from lxml import etree

from ..locales import LocalizedView, Resolved
from ..model import Bank, Kind, Question, Quiz, resolve_quiz
from ..richtext import readable_text, render_block, render_inline
from ..text import visible_text

# FEEDBACK value that shows the general explanation. Choice ids cannot hold "_", so it never names a choice, and
# Canvas's importer reads a modalFeedback whose identifier starts "general_" as the question's neutral comment.
GENERAL_FEEDBACK = "general_explanation"


def item_identifier(question_id: str, locale: str) -> str:
    """The identifier of a question's item in one locale."""
    return f"{question_id}-{locale}"


def qti_number(value: float) -> str:
    """Numbers as QTI values: 1 not 1.0, so output never depends on how the bank spelled them."""
    number = float(value)
    return str(int(number)) if number.is_integer() else repr(number)


ONE_PARAGRAPH = re.compile(r"^<p>([^<]*)</p>$")


def shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def plain_title(markdown: str, limit: int = 256) -> str:
    """A one-line plain-text title from inline Markdown (QTI ``title`` attributes are plain text; a formula reads
    as its symbols, never as raw TeX)."""
    return shorten(readable_text(markdown), limit)


def stem_title(markdown: str, limit: int = 80) -> str:
    """An item's title: the start of its stem as rendered, so equivalent Markdown gives the same title. (With math
    or an image: the text with its formulas as the symbols they render to and images' alt text.)"""
    if "$" in markdown or "![" in markdown:
        return shorten(readable_text(markdown), limit)
    return rendered_title(render_block(markdown), limit)


def rendered_title(rendered: str, limit: int = 80) -> str:
    simple = ONE_PARAGRAPH.match(rendered)
    return shorten(visible_text(simple.group(1) if simple else rendered), limit)  # plain text: never a tag


class Sub(Protocol):
    """Adds a structural child element named as in QTI 2.1 (``responseCondition``), as the writer spells it."""

    def __call__(
        self, parent: etree._Element, tag: str, attrib: dict[str, str] | None = None, text: str | None = None
    ) -> etree._Element: ...


def expression(sub: Sub, parent: etree._Element, tag: str, **attrib: str) -> etree._Element:
    return sub(parent, tag, attrib)


def set_outcome(sub: Sub, parent: etree._Element, identifier: str) -> etree._Element:
    return sub(parent, "setOutcomeValue", {"identifier": identifier})


def base_value(sub: Sub, parent: etree._Element, base_type: str, value: str) -> None:
    sub(parent, "baseValue", {"baseType": base_type}, value)


def add_to_feedback(sub: Sub, parent: etree._Element, value: str) -> etree._Element:
    """FEEDBACK := FEEDBACK plus ``value`` (NULL sub-expressions of ``multiple`` are ignored, so the first works)."""
    both = sub(set_outcome(sub, parent, "FEEDBACK"), "multiple")
    expression(sub, both, "variable", identifier="FEEDBACK")
    return sub(both, "baseValue", {"baseType": "identifier"}, value)


def scoring(
    sub: Sub, parent: etree._Element, multiple: bool, on_answer: Callable[[etree._Element], object] | None = None
) -> None:
    """SCORE: 0 unanswered, MAXSCORE for the correct response, else the mapping (multiple) or 0 (single); an
    answered item also adds the general explanation to FEEDBACK, or gets what ``on_answer`` puts into the branch
    taken on an answer (QTI 3's writer sets FEEDBACK there its own way: formats/qti3/write.py says why)."""
    condition = sub(parent, "responseCondition")
    unanswered = sub(condition, "responseIf")
    expression(sub, sub(unanswered, "isNull"), "variable", identifier="RESPONSE")
    base_value(sub, set_outcome(sub, unanswered, "SCORE"), "float", "0")
    answered = sub(condition, "responseElse")
    inner = sub(answered, "responseCondition")
    correct = sub(inner, "responseIf")
    match = sub(correct, "match")
    expression(sub, match, "variable", identifier="RESPONSE")
    expression(sub, match, "correct", identifier="RESPONSE")
    expression(sub, set_outcome(sub, correct, "SCORE"), "variable", identifier="MAXSCORE")
    otherwise = set_outcome(sub, sub(inner, "responseElse"), "SCORE")
    if multiple:
        expression(sub, otherwise, "mapResponse", identifier="RESPONSE")
    else:
        base_value(sub, otherwise, "float", "0")
    if on_answer is None:
        add_to_feedback(sub, answered, GENERAL_FEEDBACK)
    else:
        on_answer(answered)


def choice_feedback(sub: Sub, parent: etree._Element, multiple: bool) -> None:
    """If the choice (its id filled in later, twice) was chosen, add it to FEEDBACK. One condition per choice is
    also the shape Canvas's QTI importer reads to attach each modalFeedback to its answer."""
    chosen = sub(sub(parent, "responseCondition"), "responseIf")
    if multiple:
        test = sub(chosen, "member")
        base_value(sub, test, "identifier", "")
        expression(sub, test, "variable", identifier="RESPONSE")
    else:
        test = sub(chosen, "match")
        expression(sub, test, "variable", identifier="RESPONSE")
        base_value(sub, test, "identifier", "")
    add_to_feedback(sub, chosen, "")


class ItemShape(NamedTuple):
    """What the elements of an item depend on; items of one shape differ only in their text."""

    kind: Kind
    choices: int
    correct: int


# An item's values, by position: these, then the choice ids, the correct choices' ids, the mapped value of each
# choice (multiple-answer), and its contents: the prompt, each choice, each choice's feedback, the general one.
IDENTIFIER, TITLE, LANG, BODY_CLASS, SHUFFLE, MAX_CHOICES, POINTS = range(7)
FIXED = 7

# Builds the element holding one content of an item: (parent, tag, attributes, index among the item's contents).
ContentMaker = Callable[[etree._Element, str, dict[str, str], int], None]


def renderer(shape: ItemShape, index: int) -> Callable[[str], str]:
    """How content ``index`` is rendered: the choices inline, the prompt and the feedback as blocks."""
    return render_inline if 1 <= index <= shape.choices else render_block


def always_marked(shape: ItemShape, index: int) -> bool:
    """Feedback always says its direction; the prompt and choices only when they fell back."""
    return index > shape.choices


_T = TypeVar("_T")


def item_values(q: Question, view: LocalizedView) -> tuple[ItemShape, list[str], list[Resolved], list[int]]:
    """One question in one locale: its shape, its values before the contents (no title yet), its contents, and
    whether each content renders as itself everywhere (LocalizedView.question_plain)."""
    texts = view.question_texts(q)  # stem, explanation, then each choice's text and explanation
    plain = view.question_plain(q, texts)
    ids = [c.id for c in q.choices]
    correct_ids = [c.id for c in q.choices if c.correct]
    points = qti_number(q.points)
    if q.kind is Kind.MULTIPLE:
        right, wrong = len(correct_ids), len(ids) - len(correct_ids)
        mapped = [qti_number(q.points / right if c.correct else -q.points / wrong) for c in q.choices]
        max_choices = str(len(ids))
    else:
        mapped = [""] * len(ids)
        max_choices = "1"
    info = view.info
    values = [
        item_identifier(q.id, view.locale),
        "",
        info.lang,
        f"moe-lms moe-{info.direction}",
        "true" if q.shuffle else "false",
        max_choices,
        points,
        *ids,
        *correct_ids,
        *mapped,
    ]
    return ItemShape(q.kind, len(ids), len(correct_ids)), values, content_order(texts), content_order(list(plain))


def content_order(question_order: Sequence[_T]) -> list[_T]:
    """question_texts order (stem, explanation, each choice's text and explanation) as an item's contents go:
    the stem, each choice, the general feedback, each choice's feedback."""
    return [question_order[0], *question_order[2::2], *question_order[3::2], question_order[1]]


def quiz_controls(sub: Sub, test: etree._Element, quiz: Quiz) -> None:
    """A quiz's time limit (``timeLimits maxTime``, seconds), which goes before the test's parts."""
    if quiz.time_limit_minutes is not None:
        sub(test, "timeLimits", {"maxTime": str(quiz.time_limit_minutes * 60)})


def quiz_part(
    sub: Sub,
    test: etree._Element,
    bank: Bank,
    view: LocalizedView,
    quiz: Quiz,
    reference: Callable[[Question], dict[str, str]],
    rubric: Callable[[etree._Element, Resolved], None],
) -> None:
    """A quiz's one ``testPart`` (in QTI 2.1's names, ``sub`` spells them): one answer per question
    (``itemSessionControl maxAttempts="1"``), then one ``assessmentSection`` per section, each with its draw
    (``selection select``), its ``ordering shuffle`` when the quiz shuffles, the quiz's intro (``rubric``) in the
    first, and its pool's ``assessmentItemRef`` (``reference``'s attributes). The same quiz in QTI 2.1 and QTI 3.

    QTI's ``maxAttempts`` counts the tries at each item within one attempt at the test, after its feedback has said
    what is right: the quiz's attempts are attempts at the whole test, which QTI leaves to the delivery system
    (:func:`..caveats.qti` says so in the export's warnings)."""
    part = sub(test, "testPart", {"identifier": "part", "navigationMode": "nonlinear", "submissionMode": "individual"})
    sub(part, "itemSessionControl", {"maxAttempts": "1", "showFeedback": "true"})
    intro = view.quiz_intro(quiz)
    for number, drawn in enumerate(resolve_quiz(bank, quiz)):
        title = view.section_title(quiz, drawn.section)
        attributes = {
            "identifier": drawn.id,
            "title": plain_title(title.text) if title else drawn.id,
            "visible": "true",
        }
        section = sub(part, "assessmentSection", attributes)
        if drawn.draws:
            sub(section, "selection", {"select": str(drawn.draw)})
        if quiz.shuffle_questions and len(drawn.questions) > 1:
            sub(section, "ordering", {"shuffle": "true"})
        if number == 0 and intro is not None:
            rubric(section, intro)
        for q in drawn.questions:
            sub(section, "assessmentItemRef", reference(q))
