"""Benchmark: push a 1,000-question bank into the Canvas-like test server with 50 ms added per request.

Prints the requests made and the wall time of a first push (concurrent, as `moe-lms push canvas` runs it) and of the
same push one request at a time, for both engines; then a re-push (no writes) and `--via qti`.
Targets (issue 5): a first push makes at most N + ceil(N/100) + 10 requests and is at least 3x faster than one
request at a time; `--via qti` makes fewer than 20 requests.

    python bench/canvas_bench.py [--questions 1000] [--latency 0.05] [--engine classic] [--engine new-quizzes]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from tests.canvas_helpers import stand_in_package  # noqa: E402
from tests.canvas_server import TOKEN, Canvas, CanvasServer, Faults  # noqa: E402

from bankgen import make_bank  # noqa: E402
from moe_lms import formats  # noqa: E402
from moe_lms.formats.canvas import ENGINES, Engine, desired_quizzes  # noqa: E402
from moe_lms.lms.canvas import Pusher, import_qti  # noqa: E402
from moe_lms.lms.canvas_client import CanvasClient  # noqa: E402
from moe_lms.model import Bank  # noqa: E402


@dataclass
class Run:
    canvas: Canvas
    seconds: float

    @property
    def requests(self) -> int:
        return len(self.canvas.log)

    @property
    def writes(self) -> int:
        return len(self.canvas.writes())


def push(bank: Bank, engine: Engine, concurrency: int, canvas: Canvas) -> Run:
    """Plan and apply into ``canvas`` (reads included in the time, as a user waits for them)."""
    with CanvasServer(canvas):
        pusher = Pusher(CanvasClient(canvas.base_url, TOKEN, concurrency=concurrency), "1", engine)
        desired = list(desired_quizzes(bank, formats.ExportOptions.for_bank(bank, ("en",)), engine))
        start = time.perf_counter()
        pusher.apply(pusher.plan(desired, bank.locales, prune=False, publish=False))
        return Run(canvas, time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--engine", action="append", choices=ENGINES)
    args = parser.parse_args()
    n = args.questions
    bank = make_bank(n)
    budget = n + math.ceil(n / 100) + 10
    print(f"{n}-question bank, one locale, {args.latency * 1000:.0f} ms added per request; request budget {budget}")
    for engine in args.engine or ENGINES:
        first = push(bank, engine, 6, Canvas(faults=Faults(latency=args.latency)))
        reads, writes = first.requests, first.writes
        again = push(bank, engine, 6, first.canvas)
        one_by_one = push(bank, engine, 1, Canvas(faults=Faults(latency=args.latency)))
        speedup = one_by_one.seconds / first.seconds
        ok = reads <= budget and speedup >= 3 and again.writes == writes
        print(
            f"{engine:12} first push: {reads} requests ({writes} writes) in {first.seconds:.2f} s; "
            f"one at a time: {one_by_one.requests} requests in {one_by_one.seconds:.2f} s; {speedup:.1f}x faster; "
            f"re-push: {again.requests - reads} requests, {again.writes - writes} writes  [{'ok' if ok else 'MISSED'}]"
        )
    canvas = Canvas(faults=Faults(latency=args.latency), polls_to_finish=2)
    if "qti21" in formats.names():
        package, what = formats.get("qti21").dump(bank, formats.ExportOptions(("en",))), "QTI 2.1 export"
    else:
        package, what = stand_in_package(n), "stand-in package (no qti21 exporter in this build)"
    with CanvasServer(canvas):
        client = CanvasClient(canvas.base_url, TOKEN)
        start = time.perf_counter()
        migration = import_qti(client, "1", package, "bank.zip", bank_name="Generated")
        seconds = time.perf_counter() - start
    print(
        f"--via qti     {what}, {len(package) / 1024:.0f} KiB: {len(canvas.log)} requests in {seconds:.2f} s, "
        f"migration {migration.state}  [{'ok' if len(canvas.log) < 20 else 'MISSED'}]"
    )


if __name__ == "__main__":
    main()
