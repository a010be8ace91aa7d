"""Files for LMSs: one export, or the whole ready-to-import shelf."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import click

from .. import formats, loader
from ..files import make_folder, remove_file, replace_if_changed, write_atomic_stream
from ..locales import locale_info, resolve
from ..problems import OptionError, Problem, ProblemsFound, Severity
from .common import (
    EXIT_PROBLEMS,
    NearChoice,
    bank_argument,
    bank_dir_or_default,
    counting,
    err,
    fail,
    include_drafts_option,
    is_shipped_bank,
    load_or_exit,
    out,
    print_problems,
    progress,
    shipped_bank_dir,
    shown,
)

if TYPE_CHECKING:
    from .. import shelf
    from ..model import Bank


def default_filename(bank_id: str, locales: tuple[str, ...], suffix: str) -> str:
    """``<bank>.<locale><suffix>`` for one locale (as ``build`` names it), ``<bank>.<l1>+<l2><suffix>`` for a
    choice of several, ``<bank><suffix>`` for every locale: exports of different locales never overwrite each
    other."""
    return f"{bank_id}.{'+'.join(locales)}{suffix}" if locales else f"{bank_id}{suffix}"


class _Formats(NearChoice):
    """--format's choices: the registry's as it is when the command runs (a format registered later is one), read
    whatever their case, a typo answered with the nearest."""

    def __init__(self) -> None:
        super().__init__([])

    @property  # type: ignore[override]
    def choices(self) -> list[str]:
        return formats.names()

    @choices.setter
    def choices(self, value: object) -> None:
        pass


class _Shelf(click.Command):
    """build, whose help names the formats on the shelf (imported for --help only)."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from ..shelf import shelved

        super().format_help_text(ctx, formatter)
        formatter.write_paragraph()
        with formatter.indentation():
            names = ", ".join(f"{f.shelf.label} ({f.name})" for f in shelved() if f.shelf)
            formatter.write_text(f"On the shelf: {names}.")


@click.command()
@click.option("--format", "format_name", required=True, type=_Formats(), help="Output format.")
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
@click.option(
    "--quiz", "quiz", metavar="ID", help="One of the bank's quizzes (quizzes: in bank.yaml); default: every question."
)
@click.option(
    "--drop-images", is_flag=True,
    help="gift: leave images out, with a warning for each (GIFT cannot carry them); else such a bank is refused.",
)  # fmt: skip
@click.option(
    "--strict", is_flag=True, help="Refuse to write when the format would drop or degrade anything (its warnings)."
)
def export(
    format_name: str,
    bank_dir: Path | None,
    locales: tuple[str, ...],
    include_drafts: bool,
    multilang: bool,
    output: Path | None,
    parents: bool,
    quiz: str | None,
    drop_images: bool,
    strict: bool,
) -> None:
    """Export a bank to a file an LMS imports."""
    fmt = formats.get(format_name)
    for option, given in (("multilang", multilang), ("drop_images", drop_images)):
        if given and option not in fmt.accepts:
            takers = ", ".join(f.name for f in formats.every() if option in f.accepts)
            flag = "--" + option.replace("_", "-")
            raise click.UsageError(f"{flag} is for --format {takers} only, not {fmt.name}")
    if fmt.one_locale_per_file and len(locales) > 1:
        raise click.UsageError(
            f"--format {fmt.name} writes one language per file: give one --locale (moe-lms build writes them all)"
        )
    if quiz is not None and not fmt.quizzes:
        raise click.UsageError(f"--quiz: --format {fmt.name} is refused: {fmt.quiz_refusal}")
    directory = bank_dir_or_default(bank_dir)
    bank = load_or_exit(directory)
    defaulted = fmt.one_locale_per_file and not locales  # (one file, of the source language only)
    if defaulted:
        locales = (bank.source_locale,)
    try:
        options = formats.ExportOptions.for_bank(
            bank, locales, quiz=quiz, include_drafts=include_drafts, multilang=multilang, drop_images=drop_images
        )
    except OptionError as exc:
        raise click.UsageError(str(exc)) from None
    _report_warnings(fmt, bank, options, strict=strict, directory=directory)
    stem = bank.id if quiz is None else f"{bank.id}.{quiz}"
    target = output or Path(default_filename(stem, locales, fmt.suffix))
    try:
        if str(target) == "-":
            fmt.write(bank, options, sys.stdout.buffer)
        else:
            with progress(f"writing {target}", unit="bytes") as advance:
                write_atomic_stream(
                    target,
                    lambda stream: fmt.write(bank, options, counting(stream, advance)),
                    within=target.parent,
                    parents=parents,
                )
    except ProblemsFound as exc:
        fail(loader.placed(directory, bank, exc.problems))
    if str(target) != "-":
        err.print(f"wrote {target} ({fmt.description}, {len(bank.questions)} questions)", markup=False)
    for locale in options.locales:
        err.print(resolve(bank, locale, include_drafts=include_drafts).summary(), markup=False)
    others = [loc for loc in bank.locales if loc not in options.locales]
    if defaulted and others and str(target) != "-":
        err.print(
            f"note: --format {fmt.name} writes one language per file; the bank's other languages: "
            + ", ".join(f"--locale {loc}" for loc in others)
            + " (moe-lms build writes them all)",
            markup=False,
        )


