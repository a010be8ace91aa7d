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
from ..model import VARIANT_MARK, Bank, Kind, Question, Quiz, resolve_quiz
from ..richtext import readable_text, render_block, render_inline
from ..text import visible_text

# FEEDBACK value that shows the general explanation. Choice ids cannot hold "_", so it never names a choice, and
# Canvas's importer reads a modalFeedback whose identifier starts "general_" as the question's neutral comment.
GENERAL_FEEDBACK = "general_explanation"


def item_identifier(question_id: str, locale: str) -> str:
    """The identifier of a question's item in one locale. A variant's ``~`` (``capacity~2``, moe_lms.variants) is
    written ``_``: identifiers are XML names (xs:ID, NCName), which have no ``~``; no bank id has a ``_``; and a ``.``
    would not do: QTI engines read ``item.VARIABLE`` as a variable of an item (qti-sdk's VariableIdentifier refuses
    ``capacity.2-en`` as an item's identifier in outcome processing)."""
    return f"{question_id.replace(VARIANT_MARK, '_')}-{locale}"


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


Mark = Callable[[etree._Element, "str | None"], object]


def numerical_scoring(
    sub: Sub,
    parent: etree._Element,
    q: Question,
    mark: Mark,
    on_answer: Callable[[etree._Element], object],
    *,
    bounds: bool = False,
) -> None:
    """A numerical item's rules (its RESPONSE a float): SCORE 0 unanswered; else the first value whose range holds
    the response (``equal``, absolute tolerance on both sides, bounds included; ``exact`` for a tolerance of 0)
    scores MAXSCORE if it is correct, 0 if anticipated, and gets ``mark(branch, its choice id)`` (FEEDBACK names the
    value, each version its way); any other number scores 0 and gets ``mark(branch, None)``. An answered item then
    gets what ``on_answer`` puts into the branch taken on an answer (the general explanation; the ranges never
    overlap, model.Question checks, so at most one value matches). With ``bounds``, a tolerance is written as
    ``and(gte(RESPONSE, low), lte(RESPONSE, high))``, the bounds worked out in decimal (223.95 and 224.05, not
    224 ± 0.05 in binary floats), for players that have no tolerance on ``equal`` (the Citolab QTI 3 player logs
    "toleranceMode is not supported yet" and answers false)."""
    from decimal import Decimal

    from ..numeric import number_text  # (QTI floats: xs:double, which number_text's shortest form always is)

    condition = sub(parent, "responseCondition")
    unanswered = sub(condition, "responseIf")
    expression(sub, sub(unanswered, "isNull"), "variable", identifier="RESPONSE")
    base_value(sub, set_outcome(sub, unanswered, "SCORE"), "float", "0")
    answered = sub(condition, "responseElse")
    inner = sub(answered, "responseCondition")
    for number, c in enumerate(q.choices):
        branch = sub(inner, "responseIf" if number == 0 else "responseElseIf")
        tolerance = q.tolerance_of(c)
        if tolerance and bounds:
            value, margin = Decimal(number_text(q.value_of(c))), Decimal(number_text(tolerance))
            both = sub(branch, "and")
            for tag, bound in (("gte", value - margin), ("lte", value + margin)):
                test = sub(both, tag)
                expression(sub, test, "variable", identifier="RESPONSE")
                base_value(sub, test, "float", number_text(float(bound)))
        else:
            attributes = {"toleranceMode": "exact"}
            if tolerance:
                attributes = {"toleranceMode": "absolute", "tolerance": number_text(tolerance)}
            test = sub(branch, "equal", attributes)
            expression(sub, test, "variable", identifier="RESPONSE")
            base_value(sub, test, "float", number_text(q.value_of(c)))
        if c.correct:
            expression(sub, set_outcome(sub, branch, "SCORE"), "variable", identifier="MAXSCORE")
        else:
            base_value(sub, set_outcome(sub, branch, "SCORE"), "float", "0")
        mark(branch, c.id)
    other = sub(inner, "responseElse")
    base_value(sub, set_outcome(sub, other, "SCORE"), "float", "0")
    mark(other, None)
    on_answer(answered)


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


class NumericalRule(NamedTuple):
    """One value of a numerical item, as its response processing says: the FEEDBACK id it sets, the value, its
    tolerance, and whether it scores MAXSCORE."""

    choice_id: str
    value: float
    tolerance: float
    correct: bool


def read_numerical_rules(processing: etree._Element, name: Callable[[str], str]) -> list[NumericalRule]:
    """The values of a numerical item from its rules as :func:`numerical_scoring` writes them (``name`` spells a
    QTI 2.1 element or attribute name in the version read): each ``responseIf``/``responseElseIf`` whose test is an
    ``equal`` on a float (exact, or absolute with its tolerance) or an ``and`` of ``gte`` and ``lte``, the identifier
    it puts in FEEDBACK, and whether it sets SCORE to MAXSCORE."""
    from .imported import number, range_of

    rules = []
    for branch in processing.iter(name("responseIf"), name("responseElseIf")):
        test = branch[0] if len(branch) else None
        if test is None:
            continue
        if test.tag == name("equal"):
            value = number(test.findtext(name("baseValue")))
            tolerance = 0.0
            if (test.get("toleranceMode") or test.get("tolerance-mode")) == "absolute":
                tolerance = float(number((test.get("tolerance") or "0").split()[0]) or 0)
        elif test.tag == name("and"):
            low = number(test.findtext(f"{name('gte')}/{name('baseValue')}"))
            high = number(test.findtext(f"{name('lte')}/{name('baseValue')}"))
            if low is None or high is None:
                continue
            value, tolerance = range_of(low, high)
        else:
            continue
        feedback = [
            (v.text or "").strip()
            for setter in branch.iterfind(name("setOutcomeValue"))
            if setter.get("identifier") == "FEEDBACK"
            for v in setter.iter(name("baseValue"))
        ]
        scored = [setter for setter in branch.iterfind(name("setOutcomeValue")) if setter.get("identifier") == "SCORE"]
        correct = any(v.get("identifier") == "MAXSCORE" for setter in scored for v in setter.iter(name("variable")))
        if value is not None and feedback:
            rules.append(NumericalRule(feedback[0], float(value), tolerance, correct))
    return rules
