"""moe-lms stats on Canvas: the stats bank pushed into the Canvas test server (tests/canvas_server.py) by the real
push, one classic quiz per locale; simulated learners' submissions stored as Canvas stores them; then read back
through the quiz statistics API (answers by id, with their user_ids) and through the student analysis quiz report's
CSV (answers by text), each as canvas-lms makes them. Both give the known truth."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from moe_lms.cli import main
from moe_lms.formats import ExportOptions
from moe_lms.formats.canvas import desired_quizzes, read_quiz_marker
from moe_lms.lms.canvas import Pusher
from moe_lms.lms.canvas_client import CanvasClient, RetryPolicy
from moe_lms.loader import save_bank
from moe_lms.problems import ProblemsFound
from moe_lms.stats.compute import analyse
from moe_lms.stats.json_out import document
from moe_lms.stats.results import merge
from tests.canvas_server import TOKEN, Canvas, CanvasServer, Faults

from .stats_support import LOCALES, expected_facility, observed_facility, simulate, stats_bank

FAST = RetryPolicy(attempts=10, base_delay=0.001, max_delay=0.02, drain_rate=10_000.0)
PER_LOCALE = 200


@pytest.fixture(scope="module")
def course() -> Iterator[tuple[Canvas, dict[str, int], list[Any]]]:
    """The pushed course with every simulated learner's submission; the quiz id per locale; the learners."""
    app = Canvas()
    with CanvasServer(app):
        bank = stats_bank()
        pusher = Pusher(CanvasClient(app.base_url, TOKEN, retry=FAST, seed=3), "1", "classic")
        desired = list(desired_quizzes(bank, ExportOptions.for_bank(bank, LOCALES), "classic"))
        pusher.apply(pusher.plan(desired, bank.locales, prune=False, publish=True))
        course = app.course()
        quizzes = {read_quiz_marker(q["description"]).locale: q["id"] for q in course.quizzes.values()}  # type: ignore[union-attr]
        learners = simulate(PER_LOCALE)
        order = {q.id: [c.id for c in q.choices] for q in bank.questions}
        for user, lr in enumerate(learners, 1000):
            stored = course.classic_questions(quizzes[lr.locale])
            chosen = {}
            for q, qid in zip(stored, order, strict=True):
                ids = [a["id"] for a in q["answers"]]  # the push writes the choices in the bank's order
                chosen[q["id"]] = [ids[order[qid].index(c)] for c in lr.answers[qid]]
            app.take_quiz("1", quizzes[lr.locale], user, lr.name, chosen)
        yield app, quizzes, learners


def check_truth(attempts: list[Any], learners: list[Any]) -> None:
    assert len(attempts) == len(learners)
    doc = document(analyse(stats_bank(), attempts))
    for q in doc["questions"]:
        assert q["facility"] == pytest.approx(observed_facility(learners, q["id"]), abs=1e-4), q["id"]
        assert abs(q["facility"] - expected_facility(q["id"])) < 0.05, q["id"]
    flags = [
        (q["id"], f["kind"], f.get("locale"), f.get("choice"), f.get("class"))
        for q in doc["questions"]
        for f in q["flags"]
    ]
    assert ("dif-item", "dif", "ur", None, "C") in flags
    assert ("dead-distractor", "non-functioning-distractor", None, "d", None) in flags
    assert [f for f in flags if f[4] == "C" and f[0] != "dif-item"] == []


@pytest.mark.parametrize("report", [False, True], ids=["statistics", "student-analysis"])
def test_canvas_results_give_the_known_truth(course: tuple[Canvas, dict[str, int], list[Any]], report: bool) -> None:
    from moe_lms.lms.canvas_results import read

    app, quizzes, learners = course
    attempts = merge(read(app.base_url, TOKEN, 1, quizzes[loc], stats_bank(), None, report=report) for loc in LOCALES)
    assert {a.locale for a in attempts} == set(LOCALES)
    check_truth(attempts, learners)
    paths = [entry.path for entry in app.log]
    assert any(p.endswith("/reports") for p in paths) == report
    assert all(entry.method in ("GET", "POST", "PUT", "DELETE") for entry in app.log)


