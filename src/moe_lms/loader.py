"""Bank directories on disk: ``bank.yaml`` plus ``locales/<tag>.po``, to and from the model.

A valid bank.yaml in the usual layout is parsed a hundred questions at a time (yaml-rs) and validated one pydantic
pass per question; anything else (another layout, any error) is parsed whole, which also finds every problem's
line. PO files are read by :mod:`.po`'s reader into packed catalogs. Precise on the bad path: only when something
is wrong is the YAML composed again with PyYAML to find the line of each error. Every problem of a run is
collected and reported together; the checks of the texts that need the bank's files (images, formulas, text that
renders to nothing, placeholders) are here too, since they report at bank.yaml's and the PO files' lines.

This module must not know any output format, the CLI or a terminal (progress is a callback:
:data:`reading_progress`).

Why it is over 700 lines (issue 19): its parts share the file helpers (``YamlLines``, ``display_path``,
``open_reported``) and their public names (``load_bank``, ``check_bank``, ``save_bank``, ``read_catalog``,
``rendering_problems`` …) are imported by every command and by branches still in flight. The split by job
(reading bank.yaml, reading PO catalogs, the text checks, saving), over a lower module for those helpers so that
no cycle appears, is left for when those branches have landed.
"""

from __future__ import annotations

import codecs
import difflib
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import yaml_rs
from pydantic import ValidationError

from . import messages
from .bulk import gc_paused, settled
from .escapes import find_trap, po_message
from .files import inside, write_atomic
from .model import (
    TEXT_ILLEGAL,
    TRUE_FALSE_SHORTHAND,
    Bank,
    Choice,
    Feedback,
    MediaItem,
    Question,
    Quiz,
    Section,
    Translation,
    bank_strings,
    clean_text,
    question_sources,
    question_strings,
    quiz_problems,
    strings,
)
from .problems import Problem, ProblemsFound, Severity
from .translations import PackedCatalog, StringIndex

if TYPE_CHECKING:
    import yaml  # PyYAML: only to find the line of an error, so imported only then

    from . import po

BANK_FILE = "bank.yaml"
BANK_FILE_OTHER_NAME = "bank.yml"  # YAML's other usual file name: accepted as the same file
LOCALES_DIR = "locales"
# UTF-8, with the byte-order mark some Windows editors put first taken off (YAML and PO both allow one).
TEXT_ENCODING = "utf-8-sig"

_KNOWN_KEYS = sorted(
    set(Bank.model_fields)
    | set(Question.model_fields)
    | set(Choice.model_fields)
    | set(Feedback.model_fields)
    | (set(Quiz.model_fields) | set(Section.model_fields) | {"from"}) - {"pool"}
)


def bank_yaml_path(directory: Path) -> Path:
    """The bank's YAML file in ``directory``: bank.yaml, or bank.yml when only that exists."""
    other = directory / BANK_FILE_OTHER_NAME
    if not (directory / BANK_FILE).exists() and other.exists():
        return other
    return directory / BANK_FILE


# Told, while a command shows progress, how many more bytes of the bank's files have been read (see open_reported).
reading_progress: ContextVar[Callable[[int], None] | None] = ContextVar("reading_progress", default=None)


def open_reported(path: Path) -> TextIO:
    """``path`` opened as text, reporting the bytes read to :data:`reading_progress` when it is set."""
    stream = path.open(encoding=TEXT_ENCODING)
    report = reading_progress.get()
    return stream if report is None else _Reported(stream, report)  # type: ignore[return-value]


class _Reported:
    """A text stream that reports how far its file has been read, by its byte position (one call per read)."""

    def __init__(self, stream: TextIO, report: Callable[[int], None]) -> None:
        self._stream, self._report, self._at = stream, report, 0

    def _moved(self) -> None:
        at = self._stream.buffer.tell()
        if at > self._at:
            self._report(at - self._at)
            self._at = at

    def read(self, size: int = -1) -> str:
        text = self._stream.read(size)
        self._moved()
        return text

    def readline(self, size: int = -1) -> str:
        text = self._stream.readline(size)
        self._moved()
        return text

    def __enter__(self) -> _Reported:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stream.close()

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


class YamlLines:
    """Finds the line of a node by its path, composing the document only when first asked."""

    def __init__(self, path: Path) -> None:
        self._path = path  # read again only if an error needs a line: a large bank's text is not kept
        self._root: yaml.Node | None = None
        self._failed = False

    def root(self) -> yaml.Node | None:
        import yaml

        if self._root is None and not self._failed:
            try:
                self._root = yaml.compose(self._path.read_text(encoding=TEXT_ENCODING), Loader=yaml.CSafeLoader)
            except (yaml.YAMLError, OSError, UnicodeDecodeError):
                self._failed = True
        return self._root

    def locate(self, path: Sequence[str | int], *, key: bool = False) -> tuple[int | None, int | None]:
        """1-based (line, column) of the value at ``path``, or of its key when ``key``; the nearest parent if absent."""
        import yaml

        node = self.root()
        if node is None:
            return None, None
        for i, step in enumerate(path):
            nxt: yaml.Node | None = None
            if isinstance(node, yaml.MappingNode):
                for k, v in node.value:
                    if isinstance(k, yaml.ScalarNode) and k.value == step:
                        nxt = k if key and i == len(path) - 1 else v
                        break
            elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and 0 <= step < len(node.value):
                nxt = node.value[step]
            if nxt is None:
                break
            node = nxt
        return node.start_mark.line + 1, node.start_mark.column + 1

    def scalar(self, path: Sequence[str | int]) -> str | None:
        """The value at ``path`` as the file spells it (``True``, ``15``), when it is a plain scalar there."""
        import yaml

        node = self.root()
        for step in path:
            if isinstance(node, yaml.MappingNode):
                node = next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == step), None)
            elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and 0 <= step < len(node.value):
                node = node.value[step]
            else:
                return None
        return node.value if isinstance(node, yaml.ScalarNode) and not node.style else None

    def duplicate_key(self) -> tuple[str, int, int] | None:
        """The first mapping key used twice, with its second line and column (yaml-rs names no place)."""
        import yaml

        stack = [self.root()]
        seen_nodes: set[int] = set()  # an alias is the node of its anchor: each is walked once, not once per use
        while stack:
            node = stack.pop()
            if id(node) in seen_nodes:
                continue
            seen_nodes.add(id(node))
            if isinstance(node, yaml.MappingNode):
                seen: set[str] = set()
                for k, v in node.value:
                    if isinstance(k, yaml.ScalarNode):
                        if k.value in seen:
                            return k.value, k.start_mark.line + 1, k.start_mark.column + 1
                        seen.add(k.value)
                    stack.append(v)
            elif isinstance(node, yaml.SequenceNode):
                stack.extend(node.value)
        return None


# Aliases (``*name``) repeat the node of their anchor (``&name``): a few bytes can stand for gigabytes once the
# parser has expanded them (a "billion laughs"). The expanded size of a document is bounded, whatever the count.
ALIAS_EXPANSION_FACTOR = 4
ALIAS_EXPANSION_ALLOWANCE = 1 << 20
_NODE_COST = 16  # what a node costs besides its text, so that millions of empty nodes count too
# Where an anchor could start (after a space, a flow indicator or at the start of a line). Prose may match too
# (``&amp;``): that only sends the file the thorough way, which measures the expansion.
_MAYBE_ANCHOR = re.compile(r"(?:^|[\s\[{,])&[^\s\[\]{},]", re.MULTILINE)


def expansion_limit(text_size: int) -> int:
    """The most a YAML text of ``text_size`` characters may grow to once its aliases are expanded."""
    return ALIAS_EXPANSION_FACTOR * text_size + ALIAS_EXPANSION_ALLOWANCE


# A YAML tag where a node begins (``!!python/object/apply:…``, ``!custom``): the fast reader builds the node under
# it as if the tag were not there, so the author would be told about a list instead. Only text that may hold one
# is parsed again to find it.
_TAG_HINT = re.compile(r"(?:^|[\s\[{,])!(?:!|<|[A-Za-z])", re.MULTILINE)
_PLAIN_TAGS = frozenset(f"tag:yaml.org,2002:{kind}" for kind in ("str", "int", "float", "bool", "null", "seq", "map"))


