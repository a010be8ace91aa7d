"""Canvas: the exact request bodies a push sends, for Classic Quizzes and New Quizzes, and the markers in them.

Pure: a function of the bank and the options, no HTTP (that is ``moe_lms.lms.canvas``). Every body carries a
marker with the object's stable id, so a push finds its own objects again, and a content fingerprint, so it
knows which of them are already up to date:

- a question's name (classic) or an item's title (New Quizzes): ``<qid> [moe:<bank>/<qid>:<fingerprint>]``;
- a quiz's description (classic) or instructions (New Quizzes) end with ``[moe:<bank>@<locale>:<fp>:<shown>]``,
  where ``shown`` is the digest of the question set students see (Classic Quizzes freeze it on publish), in a
  paragraph hidden from learners (``display: none``);
- a question group (classic) is named by its section's title, and found again through the questions in it.

Identity is the stable id, never the fingerprint. New Quizzes choice ids are uuid5 of the choice's stable id.

Traps from the Canvas contract this module is built around: the per-answer comment goes in
``answer_comment_html`` (the documented ``answer_comments`` is silently dropped); exactly the correct answers
get weight 100 (with none, Canvas makes the first one correct); answers are a JSON array (a hash keyed from 1
gives a 500); the question_type is spelled out in full (typos are stored, not rejected); and fields over
Canvas's length limits are refused here, naming the question, instead of as a 500 from Canvas.

This module must not know HTTP, tokens or what Canvas already holds (``moe_lms.lms.canvas`` compares and pushes).

Why it is about 700 lines (issue 19): the bodies, their markers and the file ``export --format canvas`` writes of
them are one contract with Canvas, and its traps above are checked in one place; the JSON layouts it fills are
their own module (:mod:`.jsonlayout`).
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from typing import IO, Any, BinaryIO, Literal, NamedTuple

from ..locales import LocalizedView, Resolved, locale_info, resolve
from ..media import image_references
from ..model import (
    Bank,
    Choice,
    DrawnSection,
    Kind,
    MediaItem,
    Question,
    Quiz,
    flat_quiz,
    resolve_quiz,
    string_offset,
    variant_of,
    whole_bank_quiz,
)
from ..numeric import number_text
from ..problems import Problem, ProblemsFound
from ..richtext import (
    NOWRAP_STYLE,
    Profile,
    latin_isolated,
    plain_text,
    render_block,
    render_inline,
    rendering,
    renders_as_itself_everywhere,
)
from . import ExportOptions, Format, Guide, Held, Offer, ShelfEntry
from .jsonlayout import Layout, Slot, Template, encode_string, fill, token
from .qti12 import value_classes

Engine = Literal["classic", "new-quizzes"]
ENGINES: tuple[Engine, ...] = ("classic", "new-quizzes")

# Part of every fingerprint: bump it when the bodies change shape, and the next push rewrites every object once.
PAYLOAD_VERSION = "1"
FINGERPRINT_LENGTH = 16

# Canvas refuses (with a 500) question fields longer than these (raw_fields.rb, question_data.rb).
MAX_TEXT = 16384
MAX_COMMENT = 5120
MAX_GROUP_NAME = 255  # cl:app/models/quizzes/quiz_group.rb validates_length_of :name, maximum: 255
# The paragraph a quiz's marker is in: hidden from learners (and teachers), kept by Canvas's sanitizer, which
# allows style's display and aria-hidden and writes a style back as "display: none;" (gems/canvas_sanitize).
HIDDEN = '<p style="display: none;" aria-hidden="true">'

NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://moe-lms.invalid/canvas/new-quizzes")

_ID = r"[a-z][a-z0-9-]*"
_FP = rf"[0-9a-f]{{{FINGERPRINT_LENGTH}}}"
# A question's key may be a variant's id, capacity~2 (moe_lms.variants): a push finds its variants again by it.
_QUESTION_ID = rf"{_ID}(?:~[1-9][0-9]*)?"
QUESTION_MARKER = re.compile(rf"\[moe:(?P<bank>{_ID})/(?P<key>{_QUESTION_ID}):(?P<fp>{_FP})\]")
# A quiz of the bank's quizzes: has its id after the bank's (``[moe:<bank>/<quiz>@<locale>:…]``); the whole bank's
# quiz has none.
QUIZ_MARKER = re.compile(
    rf"\[moe:(?P<bank>{_ID})(?:/(?P<quiz>{_ID}))?@(?P<locale>[A-Za-z0-9_]+):(?P<fp>{_FP}):(?P<shown>{_FP})\]"
)
# Only the marker moe-lms appended counts: in the form it appends, at the very end (whitespace and closing tags
# after it tolerated, as an HTML sanitiser may leave them). A translation or a teacher's text holding the same
# characters earlier in the description is just text.
_APPENDED_QUIZ_MARKER = re.compile(rf"<small>\s*{QUIZ_MARKER.pattern}\s*</small>(?:\s|</[a-z]+>)*\Z")
# A question's name (classic) or item's title (New Quizzes) is exactly "<stable id> <marker of that id>".
_QUESTION_NAME = re.compile(rf"\A\s*(?P<name>{_QUESTION_ID})\s+{QUESTION_MARKER.pattern}\s*\Z")


@dataclass(frozen=True)
class DesiredQuestion:
    key: str  # the question's stable id
    fingerprint: str
    layout: Layout = field(repr=False)  # the body's shape
    tokens: Mapping[str, bytes] = field(repr=False)  # its values, each as json.dumps writes it (UTF-8)
    group: str | None = None  # classic: the key of the question group it is in (DesiredGroup.key), if any

    @property
    def body(self) -> dict[str, Any]:
        """The exact create/update request body (a new dict on each call)."""
        body: dict[str, Any] = fill(self.layout.skeleton, {name: json.loads(t) for name, t in self.tokens.items()})
        entry = body.get("item", {}).get("entry", {})
        if "answer_feedback" in entry:  # (laid out in sorted order, as JSON writes it; sent in the choices' order)
            feedback = entry["answer_feedback"]
            entry["answer_feedback"] = {c["id"]: feedback[c["id"]] for c in entry["interaction_data"]["choices"]}
        return body


@dataclass(frozen=True)
class DesiredGroup:
    """A classic question group: a section of a quiz from which each attempt picks ``pick_count`` questions, each
    worth ``question_points`` (Canvas gives every question of a group one value)."""

    bank_id: str
    quiz_id: str
    key: str  # the section's id
    pick_count: int
    question_points: float
    title: str = ""  # the section's title, as teachers read it in the quiz editor (default: its id)

    @property
    def fingerprint(self) -> str:
        return fingerprint("group", self.key, self.pick_count, self.question_points, self.name)

    @property
    def name(self) -> str:
        """The section's title: a push finds its groups through the questions in them, so no marker is needed."""
        return (self.title or self.key)[:MAX_GROUP_NAME]

    def same(self, name: str | None, pick_count: int | None, question_points: float | None) -> bool:
        """Whether a group Canvas holds with these fields is this one as desired."""
        return (name, pick_count, question_points) == (self.name, self.pick_count, self.question_points)

    def body(self) -> dict[str, Any]:
        points = self.question_points
        return {
            "quiz_groups": [
                {
                    "name": self.name,
                    "pick_count": self.pick_count,
                    "question_points": int(points) if points.is_integer() else points,
                }
            ]
        }


