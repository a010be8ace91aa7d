"""Moodle GIFT, both directions: a writer and a reader that follows Moodle's own parser (qformat_gift).

Every text field is HTML (``[html]``) from :mod:`moe_lms.text`, escaped the way Moodle's exporter escapes it:
``\\`` first, then ``~ = # { } :`` each behind a backslash, and newlines as ``\\n``. Each question is one block
of lines (blank lines separate questions in GIFT), named ``::<question id>: <stem>::`` like the Moodle XML export,
under the same ``$CATEGORY``, after a comment carrying the same idnumber and tags (``// [id:…] [tag:…]``), which
Moodle 3.6+ imports. Every text says its language (``<div lang dir>``). GIFT has no place for the overall feedback
messages (correct / partially correct / incorrect): Moodle gives GIFT questions blank ones. Nor for images: with
``drop_images`` each shows as its alt text in its place, ``[alt]`` in italics, and a warning names it.
Single-answer and true/false questions are multiple choice with one ``=`` answer (a GIFT ``{T}`` question
would lose the choices' text and explanations); multiple-answer questions give each choice a ``%weight%`` from
the list of grades Moodle accepts, summing to 100% over the correct choices and to -100% over the wrong ones.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import BinaryIO

from ..locales import LocalizedView, Resolved, resolve
from ..media import image_references
from ..model import Bank, Kind, Question, resolve_quiz
from ..numeric import number_text
from ..problems import MoeLmsError, Problem, ProblemsFound, Severity
from ..richtext import (
    Profile,
    latin_isolated,
    plain_text,
    render_block,
    render_inline,
    rendering,
    renders_as_itself_everywhere,
)
from . import ExportOptions, Format, Guide, Held, ShelfEntry

# The escapes Moodle's GIFT reader undoes (qformat_gift::escapedchar_pre); a backslash before anything else is
# a literal backslash.
_ESCAPES = {"\\": "\\", ":": ":", "#": "#", "=": "=", "{": "{", "}": "}", "~": "~", "n": "\n"}
_TO_ESCAPE = {"\\": "\\\\", ":": "\\:", "#": "\\#", "=": "\\=", "{": "\\{", "}": "\\}", "~": "\\~", "\n": "\\n"}
_ESCAPE_ORDER = sorted(_TO_ESCAPE.items(), key=lambda item: item[0] != "\\")  # the backslash first
_PHP_TRIM = " \t\n\r\0\x0b"  # what PHP's trim() strips, which Moodle applies to every field it reads

# Grades Moodle accepts for an answer (question_bank::fraction_options_full), in percent, as GIFT spells them.
MOODLE_GRADES = (
    "100", "90", "83.33333", "80", "75", "70", "66.66667", "60", "50", "40", "33.33333", "30", "25", "20",
    "16.66667", "14.28571", "12.5", "11.11111", "10", "5",
)  # fmt: skip
NAME_LENGTH = 80  # characters of the stem in a question's name
_WEIGHT = re.compile(r"^%-*([0-9]{1,2})\.?([0-9]*)%")  # Moodle's $giftanswerweightregex


def escape(text: str) -> str:
    """A text as a GIFT field: control characters and backslashes escaped, line breaks as ``\\n``."""
    return _escape_characters(text.replace("\r\n", "\n").replace("\r", "\n").strip(_PHP_TRIM))


def _escape_characters(text: str) -> str:
    """Each character of _TO_ESCAPE as it maps (no trimming, no line-break normalising).

    One ``str.replace`` per character present, the backslash first (the later ones only add backslashes): the
    same text as mapping character by character, which a generator did 8x slower (``str.translate`` with a table
    of strings is no faster than the generator, and a regex search for the characters costs more than asking
    for each, most texts having few of them). A test checks this agrees with the mapping on any text."""
    for character, escaped in _ESCAPE_ORDER:
        if character in text:
            text = text.replace(character, escaped)
    return text


def split_weights(count: int, question_id: str) -> list[str]:
    """``count`` grades from Moodle's list that add up to 100%, as equal as the list allows (largest first)."""
    best: tuple[float, list[str]] | None = None
    for high in MOODLE_GRADES:
        for low in MOODLE_GRADES:
            if float(low) > float(high):
                continue
            for n_high in range(1, count + 1):
                total = n_high * float(high) + (count - n_high) * float(low)
                if abs(total - 100) < 1e-3:
                    spread = float(high) - float(low) if n_high < count else 0.0
                    if best is None or spread < best[0]:
                        best = (spread, [high] * n_high + [low] * (count - n_high))
    if best is None:
        raise ProblemsFound(
            [
                Problem(
                    "", None, f"{count} choices cannot share 100% in grades Moodle accepts", f"question '{question_id}'"
                )
            ]
        )
    return best[1]


