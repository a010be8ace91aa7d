"""The question-bank model: the single source of truth every format reads and writes.

It knows nothing of any output format. Text fields hold the source-locale text (Markdown);
translations live in ``Bank.translations`` keyed by locale and by each string's stable path
(see :func:`strings`), which is also the ``msgctxt`` of the PO files.
"""

from __future__ import annotations

import difflib
import math
import re
import unicodedata
from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import Annotated, Any, Literal, NamedTuple, NoReturn

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from .errors import MoeLmsError

ID_PATTERN = r"^[a-z][a-z0-9-]*$"
ID_MAX_LENGTH = 48

# What no export may carry: outside XML 1.0's Char production (C0 controls but tab and line breaks, U+FFFE, U+FFFF,
# lone surrogates), and DEL and the C1 controls (U+007F-U+009F), which XML 1.0 allows but HTML forbids ("control
# characters" are parse errors there, and a numeric reference to one reads as a Windows-1252 character instead).
XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff\ud800-\udfff]")
# What no text of a bank may hold: those, and U+E000-U+E003, private-use characters the renderer and the writers use
# as their own placeholders (richtext's holes, skeleton's slots, the HTML page's question marker): text holding
# one would be read as their markup. (The sanitiser still lets the renderer's own through: XML_ILLEGAL.)
PLACEHOLDERS = "\ue000-\ue003"
TEXT_ILLEGAL = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff\ud800-\udfff{PLACEHOLDERS}]")


def placeholder_message(code: int, at: int) -> str:
    """Why text holding one of the renderer's placeholders (``PLACEHOLDERS``) is refused."""
    return (
        f"contains U+{code:04X} at character {at}, a private-use character moe-lms uses as a placeholder when it "
        "renders text; remove it"
    )


def clean_text(value: str) -> str:
    """NFC-normalise, and reject text that XML 1.0 or HTML cannot carry (see XML_ILLEGAL) or that is empty."""
    if value.isascii() and value.isprintable() and value and not value.isspace():
        return value  # U+0020-U+007E only: nothing XML_ILLEGAL, already NFC, not blank (most text of a bank)
    bad = TEXT_ILLEGAL.search(value)
    if bad:
        code = ord(bad.group())
        if 0xE000 <= code <= 0xE003:
            raise ValueError(placeholder_message(code, bad.start() + 1))
        if 0x7F <= code <= 0x9F:
            raise ValueError(
                f"contains U+{code:04X} at character {bad.start() + 1}, a control character that HTML pages cannot "
                "show (often a Windows-1252 character read as Latin-1: U+0092 was meant as ’); remove or replace it"
            )
        from .escapes import find_trap, illegal_character_hint, yaml_message

        trap = find_trap(value, bad.start())
        said = f"contains U+{code:04X} at character {bad.start() + 1}, which XML 1.0 cannot carry"
        if trap is not None and trap.position == bad.start():
            raise ValueError(f"{said}: {yaml_message(trap)}")
        raise ValueError(f"{said}{illegal_character_hint(bad.group())}")
    if not value or value.isspace():
        raise ValueError("text is empty")
    return unicodedata.normalize("NFC", value)


Markdown = Annotated[
    StrictStr,
    AfterValidator(clean_text),
    Field(description="Markdown text in the bank's source locale; inline HTML is sanitised on export."),
]
Identifier = Annotated[
    str,
    Field(
        pattern=ID_PATTERN,
        max_length=ID_MAX_LENGTH,
        description="Stable id: lowercase letter, then lowercase letters, digits and hyphens. "
        "It becomes QTI identifiers, Moodle idnumbers and Canvas markers, so never reuse or rename it.",
    ),
]
LOCALE_PATTERN = r"^[a-z]{2,3}(_[A-Za-z0-9]{2,8})*$"  # a bank's locale tag; locales.from_language_tag reads others
LocaleTag = Annotated[
    str,
    Field(pattern=LOCALE_PATTERN, description="Locale tag as Babel reads it: en, ur, vi, pt_BR"),
]


def _refuse_duplicates(noun: str, field: str, ids: list[str]) -> None:
    """Raise for the first id used twice; ``loc`` in the context points a reader at its second use."""
    seen: set[str] = set()
    for index, item_id in enumerate(ids):
        if item_id in seen:
            raise PydanticCustomError(
                "duplicate_id",
                "{noun} id '{id}' is used more than once",
                {"noun": noun, "id": item_id, "loc": (field, index, "id")},
            )
        seen.add(item_id)


def _choices_error(message: str) -> NoReturn:
    raise PydanticCustomError("answer_key", message, {"loc": ("choices",)})


# One fields-set per model class and combination of fields given, shared by all such instances: pydantic keeps a
# set per instance (216 bytes or more), a third of a large bank's memory. Frozen models never change theirs
# (model_copy changes a copy), so sharing is safe.
_FIELDS_SETS: dict[tuple[type[BaseModel], frozenset[str]], set[str]] = {}