def tag_problem(text: str) -> tuple[int, str] | None:
    """The line of the first YAML tag other than the plain ones (``!!str`` …), and why it is refused."""
    if _TAG_HINT.search(text) is None:
        return None
    import yaml

    try:
        for event in yaml.parse(text, Loader=yaml.CSafeLoader):
            tag = getattr(event, "tag", None)
            if tag and tag != "!" and tag not in _PLAIN_TAGS:
                shown = "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml.org,2002:") else tag
                line = event.start_mark.line + 1 if event.start_mark is not None else 1
                return line, (
                    f"the YAML tag {shown[:80]} is refused: bank.yaml holds text, numbers, lists and mappings, and "
                    "moe-lms never builds anything from a tag; remove it (or put the text in quotes if the ! is "
                    "part of it)"
                )
    except yaml.YAMLError:
        return None  # (the reader says what is wrong with the YAML, with its line)
    return None


def alias_expansion_problem(text: str) -> tuple[int, str] | None:
    """(line, message) when expanding the aliases of ``text`` would exceed :func:`expansion_limit`, else None.

    Measured on PyYAML's event stream, which never expands an alias: the size of every anchored node is kept, and
    an alias adds it again. Linear in the size of the text, whatever the aliases would expand to."""
    if "&" not in text or _MAYBE_ANCHOR.search(text) is None:  # (the substring test first: 20x cheaper)
        return None
    import yaml

    limit = expansion_limit(len(text))
    sizes: dict[str, int] = {}
    open_nodes: list[tuple[str | None, int]] = []  # (anchor, size so far) of each collection being read
    total = 0
    try:
        for event in yaml.parse(text, Loader=yaml.CSafeLoader):
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                open_nodes.append((event.anchor, _NODE_COST))
                continue
            if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                anchor, size = open_nodes.pop()
            elif isinstance(event, yaml.ScalarEvent):
                anchor, size = event.anchor, len(event.value) + _NODE_COST
            elif isinstance(event, yaml.AliasEvent):
                anchor, size = None, sizes.get(event.anchor or "", 0)
            else:
                continue
            if anchor is not None:
                sizes[anchor] = size
            if not isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                total += size
                if total > limit:
                    line = event.start_mark.line + 1 if event.start_mark else 1
                    return line, (
                        f"YAML aliases (*name) would expand the file to more than {limit:,} characters (at most "
                        f"{ALIAS_EXPANSION_FACTOR}× the file's size plus {ALIAS_EXPANSION_ALLOWANCE:,}); "
                        "repeat less through anchors"
                    )
            if open_nodes:
                parent_anchor, parent_size = open_nodes[-1]
                open_nodes[-1] = (parent_anchor, parent_size + size)
    except yaml.YAMLError:
        return None  # a syntax error: the YAML reader reports it with its line
    return None


@dataclass
class _Collector:
    file: str
    lines: YamlLines
    problems: list[Problem] = field(default_factory=list)

    def add(self, path: Sequence[str | int], message: str, where: str | None, *, key: bool = False) -> None:
        line, column = self.lines.locate(path, key=key)
        self.problems.append(Problem(self.file, line, message, where, column))


def _where(raw_questions: list[Any], loc: Sequence[str | int], raw_quizzes: Any = None) -> str | None:
    """Name the question (and choice), or the quiz, an error is in, by id when the raw data has one."""
    if len(loc) >= 2 and loc[0] == "quizzes" and isinstance(loc[1], int):
        raw_quiz = raw_quizzes[loc[1]] if isinstance(raw_quizzes, list) and loc[1] < len(raw_quizzes) else None
        quiz_id = raw_quiz.get("id") if isinstance(raw_quiz, dict) else None
        return f"quiz {quiz_id!r}" if isinstance(quiz_id, str) else f"quiz #{loc[1] + 1}"
    if len(loc) < 2 or loc[0] != "questions" or not isinstance(loc[1], int):
        return None
    index = loc[1]
    raw = raw_questions[index] if index < len(raw_questions) else None
    qid = raw.get("id") if isinstance(raw, dict) else None
    where = f"question {qid!r}" if isinstance(qid, str) else f"question #{index + 1}"
    if len(loc) >= 4 and loc[2] == "choices" and isinstance(loc[3], int) and isinstance(raw, dict):
        choices = raw.get("choices")
        craw = choices[loc[3]] if isinstance(choices, list) and loc[3] < len(choices) else None
        cid = craw.get("id") if isinstance(craw, dict) else None
        where += f", choice {cid!r}" if isinstance(cid, str) else f", choice #{loc[3] + 1}"
    return where


# pydantic names each member of a union it tried (``points: StrictInt | StrictFloat`` gives an ``int`` and a
# ``float`` error for one wrong value); one message says what the field takes instead.
_UNION_MEMBERS = {"int": "a number", "float": "a number", "str": "text", "bool": "true or false"}
_LOCALE_FIELDS = ("source_locale", "target_locales")


def _one_per_union(errors: list[Any]) -> list[Any]:
    merged: dict[tuple[Any, ...], Any] = {}
    kept = []
    for err in errors:
        loc = tuple(err["loc"])
        if loc and loc[-1] in _UNION_MEMBERS and err["type"] not in ("missing", "extra_forbidden"):
            wanted = _UNION_MEMBERS[loc[-1]]
            if loc[:-1] in merged:
                first = merged[loc[:-1]]
                if wanted not in first["wanted"]:
                    first["wanted"].append(wanted)
                continue
            err = {**err, "loc": loc[:-1], "type": "union_member", "wanted": [wanted]}
            merged[loc[:-1]] = err
        kept.append(err)
    return kept


def _report(
    collector: _Collector,
    exc: ValidationError,
    base: tuple[str | int, ...],
    raw_questions: list[Any],
    raw_quizzes: Any = None,
) -> None:
    where = partial(_where, raw_questions, raw_quizzes=raw_quizzes)
    errors = _one_per_union(exc.errors(include_url=False))
    # A list whose items all failed is also "too short" (it has none left): the items' errors say why, whether an
    # item failed as a whole or by one of its fields (a section with one bad field is not also "at least 1 item").
    failed_inside = {
        tuple(err["loc"][:at]) for err in errors for at, part in enumerate(err["loc"]) if isinstance(part, int)
    }
    for err in errors:
        if err["type"] == "too_short" and tuple(err["loc"]) in failed_inside:
            continue
        loc = base + tuple(err["loc"])
        ctx = err.get("ctx") or {}
        if "loc" in ctx:
            loc = loc + tuple(ctx["loc"])
        kind = err["type"]
        name = str(loc[-1]) if loc else "bank"
        if len(loc) >= 2 and isinstance(loc[-1], int):  # an item of a list as a whole: "sections #1"
            name = f"{loc[-2]} #{loc[-1] + 1}"
        if loc and loc[0] in _LOCALE_FIELDS and kind == "string_pattern_mismatch":
            message = f"{loc[0]}: unknown locale {err['input']!r} (a locale tag such as en, ur, vi or pt_BR)"
            collector.add(loc, message, None)
            continue
        worded = _in_authors_words(collector, err, loc, name, raw_questions)
        if worded is not None:
            collector.add(loc[:-1] if kind == "missing" else loc, worded, where(loc), key=kind == "extra_forbidden")
            continue
        if kind == "union_member":
            message = f"{name}: {err['input']!r} is not {' or '.join(err['wanted'])}"
            collector.add(loc, message, where(loc))
            continue
        if kind == "extra_forbidden":
            hint = [k for k in difflib.get_close_matches(name, _KNOWN_KEYS, n=2) if k != name][:1]  # (not itself)
            message = f"unknown key {name!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
            collector.add(loc, message, where(loc), key=True)
            continue
        if kind == "missing":
            message = f"missing required key {name!r}"
            loc = loc[:-1]
        elif kind in ("value_error", "duplicate_id", "answer_key"):
            message = err["msg"].removeprefix("Value error, ")
            if kind == "value_error":
                message = f"{name}: {message}"
        elif kind == "string_pattern_mismatch":
            message = (
                f"{name}: {err['input']!r} is not a valid id (a lowercase letter, then lowercase letters, digits "
                "and hyphens: it becomes QTI identifiers, Moodle idnumbers and Canvas markers)"
            )
        else:
            message = f"{name}: {err['msg']}"
        collector.add(loc, message, where(loc))


