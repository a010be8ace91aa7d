"""Pushing one of the bank's quizzes into Canvas: its draws become question groups, its settings the quiz's.

Against the Canvas-like server, which keeps question groups as Canvas does (tests/canvas_server.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from click.testing import CliRunner

from moe_lms.cli import main
from moe_lms.formats import ExportOptions
from moe_lms.formats.canvas import Engine, desired_quizzes, read_question_marker, read_quiz_marker
from moe_lms.lms.canvas import Action, Outcome, Plan, Pusher
from moe_lms.lms.canvas_client import CanvasClient, RetryPolicy
from moe_lms.model import Bank
from moe_lms.problems import ProblemsFound
from tests.canvas_server import TOKEN, Canvas, CanvasServer, Faults

from .quiz_bank import FIXED, MIDTERM, quiz_bank, write_quiz_bank

FAST = RetryPolicy(attempts=10, base_delay=0.001, max_delay=0.02, drain_rate=10_000.0)


@pytest.fixture
def app() -> Iterator[Canvas]:
    canvas = Canvas()
    with CanvasServer(canvas):
        yield canvas


def push(
    app: Canvas, bank: Bank, quiz: str | None = "midterm", engine: Engine = "classic", **kwargs: Any
) -> tuple[Plan, Outcome]:
    client = CanvasClient(app.base_url, TOKEN, retry=FAST, seed=3)
    pusher = Pusher(client, "1", engine)
    desired = list(desired_quizzes(bank, ExportOptions.for_bank(bank, ("en",), quiz=quiz), engine))
    the_plan = pusher.plan(desired, bank.locales, prune=kwargs.get("prune", False), publish=False)
    return the_plan, pusher.apply(the_plan)


def groups_by_section(app: Canvas, quiz_id: int) -> dict[str, dict[str, Any]]:
    """The quiz's question groups by the section their questions are from (each group holds one section's)."""
    found = {}
    groups = {g["id"]: g for g in app.course().quiz_groups(quiz_id)}
    for question in app.course().classic_questions(quiz_id):
        marker = read_question_marker(question["question_name"])
        if marker is not None and question["quiz_group_id"] in groups:
            section = {"routing": "routing", "memory": "memory", "network": "fixed"}[marker.key.split("-")[0]]
            found[section] = groups[question["quiz_group_id"]]
    assert len({g["id"] for g in found.values()}) == len(found) == len(groups), "a group holds one section's"
    return found


def visible_text(html: str) -> str:
    """What a learner reads of an HTML field: its text, less what is hidden (display: none, as Canvas stores it)."""
    if not html.strip():
        return ""
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    for hidden in root.xpath(".//*[contains(translate(@style, ' ', ''), 'display:none')]"):
        hidden.drop_tree()
    return " ".join(root.text_content().split())


def the_quiz(app: Canvas) -> dict[str, Any]:
    (quiz,) = app.course().quizzes.values()
    return quiz


def test_a_quizs_draws_become_question_groups_holding_their_pools(app: Canvas) -> None:
    push(app, quiz_bank())
    quiz = the_quiz(app)
    marker = read_quiz_marker(quiz["description"])
    assert marker is not None and (marker.bank_id, marker.quiz_id) == ("pools", "midterm")
    assert (quiz["title"], quiz["time_limit"], quiz["allowed_attempts"]) == ("Midterm: expert parallelism", 20, 2)
    groups = groups_by_section(app, quiz["id"])
    picks = {key: (g["pick_count"], g["question_points"]) for key, g in groups.items()}
    # The fixed two are a group too: a shuffled quiz's questions are shuffled in Classic Quizzes only in a group.
    assert picks == {"routing": (2, 1.0), "memory": (3, 2.0), "fixed": (2, 1.0)}
    members: dict[str, list[str]] = {}
    for question in app.course().classic_questions(quiz["id"]):
        key = read_question_marker(question["question_name"]).key  # type: ignore[union-attr]
        section = next(k for k, g in groups.items() if g["id"] == question["quiz_group_id"])
        members.setdefault(section, []).append(key)
    assert sorted(members["routing"]) == [f"routing-{n:02d}" for n in range(1, 21)]  # (in any order: a draw)
    assert len(members["memory"]) == 20 and sorted(members["fixed"]) == list(FIXED)
    assert quiz["points_possible"] == 2 * 1 + 3 * 2 + 2 * 1  # what an attempt is worth
    assert [g["position"] for g in app.course().quiz_groups(quiz["id"])] == [1, 2, 3]


def test_question_groups_are_named_by_their_section_titles_with_no_marker_a_teacher_reads(app: Canvas) -> None:
    push(app, quiz_bank())
    groups = groups_by_section(app, the_quiz(app)["id"])
    assert {key: g["name"] for key, g in groups.items()} == {
        "routing": "Routing", "memory": "Memory", "fixed": "Always asked",
    }  # fmt: skip
    assert push(app, quiz_bank())[0].writes == 0  # found again through their questions


def test_groups_an_older_push_named_with_markers_are_renamed_once(app: Canvas) -> None:
    push(app, quiz_bank())
    quiz_id = the_quiz(app)["id"]
    for key, group in groups_by_section(app, quiz_id).items():
        group["name"] = f"{key} [moe:pools/midterm/{key}:0123456789ab]"  # as moe-lms once named them
    the_plan, _ = push(app, quiz_bank())
    (step,) = the_plan.quizzes
    assert sorted(g.key for g in step.groups if g.action is Action.UPDATE) == ["fixed", "memory", "routing"]
    assert {g["name"] for g in groups_by_section(app, quiz_id).values()} == {"Routing", "Memory", "Always asked"}
    assert push(app, quiz_bank())[0].writes == 0


def test_the_quiz_intro_shows_learners_no_marker(app: Canvas) -> None:
    push(app, quiz_bank())
    description = the_quiz(app)["description"]  # as Canvas stores it (its sanitizer rewrites style attributes)
    assert visible_text(description) == "Twenty minutes, two attempts."
    assert read_quiz_marker(description) is not None  # the push's own marker is there, hidden
    assert push(app, quiz_bank())[0].writes == 0


def test_a_quiz_pushed_with_a_visible_marker_hides_it_on_the_next_push(app: Canvas) -> None:
    push(app, quiz_bank())
    quiz = the_quiz(app)
    quiz["description"] = quiz["description"].replace(' style="display: none;"', "")  # as moe-lms once wrote it
    assert "[moe:" in visible_text(quiz["description"])
    assert push(app, quiz_bank())[0].writes == 1
    assert "[moe:" not in visible_text(the_quiz(app)["description"])
    assert push(app, quiz_bank())[0].writes == 0


def test_each_question_sends_plain_feedback_beside_the_html(app: Canvas) -> None:
    """canvas-lms #2433: general feedback set through the API shows only when the plain field is set too (as the
    import path stores both); Canvas takes each answer's plain comment as ``comments`` (answer_parsers)."""
    push(app, quiz_bank())
    for question in app.course().classic_questions(the_quiz(app)["id"]):
        for kind in ("neutral", "correct", "incorrect"):
            html = question[f"{kind}_comments_html"]
            assert question[f"{kind}_comments"] == visible_text(html), (kind, question["question_name"])
        assert question["neutral_comments"].startswith("The right choice of question")
        for answer in question["answers"]:
            assert answer["comments"] == visible_text(answer["comments_html"]) != ""


