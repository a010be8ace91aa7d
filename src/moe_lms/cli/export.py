"""Files for LMSs: one export, or the whole ready-to-import shelf."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .. import formats, shelf
from ..files import make_folder, replace_if_changed, write_atomic_stream
from ..locales import resolve
from ..problems import Problem, ProblemsFound
from .common import (
    EXIT_PROBLEMS,
    bank_argument,
    bank_dir_or_default,
    err,
    fail,
    include_drafts_option,
    is_shipped_bank,
    load_or_exit,
    out,
    print_problems,
    shipped_bank_dir,
    shown,
)


def default_filename(bank_id: str, locales: tuple[str, ...], suffix: str) -> str:
    """``<bank>.<locale><suffix>`` for one locale (as ``build`` names it), ``<bank>.<l1>+<l2><suffix>`` for a
    choice of several, ``<bank><suffix>`` for every locale: exports of different locales never overwrite each
    other."""
    return f"{bank_id}.{'+'.join(locales)}{suffix}" if locales else f"{bank_id}{suffix}"


@click.command()
@click.option("--format", "format_name", required=True, type=click.Choice(formats.names()), help="Output format.")
@bank_argument
@click.option(
    "--locale", "locales", multiple=True,
    help="Locale to export (repeatable); default: every locale. html and gift: one locale, default the source.",
)  # fmt: skip
@include_drafts_option
@click.option("--multilang", is_flag=True, help="Moodle: one question per bank question with every locale in it.")
@click.option(
    "-o", "--output", type=click.Path(path_type=Path, dir_okay=False, allow_dash=True),
    help="Output file, or - for stdout; default <bank-id>[.<locale>]<suffix> in the current folder.",
)  # fmt: skip
@click.option("--parents", is_flag=True, help="Create the output file's folder when it does not exist.")
def export(
    format_name: str,
    bank_dir: Path | None,
    locales: tuple[str, ...],
    include_drafts: bool,
    multilang: bool,
    output: Path | None,
    parents: bool,
) -> None:
    """Export a bank to a file an LMS imports."""
    fmt = formats.get(format_name)
    if multilang and fmt.name != "moodle":
        raise click.UsageError(f"--multilang is for --format moodle only (Moodle's multilang filter), not {fmt.name}")
    if fmt.one_locale_per_file and len(locales) > 1:
        raise click.UsageError(
            f"--format {fmt.name} writes one language per file: give one --locale (moe-lms build writes them all)"
        )
    bank = load_or_exit(bank_dir_or_default(bank_dir))
    if fmt.one_locale_per_file and not locales:
        locales = (bank.source_locale,)
    try:
        options = formats.ExportOptions.for_bank(bank, locales, include_drafts=include_drafts, multilang=multilang)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    target = output or Path(default_filename(bank.id, locales, fmt.suffix))
    try:
        if str(target) == "-":
            fmt.write(bank, options, sys.stdout.buffer)
        else:
            write_atomic_stream(target, lambda stream: fmt.write(bank, options, stream), parents=parents)
    except ProblemsFound as exc:
        fail(exc.problems)
    if str(target) != "-":
        err.print(f"wrote {target} ({fmt.description}, {len(bank.questions)} questions)", markup=False)
    for locale in options.locales:
        err.print(resolve(bank, locale, include_drafts=include_drafts).summary(), markup=False)


def _default_shelf(directory: Path) -> Path:
    """exporters/ at the top of the checkout for the shipped bank, else in the current folder."""
    if is_shipped_bank(directory):
        return shipped_bank_dir().resolve().parents[1] / "exporters"
    return Path("exporters")


def _is_shelf_file(path: Path) -> bool:
    return path.is_file() and not path.name.startswith(".")


@click.command()
@bank_argument
@click.option(
    "--out", "out_dir", type=click.Path(path_type=Path, file_okay=False),
    help="Folder of the shelf; default exporters/ at the top of the checkout.",
)  # fmt: skip
@click.option("--check", is_flag=True, help="Write nothing; exit 1 naming every file that differs from a fresh build.")
@include_drafts_option
def build(bank_dir: Path | None, out_dir: Path | None, check: bool, include_drafts: bool) -> None:
    """Write a bank's ready-to-import files into exporters/: per locale Moodle XML, QTI 2.1, Canvas, GIFT and
    HTML, one Moodle file with every locale, and a README saying which file to take and how to import it."""
    directory = bank_dir_or_default(bank_dir)
    bank = load_or_exit(directory)
    folder = out_dir or _default_shelf(directory)
    plan = shelf.plan(bank, include_drafts=include_drafts)
    if plan.skipped:
        err.print(
            f"skipped {', '.join(plan.skipped)}: not available in this moe-lms yet (left out of the shelf)",
            markup=False,
        )
    if not check:
        make_folder(folder)
    expected = set(plan.filenames)
    present = {p.name for p in folder.iterdir() if _is_shelf_file(p)} if folder.is_dir() else set()
    problems: list[Problem] = []
    written = unchanged = 0
    try:
        for name, write in shelf.writers(plan):
            target = folder / name
            if not replace_if_changed(target, write, replace=not check):
                unchanged += 1
            elif check:
                what = "is missing" if name not in present else "differs from a fresh build"
                problems.append(Problem(shown(target), None, what))
            else:
                written += 1
    except ProblemsFound as exc:
        fail(exc.problems)
    for name in sorted(present - expected):
        target = folder / name
        if check:
            problems.append(Problem(shown(target), None, "is extra: a fresh build does not make it"))
        elif name.startswith(f"{bank.id}."):
            target.unlink()
            err.print(f"removed {shown(target)} (a fresh build does not make it)", markup=False)
        else:
            err.print(f"left {shown(target)} alone: not a file moe-lms makes", markup=False)
    if check:
        if problems:
            print_problems(problems)
            err.print(f"{shown(folder)} is stale: run moe-lms build and commit the result.", markup=False)
            sys.exit(EXIT_PROBLEMS)
        out.print(f"{shown(folder)}: all {unchanged} files are up to date", markup=False)
        return
    out.print(f"{shown(folder)}: {written} written, {unchanged} unchanged", markup=False)
    for locale in bank.target_locales:
        out.print(resolve(bank, locale, include_drafts=include_drafts).summary(), markup=False)
