"""Files from elsewhere: validate packages before an LMS sees them, import them into banks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from .. import loader, schemas, zipsafe
from ..files import InputTooLarge, read_limited, remove_file
from ..formats import moodle, qti21
from ..formats.cc11 import validate as cc11_validate
from ..formats.olx import validate as olx_validate
from ..formats.qti3 import validate as qti3_validate
from ..locales import locale_info
from ..merge import MergeError, changed_files, merge_banks
from ..model import Bank
from ..problems import Problem, ProblemsFound, Severity
from ..xmlsafe import MAX_XML_BYTES
from .common import err, fail, out, print_problems, progress


@click.group("import")
def import_() -> None:
    """Read a file from another tool or LMS into a bank directory."""


def _read_limited(path: Path, limit: int, hint: str = "") -> bytes:
    try:
        return read_limited(path, limit)
    except InputTooLarge as exc:
        fail([Problem(str(path), None, f"{exc}{hint}")])


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


@click.command()
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option(
    "--schemas", "schemas_dir", type=click.Path(path_type=Path, file_okay=False),
    help=f"Folder of the official XSDs (laid out like shared/schemas); default ${schemas.ENV_VAR}, "
    "else ../shared/schemas, else the user cache that `moe-lms schemas fetch` fills.",
)  # fmt: skip
def validate(file: Path, schemas_dir: Path | None) -> None:
    """Check a QTI 2.1 or QTI 3.0 package (.zip), a Common Cartridge (.imscc), a Canvas QTI package, an Open edX course
    (.tar.gz) or a Moodle XML file before an LMS sees it.

    QTI 2.1: XSD validation against the official schemas, plus what XSD cannot check (identifiers unique, referenced
    outcomes declared, correctResponse names a choice, every choice has its feedback, manifest and zip agree).
    QTI 3.0: the QTI 3 content-package and item schemas, plus the same checks.
    Common Cartridge 1.1 and Canvas QTI: the CC 1.1 manifest and QTI 1.2.1 profile schemas, plus references,
    answer keys and per-choice feedback. Open edX: the course tree resolves, answer keys, a hint per choice, images.
    """
    data = _read_limited(file, zipsafe.MAX_PACKAGE_BYTES)
    if olx_validate.is_olx(data):
        _validate_olx(file, data)
        return
    is_zip = data[:4] == b"PK\x03\x04" or file.suffix.lower() in (".zip", ".imscc")
    if is_zip and qti3_validate.holds_qti3(data):
        _validate_qti3(file, data, schemas_dir)
        return
    if is_zip and (file.suffix.lower() == ".imscc" or cc11_validate.holds_qti12(data)):
        _validate_qti12(file, data, schemas_dir)
        return
    if is_zip:
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
        else:
            out.print(f"XSD validation: done, against {validators.directory}", markup=False)
        try:
            problems = qti21.check_package(data, validators, name=str(file))
        except schemas.SchemaError as exc:
            raise click.UsageError(str(exc)) from None
        what = "QTI 2.1 package: " + ("XSD and semantic checks" if validators else "semantic checks only")
    else:
        unchecked = _not_xml(data, file)
        if unchecked:
            raise click.UsageError(
                f"{file} looks like {unchecked}: validate checks QTI 2.1 packages (.zip), Common Cartridges (.imscc), "
                "Canvas QTI packages (.zip) and Moodle XML files (.xml)"
            )
        out.print("XSD validation: not applicable (Moodle XML has no official schema)", markup=False)
        problems = moodle.check_moodle_xml(data, file=str(file))
        what = "Moodle XML: well-formedness and structural checks"
    if any(p.severity is Severity.ERROR for p in problems):
        fail(problems)
    print_problems(problems)
    out.print(f"{file}: ok ({what})", markup=False)


def _validators(schemas_dir: Path | None, folder: str) -> schemas.Schemas | None:
    """The schemas of ``folder`` (qti3, cc11) for validate, saying whether XSD validation is done; None when not."""
    try:
        directory = schemas.locate(schemas_dir)
        validators = schemas.load(directory) if directory else None
    except schemas.SchemaError as exc:
        raise click.UsageError(str(exc)) from None
    if validators is not None and not (validators.has_qti3 if folder == "qti3" else validators.has_cc):
        out.print(f"XSD validation: NOT DONE ({validators.directory} has no {folder}/ schemas)", markup=False)
        return None
    if validators is None:
        out.print(
            f"XSD validation: NOT DONE (no schema folder found; pass --schemas DIR or set {schemas.ENV_VAR})",
            markup=False,
        )
        return None
    out.print(f"XSD validation: done, against {validators.directory / folder}", markup=False)
    return validators


def _validate_qti3(file: Path, data: bytes, schemas_dir: Path | None) -> None:
    validators = _validators(schemas_dir, "qti3")
    try:
        problems = qti3_validate.check_package(data, validators, name=str(file))
    except schemas.SchemaError as exc:
        raise click.UsageError(str(exc)) from None
    if any(p.severity is Severity.ERROR for p in problems):
        fail(problems)
    print_problems(problems)
    checks = "XSD and semantic checks" if validators else "semantic checks only"
    out.print(f"{file}: ok (QTI 3.0 package: {checks})", markup=False)


def _validate_olx(file: Path, data: bytes) -> None:
    out.print("XSD validation: not applicable (Open edX OLX has no schema)", markup=False)
    problems = olx_validate.check_course(data, name=str(file))
    if any(p.severity is Severity.ERROR for p in problems):
        fail(problems)
    print_problems(problems)
    out.print(f"{file}: ok (Open edX course: structure, answer keys and hints)", markup=False)


def _validate_qti12(file: Path, data: bytes, schemas_dir: Path | None) -> None:
    validators = _validators(schemas_dir, "cc11")
    try:
        problems = cc11_validate.check_package(data, validators, name=str(file))
    except schemas.SchemaError as exc:
        raise click.UsageError(str(exc)) from None
    if any(p.severity is Severity.ERROR for p in problems):
        fail(problems)
    print_problems(problems)
    checks = "XSD and semantic checks" if validators else "semantic checks only"
    out.print(f"{file}: ok (QTI 1.2 package: {checks})", markup=False)


def _save_imported(bank: Bank, warnings: list[Problem], bank_dir: Path, replace: bool) -> None:
    print_problems(warnings)
    imported = len(bank.questions)
    with progress(f"writing the bank into {bank_dir}"):
        bank, written = _write_imported(bank, bank_dir, replace)
    out.print(
        f"imported {imported} questions into {bank_dir} (source {bank.source_locale}"
        f"{', translations ' + ', '.join(bank.target_locales) if bank.target_locales else ''}); "
        f"{_written(written)}",
        markup=False,
    )


_OUTPUT = click.option(
    "-o", "--output", "bank_dir", required=True, type=click.Path(path_type=Path, file_okay=False),
    help="Bank directory to create (bank.yaml and locales/*.po).",
)  # fmt: skip
_REPLACE = click.option("--replace", "--force", "replace", is_flag=True, help=_REPLACE_HELP)


@import_.command("cc11")
@click.argument("cartridge", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@_OUTPUT
@_REPLACE
def import_cc11(cartridge: Path, bank_dir: Path, replace: bool) -> None:
    """Read the choice questions of an IMS Common Cartridge (.imscc) into a bank directory.

    Its question bank and quizzes are read, with each choice's feedback as its explanation; the same question in
    several languages becomes one question with translations. Hostile packages (paths outside the package,
    symbolic links, entities, oversized or too many files) are refused with the reason.
    """
    from ..formats.cc11 import read

    _import_package(read.read_package, cartridge, bank_dir, replace)


@import_.command("canvas-qti")
@click.argument("package", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@_OUTPUT
@_REPLACE
def import_canvas_qti(package: Path, bank_dir: Path, replace: bool) -> None:
    """Read a Canvas QTI 1.2 package (a Canvas quiz export, text2qti's, moe-lms's) into a bank directory.

    Multiple-choice, multiple-answer and true/false questions are kept with each answer's comments as its
    explanation and the neutral comments as the general one. Hostile packages are refused as for qti21.
    """
    from ..formats.canvas_qti import read

    _import_package(read.read_package, package, bank_dir, replace)


@import_.command("qti21")
@click.argument("package", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option(
    "-o", "--output", "bank_dir", required=True, type=click.Path(path_type=Path, file_okay=False),
    help="Bank directory to create (bank.yaml and locales/*.po).",
)  # fmt: skip
@_REPLACE
def import_qti21(package: Path, bank_dir: Path, replace: bool) -> None:
    """Read the choice items of a QTI 2.1 package into a bank directory.

    Items of one question in several languages become one question with translations. Hostile packages
    (paths outside the package, entities, oversized or too many files) are refused with the reason.
    Into a folder that holds a bank, the import is merged: its questions update or add to the bank's by id,
    and the bank's other questions and translations (reviewed and draft) stay.
    """
    _import_package(qti21.read_package, package, bank_dir, replace)


@import_.command("qti3")
@click.argument("package", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@_OUTPUT
@_REPLACE
def import_qti3(package: Path, bank_dir: Path, replace: bool) -> None:
    """Read the choice items of a QTI 3.0 package into a bank directory.

    Items of one question in several languages become one question with translations; each choice's modal
    feedback becomes its explanation. Hostile packages are refused as for qti21.
    """
    from ..formats.qti3 import read

    _import_package(read.read_package, package, bank_dir, replace)


@import_.command("olx")
@click.argument("archives", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False, exists=True))
@_OUTPUT
@_REPLACE
def import_olx(archives: tuple[Path, ...], bank_dir: Path, replace: bool) -> None:
    """Read Open edX course exports (.tar.gz, one per language) into a bank directory.

    Every choice problem of the course (multiple choice, checkboxes) becomes a question, each choice's hint its
    explanation and the problem's solution the general one. A course holds one language: give the export of each
    language the bank has, the source language's first (moe-lms's own exports say which it is), and the others
    become its translations. Hostile archives (paths outside it, links, oversized or too many files) are refused.
    """
    from ..formats.olx import read

    _check_target(bank_dir, replace)
    found = [(str(path), _read_limited(path, zipsafe.MAX_PACKAGE_BYTES)) for path in archives]
    try:
        with progress(f"reading {', '.join(str(a) for a in archives)}"):
            bank, warnings = read.read_courses(found)
    except ProblemsFound as exc:
        fail(exc.problems)
    _save_imported(bank, warnings, bank_dir, replace)


def _import_package(
    read_package: Callable[..., tuple[Bank, list[Problem]]], package: Path, bank_dir: Path, replace: bool
) -> None:
    """What every zip package import does: check the target, read the package within the size limit (with a
    spinner on a terminal), then merge or write the bank."""
    _check_target(bank_dir, replace)
    data = _read_limited(package, zipsafe.MAX_PACKAGE_BYTES)
    try:
        with progress(f"reading {package}"):
            bank, warnings = read_package(data, name=str(package))
    except ProblemsFound as exc:
        fail(exc.problems)
    _save_imported(bank, warnings, bank_dir, replace)


@import_.command("moodle")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "-o", "--output", "bank_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
    help="Bank directory to write: bank.yaml and locales/<tag>.po.",
)  # fmt: skip
@click.option(
    "--locale", "source_locale", metavar="TAG",
    help="Source locale of the bank; for files that do not say (from Moodle, without multilang spans) "
    "the language their text is in. Default: the first locale of a file moe-lms wrote, else en.",
)  # fmt: skip
@_REPLACE
@click.option(
    "--max-size", "max_mib", type=click.IntRange(1), default=MAX_XML_BYTES // 2**20, show_default=True,
    help="Largest file to read, in MiB; raise it for a large file you trust.",
)  # fmt: skip
def import_moodle(file: Path, bank_dir: Path, source_locale: str | None, replace: bool, max_mib: int) -> None:
    """Read a Moodle XML file into a bank directory.

    Multichoice and true/false questions are kept with their per-answer feedback, general feedback, tags,
    categories and multilang spans (each further language becomes a PO file). Questions of other types are
    listed, not imported. Into a folder that holds a bank, the import is merged: its questions update or add to
    the bank's by id, and the bank's other questions and translations (reviewed and draft) stay.
    """
    _check_target(bank_dir, replace)
    if source_locale is not None:
        try:
            locale_info(source_locale)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
    limit = max_mib * 2**20
    size = file.stat().st_size
    if size > limit:
        message = f"the file is {size / 2**20:,.1f} MiB, over the limit of {max_mib:,} MiB (--max-size)"
        fail([Problem(str(file), None, message)])
    data = _read_limited(file, limit, " (--max-size)")  # (a pipe or a device declares no size: read within it)
    with progress(f"reading {file}"):
        result = moodle.load(data, file=str(file), locale=source_locale, max_bytes=limit)
    for skipped in result.skipped:
        err.print(f"{file}: not imported: {skipped} (moe-lms keeps multichoice and truefalse)", markup=False)
    if result.bank is None or any(p.severity is Severity.ERROR for p in result.problems):
        fail(list(result.problems))
    print_problems(list(result.problems))
    imported = len(result.bank.questions)
    with progress(f"writing the bank into {bank_dir}"):
        bank, written = _write_imported(result.bank, bank_dir, replace)
    out.print(
        f"imported {imported} questions into {bank_dir}: {len(bank.questions)} questions, source "
        f"{bank.source_locale}, targets {', '.join(bank.target_locales) or 'none'}"
        + (f"; {len(result.skipped)} question(s) of other types not imported" if result.skipped else "")
        + f"; {_written(written)}",
        markup=False,
    )
