"""``push canvas``: plan, then apply, a bank into a Canvas course."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from urllib.parse import urlsplit

import click
from rich.progress import Progress

from .. import formats
from ..formats import canvas as canvas_format
from ..formats import canvas_media
from ..lms import canvas as canvas_sync
from ..lms import canvas_client, canvas_files
from ..locales import resolve
from ..model import Bank
from ..problems import ProblemsFound
from ..text import plain_text
from .common import (
    EXIT_PROBLEMS,
    bank_argument,
    bank_dir_or_default,
    err,
    fail,
    include_drafts_option,
    load_or_exit,
    out,
    terminal_safe,
)


@click.group()
def push() -> None:
    """Send a bank straight into an LMS."""


def canvas_token() -> str:
    """CANVAS_TOKEN, else a hidden prompt on a terminal; never an option, so it stays out of argv and shell history."""
    token = os.environ.get("CANVAS_TOKEN", "").strip()
    if token:
        return token
    if sys.stdin.isatty():
        return str(click.prompt("Canvas API token", hide_input=True, err=True)).strip()
    raise click.UsageError("set CANVAS_TOKEN to a Canvas API token (it is never taken from the command line)")


def _say(text: str, *, error: bool = False) -> None:
    """Print a line that carries outside text (Canvas's answers, the bank's and the PO files' words), neutralised."""
    (err if error else out).print(terminal_safe(text), markup=False)


def _print_canvas_plan(the_plan: canvas_sync.Plan, course: str, limit: int = 40) -> None:
    marks = {"create": "+", "update": "~", "delete": "-", "left alone": "="}
    _say(f"plan for course {course} ({the_plan.engine}):")
    if the_plan.files is not None and the_plan.files.steps:
        uploads = the_plan.files.uploads
        present = len(the_plan.files.steps) - len(uploads)
        _say(f"  images in {the_plan.files.folder}: {len(uploads)} to upload, {present} already there")
        for f in uploads[:limit]:
            why = f" ({f.why})" if f.why else ""
            _say(f"    + file {f.file.stored_name} ({len(f.file.data)} bytes){why}")
        if len(uploads) > limit:
            out.print(f"    … and {len(uploads) - limit} more", markup=False)
    for step in the_plan.quizzes:
        d = step.desired
        quiz = f"quiz {step.remote_id}" if step.remote_id else "new quiz"
        counts = ", ".join(f"{step.count(a)} {a.value}" for a in canvas_sync.Action if step.count(a))
        _say(f"  {d.locale}: {quiz} {step.action.value}: {d.fields['title']!r}; questions: {counts}")
        for g in step.groups:
            if g.action is not canvas_sync.Action.UNCHANGED:
                draw = f": pick {g.desired.pick_count}, {g.desired.question_points:g} points each" if g.desired else ""
                why = f" ({g.why})" if g.why else ""
                mark = marks.get(g.action.value, " ")
                _say(f"    {mark} question group {g.key}{draw}{why}")
        changes = [s for s in step.questions if s.action is not canvas_sync.Action.UNCHANGED]
        for s in changes[:limit]:
            why = f" ({s.why})" if s.why else ""
            _say(f"    {marks[s.action.value]} {s.key}{why}")
        if len(changes) > limit:
            out.print(f"    … and {len(changes) - limit} more", markup=False)
        if step.reorder:
            out.print("    reorder the questions", markup=False)
        if step.publishes:
            out.print("    publish the quiz", markup=False)
    for gone in the_plan.delete_quizzes:
        _say(f"  - quiz {gone.id} ({gone.marker.locale})")
    for warning in the_plan.all_warnings:
        _say(f"warning: {warning}", error=True)
    out.print(f"{the_plan.writes} write request(s) planned", markup=False)


def _canvas_summary(client: canvas_client.CanvasClient, outcome: canvas_sync.Outcome | None = None) -> None:
    s = client.stats
    if outcome is not None:
        quizzes = ", ".join(f"{loc} → quiz {qid}" for loc, qid in outcome.quizzes.items())
        images = f"images: {outcome.uploaded} uploaded; " if outcome.uploaded else ""
        images += f"question groups: {outcome.groups} written; " if outcome.groups else ""
        _say(
            f"{images}questions: {outcome.created} created, {outcome.updated} updated, {outcome.unchanged} unchanged, "
            f"{outcome.deleted} deleted; {quizzes}"
        )
    _say(
        f"{_count(s.requests, 'request')} ({_count(s.writes, 'write')}), {_count(s.retries, 'retry', 'retries')}, "
        f"{s.throttled} throttled, {s.adopted} adopted after a lost response"
    )


def _count(n: int, one: str, many: str | None = None) -> str:
    """``1 request``, ``2 requests``."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def _push_via_qti(
    client: canvas_client.CanvasClient, bank: Bank, options: formats.ExportOptions, course: str, engine: str,
    dry_run: bool, poll: canvas_sync.PollPolicy,
) -> None:  # fmt: skip
    # Canvas's own QTI 1.2 flavour: the one its importer reads with every answer's comments (formats/canvas_qti).
    qti = formats.get("canvas-qti")
    for locale in options.locales:
        package = qti.dump(bank, formats.ExportOptions((locale,), include_drafts=options.include_drafts))
        filename = f"{bank.id}-{locale}.zip"
        title = resolve(bank, locale, include_drafts=options.include_drafts).title.text
        bank_name = f"{plain_text(title)} ({locale})"
        if dry_run:
            _say(f"would upload {filename} ({len(package)} bytes) into question bank {bank_name!r}")
            continue
        migration = canvas_sync.import_qti(
            client, course, package, filename, bank_name=bank_name, new_quizzes=engine == "new-quizzes", poll=poll
        )
        _say(f"{locale}: content migration {migration.id} {migration.state}: {bank_name!r}")
        for issue in migration.issues:
            _say(f"  {client.redact(issue)}", error=True)
        if migration.state != "completed":
            raise canvas_client.CanvasError(f"the import of {filename} {migration.state}")


# The first path segment of Canvas's own pages and API: a base URL holding one was copied from the browser's address
# bar (https://school.instructure.com/courses/1234), not the address of Canvas, which may have a prefix of its own.
_CANVAS_ROUTES = frozenset({"courses", "api", "accounts", "login", "users", "profile", "dashboard", "groups"})
_COURSE_ID = re.compile(r"[0-9]+|sis_course_id:[^/?#\s]+")


def _check_not_a_page(base_url: str, checked: str) -> None:
    path = urlsplit(checked).path
    segments = [segment for segment in path.split("/") if segment]
    for n, segment in enumerate(segments):
        if segment.lower() in _CANVAS_ROUTES:
            root = checked[: len(checked) - len(path)] + "".join(f"/{s}" for s in segments[:n])
            course = segments[n + 1] if segment == "courses" and n + 1 < len(segments) else None
            hint = f" and --course {course}" if course is not None and course.isdigit() else ""
            page = "".join(f"/{s}" for s in segments[n:])
            raise click.UsageError(
                f"--base-url {terminal_safe(base_url)!r} is the address of a page in Canvas ({page}), not of Canvas "
                f"itself: give --base-url {root}{hint}"
            )


def _check_course(course: str) -> None:
    if not _COURSE_ID.fullmatch(course):
        raise click.UsageError(
            f"--course {terminal_safe(course)!r} is not a course id: give the number in the course's address "
            "(https://school.instructure.com/courses/1234 is --course 1234), or sis_course_id:<SIS id>"
        )


@push.command("canvas")
@click.option("--base-url", required=True, help="Your Canvas, e.g. https://school.instructure.com (HTTPS).")
@click.option("--course", required=True, help="Course id (the number in the course's URL).")
@bank_argument
@click.option("--locale", "locales", multiple=True, help="Locale to push (repeatable); default: every locale.")
@click.option(
    "--quiz", "quiz", metavar="ID",
    help="One of the bank's quizzes (quizzes: in bank.yaml), its draws as question groups; default: every question.",
)  # fmt: skip
@click.option("--dry-run", is_flag=True, help="Read the course and print the plan; change nothing.")
@click.option("--prune", is_flag=True, help="Delete questions (and quizzes) the bank no longer has.")
@click.option("--publish", is_flag=True, help="Publish the quiz, or republish it so students see the new questions.")
@click.option(
    "--via",
    type=click.Choice(["api", "qti"]),
    default="api",
    show_default=True,
    help="api: sync quiz and questions; qti: import Canvas's QTI 1.2 package (canvas-qti) into a question bank.",
)
@click.option(
    "--engine",
    type=click.Choice(["classic", "new-quizzes"]),
    default="classic",
    show_default=True,
    help="Classic Quizzes or New Quizzes.",
)
@include_drafts_option
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
@click.option(
    "--deadline",
    type=click.FloatRange(0.1, 3600),
    default=canvas_client.Limits.deadline,
    show_default=True,
    help="Seconds one request may take in all, however slowly the server sends (never reset by a byte).",
)
def push_canvas(
    base_url: str, course: str, bank_dir: Path | None, locales: tuple[str, ...], quiz: str | None, dry_run: bool,
    prune: bool, publish: bool, via: str, engine: str, include_drafts: bool, concurrency: int, retry_delay: float,
    deadline: float,
) -> None:  # fmt: skip
    """Sync a bank into a Canvas course: one quiz per locale, its questions with key and explanations.

    The token comes from CANVAS_TOKEN or a hidden prompt. Re-running after an edit updates what changed, and
    nothing else; an interrupted push is completed by the next run.
    """
    if via == "qti" and (prune or publish):
        raise click.UsageError("--prune and --publish work with --via api only")
    if via == "qti" and quiz is not None:
        raise click.UsageError("--quiz works with --via api only (the QTI route imports every question into a bank)")
    try:  # the URL first: a wrong one is refused before anything else is read or asked
        checked = canvas_client.check_base_url(base_url)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    _check_not_a_page(base_url, checked)
    _check_course(course)
    bank = load_or_exit(bank_dir_or_default(bank_dir))
    try:
        options = formats.ExportOptions.for_bank(bank, locales, quiz=quiz, include_drafts=include_drafts)
        if via != "qti":  # (the QTI route's writer expands the bank itself: formats.get)
            # The whole bank stays the whole bank's Canvas quiz (its marker), each variant pool a question group
            # (model.whole_bank_quiz); New Quizzes, which cannot draw, asks the first variant of each.
            bank, options = formats.concrete(bank, options, quizzes=False)
        token = canvas_token()
        client = canvas_client.CanvasClient(
            base_url,
            token,
            concurrency=concurrency,
            retry=canvas_client.RetryPolicy(base_delay=retry_delay),
            limits=canvas_client.Limits(deadline=deadline),
            notify=lambda message: _say(message, error=True),
        )
    except ValueError as exc:
        raise click.UsageError(terminal_safe(str(exc))) from None
    engine_name: canvas_format.Engine = "classic" if engine == "classic" else "new-quizzes"
    try:
        if via == "qti":
            poll = canvas_sync.PollPolicy(first=retry_delay)
            _push_via_qti(client, bank, options, course, engine_name, dry_run, poll)
            _canvas_summary(client)
            return
        # Images are referred to by content (moe-file:<sha256>) and uploaded into the course's files by the push.
        desired = list(canvas_format.desired_quizzes(bank, options, engine_name, image_url=canvas_media.image_ref))
        images = canvas_files.from_media(bank.media.values())
        pusher = canvas_sync.Pusher(client, course, engine_name)
        try:
            the_plan = pusher.plan(desired, bank.locales, prune=prune, publish=publish, files=images)
        except canvas_client.NotFound as exc:
            hint = " (is New Quizzes enabled there?)" if engine_name == "new-quizzes" else ""
            raise canvas_client.CanvasError(
                f"course {course} not found at {client.base_url}{hint}, or the token's user cannot see it: {exc}"
            ) from None
        _print_canvas_plan(the_plan, course)
        for locale in options.locales:
            _say(resolve(bank, locale, include_drafts=include_drafts).summary(), error=True)
        if dry_run:
            out.print("dry run: nothing was changed", markup=False)
            _canvas_summary(client)
            return
        if err.is_terminal and the_plan.writes:
            with Progress(console=err.rich, transient=True) as bar:
                task = bar.add_task("pushing", total=the_plan.writes)
                pusher.on_write = lambda: bar.advance(task)
                outcome = pusher.apply(the_plan)
        else:
            outcome = pusher.apply(the_plan)
        _canvas_summary(client, outcome)
    except ProblemsFound as exc:
        fail(exc.problems)
    except canvas_client.CanvasError as exc:
        _canvas_summary(client)
        _say(f"error: {client.redact(str(exc))}", error=True)
        sys.exit(EXIT_PROBLEMS)
    except KeyboardInterrupt:
        err.print("interrupted: run the same command again to complete the push", markup=False)
        sys.exit(130)
