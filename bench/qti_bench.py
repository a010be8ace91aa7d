"""QTI 2.1 export speed and memory, beside text2qti on the same questions, in one run.

    pip install -e '.[bench]'
    python bench/qti_bench.py                 # 10,000 questions, plus the memory series 2,500 / 5,000 / 10,000
    python bench/qti_bench.py --questions 2000 --series 500,1000,2000

The bank is generated: 4 choices per question, a general explanation and one per choice, in en (source),
ur and vi (complete translations). text2qti gets the same English questions in its Markdown format (with the
same per-choice and general feedback) and writes its QTI 1.2 package; moe-lms writes QTI 2.1. Each case runs in
a fresh process, so its peak memory is its own: peak RSS above the process's RSS just before exporting
(lxml's C allocations included) and, for moe-lms, tracemalloc's peak of Python objects in a second, untimed
run. Exports stream into a sink that keeps only a byte count; text2qti builds its zip in memory by design
(QTI.zip_bytes), which is part of what it costs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable

from moe_lms.model import Bank, Translation, strings

LOCALES = ("en", "ur", "vi")
WORDS = [
    *("expert", "router", "token", "shard", "device", "all-to-all", "dispatch", "combine", "capacity", "factor"),
    *("load", "balance", "gate", "layer", "parameter", "batch", "latency", "throughput", "kernel", "memory"),
    *("bandwidth", "replica", "overlap", "pipeline"),
]


def _sentence(seed: int, words: int) -> str:
    return " ".join(WORDS[(seed * 7 + i * 13) % len(WORDS)] for i in range(words)).capitalize()


def generate_bank(questions: int) -> Bank:
    """A bank of ``questions`` single-answer questions, fully translated into ur and vi."""
    raw = []
    for n in range(questions):
        raw.append(
            {
                "id": f"q{n:05d}",
                "stem": f"{_sentence(n, 14)} (question {n})?",
                "explanation": f"{_sentence(n + 1, 40)}. {_sentence(n + 2, 30)}.",
                "choices": [
                    {
                        "id": letter,
                        "text": f"{_sentence(n + k, 6)} ({letter})",
                        "correct": k == n % 4,
                        "explanation": f"{_sentence(n + k + 3, 25)}.",
                    }
                    for k, letter in enumerate("abcd")
                ],
            }
        )
    bank = Bank.model_validate(
        {"id": "bench", "title": "Benchmark bank", "target_locales": ["ur", "vi"], "questions": raw}
    )
    prefixes = {"ur": "اردو متن: ", "vi": "Văn bản tiếng Việt: "}
    translations = {
        loc: {path: Translation(text=prefix + text, source=text) for path, text in strings(bank)}
        for loc, prefix in prefixes.items()
    }
    return bank.model_copy(update={"translations": translations})


def text2qti_markdown(bank: Bank) -> str:
    """The same questions in text2qti's plain-text format: choices, per-choice and general feedback."""
    lines = ["Quiz title: Benchmark bank", "Quiz description: Generated questions.", ""]
    for n, q in enumerate(bank.questions, start=1):
        lines.append(f"{n}.  {q.stem}")
        lines.append(f"... {q.explanation}")
        for c in q.choices:
            lines.append(f"{'*' if c.correct else ''}{c.id}) {c.text}")
            lines.append(f"... {c.explanation}")
        lines.append("")
    return "\n".join(lines)


