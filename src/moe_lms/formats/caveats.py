"""What an export cannot carry, or what the teacher must do after importing it: the export's warnings.

Each function takes the bank and the export's options and returns warnings (``Severity.WARNING``) that name the
quiz or file they are about: a format's ``Format.warnings`` (the registry's warnings channel, which ``export``
prints and ``export --strict`` refuses). The texts say what the platform does, from its own code, and what to do
about it; the docs (how-to/import-into-lms.md, how-to/quizzes.md, reference/quiz-capabilities.md) say the same at
more length.
"""

from __future__ import annotations

from ..model import Bank, Quiz, resolve_quiz
from ..problems import Problem, Severity
from . import ExportOptions

# The Open edX releases the course's problem banks need (docs/how-to/open-edx.md cites the pull requests).
ITEMBANK_RELEASE = "Sumac"  # the itembank block, openedx/edx-platform PR 35553
MOODLE_MAXIMUM_GRADE = 10  # a new quiz's (mod/quiz: the grade field's default)
ITEMBANK_GRADING_FIX = (
    "openedx/edx-platform PR 37830 (master, April 2026; Ulmo backport PR 38296): before it a learner's grade "
    "counts the problems a bank did not draw (6 right of 6 drawn shows as 75 %)"
)


def _quiz(bank: Bank, options: ExportOptions) -> Quiz | None:
    return None if options.quiz is None else bank.quiz(options.quiz)


def _warning(quiz: Quiz | None, message: str, severity: Severity = Severity.WARNING) -> Problem:
    return Problem("bank.yaml", None, message, f"quiz {quiz.id!r}" if quiz else None, severity=severity)


def _attempts(quiz: Quiz) -> str:
    return "unlimited attempts" if quiz.attempts == 0 else f"attempts: {quiz.attempts}"


def quiz_points(quiz: Quiz, bank: Bank) -> float:
    """What one attempt at the quiz is worth: its sections' points together."""
    return sum(drawn.attempt_points for drawn in resolve_quiz(bank, quiz))


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def qti(bank: Bank, options: ExportOptions, version: str) -> list[Problem]:
    """QTI 2.1 and 3.0: a quiz's attempts (QTI has attempts at each item, not at the test)."""
    quiz = _quiz(bank, options)
    if quiz is None or quiz.attempts is None or quiz.attempts == 1:
        return []
    return [
        _warning(
            quiz,
            f"{_attempts(quiz)} is not in the QTI {version} file: QTI has no number of attempts at a whole test "
            "(its maxAttempts is the tries at each question within one attempt, written as 1: one answer per "
            "question); set the attempts in the delivery system (for Canvas, import the .canvas-qti.zip, which "
            "carries them)",
        )
    ]


def qti21(bank: Bank, options: ExportOptions) -> list[Problem]:
    return qti(bank, options, "2.1")


def qti3(bank: Bank, options: ExportOptions) -> list[Problem]:
    """QTI 3: a quiz's attempts, and what the Citolab player does with a test."""
    found = qti(bank, options, "3.0")
    quiz = _quiz(bank, options)
    drawn = resolve_quiz(bank, quiz) if quiz is not None else []
    if quiz is not None and (
        quiz.time_limit_minutes is not None or quiz.shuffle_questions or any(d.draws for d in drawn)
    ):
        found.append(
            _warning(
                quiz,
                "the test's draws (qti-selection), shuffling (qti-ordering) and time limit are in the file, but the "
                "Citolab QTI 3 player shows every item of a test in order and untimed: deliver the test with a "
                "system that runs QTI 3 tests (see docs/how-to/qti3.md), or take the QTI 2.1 package",
            )
        )
    return found


def olx(bank: Bank, options: ExportOptions) -> list[Problem]:
    """Open edX: a quiz's attempts, its problem banks' releases, and its time limit."""
    quiz = _quiz(bank, options)
    if quiz is None:
        return []
    found = []
    if quiz.attempts is not None and quiz.attempts != 1:
        found.append(
            _warning(
                quiz,
                f"{_attempts(quiz)} is not in the course: Open edX has no attempts at a whole subsection (each "
                "problem takes one submission, max_attempts=1, as a quiz attempt answers each question once); to "
                "let a learner try again, reset their attempts (Instructor > Student Admin)",
            )
        )
    if quiz.shuffle_questions or any(d.draws for d in resolve_quiz(bank, quiz)):
        found.append(
            _warning(
                quiz,
                f"the course's problem banks (itembank) need Open edX {ITEMBANK_RELEASE} or later: an older Studio "
                "imports the course without error and hides them; and the grade needs "
                f"{ITEMBANK_GRADING_FIX}",
            )
        )
    if quiz.time_limit_minutes is not None:
        found.append(
            _warning(
                quiz,
                "the subsection is timed (is_time_limited) and the course's policy enables timed exams, but Open "
                "edX times it only where the platform enables special exams (FEATURES['ENABLE_SPECIAL_EXAMS'])",
            )
        )
    return found


def cc11(bank: Bank, options: ExportOptions) -> list[Problem]:
    """Common Cartridge: what a Moodle restore and a Canvas import do with it."""
    return [
        _warning(
            None,
            "Common Cartridge: after a restore in Moodle the quiz hides feedback until you edit its Review options "
            "(tick 'The attempt' first, or the other boxes stay disabled) and set 'How questions behave' to "
            "'Deferred feedback' (it restores as adaptive mode without penalties); a multiple-answer question's "
            "choice feedback shows appended to its general feedback. Canvas drops the bank's overall correct and "
            "incorrect messages from a cartridge: for Canvas, import the .canvas-qti.zip",
            # A note, not a warning: the cartridge drops nothing; the platforms' import does, and this says what to
            # do, so `export --strict` (which refuses what a format drops) still writes a cartridge.
            Severity.NOTE,
        )
    ]


def moodle(bank: Bank, options: ExportOptions) -> list[Problem]:
    """Moodle XML and GIFT with a quiz: the pools only; the quiz's maximum grade and intro are set by hand."""
    quiz = _quiz(bank, options)
    if quiz is None:
        return []
    found = []
    points = quiz_points(quiz, bank)
    if points != MOODLE_MAXIMUM_GRADE:
        found.append(
            _warning(
                quiz,
                f"the file holds the quiz's pools; the quiz you build from them keeps Moodle's maximum grade 10 "
                f"while an attempt is worth {_number(points)} points: set 'Maximum grade' to {_number(points)} on "
                "the quiz's Questions page",
            )
        )
    if quiz.intro is not None:
        found.append(
            _warning(
                quiz,
                "no Moodle file carries the quiz's intro: paste it (each language's, from locales/*.po, in "
                "multilang spans for a multilingual course) into the quiz's Description",
            )
        )
    return found