def _report_warnings(
    fmt: formats.Format, bank: Bank, options: formats.ExportOptions, *, strict: bool, directory: Path
) -> None:
    """What the export drops or degrades, said before writing (the format's warnings channel), each at its line;
    with ``strict``, or when the format refuses something outright, nothing is written."""
    found = loader.placed(directory, bank, fmt.warnings(bank, options)) if fmt.warnings else []
    dropped = [p for p in found if p.severity is Severity.WARNING]  # notes say what to do; nothing is lost
    if strict and dropped:
        fail([replace(p, severity=Severity.ERROR, message=f"{p.message} (--strict)") for p in dropped])
    if any(p.severity is Severity.ERROR for p in found):
        fail(found)
    print_problems(found)


def _default_shelf(directory: Path) -> Path:
    """exporters/ at the top of the checkout for the shipped bank, else in the current folder."""
    if is_shipped_bank(directory):
        return shipped_bank_dir().resolve().parents[1] / "exporters"
    return Path("exporters")


def _is_shelf_file(path: Path) -> bool:
    return path.is_file() and not path.name.startswith(".")


def _records(folder: Path, bank_id: str, planned: set[str], init: bool) -> dict[str, shelf.Record]:
    """What the shelf in ``folder`` holds, by bank, from its manifest; exits when ``folder`` is not a shelf.

    A folder without a manifest is a shelf when it is missing or empty, or when it is one an older moe-lms built
    (its README begins as moe-lms's do and every file is one this bank's build makes, or is named after the bank);
    otherwise only ``--init`` makes it one, and even then no file of the user's is overwritten.
    """
    from .. import shelf  # the shelf's planning and manifest: only build needs them

    manifest = folder / shelf.MANIFEST
    if manifest.is_file():
        try:
            return shelf.read_manifest(manifest.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            fail([Problem(shown(manifest), None, f"is not a manifest moe-lms build wrote: {exc}")])
    present = sorted(p.name for p in folder.iterdir() if _is_shelf_file(p)) if folder.is_dir() else []
    readme = folder / shelf.README
    ours = [name for name in present if name != shelf.README and (name in planned or name.startswith(f"{bank_id}."))]
    if shelf.README in present and len(ours) == len(present) - 1:
        with readme.open(encoding="utf-8", errors="replace") as stream:
            if stream.readline().startswith(shelf.TITLE):  # a shelf an older moe-lms wrote, before manifests
                # (its files are ours by their names, as the older moe-lms named them: their bytes are taken as is)
                digests = {name: shelf.file_sha256(folder / name) or "" for name in ours}
                return {bank_id: shelf.Record(tuple(ours), "", digests)}
    if present and not init:
        others = ", ".join(present[:5]) + (", …" if len(present) > 5 else "")
        fail([Problem(
            shown(folder), None,
            f"is not a moe-lms shelf (no {shelf.MANIFEST}) and holds files moe-lms did not write ({others}): "
            "build into an empty or new folder, or pass --init to make this one a shelf "
            "(moe-lms then never overwrites or deletes a file it did not write)",
        )])  # fmt: skip
    return {}


@click.command(cls=_Shelf)
@bank_argument
@click.option(
    "--out", "out_dir", type=click.Path(path_type=Path, file_okay=False),
    help="Folder of the shelf; default exporters/ at the top of the checkout.",
)  # fmt: skip
@click.option("--check", is_flag=True, help="Write nothing; exit 1 naming every file that differs from a fresh build.")
@click.option("--init", is_flag=True, help="Make a folder holding other files a shelf (their files are left alone).")
@include_drafts_option
@click.option(
    "-j", "--jobs", type=click.IntRange(min=1),
    help="Processes writing files at once; default: one per core this process may use.",
)  # fmt: skip
def build(
    bank_dir: Path | None, out_dir: Path | None, check: bool, init: bool, include_drafts: bool, jobs: int | None
) -> None:
    """Write a bank's ready-to-import files into exporters/: per locale a file of each format on the shelf, the
    files carrying every locale, and a README saying which file to take and how to import it.

    A shelf may hold several banks; its README lists them all. build records what it wrote in the shelf's
    .moe-lms-shelf.json and never overwrites or deletes a file it did not write. The files are written in
    parallel, one process per core, each byte for byte what a one-process build (--jobs 1) writes."""
    from .. import shelf  # the shelf's planning and manifest: only build needs them
    from ..shelf_pool import locked

    directory = bank_dir_or_default(bank_dir)
    bank = load_or_exit(directory)
    folder = out_dir or _default_shelf(directory)
    plan = shelf.plan(bank, include_drafts=include_drafts, source=shelf.source_name(directory, folder))
    refused = "is a symbolic link: a shelf and its manifest are never written through one"
    for link in (folder, folder / shelf.MANIFEST):
        if link.is_symlink():  # (a cloned repository can hold one: build writes only into the shelf itself)
            fail([Problem(shown(link), None, refused)])
    if not check:
        make_folder(folder)
    if not folder.is_dir():  # (--check of a shelf not built yet: nothing to lock, every file missing)
        _build(bank, plan, folder, check=check, init=init, include_drafts=include_drafts, jobs=jobs)
        return
    with locked(folder, exclusive=not check, wait=lambda: _waiting(folder)):
        _build(bank, plan, folder, check=check, init=init, include_drafts=include_drafts, jobs=jobs)


def _waiting(folder: Path) -> None:
    err.print(f"waiting for another build of {shown(folder)} to end", markup=False)


def _build(
    bank: Bank, plan: shelf.Plan, folder: Path, *, check: bool, init: bool, include_drafts: bool, jobs: int | None
) -> None:
    """build's work, with the shelf locked (when it exists)."""
    from .. import shelf
    from ..shelf_pool import usable_cpus, write_files

    planned = set(plan.filenames)
    records = _records(folder, bank.id, planned, init)
    previous = set(records[bank.id].files) if bank.id in records else set()
    others = {bank_id: r for bank_id, r in records.items() if bank_id != bank.id}
    owned = previous | {name for r in others.values() for name in r.files}
    if records or not init:
        owned.add(shelf.README)  # a shelf's README is the shelf's
    present = {p.name for p in folder.iterdir() if _is_shelf_file(p)} if folder.is_dir() else set()
    foreign = sorted((present & planned) - owned)
    taken = sorted(name for r in others.values() for name in r.files if name in planned)
    if foreign or taken:
        fail([
            *(Problem(shown(folder / n), None, "exists and moe-lms did not write it: move it away") for n in foreign),
            *(Problem(shown(folder / n), None, "belongs to another bank of this shelf") for n in taken),
        ])  # fmt: skip
    kept = dict(records[bank.id].sha256) if bank.id in records else {}
    digests: dict[str, str] = {}
    problems: list[Problem] = []
    written = unchanged = 0
    try:
        if not check:
            make_folder(folder)
            # Claim the files before writing them, so an interrupted build still knows them as its own.
            claimed = tuple(sorted(previous | planned - {shelf.README}))
            claim = {**others, bank.id: shelf.Record(claimed, "", {n: d for n, d in kept.items() if n in previous})}
            replace_if_changed(
                folder / shelf.MANIFEST, _bytes(shelf.manifest_text(claim).encode("utf-8")), within=folder
            )
        with progress(f"{'checking' if check else 'building'} {shown(folder)}", len(planned), unit="files") as advance:
            writers = list(shelf.writers(plan, others))
            for locale in bank.locales:  # Babel's data read once here, not once in each forked worker
                locale_info(locale)
            for outcome in write_files(folder, writers, replace=not check, jobs=jobs or usable_cpus(), advance=advance):
                if outcome.problems:
                    raise ProblemsFound(list(outcome.problems))
                if outcome.sha256:
                    digests[outcome.name] = outcome.sha256
                if not outcome.changed:
                    unchanged += 1
                elif check:
                    what = "is missing" if outcome.name not in present else "differs from a fresh build"
                    problems.append(Problem(shown(folder / outcome.name), None, what))
                else:
                    written += 1
    except ProblemsFound as exc:
        fail(exc.problems)
    manifest = shelf.manifest_text({**others, bank.id: shelf.record(plan, digests)}).encode("utf-8")
    for name in sorted((previous - planned) & present):
        target = folder / name
        if check:
            problems.append(Problem(shown(target), None, "is extra: a fresh build does not make it"))
        elif kept.get(name) and shelf.file_sha256(target) == kept[name]:
            remove_file(target, within=folder)
            err.print(f"removed {shown(target)} (a fresh build does not make it)", markup=False)
        else:  # (the manifest is committed: its list alone never makes build delete a file)
            err.print(
                f"left {shown(target)} alone: the manifest lists it, but its bytes are not those moe-lms wrote "
                "(edited since, or never written by build); delete it yourself if it is stale",
                markup=False,
            )
    if check:
        if not replace_if_changed(folder / shelf.MANIFEST, _bytes(manifest), within=folder, replace=False):
            unchanged += 1
        else:
            what = "differs from a fresh build" if (folder / shelf.MANIFEST).exists() else "is missing"
            problems.append(Problem(shown(folder / shelf.MANIFEST), None, what))
        if problems:
            print_problems(problems)
            err.print(f"{shown(folder)} is stale: run moe-lms build and commit the result.", markup=False)
            sys.exit(EXIT_PROBLEMS)
        out.print(f"{shown(folder)}: all {unchanged} files are up to date", markup=False)
        return
    replace_if_changed(folder / shelf.MANIFEST, _bytes(manifest), within=folder)
    for name in sorted(present - owned - planned):
        err.print(f"left {shown(folder / name)} alone: moe-lms did not write it", markup=False)
    out.print(f"{shown(folder)}: {written} written, {unchanged} unchanged", markup=False)
    for item in plan.items:  # (say which files lack what)
        shelf_entry = formats.get(item.format_name).shelf
        if item.options.drop_images and shelf_entry is not None:
            out.print(
                f"{item.filename}: without its images ({', '.join(sorted(bank.media))}), "
                f"each shown as its alt text in brackets: {shelf_entry.without_images}",
                markup=False,
            )
    for locale in bank.target_locales:
        out.print(resolve(bank, locale, include_drafts=include_drafts).summary(), markup=False)


def _bytes(data: bytes) -> Callable[[BinaryIO], object]:
    return lambda stream: stream.write(data)