def test_a_second_push_of_the_same_quiz_writes_nothing(app: Canvas) -> None:
    push(app, quiz_bank())
    before = len(app.writes())
    again, outcome = push(app, quiz_bank())
    assert again.writes == 0
    assert len(app.writes()) == before
    assert outcome.groups == 0
    assert len(app.course().quiz_groups(the_quiz(app)["id"])) == 3  # no duplicate groups


def test_a_changed_draw_updates_its_group_alone(app: Canvas) -> None:
    push(app, quiz_bank())
    sections = [dict(s) for s in MIDTERM["sections"]]  # type: ignore[attr-defined]
    sections[0]["draw"] = 4
    the_plan, _ = push(app, quiz_bank([{**MIDTERM, "sections": sections}]))
    (step,) = the_plan.quizzes
    assert [(g.key, g.action) for g in step.groups if g.action is not Action.UNCHANGED] == [("routing", Action.UPDATE)]
    assert the_plan.writes == 1  # the group (the quiz is not published: nothing students see is frozen)
    assert groups_by_section(app, the_quiz(app)["id"])["routing"]["pick_count"] == 4
    assert push(app, quiz_bank([{**MIDTERM, "sections": sections}]))[0].writes == 0


def test_a_section_that_stops_drawing_loses_its_group_and_its_questions_stay_in_the_quiz(app: Canvas) -> None:
    push(app, quiz_bank())
    sections = [dict(s) for s in MIDTERM["sections"]]  # type: ignore[attr-defined]
    quiz = {**MIDTERM, "shuffle_questions": False, "sections": [sections[0], sections[2]]}
    push(app, quiz_bank([quiz]), prune=True)
    quiz_id = the_quiz(app)["id"]
    assert set(groups_by_section(app, quiz_id)) == {"routing"}
    loose = [q for q in app.course().classic_questions(quiz_id) if q["quiz_group_id"] is None]
    assert [read_question_marker(q["question_name"]).key for q in loose] == list(FIXED)  # type: ignore[union-attr]
    assert push(app, quiz_bank([quiz]), prune=True)[0].writes == 0