# --- writing ------------------------------------------------------------------------------------------------------


class _Fields:
    """The GIFT fields of one export: ``[html]`` plus the rendered text, wrapped in an element that says its
    language and direction (the file's own, or the source's for a fallback): Moodle's page is in the learner's
    interface language, not the text's.

    The result is ``escape`` of the wrapped HTML; the wrapper's escaped form is made once per language (escaping
    maps character by character, and the wrapper starts and ends with a tag, so trimming never reaches the text).
    """

    def __init__(self, view: LocalizedView) -> None:
        # A text is in the view's language or, when it fell back, the source's.
        self._div: dict[str, str] = {}
        self._span: dict[str, str] = {}
        # A right-to-left language's Latin-only text (the choice "64 KiB") is an LTR isolate, <bdi dir="ltr">:
        # Moodle keeps it (question text is not cleaned when shown, and its HTMLPurifier definition adds bdi), and
        # shows "KiB 64" without it.
        self._rtl: dict[str, bool] = {}
        for info in (view.source_info, view.info):
            attributes = f'lang="{info.lang}" dir="{info.direction}"'
            self._div[info.lang] = "[html]" + _escape_characters(f"<div {attributes}>")
            self._span[info.lang] = "[html]" + _escape_characters(f"<span {attributes}>")
            self._rtl[info.lang] = info.rtl

    def block(self, resolved: Resolved, plain: int | None = None) -> str:
        """``plain``: whether the text renders as itself everywhere, when the caller knows (question_plain)."""
        text = resolved.text
        rtl = self._rtl[resolved.lang]
        if (
            renders_as_itself_everywhere(text) if plain is None else plain
        ):  # nearly every text: its own HTML, nothing to trim
            made = latin_isolated(f"<p>{text}</p>") if rtl else f"<p>{text}</p>"
            return self._div[resolved.lang] + _escape_characters(made) + "</div>"
        made = render_block(text)
        return self._div[resolved.lang] + _escape_characters(_lines(latin_isolated(made) if rtl else made)) + "</div>"

    def inline(self, resolved: Resolved, plain: int | None = None) -> str:
        text = resolved.text
        made = text if (renders_as_itself_everywhere(text) if plain is None else plain) else _lines(render_inline(text))
        return (
            self._span[resolved.lang]
            + _escape_characters(latin_isolated(made) if self._rtl[resolved.lang] else made)
            + "</span>"
        )


