"""The ``moe-lms`` command: files, stdout and exit codes live here and nowhere else.

Exit codes scripts can rely on: 0 ok, 1 problems found, 2 usage error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import NoReturn

import click
from rich.console import Console
from rich.table import Table

from . import __version__, formats, loader
from .files import write_atomic, write_atomic_stream
from .locales import Status, coverage, locale_info, resolve
from .model import Bank
from .problems import Problem, ProblemsFound, Severity

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
SHIPPED_BANK_ID = "moe-expert-parallelism"

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def shipped_bank_dir() -> Path:
    """The bank that ships with moe-lms: beside the source tree, else under the current folder."""
    beside_source = Path(__file__).resolve().parents[2] / "question_bank" / SHIPPED_BANK_ID
    if beside_source.is_dir():
        return beside_source
    return Path("question_bank") / SHIPPED_BANK_ID


def _bank_dir(value: Path | None) -> Path:
    directory = value or shipped_bank_dir()
    if not (directory / loader.BANK_FILE).is_file():
        raise click.UsageError(f"{directory} is not a bank directory (it has no {loader.BANK_FILE})")
    return directory


def _print_problems(problems: list[Problem]) -> None:
    for p in sorted(problems, key=lambda p: (p.file, p.line or 0, p.column or 0)):
        err.print(str(p), markup=False)


def _fail(problems: list[Problem]) -> NoReturn:
    _print_problems(problems)
    errors = sum(1 for p in problems if p.severity is Severity.ERROR)
    err.print(f"{errors} error(s).", markup=False)
    sys.exit(EXIT_PROBLEMS)


def load_or_exit(directory: Path) -> Bank:
    try:
        return loader.load_bank(directory)
    except ProblemsFound as exc:
        _fail(exc.problems)


bank_argument = click.argument(
    "bank_dir", required=False, type=click.Path(path_type=Path, file_okay=False), metavar="[BANK_DIR]"
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="moe-lms")
def main() -> None:
    """Multiple-choice question banks as code, delivered to Moodle, QTI 2.1 platforms and Canvas.

    BANK_DIR defaults to the shipped bank, question_bank/moe-expert-parallelism.
    """


def coverage_table(bank: Bank) -> Table:
    table = Table(title=f"Translations of {bank.id}", title_justify="left")
    table.add_column("locale")
    table.add_column("language")
    table.add_column("dir")
    for status in Status:
        table.add_column(status.value, justify="right")
    table.add_column("of", justify="right")
    for locale in bank.target_locales:
        cov = coverage(bank, locale)
        info = locale_info(locale)
        table.add_row(locale, info.english_name, info.direction, *(str(cov[s]) for s in Status), str(cov.total))
    return table


@main.command()
@bank_argument
@click.option("--strict", is_flag=True, help="Also fail when a translation is missing or stale.")
def check(bank_dir: Path | None, strict: bool) -> None:
    """Validate a bank and its translations; print translation coverage per locale."""
    directory = _bank_dir(bank_dir)
    bank, problems = loader.check_bank(directory)
    if bank is None:
        _fail(problems)
    out.print(
        f"{bank.id}: {len(bank.questions)} questions, source {bank.source_locale}, "
        f"targets {', '.join(bank.target_locales) or 'none'}",
        markup=False,
    )
    if bank.target_locales:
        out.print(coverage_table(bank))
        out.print("drafts (PO 'fuzzy') need review; missing and stale strings fall back to the source text.")
    incomplete = [loc for loc in bank.target_locales if not coverage(bank, loc).complete]
    if strict:
        for loc in incomplete:
            cov = coverage(bank, loc)
            problems.append(
                Problem(
                    str(directory / loader.LOCALES_DIR / f"{loc}.po"),
                    None,
                    f"{cov[Status.MISSING]} missing and {cov[Status.STALE]} stale translation(s) (--strict)",
                )
            )
    if any(p.severity is Severity.ERROR for p in problems):
        _fail(problems)
    _print_problems(problems)
    out.print("ok")


@main.command()
def schema() -> None:
    """Print the JSON Schema of bank.yaml, for editors."""
    document = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **Bank.model_json_schema(mode="validation"),
    }
    document["title"] = "moe-lms bank.yaml"
    click.echo(json.dumps(document, indent=2, ensure_ascii=False, sort_keys=True))


@main.group()
def translations() -> None:
    """Keep the PO files of a bank in step with its source text."""


@translations.command("update")
@bank_argument
def translations_update(bank_dir: Path | None) -> None:
    """Re-sync every locale's PO file with bank.yaml, as msgmerge does.

    New strings are added empty, strings whose source changed keep their translation marked fuzzy (with the
    previous source shown to the translator), strings the bank no longer has become obsolete.
    """
    directory = _bank_dir(bank_dir)
    bank, problems = loader.read_bank_yaml(directory / loader.BANK_FILE)
    if bank is None:
        _fail(problems)
    for locale, counts in loader.update_catalogs(directory, bank).items():
        out.print(
            f"{locale}: {counts['added']} added, {counts['fuzzy']} marked fuzzy (source changed), "
            f"{counts['obsolete']} made obsolete",
            markup=False,
        )


@main.command()
@click.option("--format", "format_name", required=True, type=click.Choice(formats.names()), help="Output format.")
@bank_argument
@click.option(
    "--locale", "locales", multiple=True,
    help="Locale to export (repeatable); default: every locale. html and gift: one locale, default the source.",
)  # fmt: skip
@click.option("--include-drafts", is_flag=True, help="Use draft (fuzzy) translations instead of the source text.")
@click.option("--multilang", is_flag=True, help="Moodle: one question per bank question with every locale in it.")
@click.option(
    "-o", "--output", type=click.Path(path_type=Path, dir_okay=False, allow_dash=True),
    help="Output file, or - for stdout; default <bank-id><suffix> in the current folder.",
)  # fmt: skip
def export(
    format_name: str,
    bank_dir: Path | None,
    locales: tuple[str, ...],
    include_drafts: bool,
    multilang: bool,
    output: Path | None,
) -> None:
    """Export a bank to a file an LMS imports."""
    fmt = formats.get(format_name)
    if fmt.one_locale_per_file and len(locales) > 1:
        raise click.UsageError(
            f"--format {fmt.name} writes one language per file: give one --locale (moe-lms build writes them all)"
        )
    bank = load_or_exit(_bank_dir(bank_dir))
    if fmt.one_locale_per_file and not locales:
        locales = (bank.source_locale,)
    try:
        options = formats.ExportOptions.for_bank(bank, locales, include_drafts=include_drafts, multilang=multilang)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    default_name = f"{bank.id}.{locales[0]}{fmt.suffix}" if fmt.one_locale_per_file else f"{bank.id}{fmt.suffix}"
    target = output or Path(default_name)
    try:
        if str(target) == "-":
            fmt.write(bank, options, sys.stdout.buffer)
        else:
            write_atomic_stream(target, lambda stream: fmt.write(bank, options, stream))
    except ProblemsFound as exc:
        _fail(exc.problems)
    if str(target) != "-":
        err.print(f"wrote {target} ({fmt.description}, {len(bank.questions)} questions)", markup=False)
    for locale in options.locales:
        err.print(resolve(bank, locale, include_drafts=include_drafts).summary(), markup=False)


@main.group("import")
def import_() -> None:
    """Read a file from another tool or LMS into a bank directory."""


@main.group()
def push() -> None:
    """Send a bank straight into an LMS."""


# --- build: the ready-to-import shelf (exporters/) ----------------------------------------------------------------


def _default_shelf(bank_dir: Path | None) -> Path:
    """exporters/ at the top of the checkout for the shipped bank, else in the current folder."""
    if bank_dir is None:
        return shipped_bank_dir().resolve().parents[1] / "exporters"
    return Path("exporters")


def _shown(path: Path) -> str:
    """A path as short as it can be said: relative to the current folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _is_shelf_file(path: Path) -> bool:
    return path.is_file() and not path.name.startswith(".")