def _share_fields_set(model: BaseModel) -> None:
    fields = model.__pydantic_fields_set__
    shared = _FIELDS_SETS.setdefault((type(model), frozenset(fields)), fields)
    if shared is not fields:
        object.__setattr__(model, "__pydantic_fields_set__", shared)


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Shared(Frozen):
    # A model whose instances share their fields set (see _FIELDS_SETS). (A docstring would enter the JSON Schema.)
    def model_post_init(self, context: Any, /) -> None:
        _share_fields_set(self)


class Kind(StrEnum):
    SINGLE = "single"
    MULTIPLE = "multiple"
    TRUE_FALSE = "true-false"
    NUMERICAL = "numerical"  # the learner types a number; its choices are the key and the values anticipated


def number_out(value: float | None) -> float | int | None:
    """A number as bank.yaml writes it: 469, not 469.0."""
    return int(value) if value is not None and value.is_integer() and abs(value) < 2**53 else value


def number(value: Any) -> float:
    """A numerical question's value or tolerance as a float: the one place such numbers are checked.

    A value is a number in bank.yaml, never text: "469" in quotes is refused (a per-student variant's
    expression is expanded into numbers before any model is built, so this function is where it would be
    let through). Booleans, infinities and NaN are refused too: no platform can compare a typed answer to them.
    """
    if isinstance(value, str):
        raise PydanticCustomError(
            "numerical_text",
            "{value} is text, not a number: write the number without quotes",
            {"value": repr(value)},
        )
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("numerical_type", "{value} is not a number", {"value": repr(value)})
    try:
        found = float(value)
    except OverflowError:
        found = math.inf
    if not math.isfinite(found):
        raise PydanticCustomError(
            "numerical_finite",
            "{value} is not a finite number: a typed answer can only match a finite one",
            {"value": repr(value)},
        )
    return found


Number = Annotated[
    float,
    BeforeValidator(number),
    PlainSerializer(number_out),
    Field(description="A number (not text in quotes); finite."),
]
Tolerance = Annotated[
    float,
    BeforeValidator(number),
    PlainSerializer(number_out),
    Field(ge=0, description="Absolute, in the answer's unit: a typed value within ± this of the value matches it."),
]


# Frozen, not Shared: the question a choice is made in shares the choice's fields set with its own (one Python call
# per question instead of five: 0.01 s a 10,000-question bank). (A docstring would enter the JSON Schema.)
class Choice(Frozen):
    id: Identifier
    # Required of every kind but numerical (Question._answer_key says so); "" only on a numerical question's choice.
    text: Markdown = Field(default="", description="What the learner chooses (not on a numerical question).")
    value: Number | None = Field(
        default=None, description="A numerical question's value: the key (correct: true) or a value anticipated."
    )
    tolerance: Tolerance | None = Field(default=None, description="This value's own tolerance (numerical only).")
    correct: StrictBool = False
    explanation: Markdown = Field(description="Why this choice is right, or why it is wrong and what is true instead.")
    # A parameterised numerical question's value as written, "{ceil(1.25 * T * k / E)}": moved here from value by
    # Question's before-validator (a value is otherwise a number), computed per variant by moe_lms.variants.
    value_template: SkipJsonSchema[StrictStr | None] = None


# The true-false shorthand: a true-false question without choices says which answer is right with ``correct`` and
# explains each answer with these keys; it is read as the two choices ``t`` ("True") and ``f`` ("False").
TRUE_FALSE_SHORTHAND = ("correct", "true_explanation", "false_explanation")
TRUE_FALSE_TEXTS = {"t": "True", "f": "False"}


def _true_false_choices(data: Any) -> Any:
    """A true-false question written with the shorthand, as the same question with its two choices."""
    if type(data) is not dict or "choices" in data or data.get("kind") != Kind.TRUE_FALSE.value:
        return data
    correct = data.get("correct")
    if not isinstance(correct, bool):
        return data  # (no shorthand, or correct: yes: the usual errors say what is wrong)
    missing = [key for key in TRUE_FALSE_SHORTHAND[1:] if key not in data]
    if missing:
        raise PydanticCustomError(
            "true_false_shorthand",
            "a true-false question written with correct: true or false explains each answer: "
            "true_explanation (what a learner who answers True reads) and false_explanation (who answers False)",
            {"loc": (missing[0],)},
        )
    choices = [
        {"id": "t", "text": TRUE_FALSE_TEXTS["t"], "correct": correct, "explanation": data["true_explanation"]},
        {"id": "f", "text": TRUE_FALSE_TEXTS["f"], "correct": not correct, "explanation": data["false_explanation"]},
    ]
    return {**{k: v for k, v in data.items() if k not in TRUE_FALSE_SHORTHAND}, "choices": choices}


