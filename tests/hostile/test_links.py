"""moe-lms never writes through a symbolic link: every write (export -o, build's files, the shelf's README and
manifest, translations update, import) replaces the link itself or refuses, and the target stays as it was.
The shelf is locked while a build runs, so two builds at once both keep their record."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from moe_lms.cli import main
from moe_lms.shelf import MANIFEST, README

from .corpus import bank_with_stem


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def precious(tmp_path: Path) -> Path:
    """A file of the user's outside every folder moe-lms writes to."""
    path = tmp_path / "home" / ".bashrc"
    path.parent.mkdir()
    path.write_bytes(b"the user's own file\n")
    return path


def test_export_o_a_symlink_replaces_the_link_not_its_target(tmp_path: Path, precious: Path) -> None:
    bank = bank_with_stem(tmp_path / "bank", "Fine.")
    link = tmp_path / "out.xml"
    link.symlink_to(precious)
    assert run("export", "--format", "moodle", str(bank), "-o", str(link)).exit_code == 0
    assert precious.read_bytes() == b"the user's own file\n"
    assert not link.is_symlink() and b"<quiz>" in link.read_bytes()


@pytest.mark.parametrize("name", ["hostile.en.gift.txt", README])
def test_build_replaces_a_shelf_file_that_is_a_symlink_even_with_the_bank_unchanged(
    tmp_path: Path, precious: Path, name: str
) -> None:
    bank = bank_with_stem(tmp_path / "bank", "Fine.")
    shelf = tmp_path / "shelf"
    assert run("build", str(bank), "--out", str(shelf), "--jobs", "1").exit_code == 0
    (shelf / name).unlink()
    (shelf / name).symlink_to(precious)  # (as a cloned repository can hold it)
    result = run("build", str(bank), "--out", str(shelf), "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert precious.read_bytes() == b"the user's own file\n"
    assert not (shelf / name).is_symlink()
    assert run("build", str(bank), "--out", str(shelf), "--check").exit_code == 0


def test_build_check_names_a_shelf_file_that_is_a_symlink_to_identical_bytes(tmp_path: Path) -> None:
    bank = bank_with_stem(tmp_path / "bank", "Fine.")
    shelf = tmp_path / "shelf"
    assert run("build", str(bank), "--out", str(shelf), "--jobs", "1").exit_code == 0
    copy = tmp_path / "copy.gift.txt"
    copy.write_bytes((shelf / "hostile.en.gift.txt").read_bytes())
    (shelf / "hostile.en.gift.txt").unlink()
    (shelf / "hostile.en.gift.txt").symlink_to(copy)
    result = run("build", str(bank), "--out", str(shelf), "--check")
    assert result.exit_code == 1 and "hostile.en.gift.txt" in result.output


@pytest.mark.parametrize("which", ["manifest", "folder"])
def test_build_refuses_a_manifest_or_shelf_folder_that_is_a_symlink(tmp_path: Path, precious: Path, which: str) -> None:
    bank = bank_with_stem(tmp_path / "bank", "Fine.")
    shelf = tmp_path / "shelf"
    if which == "folder":
        shelf.symlink_to(precious.parent)
        link = shelf
    else:
        shelf.mkdir()
        link = shelf / MANIFEST
        link.symlink_to(precious)
    result = run("build", str(bank), "--out", str(shelf), "--jobs", "1")
    assert result.exit_code == 1 and "is a symbolic link" in result.output
    assert precious.read_bytes() == b"the user's own file\n"
    assert sorted(p.name for p in precious.parent.iterdir()) == [".bashrc"]


def test_translations_update_replaces_a_catalog_that_is_a_symlink(tmp_path: Path, precious: Path) -> None:
    bank = bank_with_stem(tmp_path / "bank", "Fine.", extra="target_locales: [de]\n")
    (bank / "locales").mkdir(exist_ok=True)
    catalog = b'msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
    precious.write_bytes(catalog)  # (a PO file elsewhere, which the catalog links to)
    (bank / "locales" / "de.po").symlink_to(precious)
    result = run("translations", "update", str(bank))
    assert result.exit_code == 0, result.output
    assert precious.read_bytes() == catalog
    assert not (bank / "locales" / "de.po").is_symlink()


def test_import_replaces_a_bank_file_that_is_a_symlink(tmp_path: Path, precious: Path) -> None:
    bank = bank_with_stem(tmp_path / "bank", "Fine.")
    package = tmp_path / "bank.imscc"
    assert run("export", "--format", "cc11", str(bank), "-o", str(package)).exit_code == 0
    target = tmp_path / "imported"
    target.mkdir()
    (target / "bank.yaml").symlink_to(precious)
    result = run("import", "cc11", str(package), "-o", str(target), "--replace")
    assert result.exit_code == 0, result.output
    assert precious.read_bytes() == b"the user's own file\n"
    assert not (target / "bank.yaml").is_symlink()


CONCURRENT = """
import sys
from click.testing import CliRunner
from moe_lms.cli import main
result = CliRunner().invoke(main, ["build", sys.argv[1], "--out", sys.argv[2], "--jobs", "1"])
sys.exit(result.exit_code)
"""


def test_two_builds_into_one_shelf_at_once_both_keep_their_record(tmp_path: Path) -> None:
    banks = [bank_with_stem(tmp_path / name, "Fine.", bank_id=name) for name in ("first", "second")]
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    runs = [
        subprocess.Popen([sys.executable, "-c", CONCURRENT, str(bank), str(shelf)], env=env, stderr=subprocess.PIPE)
        for bank in banks
    ]
    for process in runs:
        assert process.wait(timeout=300) == 0, process.stderr.read() if process.stderr else ""
    assert sorted(json.loads((shelf / MANIFEST).read_text())["banks"]) == ["first", "second"]
    for bank in banks:  # each rebuilds: neither lost its claim to its files
        assert run("build", str(bank), "--out", str(shelf), "--check").exit_code == 0


def test_a_build_waits_for_the_lock_another_holds_and_says_so(tmp_path: Path) -> None:
    import fcntl
    import threading

    bank = bank_with_stem(tmp_path / "bank", "Fine.")
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    fd = os.open(shelf, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    threading.Timer(1.0, os.close, (fd,)).start()
    result = run("build", str(bank), "--out", str(shelf), "--jobs", "1")
    assert result.exit_code == 0 and "waiting for another build" in result.output


def test_a_build_interrupted_mid_way_leaves_the_shelf_rebuildable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from moe_lms import shelf_pool

    banks = [bank_with_stem(tmp_path / name, "Fine.", bank_id=name) for name in ("first", "second")]
    shelf = tmp_path / "shelf"
    assert run("build", str(banks[0]), "--out", str(shelf), "--jobs", "1").exit_code == 0
    real = shelf_pool.write_files

    def one_file_then_ctrl_c(*args: object, **kwargs: object) -> object:
        for n, outcome in enumerate(real(*args, **kwargs)):  # type: ignore[arg-type]
            if n == 1:
                raise KeyboardInterrupt
            yield outcome

    monkeypatch.setattr(shelf_pool, "write_files", one_file_then_ctrl_c)
    interrupted = CliRunner().invoke(main, ["build", str(banks[1]), "--out", str(shelf), "--jobs", "1"])
    assert interrupted.exit_code != 0 and not (shelf / "second.en.html").exists()
    monkeypatch.setattr(shelf_pool, "write_files", real)
    for bank in banks:  # the interrupted bank's files were claimed before any was written
        assert run("build", str(bank), "--out", str(shelf), "--jobs", "1").exit_code == 0
        assert run("build", str(bank), "--out", str(shelf), "--check").exit_code == 0


def test_a_build_killed_while_holding_the_lock_does_not_hold_the_shelf(tmp_path: Path) -> None:
    bank = bank_with_stem(tmp_path / "bank", "Fine.")
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time\n"
         "fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY); fcntl.flock(fd, fcntl.LOCK_EX)\n"
         "print('locked', flush=True); time.sleep(60)", str(shelf)],
        stdout=subprocess.PIPE,
    )  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
    holder.kill()
    holder.wait(timeout=10)
    result = run("build", str(bank), "--out", str(shelf), "--jobs", "1")
    assert result.exit_code == 0 and "waiting" not in result.output
