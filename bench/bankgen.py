"""Generated banks for the benchmarks: N questions, 4 choices each, explanations, translated target locales.

Every string is distinct (each names its question), as in a real bank: a cache keyed by text gains nothing here
that it would not gain on real questions. (The words come from 23 sentences, which alone repeat every 23
questions.)

The benchmarks import it; as a script it writes such a bank, to try moe-lms on a large one:

    python bench/bankgen.py 20000 big-bank [--locales ur,vi]
    moe-lms check big-bank
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from moe_lms.loader import save_bank
from moe_lms.model import Bank, Translation, strings

WORDS = [
    "expert", "token", "router", "capacity", "all-to-all", "dispatch", "combine", "gradient", "layer", "device",
    "buffer", "shard", "latency", "throughput", "activation", "parameter", "batch", "sequence", "attention",
    "memory", "bandwidth", "kernel", "overlap",
]  # fmt: skip
# Translations are written in the target script, so strings take the memory real Urdu and Vietnamese do.
_SCRIPTS = {
    "ur": str.maketrans("abcdefghijklmnopqrstuvwxyz", "اببپتٹثجچحخدڈذرڑزژسشصضطظعغ"[:26]),
    "vi": str.maketrans("aeiouy", "ăêơưôý"),
}


def _translate(locale: str, text: str) -> str:
    return text.lower().translate(_SCRIPTS.get(locale, {}))


def _sentence(seed: int, length: int) -> str:
    words = [WORDS[(seed * 7 + i * 13) % len(WORDS)] for i in range(length)]
    return " ".join(words).capitalize()


def make_bank(questions: int, target_locales: tuple[str, ...] = ("ur", "vi")) -> Bank:
    """A valid bank of the given size; every target locale fully translated (reviewed and drafts mixed)."""
    qs = []
    for i in range(questions):
        correct = i % 4
        qs.append(
            {
                "id": f"q{i:05d}",
                "stem": f"{_sentence(i, 12)} — question {i}?",
                "explanation": f"{_sentence(i + 1, 20)}, for question {i}.",
                "tags": ["generated"],
                "choices": [
                    {
                        "id": "abcd"[j],
                        "text": f"{_sentence(i + j, 6)} ({i}-{j})",
                        "correct": j == correct,
                        "explanation": f"{_sentence(i * 3 + j, 18)}, for choice {i}-{j}.",
                    }
                    for j in range(4)
                ],
            }
        )
    header = {"id": "generated", "title": f"Generated bank of {questions}", "target_locales": target_locales}
    bank = Bank.model_validate({**header, "questions": qs})
    translations = {
        locale: {
            path: Translation(text=_translate(locale, source), source=source, draft=n % 3 == 0)
            for n, (path, source) in enumerate(strings(bank))
        }
        for locale in target_locales
    }
    return bank.model_copy(update={"translations": translations})


def write_bank(directory: Path, questions: int, target_locales: tuple[str, ...] = ("ur", "vi")) -> Path:
    save_bank(make_bank(questions, target_locales), directory)
    return directory


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write a generated bank (bank.yaml and locales/*.po) to try moe-lms.")
    parser.add_argument("questions", type=int, help="how many questions (4 choices each)")
    parser.add_argument("directory", type=Path, help="the bank folder to write (made if missing; must hold no bank)")
    parser.add_argument("--locales", default="ur,vi", help="target locales, comma-separated (default: ur,vi)")
    args = parser.parse_args(argv)
    if args.questions < 1:
        parser.error("questions: at least 1")
    if (args.directory / "bank.yaml").exists():
        parser.error(f"{args.directory} already holds a bank.yaml: name a new folder")
    locales = tuple(tag for tag in args.locales.split(",") if tag)
    write_bank(args.directory, args.questions, locales)
    print(f"wrote {args.directory}: {args.questions} questions, target locales {', '.join(locales) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
