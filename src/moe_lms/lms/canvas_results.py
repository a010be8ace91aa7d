"""What learners did in a Canvas classic quiz, read through the API with the push's client, mapped to the bank.

The quiz and its questions carry the markers ``push canvas`` wrote (``formats/canvas.read_quiz_marker``,
``read_question_marker``): the quiz says its bank and locale, each question its bank question id. Each Canvas answer
id is mapped to a choice id by its text in that locale (``stats.mapping``), else by its position (a push writes the
choices in the bank's order). The quiz statistics (``GET /api/v1/courses/:course/quizzes/:quiz/statistics``,
canvas-lms app/controllers/quizzes/quiz_statistics_controller.rb, serialised by
app/serializers/quizzes/quiz_statistics_serializer.rb from Quizzes::QuizStatistics::StudentAnalysis#generate)
list, per question, each answer with the ``user_ids`` who chose it, and a ``none`` answer for who saw the question
and chose nothing (student_analysis.rb ``stats_for_question``; the gem's analyzers/multiple_choice.rb and
multiple_answers.rb count the same way): that is each learner's latest attempt, by id.
"""

from __future__ import annotations

from collections import defaultdict

from pydantic import Field

from ..formats.canvas import read_question_marker, read_quiz_marker
from ..model import Bank, Choice
from ..problems import Problem, ProblemsFound
from ..richtext import plain_text
from ..stats.canvas import read_student_analysis
from ..stats.mapping import TextIndex, fingerprint
from ..stats.results import Attempt, Response
from .canvas_client import CanvasClient, CanvasError
from .canvas_shapes import CanvasId, ClassicQuiz, Shape

NO_ANSWER = "none"  # the answer Canvas adds for a question seen and not answered


class _Answer(Shape):
    id: CanvasId
    text: str | None = None
    html: str | None = None


class _Question(Shape):
    id: CanvasId
    question_name: str | None = None
    question_type: str | None = None
    answers: list[_Answer] = Field(default_factory=list)


class _AnswerStatistics(Shape):
    id: CanvasId
    user_ids: list[CanvasId] = Field(default_factory=list)


class _QuestionStatistics(Shape):
    id: CanvasId
    question_type: str | None = None
    answers: list[_AnswerStatistics] = Field(default_factory=list)
    user_ids: list[CanvasId] = Field(default_factory=list)


class _QuizStatistics(Shape):
    question_statistics: list[_QuestionStatistics] = Field(default_factory=list)


class _Statistics(Shape):
    quiz_statistics: list[_QuizStatistics]


class _File(Shape):
    url: str


class _Report(Shape):
    id: CanvasId
    file: _File | None = None


REPORT_POLLS = 60  # a student analysis not ready after this many looks (with the client's backoff) is an error


def read(
    base_url: str, token: str, course: int, quiz: int, bank: Bank, locale: str | None, *, report: bool = False
) -> list[Attempt]:
    """Every learner's latest attempt at the quiz; ProblemsFound (naming the request) for what cannot be mapped.
    ``report``: from the student analysis report's CSV (answers by text) instead of the statistics (by id)."""
    return read_with(CanvasClient(base_url, token), course, quiz, bank, locale, report=report)


def read_with(
    client: CanvasClient, course: int, quiz: int, bank: Bank, locale: str | None, *, report: bool = False
) -> list[Attempt]:
    """:func:`read` through a client of the caller's (its retry policy, limits and rate budget)."""
    where = f"{client.base_url}/courses/{course}/quizzes/{quiz}"
    try:
        return _read(client, course, quiz, bank, locale, where, report)
    except CanvasError as exc:
        raise ProblemsFound([Problem(where, None, client.redact(str(exc)))]) from None


