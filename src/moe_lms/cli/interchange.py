"""Files from elsewhere: validate packages before an LMS sees them, import them into banks.

Both commands come from the format registry (:mod:`moe_lms.formats`): ``import <name>`` for each format with a
``read``, ``validate`` over each format with a ``check``, choosing the one whose ``sniff`` is surest. Nothing here
names a format.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from .. import formats, loader, schemas, zipsafe
from ..files import InputTooLarge, read_limited, remove_file
from ..locales import locale_info
from ..merge import MergeError, changed_files, merge_banks
from ..model import Bank
from ..problems import Problem, ProblemsFound, Severity
from .common import err, fail, out, print_problems, progress


def _read_limited(path: Path, limit: int, *, option: bool = False) -> bytes:
    """The file, unless it is over ``limit`` (then exit 1, naming --max-size when the command has it)."""
    size = path.stat().st_size
    if size > limit and option:
        message = f"the file is {size / 2**20:,.1f} MiB, over the limit of {limit // 2**20:,} MiB (--max-size)"
        fail([Problem(str(path), None, message)])
    try:  # (a pipe or a device declares no size, or 0: the read itself stops at the limit)
        return read_limited(path, limit)
    except InputTooLarge as exc:
        fail([Problem(str(path), None, f"{exc} (--max-size)" if option else str(exc))])


_REPLACE_HELP = (
    "Replace the bank in BANK_DIR (its questions and translations, reviewed and draft) instead of merging the "
    "import into it; --force is the same."
)


def _check_target(bank_dir: Path, replace: bool) -> None:
    """Before reading anything: a folder holding translations but no bank.yaml has nothing to merge into, and
    its files are the user's: refuse to overwrite them unless told."""
    if replace or loader.bank_yaml_path(bank_dir).exists():
        return
    catalogs = sorted((bank_dir / loader.LOCALES_DIR).glob("*.po"))
    if catalogs:
        names = ", ".join(str(p) for p in catalogs)
        raise click.UsageError(
            f"{bank_dir} holds {names} but no {loader.BANK_FILE}, so there is no bank to merge the import into; "
            "pass --replace to overwrite them"
        )


def _write_imported(bank: Bank, bank_dir: Path, replace: bool) -> tuple[Bank, list[Path]]:
    """Merge ``bank`` into the bank in ``bank_dir`` (or write it there when there is none, or with ``replace``).
    Returns the bank now in the folder and the files written; files of unchanged parts are not touched."""
    if replace or not loader.bank_yaml_path(bank_dir).exists():
        if replace:  # catalogs of locales the new bank does not have would no longer load
            for stale in sorted((bank_dir / loader.LOCALES_DIR).glob("*.po")):
                if stale.stem not in bank.target_locales:
                    remove_file(stale, within=bank_dir)
                    err.print(
                        f"removed {stale} (--replace: the imported bank has no locale {stale.stem})", markup=False
                    )
        return bank, loader.save_bank(bank, bank_dir)
    target, problems = loader.check_bank(bank_dir)
    errors = [p for p in problems if p.severity is Severity.ERROR]
    if target is None or errors:
        hint = Problem(
            str(loader.bank_yaml_path(bank_dir)), None, "the bank to merge into has errors: fix them, or pass --replace"
        )
        fail([*(errors or problems), hint])
    try:
        merged = merge_banks(target, bank)
    except MergeError as exc:
        fail([Problem(str(loader.bank_yaml_path(bank_dir)), None, str(exc))])
    bank_file, locales = changed_files(target, merged)
    return merged, loader.save_bank(merged, bank_dir, bank_file=bank_file, locales=locales)


def _written(paths: list[Path]) -> str:
    return "wrote " + ", ".join(str(p) for p in paths) if paths else "no file changed"


