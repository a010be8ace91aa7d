"""Benchmark: load + validate a generated 10,000-question bank (4 choices, explanations), in English alone and
with its Urdu and Vietnamese PO files.

Targets: issue 2, under 2 s and under 150 MiB peak on the 2-core CI machine; issue 13, CPU time (the machine is
shared: wall time says little) at most 0.18 s in English alone and 0.45 s with both translations. Loading runs
in a fresh subprocess so its peak RSS is its own, not the generator's; its CPU time is the load's alone
(time.process_time around load_bank, imports not counted), the median of --runs processes.

    python bench/load_bank.py [--questions 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
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
    start, cpu = time.perf_counter(), time.process_time()
    bank = load_bank(Path(directory))
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    result = {"seconds": elapsed, "cpu": cpu, "peak_mib": peak_rss_kib() / 1024, "questions": len(bank.questions)}
    result["translations"] = sum(len(c) for c in bank.translations.values())
    if heap:
        current, peak = tracemalloc.get_traced_memory()
        result |= {"heap_mib": current / 2**20, "heap_peak_mib": peak / 2**20}
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--heap", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        _measure(args.measure, args.heap)
        return
    from bankgen import write_bank

    for locales, target in (((), 0.18), (("ur", "vi"), 0.45)):
        with tempfile.TemporaryDirectory() as tmp:
            write_bank(Path(tmp), args.questions, locales)
            sizes = {p.name: p.stat().st_size for p in Path(tmp).rglob("*") if p.is_file()}

            def measure(*extra: str, tmp: str = tmp) -> dict[str, float]:
                command = [sys.executable, __file__, "--measure", tmp, *extra]
                return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)

            runs = [measure() for _ in range(args.runs)]
            heap = measure("--heap") if locales else None
        cpu = statistics.median(r["cpu"] for r in runs)
        cpus = ", ".join(f"{r['cpu']:.3f}" for r in runs)
        files = ", ".join(f"{n} {s / 1e6:.1f} MB" for n, s in sorted(sizes.items()))
        print(f"\n{' + '.join(('en', *locales))}: {files}")
        print(
            f"load + validate {runs[0]['questions']:,} questions, {runs[0]['translations']:,} translations: "
            f"CPU {cpu:.3f} s (median of {args.runs}; runs {cpus}), "
            f"wall {min(r['seconds'] for r in runs):.2f} s (best), "
            f"peak RSS {max(r['peak_mib'] for r in runs):.0f} MiB (incl. interpreter and imports)"
        )
        if heap is not None:
            print(
                f"Python heap allocated by the load: {heap['heap_peak_mib']:.0f} MiB at peak, "
                f"{heap['heap_mib']:.0f} MiB held by the loaded bank (tracemalloc, separate run)"
            )
        print(f"target: CPU <= {target} s (issue 13); < 2 s and < 150 MiB (issue 2)")


if __name__ == "__main__":
    main()
