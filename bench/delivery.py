"""Time and size of the delivery formats (HTML page, GIFT) and of a whole `moe-lms build`, as banks grow.

    python bench/delivery.py [N ...]      # default 100 1000 5000 questions

Prints, per bank size: seconds and bytes for one locale's HTML page and GIFT file, and the peak memory of
making them (tracemalloc), so growth can be read off the rows.
"""

from __future__ import annotations

import io
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bankgen import make_bank
from moe_lms import shelf
from moe_lms.files import replace_if_changed
from moe_lms.formats import ExportOptions, get
from moe_lms.model import Bank


def measure(name: str, bank_size: int, run: Callable[[], int]) -> None:
    """Seconds of one run, then the peak memory of another under tracemalloc (which slows it down)."""
    start = time.perf_counter()
    size = run()
    seconds = time.perf_counter() - start
    tracemalloc.start()
    run()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"{name:<22} {bank_size:>6} q  {seconds:8.3f} s  {size / 1e6:8.2f} MB out  {peak / 1e6:8.1f} MB peak")


def main(sizes: list[int]) -> None:
    for n in sizes:
        bank = make_bank(n)
        for fmt in ("html", "gift"):
            measure(f"{fmt} (ur)", n, partial(export, bank, fmt))
        plan = shelf.plan(bank)
        measure(f"build ({len(plan.items) + 1} files)", n, partial(build, plan))


class _Counter(io.RawIOBase):
    """A sink that only counts, so the output's size does not count as memory."""

    def __init__(self) -> None:
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, data: object) -> int:
        self.size += len(memoryview(data))  # type: ignore[arg-type]
        return len(memoryview(data))  # type: ignore[arg-type]


def export(bank: Bank, fmt: str) -> int:
    sink = _Counter()
    get(fmt).write(bank, ExportOptions(("ur",)), sink)  # type: ignore[arg-type]
    return sink.size


def build(plan: shelf.Plan) -> int:
    """As `moe-lms build` does it: each file streamed to disk and compared with the one there."""
    with tempfile.TemporaryDirectory() as tmp:
        for name, write in shelf.writers(plan):
            replace_if_changed(Path(tmp) / name, write)
        return sum(p.stat().st_size for p in Path(tmp).iterdir())


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100, 1000, 5000])
