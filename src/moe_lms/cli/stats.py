"""``stats``: what learners did with a bank, from an LMS's results, per question, choice and locale."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..files import write_atomic
from ..model import Bank
from ..problems import Problem, ProblemsFound
from .common import bank_dir_or_default, err, fail, load_or_exit, out, shown

if TYPE_CHECKING:
    from ..stats.results import Attempt

READERS = ("plain", "moodle", "canvas", "qti")


def read_results(path: Path, kind: str, bank: Bank, locale: str | None) -> list[Attempt]:
    """The attempts in one results file (read at most results.MAX_BYTES); ProblemsFound names its rows."""
    from ..stats import results

    name = shown(path)
    try:
        with path.open("rb") as stream:
            data = stream.read(results.MAX_BYTES + 1)
    except OSError as exc:
        raise ProblemsFound([Problem(name, None, f"cannot read: {exc.strerror or exc}")]) from None
    results.check_size(name, len(data))
    if kind == "auto":
        kind = sniff(data, path)
    if kind == "plain":
        from ..stats.plain import read_plain

        return read_plain(data, name, bank)
    if kind == "moodle":
        from ..stats.moodle import read_moodle

        return read_moodle(data, name, bank, locale)
    if kind == "canvas":
        from ..stats.canvas import read_student_analysis_file

        return read_student_analysis_file(data, name, bank, locale)
    from ..stats.qti import read_qti_results

    return read_qti_results(data, name, bank, locale)


def sniff(data: bytes, path: Path) -> str:
    """Which reader a file is for: XML is QTI results; a CSV whose header has learner and question is the plain one,
    else Moodle's responses report."""
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"<"):
        return "qti"
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace").lower()
    columns = {c.strip().strip('"') for c in first.split(",")}
    if {"learner", "question", "answer"} <= columns:
        return "plain"
    return "canvas" if {"id", "submitted", "n correct", "n incorrect", "score"} <= columns else "moodle"


@click.command()
@click.argument("results", nargs=-1, type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option(
    "--bank",
    "bank_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="The bank (default: as every command finds it: the current folder's, or inside the checkout the shipped one).",
)
@click.option(
    "--from",
    "kind",
    type=click.Choice(("auto", *READERS)),
    default="auto",
    show_default=True,
    help="What the results files are: plain (learner,attempt,locale,question,answer), moodle (the quiz "
    "Responses report's CSV or JSON download), canvas (a classic quiz's Student Analysis report, downloaded), qti "
    "(QTI 2.1 assessmentResult XML).",
)
@click.option(
    "--locale",
    metavar="TAG",
    help="The locale of every attempt, where the file does not say (QTI results) "
    "or its texts cannot tell (a bank whose locales read the same).",
)
@click.option(
    "--canvas-quiz",
    "canvas_quizzes",
    metavar="COURSE/QUIZ",
    multiple=True,
    help="Read a Canvas classic quiz's results through the API (with --base-url; the token from CANVAS_TOKEN), as "
    "push's client does; repeat it for each locale's quiz.",
)
@click.option(
    "--canvas-from",
    type=click.Choice(("statistics", "student-analysis")),
    default="statistics",
    show_default=True,
    help="From the quiz statistics (answers by id) or the student analysis report's CSV (answers by text).",
)
@click.option("--base-url", metavar="URL", help="Canvas's address, for --canvas-quiz.")
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON (docs/reference/stats.md).")
@click.option(
    "--html",
    "html_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write an HTML report with an option curve per question and locale.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the JSON here (for `check --stats`) instead of printing it.",
)
@click.option(
    "--min-n",
    type=click.IntRange(2),
    default=30,
    show_default=True,
    help="Fewer responses to a question: 'too few', no flag.",
)
@click.option(
    "--dif-min-n",
    type=click.IntRange(2),
    default=100,
    show_default=True,
    help="Fewer attempts in either locale of a DIF comparison: 'too few'.",
)
def stats(
    results: tuple[Path, ...],
    bank_dir: Path | None,
    kind: str,
    locale: str | None,
    canvas_quizzes: tuple[str, ...],
    canvas_from: str,
    base_url: str | None,
    as_json: bool,
    html_file: Path | None,
    output: Path | None,
    min_n: int,
    dif_min_n: int,
) -> None:
    """Item analysis of a bank from what learners did: facility, discrimination, each choice's share, Cronbach's α,
    and differential item functioning between locales (Mantel-Haenszel, ETS classes A/B/C), with flags.

    RESULTS: Moodle's quiz Responses report (CSV or JSON download, with the question text shown), QTI 2.1
    results XML, or the plain CSV learner,attempt,locale,question,answer; several files are one analysis. Exit 0
    with the analysis (flags are findings, not errors), 1 when a results file cannot be used, 2 on a usage error.
    """
    from ..stats import results as results_module
    from ..stats.compute import Thresholds, analyse
    from ..stats.json_out import document

    if not results and not canvas_quizzes:
        raise click.UsageError("give a results file (or --canvas-quiz COURSE/QUIZ with --base-url)")
    if bool(canvas_quizzes) != (base_url is not None):
        raise click.UsageError("--canvas-quiz and --base-url go together")
    bank = load_or_exit(bank_dir_or_default(bank_dir))
    if locale is not None:
        locale = locale.replace("-", "_")
        if locale not in bank.locales:
            raise click.UsageError(f"--locale {locale}: the bank's locales are {', '.join(bank.locales)}")
    batches = []
    problems: list[Problem] = []
    for path in results:
        try:
            batches.append(read_results(path, kind, bank, locale))
        except ProblemsFound as exc:
            problems += exc.problems
    if canvas_quizzes and base_url is not None:
        token = _token()
        for quiz in canvas_quizzes:
            try:
                batches.append(_canvas(quiz, base_url, token, bank, locale, canvas_from == "student-analysis"))
            except ProblemsFound as exc:
                problems += exc.problems
    if problems:
        fail(problems)
    try:
        attempts = results_module.merge(batches)
    except ProblemsFound as exc:
        fail(exc.problems)
    if not attempts:
        fail([Problem(", ".join([*map(shown, results), *canvas_quizzes]), None, "holds no attempt")])
    analysis = analyse(bank, attempts, Thresholds(min_n=min_n, dif_min_n=dif_min_n))
    data = document(analysis)
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    if output is not None:
        write_atomic(output, text.encode("utf-8"), within=output.parent)
        err.print(f"wrote {shown(output)}", markup=False)
    if as_json:
        sys.stdout.write(text)
    elif output is None or html_file is None:
        from ..stats.table import LEGEND, table

        out.print(table(analysis))
        out.print(LEGEND, markup=False)
    if html_file is not None:
        from ..stats.html import report

        write_atomic(html_file, report(bank, analysis), within=html_file.parent)
        err.print(f"wrote {shown(html_file)}", markup=False)


def _token() -> str:
    from .canvas import canvas_token

    return canvas_token()


def _canvas(quiz: str, base_url: str, token: str, bank: Bank, locale: str | None, report: bool) -> list[Attempt]:
    from ..lms import canvas_results

    course, _, quiz_id = quiz.partition("/")
    if not course.isdigit() or not quiz_id.isdigit():
        raise click.UsageError(f"--canvas-quiz {quiz}: COURSE/QUIZ, two numbers (as in the quiz's address)")
    try:
        return canvas_results.read(base_url, token, int(course), int(quiz_id), bank, locale, report=report)
    except ValueError as exc:  # a --base-url or token the client refuses
        raise click.UsageError(str(exc)) from None
