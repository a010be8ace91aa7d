"""Benchmark: what `moe-lms check` spends on a generated 10,000-question bank (4 choices, explanations, ur and vi
fully translated, a third of them drafts), step by step: load, the one pass over every string (rendering check,
translation quality checks, the character share of each locale: quality.survey), the rest (placeholders, coverage
counts); then the whole `moe-lms check` command. CPU seconds, median of 3, each run in a
fresh subprocess (its peak RSS its own). Then the same with a glossary of 16 terms, its `#. glossary:` comments
written into the PO files by `translations update`. Target (issue 13): 10k questions <= 2 s, 100k <= 20 s.

    python bench/check_bank.py [--questions 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _measure(directory: str) -> None:
    from load_bank import peak_rss_kib
    from moe_lms import loader, quality
    from moe_lms.glossary import read_glossary
    from moe_lms.locales import coverage

    steps: dict[str, float] = {}
    clock = time.process_time
    start = clock()
    bank, _ = loader.check_bank(Path(directory))
    assert bank is not None
    steps["load"] = clock() - start
    start = clock()
    glossary, _ = read_glossary(Path(directory), bank.target_locales)
    survey = quality.survey(Path(directory), bank, glossary)
    assert survey is not None
    steps["one pass"] = clock() - start  # the rendering check, the quality checks and the character share
    start = clock()
    loader.placeholder_problems(Path(directory), bank)
    for locale in bank.target_locales:
        coverage(bank, locale)
    steps["the rest"] = clock() - start  # placeholders, the coverage counts
    print(json.dumps({"steps": steps, "findings": len(survey.findings), "peak_mib": peak_rss_kib() / 1024}))


def _command_cpu(command: list[str], env: dict[str, str]) -> float:
    """CPU seconds (user + system) of one run of ``command``, from wait4's rusage of the child."""
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return float(usage.ru_utime + usage.ru_stime)


def _setup(directory: str, questions: int, glossary: bool) -> None:
    """The bank, or its glossary and the PO comments it makes, written by a process of its own (see main)."""
    from bankgen import WORDS, _translate, write_bank
    from moe_lms import loader
    from moe_lms.glossary import read_glossary

    if not glossary:
        write_bank(Path(directory), questions)
        return
    terms = [f"  - source: [{w}]\n    ur: {{use: {_translate('ur', w)}}}\n    vi: {{use: {_translate('vi', w)}}}\n"
             for w in WORDS[:16]]  # fmt: skip
    (Path(directory) / "glossary.yaml").write_text("terms:\n" + "".join(terms), encoding="utf-8")
    bank, problems = loader.read_bank_yaml(Path(directory) / loader.BANK_FILE)
    found, problems = read_glossary(Path(directory), ("ur", "vi"))
    assert bank is not None and found is not None, problems
    loader.update_catalogs(Path(directory), bank, found.comments)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--setup", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        _measure(args.measure)
        return
    if args.setup:
        _setup(args.setup[0], args.questions, args.setup[1] == "glossary")
        return
    from versus import installed_env

    def setup(directory: str, what: str) -> None:
        # (in a child: this process stays small, as a child's peak RSS counts its parent's RSS at the fork)
        command = [sys.executable, __file__, "--questions", str(args.questions), "--setup", directory, what]
        subprocess.run(command, check=True)

    def measure(directory: str) -> dict[str, float]:
        command = [sys.executable, __file__, "--measure", directory]
        runs = [
            json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout) for _ in range(3)
        ]
        best = {step: statistics.median(r["steps"][step] for r in runs) for step in runs[0]["steps"]}
        check = [str(Path(sys.executable).parent / "moe-lms"), "check", directory]
        _command_cpu(check, env)  # untimed: writes the bytecode (installed_env)
        whole = statistics.median(_command_cpu(check, env) for _ in range(3))
        return best | {"findings": runs[0]["findings"], "peak": max(r["peak_mib"] for r in runs), "command": whole}

    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as cache:
        env = installed_env(Path(cache))
        setup(tmp, "bank")
        plain = measure(tmp)
        setup(tmp, "glossary")
        with_glossary = measure(tmp)
    for label, best in (("without a glossary", plain), ("with a glossary of 16 terms", with_glossary)):
        print(f"check of {args.questions:,} questions {label}, CPU seconds (median of 3):")
        steps = {k: v for k, v in best.items() if k not in ("findings", "peak", "command")}
        for step, seconds in steps.items():
            print(f"  {step:<17} {seconds:.2f} s")
        print(
            f"  {'total':<17} {sum(steps.values()):.2f} s; {best['findings']:.0f} findings; "
            f"peak RSS {best['peak']:.0f} MiB"
        )
        print(f"  `moe-lms check` as a command (imports and coverage table included): {best['command']:.2f} s")


if __name__ == "__main__":
    main()
