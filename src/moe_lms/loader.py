"""Bank directories on disk: ``bank.yaml`` plus ``locales/<tag>.po``, to and from the model.

Loading is fast on the good path (yaml-rs, our PO reader, one pydantic pass per question) and precise on the
bad path: only when something is wrong is the YAML composed again with PyYAML to find the line of each error.
Every problem of a run is collected and reported together.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
import yaml_rs
from pydantic import ValidationError

from . import po
from .bulk import gc_paused
from .files import write_atomic
from .model import Bank, Choice, Feedback, Question, Translation, clean_text, strings
from .problems import Problem, ProblemsFound, Severity

BANK_FILE = "bank.yaml"
LOCALES_DIR = "locales"

_KNOWN_KEYS = sorted(
    set(Bank.model_fields) | set(Question.model_fields) | set(Choice.model_fields) | set(Feedback.model_fields)
)


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


class _YamlLines:
    """Finds the line of a node by its path, composing the document only when first asked."""

    def __init__(self, path: Path) -> None:
        self._path = path  # read again only if an error needs a line: a large bank's text is not kept
        self._root: yaml.Node | None = None
        self._failed = False

    def root(self) -> yaml.Node | None:
        if self._root is None and not self._failed:
            try:
                self._root = yaml.compose(self._path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
            except (yaml.YAMLError, OSError, UnicodeDecodeError):
                self._failed = True
        return self._root

    def locate(self, path: Sequence[str | int], *, key: bool = False) -> tuple[int | None, int | None]:
        """1-based (line, column) of the value at ``path``, or of its key when ``key``; the nearest parent if absent."""
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

    def duplicate_key(self) -> tuple[str, int, int] | None:
        """The first mapping key used twice, with its second line and column (yaml-rs names no place)."""
        stack = [self.root()]
        while stack:
            node = stack.pop()
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


@dataclass
class _Collector:
    file: str
    lines: _YamlLines
    problems: list[Problem] = field(default_factory=list)

    def add(self, path: Sequence[str | int], message: str, where: str | None, *, key: bool = False) -> None:
        line, column = self.lines.locate(path, key=key)
        self.problems.append(Problem(self.file, line, message, where, column))


def _where(raw_questions: list[Any], loc: Sequence[str | int]) -> str | None:
    """Name the question (and choice) an error is in, by id when the raw data has one."""
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


def _report(collector: _Collector, exc: ValidationError, base: tuple[str | int, ...], raw_questions: list[Any]) -> None:
    for err in exc.errors(include_url=False):
        loc = base + tuple(err["loc"])
        ctx = err.get("ctx") or {}
        if "loc" in ctx:
            loc = loc + tuple(ctx["loc"])
        kind = err["type"]
        name = str(loc[-1]) if loc else "bank"
        if kind == "extra_forbidden":
            hint = difflib.get_close_matches(name, _KNOWN_KEYS, n=1)
            message = f"unknown key {name!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
            collector.add(loc, message, _where(raw_questions, loc), key=True)
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
        collector.add(loc, message, _where(raw_questions, loc))


def _stand_in(question_id: str | None, index: int) -> Question:
    choices = [
        {"id": "a", "text": "-", "explanation": "-", "correct": True},
        {"id": "b", "text": "-", "explanation": "-"},
    ]
    for qid in (question_id, f"invalid-question-{index}"):
        try:
            return Question.model_validate({"id": qid, "stem": "-", "explanation": "-", "choices": choices})
        except ValidationError:
            continue
    raise AssertionError("unreachable: the second id is always valid")


def read_bank_yaml(path: Path) -> tuple[Bank | None, list[Problem]]:
    """Read and validate bank.yaml alone; the bank is None when it has errors."""
    file = _display(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        return None, [Problem(file, None, f"cannot read: {exc.strerror or exc}")]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, [Problem(file, line, f"not UTF-8: byte 0x{data[exc.start]:02x} cannot be decoded")]
    del data
    lines = _YamlLines(path)
    collector = _Collector(file, lines)
    try:
        raw = yaml_rs.loads(text, parse_datetime=False)
        del text
    except yaml_rs.YAMLDecodeError as exc:
        message = str(exc).strip()
        where = re.search(r"line (\d+), column (\d+)", message)
        if where:
            first = message.splitlines()[-1].strip()
            return None, [Problem(file, int(where[1]), f"YAML syntax error: {first}", column=int(where[2]))]
        dup = lines.duplicate_key() if "duplicate" in message else None
        if dup:
            return None, [Problem(file, dup[1], f"key {dup[0]!r} appears twice in the same mapping", column=dup[2])]
        return None, [Problem(file, None, f"YAML error: {message}")]
    if not isinstance(raw, dict):
        return None, [Problem(file, 1, "bank.yaml must be a mapping with id, title and questions")]
    raw_questions = raw.get("questions")
    if not isinstance(raw_questions, list):
        collector.add(("questions",), "questions: must be a list of questions", None)
        raw_questions = []
    questions: list[Question] = []
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
            questions.append(_stand_in(rid if isinstance(rid, str) else None, index))
    header = {k: v for k, v in raw.items() if k not in ("questions", "translations")}
    if "translations" in raw:
        collector.add(("translations",), "unknown key 'translations' (translations live in locales/*.po)", None)
    try:
        bank = Bank.model_validate({**header, "questions": questions})
    except ValidationError as exc:
        _report(collector, exc, (), raw_questions)
    if not valid or collector.problems:
        return None, collector.problems
    return bank, []


def read_catalog(
    path: Path, bank: Bank, locale: str, known: dict[str, tuple[str, str]] | None = None
) -> tuple[dict[str, Translation], list[Problem]]:
    """One locale's translations from its PO file, with a problem for every entry that names no string.

    ``known`` maps each string path of the bank to (path, source text); passing it in shares those strings
    between locales instead of keeping a copy per catalog.
    """
    file = _display(path)
    if known is None:
        known = {p: (p, s) for p, s in strings(bank)}
    problems: list[Problem] = []
    catalog: dict[str, Translation] = {}
    seen: set[str] = set()
    try:
        with path.open(encoding="utf-8") as stream:
            for index, e in enumerate(po.iter_po(stream)):
                if index == 0 and e.context is None and e.msgid == "":
                    language = po.parse_header(e.msgstr).get("Language")
                    if language and language.replace("-", "_") != locale:
                        problems.append(
                            Problem(file, e.line, f"header says Language: {language}, but the file name says {locale}")
                        )
                    continue
                if e.obsolete:
                    continue
                problem = _catalog_entry(e, known, catalog, seen, file)
                if problem is not None:
                    problems.append(problem)
    except po.PoSyntaxError as exc:
        return {}, [*problems, Problem(file, exc.line, f"PO syntax error: {exc.message}")]
    except (OSError, UnicodeDecodeError) as exc:
        return {}, [Problem(file, None, f"cannot read: {exc}")]
    return catalog, problems


def _catalog_entry(
    e: po.PoEntry,
    known: dict[str, tuple[str, str]],
    catalog: dict[str, Translation],
    seen: set[str],
    file: str,
) -> Problem | None:
    """Add one PO entry to the catalog, or say what is wrong with it."""
    if e.context is None:
        return Problem(file, e.line, f"entry {e.msgid[:40]!r} has no msgctxt (the string's path)")
    hit = known.get(e.context)
    if hit is None:
        hint = difflib.get_close_matches(e.context, known, n=1)
        return Problem(
            file,
            e.line,
            f"msgctxt {e.context!r} names no string of the bank" + (f" (did you mean {hint[0]!r}?)" if hint else ""),
            where=_path_where(e.context),
        )
    if e.context in seen:
        return Problem(file, e.line, f"msgctxt {e.context!r} appears more than once", where=_path_where(e.context))
    seen.add(hit[0])
    if not e.msgstr:
        return None
    key, source = hit
    if e.msgid != source:  # stale; otherwise share the bank's string instead of keeping a copy
        source = e.msgid
    try:
        text = clean_text(e.msgstr)
    except ValueError as exc:
        return Problem(file, e.line, f"msgstr: {exc}", where=_path_where(e.context))
    catalog[key] = Translation(text, source, e.fuzzy)
    return None


def _path_where(path: str) -> str | None:
    parts = path.split("/")
    if len(parts) >= 2 and parts[0] not in ("feedback",):
        where = f"question {parts[0]!r}"
        if len(parts) >= 4 and parts[1] == "choices":
            where += f", choice {parts[2]!r}"
        return where
    return None


def check_bank(directory: Path) -> tuple[Bank | None, list[Problem]]:
    """Load a bank directory, returning every problem found (the bank is None if bank.yaml is unusable)."""
    with gc_paused():
        return _check_bank(directory)


def _check_bank(directory: Path) -> tuple[Bank | None, list[Problem]]:
    bank, problems = read_bank_yaml(directory / BANK_FILE)
    if bank is None:
        return None, problems
    translations: dict[str, dict[str, Translation]] = {}
    known = {p: (p, s) for p, s in strings(bank)}
    locales_dir = directory / LOCALES_DIR
    for path in sorted(locales_dir.glob("*.po")) if locales_dir.is_dir() else []:
        locale = path.stem
        if locale not in bank.target_locales:
            problems.append(
                Problem(
                    _display(path),
                    None,
                    f"locale {locale!r} is not in the bank's target_locales",
                    severity=Severity.ERROR,
                )
            )
            continue
        catalog, found = read_catalog(path, bank, locale, known)
        problems.extend(found)
        if catalog:
            translations[locale] = catalog
    return bank.model_copy(update={"translations": translations}), problems


def load_bank(directory: Path) -> Bank:
    """Load a bank directory or raise ProblemsFound with every error in it."""
    bank, problems = check_bank(directory)
    errors = [p for p in problems if p.severity is Severity.ERROR]
    if bank is None or errors:
        raise ProblemsFound(errors or problems)
    return bank


# --- writing -------------------------------------------------------------------------------------------------


def bank_yaml(bank: Bank) -> str:
    """bank.yaml text for a bank (defaults left out, so hand edits stay small)."""
    data = bank.model_dump(mode="json", exclude_defaults=True, exclude={"translations"})
    data = {"id": bank.id, **data}
    return str(yaml_rs.dumps(data))


def catalog_entries(bank: Bank, locale: str) -> list[po.CatalogEntry]:
    """The PO entries that represent a bank's translations for a locale exactly (stale ones keep their old msgid)."""
    catalog = bank.translations.get(locale, {})
    entries = []
    for path, source in strings(bank):
        t = catalog.get(path)
        if t is None:
            entries.append(po.CatalogEntry(path, source))
        else:
            entries.append(po.CatalogEntry(path, t.source, t.text, t.draft))
    return entries


