"""Canvas's *Student Analysis* quiz report, as its CSV: read from the API by ``lms/canvas_results.py`` (which knows
each question's id from the push's markers), or from a file a teacher downloaded (questions then mapped by their
text, which also gives the quiz's locale).

canvas-lms app/models/quizzes/quiz_statistics/student_analysis.rb ``to_csv``: ``name, id, [sis_id], [root_account],
section, section_id, [section_sis_id], submitted, [attempt]``, then per question ``<question id>: <question text
without tags>`` and a column headed by its points, then ``n correct, n incorrect, score``. A multiple-choice answer
is the chosen answer's text; multiple answers are the chosen texts joined by ``,`` (a comma inside one as ``\\,``);
a question not in the learner's quiz is two empty cells.
"""

from __future__ import annotations

import csv
import html
import io
import re

from ..model import Bank
from .mapping import TextIndex
from .results import MAX_ROWS, Attempt, Collector, Response, check_size

_QUESTION = re.compile(r"(\d+): ")
MAX_FIELD = 1 << 20


def is_student_analysis(header: list[str]) -> bool:
    names = {h.strip() for h in header}
    return {"id", "submitted", "n correct", "n incorrect", "score"} <= names


def read_student_analysis_file(data: bytes, file: str, bank: Bank, locale: str | None) -> list[Attempt]:
    """A downloaded report: each question column mapped by its text (the stem, per locale); one locale for all."""
    check_size(file, len(data))
    problems = Collector(file)
    header = next(csv.reader(io.StringIO(data.decode("utf-8-sig", errors="replace"), newline="")), [])
    index = TextIndex(bank)
    mapped: dict[str, str] = {}
    locales: set[str] | None = None
    for h in header:
        m = _QUESTION.match(h)
        if not m:
            continue
        text = html.unescape(h[m.end() :])  # (Rails' strip_tags leaves character references as they were)
        candidates = [e for e in index.questions(text) if locale is None or e.locale == locale]
        if not candidates:
            problems.add(1, f"column {h[:80]!r} is no question of bank {bank.id}" + (f" in {locale}" if locale else ""))
            continue
        mapped[m[1]] = candidates[0].question
        here = {e.locale for e in candidates}
        locales = here if locales is None else locales & here
    problems.done()
    if not locales:
        problems.add(1, "its questions are not all in one locale of the bank")
        problems.done()
        return []
    if len(locales) > 1:
        problems.add(
            1, f"cannot tell its locale: its questions read the same in {', '.join(sorted(locales))}: give --locale"
        )
        problems.done()
    (quiz_locale,) = locales
    return read_student_analysis(data, file, mapped, index, quiz_locale)


def read_student_analysis(
    data: bytes, file: str, mapped: dict[str, str], index: TextIndex, locale: str
) -> list[Attempt]:
    """Attempts from a student analysis CSV; ``mapped``: Canvas question id -> bank question id."""
    check_size(file, len(data))
    problems = Collector(file)
    csv.field_size_limit(MAX_FIELD)
    reader = csv.reader(io.StringIO(data.decode("utf-8-sig", errors="replace"), newline=""))
    header = next(reader, [])
    columns = {i: m[1] for i, h in enumerate(header) if (m := _QUESTION.match(h))}
    if "id" not in header or not columns:
        problems.add(1, "not a student analysis report: no id column or no '<question id>: <text>' columns")
        problems.done()
    unknown = sorted({q for q in columns.values() if q not in mapped})
    if unknown:
        problems.add(1, f"question(s) {', '.join(unknown)} are not among the quiz's questions")
        problems.done()
    user_at = header.index("id")
    attempts = []
    try:
        for row in reader:
            line = reader.line_num
            if line > MAX_ROWS:
                problems.add(line, f"more than {MAX_ROWS:,} rows: a results file is read up to that")
                break
            if len(row) < len(header):
                if any(cell.strip() for cell in row):
                    problems.add(line, f"has {len(row)} column(s), the header {len(header)}")
                continue
            attempt = Attempt(f"canvas user {row[user_at].strip()}", "latest", locale, f"{file}:{line}")
            for i, canvas_id in columns.items():
                answer, points = row[i].strip(), row[i + 1].strip() if i + 1 < len(row) else ""
                if not answer and not points:
                    continue  # not in this learner's quiz
                question = mapped[canvas_id]
                if not answer:
                    attempt.responses[question] = Response(question, frozenset())
                    continue
                chosen = index.choices(index.by_question[(locale, question)], answer, ",")
                if isinstance(chosen, str):
                    problems.add(line, chosen, f"question {canvas_id}")
                    continue
                attempt.responses[question] = Response(question, chosen)
            attempts.append(attempt)
    except csv.Error as exc:
        problems.add(reader.line_num, f"unreadable CSV: {exc}")
    problems.done()
    return attempts
