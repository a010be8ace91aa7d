"""Benchmark: Moodle XML export of a generated 10,000-question bank, end to end, against text2qti on the same questions.

The bank has 4 choices per question, explanations on the question and every choice, and 3 locales (English source,
Urdu and Vietnamese translated; a third of the translations are drafts, which fall back to English as the CLI does by
default). moe-lms loads the bank directory and writes one Moodle XML file with every locale (30,000 questions).
text2qti (pip install text2qti, the `bench` extra) converts the same questions, one Markdown quiz per locale, to QTI.

Each run is a fresh subprocess, timed from before the tool's imports to its output on disk, with the process's peak
RSS (VmHWM: interpreter, imports and all). Targets (issue 3): at least 10x text2qti's questions/s, peak under 150 MiB.

    python bench/moodle_bench.py [--questions 10000] [--runs 3] [--skip-text2qti]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

LOCALES = ("en", "ur", "vi")
TARGET_RATIO = 10
TARGET_PEAK_MIB = 150


def peak_rss_mib() -> float:
    """This process's peak RSS. Not getrusage: Linux carries ru_maxrss over from the parent across exec."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


# --- the measured runs (each in its own process) --------------------------------------------------------------


def run_moe_lms(bank_dir: str, output: str) -> dict[str, float]:
    """The product command, in process: moe-lms export --format moodle BANK_DIR -o OUTPUT (every locale)."""
    start = time.perf_counter()
    from moe_lms.cli import main as moe_lms_main
    from moe_lms.formats import ExportOptions, get
    from moe_lms.loader import load_bank

    imported = time.perf_counter()
    try:
        moe_lms_main(["export", "--format", "moodle", bank_dir, "-o", output], prog_name="moe-lms")
    except SystemExit as exit:
        if exit.code:
            raise
    done = time.perf_counter()
    peak = peak_rss_mib()
    # The same work again through the library, to split the time between loading and exporting; the Markdown
    # renderer's cache is emptied first, so the export pays for its Markdown as the CLI run did.
    from moe_lms.text import _render_markdown

    _render_markdown.cache_clear()
    split_start = time.perf_counter()
    bank = load_bank(Path(bank_dir))
    loaded = time.perf_counter()
    get("moodle").dump(bank, ExportOptions.for_bank(bank))
    return {
        "seconds": done - start,
        "import_s": imported - start,
        "load_s": loaded - split_start,
        "export_s": time.perf_counter() - loaded,
        "questions": len(bank.questions) * len(bank.locales),
        "peak_mib": peak,
        "bytes": Path(output).stat().st_size,
    }


def run_text2qti(quiz_files: list[str]) -> dict[str, float]:
    """text2qti's own command, once per locale file, as its CLI runs it (argv, cwd, zip written beside the file)."""
    start = time.perf_counter()
    from text2qti.cmdline import main as text2qti_main

    questions = 0
    for quiz in quiz_files:
        sys.argv = ["text2qti", quiz]
        cwd = os.getcwd()
        try:
            text2qti_main()
        finally:
            os.chdir(cwd)
        questions += Path(quiz).read_text(encoding="utf-8").count("\nTitle: ")
    done = time.perf_counter()
    return {"seconds": done - start, "questions": questions, "peak_mib": peak_rss_mib()}


# --- preparing the inputs --------------------------------------------------------------------------------------


def make_bank(questions: int, markdown_every: int = 10) -> Any:
    """bankgen's bank, but with every text unique (a real bank repeats nothing, so the renderer's cache never helps)
    and the stem and explanation of every ``markdown_every``-th question carrying Markdown (`code`, **bold**),
    which takes the full parser (0: none)."""
    from bankgen import _sentence, _translate
    from moe_lms.model import Bank, Translation, strings

    def text(seed: int, length: int, tag: str, markdown: bool = False) -> str:
        words = _sentence(seed, length)
        return f"{words} `{tag}` and **more**." if markdown else f"{words} ({tag})."

    qs = []
    for i in range(questions):
        marked = markdown_every > 0 and i % markdown_every == 0
        qs.append(
            {
                "id": f"q{i:05d}",
                "stem": text(i, 12, f"question {i}", marked) + "?",
                "explanation": text(i + 1, 20, f"explanation {i}", marked),
                "tags": ["generated"],
                "choices": [
                    {
                        "id": "abcd"[j],
                        "text": text(i + j, 6, f"{i}{'abcd'[j]}"),
                        "correct": j == i % 4,
                        "explanation": text(i * 3 + j, 18, f"why {i}{'abcd'[j]}"),
                    }
                    for j in range(4)
                ],
            }
        )
    header = {"id": "generated", "title": f"Generated bank of {questions}", "target_locales": LOCALES[1:]}
    bank = Bank.model_validate({**header, "questions": qs})
    translations = {
        locale: {
            path: Translation(text=_translate(locale, source), source=source, draft=n % 3 == 0)
            for n, (path, source) in enumerate(strings(bank))
        }
        for locale in LOCALES[1:]
    }
    return bank.model_copy(update={"translations": translations})