def test_the_whole_banks_quiz_and_a_quiz_of_it_are_two_canvas_quizzes(app: Canvas) -> None:
    push(app, quiz_bank())
    push(app, quiz_bank(), quiz=None)
    assert len(app.course().quizzes) == 2
    assert push(app, quiz_bank())[0].writes == 0
    assert push(app, quiz_bank(), quiz=None)[0].writes == 0


def test_new_quizzes_refuses_a_quiz_that_draws_and_says_what_to_do_instead() -> None:
    bank = quiz_bank()
    with pytest.raises(ProblemsFound) as caught:
        list(desired_quizzes(bank, ExportOptions.for_bank(bank, ("en",), quiz="midterm"), "new-quizzes"))
    (problem,) = caught.value.problems
    assert "quiz 'midterm'" in str(problem)
    assert "section 'routing' picks 2 of 20" in problem.message
    assert "cannot create item banks or random draws" in problem.message
    assert "Classic Quizzes" in problem.message and "--via qti" in problem.message


def test_new_quizzes_takes_a_quiz_without_a_draw_with_its_settings(app: Canvas) -> None:
    fixed = {
        "id": "fixed", "title": "Fixed", "shuffle_questions": True, "time_limit_minutes": 15, "attempts": 0,
        "sections": [{"id": "all", "questions": list(FIXED), "points": 3}],
    }  # fmt: skip
    push(app, quiz_bank([fixed]), quiz="fixed", engine="new-quizzes")
    (quiz,) = app.course().new_quizzes.values()
    assert quiz["quiz_settings"] == {
        "shuffle_questions": True,
        "has_time_limit": True,
        "session_time_limit_in_seconds": 900,
        "multiple_attempts": {"multiple_attempts_enabled": True, "score_to_keep": "highest", "attempt_limit": False},
    }
    items = app.course().items_in_order(quiz["id"])
    assert [i["points_possible"] for i in items] == [3.0, 3.0]
    assert push(app, quiz_bank([fixed]), quiz="fixed", engine="new-quizzes")[0].writes == 0


def test_push_canvas_quiz_under_500s_and_dropped_responses_converges_and_a_rerun_writes_nothing(
    app: Canvas, tmp_path: Path
) -> None:
    bank_dir = write_quiz_bank(tmp_path / "pools")
    app.faults = Faults(fail_rate=0.2, drop_rate=0.1, seed=5)
    argv = ["push", "canvas", "--base-url", app.base_url, "--course", "1", "--retry-delay", "0.001"]
    result = CliRunner().invoke(main, [*argv, str(bank_dir), "--quiz", "midterm"], env={"CANVAS_TOKEN": TOKEN})
    assert result.exit_code == 0, result.output
    assert "+ question group routing: pick 2, 1 points each" in result.output
    app.faults = Faults()
    quiz_id = the_quiz(app)["id"]
    holding = {g["id"] for g in app.course().quiz_groups(quiz_id)} & {
        q["quiz_group_id"] for q in app.course().classic_questions(quiz_id)
    }
    assert len(holding) == 3  # one group per section holds its questions (a lost create leaves at most an empty one)
    result = CliRunner().invoke(main, [*argv, str(bank_dir), "--quiz", "midterm"], env={"CANVAS_TOKEN": TOKEN})
    assert result.exit_code == 0 and "0 write request(s) planned" in result.output, result.output
    result = CliRunner().invoke(main, [*argv, str(bank_dir), "--quiz", "final"], env={"CANVAS_TOKEN": TOKEN})
    assert result.exit_code == 2 and "no quiz 'final'" in result.output