@dataclass(frozen=True)
class DesiredQuiz:
    """One locale's quiz as a push wants it: its fields, and its questions in order."""

    bank_id: str
    locale: str
    engine: Engine
    fingerprint: str  # of the quiz's own fields
    digest: str  # of the question set (stable ids, fingerprints, order)
    fields: dict[str, Any]  # the quiz's fields without the marker
    questions: tuple[DesiredQuestion, ...]
    quiz_id: str | None = None  # one of the bank's quizzes; None: the whole bank
    groups: tuple[DesiredGroup, ...] = ()  # classic: a question group per drawing section, in quiz order
    # The quiz's order as Canvas keeps it: ("question", stable id) or ("group", section id) entries.
    order: tuple[tuple[str, str], ...] = ()
    warnings: tuple[str, ...] = ()  # what the quiz asks that Canvas cannot give, said by the plan

    @property
    def key(self) -> str:
        bank = self.bank_id if self.quiz_id is None else f"{self.bank_id}/{self.quiz_id}"
        return f"{bank}@{self.locale}"

    def body(self, *, shown: str | None = None, publish: bool = False) -> dict[str, Any]:
        """The quiz request body; ``shown`` is the question-set digest to record (default: this one)."""
        marker = f"[moe:{self.key}:{self.fingerprint}:{shown or self.digest}]"
        text_field = "description" if self.engine == "classic" else "instructions"
        fields = dict(self.fields)
        fields[text_field] = f"{fields.get(text_field, '')}{HIDDEN}<small>{marker}</small></p>"
        if publish and self.engine == "classic":
            fields["published"] = True
        return {"quiz": fields}


@dataclass(frozen=True)
class QuizMarker:
    bank_id: str
    locale: str
    fingerprint: str
    shown: str
    quiz_id: str | None = None
    hidden: bool = True  # False: in the visible paragraph moe-lms once wrote (a push hides it)


@dataclass(frozen=True)
class QuestionMarker:
    bank_id: str
    key: str
    fingerprint: str


def read_quiz_marker(text: str | None) -> QuizMarker | None:
    """The marker moe-lms appended to a quiz's description or instructions, as Canvas returns it; None when there
    is none at the end in that form (a marker-like text inside the translated intro does not count)."""
    m = _APPENDED_QUIZ_MARKER.search(text or "")
    if not m:
        return None
    hidden = (text or "")[: m.start()].endswith(HIDDEN)
    return QuizMarker(m["bank"], m["locale"], m["fp"], m["shown"], m["quiz"], hidden)


def read_question_marker(text: str | None) -> QuestionMarker | None:
    """The marker of a question's name or an item's title, when the name is exactly as moe-lms wrote it."""
    m = _QUESTION_NAME.fullmatch(text or "")
    return QuestionMarker(m["bank"], m["key"], m["fp"]) if m and m["name"] == m["key"] else None


def choice_uuid(bank: Bank, locale: str, question: Question, choice_id: str) -> str:
    """The New Quizzes id of a choice: derived from stable ids, so a re-push matches it."""
    return str(uuid.uuid5(NAMESPACE, f"{bank.id}/{locale}/{question.id}/{choice_id}"))


def fingerprint(*parts: Any) -> str:
    canonical = json.dumps([PAYLOAD_VERSION, *parts], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:FINGERPRINT_LENGTH]


def _dir(r: Resolved) -> str:
    return "rtl" if locale_info(r.lang.replace("-", "_")).rtl else "ltr"


def _block(r: Resolved) -> str:
    """Block HTML marked with the language it is really in (a fallback shows as the source language)."""
    rendered = render_block(r.text)
    return f'<div lang="{r.lang}" dir="{_dir(r)}">{latin_isolated(rendered) if _dir(r) == "rtl" else rendered}</div>'


class _Limits:
    """Collects every field over Canvas's limits, so one run reports them all."""

    def __init__(self, bank: Bank, locale: str) -> None:
        self.bank, self.locale, self.problems = bank, locale, list[Problem]()

    def check(self, question: Question, field: str, value: str, limit: int) -> str:
        if len(value) > limit:
            self.problems.append(
                Problem(
                    self.bank.id,
                    None,
                    f"{field} is {len(value)} characters in HTML, over Canvas's limit of {limit}",
                    where=f"question '{question.id}' ({self.locale})",
                )
            )
        return value


# --- the question bodies ---------------------------------------------------------------------------------------
#
# Each body is a Layout (jsonlayout.py) per shape, its values named: the export writes it from a template made
# once per shape (the bytes of json.dumps), the fingerprint hashes the same values through the compact template,
# and a push fills the skeleton into the dict it sends. The keys are in the order the bodies always had.


@lru_cache(maxsize=64)
def _classic_layouts(choices: int) -> tuple[Layout, Layout]:
    """A classic question's body with ``choices`` answers, and the fingerprinted part: ["1", "classic", fields]."""
    fields: dict[str, Any] = {
        "question_type": Slot("type"),
        "question_text": Slot("stem"),
        "points_possible": Slot("points"),
        "neutral_comments_html": Slot("explanation"),
        "correct_comments_html": Slot("correct"),
        "incorrect_comments_html": Slot("incorrect"),
        # The plain fields too: general feedback set through the API with the HTML field alone is not shown
        # (canvas-lms #2433), while Canvas's own import stores both (cl:app/models/quizzes/quiz_question/
        # question_data.rb takes each field, plain and _html).
        "neutral_comments": Slot("explanation_plain"),
        "correct_comments": Slot("correct_plain"),
        "incorrect_comments": Slot("incorrect_plain"),
        "answers": [
            {
                "answer_text": Slot(f"text{j}"),
                "answer_html": Slot(f"html{j}"),
                "answer_weight": Slot(f"weight{j}"),
                # answer_comment_html, not the documented answer_comments, which Canvas drops (canvas-lms #2045);
                # and the plain comment as ``comments`` (answer_parsers/multiple_choice.rb: answer_comment|comments).
                "answer_comment_html": Slot(f"comment{j}"),
                "comments": Slot(f"plain_comment{j}"),
            }
            for j in range(choices)
        ],
    }
    body = {"question": {"question_name": Slot("name"), **fields}}
    return Layout(body), Layout([PAYLOAD_VERSION, "classic", fields])