def _shorthand_schema(schema: dict[str, Any]) -> None:
    """The JSON Schema of a question, with the true-false shorthand's keys (editors then accept it)."""
    properties = schema.setdefault("properties", {})
    properties["correct"] = {
        "type": "boolean",
        "description": "A true-false question without choices: whether the statement (the stem) is true.",
    }
    for answer in ("true", "false"):
        properties[f"{answer}_explanation"] = {
            "type": "string",
            "description": f"A true-false question without choices: what a learner who answers {answer.title()} "
            "reads (why it is right, or why it is wrong and what is true instead).",
        }
    schema["required"] = [key for key in schema.get("required", []) if key != "choices"]
    # A choice's text is required but of a numerical question, whose choices have a value instead (_answer_key).
    numerical = {"properties": {"kind": {"const": Kind.NUMERICAL.value}}, "required": ["kind"]}
    schema["if"] = numerical
    schema["then"] = {"properties": {"choices": {"items": {"required": ["value"], "not": {"required": ["text"]}}}}}
    schema["else"] = {"properties": {"choices": {"items": {"required": ["text"]}}}}


ParamName = Annotated[
    str,
    Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,31}$", description="A name an expression uses: T, k, rate_2"),
]
ParamValues = Annotated[tuple[StrictInt | StrictFloat, ...], Field(min_length=1, max_length=100)]
VARIANT_MARK = "~"  # a variant's id: <question id>~<number> (moe_lms.variants)
MAX_VARIANTS = 200


def variant_of(question_id: str) -> str | None:
    """The id of the parameterised question a variant id (``capacity~3``) was drawn from; None for any other id."""
    base, mark, _number = question_id.partition(VARIANT_MARK)
    return base if mark else None


class Question(Frozen):
    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_extra=_shorthand_schema)

    id: Identifier
    kind: Kind = Kind.SINGLE
    points: StrictInt | StrictFloat = Field(default=1.0, gt=0, le=1000)
    shuffle: StrictBool = Field(default=True, description="Whether the LMS may shuffle the choices.")
    stem: Markdown
    explanation: Markdown = Field(description="General explanation, shown after answering whatever was chosen.")
    unit: Markdown | None = Field(default=None, description="Numerical only: the unit shown after the answer box.")
    tolerance: Tolerance | None = Field(
        default=None, description="Numerical only: the tolerance of every value without its own (default 0)."
    )
    choices: tuple[Choice, ...]
    tags: tuple[Identifier, ...] = ()
    params: dict[ParamName, ParamValues] | None = Field(
        default=None,
        max_length=8,
        description="Each a list of values: the question is a template, and learners get variants drawn from the "
        "combinations ({expression} in its texts is computed for each; see moe_lms.variants).",
    )
    variants: StrictInt | None = Field(
        default=None,
        gt=0,
        le=MAX_VARIANTS,
        description="How many concrete versions of a parameterised question (all valid combinations when absent).",
    )

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        data = _true_false_choices(data)
        if type(data) is dict and data.get("params") is not None and type(data.get("choices")) is list:
            data = {**data, "choices": [_value_template(c) for c in data["choices"]]}
        return data

    @model_validator(mode="after")
    def _answer_key(self) -> Question:
        # pydantic runs an after-validator on every question of a bank being validated, even on instances it does
        # not validate again. Skipping those is a second path kept for the Moodle XML floor (issue 29,
        # docs/design/speed.md): loading the 10k bank took 2.16 s of CPU without it against 1.82 s.
        # A question that passed this check has the shared fields set (given below, and only
        # here): it is not checked again. Any other instance is (model_construct's, a model_copy's, whose fields
        # set is always a new one).
        fields = self.__pydantic_fields_set__
        if fields is _FIELDS_SETS.get((Question, frozenset(fields))):
            return self
        if self.variants is not None and self.params is None:
            raise PydanticCustomError(
                "variants", "variants: is for a parameterised question: give params: too", {"loc": ("variants",)}
            )
        if self.params is not None and not self.params:
            raise PydanticCustomError("params", "params: names no parameter", {"loc": ("params",)})
        for index, c in enumerate(self.choices):
            if c.value_template is not None and (self.params is None or self.kind is not Kind.NUMERICAL):
                _field_error(
                    'a value is a number; it may be an expression in quotes ("{2 * T}") only in a parameterised '
                    "numerical question (params:)",
                    ("choices", index, "value"),
                )
        if self.kind is Kind.NUMERICAL and self.params is not None:
            _numerical_template_key(self)
        elif self.kind is Kind.NUMERICAL:
            _numerical_key(self)
        else:
            _choice_key(self)
        _share_fields_set(self)
        for choice in self.choices:  # (Choice has no post-init of its own: one Python call a question, not five)
            _share_fields_set(choice)
        return self

    @property
    def correct_choices(self) -> tuple[Choice, ...]:
        return tuple(c for c in self.choices if c.correct)

    @property
    def numerical(self) -> bool:
        return self.kind is Kind.NUMERICAL

    def tolerance_of(self, choice: Choice) -> float:
        """A numerical choice's tolerance: its own, else the question's, else 0."""
        if choice.tolerance is not None:
            return choice.tolerance
        return self.tolerance if self.tolerance is not None else 0.0

    def value_of(self, choice: Choice) -> float:
        """A numerical choice's value (check guarantees every choice of a numerical question has one)."""
        assert choice.value is not None, f"choice {choice.id!r} of {self.id!r} has no value"
        return choice.value

    def matching(self, typed: float) -> Choice | None:
        """The choice whose range [value - tolerance, value + tolerance] holds a typed number (ranges never
        overlap, so at most one does), or None: what every platform's grading does, for tests and the HTML page."""
        for c in self.choices:
            value = self.value_of(c)
            if abs(typed - value) <= self.tolerance_of(c) + 1e-9 * max(1.0, abs(value)):  # (binary fractions)
                return c
        return None


