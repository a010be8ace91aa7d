"""Numerical questions pushed to Canvas (issue 30), against the Canvas-like server, which parses and grades them as
canvas-lms does (tests/canvas_server.py: answer_parsers/numerical.rb, numerical_question.rb): a Classic
``numerical_question`` whose answers are the correct values (exact ± margin, each with its explanation), the
anticipated values and their explanations in the incorrect comments (Canvas counts every answer of a numerical
question as correct); New Quizzes leaves numerical questions out and says why."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from moe_lms.formats import ExportOptions
from moe_lms.formats.canvas import desired_quizzes, read_question_marker
from moe_lms.lms.canvas import Pusher
from moe_lms.lms.canvas_client import CanvasClient, RetryPolicy
from moe_lms.locales import resolve
from moe_lms.numeric import number_text
from moe_lms.richtext import plain_text
from tests.canvas_server import TOKEN, Canvas, CanvasServer, grade_numerical

from .numerical_bank import numerical_bank

FAST = RetryPolicy(attempts=10, base_delay=0.001, max_delay=0.02, drain_rate=10_000.0)


@pytest.fixture
def app() -> Iterator[Canvas]:
    canvas = Canvas()
    with CanvasServer(canvas):
        yield canvas


def push(app: Canvas, engine: str, locales: tuple[str, ...]) -> list[str]:
    bank = numerical_bank()
    pusher = Pusher(CanvasClient(app.base_url, TOKEN, retry=FAST, seed=3), "1", engine)  # type: ignore[arg-type]
    desired = list(desired_quizzes(bank, ExportOptions.for_bank(bank, locales), engine))  # type: ignore[arg-type]
    plan = pusher.plan(desired, bank.locales, prune=False, publish=False)
    pusher.apply(plan)
    return [w for d in desired for w in d.warnings]


def text_of(html: str) -> str:
    return " ".join(plain_text(html).split())


@pytest.mark.parametrize("locale", ["en", "ur"])
def test_canvas_stores_and_grades_a_numerical_question_as_the_bank_says(app: Canvas, locale: str) -> None:
    assert push(app, "classic", (locale,)) == []
    bank = numerical_bank()
    view = resolve(bank, locale)
    course = app.course()
    (quiz,) = course.quizzes.values()
    stored = {read_question_marker(q["question_name"]).key: q for q in course.classic_questions(quiz["id"])}
    for q in (q for q in bank.questions if q.numerical):
        got = stored[q.id]
        assert got["question_type"] == "numerical_question"
        right = q.correct_choices[0]
        (answer,) = got["answers"]
        assert (answer["numerical_answer_type"], answer["exact"], answer["margin"]) == (
            "exact_answer", q.value_of(right), q.tolerance_of(right)
        )  # fmt: skip
        assert text_of(view.choice_explanation(q, right).text) in text_of(answer["comments_html"])
        assert text_of(view.explanation(q).text) in text_of(got["neutral_comments_html"])
        incorrect = text_of(got["incorrect_comments_html"])
        for c in q.choices:
            if not c.correct:
                assert number_text(q.value_of(c)) in incorrect
                assert text_of(view.choice_explanation(q, c).text) in incorrect
        # Graded as Canvas grades it: the right value and the edge of its range match its answer; others none.
        assert grade_numerical(got, number_text(q.value_of(right))) is answer
        assert grade_numerical(got, number_text(q.value_of(right) + q.tolerance_of(right))) is answer
        for c in q.choices:
            if not c.correct:
                assert grade_numerical(got, number_text(q.value_of(c))) is None
        assert grade_numerical(got, "123456") is None


def test_new_quizzes_leaves_numerical_questions_out_and_says_why(app: Canvas) -> None:
    warnings = push(app, "new-quizzes", ("en",))
    assert len(warnings) == 1 and "capacity-tokens, dispatch-kib" in warnings[0] and "--engine classic" in warnings[0]
    course = app.course()
    (quiz,) = course.new_quizzes.values()
    items = course.items_in_order(quiz["id"])
    assert [read_question_marker(i["entry"]["title"]).key for i in items] == ["ep-what"]  # type: ignore[union-attr]
