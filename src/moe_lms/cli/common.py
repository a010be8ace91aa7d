"""What every command shares: the consoles, the default bank, and problems printed the same way."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, NoReturn, TextIO, cast

import click

from .. import loader
from ..model import Bank
from ..problems import Problem, Severity

if TYPE_CHECKING:
    from rich.console import Console

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
SHIPPED_BANK_ID = "moe-expert-parallelism"

# What rich would change in a plain line: a tab, a control code it strips.
_NOT_PLAIN = re.compile(r"[\t\x07\x08\x0b\x0c\r]")


class LazyConsole:
    """A rich Console made when first needed. Most commands print a few plain lines, written here exactly as rich
    writes them outside a terminal. A second path kept for the 1.5x start-up floor (issue 29, docs/design/
    speed.md): the shipped bank's QTI 2.1 export took 0.57 s of CPU with rich for every line against 0.49 s,
    1.93x text2qti's against 1.54x."""

    def __init__(self, *, stderr: bool = False) -> None:
        self._stderr = stderr

    @cached_property
    def rich(self) -> Console:
        from rich.console import Console

        return Console(
            stderr=self._stderr, highlight=False, soft_wrap=True, emoji=False
        )  # ("ur.po:100:" is a line, not 💯)

    @property
    def _file(self) -> TextIO:
        return sys.stderr if self._stderr else sys.stdout  # looked up each time, as rich does

    @property
    def is_terminal(self) -> bool:
        if "rich" in self.__dict__ or {"TTY_COMPATIBLE", "FORCE_COLOR", "FORCE_TERMINAL"} & os.environ.keys():
            return self.rich.is_terminal
        isatty = getattr(self._file, "isatty", None)
        try:
            return isatty is not None and isatty() and self.rich.is_terminal
        except ValueError:  # a closed file
            return False

    def print(self, *objects: Any, **options: Any) -> None:
        text = objects[0] if len(objects) == 1 else None
        plain = options == {"markup": False} and isinstance(text, str) and not _NOT_PLAIN.search(text)
        if plain and not self.is_terminal:
            self._file.write(f"{text}\n")
            self._file.flush()
        else:
            self.rich.print(*objects, **options)


out = LazyConsole()
err = LazyConsole(stderr=True)


def _checkout() -> Path | None:
    """The moe-lms checkout this code runs from (an editable install), or None for an installed package."""
    root = Path(__file__).resolve().parents[3]
    return root if (root / "question_bank" / SHIPPED_BANK_ID).is_dir() and (root / "pyproject.toml").is_file() else None


def shipped_bank_dir() -> Path:
    """The bank that ships with moe-lms: beside the source tree, else under the current folder."""
    root = _checkout()
    if root is not None:
        return root / "question_bank" / SHIPPED_BANK_ID
    return Path("question_bank") / SHIPPED_BANK_ID


def _inside_checkout() -> bool:
    root = _checkout()
    return root is not None and Path.cwd().resolve().is_relative_to(root)


def no_bank_here(directory: Path) -> click.UsageError:
    """Exit 2, saying there is no bank in ``directory`` and the two ways out: make one, or name one."""
    where = "the current folder" if directory == Path(".") else shown(directory)
    return click.UsageError(
        f"no bank here: {where} has no {loader.BANK_FILE} (or {loader.BANK_FILE_OTHER_NAME}). "
        "Make one here with `moe-lms init` (or in a new folder: `moe-lms init DIR`), or name the folder of a bank "
        "as BANK_DIR, the argument after the command (`moe-lms check path/to/bank`)"
    )


def bank_dir_or_default(value: Path | None) -> Path:
    """The bank a command works on: the BANK_DIR argument, else the current folder when it holds bank.yaml (or
    bank.yml), else, only inside the moe-lms checkout, the shipped bank. Anywhere else a command without a bank
    stops (exit 2): exporting a bank the user did not mean is worse than no export.
    Says which bank on stderr, in one line, so nobody edits one bank while checking another."""
    if value is not None:
        directory, why = value, ""
    elif loader.bank_yaml_path(Path(".")).is_file():
        directory, why = Path("."), f" ({loader.bank_yaml_path(Path('.')).name} in the current folder)"
    elif _inside_checkout():
        directory = shipped_bank_dir()
        why = (
            f" (the bank shipped with moe-lms: inside its checkout, no {loader.BANK_FILE} in the current folder and "
            "no BANK_DIR given)"
        )
    else:
        raise no_bank_here(Path("."))
    if not loader.bank_yaml_path(directory).is_file():
        raise no_bank_here(directory)
    if (directory / loader.BANK_FILE).is_file() and (directory / loader.BANK_FILE_OTHER_NAME).is_file():
        raise click.UsageError(
            f"{shown(directory)} has both {loader.BANK_FILE} and {loader.BANK_FILE_OTHER_NAME}: keep one "
            f"(moe-lms reads {loader.BANK_FILE})"
        )
    err.print(terminal_safe(f"bank: {shown(directory)}{why}"), markup=False)
    return directory


