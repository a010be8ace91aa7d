"""The ``moe-lms`` command: files, stdout and exit codes live here and nowhere else.

Exit codes scripts can rely on: 0 ok, 1 problems found, 2 usage error.
"""

from __future__ import annotations

import json
import os
import sys
from importlib import import_module
from pathlib import Path
from typing import NoReturn

import click
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from . import __version__, formats, loader, schemas
from .files import write_atomic, write_atomic_stream
from .formats import canvas as canvas_format
from .formats import qti21
from .lms import canvas as canvas_sync
from .lms import canvas_client
from .locales import Status, coverage, locale_info, resolve
from .model import Bank
from .problems import Problem, ProblemsFound, Severity
from .text import plain_text
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


# -- push canvas ----------------------------------------------------------------------------------------------


def _canvas_token() -> str:
    """CANVAS_TOKEN, else a hidden prompt on a terminal; never an option, so it stays out of argv and shell history."""
    token = os.environ.get("CANVAS_TOKEN", "").strip()
    if token:
        return token
    if sys.stdin.isatty():
        return str(click.prompt("Canvas API token", hide_input=True, err=True)).strip()
    raise click.UsageError("set CANVAS_TOKEN to a Canvas API token (it is never taken from the command line)")


def _print_canvas_plan(the_plan: canvas_sync.Plan, course: str, limit: int = 40) -> None:
    marks = {"create": "+", "update": "~", "delete": "-", "left alone": "="}
    out.print(f"plan for course {course} ({the_plan.engine}):", markup=False)
    for step in the_plan.quizzes:
        d = step.desired
        quiz = f"quiz {step.remote_id}" if step.remote_id else "new quiz"
        counts = ", ".join(f"{step.count(a)} {a.value}" for a in canvas_sync.Action if step.count(a))
        out.print(f"  {d.locale}: {quiz} {step.action.value}: {d.fields['title']!r}; questions: {counts}", markup=False)
        changes = [s for s in step.questions if s.action is not canvas_sync.Action.UNCHANGED]
        for s in changes[:limit]:
            why = f" ({s.why})" if s.why else ""
            out.print(f"    {marks[s.action.value]} {s.key}{why}", markup=False)
        if len(changes) > limit:
            out.print(f"    … and {len(changes) - limit} more", markup=False)
        if step.reorder:
            out.print("    reorder the questions", markup=False)
        if step.publishes:
            out.print("    publish the quiz", markup=False)
    for gone in the_plan.delete_quizzes:
        out.print(f"  - quiz {gone.id} ({gone.marker.locale})", markup=False)
    for warning in the_plan.all_warnings:
        err.print(f"warning: {warning}", markup=False)
    out.print(f"{the_plan.writes} write request(s) planned", markup=False)


def _canvas_summary(client: canvas_client.CanvasClient, outcome: canvas_sync.Outcome | None = None) -> None:
    s = client.stats
    if outcome is not None:
        quizzes = ", ".join(f"{loc} → quiz {qid}" for loc, qid in outcome.quizzes.items())
        out.print(
            f"questions: {outcome.created} created, {outcome.updated} updated, {outcome.unchanged} unchanged, "
            f"{outcome.deleted} deleted; {quizzes}",
            markup=False,
        )
    out.print(
        f"{s.requests} requests ({s.writes} writes), {s.retries} retries, {s.throttled} throttled, "
        f"{s.adopted} adopted after a lost response",
        markup=False,
    )


