"""Files are written atomically, and a file that would not change is left as it is."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import pytest

from moe_lms.files import OutputError, replace_if_changed, write_atomic, write_atomic_stream


def writing(data: bytes) -> Callable[[BinaryIO], object]:
    return lambda out: out.write(data)


def test_a_new_file_is_written(tmp_path: Path) -> None:
    target = tmp_path / "shelf" / "a.xml"
    assert replace_if_changed(target, writing(b"<a/>"), within=tmp_path, parents=True) is True
    assert target.read_bytes() == b"<a/>"
    assert oct(target.stat().st_mode & 0o777) == "0o644"


def test_a_file_with_the_same_bytes_is_not_touched(tmp_path: Path) -> None:
    target = tmp_path / "a.xml"
    write_atomic(target, b"<a/>", within=tmp_path)
    os.utime(target, (1_000_000, 1_000_000))
    before = target.stat()
    assert replace_if_changed(target, writing(b"<a/>"), within=tmp_path) is False
    after = target.stat()
    assert (after.st_ino, after.st_mtime) == (before.st_ino, before.st_mtime)


def test_a_difference_of_the_same_size_is_found_and_replaced(tmp_path: Path) -> None:
    target = tmp_path / "a.xml"
    write_atomic(target, b"x" * 100_000 + b"1", within=tmp_path)
    assert replace_if_changed(target, writing(b"x" * 100_000 + b"2"), within=tmp_path) is True
    assert target.read_bytes().endswith(b"2")


def test_without_replace_nothing_in_the_folder_changes(tmp_path: Path) -> None:
    target = tmp_path / "a.xml"
    write_atomic(target, b"old", within=tmp_path)
    assert replace_if_changed(target, writing(b"new"), within=tmp_path, replace=False) is True
    assert replace_if_changed(tmp_path / "missing.xml", writing(b"new"), within=tmp_path, replace=False) is True
    assert [p.name for p in tmp_path.iterdir()] == ["a.xml"]
    assert target.read_bytes() == b"old"


def test_a_failed_producer_leaves_the_old_file_and_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "a.xml"
    write_atomic(target, b"old", within=tmp_path)

    def half_then_fail(out: BinaryIO) -> None:
        out.write(b"half")
        raise RuntimeError("export failed")

    with pytest.raises(RuntimeError):
        replace_if_changed(target, half_then_fail, within=tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["a.xml"]
    assert target.read_bytes() == b"old"


# --- what a path names: regular files are replaced, everything else is written into or refused ------------------


def test_a_character_device_is_written_into_not_replaced(tmp_path: Path) -> None:
    before = os.stat("/dev/null")
    write_atomic(Path("/dev/null"), b"<a/>", within=Path("/dev"))
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    with pytest.raises(OutputError, match="it is a device, not a regular file"):  # (the shelf holds files only)
        replace_if_changed(Path("/dev/null"), writing(b"<a/>"), within=Path("/dev"))


def test_a_fifo_receives_the_bytes_and_stays_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_atomic(fifo, b"<a/>", within=tmp_path)
    reader.join()
    assert received == [b"<a/>"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]


def test_a_symlink_is_replaced_itself_and_its_target_left_alone(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "a.xml"
    target.write_bytes(b"old")
    link = tmp_path / "link.xml"
    link.symlink_to(Path("real") / "a.xml")
    write_atomic(link, b"new", within=tmp_path)
    assert not link.is_symlink() and link.read_bytes() == b"new"
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["a.xml"]


def test_a_dangling_symlink_is_replaced_by_the_file(tmp_path: Path) -> None:
    link = tmp_path / "link.xml"
    link.symlink_to(tmp_path / "made.xml")
    write_atomic(link, b"new", within=tmp_path)
    assert not link.is_symlink() and link.read_bytes() == b"new" and not (tmp_path / "made.xml").exists()


def test_a_symlink_to_a_device_is_fed_by_an_export_but_replaced_on_the_shelf(tmp_path: Path) -> None:
    link = tmp_path / "out"
    link.symlink_to("/dev/null")
    write_atomic(link, b"x", within=tmp_path)  # (export -o /dev/stdout: a link to a device or pipe)
    assert link.is_symlink()
    assert replace_if_changed(link, writing(b"x"), within=tmp_path) is True
    assert not link.is_symlink() and link.read_bytes() == b"x"


def test_a_folder_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="it is a folder; name a file inside it"):
        write_atomic(tmp_path, b"x", within=tmp_path.parent)


def test_a_missing_folder_is_not_created_unless_asked(tmp_path: Path) -> None:
    target = tmp_path / "typo" / "a.xml"
    with pytest.raises(OutputError, match=r"the folder .*typo does not exist \(create it, or pass --parents\)"):
        write_atomic(target, b"x", within=tmp_path)
    assert not (tmp_path / "typo").exists()
    write_atomic(target, b"x", within=tmp_path, parents=True)
    assert target.read_bytes() == b"x"


def test_replacing_a_file_keeps_its_permissions(tmp_path: Path) -> None:
    target = tmp_path / "key.xml"
    target.write_bytes(b"old")
    target.chmod(0o600)
    write_atomic(target, b"new", within=tmp_path)
    assert target.read_bytes() == b"new" and stat.S_IMODE(target.stat().st_mode) == 0o600
    target.chmod(0o640)
    assert replace_if_changed(target, writing(b"newer"), within=tmp_path) is True
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_read_only_folder_is_one_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    if os.geteuid() == 0:  # root writes into any folder it may change; sysfs refuses even root a new file
        folder = Path("/sys")
    try:
        with pytest.raises(OutputError, match=r"cannot write .*a.xml: Permission denied"):
            write_atomic(folder / "a.xml", b"x", within=folder)
    finally:
        (tmp_path / "ro").chmod(0o755)


def test_a_dangling_folder_symlink_and_proc_are_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    with pytest.raises(OutputError, match=r"gone is a symlink to nothing"):
        write_atomic(tmp_path / "gone" / "a.xml", b"x", within=tmp_path)
    with pytest.raises(OutputError, match=r"cannot write /proc/self/a.xml: "):
        write_atomic(Path("/proc/self/a.xml"), b"x", within=Path("/proc/self"))


SLOW_EXPORT = """
import dataclasses, sys
from moe_lms.formats import gift
from moe_lms.cli import main