@lru_cache(maxsize=64)
def _numerical_layouts(correct: int) -> tuple[Layout, Layout]:
    """A classic numerical_question's body with ``correct`` answers, and the fingerprinted part. Every answer of a
    Canvas numerical question is a correct one (answer_parsers/numerical.rb gives each weight 100, and
    numerical_question.rb's correct_answer_parts takes any answer whose range holds the number), so only the bank's
    correct values are answers: ``exact_answer`` with ``answer_exact`` and ``answer_error_margin`` (the tolerance),
    each with its explanation as ``answer_comment_html``. The anticipated values, which Canvas cannot tell apart
    from any other wrong number, are listed with their explanations in ``incorrect_comments_html`` after the bank's
    incorrect message."""
    fields: dict[str, Any] = {
        "question_type": "numerical_question",
        "question_text": Slot("stem"),
        "points_possible": Slot("points"),
        "neutral_comments_html": Slot("explanation"),
        "correct_comments_html": Slot("correct"),
        "incorrect_comments_html": Slot("incorrect"),
        # The plain fields too, as a choice question's (canvas-lms #2433: the HTML field alone is not shown).
        "neutral_comments": Slot("explanation_plain"),
        "correct_comments": Slot("correct_plain"),
        "incorrect_comments": Slot("incorrect_plain"),
        "answers": [
            {
                "numerical_answer_type": "exact_answer",
                "answer_exact": Slot(f"exact{j}"),
                "answer_error_margin": Slot(f"margin{j}"),
                "answer_weight": 100,
                "answer_comment_html": Slot(f"comment{j}"),
                "comments": Slot(f"plain_comment{j}"),
            }
            for j in range(correct)
        ],
    }
    body = {"question": {"question_name": Slot("name"), **fields}}
    return Layout(body), Layout([PAYLOAD_VERSION, "classic", fields])


@lru_cache(maxsize=64)
def _new_quizzes_layouts(multiple: bool, choices: int, correct: int) -> tuple[Layout, Layout]:
    """A New Quizzes item's body, and the fingerprinted part: ["1", "new-quizzes", item without title and
    position]. ``answer_feedback``'s keys are the choices' ids, slots ``feedback_id<k>`` in sorted order."""

    def entry(titled: bool) -> dict[str, Any]:
        made: dict[str, Any] = {
            "item_body": Slot("stem"),
            "calculator_type": "none",
            "interaction_data": {
                "choices": [
                    {"id": Slot(f"id{j}"), "position": j + 1, "item_body": Slot(f"body{j}")} for j in range(choices)
                ]
            },
            "properties": {"shuffle_rules": {"choices": {"shuffled": Slot("shuffled"), "to_lock": []}}},
            "feedback": {"neutral": Slot("neutral"), "correct": Slot("correct"), "incorrect": Slot("incorrect")},
        }
        if multiple:
            # answer_feedback exists only for `choice` items, so each choice's explanation joins the general one.
            made["interaction_type_slug"] = "multi-answer"
            made["scoring_algorithm"] = "AllOrNothing"
            made["scoring_data"] = {"value": [Slot(f"right{k}") for k in range(correct)]}
        else:
            made["interaction_type_slug"] = "choice"
            made["scoring_algorithm"] = "Equivalence"
            made["scoring_data"] = {"value": Slot("right0")}
            made["properties"]["vary_points_by_answer"] = False
            made["answer_feedback"] = {Slot(f"feedback_id{k:03d}"): Slot(f"feedback{k:03d}") for k in range(choices)}
        if titled:
            made["title"] = Slot("title")
        return made

    def item(titled: bool) -> dict[str, Any]:
        return {"entry_type": "Item", "points_possible": Slot("points"), "entry": entry(titled)}

    # The position is compared on its own, so a move is not a rewrite.
    body = {"item": {**item(titled=True), "position": Slot("position")}}
    return Layout(body), Layout([PAYLOAD_VERSION, "new-quizzes", item(titled=False)])


class _Names(dict[int, tuple[str, ...]]):
    """The slot names of the ``j``-th choice (made on first use: a question has any number of choices)."""

    def __init__(self, *patterns: str) -> None:
        super().__init__()
        self.patterns = patterns

    def __missing__(self, j: int) -> tuple[str, ...]:
        names = self[j] = tuple(pattern.format(j) for pattern in self.patterns)
        return names


_CLASSIC_NAMES = _Names("text{}", "html{}", "weight{}", "comment{}", "plain_comment{}")
_NEW_QUIZZES_NAMES = _Names("id{}", "body{}")
_FEEDBACK_NAMES = _Names("feedback_id{:03d}", "feedback{:03d}")
_MULTIPLE_ANSWERS = encode_string("multiple_answers_question")
_MULTIPLE_CHOICE = encode_string("multiple_choice_question")


class _Feedback(NamedTuple):
    """The bank's overall feedback, as every question of a view shows it."""

    correct: str
    incorrect: str
    tokens: tuple[bytes, bytes]
    plain: tuple[bytes, bytes] = (b'""', b'""')  # the plain texts' tokens (classic's correct_comments, …)


def _signed(layout: Layout, tokens: Mapping[str, bytes]) -> str:
    """The fingerprint of a body's values: fingerprint() of its fingerprinted part, from its tokens."""
    return hashlib.sha256(layout.template(compact=True).fill(tokens)).hexdigest()[:FINGERPRINT_LENGTH]


