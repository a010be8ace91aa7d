"""Long work shows progress on a terminal (stderr a TTY), and nothing extra anywhere else."""

from __future__ import annotations

import io
import os
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from moe_lms import shelf
from moe_lms.cli import common, main
from moe_lms.loader import load_bank, save_bank

from .conftest import SHIPPED_BANK_DIR
from .sample_bank import sample_bank


def test_build_on_a_terminal_shows_a_bar_that_goes_away(tmp_path: Path) -> None:
    """A real pseudo-terminal: moe-lms sees a TTY on stderr, as a person running it would."""
    master, slave = os.openpty()
    moe_lms = str(Path(sys.executable).with_name("moe-lms"))
    process = subprocess.Popen(
        [moe_lms, "build", str(SHIPPED_BANK_DIR), "--out", str(tmp_path / "shelf")],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave,
        env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "100"},
    )  # fmt: skip
    os.close(slave)
    seen = b""
    try:
        while True:  # read until every writer has closed the terminal (EIO) so the pty never fills up
            ready, _, _ = select.select([master], [], [], 5)
            if not ready and process.poll() is not None:
                break
            try:
                chunk = os.read(master, 4096) if ready else b""
            except OSError:
                break
            if ready and not chunk:
                break
            seen += chunk
        assert process.wait() == 0
        assert process.stdout is not None
        stdout = process.stdout.read().decode()
        process.stdout.close()
    finally:
        os.close(master)
    terminal = seen.decode(errors="replace")
    files = len(shelf.plan(load_bank(SHIPPED_BANK_DIR)).filenames)
    assert "building" in terminal and f"{files}/{files}" in terminal  # a bar over the shelf's files
    assert "\x1b[" in terminal  # drawn, then erased (transient)
    assert "written" in stdout and "\x1b[" not in stdout  # stdout is a pipe: no progress in it


@pytest.fixture
def bank_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "bank"
    save_bank(sample_bank(), directory)
    return directory


@pytest.mark.parametrize(
    ("args", "shows"),
    [
        (["check"], "checking that every text renders"),
        (["export", "--format", "qti21", "-o", "{tmp}/q.zip"], "writing"),
        (["build", "--out", "{tmp}/shelf"], "building"),
    ],
)
def test_progress_is_drawn_when_stderr_is_a_terminal(
    bank_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], shows: str
) -> None:
    screen = io.StringIO()
    monkeypatch.setitem(common.err.__dict__, "rich", Console(file=screen, force_terminal=True, width=100))
    argv = [arg.replace("{tmp}", str(tmp_path)) for arg in args]
    result = CliRunner().invoke(main, [argv[0], str(bank_dir), *argv[1:]])
    assert result.exit_code == 0, result.output
    assert shows in screen.getvalue()


@pytest.mark.parametrize(
    "args",
    [["check"], ["export", "--format", "moodle", "-o", "{tmp}/m.xml"], ["build", "--out", "{tmp}/shelf"]],
)
def test_nothing_extra_when_stderr_is_not_a_terminal(bank_dir: Path, tmp_path: Path, args: list[str]) -> None:
    argv = [arg.replace("{tmp}", str(tmp_path)) for arg in args]
    result = CliRunner().invoke(main, [argv[0], str(bank_dir), *argv[1:]])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\r" not in result.output
    assert "building" not in result.stderr and "writing" not in result.stderr and "reading" not in result.stderr


def test_import_shows_what_it_reads_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exported = CliRunner().invoke(main, ["export", "--format", "moodle", "-o", str(tmp_path / "m.xml")])
    assert exported.exit_code == 0
    screen = io.StringIO()
    monkeypatch.setitem(common.err.__dict__, "rich", Console(file=screen, force_terminal=True, width=100))
    result = CliRunner().invoke(main, ["import", "moodle", str(tmp_path / "m.xml"), "-o", str(tmp_path / "b")])
    assert result.exit_code == 0, result.output
    assert "reading" in screen.getvalue() and "writing the bank into" in screen.getvalue()
    shutil.rmtree(tmp_path / "b")


def test_long_work_shows_its_percentage_and_rate(
    bank_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading a bank: a bar over the bytes of bank.yaml and the PO files, with the percentage, size and speed;
    building a shelf: the percentage and files per second."""
    screen = io.StringIO()
    monkeypatch.setitem(common.err.__dict__, "rich", Console(file=screen, force_terminal=True, width=160))
    assert CliRunner().invoke(main, ["check", str(bank_dir)]).exit_code == 0
    reading = [line for line in screen.getvalue().splitlines() if "reading the bank in" in line]
    assert reading and "100%" in reading[-1] and "B/s" in reading[-1]
    screen.truncate(0)
    assert CliRunner().invoke(main, ["build", str(bank_dir), "--out", str(tmp_path / "shelf")]).exit_code == 0
    building = [line for line in screen.getvalue().splitlines() if "building" in line]
    assert building and "100%" in building[-1] and "files/s" in building[-1]