def _in_authors_words(
    collector: _Collector, err: Any, loc: tuple[str | int, ...], name: str, raw_questions: list[Any]
) -> str | None:
    """moe_lms.messages' wording of an error, when it has one (given the value as bank.yaml spells it)."""
    kind = err["type"]
    if kind == "extra_forbidden":
        return messages.misplaced_key(name, _part_of(loc[:-1]), _KEYS_OF)
    question = None
    if len(loc) >= 2 and loc[0] == "questions" and isinstance(loc[1], int) and loc[1] < len(raw_questions):
        raw = raw_questions[loc[1]]
        question = raw if isinstance(raw, dict) else None
    written = collector.lines.scalar(loc) if kind in ("string_type", "bool_type") else None
    return messages.validation_message(err, name, written=written, question=question)


_KEYS_OF = {
    "the bank": tuple(Bank.model_fields),
    "a question": (*Question.model_fields, *TRUE_FALSE_SHORTHAND),
    "a choice": tuple(Choice.model_fields),
    "the feedback": tuple(Feedback.model_fields),
}


def _part_of(loc: Sequence[str | int]) -> str:
    """Which part of a bank a path into bank.yaml is in (messages._PARTS' words)."""
    if not loc:
        return "the bank"
    if loc[0] == "feedback":
        return "the feedback"
    if loc[0] == "questions" and len(loc) == 2:
        return "a question"
    if loc[0] == "questions" and len(loc) == 4 and loc[2] == "choices":
        return "a choice"
    return "the bank"


def _stand_in(question_id: str | None, index: int, raw: Any = None) -> tuple[Question, bool]:
    """A valid question in place of one with errors, with its id and, when they are valid, its tags and points (what
    the quiz checks look at); the flag says whether those were carried."""
    choices = [
        {"id": "a", "text": "-", "explanation": "-", "correct": True},
        {"id": "b", "text": "-", "explanation": "-"},
    ]
    raw = raw if isinstance(raw, dict) else {}
    drawn_by = {key: raw[key] for key in ("tags", "points") if key in raw}
    for qid in (question_id, f"invalid-question-{index}"):
        for extra, carried in ((drawn_by, True), ({}, not drawn_by)):
            try:
                question = Question.model_validate(
                    {"id": qid, "stem": "-", "explanation": "-", "choices": choices, **extra}
                )
            except ValidationError:
                continue
            return question, carried
    raise AssertionError("unreachable: the second id is always valid")


_QUESTIONS_LINE = re.compile(r"^questions:[ \t]*(?:#[^\n]*)?(?:\n|\Z)", re.MULTILINE)
_FIRST_ITEM = re.compile(r"( *)-(?:[ \t]|\n|$)")
_BATCH = 100  # questions parsed (one YAML call) at most at a time: a small part of a large bank
_BLOCK = 1 << 16  # characters read at a time (then on to the end of the line): a few dozen questions


class _NotTheUsualLayout(Exception):
    pass


def _read_block(stream: TextIO) -> str:
    """About _BLOCK characters of ``stream``, ending at the end of a line (or of the file)."""
    block = stream.read(_BLOCK)
    return block + stream.readline() if block else block


def _split_questions(stream: TextIO) -> Iterator[tuple[str, int] | str]:
    """The questions of bank.yaml in runs of whole ``- `` items (each run's text and its number of items), then
    the rest of the file as a str: the bank's own keys, with ``questions:`` and no value.

    A block sequence item is its dash line and the more indented lines after it: YAML allows nothing less
    indented inside an item but comments and blank lines, so any run of whole items parses on its own, as the
    same items of the whole document. The file is read a block at a time and cut with regexes (no Python loop
    over its lines); the text in memory is one block and the item it ends in. Raises _NotTheUsualLayout for
    any other layout.
    """
    text = _read_block(stream)
    while (found := _QUESTIONS_LINE.search(text)) is None:
        more = _read_block(stream)
        if not more:
            raise _NotTheUsualLayout
        text += more
    header = text[: found.end()]
    position = found.end()
    while True:  # blank lines and comments before the first item
        line_end = text.find("\n", position)
        if line_end < 0:
            more = _read_block(stream)
            if more:
                text += more
                continue
        line = text[position:] if line_end < 0 else text[position : line_end + 1]
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break
        if line_end < 0:
            raise _NotTheUsualLayout  # no item
        position = line_end + 1
    first = _FIRST_ITEM.match(line)
    if first is None:
        raise _NotTheUsualLayout
    indent = len(first.group(1))
    # Each pattern begins with the line break before its line (a literal prefix the regex engine finds fast), so
    # the text searched always begins with the line break before the item it holds.
    item = f" {{{indent}}}-(?:[ \t\n]|\\Z)"
    item_line = re.compile(f"\n{item}")
    # the first line less indented than an item's content that is no comment, blank line or item of its own
    ending = re.compile(f"\n(?!{item}) {{0,{indent}}}(?! )[^#\n\r]")
    text = text[position - 1 :]
    while True:
        more = _read_block(stream)
        text += more  # (a block ends at a line's end, so the patterns never see a line cut in two)
        over = ending.search(text)
        end = len(text) if over is None else over.start() + 1
        starts = [m.start() + 1 for m in item_line.finditer(text, 0, end)]
        last = over is not None or not more
        complete = starts if last else starts[:-1]  # (the last item may go on in the next block)
        for i in range(0, len(complete), _BATCH):
            run = complete[i : i + _BATCH]
            cut = end if last and i + _BATCH >= len(complete) else starts[i + len(run)]
            yield text[run[0] : cut], len(run)
        if last:
            yield header + text[end:] + stream.read()
            return
        if complete:
            text = text[starts[-1] - 1 :]


def _read_question_by_question(path: Path) -> Bank | None:
    """The fast path for a valid bank: parse and validate up to a hundred questions at a time, so a large bank's
    parsed form (about four times its text), nor even its text, never exists all at once. None means: read it
    the thorough way, which also reports every problem with its line (any doubt about the layout, any error,
    ends up there).

    Why a second way (issue 19, docs/design/speed.md): the 100k bank's bank.yaml is 153 MB, and read whole it
    alone takes the process to 0.9 GiB within its first 3 s of CPU (`moe-lms check` of that bank peaked at
    1.1 GiB, over the 1 GiB floor), where read in runs it stays under 0.2 GiB. It cannot be the only way: only
    the whole document reads every YAML layout and finds each problem's line. tests/test_large_banks.py holds
    it to the whole document's bank."""
    return _read_in_runs(path)


def _read_in_runs(path: Path) -> Bank | None:
    """:func:`_read_question_by_question`'s bank."""
    questions: list[Question] = []
    header: object = None
    validate = Question.__pydantic_validator__.validate_python  # model_validate without its Python wrapper (5%)
    try:
        with open_reported(path) as stream:
            for part in _split_questions(stream):
                text = part if isinstance(part, str) else part[0]
                if alias_expansion_problem(text) is not None or tag_problem(text) is not None:
                    return None  # the thorough way reports it with its line
                if isinstance(part, str):
                    header = yaml_rs.loads(text, parse_datetime=False)
                    break
                items = yaml_rs.loads(text, parse_datetime=False)
                if not isinstance(items, list) or len(items) != part[1]:
                    return None
                questions += map(validate, items)
        if not isinstance(header, dict) or "questions" not in header or header["questions"] is not None:
            return None
        if "translations" in header:
            return None
        return Bank.model_validate({**header, "questions": questions})
    except (_NotTheUsualLayout, yaml_rs.YAMLDecodeError, ValidationError, OSError, UnicodeDecodeError):
        return None