def _push_via_qti(
    client: canvas_client.CanvasClient, bank: Bank, options: formats.ExportOptions, course: str, engine: str,
    dry_run: bool, poll: canvas_sync.PollPolicy,
) -> None:  # fmt: skip
    if "qti21" not in formats.names():
        raise click.UsageError("--via qti needs the QTI 2.1 exporter, which this moe-lms does not have")
    qti = formats.get("qti21")
    for locale in options.locales:
        package = qti.dump(bank, formats.ExportOptions((locale,), include_drafts=options.include_drafts))
        filename = f"{bank.id}-{locale}.zip"
        title = resolve(bank, locale, include_drafts=options.include_drafts).title.text
        bank_name = f"{plain_text(title)} ({locale})"
        if dry_run:
            out.print(f"would upload {filename} ({len(package)} bytes) into question bank {bank_name!r}", markup=False)
            continue
        migration = canvas_sync.import_qti(
            client, course, package, filename, bank_name=bank_name, new_quizzes=engine == "new-quizzes", poll=poll
        )
        out.print(f"{locale}: content migration {migration.id} {migration.state}: {bank_name!r}", markup=False)
        for issue in migration.issues:
            err.print(f"  {issue}", markup=False)
        if migration.state != "completed":
            raise canvas_client.CanvasError(f"the import of {filename} {migration.state}")


@push.command("canvas")
@click.option("--base-url", required=True, help="Your Canvas, e.g. https://school.instructure.com (HTTPS).")
@click.option("--course", required=True, help="Course id (the number in the course's URL).")
@bank_argument
@click.option("--locale", "locales", multiple=True, help="Locale to push (repeatable); default: every locale.")
@click.option("--dry-run", is_flag=True, help="Read the course and print the plan; change nothing.")
@click.option("--prune", is_flag=True, help="Delete questions (and quizzes) the bank no longer has.")
@click.option("--publish", is_flag=True, help="Publish the quiz, or republish it so students see the new questions.")
@click.option(
    "--via",
    type=click.Choice(["api", "qti"]),
    default="api",
    show_default=True,
    help="api: sync quiz and questions; qti: import a QTI package into a question bank.",
)
@click.option(
    "--engine",
    type=click.Choice(["classic", "new-quizzes"]),
    default="classic",
    show_default=True,
    help="Classic Quizzes or New Quizzes.",
)
@click.option("--include-drafts", is_flag=True, help="Use draft (fuzzy) translations instead of the source text.")
@click.option(
    "--concurrency",
    type=click.IntRange(1, 10),
    default=6,
    show_default=True,
    help="Most requests in flight; fewer when Canvas's rate limit runs low.",
)
@click.option(
    "--retry-delay",
    type=click.FloatRange(0, 60),
    default=0.5,
    hidden=True,
    help="First retry's backoff and first progress poll, in seconds.",
)
def push_canvas(
    base_url: str, course: str, bank_dir: Path | None, locales: tuple[str, ...], dry_run: bool, prune: bool,
    publish: bool, via: str, engine: str, include_drafts: bool, concurrency: int, retry_delay: float,
) -> None:  # fmt: skip
    """Sync a bank into a Canvas course: one quiz per locale, its questions with key and explanations.

    The token comes from CANVAS_TOKEN or a hidden prompt. Re-running after an edit updates what changed, and
    nothing else; an interrupted push is completed by the next run.
    """
    if via == "qti" and (prune or publish):
        raise click.UsageError("--prune and --publish work with --via api only")
    bank = load_or_exit(_bank_dir(bank_dir))
    try:
        options = formats.ExportOptions.for_bank(bank, locales, include_drafts=include_drafts)
        token = _canvas_token()
        client = canvas_client.CanvasClient(
            base_url, token, concurrency=concurrency, retry=canvas_client.RetryPolicy(base_delay=retry_delay)
        )
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    engine_name: canvas_format.Engine = "classic" if engine == "classic" else "new-quizzes"
    try:
        if via == "qti":
            poll = canvas_sync.PollPolicy(first=retry_delay)
            _push_via_qti(client, bank, options, course, engine_name, dry_run, poll)
            _canvas_summary(client)
            return
        desired = list(canvas_format.desired_quizzes(bank, options, engine_name))
        pusher = canvas_sync.Pusher(client, course, engine_name)
        try:
            the_plan = pusher.plan(desired, bank.locales, prune=prune, publish=publish)
        except canvas_client.NotFound as exc:
            hint = " (is New Quizzes enabled there?)" if engine_name == "new-quizzes" else ""
            raise canvas_client.CanvasError(
                f"course {course} not found at {client.base_url}{hint}, or the token's user cannot see it: {exc}"
            ) from None
        _print_canvas_plan(the_plan, course)
        for locale in options.locales:
            err.print(resolve(bank, locale, include_drafts=include_drafts).summary(), markup=False)
        if dry_run:
            out.print("dry run: nothing was changed", markup=False)
            _canvas_summary(client)
            return
        if err.is_terminal and the_plan.writes:
            with Progress(console=err, transient=True) as bar:
                task = bar.add_task("pushing", total=the_plan.writes)
                pusher.on_write = lambda: bar.advance(task)
                outcome = pusher.apply(the_plan)
        else:
            outcome = pusher.apply(the_plan)
        _canvas_summary(client, outcome)
    except ProblemsFound as exc:
        _fail(exc.problems)
    except canvas_client.CanvasError as exc:
        _canvas_summary(client)
        err.print(f"error: {client.redact(str(exc))}", markup=False)
        sys.exit(EXIT_PROBLEMS)
    except KeyboardInterrupt:
        err.print("interrupted: run the same command again to complete the push", markup=False)
        sys.exit(130)


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


