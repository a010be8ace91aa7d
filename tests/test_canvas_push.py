"""Pushing into a Canvas-like server on 127.0.0.1: both engines, same behaviour, faults included."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from moe_lms.formats import ExportOptions
from moe_lms.formats.canvas import (
    ENGINES,
    Engine,
    desired_quiz,
    desired_quizzes,
    read_question_marker,
    read_quiz_marker,
)
from moe_lms.lms.canvas import Outcome, Plan, Pusher
from moe_lms.lms.canvas_client import CanvasClient, RetryPolicy
from moe_lms.model import Bank, Translation
from tests.canvas_helpers import make_bank
from tests.canvas_server import TOKEN, Bucket, Canvas, CanvasServer, Faults, Reorderer

FAST = RetryPolicy(attempts=10, base_delay=0.001, max_delay=0.02, drain_rate=10_000.0)
BANK = make_bank(12)


@pytest.fixture
def app() -> Iterator[Canvas]:
    canvas = Canvas()
    with CanvasServer(canvas):
        yield canvas


def push(
    app: Canvas,
    bank: Bank = BANK,
    engine: Engine = "classic",
    *,
    locales: tuple[str, ...] = (),
    prune: bool = False,
    publish: bool = False,
    on_write: Any = None,
) -> tuple[Plan, Outcome, CanvasClient]:
    client = CanvasClient(app.base_url, TOKEN, retry=FAST, seed=3)
    pusher = Pusher(client, "1", engine, on_write=on_write)
    desired = list(desired_quizzes(bank, ExportOptions.for_bank(bank, locales), engine))
    the_plan = pusher.plan(desired, bank.locales, prune=prune, publish=publish)
    return the_plan, pusher.apply(the_plan), client


def assert_course_holds(app: Canvas, bank: Bank, engine: Engine, locales: tuple[str, ...]) -> None:
    """Exactly one quiz per locale, exactly the bank's questions in order, with key and explanations."""
    course = app.course()
    if engine == "classic":
        quizzes = {read_quiz_marker(q["description"]).locale: q for q in course.quizzes.values()}
        assert len(quizzes) == len(course.quizzes) == len(locales)
    else:
        quizzes = {read_quiz_marker(q["instructions"]).locale: q for q in course.new_quizzes.values()}
        assert len(quizzes) == len(course.new_quizzes) == len(locales)
    for locale in locales:
        want = desired_quiz(bank, locale, engine)
        quiz = quizzes[locale]
        assert quiz["title"] == want.fields["title"]
        if engine == "classic":
            stored = course.classic_questions(quiz["id"])
            assert [read_question_marker(q["question_name"]).key for q in stored] == [q.id for q in bank.questions]
            for got, desired in zip(stored, want.questions, strict=True):
                body = desired.body["question"]
                for key in ("question_text", "question_type", "neutral_comments_html", "points_possible"):
                    assert got[key] == body[key]
                assert [a["weight"] for a in got["answers"]] == [a["answer_weight"] for a in body["answers"]]
                assert [a["comments_html"] for a in got["answers"]] == [
                    a["answer_comment_html"] for a in body["answers"]
                ]
                assert [a["html"] for a in got["answers"]] == [a["answer_html"] for a in body["answers"]]
        else:
            items = course.items_in_order(quiz["id"])
            assert [read_question_marker(i["entry"]["title"]).key for i in items] == [q.id for q in bank.questions]
            for position, (got, desired) in enumerate(zip(items, want.questions, strict=True), start=1):
                assert got["position"] == position
                assert got["entry"] == desired.body["item"]["entry"]
                assert got["points_possible"] == desired.body["item"]["points_possible"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_first_push_creates_one_quiz_per_locale_with_every_question_its_key_and_explanations(
    app: Canvas, engine: Engine
) -> None:
    the_plan, outcome, client = push(app, engine=engine)
    assert outcome.created == 3 * len(BANK.questions)
    assert_course_holds(app, BANK, engine, BANK.locales)
    assert client.stats.writes == the_plan.writes
    n = len(BANK.questions)
    assert client.stats.requests <= 3 * (n + 10)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_second_push_of_an_unchanged_bank_makes_no_write_request(app: Canvas, engine: Engine) -> None:
    push(app, engine=engine)
    before = len(app.log)
    the_plan, outcome, _ = push(app, engine=engine)
    assert the_plan.writes == 0 and outcome.unchanged == 3 * len(BANK.questions)
    assert [e for e in app.log[before:] if e.write] == []


@pytest.mark.parametrize("engine", ENGINES)
def test_an_edit_rewrites_only_the_edited_question(app: Canvas, engine: Engine) -> None:
    push(app, engine=engine, locales=("vi",))
    q = BANK.questions[4]
    edited = BANK.model_copy(
        update={"questions": (*BANK.questions[:4], q.model_copy(update={"stem": "Edited"}), *BANK.questions[5:])}
    )
    before = len(app.log)
    _, outcome, _ = push(app, edited, engine, locales=("vi",))
    assert outcome.updated == 1 and outcome.created == 0
    assert len([e for e in app.log[before:] if e.write]) == 1
    assert_course_holds(app, edited, engine, ("vi",))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_under_500s_dropped_responses_and_throttling_the_course_ends_exactly_right(
    app: Canvas, engine: Engine, seed: int
) -> None:
    app.faults = Faults(fail_rate=0.2, drop_rate=0.1, throttle_rate=0.05, seed=seed)
    _, _, client = push(app, engine=engine)
    assert client.stats.retries > 0
    assert any(e.status == "dropped" and e.method == "POST" for e in app.log)
    assert_course_holds(app, BANK, engine, BANK.locales)
    app.faults = Faults()
    before = len(app.log)
    the_plan, _, _ = push(app, engine=engine)
    assert the_plan.writes == 0 and [e for e in app.log[before:] if e.write] == []


@pytest.mark.parametrize("engine", ENGINES)
def test_a_create_whose_response_was_lost_is_adopted_not_repeated(app: Canvas, engine: Engine) -> None:
    creates = re.compile(r".*/(quizzes|questions|items)\Z")
    app.faults = Faults(drop_rate=1.0, only=lambda req: req.method == "POST" and bool(creates.match(req.path)))
    _, _, client = push(app, engine=engine, locales=("en",))
    assert client.stats.adopted == 1 + len(BANK.questions)  # the quiz and every question
    app.faults = Faults()
    assert_course_holds(app, BANK, engine, ("en",))


@pytest.mark.parametrize("engine", ENGINES)
def test_an_interrupted_push_is_completed_by_the_next_run(app: Canvas, engine: Engine) -> None:
    writes = 0

    def crash_after_five() -> None:
        nonlocal writes
        writes += 1
        if writes == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        push(app, engine=engine, on_write=crash_after_five)
    the_plan, _, _ = push(app, engine=engine)
    assert the_plan.writes > 0
    assert_course_holds(app, BANK, engine, BANK.locales)


@pytest.mark.parametrize("engine", ENGINES)
def test_questions_the_bank_dropped_stay_until_prune(app: Canvas, engine: Engine) -> None:
    push(app, engine=engine, locales=("ur",))
    smaller = BANK.model_copy(update={"questions": BANK.questions[:-2]})
    plan_kept, _, _ = push(app, smaller, engine, locales=("ur",))
    assert plan_kept.writes == 0 and plan_kept.count(plan_kept.quizzes[0].questions[-1].action) == 2
    _, outcome, _ = push(app, smaller, engine, locales=("ur",), prune=True)
    assert outcome.deleted == 2
    assert_course_holds(app, smaller, engine, ("ur",))


@pytest.mark.parametrize("engine", ENGINES)
def test_pages_are_followed_through_the_link_header(engine: Engine) -> None:
    canvas = Canvas(max_per_page=5)
    with CanvasServer(canvas):
        push(canvas, engine=engine, locales=("en",))
        before = len(canvas.log)
        the_plan, _, _ = push(canvas, engine=engine, locales=("en",))
        assert the_plan.writes == 0
        assert len(canvas.log) - before == 1 + 3  # one page of quizzes, 12 questions in pages of 5


@pytest.mark.parametrize("engine", ENGINES)
def test_a_small_rate_budget_lowers_concurrency_before_canvas_has_to_throttle(engine: Engine) -> None:
    canvas = Canvas(bucket=Bucket(high_water=160.0, maximum=200.0, outflow=400.0, cost=1.0))
    with CanvasServer(canvas):
        _, _, client = push(canvas, engine=engine)
        assert client.stats.throttled == 0 and client.budget.allowed < client.concurrency
        assert_course_holds(canvas, BANK, engine, BANK.locales)


@pytest.mark.parametrize("engine", ENGINES)
def test_throttled_requests_back_off_and_the_push_completes(engine: Engine) -> None:
    canvas = Canvas(bucket=Bucket(high_water=160.0, maximum=200.0, outflow=4000.0, count=160.0))
    canvas.faults = Faults(throttle_rate=0.2, seed=5)
    with CanvasServer(canvas):
        _, _, client = push(canvas, engine=engine)
        assert client.stats.throttled > 0
        assert any(e.status == 403 for e in canvas.log)
        assert_course_holds(canvas, BANK, engine, BANK.locales)


def test_a_published_classic_quiz_shows_students_the_old_questions_until_publish(app: Canvas) -> None:
    push(app, locales=("en",), publish=True)
    course = app.course()
    (quiz,) = course.quizzes.values()
    assert quiz["published"] and len(course.student_view[quiz["id"]]) == len(BANK.questions)
    bigger = make_bank(13)
    the_plan, _, _ = push(app, bigger, locales=("en",))
    assert any("published" in w for w in the_plan.all_warnings)
    assert len(course.student_view[quiz["id"]]) == 12
    the_plan, _, _ = push(app, bigger, locales=("en",))  # still stale: still said, and nothing to write
    assert the_plan.writes == 0 and the_plan.all_warnings
    the_plan, _, _ = push(app, bigger, locales=("en",), publish=True)
    assert the_plan.writes == 1 and len(course.student_view[quiz["id"]]) == 13
    the_plan, _, _ = push(app, bigger, locales=("en",), publish=True)
    assert the_plan.writes == 0 and not the_plan.all_warnings


def test_new_quizzes_are_published_through_their_assignment(app: Canvas) -> None:
    push(app, engine="new-quizzes", locales=("en",), publish=True)
    (quiz,) = app.course().new_quizzes.values()
    assert quiz["published"] is True
    the_plan, _, _ = push(app, engine="new-quizzes", locales=("en",), publish=True)
    assert the_plan.writes == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_creates_arriving_in_another_order_at_a_positional_list_still_leave_the_quiz_in_bank_order(
    engine: Engine,
) -> None:
    reorderer = Reorderer(size=4)
    canvas = Canvas(positional_items=True, reorderer=reorderer)
    with CanvasServer(canvas):
        push(canvas, engine=engine, locales=("en",))
        assert reorderer.reordered > 0  # the creates really did run in another order than they were sent
        assert_course_holds(canvas, BANK, engine, ("en",))
        before = len(canvas.log)
        the_plan, _, _ = push(canvas, engine=engine, locales=("en",))
        assert the_plan.writes == 0 and [e for e in canvas.log[before:] if e.write] == []


@pytest.mark.parametrize("engine", ENGINES)
def test_questions_added_moved_and_dropped_under_reordered_arrivals_end_in_bank_order(engine: Engine) -> None:
    canvas = Canvas(positional_items=True, reorderer=Reorderer(size=3))
    bigger = make_bank(16)
    with CanvasServer(canvas):
        push(canvas, engine=engine, locales=("vi",))
        old = BANK.questions
        new = bigger.questions[12:]
        shuffled = (new[0], *old[8:], new[1], *reversed(old[2:8]), new[2], old[0], new[3])  # old[1] dropped
        edited = bigger.model_copy(update={"questions": shuffled})
        push(canvas, edited, engine, locales=("vi",), prune=True)
        assert_course_holds(canvas, edited, engine, ("vi",))
        before = len(canvas.log)
        the_plan, _, _ = push(canvas, edited, engine, locales=("vi",), prune=True)
        assert the_plan.writes == 0 and [e for e in canvas.log[before:] if e.write] == []


def _with_hostile_translations(bank: Bank) -> Bank:
    """Each translation's intro (and title) holds text shaped like moe-lms's marker of the other locale's quiz."""
    fake = {
        "ur": "[moe:ep-demo@vi:0123456789abcdef:0123456789abcdef]",
        "vi": "[moe:ep-demo@ur:fedcba9876543210:fedcba9876543210]",
    }
    translations = {}
    for locale, catalog in bank.translations.items():
        catalog = dict(catalog)
        for path, source in (("intro", bank.intro or ""), ("title", bank.title)):
            catalog[path] = Translation(text=f"{source} {fake[locale]}", source=source)
        translations[locale] = catalog
    return bank.model_copy(update={"translations": translations})


@pytest.mark.parametrize("engine", ENGINES)
def test_a_translation_holding_text_like_a_quiz_marker_is_not_taken_for_moe_lms_s_own(
    app: Canvas, engine: Engine
) -> None:
    hostile = _with_hostile_translations(BANK)
    push(app, hostile, engine, locales=("ur", "vi"))
    assert_course_holds(app, hostile, engine, ("ur", "vi"))
    before = len(app.log)
    the_plan, _, _ = push(app, hostile, engine, locales=("ur", "vi"), prune=True)
    assert the_plan.writes == 0 and not the_plan.delete_quizzes
    assert [e for e in app.log[before:] if e.write] == []
    assert_course_holds(app, hostile, engine, ("ur", "vi"))
