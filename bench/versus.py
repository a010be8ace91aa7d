"""moe-lms beside text2qti on the same generated bank, in one run: the CPU time of each command, end to end.

Used by qti_vs_text2qti.py and moodle_vs_text2qti.py, which print issue 19's floors (QTI 2.1 >= 8x, Moodle XML
>= 15x text2qti on the 10k bank). The bank is bench/bankgen.py's, in one locale (English), 4 choices per question,
an explanation on the question and on every choice; text2qti gets the same questions, explanations included, in its
Markdown format (pip install -e '.[bench]').

Each run is a fresh process, as a user runs the command: ``moe-lms export --format F BANK -o OUT`` (reads
bank.yaml, checks it, writes the file) and ``text2qti quiz.md`` (reads its Markdown, writes its QTI 1.2 zip).
Its CPU time (user + system, from getrusage of the child) counts the interpreter, the imports, the reading and
the writing, both tools with their modules' bytecode as an installed tool has it (installed_env; one untimed
run of each first); the runs of the two tools alternate, and the median of each is reported, so a shared machine's
noise falls on both alike. Beside it, the export alone: a process that has read the bank times only the
export into memory (``time.process_time``), the figure the speed work on the writers moves.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def installed_env(folder: Path) -> dict[str, str]:
    """This environment as an installed tool runs in it: with bytecode.

    pip compiles a package's modules to bytecode when it installs it (text2qti's have theirs); an editable
    install (the README's) writes them on its first run, unless PYTHONDONTWRITEBYTECODE is set, as on some CI
    machines, where every run would compile moe-lms's sources again (0.04 to 0.1 s a command) and the figures
    would measure the compiler. So the variable is dropped and bytecode goes into ``folder`` (the run's own
    temporary folder, nothing in the repo); the caller runs each command once untimed first to write it.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    return env


def usage_of(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, float]:
    """CPU seconds (user + system) and peak RSS (MiB) of one command run to completion in a fresh process (wait4's
    rusage of that one child)."""
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise subprocess.CalledProcessError(process.returncode, command)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def cpu_of(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    """CPU seconds (user + system) of one command run to completion in a fresh process."""
    return usage_of(command, cwd, env)[0]


def _tool(name: str) -> str:
    """The console script beside this interpreter (the venv's), else on PATH."""
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.exists() else name


def prepare(directory: Path, questions: int) -> tuple[Path, Path]:
    """The bank directory and text2qti's quiz of the same questions."""
    from bankgen import write_bank
    from moe_lms.loader import load_bank

    bank_dir = write_bank(directory / "bank", questions, ())
    quiz = directory / "quiz.md"
    write_quiz(load_bank(bank_dir), quiz)
    return bank_dir, quiz


def write_quiz(bank: Any, quiz: Path) -> None:
    """text2qti's Markdown of the bank's questions (source text, explanations included)."""
    from moe_lms.model import Kind

    def one_line(text: str) -> str:
        return " ".join(text.split())

    lines = [f"Quiz title: {one_line(bank.title)}", ""]
    for number, q in enumerate(bank.questions, start=1):
        lines += [f"Title: {q.id}", f"Points: {q.points:g}", f"{number}.  {one_line(q.stem)}"]
        lines.append(f"... {one_line(q.explanation)}")
        for letter, c in zip("abcdefghijklmnopqrstuvwxyz", q.choices, strict=False):
            if q.kind is Kind.MULTIPLE:
                marker = "[*]" if c.correct else "[ ]"
            else:
                marker = f"*{letter})" if c.correct else f"{letter}) "
            lines.append(f"{marker} {one_line(c.text)}")
            lines.append(f"... {one_line(c.explanation)}")
        lines.append("")
    quiz.write_text("\n".join(lines), encoding="utf-8")


def prepare_in_child(directory: Path, questions: int) -> tuple[Path, Path]:
    """:func:`prepare`, in a process of its own, so this one stays small: a child's peak RSS (wait4's ru_maxrss)
    counts its parent's RSS at the fork, which a 10k bank loaded here would have made 300 MiB."""
    program = "import sys, pathlib, versus; versus.prepare(pathlib.Path(sys.argv[1]), int(sys.argv[2]))"
    env = {**os.environ, "PYTHONPATH": str(HERE)}
    subprocess.run([sys.executable, "-c", program, str(directory), str(questions)], check=True, env=env)
    return directory / "bank", directory / "quiz.md"


def export_alone(bank_dir: Path, format_name: str) -> float:
    """CPU seconds of the export alone, the bank already read (median of three, in a fresh process)."""
    program = (
        "import json, sys, time\n"
        "from pathlib import Path\n"
        "from moe_lms.formats import ExportOptions, get\n"
        "from moe_lms.loader import load_bank\n"
        f"bank = load_bank(Path({str(bank_dir)!r}))\n"
        f"fmt, options = get({format_name!r}), ExportOptions.for_bank(bank)\n"
        "runs = []\n"
        "for _ in range(3):\n"
        "    start = time.process_time()\n"
        "    fmt.dump(bank, options)\n"
        "    runs.append(time.process_time() - start)\n"
        "print(json.dumps(sorted(runs)[1]))\n"
    )
    return float(json.loads(subprocess.run([sys.executable, "-c", program], check=True, capture_output=True).stdout))


def compare(format_name: str, sizes: list[int], runs: int, target: float) -> None:
    """Print, per bank size, both tools' median CPU seconds and their ratio, and their peak memory."""
    moe_lms, text2qti = _tool("moe-lms"), _tool("text2qti")
    print(
        f"moe-lms export --format {format_name} beside text2qti, same generated bank (1 locale, 4 choices, "
        f"explanations on every choice); CPU seconds per command, median of {runs} alternating runs; the peak RSS "
        "of each (MiB, the largest of its runs) and moe-lms's share of text2qti's (issue 13, target 6: at most 1/3)\n"
    )
    header = (
        f"{'questions':>10} {'moe-lms':>8} {'text2qti':>9} {'ratio':>7} {'export alone':>13} {'ratio':>7}"
        f" {'peak MiB':>9} {'text2qti':>9} {'share':>6}"
    )
    print(header)
    with tempfile.TemporaryDirectory() as cache:  # the bytecode of both tools (installed_env), for every size
        env = installed_env(Path(cache))
        for size in sizes:
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                bank_dir, quiz = prepare_in_child(folder, size)
                ours_command = [moe_lms, "export", "--format", format_name, str(bank_dir), "-o", "out"]
                if size == sizes[0]:  # untimed, once: writes the bytecode
                    cpu_of(ours_command, folder, env)
                    cpu_of([text2qti, str(quiz)], folder, env)
                ours: list[tuple[float, float]] = []
                theirs: list[tuple[float, float]] = []
                for _ in range(runs):
                    ours.append(usage_of(ours_command, folder, env))
                    theirs.append(usage_of([text2qti, str(quiz)], folder, env))
                alone = export_alone(bank_dir, format_name)
            mine, peer = statistics.median(r[0] for r in ours), statistics.median(r[0] for r in theirs)
            my_peak, peer_peak = max(r[1] for r in ours), max(r[1] for r in theirs)
            print(
                f"{size:>10,} {mine:>8.2f} {peer:>9.2f} {peer / mine:>6.1f}x {alone:>13.2f} {peer / alone:>6.1f}x"
                f" {my_peak:>9.0f} {peer_peak:>9.0f} {my_peak / peer_peak:>6.2f}"
                + (f"   (floor, issue 19: >= {target:g}x end to end)" if size == 10_000 else "")
            )
            sys.stdout.flush()


def main(format_name: str, target: float, description: str) -> None:
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--runs", type=int, default=3, help="runs of each tool per size (median reported)")
    parser.add_argument("--sizes", default="1000,10000", help="bank sizes, comma-separated")
    parser.add_argument("--large", action="store_true", help="also 100,000 questions (text2qti: minutes per run)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")] + ([100_000] if args.large else [])
    compare(format_name, sizes, args.runs, target)