# --- QTI 2.1: validate packages, import them ---------------------------------------------------------------------


def _read_limited(path: Path, limit: int) -> bytes:
    size = path.stat().st_size
    if size > limit:
        _fail([Problem(str(path), None, f"the file is {size:,} bytes; the limit is {limit:,}")])
    return path.read_bytes()


def _check_moodle(path: Path, data: bytes) -> tuple[list[Problem], str]:
    """Moodle XML: the Moodle format's structural checks when that format is installed, else well-formedness."""
    module = f"{formats.__name__}.moodle"
    try:
        moodle = import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:  # the Moodle format is there but broken: say so, don't hide it
            raise
        moodle = None
    if moodle is not None and hasattr(moodle, "check_moodle_xml"):
        found: list[Problem] = moodle.check_moodle_xml(data, file=str(path))
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


# --- import moodle --------------------------------------------------------------------------------------------


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
@click.option("--force", is_flag=True, help="Replace a bank already in the output directory.")
def import_moodle(file: Path, bank_dir: Path, source_locale: str | None, force: bool) -> None:
    """Read a Moodle XML file into a bank directory.

    Multichoice and true/false questions are kept with their per-answer feedback, general feedback, tags,
    categories and multilang spans (each further language becomes a PO file). Questions of other types are
    listed, not imported.
    """
    from .formats import moodle
    from .xmlsafe import MAX_XML_BYTES

    if (bank_dir / loader.BANK_FILE).exists() and not force:
        raise click.UsageError(f"{bank_dir} already holds a bank; use --force to replace it")
    if source_locale is not None:
        try:
            locale_info(source_locale)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
    if file.stat().st_size > MAX_XML_BYTES:
        _fail([Problem(str(file), None, f"the file is larger than the {MAX_XML_BYTES:,}-byte limit")])
    result = moodle.load(file.read_bytes(), file=str(file), locale=source_locale)
    for skipped in result.skipped:
        err.print(f"{file}: not imported: {skipped} (moe-lms keeps multichoice and truefalse)", markup=False)
    if result.bank is None or any(p.severity is Severity.ERROR for p in result.problems):
        _fail(list(result.problems))
    _print_problems(list(result.problems))
    bank = result.bank
    if force:  # catalogs of locales the new bank does not have would no longer load
        for stale in (bank_dir / loader.LOCALES_DIR).glob("*.po"):
            if stale.stem not in bank.target_locales:
                stale.unlink()
    loader.save_bank(bank, bank_dir)
    out.print(
        f"wrote {bank_dir}: {len(bank.questions)} questions, source {bank.source_locale}, "
        f"targets {', '.join(bank.target_locales) or 'none'}"
        + (f"; {len(result.skipped)} question(s) of other types not imported" if result.skipped else ""),
        markup=False,
    )
