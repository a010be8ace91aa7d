"""Start-up: a command imports only what it needs (issue 13: `--help` and a small export must be instant), and what
was made lazy for that behaves exactly as before."""

from __future__ import annotations

import gc
import importlib.metadata
import io
import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from moe_lms import __version__
from moe_lms.cli import _COMMANDS, main
from moe_lms.cli.common import LazyConsole

from .conftest import SHIPPED_BANK_DIR

# Imported by a command that needs them; never by --help, nor by an export of a bank without Markdown syntax.
HEAVY = {"rich", "markdown_it", "yaml", "requests", "importlib.metadata"}
HELP_NEVER = HEAVY | {"pydantic", "lxml", "babel", "yaml_rs", "nh3", "moe_lms.model"}


def modules_after(tmp_path: Path, *args: str) -> set[str]:
    """The modules a fresh interpreter has imported once ``moe-lms ARGS`` has run (in ``tmp_path``), as the
    console script runs it."""
    report = tmp_path / "modules.json"
    program = (
        "import json, sys\n"
        "from moe_lms.cli import run\n"
        f"sys.argv = ['moe-lms', *{list(args)!r}]\n"
        "try:\n"
        "    run()\n"
        "except SystemExit as exit:\n"
        "    assert not exit.code, exit.code\n"
        f"json.dump(sorted(sys.modules), open({str(report)!r}, 'w'))\n"
    )
    subprocess.run([sys.executable, "-c", program], cwd=tmp_path, check=True, capture_output=True)
    return set(json.loads(report.read_text()))


def test_help_imports_no_command_and_nothing_heavy(tmp_path: Path) -> None:
    imported = modules_after(tmp_path, "--help")
    assert imported & HELP_NEVER == set()
    ours = {m for m in imported if m.startswith("moe_lms.") and m != "moe_lms.cli"}
    assert not ours - {"moe_lms.files", "moe_lms.bulk", "moe_lms.errors"}  # (errors: one class, no imports)


def test_the_console_script_runs_its_command_with_the_collector_on_and_skips_the_collection_at_exit(
    tmp_path: Path,
) -> None:
    # (bulk.short_lived_process: the collector is off only until the command's bank is read; at the exit, which frees
    # everything anyway, all is frozen out of its reach)
    program = (
        "import atexit, gc, sys\n"
        "from moe_lms.cli import run\n"
        "seen = []\n"
        "gc.callbacks.append(lambda phase, info: seen.append(phase))\n"
        "atexit.register(lambda: print(gc.isenabled(), gc.get_freeze_count() > 0, 'start' in seen))\n"
        "sys.argv = ['moe-lms', 'export', '--format', 'moodle', sys.argv[1], '-o', 'out.xml']\n"
        "run()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, str(SHIPPED_BANK_DIR)], cwd=tmp_path, check=True, capture_output=True, text=True
    )
    assert done.stdout.split() == ["True", "True", "True"]
    in_process = CliRunner().invoke(main, ["export", "--format", "moodle", str(SHIPPED_BANK_DIR), "-o", "-"])
    assert (tmp_path / "out.xml").read_bytes() == in_process.stdout_bytes


def test_a_process_that_calls_main_keeps_its_collector_as_it_was() -> None:
    frozen = gc.get_freeze_count()
    result = CliRunner().invoke(main, ["export", "--format", "gift", str(SHIPPED_BANK_DIR), "-o", "-"])
    assert result.exit_code == 0, result.output
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_exporting_the_shipped_bank_to_moodle_imports_nothing_it_does_not_use(tmp_path: Path) -> None:
    imported = modules_after(tmp_path, "export", "--format", "moodle", str(SHIPPED_BANK_DIR), "-o", "out.xml")
    assert (tmp_path / "out.xml").stat().st_size > 0
    assert imported & (HEAVY - {"importlib.metadata"}) == set()  # (pydantic itself imports importlib.metadata)
    assert not any(m.startswith(("moe_lms.formats.qti21", "moe_lms.lms", "moe_lms.cli.canvas")) for m in imported)
    assert "moe_lms.shelf" not in imported  # only build plans a shelf
    # its PO files are read by moe-lms's own reader: Babel's catalog only writes them
    assert imported & {"babel.messages.catalog", "babel.messages.pofile"} == set()


def test_exporting_a_bank_without_translations_reads_no_po_machinery(tmp_path: Path) -> None:
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "bank.yaml").write_text(
        "id: demo\ntitle: Demo\nquestions:\n  - id: q1\n    stem: One?\n    explanation: Because.\n    choices:\n"
        "      - {id: a, text: '1', correct: true, explanation: Right.}\n"
        "      - {id: b, text: '2', explanation: No.}\n",
        encoding="utf-8",
    )
    imported = modules_after(tmp_path, "export", "--format", "moodle", str(bank), "-o", "out.xml")
    assert (tmp_path / "out.xml").stat().st_size > 0
    assert imported & {"moe_lms.po", "moe_lms.shelf", "babel.messages"} == set()


def test_the_command_list_of_help_is_each_command_s_own_summary() -> None:
    context = click.Context(main)
    for name, (_, summary) in _COMMANDS.items():
        command = main.get_command(context, name)
        assert command is not None and command.help is not None
        assert " ".join(command.help.split("\n\n")[0].split()) == summary


def test_help_lists_every_command_as_click_lists_them() -> None:
    runner = CliRunner()
    listed = runner.invoke(main, ["--help"], terminal_width=60).output.split("Commands:\n")[1]
    real = click.Group(commands=[main.get_command(click.Context(main), n) for n in _COMMANDS])  # type: ignore[misc]
    formatter = click.HelpFormatter(width=60)
    real.format_commands(click.Context(real), formatter)
    assert listed == formatter.getvalue().split("Commands:\n")[1]


def test_help_lists_each_command_s_summary_whole_not_cut_at_45_characters() -> None:
    listed = CliRunner().invoke(main, ["--help"], terminal_width=80).output.split("Commands:\n")[1]
    assert "..." not in listed
    assert " ".join(listed.split()).count("and a README saying which file to take and how to import it.") == 1


def test_the_version_is_the_one_the_package_is_installed_with() -> None:
    assert importlib.metadata.version("moe-lms") == __version__


pieces = st.text(st.characters(codec="utf-8")) | st.sampled_from([":", " ", "\t", "\r", "\n", ":smile:", "[b]x[/b]"])


@given(st.lists(pieces).map("".join))
def test_plain_lines_are_written_exactly_as_rich_writes_them(text: str) -> None:
    expected = io.StringIO()
    Console(file=expected, highlight=False, soft_wrap=True, emoji=False).print(text, markup=False)
    written = io.StringIO()
    stdout, sys.stdout = sys.stdout, written
    try:
        LazyConsole().print(text, markup=False)
    finally:
        sys.stdout = stdout
    assert written.getvalue() == expected.getvalue()


def test_anything_but_a_plain_line_goes_to_rich(capsys: pytest.CaptureFixture[str]) -> None:
    console = LazyConsole()
    console.print("[bold]ok[/bold]")
    assert capsys.readouterr().out == "ok\n"
    assert "rich" in console.__dict__