def save_bank(bank: Bank, directory: Path) -> list[Path]:
    """Write bank.yaml and one PO file per target locale, each atomically. Returns the files written."""
    written = [directory / BANK_FILE]
    write_atomic(written[0], bank_yaml(bank).encode("utf-8"))
    for locale in bank.target_locales:
        path = directory / LOCALES_DIR / f"{locale}.po"
        write_atomic(path, po.write_catalog(catalog_entries(bank, locale), locale=locale, project=bank.id))
        written.append(path)
    return written


def update_catalogs(directory: Path, bank: Bank) -> dict[str, dict[str, int]]:
    """Re-sync every target locale's PO file with the bank's source strings (msgmerge semantics).

    Returns per locale how many entries were added, marked fuzzy because their source changed, and made obsolete.
    """
    current = list(strings(bank))
    report: dict[str, dict[str, int]] = {}
    for locale in bank.target_locales:
        path = directory / LOCALES_DIR / f"{locale}.po"
        old = po.read_po(path.read_text(encoding="utf-8")).entries if path.exists() else []
        merged = po.merge(old, current)
        before = {e.context: e for e in old if not e.obsolete}
        report[locale] = {
            "added": sum(1 for m in merged if not m.obsolete and m.context not in before),
            "fuzzy": sum(
                1 for m in merged if not m.obsolete and m.context in before and m.msgid != before[m.context].msgid
            ),
            "obsolete": sum(1 for m in merged if m.obsolete and m.context in before),
        }
        write_atomic(path, po.write_catalog(merged, locale=locale, project=bank.id))
    return report
