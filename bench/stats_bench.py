"""moe-lms stats on a 100,000-response results file: CPU seconds of each step in this process, then of the whole
command in a fresh process (interpreter, imports, reading the bank, the analysis, the JSON), medians of 5.

    python bench/stats_bench.py [--attempts 4000] [--questions 25] [--runs 5]

The bank has ``--questions`` single-answer questions of 4 choices in en, ur and vi; the learners (a third per
locale) answer every question by a two-parameter logistic model, so the attempts times the questions are the
responses (4,000 x 25 = 100,000 rows of the plain CSV ``learner,attempt,locale,question,answer``). DIF is computed
for the three pairs of locales, both stages.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from moe_lms.loader import save_bank
from moe_lms.model import Bank, Choice, Question
from versus import _tool, cpu_of, installed_env


def make_bank(questions: int) -> Bank:
    return Bank(
        id="stats-bench",
        title="Stats bench",
        target_locales=("ur", "vi"),
        questions=tuple(
            Question(
                id=f"q{n:04d}",
                stem=f"Question {n}?",
                explanation="Because.",
                choices=tuple(
                    Choice(id=c, text=f"Choice {c} of {n}", correct=c == "a", explanation="Why.") for c in "abcd"
                ),
            )
            for n in range(questions)
        ),
    )


def results_csv(bank: Bank, attempts: int, seed: int = 7) -> bytes:
    rng = np.random.default_rng(seed)
    b = rng.normal(0, 1, len(bank.questions))
    theta = rng.normal(0, 1, attempts)
    right = rng.random((attempts, len(bank.questions))) < 1 / (1 + np.exp(-1.7 * (theta[:, None] - b[None, :])))
    wrong = rng.choice(["b", "c", "d"], size=right.shape)
    locales = ("en", "ur", "vi")
    lines = ["learner,attempt,locale,question,answer"]
    for a in range(attempts):
        locale = locales[a % 3]
        for i, q in enumerate(bank.questions):
            lines.append(f"l{a},1,{locale},{q.id},{'a' if right[a, i] else wrong[a, i]}")
    return ("\n".join(lines) + "\n").encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--attempts", type=int, default=4000)
    parser.add_argument("--questions", type=int, default=25)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from moe_lms.stats.compute import analyse
    from moe_lms.stats.json_out import document
    from moe_lms.stats.plain import read_plain

    bank = make_bank(args.questions)
    data = results_csv(bank, args.attempts)
    responses = args.attempts * args.questions
    print(f"{responses:,} responses ({args.attempts:,} attempts x {args.questions} questions, 3 locales), "
          f"{len(data) / 1e6:.1f} MB of CSV; CPU seconds, median of {args.runs}\n")  # fmt: skip
    clock = time.process_time
    steps: dict[str, list[float]] = {"read the CSV": [], "analyse (items, alpha, DIF)": [], "the JSON": []}
    for _ in range(args.runs):
        t0 = clock()
        attempts = read_plain(data, "results.csv", bank)
        t1 = clock()
        analysis = analyse(bank, attempts)
        t2 = clock()
        document(analysis)
        t3 = clock()
        for label, seconds in zip(steps, (t1 - t0, t2 - t1, t3 - t2), strict=True):
            steps[label].append(seconds)
    for label, runs in steps.items():
        print(f"{label:<32} {statistics.median(runs):6.3f}  ({min(runs):.3f}, {max(runs):.3f})")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        save_bank(bank, folder / "bank")
        (folder / "results.csv").write_bytes(data)
        env = installed_env(folder)
        command = [_tool("moe-lms"), "stats", "results.csv", "--bank", "bank", "-o", "stats.json"]
        cpu_of(command, folder, env)  # (writes the bytecode)
        runs = [cpu_of(command, folder, env) for _ in range(args.runs)]
        print(
            f"{'moe-lms stats (whole command)':<32} {statistics.median(runs):6.3f}  ({min(runs):.3f}, {max(runs):.3f})"
        )


if __name__ == "__main__":
    main()