def slow(bank, options, out):
    out.write(b"half an export")
    out.flush()
    print("ready", flush=True)
    sys.stdin.read()  # blocks until the test ends the process

gift.FORMAT = dataclasses.replace(gift.FORMAT, write=slow)
main(["export", "--format", "gift", sys.argv[1], "-o", sys.argv[2]])
"""


def test_sigterm_mid_export_leaves_no_temporary_file(tmp_path: Path) -> None:
    from .conftest import SHIPPED_BANK_DIR

    target = tmp_path / "out.gift.txt"
    process = subprocess.Popen(
        [sys.executable, "-c", SLOW_EXPORT, str(SHIPPED_BANK_DIR), str(target)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    assert process.stdout.readline() == b"ready\n"
    assert next(p.name for p in tmp_path.iterdir()).startswith(".out.gift.txt.")  # mid-export: only the temporary
    process.terminate()
    assert process.wait() == -15
    assert process.stdin is not None
    process.stdin.close()
    process.stdout.close()
    assert list(tmp_path.iterdir()) == []


def test_the_same_rules_hold_for_a_streamed_write(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="it is a folder"):
        write_atomic_stream(tmp_path, writing(b"x"), within=tmp_path.parent)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can make a file another user's")
def test_replacing_a_file_keeps_its_owner(tmp_path: Path) -> None:
    target = tmp_path / "key.xml"
    target.write_bytes(b"old")
    os.chown(target, 1234, 4321)
    write_atomic(target, b"new", within=tmp_path)
    assert (target.stat().st_uid, target.stat().st_gid) == (1234, 4321)
