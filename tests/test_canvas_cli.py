"""`moe-lms push canvas`: the command as users run it, against the Canvas-like server."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from moe_lms.cli import main
from moe_lms.formats.canvas import ENGINES, Engine
from moe_lms.loader import load_bank, save_bank

from .canvas_helpers import make_bank
from .canvas_server import TOKEN, Canvas, CanvasServer, Faults, HttpError
from .conftest import SHIPPED_BANK_DIR
from .test_canvas_push import assert_course_holds


@pytest.fixture
def app() -> Iterator[Canvas]:
    canvas = Canvas()
    with CanvasServer(canvas):
        yield canvas


def run(app: Canvas, *args: str, token: str | None = TOKEN, base_url: str | None = None) -> tuple[int, str]:
    env = {"CANVAS_TOKEN": token} if token is not None else {"CANVAS_TOKEN": ""}
    argv = ["push", "canvas", "--base-url", base_url or app.base_url, "--course", "1", "--retry-delay", "0.001", *args]
    result = CliRunner().invoke(main, argv, env=env)
    return result.exit_code, result.output


@pytest.mark.parametrize("engine", ENGINES)
def test_the_shipped_bank_syncs_in_urdu_under_500s_and_dropped_responses_and_a_rerun_changes_nothing(
    app: Canvas, engine: Engine
) -> None:
    app.faults = Faults(fail_rate=0.2, drop_rate=0.1, seed=11)
    code, output = run(app, str(SHIPPED_BANK_DIR), "--locale", "ur", "--engine", engine)
    assert code == 0, output
    assert TOKEN not in output
    assert "questions: 8 created" in output
    assert any(e.status == "dropped" for e in app.log) and any(e.status == 500 for e in app.log)
    assert_course_holds(app, load_bank(SHIPPED_BANK_DIR), engine, ("ur",))
    app.faults = Faults()
    before = len(app.log)
    code, output = run(app, str(SHIPPED_BANK_DIR), "--locale", "ur", "--engine", engine)
    assert code == 0 and "0 write request(s) planned" in output and "8 unchanged" in output
    assert app.writes() == [e for e in app.log[:before] if e.write]


@pytest.mark.parametrize("engine", ENGINES)
def test_the_command_as_typed_in_a_shell_pushes_the_shipped_bank(app: Canvas, engine: Engine) -> None:
    app.faults = Faults(fail_rate=0.2, drop_rate=0.1, seed=12)
    command = [str(Path(sys.executable).with_name("moe-lms"))]  # the installed entry point
    done = subprocess.run(
        [
            *command,
            "push",
            "canvas",
            "--base-url",
            app.base_url,
            "--course",
            "1",
            "--locale",
            "ur",
            "--engine",
            engine,
            "--retry-delay",
            "0.01",
            str(SHIPPED_BANK_DIR),
        ],
        env={**os.environ, "CANVAS_TOKEN": TOKEN},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert TOKEN not in done.stdout + done.stderr
    assert_course_holds(app, load_bank(SHIPPED_BANK_DIR), engine, ("ur",))


# Started as a session leader, this opens its terminal by name, which makes it the controlling terminal (what
# getpass needs to turn echo off), then becomes moe-lms. subprocess, not fork: the test server runs in a thread.
_ON_A_TERMINAL = "import os, sys; os.close(os.open(os.ttyname(0), os.O_RDWR)); os.execv(sys.argv[1], sys.argv[1:])"


def _read_terminal(master: int, until: bytes | None, seconds: float = 60) -> bytes:
    """What the program wrote to its terminal: up to ``until``, or until it closed the terminal."""
    seen = b""
    deadline = time.monotonic() + seconds
    while (until is None or until not in seen) and time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if not ready:
            continue
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: every process has closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    return seen


def test_without_canvas_token_a_terminal_is_asked_for_it_and_what_is_typed_is_not_shown(app: Canvas) -> None:
    master, slave = os.openpty()
    moe_lms = str(Path(sys.executable).with_name("moe-lms"))
    argv = ["push", "canvas", "--base-url", app.base_url, "--course", "1", "--locale", "ur", "--dry-run"]
    env = {k: v for k, v in os.environ.items() if k != "CANVAS_TOKEN"}
    process = subprocess.Popen(
        [sys.executable, "-c", _ON_A_TERMINAL, moe_lms, *argv, str(SHIPPED_BANK_DIR)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    try:
        asked = _read_terminal(master, until=b"Canvas API token")
        assert b"Canvas API token" in asked, asked
        os.write(master, TOKEN.encode() + b"\n")
        rest = _read_terminal(master, until=None)
        assert process.wait(timeout=60) == 0, (asked + rest).decode()
    finally:
        process.kill()
        os.close(master)
    shown = (asked + rest).decode()
    assert TOKEN not in shown  # not echoed while typed, not printed after
    assert "dry run: nothing was changed" in shown
    assert app.log and app.writes() == []  # the typed token was accepted: the course was read


def test_dry_run_prints_the_plan_and_writes_nothing(app: Canvas, tmp_path: Path) -> None:
    save_bank(make_bank(3), tmp_path / "bank")
    code, output = run(app, str(tmp_path / "bank"), "--dry-run", "--locale", "vi")
    assert code == 0, output
    assert "vi: new quiz create" in output and "+ q0001" in output and "dry run: nothing was changed" in output
    assert app.writes() == []


def test_an_invalid_token_is_a_clear_error_without_the_token(app: Canvas) -> None:
    wrong = "7~not-the-right-token-but-secret"
    code, output = run(app, str(SHIPPED_BANK_DIR), token=wrong)
    assert code == 1
    assert "Canvas rejected the token (Invalid access token.)" in output
    assert wrong not in output


def test_an_unknown_course_is_a_clear_error(app: Canvas) -> None:
    result = CliRunner().invoke(
        main,
        ["push", "canvas", "--base-url", app.base_url, "--course", "99", str(SHIPPED_BANK_DIR)],
        env={"CANVAS_TOKEN": TOKEN},
    )
    assert result.exit_code == 1
    assert "course 99 not found" in result.output


def test_the_token_is_redacted_even_when_canvas_echoes_it_in_an_error(tmp_path: Path) -> None:
    canvas = Canvas(leak_token_in_errors=True)
    bank = make_bank(2)
    bad = bank.model_copy(update={"title": "x"})
    save_bank(bad, tmp_path / "bank")
    with CanvasServer(canvas):
        canvas.routes.insert(0, ("POST", re.compile(r".*/quizzes\Z"), _bad_request))
        code, output = run(canvas, str(tmp_path / "bank"), "--locale", "en")
    assert code == 1
    assert "Authorization: Bearer [token]" in output
    assert TOKEN not in output


def _bad_request(*args: object, **kwargs: object) -> None:
    raise HttpError(400, {"errors": [{"message": "bad"}]})


def test_plain_http_to_a_remote_host_is_refused(app: Canvas) -> None:
    code, output = run(app, str(SHIPPED_BANK_DIR), base_url="http://canvas.example.edu")
    assert code == 2 and "https://" in output


def test_without_canvas_token_and_without_a_terminal_it_says_what_to_set(app: Canvas) -> None:
    code, output = run(app, str(SHIPPED_BANK_DIR), token=None)
    assert code == 2 and "CANVAS_TOKEN" in output


def test_prune_and_publish_are_refused_with_via_qti(app: Canvas) -> None:
    code, output = run(app, str(SHIPPED_BANK_DIR), "--via", "qti", "--prune")
    assert code == 2 and "--via api" in output
