"""The plain results CSV of moe-lms: ``learner,attempt,locale,question,answer``, one row per response.

``answer`` is a choice id, several joined by ``|`` (a multiple-answer question), empty for a question seen and not
answered, or a number from 0 to 1: the score, for a source that records no choice. The columns are an interface
(docs/reference/stats.md): other columns are allowed and ignored, these five are required.
"""

from __future__ import annotations

import csv
import io
import math

from ..model import Bank, Kind
from .results import MAX_ROWS, Attempt, Collector, Response, check_size

COLUMNS = ("learner", "attempt", "locale", "question", "answer")
MAX_FIELD = 4096  # characters in one cell


def read_plain(data: bytes, file: str, bank: Bank) -> list[Attempt]:
    """Every attempt in the file; a row that cannot be used is a problem naming its row (line 1 is the header)."""
    check_size(file, len(data))
    problems = Collector(file)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        problems.add(None, f"is not UTF-8 (byte {exc.start:,})")
        problems.done()
    csv.field_size_limit(MAX_FIELD)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [h.strip().lower() for h in next(reader)]
    except StopIteration:
        problems.add(None, "is empty: the header learner,attempt,locale,question,answer is missing")
        problems.done()
        return []
    except csv.Error as exc:
        problems.add(1, f"unreadable header: {exc}")
        problems.done()
        return []
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        problems.add(1, f"the header has no {', '.join(missing)} column (it needs {','.join(COLUMNS)})")
        problems.done()
    at = [header.index(c) for c in COLUMNS]
    i_learner, i_attempt, i_locale, i_question, i_answer = at
    width = max(at) + 1
    choices = {q.id: {c.id for c in q.choices} for q in bank.questions}
    single = {q.id for q in bank.questions if q.kind is not Kind.MULTIPLE}
    locales = {loc: loc for loc in bank.locales} | {loc.replace("_", "-"): loc for loc in bank.locales}
    attempts: dict[tuple[str, str], Attempt] = {}
    # The same answer to the same question is one Response (frozen): 100,000 rows make a few hundred of them.
    responses: dict[tuple[str, str], Response | str] = {}
    row_number = 1
    try:
        for row in reader:
            row_number = reader.line_num
            if row_number - 1 > MAX_ROWS:
                problems.add(row_number, f"more than {MAX_ROWS:,} rows: a results file is read up to that")
                break
            if len(row) < width:
                if any(cell.strip() for cell in row):
                    problems.add(row_number, f"has {len(row)} column(s), the header {len(header)}")
                continue
            learner, attempt_id = row[i_learner].strip(), row[i_attempt].strip()
            question_id, answer = row[i_question].strip(), row[i_answer].strip()
            if not learner or not attempt_id:
                problems.add(row_number, "learner and attempt must not be empty")
                continue
            locale = locales.get(row[i_locale].strip())
            if locale is None:
                problems.add(
                    row_number,
                    f"locale {row[i_locale].strip()!r} is not one of the bank's ({', '.join(bank.locales)})",
                )
                continue
            response = responses.get((question_id, answer))
            if response is None:
                if question_id not in choices:
                    problems.add(row_number, f"question {question_id!r} is not in bank {bank.id}")
                    continue
                response = _response(question_id, answer, choices[question_id])
                if question_id in single and isinstance(response, Response) and len(response.choices or ()) > 1:
                    response = (
                        f"answer {answer[:40]!r} picks {len(response.choices or ())} choices of a one-answer question"
                    )
                responses[(question_id, answer)] = response
            if isinstance(response, str):
                problems.add(row_number, response, f"question {question_id!r}")
                continue
            key = (learner, attempt_id)
            found = attempts.get(key)
            if found is None:
                found = attempts[key] = Attempt(learner, attempt_id, locale, f"{file}:{row_number}")
            elif found.locale != locale:
                problems.add(
                    row_number,
                    f"attempt {attempt_id!r} of {learner!r} is in {found.locale} at {found.where}, here {locale}",
                )
                continue
            if question_id in found.responses:
                problems.add(row_number, f"attempt {attempt_id!r} of {learner!r} answers {question_id!r} twice")
                continue
            found.responses[question_id] = response
    except csv.Error as exc:
        problems.add(reader.line_num, f"unreadable CSV: {exc}")
    problems.done()
    return list(attempts.values())


def _response(question_id: str, answer: str, choices: set[str]) -> Response | str:
    """The response an ``answer`` cell says, or why it says none."""
    if not answer:
        return Response(question_id, frozenset())
    if answer[0].isdigit() or answer[0] in ".-+":
        try:
            score = float(answer)
        except ValueError:
            return f"answer {answer[:40]!r} is neither a choice id nor a number"
        if not math.isfinite(score) or not 0 <= score <= 1:
            return f"answer {answer[:40]!r}: a number is a score from 0 to 1"
        return Response(question_id, None, score)
    picked = [part.strip() for part in answer.split("|")]
    unknown = [p for p in picked if p not in choices]
    if unknown:
        return f"choice {unknown[0][:40]!r} is not one of {', '.join(sorted(choices))}"
    if len(set(picked)) != len(picked):
        return f"answer {answer[:40]!r} names a choice twice"
    return Response(question_id, frozenset(picked))