def _lines(text: str) -> str:
    """Line breaks as ``\\n`` alone, as ``escape`` normalises them."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def question_name(view: LocalizedView, question: Question) -> str:
    """``<question id>: <start of the stem>``, as the Moodle XML export names questions; the id comes first so a
    reader can line questions up again."""
    return _name(question.id, view.stem(question).text)


def _name(question_id: str, stem: str) -> str:
    start = _short(plain_text(stem), NAME_LENGTH)
    return f"{question_id}: {start}" if start else question_id  # a stem of markup alone has no words to show


def category(view: LocalizedView, *below: str) -> str:
    """``$course$/<bank title>/<language>``, the category the Moodle XML export uses, so both imports land together;
    ``below``: the names of categories under it (a quiz's, then a section's).

    Moodle reads this line without unescaping: a category name only doubles '/' (Moodle's path separator)."""
    segments = []
    for name in (plain_text(view.bank.title), view.info.name, *below):
        name = _short(name.replace("\\", " "), 255).replace("/", "//")
        segments.append(f" {name}" if name.startswith("/") else f"{name} " if name.endswith("/") else name)
    return "$course$/" + "/".join(segments)


def identity_comment(view: LocalizedView, question: Question) -> str:
    """``// [id:<idnumber>] [tag:<tag>]…``: Moodle (3.6 and later) reads a question's idnumber and tags from the
    comment before it (qformat_default::extract_idnumber_and_tags_from_comment in question/format.php, called by
    qformat_gift::readquestion in question/format/gift/format.php). The idnumber and tags are the Moodle XML
    export's: ``<question id>-<locale>``, the bank's tags then the question's. Ids and tags are [a-z0-9-]."""
    tags = [*view.bank.tags, *(t for t in question.tags if t not in view.bank.tags)]
    return " ".join([f"// [id:{question.id}-{view.locale}]", *(f"[tag:{tag}]" for tag in tags)])


def _question_block(view: LocalizedView, question: Question, fields: _Fields) -> str:
    """The GIFT block of one question, each line ended by a newline."""
    if question.numerical:
        return _numerical_block(view, question, fields)
    # question_texts: stem, explanation, then each choice's text and explanation (the fast way to read them).
    texts = view.question_texts(question)
    stem, explanation, *choice_texts = texts
    plain = view.question_plain(question, texts)  # (each text renders as itself everywhere: 1)
    lines = [
        f"// question: {question.id}",
        identity_comment(view, question),
        f"::{escape(_name(question.id, stem.text))}::{fields.block(stem, plain[0])}{{",
    ]
    if question.kind is Kind.MULTIPLE:
        right = iter(split_weights(len(question.correct_choices), question.id))
        wrong_count = len(question.choices) - len(question.correct_choices)
        wrong = iter(split_weights(wrong_count, question.id) if wrong_count else [])
        marks = [f"~%{next(right)}%" if c.correct else f"~%-{next(wrong)}%" for c in question.choices]
    else:
        marks = ["=" if c.correct else "~" for c in question.choices]
    for j, mark in enumerate(marks):
        text = fields.inline(choice_texts[2 * j], plain[2 + 2 * j])
        feedback = fields.block(choice_texts[2 * j + 1], plain[3 + 2 * j])
        lines.append(f"\t{mark}{text}#{feedback}")
    lines.append(f"\t####{fields.block(explanation, plain[1])}")
    lines.append("}\n")
    return "\n".join(lines)


def _numerical_block(view: LocalizedView, question: Question, fields: _Fields) -> str:
    """A numerical question: ``{#`` then ``=%100%469:0#why`` per value (``%0%`` for an anticipated one; Moodle's
    reader splits the answers at ``=``, question/format/gift/format.php, case 'numerical'), ``~#…`` the feedback
    of any other number (Moodle's ``*`` answer: the bank's incorrect message), ``####`` the general explanation.
    GIFT has no units: the unit is not carried (image_problems says so)."""
    stem, explanation = view.stem(question), view.explanation(question)
    lines = [
        f"// question: {question.id}",
        identity_comment(view, question),
        f"::{escape(_name(question.id, stem.text))}::{fields.block(stem)}{{#",
    ]
    for c in question.choices:
        weight = "100" if c.correct else "0"
        value = f"{number_text(question.value_of(c))}:{number_text(question.tolerance_of(c))}"
        lines.append(f"\t=%{weight}%{value}#{fields.block(view.choice_explanation(question, c))}")
    lines.append(f"\t~#{fields.block(view.feedback('incorrect'))}")
    lines.append(f"\t####{fields.block(explanation)}")
    lines.append("}\n")
    return "\n".join(lines)


def image_problems(bank: Bank, options: ExportOptions) -> list[Problem]:
    """The images a GIFT export cannot carry, one problem per image and question: errors, or warnings that each
    is dropped when ``options.drop_images``."""
    view = resolve(bank, options.locales[0], include_drafts=options.include_drafts)
    problems = []
    for question in bank.questions:
        if question.numerical and question.unit is not None:
            message = (
                f"its unit ({plain_text(question.unit)}) is not carried: GIFT has no units (Moodle XML carries it); "
                "the stem should name the unit"
            )
            where = f"question {question.id!r}"
            problems.append(Problem(_file_of(bank, view.locale), None, message, where, severity=Severity.NOTE))
    for question in bank.questions if bank.media else ():
        for resolved in view.question_texts(question):
            for reference in image_references(resolved.text):
                if options.drop_images:
                    message = (
                        f"image {reference.path!r} is shown as its alt text, [{reference.alt}] (--drop-images): "
                        "a GIFT file cannot carry images"
                    )
                    severity = Severity.WARNING
                else:
                    message = (
                        f"shows image {reference.path!r}, which a GIFT file cannot carry: export Moodle XML "
                        "(--format moodle embeds images), or pass --drop-images to leave images out"
                    )
                    severity = Severity.ERROR
                problems.append(
                    Problem(_file_of(bank, view.locale), None, message, f"question {question.id!r}", severity=severity)
                )
    return problems


def _file_of(bank: Bank, locale: str) -> str:
    return "bank.yaml" if locale == bank.source_locale else f"locales/{locale}.po"


def write(bank: Bank, options: ExportOptions, out: BinaryIO) -> None:
    """One locale per file: the first of ``options.locales``. Math is ``\\(…\\)`` (Moodle's MathJax filter),
    escaped like any GIFT text; a question with an image is refused unless ``options.drop_images``."""
    errors = [p for p in image_problems(bank, options) if p.severity is Severity.ERROR]
    if errors:
        raise ProblemsFound(errors)
    view = resolve(bank, options.locales[0], include_drafts=options.include_drafts)
    out.write(f"// {bank.id} ({view.locale}), exported by moe-lms as Moodle GIFT\n\n".encode())
    if options.quiz is None:
        out.write(f"$CATEGORY: {category(view)}\n".encode())
    fields = _Fields(view)
    parts: list[tuple[str | None, Sequence[Question]]] = [(None, bank.questions)]
    if options.quiz is not None:  # each section a category of its own, below the quiz's: a pool to draw from
        quiz = bank.quiz(options.quiz)
        quiz_name = plain_text(view.quiz_title(quiz).text)
        parts = []
        for section in resolve_quiz(bank, quiz):
            title = view.section_title(quiz, section.section)
            parts.append(
                (category(view, quiz_name, plain_text(title.text) if title else section.id), section.questions)
            )
    with rendering(Profile(math="tex", drop_images=True)):
        for name, questions in parts:
            if name is not None:
                out.write(f"\n$CATEGORY: {name}\n".encode())
            for start in range(0, len(questions), _BATCH):  # (fewer, larger writes)
                batch = questions[start : start + _BATCH]
                out.write("".join(["\n" + _question_block(view, question, fields) for question in batch]).encode())


_BATCH = 64  # questions per write


def _guide(held: Held, first: bool) -> list[str]:
    return [
        "GIFT keeps the texts, per-choice feedback, the explanation, the grades, and each question's idnumber and "
        "tags (Moodle 3.6 and later read them from the `// [id:…] [tag:…]` line). It has no place for the overall "
        "feedback messages (correct, partially correct, incorrect), which Moodle leaves blank; Moodle XML keeps "
        "them.",
        "",
    ]


def _quiz_warnings(bank: Bank, options: ExportOptions) -> list[Problem]:
    """A quiz's pools, as Moodle XML's: the maximum grade and the intro are set in the quiz (caveats.moodle)."""
    from .caveats import moodle

    return moodle(bank, options)


FORMAT = Format(
    name="gift",
    description="Moodle GIFT text",
    suffix=".gift.txt",
    write=write,
    one_locale_per_file=True,
    quizzes=True,
    label="GIFT",
    accepts=frozenset({"drop_images"}),
    warnings=lambda bank, options: [*image_problems(bank, options), *_quiz_warnings(bank, options)],
    # A GIFT file cannot carry images: the shelf's leaves them out (the other files carry them).
    shelf=ShelfEntry(label="GIFT", without_images="GIFT cannot carry them", guide=(Guide(11, "Moodle", _guide),)),
)


# --- reading ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GiftAnswer:
    text: str
    weight: float  # percent: 100 for '=', the %weight% given, else 0
    feedback: str


@dataclass(frozen=True)
class GiftQuestion:
    """One multiple-choice question as Moodle reads it from GIFT."""

    name: str | None
    text: str
    text_format: str  # html, moodle, plain or markdown
    answers: tuple[GiftAnswer, ...]
    general_feedback: str
    single: bool  # Moodle: one answer allowed when any answer is marked '='
    line: int
    idnumber: str = ""  # from "[id:…]" in the comments before the question, as Moodle reads it
    tags: tuple[str, ...] = ()  # from "[tag:…]" there


class GiftSyntaxError(MoeLmsError, ValueError):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


_Tokens = list[str]  # one character per item, or backslash + character for an escape


def _tokenize(text: str) -> _Tokens:
    tokens: _Tokens = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in _ESCAPES:
            tokens.append(text[i : i + 2])
            i += 2
        else:
            tokens.append(text[i])
            i += 1
    return tokens


def _find(tokens: _Tokens, target: str, start: int = 0) -> int:
    """Index of the first unescaped occurrence of ``target`` (one or more characters), or -1."""
    width = len(target)
    for i in range(start, len(tokens) - width + 1):
        if "".join(tokens[i : i + width]) == target and all(len(t) == 1 for t in tokens[i : i + width]):
            return i
    return -1


def _rfind(tokens: _Tokens, target: str) -> int:
    found, at = -1, _find(tokens, target)
    while at != -1:
        found, at = at, _find(tokens, target, at + 1)
    return found


def _split(tokens: _Tokens, separator: str, limit: int = 0) -> list[_Tokens]:
    parts: list[_Tokens] = [[]]
    for token in tokens:
        if token == separator and (not limit or len(parts) < limit):
            parts.append([])
        else:
            parts[-1].append(token)
    return parts


def _strip(tokens: _Tokens) -> _Tokens:
    start, end = 0, len(tokens)
    while start < end and tokens[start] in _PHP_TRIM:
        start += 1
    while end > start and tokens[end - 1] in _PHP_TRIM:
        end -= 1
    return tokens[start:end]


def _text(tokens: _Tokens, default_format: str) -> tuple[str, str]:
    """A field's text and format, as Moodle's parse_text_with_format reads it."""
    tokens = _strip(tokens)
    text_format = default_format
    if tokens[:1] == ["["]:
        end = _find(tokens, "]")
        name = "".join(tokens[1:end]) if end != -1 else ""
        if name in ("html", "moodle", "plain", "markdown"):
            text_format, tokens = name, tokens[end + 1 :]
    return _plain(tokens), text_format


def _plain(tokens: _Tokens) -> str:
    """Escapes undone and the ends trimmed, as Moodle's escapedchar_post and trim() leave a field."""
    return "".join(_ESCAPES[t[1]] if len(t) == 2 else t for t in tokens).strip(_PHP_TRIM)


# Moodle's patterns (qformat_default::extract_idnumber_and_tags_from_comment): the first [id:…] and every
# [tag:…], a "]" inside escaped as "\]".
_ID_TOKEN = re.compile(r"\[id:((?:\\]|[^\]\[\x00-\x1f\x7f])+)]")
_TAG_TOKEN = re.compile(r"\[tag:((?:\\]|[^\]\[\x00-\x1f\x7f<>`])+)]")


def _identity(comments: str) -> tuple[str, tuple[str, ...]]:
    found = _ID_TOKEN.search(comments)
    idnumber = found.group(1).strip().replace("\\]", "]") if found else ""
    tags = tuple(t.strip().replace("\\]", "]") for t in _TAG_TOKEN.findall(comments))
    return idnumber, tuple(t for t in tags if t)


def _question(lines: Sequence[str], first_line: int) -> GiftQuestion | None:
    idnumber, tags = _identity("".join(line + "\n" for line in lines if line.startswith("//")))
    tokens = _strip(_tokenize("\n".join(" " if line.startswith("//") else line for line in lines)))
    if not tokens or "".join(tokens[:10]) == "$CATEGORY:":
        return None
    name: str | None = None
    if "".join(tokens[:2]) == "::":
        end = _find(tokens, "::", 2)
        if end != -1:
            name = _plain(tokens[2:end])
            tokens = _strip(tokens[end + 2 :])
    start, finish = _find(tokens, "{"), _find(tokens, "}")
    if start == -1 or finish == -1 or finish < start:
        raise GiftSyntaxError(first_line, "a question needs an answer block in { }")
    if _strip(tokens[finish + 1 :]):
        raise GiftSyntaxError(first_line, "text after the answer block (missing-word questions are not supported)")
    answer_tokens = _strip(tokens[start + 1 : finish])
    general: _Tokens = []
    separator = _rfind(answer_tokens, "####")
    if separator != -1:
        general, answer_tokens = answer_tokens[separator + 4 :], _strip(answer_tokens[:separator])
    text, text_format = _text(tokens[:start], "moodle")
    if "~" not in answer_tokens:
        raise GiftSyntaxError(first_line, "not a multiple-choice question (no ~ answer)")
    single = "=" in answer_tokens
    answers = []
    for raw in _split([t for tok in answer_tokens for t in (["~", "="] if tok == "=" else [tok])], "~"):
        raw = _strip(raw)
        if not raw:
            continue
        if raw[0] == "=":
            weight, raw = 100.0, raw[1:]
        else:
            flat = "".join(t if len(t) == 1 else "\0" for t in raw)  # one character per token
            weight = 0.0
            if _WEIGHT.match(flat):
                end = flat.index("%", 1)
                weight, raw = float(flat[1:end]), raw[end + 1 :]
        answer_text, feedback = [*_split(raw, "#", limit=2), []][:2]
        answers.append(GiftAnswer(_text(answer_text, text_format)[0], weight, _text(feedback, text_format)[0]))
    if len(answers) < 2:
        raise GiftSyntaxError(first_line, "a multiple-choice question needs at least 2 answers")
    return GiftQuestion(
        name,
        text,
        text_format,
        tuple(answers),
        _text(general, text_format)[0] if general else "",
        single,
        first_line,
        idnumber,
        tags,
    )


def parse(source: str) -> list[GiftQuestion]:
    """The multiple-choice questions of a GIFT file, read the way Moodle reads them (blocks split on blank lines)."""
    questions: list[GiftQuestion] = []
    block: list[str] = []
    first = 0
    for number, line in enumerate([*source.removeprefix("\ufeff").split("\n"), ""], start=1):
        line = line.strip(_PHP_TRIM)
        if line:
            first = first or number
            block.append(line)
        elif block:
            question = _question(block, first)
            if question is not None:
                questions.append(question)
            block, first = [], 0
    return questions