class _Texts:
    """One question's texts (question_texts order: stem, explanation, then each choice's text and explanation) as
    the bodies show them, each with its JSON token: HTML marked with the language it is really in (a fallback
    shows as the source language), or plain text. Each is made once, so an export makes both engines' bodies of
    a question from one reading and rendering of its texts."""

    __slots__ = ("_blocks", "_inlines", "_plain", "_view", "texts")

    def __init__(self, texts: list[Resolved], view: _ViewHtml, plain: Sequence[int] | None = None) -> None:
        n = len(texts)
        self.texts, self._view = texts, view
        # As itself: <p>text</p>, text. (``plain``: the view's question_plain of the texts, when they are a question's.)
        self._plain = [renders_as_itself_everywhere(r.text) for r in texts] if plain is None else plain
        self._blocks: list[tuple[str, bytes] | None] = [None] * n
        self._inlines: list[tuple[str, bytes] | None] = [None] * n

    def block(self, k: int) -> tuple[str, bytes]:
        """``<div lang dir>`` and the text as block HTML; and its token."""
        made = self._blocks[k]
        if made is None:
            r = self.texts[k]
            inner = f"<p>{r.text}</p>" if self._plain[k] else self._view.render(render_block, r.text)
            html = f"{self._view.div(r.lang)}{self._view.isolated(r.lang, inner)}</div>"
            made = self._blocks[k] = (html, encode_string(html))
        return made

    def inline(self, k: int) -> tuple[str, bytes]:
        """``<span lang dir>`` and the text as inline HTML; and its token."""
        made = self._inlines[k]
        if made is None:
            r = self.texts[k]
            inner = r.text if self._plain[k] else self._view.render(render_inline, r.text)
            html = f"{self._view.span(r.lang)}{self._view.isolated(r.lang, inner)}</span>"
            made = self._inlines[k] = (html, encode_string(html))
        return made

    def plain(self, k: int) -> tuple[str, bytes]:
        """The text without markup; and its token."""
        text = self.texts[k].text
        if not self._plain[k]:
            text = self._view.render(plain_text, text)
        return text, encode_string(text)


