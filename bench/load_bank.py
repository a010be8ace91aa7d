"""Benchmark: load + validate a generated 10,000-question bank (4 choices, explanations, 2 target locales).

Target (issue 2): under 2 s and under 150 MiB peak on the 2-core CI machine. Loading runs in a fresh
subprocess so its peak RSS is its own, not the generator's.

    python bench/load_bank.py [--questions 10000]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def peak_rss_kib() -> int:
    """This process's peak RSS. Not getrusage: Linux carries ru_maxrss over from the parent across exec."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _measure(directory: str, heap: bool) -> None:
    from moe_lms.loader import load_bank  # imported here so import time is not counted as loading

    if heap:  # a separate run: tracemalloc slows allocation down
        tracemalloc.start()
    start = time.perf_counter()
    bank = load_bank(Path(directory))
    elapsed = time.perf_counter() - start
    result = {"seconds": elapsed, "peak_mib": peak_rss_kib() / 1024, "questions": len(bank.questions)}
    result["translations"] = sum(len(c) for c in bank.translations.values())
    if heap:
        current, peak = tracemalloc.get_traced_memory()
        result |= {"heap_mib": current / 2**20, "heap_peak_mib": peak / 2**20}
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--heap", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        _measure(args.measure, args.heap)
        return
    from bankgen import write_bank

    with tempfile.TemporaryDirectory() as tmp:
        write_bank(Path(tmp), args.questions)
        sizes = {p.name: p.stat().st_size for p in Path(tmp).rglob("*") if p.is_file()}

        def measure(*extra: str) -> dict[str, float]:
            command = [sys.executable, __file__, "--measure", tmp, *extra]
            return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)

        runs = [measure() for _ in range(3)]
        heap = measure("--heap")
    best = min(runs, key=lambda r: r["seconds"])
    runs_text = ", ".join(f"{r['seconds']:.2f}" for r in runs)
    print("bank files: " + ", ".join(f"{n} {s / 1e6:.1f} MB" for n, s in sorted(sizes.items())))
    print(
        f"load + validate {best['questions']:,} questions, {best['translations']:,} translations: "
        f"{best['seconds']:.2f} s (best of 3; runs {runs_text}), "
        f"peak RSS {max(r['peak_mib'] for r in runs):.0f} MiB (incl. interpreter and imports)"
    )
    print(
        f"Python heap allocated by the load: {heap['heap_peak_mib']:.0f} MiB at peak, {heap['heap_mib']:.0f} MiB "
        "held by the loaded bank (tracemalloc, separate run)"
    )
    print("target: < 2 s and < 150 MiB")


if __name__ == "__main__":
    main()