def read_bank_yaml(path: Path) -> tuple[Bank | None, list[Problem]]:
    """Read and validate bank.yaml alone; the bank is None when it has errors."""
    bank, problems, _locales_known = _read_bank_yaml(path)
    return (None if problems else bank), problems


def _read_bank_yaml(path: Path) -> tuple[Bank | None, list[Problem], bool]:
    """bank.yaml read as far as it can be: the bank is there, with its problems, when every question is valid
    and only bank-wide checks failed (a quiz's draw, an escape in a text, an unknown locale), so the checks that
    follow (images, PO files) still run; the flag says whether every locale tag is known."""
    bank = _read_question_by_question(path)
    problems: list[Problem] = []
    if bank is None:
        bank, problems = _read_whole_document(path)
    if bank is None:
        return None, problems, False
    locales = _unknown_locales(path, bank)
    found = _escape_problems(path, bank) + locales + _quiz_problems(path, bank) + _variant_problems(path, bank)
    return bank, found, not locales


def _escape_problems(path: Path, bank: Bank) -> list[Problem]:
    """Each text where a YAML escape ate a LaTeX backslash (moe_lms.escapes), at its line. Only the tab, line break
    and carriage return: the escapes that make characters XML cannot carry are refused by the model already (with
    the same explanation)."""
    from .escapes import yaml_message

    problems = []
    lines: YamlLines | None = None
    numbers: dict[str, int] = {}
    for string_path, text in _unprintable_strings(bank):
        trap = find_trap(text)
        if trap is None or trap.character not in "\t\n\r":
            continue
        if lines is None:
            lines, numbers = YamlLines(path), {q.id: n for n, q in enumerate(bank.questions)}
        try:
            line, column = lines.locate(yaml_path(bank, numbers, string_path))
        except (KeyError, StopIteration):
            line, column = None, None
        message = f"{describe(string_path)}: {yaml_message(trap)}"
        problems.append(Problem(display_path(path), line, message, path_where(string_path), column))
    return problems


_QUESTION_WHERE = re.compile(r"question '([a-z][a-z0-9-]*)'")


def placed(directory: Path, bank: Bank, problems: Sequence[Problem]) -> list[Problem]:
    """``problems`` an export found (the formats name ``bank.yaml`` or ``locales/<tag>.po`` and the question, not
    the line), each at the line where its question starts in that file (its stem's entry in a PO file)."""
    lines: YamlLines | None = None
    numbers = {q.id: n for n, q in enumerate(bank.questions)}
    found = []
    for problem in problems:
        match = _QUESTION_WHERE.match(problem.where or "")
        if problem.line is not None or match is None or match[1] not in numbers:
            found.append(problem)
            continue
        if problem.file == BANK_FILE:
            path = bank_yaml_path(directory)
            lines = lines or YamlLines(path)
            line, column = lines.locate(("questions", numbers[match[1]]))
            found.append(replace(problem, file=display_path(path), line=line, column=column))
        elif problem.file.startswith(f"{LOCALES_DIR}/") and (directory / problem.file).is_file():
            po_file = directory / problem.file
            found.append(replace(problem, file=display_path(po_file), line=po_line(po_file, f"{match[1]}/stem")))
        else:
            found.append(problem)
    return found


def _unprintable_strings(bank: Bank) -> Iterator[tuple[str, str]]:
    """The strings of :func:`strings` that hold a control character (a tab, a line break …), the only ones an escape
    can have spoiled; the paths of the others are never built (most texts of a bank are one printable line)."""
    for path, text in bank_strings(bank):
        if not text.isprintable():
            yield path, text
    for q in bank.questions:
        if not all(text.isprintable() for text in question_sources(q)):
            yield from ((path, text) for path, text in question_strings(q) if not text.isprintable())


def _variant_problems(path: Path, bank: Bank) -> list[Problem]:
    """What moe_lms.variants finds in the parameterised questions, each at its line of bank.yaml."""
    from . import variants

    if not variants.has_variants(bank):
        return []
    found = variants.problems(bank)
    if not found:
        return []
    lines = YamlLines(path)
    numbers = {q.id: n for n, q in enumerate(bank.questions)}
    problems = []
    for problem in found:
        loc = problem.loc if problem.loc[0] == "quizzes" else ("questions", numbers[problem.question], *problem.loc)
        line, column = lines.locate(loc)
        problems.append(Problem(display_path(path), line, problem.describe(), f"question {problem.question!r}", column))
    return problems


def _quiz_problems(path: Path, bank: Bank) -> list[Problem]:
    """What model.quiz_problems finds, each at its line of bank.yaml and naming its quiz."""
    found = quiz_problems(bank)
    if not found:
        return []
    lines = YamlLines(path)
    problems = []
    for problem in found:
        line, column = lines.locate(problem.loc)
        problems.append(Problem(display_path(path), line, problem.message, f"quiz {problem.quiz!r}", column))
    return problems


def _unknown_locales(path: Path, bank: Bank) -> list[Problem]:
    """A locale tag of the right shape that no locale database knows (``xq``) is an error at its line."""
    from .locales import check_locale  # (Babel: imported when a bank is read, not when the package is)

    problems = []
    fields: list[tuple[tuple[str | int, ...], str]] = [(("source_locale",), bank.source_locale)]
    fields += [(("target_locales", i), tag) for i, tag in enumerate(bank.target_locales)]
    lines = None
    for loc, tag in fields:
        try:
            check_locale(tag)
        except ValueError:
            lines = lines or YamlLines(path)
            line, column = lines.locate(loc)
            message = f"{loc[0]}: unknown locale {tag!r} (a locale tag such as en, ur, vi or pt_BR)"
            problems.append(Problem(display_path(path), line, message, column=column))
    return problems


def _yaml_syntax_problem(file: str, text: str, line: int, column: int, parser_says: str) -> Problem:
    """A YAML syntax error in plain words, with its usual cause and what to do (the parser's words after)."""
    if re.search(r"\btabs?\b", parser_says):
        lines = text.splitlines()
        for number in range(line, len(lines) + 1):  # the parser names where the scalar began, not the tab
            tab = lines[number - 1].find("\t")
            if tab >= 0:
                message = "a tab character: YAML indents with spaces only; replace the tab with spaces"
                return Problem(file, number, f"YAML syntax error: {message} (YAML: {parser_says})", column=tab + 1)
    if "unknown escape" in parser_says:
        from .escapes import unknown_escape_column

        lines = text.splitlines()
        at = unknown_escape_column(lines[line - 1], column) if 0 < line <= len(lines) else None
        message = (
            'a backslash inside "double quotes" starts a YAML escape, and YAML knows no escape '
            f"{lines[line - 1][at - 1 : at + 1] if at else 'here'}: LaTeX (\\frac, \\pi …) needs the text in "
            "'single quotes' (a ' inside is written '') or as a block (>- or |-, the text on the lines below, "
            "indented), where a backslash is just a backslash"
        )
        return Problem(file, line, f"YAML syntax error: {message} (YAML: {parser_says})", column=at or column)
    worded = messages.yaml_syntax_message(text, line, column, parser_says)
    if worded is not None:
        return Problem(file, line, f"YAML syntax error: {worded} (YAML: {parser_says})", column=column)
    if "mapping values are not allowed" in parser_says:
        message = (
            "a colon followed by a space inside a text makes YAML read a new key: put the text in single quotes "
            "(stem: 'Note: …'; a ' inside is written '') or write it as a block (stem: >- and the text on the next "
            "lines, indented)"
        )
    elif parser_says.startswith("unexpected character") or "cannot start any token" in parser_says:
        message = "a text may not begin with this character (` @ % and others): put the text in quotes"
    elif "did not find expected key" in parser_says or "indentation" in parser_says:
        message = "the indentation does not line up with the lines above: check the spaces at the start of the line"
    else:
        return Problem(file, line, f"YAML syntax error: {parser_says}", column=column)
    return Problem(file, line, f"YAML syntax error: {message} (YAML: {parser_says})", column=column)