def _not_xml(data: bytes, file: Path) -> str | None:
    """What a file that validate does not check looks like (GIFT, JSON, HTML…), or None for XML."""
    head = data[:512].removeprefix(b"\xef\xbb\xbf").lstrip().lower()
    suffix = file.suffix.lower()
    if head.startswith((b"<!doctype html", b"<html")) or suffix in (".html", ".htm"):
        return "an HTML page"
    if head.startswith(b"<"):
        return None
    if head.startswith((b"{", b"[")) or suffix == ".json":
        return "JSON (a Canvas payload?)"
    if suffix in (".gift", ".txt") or file.name.lower().endswith(".gift.txt"):
        return "GIFT or plain text"
    return "neither a zip file nor XML"


def _checkers() -> list[formats.Format]:
    return [fmt for fmt in formats.every() if fmt.check is not None and fmt.sniff is not None]


class _Validate(click.Command):
    """validate, whose help names what it checks: each registered format's checker (imported for --help only)."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help_text(ctx, formatter)
        checked = ", ".join(f"{f.check_what} ({f.name})" for f in _checkers())
        formatter.write_paragraph()
        with formatter.indentation():
            formatter.write_text(f"Formats it checks: {checked}.")


@click.command(cls=_Validate)
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option(
    "--schemas", "schemas_dir", type=click.Path(path_type=Path, file_okay=False),
    help=f"Folder of the official XSDs (laid out like shared/schemas); default ${schemas.ENV_VAR}, "
    "else ../shared/schemas, else the user cache that `moe-lms schemas fetch` fills.",
)  # fmt: skip
def validate(file: Path, schemas_dir: Path | None) -> None:
    """Check a package or file before an LMS sees it; its format is found from its content.

    Each format's sniff says how sure it is that the file is of its format; the surest wins. Where the format has
    official XML Schemas, XSD validation, then what XSD cannot check (identifiers unique, referenced outcomes
    declared, answer keys, every choice with its feedback, manifest and zip agree); else its structural checks.
    """
    data = _read_limited(file, zipsafe.MAX_PACKAGE_BYTES)
    scored = [(fmt.sniff(data, file.name), fmt) for fmt in _checkers() if fmt.sniff is not None]
    surest = max((score for score, _ in scored), default=formats.NO)
    chosen = [fmt for score, fmt in scored if score == surest and score > formats.NO]
    if not chosen:
        what = ", ".join(f.check_what for f in _checkers())
        raise click.UsageError(f"{file} looks like {_not_xml(data, file) or 'no format validate checks'}: "
                               f"validate checks {what}")  # fmt: skip
    fmt = chosen[0]
    assert fmt.check is not None
    validators = _validators(schemas_dir, fmt)
    try:
        problems = fmt.check(data, validators, name=str(file))
    except schemas.SchemaError as exc:
        raise click.UsageError(str(exc)) from None
    if any(p.severity is Severity.ERROR for p in problems):
        fail(problems)
    print_problems(problems)
    if fmt.check_schemas is None:
        checks = fmt.check_detail
    else:
        checks = "XSD and semantic checks" if validators else "semantic checks only"
    out.print(f"{file}: ok ({fmt.check_what}: {checks})", markup=False)


def _validators(schemas_dir: Path | None, fmt: formats.Format) -> schemas.Schemas | None:
    """The XSDs ``fmt`` is checked against, saying whether XSD validation is done; None when not."""
    if fmt.check_schemas is None:
        out.print(f"XSD validation: not applicable ({fmt.check_what} has no official schema)", markup=False)
        return None
    folder = fmt.check_schemas
    try:
        directory = schemas.locate(schemas_dir)
        validators = schemas.load(directory) if directory else None
    except schemas.SchemaError as exc:
        raise click.UsageError(str(exc)) from None
    if validators is None:
        out.print(
            f"XSD validation: NOT DONE (no schema folder found; run `moe-lms schemas fetch` once, or pass "
            f"--schemas DIR or set {schemas.ENV_VAR})",
            markup=False,
        )
        return None
    if not validators.has(folder):
        out.print(
            f"XSD validation: NOT DONE ({validators.directory} has no {folder}/ schemas; `moe-lms schemas fetch` puts "
            f"every schema in the user cache, which validate reads when no --schemas or {schemas.ENV_VAR} names "
            "another folder)",
            markup=False,
        )
        return None
    out.print(f"XSD validation: done, against {validators.directory}", markup=False)
    return validators


_OUTPUT = click.option(
    "-o", "--output", "bank_dir", required=True, type=click.Path(path_type=Path, file_okay=False),
    help="Bank directory to create, or to merge the import into (bank.yaml and locales/*.po).",
)  # fmt: skip
_REPLACE = click.option("--replace", "--force", "replace", is_flag=True, help=_REPLACE_HELP)
_LOCALE = click.option(
    "--locale", "source_locale", metavar="TAG",
    help="Source locale of the bank; for files that do not say (from Moodle, without multilang spans) "
    "the language their text is in. Default: the first locale of a file moe-lms wrote, else en.",
)  # fmt: skip


def _max_size(default: int) -> Callable[[click.Command], click.Command]:
    return click.option(
        "--max-size", "max_mib", type=click.IntRange(1), default=default // 2**20, show_default=True,
        help="Largest file to read, in MiB; raise it for a large file you trust.",
    )  # fmt: skip


class _Imports(click.Group):
    """``import <name>`` for each registered format that has a reader, made when asked for (listing them imports
    every format's package, not its reader)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name in formats.names() if formats.get(name).read is not None]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in formats.names() or formats.get(cmd_name).read is None:
            return None
        return import_command(formats.get(cmd_name))


@click.group("import", cls=_Imports)
def import_() -> None:
    """Read a file from another tool or LMS into a bank directory."""


def import_command(fmt: formats.Format) -> click.Command:
    """The ``import <fmt.name>`` command: its files, -o, --replace, and the options the format reads."""
    several = fmt.read_several
    limit = fmt.read_limit or zipsafe.MAX_PACKAGE_BYTES

    def run(
        files: tuple[Path, ...] | Path, bank_dir: Path, replace: bool, source_locale: str | None = None,
        max_mib: int | None = None,
    ) -> None:  # fmt: skip
        paths = files if isinstance(files, tuple) else (files,)
        _import(fmt, paths, bank_dir, replace, source_locale, limit if max_mib is None else max_mib * 2**20)

    command: click.Command = click.Command(fmt.name, callback=run, help=fmt.read_help or None)
    decorators: list[Callable[[click.Command], click.Command]] = [
        click.argument("files", nargs=-1 if several else 1, required=True,
                       type=click.Path(path_type=Path, dir_okay=False, exists=True)),
        _OUTPUT, _REPLACE,
        *([_LOCALE] if "locale" in fmt.read_options else []),
        *([_max_size(limit)] if "max_size" in fmt.read_options else []),
    ]  # fmt: skip
    for decorate in reversed(decorators):
        command = decorate(command)
    return command


def _import(
    fmt: formats.Format, paths: tuple[Path, ...], bank_dir: Path, replace: bool, locale: str | None, limit: int
) -> None:
    """What every import does: check the target, read the files within the size limit (with a spinner on a
    terminal), then merge or write the bank."""
    assert fmt.read is not None
    _check_target(bank_dir, replace)
    if locale is not None:
        try:
            locale_info(locale)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
    files = [(str(path), _read_limited(path, limit, option="max_size" in fmt.read_options)) for path in paths]
    try:
        with progress(f"reading {', '.join(str(p) for p in paths)}"):
            imported = fmt.read(files, locale=locale, max_bytes=limit)
    except ProblemsFound as exc:
        fail(exc.problems)
    for skipped in imported.skipped:
        err.print(f"{paths[0]}: not imported: {skipped}", markup=False)
    print_problems(imported.warnings)
    count = len(imported.bank.questions)
    with progress(f"writing the bank into {bank_dir}"):
        bank, written = _write_imported(imported.bank, bank_dir, replace)
    out.print(
        f"imported {count} questions into {bank_dir}: {len(bank.questions)} questions, source "
        f"{bank.source_locale}, targets {', '.join(bank.target_locales) or 'none'}"
        + (f"; {len(imported.skipped)} question(s) of other types not imported" if imported.skipped else "")
        + f"; {_written(written)}",
        markup=False,
    )