def _field_error(message: str, loc: tuple[str | int, ...], kind: str = "answer_key") -> NoReturn:
    raise PydanticCustomError(kind, message, {"loc": loc})


def _choice_key(q: Question) -> None:
    """What a question whose learner picks choices needs: texts, no numbers, enough choices, its key."""
    for index, c in enumerate(q.choices):
        if "text" not in c.model_fields_set:
            raise PydanticCustomError("missing", "Field required", {"loc": ("choices", index, "text")})
        for key in ("value", "tolerance"):
            if getattr(c, key) is not None:
                _field_error(
                    f"{key!r} is a key of a numerical question's choice: add kind: numerical to the question, or "
                    f"remove {key}",
                    ("choices", index, key),
                )
    for key in ("unit", "tolerance"):
        if getattr(q, key) is not None:
            _field_error(f"{key!r} is a key of a numerical question (kind: numerical)", (key,))
    if len(q.choices) < 2:
        _choices_error(f"has {len(q.choices)} choice(s); a question needs at least 2")
    _refuse_duplicates("choice", "choices", [c.id for c in q.choices])
    correct = [c.id for c in q.choices if c.correct]
    if q.kind is Kind.SINGLE and len(correct) != 1:
        _choices_error(
            f"a single-answer question needs exactly one correct choice, found {len(correct)}"
            + (f" ({', '.join(correct)})" if correct else "")
        )
    if q.kind is Kind.MULTIPLE and not correct:
        _choices_error("a multiple-answer question needs at least one correct choice, found 0")
    if q.kind is Kind.TRUE_FALSE and (len(q.choices) != 2 or len(correct) != 1):
        _choices_error("a true-false question needs exactly 2 choices, exactly one of them correct")


def _value_template(choice: Any) -> Any:
    """A parameterised question's choice with its value written as an expression ("{2 * T}") moved to
    value_template (a value is otherwise a number: :func:`number`)."""
    if type(choice) is dict and isinstance(choice.get("value"), str):
        return {**{k: v for k, v in choice.items() if k != "value"}, "value_template": choice["value"]}
    return choice


def _numerical_template_key(q: Question) -> None:
    """A parameterised numerical question: each choice a value or an expression, no text, a correct one. (Its
    ranges are checked per variant, once computed: moe_lms.variants.)"""
    if not q.choices:
        _choices_error("a numerical question needs at least one choice: the correct value")
    _refuse_duplicates("choice", "choices", [c.id for c in q.choices])
    for index, c in enumerate(q.choices):
        if "text" in c.model_fields_set:
            _field_error("a numerical question's choice has no text: its value is what the learner types",
                         ("choices", index, "text"))  # fmt: skip
        if c.value is None and c.value_template is None:
            raise PydanticCustomError("missing", "Field required", {"loc": ("choices", index, "value")})
    if not q.correct_choices:
        _choices_error("a numerical question needs a correct value (correct: true on one of its choices), found none")


def _numerical_key(q: Question) -> None:
    """What a numerical question needs: a value per choice and no text, one correct value or more, and ranges
    that never overlap (a typed number inside two would leave it open which explanation shows)."""
    if not q.choices:
        _choices_error("a numerical question needs at least one choice: the correct value")
    _refuse_duplicates("choice", "choices", [c.id for c in q.choices])
    for index, c in enumerate(q.choices):
        if "text" in c.model_fields_set:
            _field_error(
                "a numerical question's choice has no text: the learner types a number; its value is what they "
                "type (value:) and its explanation what they then read",
                ("choices", index, "text"),
            )
        if c.value is None:
            raise PydanticCustomError("missing", "Field required", {"loc": ("choices", index, "value")})
    if not q.correct_choices:
        _choices_error("a numerical question needs a correct value (correct: true on one of its choices), found none")
    ranges = [
        (q.value_of(c) - q.tolerance_of(c), q.value_of(c) + q.tolerance_of(c), i) for i, c in enumerate(q.choices)
    ]
    for low, high, index in ranges:
        for other_low, other_high, other in ranges:
            if other < index and low <= other_high and other_low <= high:
                a, b = q.choices[other], q.choices[index]
                _field_error(
                    f"the values of choices {a.id!r} ({_range(q, a)}) and {b.id!r} ({_range(q, b)}) overlap: a typed "
                    "number in both would leave it open which explanation shows; narrow a tolerance",
                    ("choices", index, "value"),
                )


def _range(q: Question, c: Choice) -> str:
    tolerance = q.tolerance_of(c)
    return f"{q.value_of(c):g}" + (f" ± {tolerance:g}" if tolerance else "")


