"""`python bench/bankgen.py N DIR` writes a generated bank to try moe-lms on (before, the script did nothing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from moe_lms import loader

from .conftest import ROOT


def test_bankgen_as_a_script_writes_a_bank_that_loads(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bankgen.py"), "3", str(tmp_path / "big"), "--locales", "vi"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {tmp_path / 'big'}: 3 questions, target locales vi\n"
    bank = loader.load_bank(tmp_path / "big")
    assert (len(bank.questions), bank.target_locales) == (3, ("vi",))
