"""A Canvas server that trickles its answer cannot hold a push: each request has an overall deadline that no byte
resets, and a request whose deadline passed is not tried again (a real loopback server, trickling)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from moe_lms.cli import main
from moe_lms.lms.canvas_client import Limits
from moe_lms.loader import save_bank

from ..canvas_helpers import make_bank
from ..canvas_server import TOKEN, Canvas, CanvasServer, RawBody

QUIZZES = "/api/v1/courses/1/quizzes"


@pytest.fixture
def app() -> Iterator[Canvas]:
    canvas = Canvas()
    with CanvasServer(canvas):
        yield canvas


def test_a_trickling_server_fails_the_push_at_the_deadline_without_a_retry(app: Canvas, tmp_path: Path) -> None:
    save_bank(make_bank(2), tmp_path / "bank")
    asked = []

    def trickle(_request: object) -> tuple[int, RawBody, dict[str, str]]:
        asked.append(1)
        return 200, RawBody(iter([b" "] * 200), delay=0.05), {}  # a byte every 50 ms: 10 s in all

    app.routes.insert(0, ("GET", re.compile(re.escape(QUIZZES) + r"(\?.*)?\Z"), trickle))
    argv = ["push", "canvas", "--base-url", app.base_url, "--course", "1", str(tmp_path / "bank")]
    began = time.monotonic()
    result = CliRunner().invoke(main, [*argv, "--deadline", "0.5", "--retry-delay", "0"], env={"CANVAS_TOKEN": TOKEN})
    assert time.monotonic() - began < 5
    assert result.exit_code == 1, result.output
    assert "no complete answer within 0.5 s" in result.output and "not retried" in result.output
    assert asked == [1]


def test_the_default_deadline_is_two_minutes() -> None:
    assert Limits().deadline == 120.0