@main.command()
@bank_argument
@click.option(
    "--out", "out_dir", type=click.Path(path_type=Path, file_okay=False),
    help="Folder of the shelf; default exporters/ at the top of the checkout.",
)  # fmt: skip
@click.option("--check", is_flag=True, help="Write nothing; exit 1 naming every file that differs from a fresh build.")
@click.option("--include-drafts", is_flag=True, help="Use draft (fuzzy) translations instead of the source text.")
def build(bank_dir: Path | None, out_dir: Path | None, check: bool, include_drafts: bool) -> None:
    """Write a bank's ready-to-import files into exporters/: per locale Moodle XML, QTI 2.1, Canvas, GIFT and
    HTML, one Moodle file with every locale, and a README saying which file to take and how to import it."""
    from . import shelf

    directory = _bank_dir(bank_dir)
    bank = load_or_exit(directory)
    folder = out_dir or _default_shelf(bank_dir)
    plan = shelf.plan(bank, include_drafts=include_drafts)
    if plan.skipped:
        err.print(
            f"skipped {', '.join(plan.skipped)}: not available in this moe-lms yet (left out of the shelf)",
            markup=False,
        )
    expected = set(plan.filenames)
    present = {p.name for p in folder.iterdir() if _is_shelf_file(p)} if folder.is_dir() else set()
    problems: list[Problem] = []
    written = unchanged = 0
    try:
        for name, data in shelf.build(plan):
            target = folder / name
            old = target.read_bytes() if name in present else None
            if old == data:
                unchanged += 1
            elif check:
                what = "is missing" if old is None else "differs from a fresh build"
                problems.append(Problem(_shown(target), None, what))
            else:
                write_atomic(target, data)
                written += 1
    except ProblemsFound as exc:
        _fail(exc.problems)
    for name in sorted(present - expected):
        target = folder / name
        if check:
            problems.append(Problem(_shown(target), None, "is extra: a fresh build does not make it"))
        elif name.startswith(f"{bank.id}."):
            target.unlink()
            err.print(f"removed {_shown(target)} (a fresh build does not make it)", markup=False)
        else:
            err.print(f"left {_shown(target)} alone: not a file moe-lms makes", markup=False)
    if check:
        if problems:
            _print_problems(problems)
            err.print(f"{_shown(folder)} is stale: run moe-lms build and commit the result.", markup=False)
            sys.exit(EXIT_PROBLEMS)
        out.print(f"{_shown(folder)}: all {unchanged} files are up to date", markup=False)
        return
    out.print(f"{_shown(folder)}: {written} written, {unchanged} unchanged", markup=False)
    for locale in bank.target_locales:
        out.print(resolve(bank, locale, include_drafts=include_drafts).summary(), markup=False)
