"""What check passes, every export accepts, or check names the export that will refuse and why."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from moe_lms import richtext, shelf
from moe_lms.cli import main
from moe_lms.loader import load_bank

from .corpus import bank_with_stem


def check(directory: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", str(directory)])
    return result.exit_code, result.output


def test_a_block_in_a_multilang_bank_is_named_by_check_and_build_leaves_the_multilang_file_out(tmp_path: Path) -> None:
    bank_dir = bank_with_stem(tmp_path / "bank", "Intro.\n\n- one\n- two\n", extra="target_locales: [de]\n")
    code, output = check(bank_dir)
    assert code == 0 and "export --format moodle --multilang refuses this bank" in output
    assert shelf.plan(load_bank(bank_dir)).file("moodle", None) is None
    built = CliRunner().invoke(main, ["build", str(bank_dir), "--out", str(tmp_path / "shelf"), "--jobs", "1"])
    assert built.exit_code == 0, built.output


@pytest.mark.parametrize(
    "stem",
    ['See <span title="a&#1;b">this</span>.', "See <abbr title='&#xFFFF;'>x</abbr>.", "A &#x1b; in the text."],
)
def test_a_character_xml_cannot_carry_written_as_a_reference_is_an_error_of_check(tmp_path: Path, stem: str) -> None:
    code, output = check(bank_with_stem(tmp_path, stem))
    assert code == 1 and "a character XML 1.0 cannot carry" in output


def test_a_code_block_past_the_highlighting_limit_is_a_warning_of_check(tmp_path: Path) -> None:
    code_text = "x = 1\n" * (richtext.MAX_HIGHLIGHT // 6 + 1)
    stem = "Code:\n\n```python\n" + code_text + "```\n"
    code, output = check(bank_with_stem(tmp_path, stem))
    assert code == 0 and "is shown without highlighting" in output