class Sink:
    """Counts the bytes written and keeps none of them."""

    def __init__(self) -> None:
        self.size = 0

    def write(self, data: bytes) -> int:
        self.size += len(data)
        return len(data)

    def flush(self) -> None:
        pass


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def measure(run: Callable[[], int], *, python_heap: bool) -> dict[str, float]:
    """Time ``run`` while sampling RSS every 2 ms; then, if asked, run it again under tracemalloc (which slows
    Python down, so never during the timed run) for the peak of Python objects alone."""
    baseline = _rss()
    peak = baseline
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _rss())
            time.sleep(0.002)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    start = time.perf_counter()
    size = run()
    seconds = time.perf_counter() - start
    done.set()
    watcher.join()
    peak = max(peak, _rss())
    result = {"seconds": seconds, "bytes": size, "rss_peak_mb": (peak - baseline) / 2**20, "py_peak_mb": float("nan")}
    if python_heap:
        tracemalloc.start()
        run()
        result["py_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return result


def _moe_lms(bank: Bank, locales: tuple[str, ...]) -> dict[str, float]:
    from moe_lms.formats import ExportOptions, get

    options = ExportOptions.for_bank(bank, locales)
    fmt = get("qti21")

    def export() -> int:
        sink = Sink()
        fmt.write(bank, options, sink)  # type: ignore[arg-type]
        return sink.size

    return measure(export, python_heap=True)


def _text2qti(text: str) -> dict[str, float]:
    from text2qti.config import Config
    from text2qti.qti import QTI
    from text2qti.quiz import Quiz

    def convert() -> int:
        quiz = Quiz(text, config=Config(), source_name="bench.md")
        return len(QTI(quiz).zip_bytes())

    return measure(convert, python_heap=False)


def run_case(case: str, questions: int) -> dict[str, float]:
    bank = generate_bank(questions)
    if case.startswith("moe-lms:"):
        return _moe_lms(bank, tuple(case.removeprefix("moe-lms:").split(",")))
    text = text2qti_markdown(bank)
    del bank  # text2qti gets only its own input in memory
    return _text2qti(text)


def in_subprocess(case: str, questions: int, repeat: int) -> dict[str, float]:
    """The fastest of ``repeat`` runs, each in a fresh process (a shared machine adds noise, never speed)."""
    runs = []
    for _ in range(repeat):
        output = subprocess.run(
            [sys.executable, __file__, "--case", case, "--questions", str(questions)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        runs.append(json.loads(output))
    best: dict[str, float] = min(runs, key=lambda r: r["seconds"])
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--series", default="2500,5000,10000", help="bank sizes for the memory series")
    parser.add_argument("--repeat", type=int, default=2, help="runs per case; the fastest is reported")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case, args.questions)))
        return

    n = args.questions
    print(
        f"QTI export of {n:,} generated questions (4 choices, explanations; en + ur + vi); "
        f"each case in fresh processes, fastest of {args.repeat}\n"
    )
    cases = [
        ("text2qti 0.8 (QTI 1.2), en", "text2qti"),
        ("moe-lms qti21, en", "moe-lms:en"),
        ("moe-lms qti21, en+ur+vi", "moe-lms:en,ur,vi"),
    ]
    results = {}
    columns = (
        ("seconds", 8),
        ("questions/s", 12),
        ("items/s", 9),
        ("zip MB", 7),
        ("peak RSS MB", 12),
        ("py peak MB", 11),
    )
    print(f"{'case':<28} " + " ".join(f"{name:>{width}}" for name, width in columns))
    for label, case in cases:
        r = in_subprocess(case, n, args.repeat)
        results[case] = r
        items = n * (len(case.split(":")[1].split(",")) if ":" in case else 1)
        print(
            f"{label:<28} {r['seconds']:>8.2f} {n / r['seconds']:>12,.0f} {items / r['seconds']:>9,.0f} "
            f"{r['bytes'] / 2**20:>7.1f} {r['rss_peak_mb']:>12.1f} {r['py_peak_mb']:>11.1f}"
        )
    base = results["text2qti"]["seconds"]
    print(
        f"\nratio (questions/s, moe-lms / text2qti): same questions in one language "
        f"{base / results['moe-lms:en']['seconds']:.1f}x; "
        f"moe-lms doing all three locales {base / results['moe-lms:en,ur,vi']['seconds']:.1f}x (target >= 5x)"
    )

    print("\nmemory as the bank grows (moe-lms qti21, en+ur+vi; memory used by the export on top of the bank):")
    print(f"{'questions':>10} {'seconds':>8} {'questions/s':>12} {'peak RSS MB':>12} {'py peak MB':>11}")
    for size in (int(s) for s in args.series.split(",")):
        r = in_subprocess("moe-lms:en,ur,vi", size, args.repeat)
        rate = size / r["seconds"]
        print(f"{size:>10,} {r['seconds']:>8.2f} {rate:>12,.0f} {r['rss_peak_mb']:>12.1f} {r['py_peak_mb']:>11.1f}")


if __name__ == "__main__":
    main()
