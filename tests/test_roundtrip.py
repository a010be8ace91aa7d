"""Any valid bank survives save -> load unchanged."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings

from moe_lms.loader import load_bank, save_bank
from moe_lms.model import Bank, string_count, strings

from .strategies import banks


@settings(max_examples=60, deadline=None)
@given(banks())
def test_any_valid_bank_survives_save_and_load(bank: Bank) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        save_bank(bank, Path(tmp))
        assert load_bank(Path(tmp)) == bank


@settings(max_examples=20, deadline=None)
@given(banks())
def test_saving_is_deterministic(bank: Bank) -> None:
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        save_bank(bank, Path(a))
        save_bank(bank, Path(b))
        for path in sorted(Path(a).rglob("*")):
            if path.is_file():
                assert path.read_bytes() == (Path(b) / path.relative_to(a)).read_bytes()


@settings(max_examples=30, deadline=None)
@given(banks(with_translations=False))
def test_string_count_counts_what_strings_yields(bank: Bank) -> None:
    assert string_count(bank) == len(list(strings(bank)))