def _read_whole_document(path: Path) -> tuple[Bank | None, list[Problem]]:
    """The thorough way: any YAML layout, and every problem with its line."""
    file = display_path(path)
    try:
        data = path.read_bytes().removeprefix(codecs.BOM_UTF8)
    except OSError as exc:
        return None, [Problem(file, None, f"cannot read: {exc.strerror or exc}")]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, [Problem(file, line, f"not UTF-8: byte 0x{data[exc.start]:02x} cannot be decoded")]
    del data
    lines = YamlLines(path)
    collector = _Collector(file, lines)
    expansion = alias_expansion_problem(text) or tag_problem(text)
    if expansion is not None:
        return None, [Problem(file, expansion[0], expansion[1])]
    try:
        raw = yaml_rs.loads(text, parse_datetime=False)
    except yaml_rs.YAMLDecodeError as exc:
        message = str(exc).strip()
        where = re.search(r"line (\d+), column (\d+)", message)
        if where:
            line, column = int(where[1]), int(where[2])
            first = message.splitlines()[-1].strip()
            return None, [_yaml_syntax_problem(file, text, line, column, first)]
        dup = lines.duplicate_key() if "duplicate" in message else None
        if dup:
            return None, [Problem(file, dup[1], f"key {dup[0]!r} appears twice in the same mapping", column=dup[2])]
        return None, [Problem(file, None, f"YAML error: {message}")]
    del text
    if not isinstance(raw, dict):
        return None, [Problem(file, 1, "bank.yaml must be a mapping with id, title and questions")]
    raw_questions = raw.get("questions")
    if not isinstance(raw_questions, list):
        collector.add(("questions",), "questions: must be a list of questions", None)
        raw_questions = []
    questions: list[Question] = []
    as_written: dict[int, Question] = {}  # the questions with errors, their texts as written (for the image check)
    uncertain: list[str] = []  # questions with errors whose tags or points are wrong too: the quizzes cannot know them
    valid = True
    for index, rq in enumerate(raw_questions):
        try:
            questions.append(Question.model_validate(rq))
            raw_questions[index] = {"id": rq["id"]}  # free the raw copy as we go; errors need only the id
        except ValidationError as exc:
            _report(collector, exc, ("questions", index), raw_questions)
            valid = False
            # A stand-in keeps the bank-wide checks (duplicate ids) running over every question.
            rid = rq.get("id") if isinstance(rq, dict) else None
            stand_in, carried = _stand_in(rid if isinstance(rid, str) else None, index, rq)
            questions.append(stand_in)
            if not carried:
                uncertain.append(stand_in.id)
            as_written[index] = _as_written(rq, index)
    header = {k: v for k, v in raw.items() if k not in ("questions", "translations")}
    if "translations" in raw:
        collector.add(("translations",), "unknown key 'translations' (translations live in locales/*.po)", None)
    bank: Bank | None = None
    quizzes_unchecked = False  # the bank's own keys (not its quizzes) have errors: the quizzes cannot be checked
    try:
        bank = Bank.model_validate({**header, "questions": questions})
    except ValidationError as exc:
        _report(collector, exc, (), raw_questions, raw.get("quizzes"))
        quizzes_unchecked = any(error["loc"][:1] != ("quizzes",) for error in exc.errors())
    if not valid or collector.problems:
        # Every problem in one run: the images and formulas of the texts are checked too, not after a fix, and so
        # are the quizzes and locales when the bank's own keys are right (the questions with errors stand in with
        # their ids, tags and points).
        texts = [as_written.get(n, q) for n, q in enumerate(questions)]
        partial = Bank.model_construct(id="-", title="-", questions=tuple(texts), translations={}, media={})
        collector.problems += rich_content_problems(path.parent, partial)[1]
        collector.problems += _escape_problems(path, partial)
        if bank is not None:
            collector.problems += _unknown_locales(path, bank)
            if bank.quizzes and uncertain:
                named = ", ".join(repr(qid) for qid in uncertain[:3]) + (" …" if len(uncertain) > 3 else "")
                message = (
                    f"the quizzes were not checked: question(s) {named} have errors in their tags or points, which "
                    "the quizzes draw by; fix them and run check again"
                )
                collector.problems.append(Problem(file, None, message, severity=Severity.NOTE))
            elif bank.quizzes:
                collector.problems += _quiz_problems(path, bank)
        elif raw.get("quizzes") and quizzes_unchecked:
            message = "the quizzes were not checked against the questions: the bank's own keys above have errors"
            collector.problems.append(Problem(file, None, message, severity=Severity.NOTE))
        return None, collector.problems
    assert bank is not None
    return bank, []


def _as_written(raw: Any, index: int) -> Question:
    """A question that failed validation, built without it from what its texts are (for checks of the texts)."""
    raw = raw if isinstance(raw, dict) else {}

    def text(value: Any) -> str:
        return value if isinstance(value, str) else "-"

    raw_choices = raw.get("choices")
    choices = []
    for j, c in enumerate(raw_choices if isinstance(raw_choices, list) else []):
        c = c if isinstance(c, dict) else {}  # (kept in place: a choice's number is its place in the YAML)
        cid = c["id"] if isinstance(c.get("id"), str) else f"choice-{j}"
        choices.append(Choice.model_construct(id=cid, text=text(c.get("text")), explanation=text(c.get("explanation"))))
    qid = raw.get("id") if isinstance(raw.get("id"), str) else f"invalid-question-{index}"
    return Question.model_construct(
        id=qid, stem=text(raw.get("stem")), explanation=text(raw.get("explanation")), choices=tuple(choices)
    )


def read_catalog(
    path: Path, bank: Bank, locale: str, index: StringIndex | None = None
) -> tuple[PackedCatalog, list[Problem]]:
    """One locale's translations from its PO file, with a problem for every entry that is wrong.

    ``index`` (of ``bank``) can be shared between the locales of a bank.
    """
    from . import po  # Babel's catalog classes: imported when a PO file is read or written

    reader = _CatalogReader(display_path(path), PackedCatalog(index or StringIndex(bank)))
    try:
        with open_reported(path) as stream:
            for position, item in enumerate(po.iter_runs(stream)):
                if isinstance(item, po.Run):
                    reader.run(item)
                elif position == 0 and item.context is None and item.msgid == "":
                    language = po.parse_header(item.msgstr).get("Language")
                    if language and language.replace("-", "_") != locale:
                        reader.problem(item.line, f"header says Language: {language}, but the file name says {locale}")
                elif not item.obsolete:
                    previous = item.previous_msgid if item.fuzzy else None
                    reader.entry(item.context, item.msgid, item.msgstr, item.fuzzy, item.line, previous)
    except po.PoSyntaxError as exc:
        syntax = Problem(reader.file, exc.line, f"PO syntax error: {exc.message}")
        return PackedCatalog(reader.catalog.index), [*reader.problems, syntax]
    except (OSError, UnicodeDecodeError) as exc:
        return PackedCatalog(reader.catalog.index), [Problem(reader.file, None, f"cannot read: {exc}")]
    return reader.catalog, reader.problems + reader.orphans_warning()


