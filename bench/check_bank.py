"""Benchmark: what `moe-lms check` spends on a generated 10,000-question bank (4 choices, explanations, ur and vi
fully translated, a third of them drafts), step by step: load, rendering check, translation quality checks, the
character share of each locale. CPU seconds, best of 3, in a fresh subprocess (its peak RSS its own).

    python bench/check_bank.py [--questions 10000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _measure(directory: str) -> None:
    from load_bank import peak_rss_kib
    from moe_lms import loader, quality
    from moe_lms.locales import character_share

    steps: dict[str, float] = {}
    clock = time.process_time
    start = clock()
    bank, _ = loader.check_bank(Path(directory))
    assert bank is not None
    steps["load"] = clock() - start
    start = clock()
    loader.rendering_problems(Path(directory), bank)
    steps["rendering"] = clock() - start
    start = clock()
    findings = quality.translation_findings(bank)
    steps["quality"] = clock() - start
    start = clock()
    for locale in bank.target_locales:
        character_share(bank, locale)
    steps["character share"] = clock() - start
    print(json.dumps({"steps": steps, "findings": len(findings), "peak_mib": peak_rss_kib() / 1024}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        _measure(args.measure)
        return
    from bankgen import write_bank

    with tempfile.TemporaryDirectory() as tmp:
        write_bank(Path(tmp), args.questions)
        command = [sys.executable, __file__, "--measure", tmp]
        runs = [
            json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout) for _ in range(3)
        ]
    best = {step: min(r["steps"][step] for r in runs) for step in runs[0]["steps"]}
    print(f"check of {args.questions:,} questions, CPU seconds (best of 3):")
    for step, seconds in best.items():
        print(f"  {step:<17} {seconds:.2f} s")
    print(
        f"  {'total':<17} {sum(best.values()):.2f} s; {runs[0]['findings']} findings; "
        f"peak RSS {max(r['peak_mib'] for r in runs):.0f} MiB"
    )


if __name__ == "__main__":
    main()