class Feedback(Shared):
    """Overall feedback messages, for LMSs that show one after an answer is graded."""

    correct: Markdown = "Your answer is correct."
    partially_correct: Markdown = "Your answer is partially correct."
    incorrect: Markdown = "Your answer is incorrect."


class Translation(NamedTuple):
    """One string's translation, as a translator left it.

    A named tuple rather than a model: a large bank has hundreds of thousands of them, and they are only
    ever built from already-checked PO entries.
    """

    text: str
    source: str  # the source text it translates (the PO msgid); differs from the bank's when stale
    draft: bool = False  # needs review (PO ``fuzzy``)


class MediaItem(NamedTuple):
    """An image of the bank, read once by the loader (moe_lms.media) and shared by every writer.

    ``path`` is bank-relative (``media/diagram.svg``) and is also the name it is referenced by in text;
    ``sha256`` (hex) says whether an uploaded copy is still current.
    """

    path: str
    data: bytes
    media_type: str
    sha256: str

    @property
    def name(self) -> str:
        """The file name, without folders (what Moodle's file areas and packages call it)."""
        return self.path.rsplit("/", 1)[-1]


class Pool(Frozen):
    """Questions chosen by their tags: every question of the bank that has any of them."""

    tags: tuple[Identifier, ...] = Field(min_length=1)


Points = Annotated[StrictInt | StrictFloat, Field(gt=0, le=1000)]


