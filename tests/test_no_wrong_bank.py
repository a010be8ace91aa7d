"""A command exports the bank the user means or none: the shipped bank only inside the moe-lms checkout."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from moe_lms.cli import main

from .test_messages import BANK


def test_an_empty_folder_outside_the_checkout_has_no_bank_and_says_how_to_make_or_name_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for command in (["check"], ["export", "--format", "moodle"], ["translations", "update"], ["build"]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 2, (command, result.output)
        assert "no bank here: the current folder has no bank.yaml (or bank.yml)" in result.stderr
        assert "`moe-lms init`" in result.stderr
        assert "BANK_DIR" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_folder_with_bank_yml_exports_that_bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bank.yml").write_text(BANK, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["export", "--format", "moodle"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == "bank: . (bank.yml in the current folder)"
    assert "Pick one." in (tmp_path / "demo.moodle.xml").read_text(encoding="utf-8")


def test_a_named_folder_with_bank_yml_is_that_bank(tmp_path: Path) -> None:
    (tmp_path / "bank.yml").write_text(BANK, encoding="utf-8")
    result = CliRunner().invoke(main, ["check", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("demo: 1 question,")


def test_bank_yaml_and_bank_yml_side_by_side_are_refused(tmp_path: Path) -> None:
    (tmp_path / "bank.yml").write_text(BANK, encoding="utf-8")
    (tmp_path / "bank.yaml").write_text(BANK, encoding="utf-8")
    result = CliRunner().invoke(main, ["check", str(tmp_path)])
    assert result.exit_code == 2
    assert "has both bank.yaml and bank.yml: keep one" in result.stderr
