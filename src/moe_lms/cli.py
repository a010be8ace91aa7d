"""The ``moe-lms`` command: files, stdout and exit codes live here and nowhere else.

Exit codes scripts can rely on: 0 ok, 1 problems found, 2 usage error.
"""

from __future__ import annotations

import json
import sys
from importlib import import_module
from pathlib import Path
from typing import NoReturn

import click
from rich.console import Console
from rich.table import Table

from . import __version__, formats, loader, schemas
from .files import write_atomic_stream
from .formats import qti21
from .locales import Status, coverage, locale_info, resolve
from .model import Bank
from .problems import Problem, ProblemsFound, Severity
from .xmlsafe import UnsafeXmlError, parse_untrusted

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
@click.option("--locale", "locales", multiple=True, help="Locale to export (repeatable); default: every locale.")
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
    bank = load_or_exit(_bank_dir(bank_dir))
    try:
        options = formats.ExportOptions.for_bank(bank, locales, include_drafts=include_drafts, multilang=multilang)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    target = output or Path(f"{bank.id}{fmt.suffix}")
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


# --- QTI 2.1: validate packages, import them ---------------------------------------------------------------------


def _read_limited(path: Path, limit: int) -> bytes:
    size = path.stat().st_size
    if size > limit:
        _fail([Problem(str(path), None, f"the file is {size:,} bytes; the limit is {limit:,}")])
    return path.read_bytes()


def _check_moodle(path: Path, data: bytes) -> tuple[list[Problem], str]:
    """Moodle XML: the Moodle format's structural checks when that format is installed, else well-formedness."""
    try:
        moodle = import_module(f"{formats.__name__}.moodle")
    except ModuleNotFoundError:
        moodle = None
    if moodle is not None and hasattr(moodle, "check_moodle_xml"):
        found: list[Problem] = moodle.check_moodle_xml(data)
        return found, "Moodle XML: well-formedness and structural checks"
    try:
        parse_untrusted(data)
    except UnsafeXmlError as exc:
        return [Problem(str(path), exc.line, exc.message)], "Moodle XML: well-formedness only"
    return [], "Moodle XML: well-formedness only (this build has no Moodle structural checks)"


@main.command()
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option(
    "--schemas", "schemas_dir", type=click.Path(path_type=Path, file_okay=False),
    help=f"Folder of the official XSDs (laid out like shared/schemas); default ${schemas.ENV_VAR}, "
    "else ../shared/schemas.",
)  # fmt: skip
def validate(file: Path, schemas_dir: Path | None) -> None:
    """Check a QTI 2.1 package (.zip) or a Moodle XML file before an LMS sees it.

    QTI: XSD validation against the official schemas, plus what XSD cannot check (identifiers unique, referenced
    outcomes declared, correctResponse names a choice, every choice has its feedback, manifest and zip agree).
    """
    data = _read_limited(file, qti21.MAX_PACKAGE_BYTES)
    if data[:4] == b"PK\x03\x04" or file.suffix.lower() == ".zip":
        try:
            directory = schemas.locate(schemas_dir)
            validators = schemas.load(directory) if directory else None
        except schemas.SchemaError as exc:
            raise click.UsageError(str(exc)) from None
        if validators is None:
            out.print(
                f"XSD validation: NOT DONE (no schema folder found; pass --schemas DIR or set {schemas.ENV_VAR})",
                markup=False,
            )
        else:
            out.print(f"XSD validation: done, against {validators.directory}", markup=False)
        try:
            problems = qti21.check_package(data, validators, name=str(file))
        except schemas.SchemaError as exc:
            raise click.UsageError(str(exc)) from None
        what = "QTI 2.1 package: " + ("XSD and semantic checks" if validators else "semantic checks only")
    else:
        out.print("XSD validation: not applicable (Moodle XML has no official schema)", markup=False)
        problems, what = _check_moodle(file, data)
    if any(p.severity is Severity.ERROR for p in problems):
        _fail(problems)
    _print_problems(problems)
    out.print(f"{file}: ok ({what})", markup=False)


@import_.command("qti21")
@click.argument("package", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option(
    "-o", "--output", "bank_dir", required=True, type=click.Path(path_type=Path, file_okay=False),
    help="Bank directory to create (bank.yaml and locales/*.po).",
)  # fmt: skip
@click.option("--force", is_flag=True, help="Overwrite the bank files already in BANK_DIR.")
def import_qti21(package: Path, bank_dir: Path, force: bool) -> None:
    """Read the choice items of a QTI 2.1 package into a bank directory.

    Items of one question in several languages become one question with translations. Hostile packages
    (paths outside the package, entities, oversized or too many files) are refused with the reason.
    """
    if (bank_dir / loader.BANK_FILE).exists() and not force:
        raise click.UsageError(f"{bank_dir / loader.BANK_FILE} exists; pass --force to overwrite it")
    data = _read_limited(package, qti21.MAX_PACKAGE_BYTES)
    try:
        bank, warnings = qti21.read_package(data, name=str(package))
    except ProblemsFound as exc:
        _fail(exc.problems)
    written = loader.save_bank(bank, bank_dir)
    _print_problems(warnings)
    out.print(
        f"imported {len(bank.questions)} questions into {bank_dir} (source {bank.source_locale}"
        f"{', translations ' + ', '.join(bank.target_locales) if bank.target_locales else ''}); "
        f"wrote {', '.join(str(p) for p in written)}",
        markup=False,
    )