def _read(
    client: CanvasClient, course: int, quiz: int, bank: Bank, locale: str | None, where: str, report: bool
) -> list[Attempt]:
    path = f"/api/v1/courses/{course}/quizzes/{quiz}"
    found = client.get(path, ClassicQuiz)
    marker = read_quiz_marker(found.description)
    problems: list[Problem] = []
    if marker is not None and marker.bank_id != bank.id:
        raise ProblemsFound([Problem(where, None, f"the quiz was pushed from bank {marker.bank_id}, not {bank.id}")])
    if marker is not None and locale is not None and marker.locale != locale:
        raise ProblemsFound(
            [Problem(where, None, f"the quiz is in {marker.locale} (its marker), not --locale {locale}")]
        )
    quiz_locale = marker.locale if marker is not None else locale
    if quiz_locale is None:
        raise ProblemsFound([Problem(where, None, "the quiz has no moe-lms marker saying its locale: give --locale")])
    index = TextIndex(bank)
    questions = {q.id: q for q in bank.questions}
    mapped: dict[str, tuple[str, dict[str, str]]] = {}  # Canvas question id -> (question id, answer id -> choice id)
    for q in client.get_all(f"{path}/questions", _Question):
        qm = read_question_marker(q.question_name)
        if qm is None or qm.bank_id != bank.id or qm.key not in questions:
            what = "" if qm is None else f" ({qm.bank_id}/{qm.key})"
            problems.append(Problem(where, None, f"question {q.id}: not a question of bank {bank.id}{what}"))
            continue
        answers = _answer_map(q, qm.key, questions[qm.key].choices, index, quiz_locale)
        if isinstance(answers, str):
            problems.append(Problem(where, None, f"question {q.id} ({qm.key}): {answers}"))
            continue
        mapped[q.id] = (qm.key, answers)
    if problems:
        raise ProblemsFound(problems)
    if report:
        return _student_analysis(client, path, {k: v[0] for k, v in mapped.items()}, index, quiz_locale, where)
    statistics = client.get(f"{path}/statistics", _Statistics, all_versions="false")
    chosen: dict[str, dict[str, set[str]]] = defaultdict(dict)
    for block in statistics.quiz_statistics[:1]:
        for qs in block.question_statistics:
            if qs.id not in mapped:
                problems.append(
                    Problem(f"{where}/statistics", None, f"question {qs.id} is not among the quiz's questions")
                )
                continue
            question_id, answers = mapped[qs.id]
            for user in qs.user_ids:
                chosen[user].setdefault(question_id, set())
            for answer in qs.answers:
                if answer.id == NO_ANSWER:
                    for user in answer.user_ids:
                        chosen[user].setdefault(question_id, set())
                    continue
                choice = answers.get(answer.id)
                if choice is None:
                    problems.append(
                        Problem(
                            f"{where}/statistics",
                            None,
                            f"question {qs.id}: answer {answer.id} is not one of its answers",
                        )
                    )
                    continue
                for user in answer.user_ids:
                    chosen[user].setdefault(question_id, set()).add(choice)
    if problems:
        raise ProblemsFound(problems[:50])
    return [
        Attempt(
            f"canvas user {user}",
            "latest",
            quiz_locale,
            f"{where}/statistics",
            {q: Response(q, frozenset(c)) for q, c in by_question.items()},
        )
        for user, by_question in sorted(chosen.items(), key=lambda kv: _sort_key(kv[0]))
    ]


def _sort_key(user: str) -> tuple[int, str]:
    return (int(user), "") if user.isdigit() else (1 << 62, user)


def _answer_map(
    q: _Question, question_id: str, choices: tuple[Choice, ...], index: TextIndex, locale: str
) -> dict[str, str] | str:
    """Canvas answer id -> choice id: by text in the quiz's locale, else by position (same count, none by text)."""
    entry = index.by_question.get((locale, question_id))
    by_text: dict[str, str] = {}
    if entry is not None:
        for a in q.answers:
            key = fingerprint(plain_text(a.text or "")) or fingerprint(a.html or "")
            if key in entry.choices:
                by_text[a.id] = entry.choices[key]
    if len(by_text) == len(q.answers) == len(choices) and len(set(by_text.values())) == len(choices):
        return by_text
    if len(q.answers) != len(choices):
        return f"has {len(q.answers)} answers, the bank's question {len(choices)} choices"
    return {a.id: c.id for a, c in zip(q.answers, choices, strict=True)}


def _student_analysis(
    client: CanvasClient, path: str, mapped: dict[str, str], index: TextIndex, locale: str, where: str
) -> list[Attempt]:
    """The quiz report ``student_analysis`` (POST, then looked at until its file is there), its CSV read as
    StudentAnalysis#to_csv writes it: ``name, id, …, submitted``, then per question ``<id>: <text>`` and its points,
    each row's answer the chosen answer's text (multiple answers: joined by ``,``, a comma in a text as ``\\,``)."""
    body = {"quiz_report": {"report_type": "student_analysis", "includes_all_versions": False}}
    found = client.request("POST", f"{path}/reports", _Report, json=body)
    assert found is not None
    for attempt in range(REPORT_POLLS):
        if found.file is not None:
            break
        client.pause(attempt)
        found = client.get(f"{path}/reports/{found.id}", _Report)
    if found.file is None:
        raise CanvasError(f"the student analysis report was not ready after {REPORT_POLLS} looks")
    url = client.url(found.file.url)
    response = client.send_once("GET", url, authorised=client.same_origin(url))
    if response.status_code != 200:
        raise CanvasError(f"GET the student analysis file: {response.status_code}")
    file = f"{where}/reports/{found.id} (student_analysis.csv)"
    return read_student_analysis(response.content, file, mapped, index, locale)