def is_shipped_bank(directory: Path) -> bool:
    return directory.resolve() == shipped_bank_dir().resolve()


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


_NUMBERS_WIDTH = 64  # what a bar with a total needs besides its description: bar, %, counts, rate, time left


@contextmanager
def progress(what: str, total: int | None = None, *, unit: str = "") -> Iterator[Callable[[int], None]]:
    """Show ``what`` is being done on stderr while the block runs, when stderr is a terminal (never in a pipe, a
    file or CI logs, whose output stays exactly as it was). Yields ``advance(n)``. With a ``total``: a bar, the
    percentage done, how much of how much, the rate (``unit`` per second: bytes, files ...) and the time left;
    with ``unit="bytes"`` and no total, the size written so far and its rate; otherwise a spinner with the
    elapsed time."""
    if not err.is_terminal:
        yield _nothing
        return
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        FileSizeColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        SpinnerColumn,
        Task,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )
    from rich.text import Text

    class RateColumn(ProgressColumn):
        """Items per second (rich's own rate column is for bytes)."""

        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text("" if speed is None else f"{speed:,.1f} {unit or 'items'}/s", style="progress.data.speed")

    columns: list[ProgressColumn] = [SpinnerColumn(), TextColumn("{task.description}")]
    if total is not None:
        columns += [BarColumn(bar_width=20), TaskProgressColumn()]
        if unit == "bytes":
            columns += [DownloadColumn(), TransferSpeedColumn()]
        else:
            columns += [MofNCompleteColumn(), RateColumn()]
        columns.append(TimeRemainingColumn())
    else:
        if unit == "bytes":
            columns += [FileSizeColumn(), TransferSpeedColumn()]
        columns.append(TimeElapsedColumn())
    # The numbers are never cut: on a narrow terminal the description gives way (ending in "…").
    room = max(12, err.rich.width - (_NUMBERS_WIDTH if total is not None else 30))
    if len(what) > room:
        what = what[: room - 1] + "…"
    with Progress(*columns, console=err.rich, transient=True) as bar:
        task = bar.add_task(what, total=total)

        def advance(n: int) -> None:
            bar.advance(task, n)

        yield advance


def _nothing(n: int) -> None:
    pass


def counting(stream: BinaryIO, advance: Callable[[int], None]) -> BinaryIO:
    """``stream``, reporting to ``advance`` how many bytes are written through it (for ``progress(unit="bytes")``);
    everything else (seek, tell, flush: the zip writer uses them) goes straight to ``stream``."""
    if advance is _nothing:  # not on a terminal: the stream as it is, not one call more per write
        return stream
    return cast(BinaryIO, _CountingWriter(stream, advance))


class _CountingWriter:
    def __init__(self, stream: BinaryIO, advance: Callable[[int], None]) -> None:
        self._stream, self._advance = stream, advance

    def write(self, data: bytes) -> int:
        written = self._stream.write(data)
        self._advance(len(data))
        return written

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def read_with_progress(directory: Path) -> tuple[Bank | None, list[Problem]]:
    """loader.check_bank, with a bar over the bytes of bank.yaml and the PO files on a terminal."""
    files = [loader.bank_yaml_path(directory), *sorted((directory / loader.LOCALES_DIR).glob("*.po"))]
    total = sum(path.stat().st_size for path in files if path.is_file())
    with progress(f"reading the bank in {shown(directory)}", total, unit="bytes") as advance:
        token = loader.reading_progress.set(None if advance is _nothing else advance)
        try:
            return loader.check_bank(directory)
        finally:
            loader.reading_progress.reset(token)


def load_or_exit(directory: Path) -> Bank:
    """The bank in ``directory``; its errors end the command, its warnings are printed and the command goes on."""
    bank, problems = read_with_progress(directory)
    if bank is None or any(p.severity is Severity.ERROR for p in problems):
        fail(problems)
    print_problems(problems)
    return bank


class NearChoice(click.Choice[str]):
    """A choice read whatever its case (``Moodle``), and a wrong one answered with the nearest (``moodel`` → did you
    mean 'moodle'?) besides the list."""

    def __init__(self, choices: Sequence[str]) -> None:
        super().__init__(choices, case_sensitive=False)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            return str(super().convert(value, param, ctx))
        except click.BadParameter:
            import difflib

            near = difflib.get_close_matches(str(value).lower(), [str(c) for c in self.choices], n=1, cutoff=0.6)
            hint = f"did you mean {near[0]!r}? " if near else ""
            choices = ", ".join(repr(c) for c in self.choices)
            self.fail(f"{value!r} is not a format: {hint}The formats are {choices}.", param, ctx)


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