class _CatalogReader:
    """Checks PO entries against the bank and packs them. Entries usually come in bank order (every file moe-lms
    writes has them so), and a run of them in that order is checked and packed in bulk."""

    def __init__(self, file: str, catalog: PackedCatalog) -> None:
        self.file = file
        self.catalog = catalog
        self.index = catalog.index
        self.problems: list[Problem] = []
        self.next = 0  # the ordinal expected next: the one after the entry read last
        self.orphans: list[tuple[int, str]] = []  # (line, msgctxt) of entries naming no string of the bank

    def problem(self, line: int | None, message: str, where: str | None = None) -> None:
        self.problems.append(Problem(self.file, line, message, where))

    def run(self, run: po.Run) -> None:
        first, count = self.next, len(run.contexts)
        paths, sources = self.index.columns(first, count)
        bulk = (
            paths == run.contexts
            and not self.catalog.any_listed(first, count)
            and not any(map(str.isspace, run.msgstrs))
            and _clean_already("".join(run.msgstrs))
        )
        if not bulk:
            for k, (context, msgid, msgstr, fuzzy) in enumerate(
                zip(run.contexts, run.msgids, run.msgstrs, run.fuzzy, strict=True)
            ):
                self.entry(context, msgid, msgstr, fuzzy, run.line_of(k))
            return
        stale: dict[int, str] = {}
        if run.msgids != sources:  # (list equality, in C: a run is seldom stale)
            pairs = zip(run.msgids, sources, strict=True)
            stale = {k: msgid for k, (msgid, source) in enumerate(pairs) if msgid != source}
        self.catalog.add_run(first, run.msgstrs, run.fuzzy, stale)
        self.next = first + count

    def entry(
        self, context: str | None, msgid: str, msgstr: str, fuzzy: bool, line: int, previous: str | None = None
    ) -> None:
        """One entry. ``previous``: a fuzzy entry's ``#| msgid``, the source its translation was made from, as
        ``translations update`` keeps it when the source changes: until re-translated the entry stays stale."""
        if context is None:
            self.problem(line, f"entry {msgid[:40]!r} has no msgctxt (the string's path)")
            return
        ordinal = self.index.ordinal(context)
        if ordinal is None:
            self.orphans.append((line, context))
            return
        if self.catalog.listed(ordinal):
            self.problem(line, f"msgctxt {context!r} appears more than once", path_where(context))
            return
        self.next = ordinal + 1
        if msgstr:
            trap = find_trap(msgstr)
            if trap is not None:  # (an error: the entry is not used, so it counts as missing, not reviewed)
                self.problem(line, po_message(trap), path_where(context))
                return
            try:
                msgstr = clean_text(msgstr)
            except ValueError as exc:
                self.problem(line, f"msgstr: {exc}", path_where(context))
                return
        source = self.index.string(ordinal)[1]
        translated_from = previous if previous is not None and previous != msgid else msgid
        self.catalog.add(ordinal, msgstr, fuzzy, translated_from if translated_from != source else None)

    def orphans_warning(self, shown: int = 3) -> list[Problem]:
        """Entries whose msgctxt names no string of the bank. One that is no string path at all (``../../etc/
        passwd``, a path with a key no string has) is an error: no bank ever had that string. One shaped like a
        path whose question or choice was deleted or renamed is one warning for the file: its translation is
        unused, and ``translations update`` (which reads only bank.yaml) makes it obsolete."""
        malformed = [(line, context) for line, context in self.orphans if not _STRING_PATH.match(context)]
        problems = []
        if malformed:
            named = []
            for line, context in malformed[:shown]:
                hint = difflib.get_close_matches(context, self.index.neighbours(context), n=1)
                named.append(f"{context[:60]!r} (line {line}{f', did you mean {hint[0]!r}?' if hint else ''})")
            more = f" and {len(malformed) - shown} more" if len(malformed) > shown else ""
            problems.append(
                Problem(
                    self.file,
                    malformed[0][0],
                    f"{len(malformed)} msgctxt {'names' if len(malformed) == 1 else 'name'} no string a bank can "
                    f"have: {', '.join(named)}{more}. A msgctxt is the string's path (title, q1/stem, "
                    "q1/choices/a/text …): correct it or delete the entry",
                    severity=Severity.ERROR,
                )
            )
        orphans = [(line, context) for line, context in self.orphans if _STRING_PATH.match(context)]
        if not orphans:
            return problems
        examples = []
        for line, context in orphans[:shown]:  # a few show the pattern; each hint searches the question ids
            hint = difflib.get_close_matches(context, self.index.neighbours(context), n=1)
            examples.append(f"{context!r} (line {line}{f', did you mean {hint[0]!r}?' if hint else ''})")
        count = len(orphans)
        more = f" and {count - shown} more" if count > shown else ""
        message = (
            f"{count} {'entry names' if count == 1 else 'entries name'} no string of the bank: "
            f"{', '.join(examples)}{more}. Their question or choice was deleted or renamed: run "
            "`moe-lms translations update` to make them obsolete (or correct a mistyped msgctxt); until then "
            "they are not used"
        )
        return [*problems, Problem(self.file, orphans[0][0], message, severity=Severity.WARNING)]


# What a msgctxt naming a string looks like (model.strings): anything else names no string of any bank.
_STRING_PATH = re.compile(
    r"(?:title|intro|feedback/[a-z_]+|[a-z][a-z0-9-]*/(?:stem|explanation|unit|choices/[a-z][a-z0-9-]*/(?:text|explanation)))\Z"
)


def _clean_already(text: str) -> bool:
    """Whether clean_text would leave every piece of ``text`` as it is (NFC, nothing XML cannot carry).
    One check of the joined pieces answers for all of them: joining can only hide NFC text, never non-NFC.

    Printable text (str.isprintable: no control, surrogate, unassigned or format character) has nothing
    TEXT_ILLEGAL matches, and the test costs half the regex's; the regex looks only at text with a tab or a format
    character (a zero-width joiner, a direction mark), and the test stops at the first one."""
    if not text.isprintable() and (TEXT_ILLEGAL.search(text) is not None or find_trap(text) is not None):
        return False
    return unicodedata.is_normalized("NFC", text)


def path_where(path: str) -> str | None:
    parts = path.split("/")
    if len(parts) in (3, 5) and parts[0] == "quizzes":
        return f"quiz {parts[1]!r}"
    if len(parts) >= 2 and parts[0] not in ("feedback",):
        where = f"question {parts[0]!r}"
        if len(parts) >= 4 and parts[1] == "choices":
            where += f", choice {parts[2]!r}"
        return where
    return None


def check_bank(directory: Path) -> tuple[Bank | None, list[Problem]]:
    """Load a bank directory, returning every problem found (the bank is None if bank.yaml is unusable)."""
    with gc_paused():
        found = _check_bank(directory)
    settled()  # in the console script, the bank lives as long as the command (bulk.settled)
    return found


def _check_bank(directory: Path) -> tuple[Bank | None, list[Problem]]:
    """The bank with every problem of its files. The bank is None when bank.yaml could not be read as a bank; with
    errors in bank.yaml that leave its questions whole (a quiz, an unknown locale), the PO files and the images are
    checked all the same, and the bank is returned (its errors say it is not to be exported)."""
    bank, problems, locales_known = _read_bank_yaml(bank_yaml_path(directory))
    catalogs = sorted((directory / LOCALES_DIR).glob("*.po")) if (directory / LOCALES_DIR).is_dir() else []
    if bank is None or not locales_known:
        if catalogs:
            message = (
                f"{len(catalogs)} PO file(s) not checked: the translations are read against a bank.yaml without "
                "errors; fix the errors above and run check again"
            )
            problems.append(Problem(display_path(directory / LOCALES_DIR), None, message, severity=Severity.NOTE))
        if bank is not None:  # (its images: an unknown locale tag changes nothing in them)
            problems += rich_content_problems(directory, bank)[1]
        return None, problems
    translations: dict[str, Mapping[str, Translation]] = {}
    index = StringIndex(bank)
    for path in catalogs:
        locale = path.stem
        if locale not in bank.target_locales:
            problems.append(
                Problem(
                    display_path(path),
                    None,
                    messages.locale_not_targeted(locale),
                    severity=Severity.ERROR,
                )
            )
            continue
        catalog, found = read_catalog(path, bank, locale, index)
        problems.extend(found)
        problems.extend(_template_translation_problems(path, bank, locale, catalog))
        if catalog:
            translations[locale] = catalog
    page_words, found = _page_words(directory, bank)
    problems.extend(found)
    bank = bank.model_copy(update={"translations": translations, "page_words": page_words})
    media, found = rich_content_problems(directory, bank)
    problems.extend(found)
    return bank.model_copy(update={"media": media}) if media else bank, problems


def _page_words(directory: Path, bank: Bank) -> tuple[dict[str, Any], list[Problem]]:
    """The bank's own page words (locales/page/<locale>.po), each file of a locale the bank has."""
    folder = directory / LOCALES_DIR / "page"  # (pagewords.BANK_DIR: imported only for a bank that has one)
    if not folder.is_dir():
        return {}, []
    from . import pagewords

    catalogs, problems = pagewords.read_bank_catalogs(directory, display_path(folder))
    for locale in list(catalogs):
        if locale not in bank.locales:
            problems.append(
                Problem(
                    f"{display_path(folder)}/{locale}.po",
                    None,
                    f"page words for {locale!r}, which is neither the bank's source_locale nor in its target_locales: "
                    f"add {locale} to target_locales: in bank.yaml, or delete this file",
                )
            )
            del catalogs[locale]
    return dict(catalogs), problems


