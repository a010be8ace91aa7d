"""What every command shares: the consoles, the default bank, and problems printed the same way."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import NoReturn

import click
from rich.console import Console

from .. import loader
from ..model import Bank
from ..problems import Problem, ProblemsFound, Severity

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
SHIPPED_BANK_ID = "moe-expert-parallelism"

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def shipped_bank_dir() -> Path:
    """The bank that ships with moe-lms: beside the source tree, else under the current folder."""
    beside_source = Path(__file__).resolve().parents[3] / "question_bank" / SHIPPED_BANK_ID
    if beside_source.is_dir():
        return beside_source
    return Path("question_bank") / SHIPPED_BANK_ID


def bank_dir_or_default(value: Path | None) -> Path:
    directory = value or shipped_bank_dir()
    if not (directory / loader.BANK_FILE).is_file():
        raise click.UsageError(f"{directory} is not a bank directory (it has no {loader.BANK_FILE})")
    return directory


_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROLS_BUT_NEWLINE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def terminal_safe(text: str, *, newlines: bool = False) -> str:
    """Outside text (a server's answer, a bank's or a PO file's words) made harmless to print: every C0 and C1
    control character and DEL, which a terminal takes as the start of an escape sequence, is shown as a visible
    ``\\xNN`` instead. Newlines too, unless ``newlines`` (so a message cannot forge lines of output)."""
    pattern = _CONTROLS_BUT_NEWLINE if newlines else _CONTROLS
    return pattern.sub(lambda m: f"\\x{ord(m[0]):02x}", text)


def print_problems(problems: list[Problem]) -> None:
    for p in sorted(problems, key=lambda p: (p.file, p.line or 0, p.column or 0)):
        err.print(terminal_safe(str(p), newlines=True), markup=False)


def fail(problems: list[Problem]) -> NoReturn:
    print_problems(problems)
    errors = sum(1 for p in problems if p.severity is Severity.ERROR)
    err.print(f"{errors} error(s).", markup=False)
    sys.exit(EXIT_PROBLEMS)


def load_or_exit(directory: Path) -> Bank:
    try:
        return loader.load_bank(directory)
    except ProblemsFound as exc:
        fail(exc.problems)


def shown(path: Path) -> str:
    """A path as short as it can be said: relative to the current folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


bank_argument = click.argument(
    "bank_dir", required=False, type=click.Path(path_type=Path, file_okay=False), metavar="[BANK_DIR]"
)
include_drafts_option = click.option(
    "--include-drafts", is_flag=True, help="Use draft (fuzzy) translations instead of the source text."
)