def text2qti_quiz(bank_dir: Path, locale: str) -> str:
    """The bank in one locale in text2qti's Markdown format, with the same texts the Moodle export carries."""
    from moe_lms.loader import load_bank
    from moe_lms.locales import resolve
    from moe_lms.model import Kind

    bank = load_bank(bank_dir)
    view = resolve(bank, locale)

    def one_line(text: str) -> str:
        return " ".join(text.split())

    lines = [f"Quiz title: {one_line(view.title.text)}", ""]
    for number, q in enumerate(bank.questions, start=1):
        lines += [f"Title: {q.id}", f"Points: {q.points:g}", f"{number}.  {one_line(view.stem(q).text)}"]
        lines.append(f"... {one_line(view.explanation(q).text)}")
        for letter, c in zip("abcdefghijklmnopqrstuvwxyz", q.choices, strict=False):
            if q.kind is Kind.MULTIPLE:
                marker = "[*]" if c.correct else "[ ]"
            else:
                marker = f"*{letter})" if c.correct else f"{letter}) "
            lines.append(f"{marker} {one_line(view.choice_text(q, c).text)}")
            lines.append(f"... {one_line(view.choice_explanation(q, c).text)}")
        lines.append("")
    return "\n".join(lines)


def child(args: list[str]) -> dict[str, float]:
    out = subprocess.run([sys.executable, __file__, *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-text2qti", action="store_true")
    parser.add_argument(
        "--markdown-every", type=int, default=10, help="every Nth question has Markdown in stem and explanation"
    )
    parser.add_argument("--moe-lms", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--text2qti", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.moe_lms:
        print(json.dumps(run_moe_lms(*args.moe_lms)))
        return
    if args.text2qti:
        print(json.dumps(run_text2qti(args.text2qti)))
        return

    from moe_lms.loader import save_bank

    with tempfile.TemporaryDirectory() as tmp:
        bank_dir = Path(tmp) / "bank"
        save_bank(make_bank(args.questions, args.markdown_every), bank_dir)
        sizes = {p.name: p.stat().st_size for p in bank_dir.rglob("*") if p.is_file()}
        print(f"bank: {args.questions:,} questions x 4 choices, locales {', '.join(LOCALES)}, every text unique, "
              f"Markdown in every {args.markdown_every}th question; files " + ", ".join(
            f"{name} {size / 1e6:.1f} MB" for name, size in sorted(sizes.items())
        ))  # fmt: skip
        output = str(Path(tmp) / "out.moodle.xml")
        moe = [child(["--moe-lms", str(bank_dir), output]) for _ in range(args.runs)]
        best = min(moe, key=lambda r: r["seconds"])
        moe_runs = ", ".join(f"{r['seconds']:.2f}" for r in moe)
        moe_rate = best["questions"] / best["seconds"]
        print(
            f"moe-lms   export --format moodle (load + export, every locale): {best['questions']:,.0f} questions in "
            f"{best['seconds']:.2f} s (imports {best['import_s']:.2f}; load {best['load_s']:.2f} + export "
            f"{best['export_s']:.2f} measured apart; best of "
            f"{args.runs}: {moe_runs}) = {moe_rate:,.0f} questions/s, "
            f"peak RSS {max(r['peak_mib'] for r in moe):.0f} MiB, output {best['bytes'] / 1e6:.1f} MB"
        )
        if args.skip_text2qti:
            return
        if importlib.util.find_spec("text2qti") is None:
            print("text2qti is not installed: pip install -e '.[bench]' (or run with --skip-text2qti)")
            sys.exit(1)
        quizzes = []
        for locale in LOCALES:
            path = Path(tmp) / f"quiz-{locale}.md"
            path.write_text(text2qti_quiz(bank_dir, locale), encoding="utf-8")
            quizzes.append(str(path))
        t2q = [child(["--text2qti", *quizzes]) for _ in range(args.runs)]
        t2q_best = min(t2q, key=lambda r: r["seconds"])
        t2q_rate = t2q_best["questions"] / t2q_best["seconds"]
        print(
            f"text2qti  3 Markdown quizzes -> QTI: {t2q_best['questions']:,.0f} questions in "
            f"{t2q_best['seconds']:.2f} s (best of {args.runs}) = {t2q_rate:,.0f} questions/s, "
            f"peak RSS {max(r['peak_mib'] for r in t2q):.0f} MiB"
        )
        ratio = moe_rate / t2q_rate
        peak = max(r["peak_mib"] for r in moe)
        print(
            f"ratio: moe-lms is {ratio:.1f}x text2qti's questions/s (target >= {TARGET_RATIO}x: "
            f"{'met' if ratio >= TARGET_RATIO else 'NOT met'}); peak {peak:.0f} MiB (target < {TARGET_PEAK_MIB} MiB: "
            f"{'met' if peak < TARGET_PEAK_MIB else 'NOT met'})"
        )


if __name__ == "__main__":
    main()
