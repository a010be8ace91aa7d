"""What every results reader produces: attempts as plain data, each response mapped to the bank's ids.

A results file comes from outside (an LMS's download, a colleague's spreadsheet): readers bound what they read
(:data:`MAX_BYTES`, :data:`MAX_ROWS`) and report every row they cannot use as a :class:`Problem` with the file and
row, never dropping one silently. Computing (``compute.py``) sees only :class:`Attempt`\\ s.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..model import Kind, Question
from ..problems import Problem, ProblemsFound

MAX_BYTES = 256 * 1024 * 1024  # a results file larger than this is refused, not read
MAX_ROWS = 2_000_000  # rows (responses) of one file
MAX_PROBLEMS = 50  # a file with more unusable rows stops here: the first fifty say what is wrong


@dataclass(frozen=True, slots=True)
class Response:
    """What one attempt did with one question: the choices it picked (empty: none, seen but not answered), or only
    a score where the source gives no choice (a plain CSV's number)."""

    question: str
    choices: frozenset[str] | None
    score: float | None = None  # given by the source; None: from the bank's key (:func:`score_of`)


@dataclass(slots=True)
class Attempt:
    learner: str
    attempt: str
    locale: str
    where: str  # file and row (or element) it was read from, for messages
    responses: dict[str, Response] = field(default_factory=dict)


def score_of(question: Question, response: Response) -> float:
    """A response's score from 0 to 1, as moe-lms's exports grade it: the key scores 1 (single answer, true/false);
    in a multiple-answer question the correct choices share 1 and the wrong ones share -1, floored at 0
    (Moodle's fractions, ``formats/moodle/shape.answer_fractions``; the QTI and Canvas exports grade alike)."""
    if response.score is not None:
        return response.score
    chosen = response.choices or frozenset()
    if question.kind is not Kind.MULTIPLE:
        return 1.0 if len(chosen) == 1 and any(c.correct and c.id in chosen for c in question.choices) else 0.0
    right = [c.id for c in question.choices if c.correct]
    wrong = [c.id for c in question.choices if not c.correct]
    got = sum(1 for c in right if c in chosen) / len(right) - (
        sum(1 for c in wrong if c in chosen) / len(wrong) if wrong else 0.0
    )
    return min(1.0, max(0.0, got))


class Collector:
    """The problems of one results file, at most :data:`MAX_PROBLEMS` (then :class:`ProblemsFound` at once)."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.problems: list[Problem] = []

    def add(self, row: int | None, message: str, where: str | None = None) -> None:
        self.problems.append(Problem(self.file, row, message, where))
        if len(self.problems) >= MAX_PROBLEMS:
            self.problems.append(Problem(self.file, None, f"stopped after {MAX_PROBLEMS} problems"))
            raise ProblemsFound(self.problems)

    def done(self) -> None:
        if self.problems:
            raise ProblemsFound(self.problems)


def check_size(file: str, size: int) -> None:
    if size > MAX_BYTES:
        raise ProblemsFound(
            [Problem(file, None, f"is {size:,} bytes; a results file is read up to {MAX_BYTES:,} bytes")]
        )


def merge(batches: Iterable[list[Attempt]]) -> list[Attempt]:
    """Attempts of several files as one list; the same learner's same attempt twice is refused (two downloads of
    one quiz would count everyone twice)."""
    seen: dict[tuple[str, str, str], str] = {}
    merged: list[Attempt] = []
    problems = []
    for batch in batches:
        for a in batch:
            key = (a.learner, a.attempt, a.locale)
            if key in seen:
                problems.append(
                    Problem(a.where, None, f"learner {a.learner!r} attempt {a.attempt!r} is also at {seen[key]}")
                )
                continue
            seen[key] = a.where
            merged.append(a)
    if problems:
        raise ProblemsFound(problems[:MAX_PROBLEMS])
    return merged
