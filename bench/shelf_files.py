"""What each file of the shelf costs: the export alone (the bank already read), CPU seconds per file, in one process.

    python bench/shelf_files.py                       # 10,000 questions, ur and vi translated
    python bench/shelf_files.py --questions 1000 --formats moodle,html --repeat 3

The bank is bench/bankgen.py's. ``build`` spends what this prints plus reading the bank (printed first) and the
workers' start; issue 13's target 3 is that the sum stays below text2qti's one QTI file of the same questions
(bench/build_bench.py measures the whole command beside it). ``--repeat`` reports each file's median.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--formats", default="", help="only these formats, comma-separated (default: every one)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per file (median reported)")
    args = parser.parse_args()

    from bankgen import write_bank
    from moe_lms.formats import get
    from moe_lms.loader import load_bank
    from moe_lms.shelf import plan

    with tempfile.TemporaryDirectory() as tmp:
        bank_dir = write_bank(Path(tmp) / "bank", args.questions)
        start = time.process_time()
        bank = load_bank(bank_dir)
        print(f"{'read bank.yaml and both PO files':52} {time.process_time() - start:7.3f} s")
    only = set(filter(None, args.formats.split(",")))
    total = 0.0
    for item in plan(bank).items:
        if only and item.format_name not in only:
            continue
        fmt, runs, size = get(item.format_name), [], 0
        for _ in range(args.repeat):
            start = time.process_time()
            size = len(fmt.dump(bank, item.options))
            runs.append(time.process_time() - start)
        seconds = statistics.median(runs)
        total += seconds
        print(f"{item.filename:52} {seconds:7.3f} s {size / 2**20:8.1f} MiB")
        sys.stdout.flush()
    print(f"{'exports in all':52} {total:7.3f} s")


if __name__ == "__main__":
    main()