def test_the_two_canvas_sources_agree_learner_by_learner(course: tuple[Canvas, dict[str, int], list[Any]]) -> None:
    from moe_lms.lms.canvas_results import read

    app, quizzes, _ = course
    by_id = read(app.base_url, TOKEN, 1, quizzes["ur"], stats_bank(), None)
    by_text = read(app.base_url, TOKEN, 1, quizzes["ur"], stats_bank(), None, report=True)
    assert {a.learner: a.responses for a in by_id} == {a.learner: a.responses for a in by_text}


def test_the_command_reads_canvas(
    course: tuple[Canvas, dict[str, int], list[Any]], tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, quizzes, learners = course
    save_bank(stats_bank(), tmp_path / "bank")
    monkeypatch.setenv("CANVAS_TOKEN", TOKEN)
    args = ["stats", "--bank", str(tmp_path / "bank"), "--base-url", app.base_url, "--json"]
    for loc in LOCALES:
        args += ["--canvas-quiz", f"1/{quizzes[loc]}"]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["attempts"] == len(learners)


def test_a_quiz_of_another_bank_is_refused(course: tuple[Canvas, dict[str, int], list[Any]]) -> None:
    from moe_lms.lms.canvas_results import read

    app, quizzes, _ = course
    other = stats_bank().model_copy(update={"id": "other-bank"})
    with pytest.raises(ProblemsFound, match="the quiz was pushed from bank stats-bank, not other-bank"):
        read(app.base_url, TOKEN, 1, quizzes["en"], other, None)


def test_throttling_failures_and_pages_do_not_change_what_is_read(
    course: tuple[Canvas, dict[str, int], list[Any]],
) -> None:
    """The push's client policy holds for results too: 403 throttles and 500s are retried, and the same attempts
    come back."""
    from moe_lms.lms.canvas_results import read_with

    app, quizzes, _ = course
    quiet = read_with(CanvasClient(app.base_url, TOKEN, retry=FAST), 1, quizzes["vi"], stats_bank(), None)
    start = len(app.log)
    app.faults = Faults(fail_rate=0.4, throttle_rate=0.3, seed=2, only=lambda req: req.method == "GET")
    try:
        noisy = read_with(CanvasClient(app.base_url, TOKEN, retry=FAST, seed=1), 1, quizzes["vi"], stats_bank(), None)
    finally:
        app.faults = Faults()
    assert [(a.learner, a.responses) for a in noisy] == [(a.learner, a.responses) for a in quiet]
    assert {403, 500} <= {entry.status for entry in app.log[start:]}


def test_a_downloaded_student_analysis_maps_its_questions_by_text(
    course: tuple[Canvas, dict[str, int], list[Any]], tmp_path: Any
) -> None:
    """The report a teacher downloads from the quiz's statistics page, given as a file: no API, no markers; each
    question found by its text, which says the quiz's locale too."""
    app, quizzes, learners = course
    save_bank(stats_bank(), tmp_path / "bank")
    files = []
    for loc in LOCALES:
        path = tmp_path / f"student-analysis-{loc}.csv"
        path.write_bytes(app._student_analysis_csv("1", quizzes[loc]))
        files.append(str(path))
    done = CliRunner().invoke(main, ["stats", *files, "--bank", str(tmp_path / "bank"), "-o", str(tmp_path / "s.json")])
    assert done.exit_code == 0, done.stderr
    doc = json.loads((tmp_path / "s.json").read_text())
    assert doc["attempts"] == len(learners) and {
        loc: v["attempts"] for loc, v in doc["locales"].items()
    } == dict.fromkeys(LOCALES, PER_LOCALE)
    from moe_lms.stats.canvas import read_student_analysis_file

    check_truth(merge(read_student_analysis_file(Path(f).read_bytes(), f, stats_bank(), None) for f in files), learners)