class Section(Frozen):
    """A part of a quiz: fixed questions (``questions``) or a pool (``from``), of which ``draw`` are picked for
    each attempt (all of them when absent). ``points`` is what each of its questions is worth in this quiz."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    id: Identifier
    title: Markdown | None = None
    questions: tuple[Identifier, ...] | None = Field(default=None, min_length=1)
    pool: Pool | None = Field(default=None, alias="from", description="{tags: [...]}: the questions with any of them")
    draw: StrictInt | None = Field(default=None, gt=0, description="How many to pick per attempt (default: all).")
    points: Points | None = Field(default=None, description="Points of each question here (default: its own).")

    @model_validator(mode="after")
    def _one_source(self) -> Section:
        if (self.questions is None) == (self.pool is None):
            raise ValueError("a section takes either questions: (ids) or from: {tags: [...]}, not both or neither")
        return self


class Quiz(Frozen):
    """One quiz drawn from the bank: its sections in order and its settings."""

    id: Identifier
    title: Markdown
    intro: Markdown | None = None
    shuffle_questions: StrictBool = False
    time_limit_minutes: StrictInt | None = Field(default=None, gt=0, le=10080)
    attempts: StrictInt | None = Field(default=None, ge=0, le=1000, description="0 = unlimited; absent: the LMS's")
    sections: tuple[Section, ...] = Field(min_length=1)
    apart: tuple[tuple[Identifier, ...], ...] = Field(
        default=(),
        description=(
            "Sets of questions no attempt shows together (one cues another's answer): check refuses a quiz whose "
            "sections could draw two of a set into one attempt."
        ),
    )

    @model_validator(mode="after")
    def _section_ids(self) -> Quiz:
        _refuse_duplicates("section", "sections", [s.id for s in self.sections])
        return self

    @property
    def has_draw(self) -> bool:
        """Whether some section picks fewer than all of its pool (known only against a bank: see resolve_quiz)."""
        return any(s.draw is not None for s in self.sections)


class Bank(Shared):
    id: Identifier
    title: Markdown
    intro: Markdown | None = None
    source_locale: LocaleTag = "en"
    target_locales: tuple[LocaleTag, ...] = ()
    tags: tuple[Identifier, ...] = ()
    feedback: Feedback = Feedback()
    questions: tuple[Question, ...]
    quizzes: tuple[Quiz, ...] = Field(
        default=(), description="Quizzes drawn from the questions; without any, the bank is one quiz of them all."
    )
    media_max_kib: StrictInt = Field(
        default=1024, gt=0, le=65536, description="The largest image file the bank may carry, in KiB."
    )
    translations: SkipJsonSchema[dict[LocaleTag, Mapping[str, Translation]]] = Field(default_factory=dict, exclude=True)
    # Images the bank's text (source and translations) refers to, by bank-relative path; filled by the loader.
    media: SkipJsonSchema[dict[str, MediaItem]] = Field(default_factory=dict, exclude=True)
    # The bank's own words for the take-the-quiz page (locales/page/<locale>.po), pagewords.Catalog by locale; filled
    # by the loader, over moe-lms's shipped ones.
    page_words: SkipJsonSchema[dict[str, Any]] = Field(default_factory=dict, exclude=True)

    @model_validator(mode="after")
    def _ids_and_locales(self) -> Bank:
        _refuse_duplicates("question", "questions", [q.id for q in self.questions])
        _refuse_duplicates("quiz", "quizzes", [z.id for z in self.quizzes])
        if not self.questions:
            raise ValueError("a bank needs at least one question")
        if self.source_locale in self.target_locales:
            raise ValueError(f"source locale {self.source_locale!r} is also listed in target_locales")
        if len(set(self.target_locales)) != len(self.target_locales):
            raise ValueError("target_locales lists a locale more than once")
        unknown = sorted(set(self.translations) - set(self.target_locales))
        if unknown:
            raise ValueError(f"translations for {', '.join(unknown)}, which target_locales does not list")
        return self

    @property
    def locales(self) -> tuple[str, ...]:
        """Every locale the bank is delivered in, source first."""
        return (self.source_locale, *self.target_locales)

    def question(self, question_id: str) -> Question:
        for q in self.questions:
            if q.id == question_id:
                return q
        raise KeyError(question_id)

    def quiz(self, quiz_id: str) -> Quiz:
        for z in self.quizzes:
            if z.id == quiz_id:
                return z
        known = ", ".join(z.id for z in self.quizzes) or "none"
        raise KeyError(f"bank {self.id!r} has no quiz {quiz_id!r} (its quizzes: {known})")


StringField = Literal["stem", "explanation", "text", "unit"]


def strings(bank: Bank) -> Iterator[tuple[str, str]]:
    """Every learner-facing string as (stable path, source text), in bank order.

    The path is the string's identity across translations: ``title``, ``intro``, ``feedback/correct``,
    ``<question>/stem``, ``<question>/explanation``, ``<question>/choices/<choice>/text`` and ``…/explanation``;
    a numerical question has ``<question>/unit`` (if it has a unit) and no choice texts: values are never strings.
    """
    yield from bank_strings(bank)
    for q in bank.questions:
        yield from question_strings(q)


def bank_strings(bank: Bank) -> list[tuple[str, str]]:
    """The strings of the bank itself (title, intro, overall feedback), which come first in :func:`strings`."""
    heads = [("title", bank.title)]
    if bank.intro is not None:
        heads.append(("intro", bank.intro))
    heads += [(f"feedback/{which}", getattr(bank.feedback, which)) for which in Feedback.model_fields]
    for quiz in bank.quizzes:
        heads += quiz_strings(quiz)
    return heads


def quiz_strings(quiz: Quiz) -> list[tuple[str, str]]:
    """A quiz's learner-visible strings: ``quizzes/<quiz>/title``, ``…/intro``, ``…/sections/<section>/title``.
    (Their paths never meet a question's: a question's have two or four parts, these three or five.)"""
    base = f"quizzes/{quiz.id}"
    found = [(f"{base}/title", quiz.title)]
    if quiz.intro is not None:
        found.append((f"{base}/intro", quiz.intro))
    found += [(f"{base}/sections/{s.id}/title", s.title) for s in quiz.sections if s.title is not None]
    return found


def string_count(bank: Bank) -> int:
    """How many strings :func:`strings` yields, without building their paths."""
    quizzes = sum(len(quiz_strings(z)) for z in bank.quizzes)
    return 4 + (bank.intro is not None) + quizzes + sum(question_string_count(q) for q in bank.questions)


def question_string_count(q: Question) -> int:
    """How many strings :func:`question_strings` yields for ``q``."""
    if q.kind is Kind.NUMERICAL:
        return 2 + (q.unit is not None) + len(q.choices)
    return 2 + 2 * len(q.choices)


def string_offset(q: Question, field: StringField, choice_index: int | None = None) -> int:
    """Where one string of ``q`` is among :func:`question_strings` (0 the stem): the layout in one place."""
    if choice_index is None:
        return {"stem": 0, "explanation": 1, "unit": 2}[field]
    if q.kind is Kind.NUMERICAL:
        return 2 + (q.unit is not None) + choice_index
    return 2 + 2 * choice_index + (field == "explanation")


def question_strings(q: Question) -> Iterator[tuple[str, str]]:
    """A question's strings in :func:`strings` order: stem, explanation, then each choice's text and explanation
    (a numerical question: stem, explanation, its unit, then each choice's explanation)."""
    yield f"{q.id}/stem", q.stem
    yield f"{q.id}/explanation", q.explanation
    if q.kind is Kind.NUMERICAL:
        if q.unit is not None:
            yield f"{q.id}/unit", q.unit
        for c in q.choices:
            yield f"{q.id}/choices/{c.id}/explanation", c.explanation
        return
    for c in q.choices:
        yield f"{q.id}/choices/{c.id}/text", c.text
        yield f"{q.id}/choices/{c.id}/explanation", c.explanation


def question_sources(q: Question) -> list[str]:
    """The source texts of :func:`question_strings`, without their paths."""
    texts = [q.stem, q.explanation]
    if q.kind is Kind.NUMERICAL:
        if q.unit is not None:
            texts.append(q.unit)
        return texts + [c.explanation for c in q.choices]
    for c in q.choices:
        texts += (c.text, c.explanation)
    return texts


def inline_strings(q: Question) -> list[bool]:
    """For each of :func:`question_strings`: whether it renders inline (a choice's text, a unit)."""
    if q.kind is Kind.NUMERICAL:
        return [False, False] + [True] * (q.unit is not None) + [False] * len(q.choices)
    return [False, False] + [True, False] * len(q.choices)


def path_of(question: Question, field: StringField, choice: Choice | None = None) -> str:
    """The stable path of one string of a question (or of one of its choices)."""
    if choice is None:
        return f"{question.id}/{field}"
    return f"{question.id}/choices/{choice.id}/{field}"


# --- quizzes ---------------------------------------------------------------------------------------------------


class DrawnSection(NamedTuple):
    """A section of a quiz as the bank fills it: its pool in order, and how many of it each attempt gets."""

    section: Section
    questions: tuple[Question, ...]  # the pool: the ids in the order given, or the tagged questions in bank order
    draw: int  # how many each attempt gets (len(questions) when the section does not draw)
    points: tuple[float, ...]  # each question's points in this quiz, in ``questions`` order

    @property
    def id(self) -> str:
        return self.section.id

    @property
    def draws(self) -> bool:
        """Whether an attempt gets fewer than the whole pool (a random pick: a question group in an LMS)."""
        return self.draw < len(self.questions)

    @property
    def group_points(self) -> float | None:
        """The one value every question of the pool is worth, if they share one (None: they differ)."""
        values = set(self.points)
        return self.points[0] if len(values) == 1 else None

    def scored(self) -> tuple[Question, ...]:
        """The pool's questions, each worth its points in this quiz (itself where that is its own value)."""
        return tuple(
            q if q.points == p else q.model_copy(update={"points": p})
            for q, p in zip(self.questions, self.points, strict=True)
        )

    def random_group(self, shuffle_questions: bool) -> bool:
        """Whether an LMS that shuffles only within a group of one value (Canvas) needs this section as one: it
        draws, or the quiz shuffles its questions and the section has several, all worth the same."""
        return self.draws or (shuffle_questions and len(self.questions) > 1 and self.group_points is not None)

    @property
    def attempt_points(self) -> float:
        """What an attempt's questions of the section are worth together (a drawn pool's share one value: check
        refuses a draw from questions of different points)."""
        if not self.draws:
            return sum(self.points)
        return self.draw * (self.group_points or max(self.points))


WHOLE_BANK = "all"  # the id of the quiz a bank without quizzes: is: every question, in bank order


def whole_bank_quiz(bank: Bank) -> Quiz:
    """The one quiz of a bank without ``quizzes:``: every question, once, in bank order, no settings. A bank whose
    parameterised questions were expanded (moe_lms.variants) carries its own, each question's variants a section
    drawing one: that one."""
    for quiz in bank.quizzes:
        if quiz.id == WHOLE_BANK:
            return quiz
    return flat_quiz(bank)


def flat_quiz(bank: Bank) -> Quiz:
    """Every question of the bank once, in bank order, in one section (a variant's id, ``capacity~2``, is no
    Identifier an author may write: the section is built without validating it again)."""
    section = Section.model_construct(
        id=WHOLE_BANK, title=None, questions=tuple(q.id for q in bank.questions), pool=None, draw=None, points=None
    )
    return Quiz(id=WHOLE_BANK, title=bank.title, intro=bank.intro, sections=(section,))


def section_pool(bank: Bank, section: Section) -> tuple[tuple[Question, ...], list[str]]:
    """A section's questions, and the ids or tags it names that the bank does not have (or no question carries)."""
    if section.questions is not None:
        by_id = {q.id: q for q in bank.questions}
        missing = [qid for qid in section.questions if qid not in by_id]
        return tuple(by_id[qid] for qid in section.questions if qid in by_id), missing
    assert section.pool is not None
    wanted = set(section.pool.tags)
    pool = tuple(q for q in bank.questions if wanted.intersection(q.tags))
    carried = {t for q in pool for t in q.tags}
    return pool, [t for t in section.pool.tags if t not in carried]


class QuizError(MoeLmsError, ValueError):
    """A quiz the bank cannot fill: ``loc`` is where in bank.yaml (from ``quizzes``), ``quiz`` its id."""

    def __init__(self, quiz: str, loc: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.quiz = quiz
        self.loc = loc
        self.message = message


def quiz_problems(bank: Bank) -> list[QuizError]:
    """Every reason a quiz of the bank cannot be given as written, each with its place in bank.yaml."""
    found: list[QuizError] = []
    for number, quiz in enumerate(bank.quizzes):
        seen: dict[str, str] = {}  # question id: the section of this quiz it is in
        for index, section in enumerate(quiz.sections):
            loc: tuple[str | int, ...] = ("quizzes", number, "sections", index)
            for where, message in _section_problems(bank, section, seen):
                found.append(QuizError(quiz.id, loc + where, message))
        for index, together in enumerate(quiz.apart):
            for where, message in _apart_problems(bank, quiz, together):
                found.append(QuizError(quiz.id, ("quizzes", number, "apart", index, *where), message))
    return found


def _apart_problems(bank: Bank, quiz: Quiz, together: tuple[str, ...]) -> Iterator[tuple[tuple[int, ...], str]]:
    """Why a set of ``apart:`` questions could come together in one attempt. Every format draws each section on its
    own (Moodle random questions, QTI selection, Canvas question groups, Open edX problem banks, the HTML page), and
    none can exclude one question when another is drawn; so the quiz keeps them apart only by its structure: at
    most one of the set can be in any attempt when all of them in the quiz sit in one section that draws 1."""
    where = {q.id: s for s in quiz.sections for q in section_pool(bank, s)[0]}
    if len(together) < 2:
        yield (), f"apart: {list(together)} names one question: a set to keep apart needs two or more"
    first: dict[str, int] = {}  # (each id's first position, found once: list.index per id is quadratic)
    for position, qid in enumerate(together):
        first.setdefault(qid, position)
    for position, qid in enumerate(together):
        if first[qid] != position:
            yield (position,), f"apart: question {qid!r} is listed twice in one set"
        elif qid not in where:
            yield (position,), f"apart: question {qid!r} is in none of the quiz's sections"
    most = 0  # the most of the set one attempt can show
    shown: list[str] = []
    for section in quiz.sections:
        pool = [q.id for q in section_pool(bank, section)[0] if q.id in together]
        if pool:
            asked = min(len(pool), section.draw or len(pool))
            most += asked
            shown.append(f"section {section.id!r} asks {asked} of {', '.join(repr(p) for p in pool)}")
    if most > 1:
        yield (
            (),
            (
                f"apart: one attempt can show {most} of {', '.join(repr(q) for q in together)} ({'; '.join(shown)}); "
                "each format draws every section on its own and none can keep two questions of a draw apart: put the "
                "set in one section that draws 1"
            ),
        )


# Near matches ("did you mean …") are looked for for this many unknown ids or tags of a section: difflib compares
# each with every id of the bank, and a section of 40,000 unknown ids would take minutes.
_HINTS = 20


def _section_problems(
    bank: Bank, section: Section, seen: dict[str, str]
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    name = f"section {section.id!r}"
    pool, missing = section_pool(bank, section)
    if section.questions is not None:
        first: dict[str, int] = {}  # (each id's first position, found once: list.index per id was quadratic)
        for position, qid in enumerate(section.questions):
            first.setdefault(qid, position)
        ids = [q.id for q in bank.questions]
        for number, qid in enumerate(missing):
            near = difflib.get_close_matches(qid, ids, n=1) if number < _HINTS else []
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            yield ("questions", first[qid]), f"{name}: no question {qid!r} in the bank{hint}"
        for position, qid in enumerate(section.questions):
            if first[qid] != position:
                yield ("questions", position), f"{name} lists question {qid!r} twice"
    else:
        assert section.pool is not None
        positions: dict[str, int] = {}
        for position, tag in enumerate(section.pool.tags):
            positions.setdefault(tag, position)
        tags = sorted({t for q in bank.questions for t in q.tags})
        for number, tag in enumerate(missing):
            near = difflib.get_close_matches(tag, tags, n=1) if number < _HINTS else []
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            yield ("from", "tags", positions[tag]), f"{name}: no question is tagged {tag!r}{hint}"
    if not pool:
        if not missing:  # (an unknown id or tag is the reason, said above)
            yield (), f"{name} has no questions: its pool is empty"
        return
    if section.draw is not None and section.draw > len(pool):
        yield ("draw",), f"{name} draws {section.draw} of a pool of {len(pool)} question(s)"
    for q in pool:
        other = seen.setdefault(q.id, section.id)
        if other != section.id:
            yield (), f"question {q.id!r} is in sections {other!r} and {section.id!r}: a quiz asks a question once"
    if section.draw is not None and section.draw < len(pool) and section.points is None:
        values = sorted({q.points for q in pool})
        if len(values) > 1:
            yield (
                ("draw",),
                (
                    f"{name} draws from questions worth different points ({', '.join(f'{v:g}' for v in values)}): "
                    "Canvas question groups, QTI 1.2 sections and Moodle random questions give every drawn question "
                    "one value, and attempts would differ in their total; set points: on the section"
                ),
            )


def resolve_quiz(bank: Bank, quiz: Quiz) -> tuple[DrawnSection, ...]:
    """A quiz's sections filled from the bank (pure); raises the first :class:`QuizError` of a quiz that cannot be."""
    number = next((i for i, z in enumerate(bank.quizzes) if z is quiz), None)
    if number is not None:
        for problem in quiz_problems(bank):
            if problem.loc[1] == number:
                raise problem
    drawn = []
    for section in quiz.sections:
        pool, _missing = section_pool(bank, section)
        points = tuple(float(section.points if section.points is not None else q.points) for q in pool)
        drawn.append(DrawnSection(section, pool, len(pool) if section.draw is None else section.draw, points))
    return tuple(drawn)


def quiz_bank(bank: Bank, quiz: Quiz) -> Bank:
    """The bank with the quiz's questions alone, in quiz order, each worth its points in the quiz: what a quiz's
    package holds items of (its manifest, its items and its media come from it)."""
    questions = tuple(q for drawn in resolve_quiz(bank, quiz) for q in drawn.scored())
    return bank.model_copy(update={"questions": questions})


def quiz_for(bank: Bank, quiz_id: str | None) -> Quiz:
    """The quiz ``quiz_id`` names, or the whole bank's when None."""
    return whole_bank_quiz(bank) if quiz_id is None else bank.quiz(quiz_id)
