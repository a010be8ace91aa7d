"""The shelf's manifest is committed, so anyone can edit it: build deletes only a file whose bytes are those it
wrote (their SHA-256 is in the manifest), and a shelf file that is not a regular file (a named pipe) is refused
at once, never opened (a FIFO would hang the build for ever)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner, Result

from moe_lms.cli import main
from moe_lms.shelf import MANIFEST

from .corpus import bank_with_stem


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_a_manifest_that_lists_the_users_file_does_not_make_build_delete_it(tmp_path: Path) -> None:
    bank = bank_with_stem(tmp_path / "bank", "Fine.")
    shelf = tmp_path / "shelf"
    assert run("build", str(bank), "--out", str(shelf), "--jobs", "1").exit_code == 0
    (shelf / "NOTES.md").write_text("the user's notes\n", encoding="utf-8")
    manifest = json.loads((shelf / MANIFEST).read_text(encoding="utf-8"))
    manifest["banks"]["hostile"]["files"].append("NOTES.md")  # (a commit anyone could push)
    (shelf / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    result = run("build", str(bank), "--out", str(shelf), "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert (shelf / "NOTES.md").read_text(encoding="utf-8") == "the user's notes\n"
    assert "left" in result.output and "NOTES.md" in result.output


def test_a_file_the_bank_no_longer_makes_is_still_removed_when_its_bytes_are_those_build_wrote(tmp_path: Path) -> None:
    bank = bank_with_stem(tmp_path / "bank", "Fine.", extra="target_locales: [de]\n")
    shelf = tmp_path / "shelf"
    assert run("build", str(bank), "--out", str(shelf), "--jobs", "1").exit_code == 0
    assert (shelf / "hostile.de.gift.txt").is_file()
    text = (bank / "bank.yaml").read_text(encoding="utf-8").replace("target_locales: [de]\n", "")
    (bank / "bank.yaml").write_text(text, encoding="utf-8")
    result = run("build", str(bank), "--out", str(shelf), "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert not (shelf / "hostile.de.gift.txt").exists() and "removed" in result.output


def test_a_shelf_file_edited_since_the_build_is_left_alone_not_deleted(tmp_path: Path) -> None:
    bank = bank_with_stem(tmp_path / "bank", "Fine.", extra="target_locales: [de]\n")
    shelf = tmp_path / "shelf"
    assert run("build", str(bank), "--out", str(shelf), "--jobs", "1").exit_code == 0
    (shelf / "hostile.de.gift.txt").write_text("edited by hand\n", encoding="utf-8")
    text = (bank / "bank.yaml").read_text(encoding="utf-8").replace("target_locales: [de]\n", "")
    (bank / "bank.yaml").write_text(text, encoding="utf-8")
    result = run("build", str(bank), "--out", str(shelf), "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert (shelf / "hostile.de.gift.txt").read_text(encoding="utf-8") == "edited by hand\n"


BUILD = """
import sys
from click.testing import CliRunner
from moe_lms.cli import main
result = CliRunner().invoke(main, sys.argv[1:])
print(result.output)
sys.exit(result.exit_code)
"""


def test_a_named_pipe_where_a_shelf_file_goes_is_refused_at_once(tmp_path: Path) -> None:
    bank = bank_with_stem(tmp_path / "bank", "Fine.")
    shelf = tmp_path / "shelf"
    assert run("build", str(bank), "--out", str(shelf), "--jobs", "1").exit_code == 0
    (shelf / "hostile.en.gift.txt").unlink()
    os.mkfifo(shelf / "hostile.en.gift.txt")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for extra in ([], ["--check"]):
        done = subprocess.run(
            [sys.executable, "-c", BUILD, "build", str(bank), "--out", str(shelf), "--jobs", "1", *extra],
            env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 1, done.stdout + done.stderr
        assert "hostile.en.gift.txt" in done.stdout + done.stderr and "named pipe" in done.stdout + done.stderr