class _ViewHtml:
    """What a view's texts share: the rendering profile (entered only for text with Markdown or math, as plain
    text renders as itself), and the opening tags that mark a language and direction, made once per language."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self._divs: dict[str, str] = {}
        self._spans: dict[str, str] = {}
        self._rtl: dict[str, bool] = {}

    def render(self, renderer: Callable[[str], str], text: str) -> str:
        with rendering(self.profile):
            return renderer(text)

    def _make(self, lang: str) -> None:
        rtl = locale_info(lang.replace("-", "_")).rtl
        attributes = f'lang="{lang}" dir="{"rtl" if rtl else "ltr"}"'
        self._divs[lang], self._spans[lang] = f"<div {attributes}>", f"<span {attributes}>"
        self._rtl[lang] = rtl

    def isolated(self, lang: str, rendered: str) -> str:
        """Rendered text of language ``lang``: in a right-to-left one, a Latin-only text (the choice "64 KiB") as an
        LTR isolate, which Canvas keeps (richtext.latin_isolated; "KiB 64" else)."""
        if lang not in self._rtl:
            self._make(lang)
        return self.render(latin_isolated, rendered) if self._rtl[lang] else rendered

    def div(self, lang: str) -> str:
        if lang not in self._divs:
            self._make(lang)
        return self._divs[lang]

    def span(self, lang: str) -> str:
        if lang not in self._spans:
            self._make(lang)
        return self._spans[lang]


def _choice_uuids(bank: Bank, locale: str, question: Question) -> list[str]:
    """choice_uuid of each choice of ``question``, in order: uuid5 spelled out (the name's prefix hashed once);
    a property test holds it equal to uuid.uuid5."""
    prefix = hashlib.sha1(NAMESPACE.bytes + f"{bank.id}/{locale}/{question.id}/".encode())
    made = []
    for choice in question.choices:
        digest = prefix.copy()
        digest.update(choice.id.encode())
        x = digest.hexdigest()
        # The version (5) in the 13th hex digit, the RFC 4122 variant (binary 10) in the top bits of the 17th.
        made.append(f"{x[:8]}-{x[8:12]}-5{x[13:16]}-{_VARIANT[x[16]]}{x[17:20]}-{x[20:32]}")
    return made


_VARIANT = {digit: "89ab"[int(digit, 16) & 3] for digit in "0123456789abcdef"}


# The URL of an image in Canvas (a course file), given its bank media item: the hook of the file upload.
ImageUrl = Callable[[MediaItem], str]


def refuse_images(view: LocalizedView) -> None:
    """ProblemsFound naming each question with an image: request bodies written without a push (the ``canvas``
    export) cannot point at a course file, which only exists once ``push canvas`` uploaded it."""
    problems = []
    for q in view.bank.questions if view.bank.media else ():
        for resolved in view.question_texts(q):
            for reference in image_references(resolved.text):
                message = (
                    f"shows image {reference.path!r}; the Canvas request bodies cannot point at a course file that "
                    "is not uploaded yet: `push canvas` uploads the images, or export canvas-qti (it packages them)"
                )
                problems.append(Problem("bank.yaml", None, message, f"question {q.id!r}"))
    if problems:
        raise ProblemsFound(problems)


def _value_text(q: Question, c: Choice) -> str:
    tolerance = q.tolerance_of(c)
    return number_text(q.value_of(c)) + (f" ± {number_text(tolerance)}" if tolerance else "")


def numerical_left_out(ids: Sequence[str]) -> str:
    """What a New Quizzes quiz says of the numerical questions it leaves out, and why."""
    return (
        f"numerical question(s) {', '.join(ids)} left out of the New Quizzes quiz: its numeric item has no per-value "
        "feedback (answer_feedback is for choice items) and its scoring data is not in the API reference this push "
        "follows; push with --engine classic to carry them"
    )


def refuse_draws(quiz: Quiz, sections: Sequence[DrawnSection]) -> None:
    """ProblemsFound for a quiz that draws, which New Quizzes cannot be given through its API: random draws live in
    item banks there, and the API can neither create a bank nor a bank entry (they are read-only)."""
    drawing = [s for s in sections if s.draws]
    if not drawing:
        return
    picks = ", ".join(f"section {s.id!r} picks {s.draw} of {len(s.questions)}" for s in drawing)
    message = (
        f"draws questions ({picks}), and the New Quizzes API cannot create item banks or random draws (bank "
        "entries are read-only there). Instead: push it to Classic Quizzes (push canvas without --engine "
        "new-quizzes), which keeps the draws as question groups; or import the Canvas QTI package "
        "(push canvas --via qti) and draw from its question bank in the quiz editor; or give New Quizzes a quiz "
        "without draw:"
    )
    raise ProblemsFound([Problem("bank.yaml", None, message, f"quiz {quiz.id!r}")])


def _groups(
    bank_id: str, quiz: Quiz, sections: Sequence[DrawnSection], engine: Engine, view: LocalizedView
) -> tuple[tuple[DesiredGroup, ...], tuple[tuple[str, str], ...], tuple[str, ...]]:
    """Classic: the question groups of a quiz (a drawing section, or a shuffled one: Canvas shows a group's questions
    in random order), the quiz's order of questions and groups, and what Canvas cannot do of it."""
    groups: list[DesiredGroup] = []
    order: list[tuple[str, str]] = []
    warnings: list[str] = []
    for s in sections:
        shuffled = quiz.shuffle_questions and len(s.questions) > 1
        if engine == "classic" and s.random_group(quiz.shuffle_questions):
            assert s.group_points is not None
            title = view.section_title(quiz, s.section)
            name = " ".join(plain_text(title.text).split()) if title is not None else s.id
            groups.append(DesiredGroup(bank_id, quiz.id, s.id, s.draw, s.group_points, name))
            order.append(("group", s.id))
            continue
        if engine == "classic" and shuffled:
            warnings.append(
                f"quiz {quiz.id!r}, section {s.id!r}: its questions are worth different points, and Classic Quizzes "
                "shuffle questions only in a question group, which gives each one value: they keep their order "
                "(set points: on the section to shuffle them)"
            )
        order += [("question", q.id) for q in s.questions]
    return tuple(groups), tuple(order), tuple(warnings)


def _new_quiz_settings(quiz: Quiz) -> dict[str, Any]:
    """New Quizzes' quiz_settings for a quiz's settings (nothing for the whole bank's quiz, which has none)."""
    settings: dict[str, Any] = {}
    if quiz.shuffle_questions:
        settings["shuffle_questions"] = True
    if quiz.time_limit_minutes is not None:
        settings["has_time_limit"] = True
        settings["session_time_limit_in_seconds"] = quiz.time_limit_minutes * 60
    if quiz.attempts is not None and quiz.attempts != 1:
        attempts: dict[str, Any] = {"multiple_attempts_enabled": True, "score_to_keep": "highest"}
        attempts["attempt_limit"] = quiz.attempts > 0
        if quiz.attempts > 0:
            attempts["max_attempts"] = quiz.attempts
        settings["multiple_attempts"] = attempts
    return settings


class QuizStream:
    """One locale's quiz as ``engine`` wants it, its questions made one at a time: an export streams them, a push
    keeps them (desired_quiz). The quiz itself (``quiz()``) comes after the questions, whose digest it carries."""

    def __init__(
        self,
        bank: Bank,
        locale: str,
        engine: Engine,
        *,
        include_drafts: bool = False,
        image_url: ImageUrl | None = None,
        quiz: Quiz | None = None,
    ) -> None:
        self.bank, self.locale, self.engine = bank, locale, engine
        self.the_quiz = quiz or whole_bank_quiz(bank)
        self.quiz_id = None if quiz is None else quiz.id
        asked_first = quiz is None and engine == "new-quizzes" and _has_variants(bank)
        if asked_first:  # New Quizzes cannot draw (refuse_draws): the whole bank asks each first variant
            self.the_quiz = _first_variants(bank)
        sections = resolve_quiz(bank, self.the_quiz)
        if engine == "new-quizzes":
            refuse_draws(self.the_quiz, sections)
        self.view = resolve(bank, locale, include_drafts=include_drafts)
        self.groups, self.order, self.warnings = _groups(bank.id, self.the_quiz, sections, engine, self.view)
        grouped = {g.key for g in self.groups}
        # Each question of the quiz with its points here and its question group (classic), in quiz order.
        self.entries = [
            (q, points, s.id if s.id in grouped else None)
            for s in sections
            for q, points in zip(s.questions, s.points, strict=True)
        ]
        if asked_first:
            self.warnings += (
                "New Quizzes cannot draw a question per attempt (its API creates no item banks), so each "
                "parameterised question asks its first variant; push to Classic Quizzes, or --via qti, for a draw",
            )
        if engine == "new-quizzes" and any(q.numerical for q, _, _ in self.entries):
            self.warnings += (numerical_left_out([q.id for q, _, _ in self.entries if q.numerical]),)
        self.limits = _Limits(bank, locale)
        self._made: list[tuple[str, str]] | None = None
        # Math as \(…\) / \[…\], which Canvas's math rendering (MathJax) reads; images at the URL ``image_url``
        # gives each (the course file it was uploaded to), and refused without one.
        self.profile = Profile(math="tex", image_url=image_url, media=bank.media, isolate="span")  # (richtext.Profile)
        if image_url is None:
            refuse_images(self.view)

    def questions(self) -> Iterator[DesiredQuestion]:
        for (desired,) in _made_together((self,)):
            if desired is not None:
                yield desired

    def takes(self, q: Question) -> bool:
        """Whether this engine's quiz carries ``q`` (New Quizzes leaves numerical questions out: its warnings
        say why)."""
        return not (q.numerical and self.engine == "new-quizzes")

    @property
    def _maker(self) -> Callable[[Question, int, _Texts, _Feedback, float], DesiredQuestion]:
        """The function that makes one question's body for this engine."""
        return self._classic if self.engine == "classic" else self._new_quizzes

    def _classic_numerical(self, q: Question, t: _Texts, feedback: _Feedback, points: float) -> DesiredQuestion:
        """A numerical question's classic body (see :func:`_numerical_layouts`)."""
        check = self.limits.check
        tokens: dict[str, bytes] = {}
        correct = q.correct_choices
        for j, c in enumerate(correct):
            tokens[f"exact{j}"] = number_text(q.value_of(c)).encode()
            tokens[f"margin{j}"] = number_text(q.tolerance_of(c)).encode()
            comment, tokens[f"comment{j}"] = t.block(string_offset(q, "explanation", q.choices.index(c)))
            tokens[f"plain_comment{j}"] = t.plain(string_offset(q, "explanation", q.choices.index(c)))[1]
            check(q, f"choice '{c.id}' explanation", comment, MAX_TEXT)
        listed = "".join(
            f'<li class="{value_classes(c.id, q.value_of(c), q.tolerance_of(c))}">'
            f'<span dir="ltr" style="{NOWRAP_STYLE}">{_value_text(q, c)}'
            f"</span>: {t.block(string_offset(q, 'explanation', j))[0]}</li>"
            for j, c in enumerate(q.choices)
            if not c.correct
        )
        incorrect = feedback.incorrect + (f"<ul>{listed}</ul>" if listed else "")
        check(q, "incorrect feedback", incorrect, MAX_COMMENT)
        tokens["incorrect"] = encode_string(incorrect)
        plain_listed = [
            f"{_value_text(q, c)}: {t.plain(string_offset(q, 'explanation', j))[0]}"
            for j, c in enumerate(q.choices)
            if not c.correct
        ]
        tokens["incorrect_plain"] = encode_string(" ".join([json.loads(feedback.plain[1]), *plain_listed]))
        stem, tokens["stem"] = t.block(0)
        check(q, "stem", stem, MAX_TEXT)
        tokens["points"] = token(points)
        explanation, tokens["explanation"] = t.block(1)
        check(q, "explanation", explanation, MAX_COMMENT)
        tokens["explanation_plain"] = t.plain(1)[1]
        tokens["correct"], tokens["correct_plain"] = feedback.tokens[0], feedback.plain[0]
        layout, signed = _numerical_layouts(len(correct))
        fp = _signed(signed, tokens)
        tokens["name"] = encode_string(f"{q.id} [moe:{self.bank.id}/{q.id}:{fp}]")
        return DesiredQuestion(q.id, fp, layout, tokens)

    def _classic(self, q: Question, position: int, t: _Texts, feedback: _Feedback, points: float) -> DesiredQuestion:
        if q.numerical:
            return self._classic_numerical(q, t, feedback, points)
        check = self.limits.check
        tokens: dict[str, bytes] = {}
        for j, c in enumerate(q.choices):
            text_name, html_name, weight_name, comment_name, plain_comment_name = _CLASSIC_NAMES[j]
            text, tokens[text_name] = t.plain(2 + 2 * j)
            html, tokens[html_name] = t.inline(2 + 2 * j)
            tokens[weight_name] = b"100" if c.correct else b"0"
            comment, tokens[comment_name] = t.block(3 + 2 * j)
            tokens[plain_comment_name] = t.plain(3 + 2 * j)[1]
            if len(text) > MAX_TEXT or len(html) > MAX_TEXT or len(comment) > MAX_TEXT:
                check(q, f"choice '{c.id}' text", text, MAX_TEXT)
                check(q, f"choice '{c.id}' text", html, MAX_TEXT)
                check(q, f"choice '{c.id}' explanation", comment, MAX_TEXT)
        tokens["type"] = _MULTIPLE_ANSWERS if q.kind is Kind.MULTIPLE else _MULTIPLE_CHOICE
        stem, tokens["stem"] = t.block(0)
        check(q, "stem", stem, MAX_TEXT)
        tokens["points"] = token(points)
        explanation, tokens["explanation"] = t.block(1)
        tokens["explanation_plain"] = t.plain(1)[1]
        check(q, "explanation", explanation, MAX_COMMENT)
        check(q, "correct feedback", feedback.correct, MAX_COMMENT)
        check(q, "incorrect feedback", feedback.incorrect, MAX_COMMENT)
        tokens["correct"], tokens["incorrect"] = feedback.tokens
        tokens["correct_plain"], tokens["incorrect_plain"] = feedback.plain
        layout, signed = _classic_layouts(len(q.choices))
        fp = _signed(signed, tokens)
        tokens["name"] = encode_string(f"{q.id} [moe:{self.bank.id}/{q.id}:{fp}]")
        return DesiredQuestion(q.id, fp, layout, tokens)

    def _new_quizzes(
        self, q: Question, position: int, t: _Texts, feedback: _Feedback, points: float
    ) -> DesiredQuestion:
        ids = _choice_uuids(self.bank, self.locale, q)
        tokens: dict[str, bytes] = {
            "stem": t.block(0)[1],
            "shuffled": b"true" if q.shuffle else b"false",
            "points": token(points),
            "position": str(position).encode(),
        }
        tokens["correct"], tokens["incorrect"] = feedback.tokens
        id_tokens = [f'"{choice_id}"'.encode() for choice_id in ids]  # (a uuid: hex digits and dashes)
        for j, id_token in enumerate(id_tokens):
            id_name, body_name = _NEW_QUIZZES_NAMES[j]
            tokens[id_name] = id_token
            tokens[body_name] = t.block(2 + 2 * j)[1]
        multiple = q.kind is Kind.MULTIPLE
        right = [id_tokens[j] for j, c in enumerate(q.choices) if c.correct]
        if multiple:
            listed = "".join(
                f"<li>{t.inline(2 + 2 * j)[0]}: {t.block(3 + 2 * j)[0]}</li>" for j in range(len(q.choices))
            )
            tokens["neutral"] = encode_string(f"{t.block(1)[0]}<ul>{listed}</ul>")
            for k, right_token in enumerate(right):
                tokens[f"right{k}"] = right_token
        else:
            tokens["neutral"] = t.block(1)[1]
            tokens["right0"] = right[0]
            # answer_feedback's keys in the order json's sort_keys writes them.
            for k, (_, j) in enumerate(sorted(zip(ids, range(len(ids)), strict=True))):
                key_name, value_name = _FEEDBACK_NAMES[k]
                tokens[key_name] = id_tokens[j]
                tokens[value_name] = t.block(3 + 2 * j)[1]
        layout, signed = _new_quizzes_layouts(multiple, len(q.choices), len(right) if multiple else 1)
        fp = _signed(signed, tokens)
        tokens["title"] = encode_string(f"{q.id} [moe:{self.bank.id}/{q.id}:{fp}]")
        return DesiredQuestion(q.id, fp, layout, tokens)

    def quiz(self, questions: tuple[DesiredQuestion, ...] = ()) -> DesiredQuiz:
        """The quiz, once every question was made. Raises ProblemsFound for fields Canvas refuses."""
        if self._made is None:
            raise RuntimeError("QuizStream.quiz() before its questions were all made")
        if self.limits.problems:
            raise ProblemsFound(self.limits.problems)
        quiz, view = self.the_quiz, self.view
        with rendering(self.profile):
            resolved_intro = view.quiz_intro(quiz)
            intro = "" if resolved_intro is None else _block(resolved_intro)
        title = plain_text(view.quiz_title(quiz).text)
        fields: dict[str, Any]
        if self.engine == "classic":
            fields = {
                "title": title,
                "description": intro,
                # Classic Quizzes shuffle per quiz: only when every question allows it.
                "shuffle_answers": all(q.shuffle for q, _, _ in self.entries),
            }
            if quiz.time_limit_minutes is not None:
                fields["time_limit"] = quiz.time_limit_minutes
            if quiz.attempts is not None:
                fields["allowed_attempts"] = quiz.attempts or -1  # (-1: unlimited)
        else:
            # No points_possible: New Quizzes totals its items' points itself.
            fields = {"title": title, "instructions": intro}
            settings = _new_quiz_settings(quiz)
            if settings:
                fields["quiz_settings"] = settings
        made: list[Any] = list(self._made)
        if self.groups:  # (the whole bank's quiz has none: its digest is what it always was)
            made += [(g.key, g.fingerprint) for g in self.groups] + [list(entry) for entry in self.order]
        digest = fingerprint(self.engine, made)
        return DesiredQuiz(
            self.bank.id, self.locale, self.engine, fingerprint(self.engine, fields), digest, fields, questions,
            self.quiz_id, self.groups, self.order, self.warnings,
        )  # fmt: skip


def _made_together(streams: tuple[QuizStream, ...]) -> Iterator[tuple[DesiredQuestion | None, ...]]:
    """Each question's body for each of ``streams`` (one view's: the same bank, locale, drafts and images), its
    texts read and rendered once for all of them; None for a stream that leaves the question out (QuizStream.takes),
    the others numbered on without it. Each stream's quiz() can follow."""
    first = streams[0]
    if any(
        (s.bank, s.locale, s.view.include_drafts, s.profile.image_url, s.the_quiz)
        != (first.bank, first.locale, first.view.include_drafts, first.profile.image_url, first.the_quiz)
        for s in streams[1:]
    ):
        raise ValueError("bodies are made together only for one view of one bank")
    view, html = first.view, _ViewHtml(first.profile)
    made = _Texts([view.feedback("correct"), view.feedback("incorrect")], html)
    (correct, correct_token), (incorrect, incorrect_token) = made.block(0), made.block(1)
    plain = (made.plain(0)[1], made.plain(1)[1])
    feedback = _Feedback(correct, incorrect, (correct_token, incorrect_token), plain)
    keys: list[list[tuple[str, str]]] = [[] for _ in streams]
    makers = [stream._maker for stream in streams]
    positions = [0] * len(streams)
    for q, points, group in first.entries:
        resolved = view.question_texts(q)
        texts = _Texts(resolved, html, view.question_plain(q, resolved))
        bodies: list[DesiredQuestion | None] = []
        for k, (stream, make) in enumerate(zip(streams, makers, strict=True)):
            if not stream.takes(q):
                bodies.append(None)
                continue
            positions[k] += 1
            body = make(q, positions[k], texts, feedback, points)
            bodies.append(body if group is None else replace(body, group=group))
            keys[k].append((body.key, body.fingerprint))
        yield tuple(bodies)
    for stream, stream_keys in zip(streams, keys, strict=True):
        stream._made = stream_keys


def desired_quiz(
    bank: Bank,
    locale: str,
    engine: Engine,
    *,
    include_drafts: bool = False,
    image_url: ImageUrl | None = None,
    quiz: Quiz | None = None,
) -> DesiredQuiz:
    """One locale's quiz and questions as ``engine`` wants them. Raises ProblemsFound for fields Canvas refuses.

    ``image_url``: where an image points (a push gives ``canvas_media.image_ref``); without it, images are refused.
    ``quiz``: one of the bank's quizzes (default: the whole bank as one quiz).
    """
    stream = QuizStream(bank, locale, engine, include_drafts=include_drafts, image_url=image_url, quiz=quiz)
    questions = tuple(stream.questions())
    return stream.quiz(questions)


def desired_quizzes(
    bank: Bank, options: ExportOptions, engine: Engine, *, image_url: ImageUrl | None = None
) -> Iterator[DesiredQuiz]:
    problems: list[Problem] = []
    quiz = None if options.quiz is None else bank.quiz(options.quiz)
    for locale in options.locales:
        try:
            yield desired_quiz(
                bank, locale, engine, include_drafts=options.include_drafts, image_url=image_url, quiz=quiz
            )
        except ProblemsFound as exc:
            problems.extend(exc.problems)
    if problems:
        raise ProblemsFound(problems)


_CLASSIC = "/api/v1/courses/{course_id}/quizzes"
_NEW = "/api/quiz/v1/courses/{course_id}/quizzes"
_SLOT = re.compile(r'"@@moe-slot-(\d+)@@"')
# Per engine: its key in a locale's entry, the key of its list of questions, the quiz and question paths.
_SECTIONS: tuple[tuple[Engine, str, str, str, str], ...] = (
    ("classic", "classic", "questions", _CLASSIC, _CLASSIC + "/{quiz_id}/questions"),
    ("new-quizzes", "new_quizzes", "items", _NEW, _NEW + "/{assignment_id}/items"),
)


def _dumps(value: Any, level: int) -> str:
    """``value`` as json.dumps(indent=2) writes it ``level`` levels deep in a document (JSON strings never hold a
    raw newline, so indenting every line after the first is exact)."""
    text = json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True)
    return text.replace("\n", "\n" + "  " * level)


