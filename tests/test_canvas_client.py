"""The Canvas client on its own: transport security, errors users can act on, backoff, the rate budget."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator

import pytest

from moe_lms.lms.canvas_client import (
    AuthError,
    Budget,
    CanvasClient,
    CanvasError,
    NotFound,
    RetryPolicy,
    Uncertain,
    check_base_url,
)
from moe_lms.lms.canvas_shapes import ClassicQuiz

from .canvas_server import TOKEN, Canvas, CanvasServer, Faults

FAST = RetryPolicy(attempts=4, base_delay=0.001, max_delay=0.01, drain_rate=10_000.0)


@pytest.fixture
def app() -> Iterator[Canvas]:
    canvas = Canvas()
    with CanvasServer(canvas):
        yield canvas


@pytest.mark.parametrize(
    "url", ["https://canvas.example.edu", "http://127.0.0.1:8080", "http://localhost", "http://[::1]:3000"]
)
def test_https_or_a_loopback_host_is_accepted(url: str) -> None:
    assert check_base_url(url + "/") == url


@pytest.mark.parametrize("url", ["http://canvas.example.edu", "http://10.0.0.2", "ftp://canvas.example.edu", "canvas"])
def test_plain_http_to_another_host_or_a_non_url_is_refused(url: str) -> None:
    with pytest.raises(ValueError):
        check_base_url(url)


def test_backoff_doubles_with_jitter_and_stays_bounded() -> None:
    policy, rng = RetryPolicy(base_delay=0.5, max_delay=30.0), random.Random(1)
    for attempt in range(12):
        ceiling = min(30.0, 0.5 * 2**attempt)
        assert ceiling / 2 <= policy.delay(attempt, rng) <= ceiling


def test_the_budget_allows_fewer_requests_in_flight_as_the_rate_limit_runs_low() -> None:
    budget = Budget(6, threading.Event())
    budget.observe(600.0)
    assert budget.allowed == 6
    budget.observe(220.0)
    assert budget.allowed == 3
    budget.observe(60.0)
    assert budget.allowed == 1
    budget.throttled(0.0)
    assert budget.allowed == 1


def test_an_invalid_token_and_a_missing_course_are_told_apart(app: Canvas) -> None:
    with pytest.raises(AuthError, match="Invalid access token"):
        CanvasClient(app.base_url, "wrong", retry=FAST).get("/api/v1/courses/1/quizzes", ClassicQuiz)
    with pytest.raises(NotFound):
        CanvasClient(app.base_url, TOKEN, retry=FAST).get("/api/v1/courses/2/quizzes", ClassicQuiz)


def test_a_token_without_permission_is_told_to_need_a_teacher_role(app: Canvas) -> None:
    app.readonly_tokens = {"student"}
    with pytest.raises(AuthError, match="teacher"):
        CanvasClient(app.base_url, "student", retry=FAST).request("POST", "/api/v1/courses/1/quizzes", json={})


def test_reads_are_retried_but_a_create_with_a_lost_response_is_reported_uncertain(app: Canvas) -> None:
    client = CanvasClient(app.base_url, TOKEN, retry=RetryPolicy(attempts=50, base_delay=0.0001, max_delay=0.001))
    app.faults = Faults(drop_rate=0.5, seed=4)
    for _ in range(10):
        assert client.get_all("/api/v1/courses/1/quizzes", ClassicQuiz) == []
    assert client.stats.retries > 0
    app.faults = Faults(drop_rate=1.0)
    with pytest.raises(Uncertain):
        client.request("POST", "/api/v1/courses/1/quizzes", json={"quiz": {"title": "T"}})
    assert len(app.course().quizzes) == 1  # it was made: the caller must re-read before trying again


def test_pagination_never_follows_a_link_to_another_host(app: Canvas) -> None:
    client = CanvasClient(app.base_url, TOKEN, retry=FAST)
    for n in range(3):
        client.request("POST", "/api/v1/courses/1/quizzes", json={"quiz": {"title": f"T{n}"}})
    app.base_url = "http://attacker.example"  # the Link header now points elsewhere
    with pytest.raises(CanvasError, match="refusing to send the token"):
        client.get_all("/api/v1/courses/1/quizzes", ClassicQuiz, per_page=1)


def test_error_messages_never_contain_the_token(app: Canvas) -> None:
    app.leak_token_in_errors = True
    client = CanvasClient(app.base_url, TOKEN, retry=FAST)
    with pytest.raises(CanvasError) as caught:
        client.request("POST", "/api/v1/courses/1/content_migrations", json={"migration_type": "nonsense"})
    assert TOKEN not in str(caught.value)
    assert "[token]" in str(caught.value) or "Invalid migration_type" in str(caught.value)
