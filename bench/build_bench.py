"""Benchmark: `moe-lms build` of a generated bank (every format, every locale: the whole shelf) beside text2qti
writing one QTI file of the same English questions; CPU seconds and peak memory, medians of 3, in one run.

    pip install -e '.[bench]'
    python bench/build_bench.py                       # 1,000 and 10,000 questions
    python bench/build_bench.py --sizes 1000,10000,100000 --repeat 1

The bank is bench/bankgen.py's (4 choices, an explanation on each and on the question, ur and vi fully
translated). Each run is a fresh `moe-lms build` (or `text2qti`) process; its CPU time is its own plus that of
the workers it forked (getrusage of the children, which counts a process once it is waited for), so a build on
two cores costs the CPU time it really used; the wall time shows the cores working side by side. Peak RSS is the
largest single process's (the build's parent or one worker). Target (issue 13, 3 and 6): the 10k shelf in less
CPU time than text2qti's one QTI file, on both cores, at most a third of text2qti's peak memory.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from versus import installed_env

BIN = Path(sys.executable).parent


def _generate(directory: Path, questions: int) -> None:
    """The bank and text2qti's Markdown of its English questions, written by a separate process (so this one
    stays small: a child's peak RSS starts from its parent's)."""
    code = (
        "import sys; from pathlib import Path; from bankgen import make_bank; from moe_lms.loader import save_bank\n"
        "bank = make_bank(int(sys.argv[2])); save_bank(bank, Path(sys.argv[1]) / 'bank')\n"
        "lines = ['Quiz title: Generated', 'Quiz description: Generated questions.', '']\n"
        "for n, q in enumerate(bank.questions, start=1):\n"
        "    lines += [f'{n}.  {q.stem}', f'... {q.explanation}']\n"
        "    for c in q.choices:\n"
        "        lines += [f\"{'*' if c.correct else ''}{c.id}) {c.text}\", f'... {c.explanation}']\n"
        "    lines.append('')\n"
        "(Path(sys.argv[1]) / 'quiz.md').write_text('\\n'.join(lines), encoding='utf-8')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent)}
    subprocess.run([sys.executable, "-c", code, str(directory), str(questions)], check=True, env=env)


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """(CPU seconds, wall seconds, peak RSS MiB) of one process and the children it waited for (wait4's rusage of
    a child covers them: CPU summed, RSS the largest single process's)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise SystemExit(f"{' '.join(command)} failed ({process.returncode})")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def _median(runs: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    return (
        statistics.median(r[0] for r in runs),
        statistics.median(r[1] for r in runs),
        max(r[2] for r in runs),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", default="1,2", help="--jobs values of moe-lms build to measure")
    args = parser.parse_args()
    print(f"moe-lms build (whole shelf) vs text2qti (one QTI file); CPU s, wall s, peak RSS; median of {args.repeat}")
    print(f"{'questions':>10} {'case':<28} {'CPU s':>8} {'wall s':>8} {'peak MiB':>9}")
    with tempfile.TemporaryDirectory() as cache:
        env = installed_env(Path(cache))
        _warm_up(args.jobs, env)
        for size in (int(s) for s in args.sizes.split(",")):
            _measure(size, args, env)


def _cases(jobs: str) -> dict[str, list[str]]:
    cases = {"text2qti (1 QTI file, en)": [str(BIN / "text2qti"), "quiz.md"]}
    for n in jobs.split(","):
        cases[f"moe-lms build --jobs {n}"] = [str(BIN / "moe-lms"), "build", "bank", "--out", "shelf", "--jobs", n]
    return cases


def _warm_up(jobs: str, env: dict[str, str]) -> None:
    """Each command once, untimed, on a bank of 2 questions: writes the bytecode (installed_env)."""
    with tempfile.TemporaryDirectory() as tmp:
        _generate(Path(tmp), 2)
        for command in _cases(jobs).values():
            _run(command, Path(tmp), env)


def _measure(size: int, args: argparse.Namespace, env: dict[str, str]) -> None:
    """Print each case's figures at one size."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        _generate(work, size)
        cases = _cases(args.jobs)
        results = {}
        for label, command in cases.items():
            runs = []
            for _ in range(args.repeat):
                shutil.rmtree(work / "shelf", ignore_errors=True)
                runs.append(_run(command, work, env))
            results[label] = cpu, wall, peak = _median(runs)
            print(f"{size:>10,} {label:<28} {cpu:>8.2f} {wall:>8.2f} {peak:>9.0f}", flush=True)
        files = len(list((work / "shelf").iterdir()))
        peer = results["text2qti (1 QTI file, en)"][0]
        for label, (cpu, _, _) in results.items():
            if label.startswith("moe-lms"):
                print(f"{'':>10} {label}: {files} files in {cpu / peer:.2f}x text2qti's CPU time for one file")


if __name__ == "__main__":
    main()