def write(bank: Bank, options: ExportOptions, out: BinaryIO) -> None:
    """Every locale's request bodies for both engines, as one JSON document (sorted keys, two-space indent).

    Streamed: the document's frame is laid out with a slot for each list of questions and each quiz, and the
    slots are filled in order, one question at a time, so memory does not grow with the bank. The bytes are
    exactly those of json.dumps of the whole document.
    """
    with ExitStack() as files:
        _write(bank, options, out, files)


def _write(bank: Bank, options: ExportOptions, out: BinaryIO, files: ExitStack) -> None:
    slots: list[Callable[[int], Iterator[str | bytes]]] = []

    def slot(fill: Callable[[int], Iterator[str | bytes]]) -> str:
        slots.append(fill)
        return f"@@moe-slot-{len(slots) - 1}@@"

    from .canvas_media import image_ref

    locales = []
    for locale in options.locales:
        entry: dict[str, Any] = {"locale": locale}
        # An image is the reference a push sends before it knows the course file (canvas_media): the document's
        # "images" say which bank file each reference stands for.
        # The document's two engines share one quiz, and New Quizzes' API cannot draw (refuse_draws): a bank with
        # variants (moe_lms.variants) has every variant here, in bank order; `push canvas` (classic) and the Canvas
        # QTI package carry them as question groups picking one.
        streams = tuple(
            QuizStream(
                bank,
                locale,
                engine,
                include_drafts=options.include_drafts,
                image_url=image_ref,
                quiz=flat_quiz(bank) if _has_variants(bank) else None,
            )
            for engine, *_ in _SECTIONS
        )
        lists = _QuestionLists(streams, tuple(item_path for *_, item_path in _SECTIONS), files)
        for k, ((_, name, items, path, _), stream) in enumerate(zip(_SECTIONS, streams, strict=True)):
            entry[name] = {items: slot(partial(lists.fill, k)), "quiz": slot(partial(_quiz_request, stream, path))}
        locales.append(entry)
    frame: dict[str, Any] = {
        "bank": bank.id,
        "generator": f"moe-lms canvas payloads {PAYLOAD_VERSION}",
        "locales": locales,
    }
    if bank.media:  # (a bank without images keeps the document it always had)
        frame["images"] = {
            image_ref(item): {"path": item.path, "media_type": item.media_type, "bytes": len(item.data)}
            for item in sorted(bank.media.values(), key=lambda item: item.path)
        }
    text = json.dumps(frame, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    problems: list[Problem] = []
    position = 0
    for match in _SLOT.finditer(text):
        out.write(text[position : match.start()].encode())
        line_start = text.rfind("\n", 0, match.start()) + 1
        level = (len(text[line_start:]) - len(text[line_start:].lstrip(" "))) // 2
        try:
            for piece in slots[int(match[1])](level):
                out.write(piece if isinstance(piece, bytes) else piece.encode())
        except ProblemsFound as exc:
            problems.extend(exc.problems)
        position = match.end()
    out.write(text[position:].encode())
    if problems:
        raise ProblemsFound(problems)


class _QuestionLists:
    """One locale's lists of question requests, one per engine, made in one pass over the questions (each
    question's texts read and rendered once for both engines). The first list is written as it is made; the
    others, which follow it in the document, wait in a spooled temporary file (in memory up to _SPOOL_MEMORY,
    then on disk), so memory does not grow with the bank."""

    def __init__(self, streams: tuple[QuizStream, ...], paths: tuple[str, ...], files: ExitStack) -> None:
        self.streams, self.paths, self._files = streams, paths, files  # (files: closes the spools)
        self._spools: list[IO[bytes]] = []
        self._level: int | None = None

    def fill(self, k: int, level: int) -> Iterator[bytes]:
        """The ``k``-th list, as _dumps writes it ``level`` levels deep: the first made, the others replayed."""
        if k:
            yield from self._replay(k, level)
            return
        self._level = level
        spool = partial(tempfile.SpooledTemporaryFile, _SPOOL_MEMORY)
        self._spools = [self._files.enter_context(spool()) for _ in self.streams[1:]]
        # Per list: the request template of each body layout met (by the layout's id; the entry keeps the layout,
        # so the id stays its own), and the pieces not yet written.
        templates: list[dict[int, tuple[Layout, Template]]] = [{} for _ in self.streams]
        batches: list[list[bytes]] = [[] for _ in self.streams]
        indent = "  " * (level + 1)
        yield b"["
        separators = [("\n" + indent).encode()] * len(self.streams)
        for n, bodies in enumerate(_made_together(self.streams), start=1):
            for j, desired in enumerate(bodies):
                if desired is None:
                    continue
                made = templates[j].get(id(desired.layout))
                if made is None:
                    request = Layout({"method": "POST", "path": self.paths[j], "body": desired.layout.skeleton})
                    made = (desired.layout, request.template(indent=2, level=level + 1))
                    templates[j][id(desired.layout)] = made
                batches[j] += (separators[j], made[1].fill(desired.tokens))
                separators[j] = (",\n" + indent).encode()
            if n % _BATCH == 0:  # (fewer, larger writes: each is a system call once the spool is a file)
                yield from self._flush(batches)
        yield from self._flush(batches)
        yield ("\n" + "  " * level + "]").encode()

    def _flush(self, batches: list[list[bytes]]) -> Iterator[bytes]:
        for j, batch in enumerate(batches):
            if batch:
                if j:
                    self._spools[j - 1].write(b"".join(batch))
                else:
                    yield b"".join(batch)
                batch.clear()

    def _replay(self, k: int, level: int) -> Iterator[bytes]:
        if self._level != level or len(self._spools) < k:
            raise RuntimeError("a list of question requests replayed before it was made, or at another depth")
        spool = self._spools[k - 1]
        yield b"["
        spool.seek(0)
        while chunk := spool.read(_SPOOL_CHUNK):
            yield chunk
        spool.truncate(0)  # (its memory or disk back at once)
        yield ("\n" + "  " * level + "]").encode()


_SPOOL_MEMORY = 1 << 20  # bytes of a spool kept in memory
_SPOOL_CHUNK = 1 << 20  # bytes read back at a time
_BATCH = 64  # questions made between two writes


def _quiz_request(stream: QuizStream, path: str, level: int) -> Iterator[str | bytes]:
    yield _dumps({"method": "POST", "path": path, "body": stream.quiz().body()}, level)


def _guide(held: Held, first: bool) -> list[str]:
    return [
        "Or send the bank straight into a course with moe-lms (needs Python and a Canvas API token, see the "
        "project's README): `moe-lms push canvas`.",
        "",
        "The `.canvas.json` files are exactly what `moe-lms push canvas` sends (quiz settings and questions) "
        "— for review, or for your own scripts against the Canvas API.",
        "",
    ]


FORMAT = Format(
    name="canvas",
    description="Canvas API request bodies (Classic and New Quizzes), JSON",
    suffix=".canvas.json",
    write=write,
    quiz_refusal=(
        "its file is the whole bank's request bodies for both engines, and New Quizzes cannot take a draw; "
        "`moe-lms push canvas --quiz ID` sends a quiz (its dry run prints the plan)"
    ),
    label="Canvas payload",
    shelf=ShelfEntry(
        label="Canvas payload",
        offers=(Offer(21, "**Canvas**", "`moe-lms push canvas` (keeps the quiz in sync)"),),
        guide=(Guide(33, "Canvas", _guide),),
    ),
)


def _has_variants(bank: Bank) -> bool:
    """Whether the bank's parameterised questions were expanded into variants (moe_lms.variants)."""
    return any(variant_of(q.id) is not None for q in bank.questions)


def _first_variants(bank: Bank) -> Quiz:
    """The whole bank with the first variant of each parameterised question alone (moe_lms.variants), in one
    section: what New Quizzes, which cannot draw, is given."""
    asked = [q for q in bank.questions if variant_of(q.id) is None or q.id.endswith("~1")]
    return flat_quiz(bank.model_copy(update={"questions": tuple(asked)}))
