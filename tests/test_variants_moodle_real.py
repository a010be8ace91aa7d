"""Per-student variants in a real Moodle (issue 31): the Moodle XML file's category of a question's variants is the
pool of a quiz's random question; each student's attempt draws one variant, is graded for that variant's own
numbers, and its review shows explanations computed with them. Needs the real Moodle (see test_moodle_real)."""

from __future__ import annotations

import json
import math
import re
import subprocess
from pathlib import Path

from moe_lms import formats
from moe_lms.loader import load_bank

from .test_moodle_real import ARTIFACTS, _moodle, visible
from .variant_bank import write_bank

DRIVER = Path(__file__).parent / "moodle" / "moodle_variants.php"
MARK = "=== moe-lms moodle_variants.php JSON ==="
ATTEMPTS = 10


def numbers_of(text: str) -> tuple[int, int, int]:
    """T, k and E as a learner reads them in a variant's stem (the key is computed from these, not from the bank)."""
    found = re.search(r"T = ([\d{},]+).*top-(\d+) routing over .*E = (\d+)", visible(text))
    assert found, text
    tokens, k, experts = (int(re.sub(r"[{},]", "", g)) for g in found.groups())
    return tokens, k, experts


def test_a_moodle_quiz_draws_one_variant_per_attempt_and_grades_it_for_its_own_numbers(tmp_path: Path) -> None:
    moodle = _moodle()
    bank = load_bank(write_bank(tmp_path / "bank"))
    xml = tmp_path / "variants.en.xml"
    xml.write_bytes(formats.get("moodle").dump(bank, formats.ExportOptions(locales=("en",))))
    expanded = formats.concrete(bank, formats.ExportOptions(locales=("en",)))[0]
    choices = {}
    for q in expanded.questions:
        if q.id.startswith("capacity~"):
            tokens, k, experts = numbers_of(q.stem)
            exact = 1.25 * tokens * k / experts
            choices[f"{q.id}-en"] = [f"{math.ceil(exact):,}", f"{math.floor(exact):,}"]  # the key, the truncation
    (tmp_path / "choices.json").write_text(json.dumps(choices), encoding="utf-8")
    done = subprocess.run(
        ["php", str(DRIVER), str(moodle), "variant-demo-en-all-capacity", str(ATTEMPTS), str(tmp_path / "choices.json"),
         str(xml)],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    result = json.loads(done.stdout.rpartition(MARK)[2])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "variants-quiz.json").write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")

    assert result["pool_size"] == 6  # the category holds every variant
    drawn = [a["idnumber"] for a in result["attempts"]]
    assert len(set(drawn)) >= 3, drawn  # (ten draws from six: fewer than three differ once in some 3,000 runs)
    for n, attempt in enumerate(result["attempts"]):
        tokens, k, experts = numbers_of(attempt["questiontext"])
        exact = 1.25 * tokens * k / experts
        shown_exact = f"{exact:,.12g}"
        right = n % 2 == 0
        assert attempt["chosen"] == (f"{math.ceil(exact):,}" if right else f"{math.floor(exact):,}")
        assert attempt["mark"] == (1.0 if right else 0.0), attempt
        specific = visible(" ".join(attempt["specific_feedback"]))
        general = visible(" ".join(attempt["general_feedback"]))
        if right:
            assert f"{shown_exact} rounded up is {math.ceil(exact):,}." in specific, specific
        else:
            assert f"This rounds {shown_exact} down" in specific, specific
        assert f"1.25 × {tokens:,} × {k} / {experts} = {shown_exact}, rounded up." in general, general


def test_a_numerical_variant_is_graded_by_moodle_for_the_number_its_own_numbers_make(tmp_path: Path) -> None:
    from .variant_bank import NUMERICAL_YAML

    moodle = _moodle()
    directory = tmp_path / "numerical"
    (directory / "locales").mkdir(parents=True)
    (directory / "bank.yaml").write_text(NUMERICAL_YAML, encoding="utf-8")
    bank = load_bank(directory)
    xml = tmp_path / "numerical.en.xml"
    xml.write_bytes(formats.get("moodle").dump(bank, formats.ExportOptions(locales=("en",))))
    expanded = formats.concrete(bank, formats.ExportOptions(locales=("en",)))[0]
    typed = {}
    for q in expanded.questions:
        tokens, k, experts = numbers_of(q.stem)
        exact = 1.25 * tokens * k / experts
        typed[f"{q.id}-en"] = [str(math.ceil(exact)), str(math.floor(exact))]  # what the learner types
    (tmp_path / "typed.json").write_text(json.dumps(typed), encoding="utf-8")
    done = subprocess.run(
        ["php", str(DRIVER), str(moodle), "numerical-variants-en-all-all", str(ATTEMPTS), str(tmp_path / "typed.json"),
         str(xml)],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    result = json.loads(done.stdout.rpartition(MARK)[2])
    (ARTIFACTS / "variants-numerical-quiz.json").write_text(json.dumps(result, indent=1, ensure_ascii=False))
    assert result["pool_size"] == 6
    assert len({a["idnumber"] for a in result["attempts"]}) >= 3
    for n, attempt in enumerate(result["attempts"]):
        tokens, k, experts = numbers_of(attempt["questiontext"])
        exact = 1.25 * tokens * k / experts
        right = n % 2 == 0
        assert attempt["chosen"] == str(math.ceil(exact) if right else math.floor(exact))
        assert attempt["mark"] == (1.0 if right else 0.0), attempt
        specific = visible(" ".join(attempt["specific_feedback"]))
        said = f"{exact:,.12g} rounded up is {math.ceil(exact):,}." if right else f"This rounds {exact:,.12g} down."
        assert said in specific, specific