def _template_translation_problems(
    po_file: Path, bank: Bank, locale: str, catalog: Mapping[str, Translation]
) -> list[Problem]:
    """A translation of a parameterised question's text keeps the source's placeholders (moe_lms.variants)."""
    from . import variants

    if not variants.has_variants(bank):
        return []
    return [
        Problem(display_path(po_file), po_line(po_file, path), message, path_where(path))
        for path, message in variants.translation_problems(bank, locale, catalog)
    ]


def _rich_strings(bank: Bank) -> Iterator[tuple[str, str]]:
    """The bank's strings that may hold math or an image (the paths of the others are never built)."""
    for path, text in bank_strings(bank):
        if "$" in text or "![" in text:
            yield path, text
    for q in bank.questions:
        if any("$" in text or "![" in text for text in question_sources(q)):
            for path, text in question_strings(q):
                if "$" in text or "![" in text:
                    yield path, text


def rich_content_problems(directory: Path, bank: Bank) -> tuple[dict[str, MediaItem], list[Problem]]:
    """Load the images the bank's text (source and translations) refers to, and check every formula and image:
    each problem with its file, line and question (see moe_lms.media and moe_lms.richtext). Every string is looked
    at: none is skipped on a guess from bank.yaml's text."""
    from . import media as media_module
    from .richtext import formula_problem

    loaded: dict[str, MediaItem] = {}
    refused: dict[str, str] = {}
    max_bytes = bank.media_max_kib * 1024

    def problems_of(text: str) -> list[str]:
        found = []
        if "$" in text:
            formula = formula_problem(text)
            if formula is not None:
                found.append(formula)
        for ref in media_module.image_references(text):
            if not ref.alt.strip():
                found.append(f"image {ref.path!r} has no alt text: say what it shows (for screen readers)")
            try:
                key = media_module.bank_relative(ref.path)
            except media_module.MediaError as exc:
                found.append(str(exc))
                continue
            if key not in loaded and key not in refused:
                try:
                    loaded[key] = media_module.read_media(directory, key, max_bytes)
                except media_module.MediaError as exc:
                    refused[key] = str(exc)
            if key in refused:
                found.append(refused[key])
        return found

    problems: list[Problem] = []
    yaml_file = bank_yaml_path(directory)
    lines: YamlLines | None = None
    numbers: dict[str, int] = {}
    for path, source in _rich_strings(bank):
        for message in problems_of(source):
            if lines is None:
                lines, numbers = YamlLines(yaml_file), {q.id: n for n, q in enumerate(bank.questions)}
            line, column = lines.locate(yaml_path(bank, numbers, path))
            problems.append(
                Problem(display_path(yaml_file), line, f"{describe(path)}: {message}", path_where(path), column)
            )
    for locale, catalog in bank.translations.items():
        po_file = directory / LOCALES_DIR / f"{locale}.po"
        if isinstance(catalog, PackedCatalog):  # (a large bank: one scan of the packed text, not every entry)
            rich = [catalog.index.string(o)[0] for o in catalog.ordinals_holding(b"$", b"![")]
            translated = ((path, catalog[path].text) for path in rich)
        else:
            translated = ((path, t.text) for path, t in catalog.items())
        for path, text in translated:
            if not text or ("$" not in text and "![" not in text):
                continue
            for message in problems_of(text):
                where = f"the {locale} translation of {describe(path)}"
                problems.append(
                    Problem(display_path(po_file), po_line(po_file, path), f"{where}: {message}", path_where(path))
                )
    return loaded, problems


def rendering_problems(directory: Path, bank: Bank) -> list[Problem]:
    """Text that renders to nothing once sanitised (only a comment), in the source or in a
    translation: every export refuses it, so ``moe-lms check`` names it first. Slower than loading (every text is
    rendered), so only ``check`` runs it."""
    from .text import markdown_renders_blank, render_block

    def renders_to_nothing(path: str, text: str) -> bool:
        return markdown_renders_blank(text, inline=path == "title" or path.endswith("/text"))

    problems: list[Problem] = []
    yaml_file = bank_yaml_path(directory)
    lines = YamlLines(yaml_file)
    numbers = {q.id: n for n, q in enumerate(bank.questions)}
    for path, source in strings(bank):
        if renders_to_nothing(path, source):
            line, column = lines.locate(yaml_path(bank, numbers, path))
            message = f"{describe(path)} renders to no text at all (only markup the sanitiser removes)"
            problems.append(Problem(display_path(yaml_file), line, message, path_where(path), column))
        elif (
            not (path == "title" or path.endswith("/text"))
            and MAYBE_ORDERED_LIST.search(source)
            and LIST_START.search(render_block(source))
        ):
            line, column = lines.locate(yaml_path(bank, numbers, path))
            message = (
                f"{describe(path)} has a numbered list that does not start at 1; QTI 2.1 lists have no start "
                "number, so QTI packages (and Canvas imports of them) number it from 1"
            )
            problems.append(
                Problem(display_path(yaml_file), line, message, path_where(path), column, severity=Severity.WARNING)
            )
    for locale, catalog in bank.translations.items():
        bad = [path for path, text in _translated_texts(catalog, bank) if renders_to_nothing(path, text)]
        po_file = directory / LOCALES_DIR / f"{locale}.po"
        for path in bad:
            message = f"the {locale} translation of {describe(path)} renders to no text at all"
            problems.append(Problem(display_path(po_file), po_line(po_file, path), message, path_where(path)))
    return problems


LIST_START = re.compile(r'<ol start="(?!1")')
# What Markdown needs to make an <ol>: a list number ("3." or "3)") or the tag written as HTML. Text without either
# is not rendered a second time to look for one.
MAYBE_ORDERED_LIST = re.compile(r"\d[.)]|<ol\b", re.IGNORECASE)


def _translated_texts(catalog: Mapping[str, Translation], bank: Bank) -> Iterator[tuple[str, str]]:
    """(path, text) of every translation of a catalog, in bank order; a packed catalog's without building a
    Translation for each (what ``catalog.items()`` does, the reference this is tested against)."""
    if not (isinstance(catalog, PackedCatalog) and catalog.index.questions is bank.questions):
        yield from ((path, t.text) for path, t in catalog.items())
        return
    for ordinal, (path, source) in enumerate(strings(bank)):
        found = catalog.text_and_source(ordinal, source)
        if found is not None:
            yield path, found[0]


# What importers write where the file had no explanation (formats.moodle.NO_EXPLANATION), and the usual
# stand-ins people type: an explanation that is only one of these teaches nothing.
_PLACEHOLDER = re.compile(r"^\s*(?:(?:TODO|FIXME|TBD|XXX)\b.*|[-.?…_\s]*)$", re.DOTALL | re.IGNORECASE)


def placeholder_problems(directory: Path, bank: Bank, *, strict: bool = False) -> list[Problem]:
    """Explanations that are a placeholder (``TODO: …``, as importers write them, ``TBD``, ``...``): a warning,
    an error when ``strict``. Only ``check`` runs it."""
    problems: list[Problem] = []
    yaml_file = bank_yaml_path(directory)
    lines = YamlLines(yaml_file)
    numbers = {q.id: n for n, q in enumerate(bank.questions)}
    severity = Severity.ERROR if strict else Severity.WARNING
    for path, source in strings(bank):
        if path.endswith("/explanation") and _PLACEHOLDER.match(source):
            line, column = lines.locate(yaml_path(bank, numbers, path))
            message = f"the explanation is a placeholder ({source.strip()[:40]!r}): write the real one"
            if strict:
                message += " (--strict)"
            problems.append(Problem(display_path(yaml_file), line, message, path_where(path), column, severity))
    return problems


