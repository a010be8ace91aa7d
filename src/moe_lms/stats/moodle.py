"""Moodle's quiz Responses report, as its download (CSV) gives it: mod/quiz/report/responses in Moodle 4.5.

The download has a row per attempt: ``Last name``, ``First name``, the site's identity fields (``Email address``
by default), ``Status``, ``Started``, ``Completed``, ``Duration``, ``Grade/…``, then per slot ``Question N`` (with
the report's *Question text* option), ``Response N`` and, optionally, ``Right answer N``
(mod/quiz/report/responses/report.php, last_responses_table.php). A Question cell is the question's summary,
``stem: choice; choice; …`` in the order shown (qtype_multichoice_question::get_question_summary); a Response cell is
the chosen choice's text, several joined by ``; `` (summarise_response), ``-`` when none. Both are plain text
(question_utils::to_plain_text), so questions and choices are mapped by text, per locale, which also says the
attempt's locale. Rows of attempts not finished (``In progress``, ``Overdue``, ``Never submitted``) are left out,
as Moodle's own statistics report does.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from ..model import Bank
from .mapping import TextIndex
from .results import MAX_ROWS, Attempt, Collector, Response, check_size

_COLUMN = re.compile(r"^(Question|Response|Right answer) (\S+)$")
NOT_FINISHED = {"In progress", "Overdue", "Never submitted", "Not yet started"}
MAX_FIELD = 1 << 20  # characters in one cell (a long question summary)


def read_moodle(data: bytes, file: str, bank: Bank, locale: str | None) -> list[Attempt]:
    """The finished attempts of a Responses report download: CSV, or the JSON download (``download=json``,
    dataformat/json: a list of sheets, each a list of records keyed by the lower-cased, alphanumeric headers)."""
    check_size(file, len(data))
    problems = Collector(file)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        problems.add(None, f"is not UTF-8 (byte {exc.start:,})")
        problems.done()
        return []
    if text.lstrip().startswith("["):
        header, rows = _json_table(text, problems)
    else:
        csv.field_size_limit(MAX_FIELD)
        reader = csv.reader(io.StringIO(text, newline=""))
        try:
            header = [h.strip() for h in next(reader)]
        except (StopIteration, csv.Error):
            problems.add(1, "is empty or not CSV: the Responses report's download begins with a header row")
            problems.done()
            return []
        rows = _csv_rows(reader, problems)
    return _read_table(header, rows, file, bank, locale, problems)


Row = tuple[int | None, str | None, list[str]]  # (line, or None; where, for a JSON record; the cells)


def _csv_rows(reader: Any, problems: Collector) -> Iterator[Row]:
    try:
        for row in reader:
            yield reader.line_num, None, row
    except csv.Error as exc:
        problems.add(reader.line_num, f"unreadable CSV: {exc}")


# The JSON download's keys (clean_param(header, PARAM_ALPHANUMEXT), lower-cased) back to the CSV's headers.
_JSON_KEYS = {
    "lastname": "Last name",
    "firstname": "First name",
    "emailaddress": "Email address",
    "username": "Username",
    "idnumber": "ID number",
    "status": "Status",
    "state": "State",
    "started": "Started",
    "startedon": "Started on",
}
_JSON_SLOT = re.compile(r"^(question|response|rightanswer)(\S+)$")
_JSON_NAMES = {"question": "Question", "response": "Response", "rightanswer": "Right answer"}


def _json_table(text: str, problems: Collector) -> tuple[list[str], Iterator[Row]]:
    try:
        sheets = json.loads(text)
    except (ValueError, RecursionError) as exc:
        problems.add(None, f"not JSON: {exc}")
        problems.done()
        return [], iter(())
    records = sheets[0] if isinstance(sheets, list) and sheets and isinstance(sheets[0], list) else None
    if records is None or not all(isinstance(r, dict) for r in records):
        problems.add(None, "not Moodle's JSON download: a list of sheets, each a list of records")
        problems.done()
        return [], iter(())
    keys = list(records[0]) if records else []
    header = []
    for key in keys:
        slot = _JSON_SLOT.match(key)
        header.append(f"{_JSON_NAMES[slot[1]]} {slot[2]}" if slot else _JSON_KEYS.get(key, key))

    def rows() -> Iterator[Row]:
        for n, record in enumerate(records, 1):
            yield None, f"record {n}", ["" if record.get(k) is None else str(record.get(k)) for k in keys]

    return header, rows()


def _read_table(
    header: list[str], rows: Iterable[Row], file: str, bank: Bank, locale: str | None, problems: Collector
) -> list[Attempt]:
    slots: dict[str, dict[str, int]] = {}
    for i, name in enumerate(header):
        match = _COLUMN.match(name)
        if match:
            slots.setdefault(match[2], {})[match[1]] = i
    if not slots:
        problems.add(1, "no 'Question N' or 'Response N' columns: is this the quiz Responses report's download?")
        problems.done()
    if any("Question" not in s for s in slots.values()):
        problems.add(
            1,
            "the download has Response columns without Question ones: in the Responses report, tick 'Question text' "
            "under 'What to include in the report' and download again (moe-lms maps each answer by its question)",
        )
        problems.done()
    index = TextIndex(bank)
    learner_at = next((header.index(h) for h in ("Email address", "Username", "ID number") if h in header), None)
    names = [header.index(h) for h in ("First name", "Last name") if h in header]
    status_at = next((header.index(h) for h in ("Status", "State") if h in header), None)
    started_at = next((header.index(h) for h in ("Started", "Started on") if h in header), None)
    attempts: list[Attempt] = []
    for count, (line, where, row) in enumerate(rows, 1):
        if count > MAX_ROWS:
            problems.add(line, f"more than {MAX_ROWS:,} rows: a results file is read up to that")
            break
        if not row or len(row) < len(header):
            if any(cell.strip() for cell in row):
                problems.add(line, f"has {len(row)} column(s), the header {len(header)}", where)
            continue
        if status_at is not None and row[status_at].strip() in NOT_FINISHED:
            continue
        attempt = _attempt(row, line, where, file, slots, index, locale, problems)
        if attempt is None:
            continue
        place = f"row {line}" if line is not None else where
        learner = row[learner_at].strip() if learner_at is not None else " ".join(row[i].strip() for i in names)
        attempt.learner = learner or str(place)
        attempt.attempt = f"{row[started_at].strip() if started_at is not None else ''} ({place})"
        attempts.append(attempt)
    problems.done()
    return attempts


def _attempt(
    row: list[str],
    line: int | None,
    where: str | None,
    file: str,
    slots: dict[str, dict[str, int]],
    index: TextIndex,
    locale: str | None,
    problems: Collector,
) -> Attempt | None:
    """One row's attempt (learner and attempt filled in by the caller), or None when it has none or a problem."""
    found: list[tuple[str, list[str], str]] = []  # (slot, candidate locales, ...) per answered slot
    entries = {}
    for slot, columns in slots.items():
        summary = row[columns["Question"]].strip()
        if summary in ("", "-"):
            continue
        candidates = index.questions(summary)
        if locale is not None:
            candidates = [e for e in candidates if e.locale == locale]
        if not candidates:
            in_locale = f" in {locale}" if locale else ""
            problems.add(
                line, f"question {slot}: {summary[:80]!r} is no question of bank {index.bank}{in_locale}", where
            )
            return None
        entries[slot] = {e.locale: e for e in candidates}
        found.append((slot, [e.locale for e in candidates], summary))
    if not found:
        return None
    common = set(found[0][1]).intersection(*(set(f[1]) for f in found[1:]))
    if not common:
        locales = ", ".join(f"{s} in {'/'.join(c)}" for s, c, _ in found)
        problems.add(line, f"its questions are in different locales: {locales}", where)
        return None
    if len(common) > 1:
        problems.add(
            line,
            f"cannot tell its locale: its texts read the same in {', '.join(sorted(common))} (give --locale)",
            where,
        )
        return None
    (attempt_locale,) = common
    attempt = Attempt("", "", attempt_locale, f"{file}:{line}" if line is not None else f"{file} {where}")
    for slot, _, _ in found:
        entry = entries[slot][attempt_locale]
        if entry.question in attempt.responses:
            problems.add(line, f"question {slot} is question {entry.question!r} again", where)
            return None
        answer = row[slots[slot]["Response"]].strip() if "Response" in slots[slot] else None
        if answer is None:
            attempt.responses[entry.question] = Response(entry.question, None)  # (no response column: not counted)
            continue
        if answer in ("", "-"):
            attempt.responses[entry.question] = Response(entry.question, frozenset())
            continue
        chosen = index.choices(entry, answer, "; ")
        if isinstance(chosen, str):
            problems.add(line, f"response {slot}: {chosen}", where)
            return None
        attempt.responses[entry.question] = Response(entry.question, chosen)
    return attempt
