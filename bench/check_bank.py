"""Benchmark: what `moe-lms check` spends on a generated 10,000-question bank (4 choices, explanations, ur and vi
fully translated, a third of them drafts), step by step: load, rendering check, translation quality checks, the
character share of each locale. CPU seconds, best of 3, in a fresh subprocess (its peak RSS its own). Then the
same with a glossary of 16 terms, its `#. glossary:` comments written into the PO files by `translations update`.

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
    from moe_lms.glossary import read_glossary
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
    glossary, _ = read_glossary(Path(directory), bank.target_locales)
    findings = quality.translation_findings(bank, glossary)
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
    from bankgen import WORDS, _translate, write_bank
    from moe_lms import loader
    from moe_lms.glossary import read_glossary

    def measure(directory: str) -> dict[str, float]:
        command = [sys.executable, __file__, "--measure", directory]
        runs = [
            json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout) for _ in range(3)
        ]
        best = {step: min(r["steps"][step] for r in runs) for step in runs[0]["steps"]}
        return best | {"findings": runs[0]["findings"], "peak": max(r["peak_mib"] for r in runs)}

    with tempfile.TemporaryDirectory() as tmp:
        write_bank(Path(tmp), args.questions)
        plain = measure(tmp)
        terms = [f"  - source: [{w}]\n    ur: {{use: {_translate('ur', w)}}}\n    vi: {{use: {_translate('vi', w)}}}\n"
                 for w in WORDS[:16]]  # fmt: skip
        (Path(tmp) / "glossary.yaml").write_text("terms:\n" + "".join(terms), encoding="utf-8")
        bank, problems = loader.read_bank_yaml(Path(tmp) / loader.BANK_FILE)
        glossary, problems = read_glossary(Path(tmp), ("ur", "vi"))
        assert bank is not None and glossary is not None, problems
        loader.update_catalogs(Path(tmp), bank, glossary.comments)
        with_glossary = measure(tmp)
    for label, best in (("without a glossary", plain), ("with a glossary of 16 terms", with_glossary)):
        print(f"check of {args.questions:,} questions {label}, CPU seconds (best of 3):")
        steps = {k: v for k, v in best.items() if k not in ("findings", "peak")}
        for step, seconds in steps.items():
            print(f"  {step:<17} {seconds:.2f} s")
        print(
            f"  {'total':<17} {sum(steps.values()):.2f} s; {best['findings']:.0f} findings; "
            f"peak RSS {best['peak']:.0f} MiB"
        )


if __name__ == "__main__":
    main()