def describe(path: str) -> str:
    """'q1/choices/a/text' -> 'the text', 'q1/stem' -> 'the stem', 'feedback/correct' -> 'the correct feedback'."""
    parts = path.split("/")
    if parts[0] == "feedback":
        return f"the bank's {parts[1].replace('_', ' ')} feedback"
    if len(parts) == 1:
        return f"the bank {parts[0]}"
    if parts[0] == "quizzes" and len(parts) in (3, 5):
        return f"the quiz {parts[2]}" if len(parts) == 3 else f"the title of section {parts[3]!r}"
    return f"the {parts[-1]}"


def yaml_path(bank: Bank, numbers: dict[str, int], path: str) -> tuple[str | int, ...]:
    parts = path.split("/")
    if len(parts) == 1 or parts[0] == "feedback":
        return tuple(parts)
    if len(parts) in (3, 5) and parts[0] == "quizzes":  # quizzes/<quiz>/<field>, …/sections/<section>/title
        quiz_number = next(i for i, z in enumerate(bank.quizzes) if z.id == parts[1])
        if len(parts) == 3:
            return ("quizzes", quiz_number, parts[2])
        section = next(i for i, s in enumerate(bank.quizzes[quiz_number].sections) if s.id == parts[3])
        return ("quizzes", quiz_number, "sections", section, parts[4])
    number = numbers[parts[0]]
    if parts[1] != "choices":
        return ("questions", number, parts[1])
    choice = next(j for j, c in enumerate(bank.questions[number].choices) if c.id == parts[2])
    return ("questions", number, "choices", choice, parts[3])


def po_line(po_file: Path, path: str) -> int | None:
    """The line of the entry for ``path`` (found again only when there is something to report)."""
    wanted = f'msgctxt "{path}"'
    with po_file.open(encoding=TEXT_ENCODING) as stream:
        for number, line in enumerate(stream, start=1):
            if line.strip() == wanted:
                return number
    return None


def load_bank(directory: Path) -> Bank:
    """Load a bank directory or raise ProblemsFound with every error in it."""
    bank, problems = check_bank(directory)
    errors = [p for p in problems if p.severity is Severity.ERROR]
    if bank is None or errors:
        raise ProblemsFound(errors or problems)
    return bank


# --- writing -------------------------------------------------------------------------------------------------


def bank_yaml(bank: Bank) -> str:
    """bank.yaml text for a bank (defaults left out, so hand edits stay small).

    yaml_rs (0.1.6) writes some strings plain that its own reader takes for numbers (``0_``, ``1_000``, ``0o7``,
    ``_1``): a bank holding such a string, which would not read back as itself, is written by PyYAML instead, told
    to quote them. Only a string that looks like a number is a reason to compare, so most banks are dumped once."""
    data = bank.model_dump(mode="json", exclude_defaults=True, exclude={"translations"}, by_alias=True)
    data = {"id": bank.id, **data}
    text = str(yaml_rs.dumps(data))
    if any(_NUMBER_LIKE.fullmatch(value) for value in _strings_in(data)) and yaml_rs.loads(text) != data:
        text = _quoting_dump(data)
    return text


def _quoting_dump(data: object) -> str:
    """YAML whose number-like strings are quoted (and multi-line ones literal blocks), by PyYAML."""
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    def string(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        style = '"' if _NUMBER_LIKE.fullmatch(value) else "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, string)
    return str(yaml.dump(data, Dumper=Dumper, allow_unicode=True, sort_keys=False, width=120))


_NUMBER_LIKE = re.compile(r"[-+]?[0-9_.][0-9a-fA-FxXoObB_.:]*")


def _strings_in(data: object) -> Iterator[str]:
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from _strings_in(value)
    elif isinstance(data, list):
        for value in data:
            yield from _strings_in(value)


def catalog_entries(bank: Bank, locale: str) -> list[po.CatalogEntry]:
    """The PO entries that represent a bank's translations for a locale exactly (stale ones keep their old msgid)."""
    from . import po  # Babel's catalog classes: imported when a PO file is read or written

    catalog = bank.translations.get(locale, {})
    entries = []
    for path, source in strings(bank):
        t = catalog.get(path)
        if t is None:
            entries.append(po.CatalogEntry(path, source))
        else:
            entries.append(po.CatalogEntry(path, t.source, t.text, t.draft))
    return entries


def save_bank(
    bank: Bank, directory: Path, *, bank_file: bool = True, locales: Sequence[str] | None = None
) -> list[Path]:
    """Write bank.yaml and one PO file per target locale, each atomically. Returns the files written.

    ``bank_file=False`` leaves bank.yaml as it is, and ``locales`` names the only catalogs to write (for a merge
    that changed only some of them)."""
    from . import po  # Babel's catalog classes: imported when a PO file is read or written
    from .media import bank_relative

    catalogs = [
        directory / LOCALES_DIR / f"{locale}.po" for locale in (bank.target_locales if locales is None else locales)
    ]
    images = [(directory / bank_relative(item.path), item.data) for item in bank.media.values()]
    for path in [bank_yaml_path(directory), *catalogs, *(path for path, _ in images)]:
        inside(path, directory)  # (every path checked before the first is written: a refusal changes nothing)
    written = []
    if bank_file:
        written.append(bank_yaml_path(directory))
        write_atomic(written[0], bank_yaml(bank).encode("utf-8"), within=directory, parents=True)
    for path in catalogs:
        locale = path.stem
        write_atomic(
            path,
            po.write_catalog(catalog_entries(bank, locale), locale=locale, project=bank.id),
            within=directory,
            parents=True,
        )
        written.append(path)
    for path, data in images:  # images (an imported file's embedded ones), each where its text says
        write_atomic(path, data, within=directory, parents=True)
        written.append(path)
    return written


def update_catalogs(
    directory: Path, bank: Bank, glossary_comments: Callable[[str, str], Sequence[str]] | None = None
) -> dict[str, dict[str, int]]:
    """Re-sync every target locale's PO file with the bank's source strings (msgmerge semantics).

    ``glossary_comments(locale, source)`` gives the ``#. glossary:`` lines of an entry. Translator comments and
    the file's header comment are kept. Returns per locale how many entries were added, marked fuzzy because
    their source changed, and made obsolete.
    """
    from . import po  # Babel's catalog classes: imported when a PO file is read or written

    current = list(strings(bank))
    report: dict[str, dict[str, int]] = {}
    catalogs: dict[str, po.PoFile] = {}
    problems: list[Problem] = []
    for locale in bank.target_locales:  # every file is read before any is written: a broken one changes nothing
        path = directory / LOCALES_DIR / f"{locale}.po"
        try:
            text = path.read_text(encoding=TEXT_ENCODING) if path.exists() else ""
            catalogs[locale] = po.read_po(text) if text else po.PoFile({}, [])
        except po.PoSyntaxError as exc:
            problems.append(Problem(display_path(path), exc.line, f"PO syntax error: {exc.message}"))
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(Problem(display_path(path), None, f"cannot read: {exc}"))
    if problems:
        raise ProblemsFound(problems)
    for locale in catalogs:  # (every path checked before the first is written: a refusal changes nothing)
        inside(directory / LOCALES_DIR / f"{locale}.po", directory)
    for locale, existing in catalogs.items():
        path = directory / LOCALES_DIR / f"{locale}.po"
        old = existing.entries
        extracted = partial(glossary_comments, locale) if glossary_comments else None
        merged = po.merge(old, current, extracted)
        before = {e.context: e for e in old if not e.obsolete}
        report[locale] = {
            "added": sum(1 for m in merged if not m.obsolete and m.context not in before),
            "fuzzy": sum(
                1 for m in merged if not m.obsolete and m.context in before and m.msgid != before[m.context].msgid
            ),
            "obsolete": sum(1 for m in merged if m.obsolete and m.context in before),
        }
        header_comment = "\n".join(existing.header_comments) or None  # (the owner's words about the file stay)
        catalog = po.write_catalog(merged, locale=locale, project=bank.id, header_comment=header_comment)
        write_atomic(path, catalog, within=directory, parents=True)
    return report
