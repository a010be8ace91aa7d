"""Files are written atomically, and a file that would not change is left as it is."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import pytest

from moe_lms.files import replace_if_changed, write_atomic


def writing(data: bytes) -> Callable[[BinaryIO], object]:
    return lambda out: out.write(data)


def test_a_new_file_is_written(tmp_path: Path) -> None:
    target = tmp_path / "shelf" / "a.xml"
    assert replace_if_changed(target, writing(b"<a/>")) is True
    assert target.read_bytes() == b"<a/>"
    assert oct(target.stat().st_mode & 0o777) == "0o644"


def test_a_file_with_the_same_bytes_is_not_touched(tmp_path: Path) -> None:
    target = tmp_path / "a.xml"
    write_atomic(target, b"<a/>")
    os.utime(target, (1_000_000, 1_000_000))
    before = target.stat()
    assert replace_if_changed(target, writing(b"<a/>")) is False
    after = target.stat()
    assert (after.st_ino, after.st_mtime) == (before.st_ino, before.st_mtime)


def test_a_difference_of_the_same_size_is_found_and_replaced(tmp_path: Path) -> None:
    target = tmp_path / "a.xml"
    write_atomic(target, b"x" * 100_000 + b"1")
    assert replace_if_changed(target, writing(b"x" * 100_000 + b"2")) is True
    assert target.read_bytes().endswith(b"2")


def test_without_replace_nothing_in_the_folder_changes(tmp_path: Path) -> None:
    target = tmp_path / "a.xml"
    write_atomic(target, b"old")
    assert replace_if_changed(target, writing(b"new"), replace=False) is True
    assert replace_if_changed(tmp_path / "missing.xml", writing(b"new"), replace=False) is True
    assert [p.name for p in tmp_path.iterdir()] == ["a.xml"]
    assert target.read_bytes() == b"old"


def test_a_failed_producer_leaves_the_old_file_and_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "a.xml"
    write_atomic(target, b"old")

    def half_then_fail(out: BinaryIO) -> None:
        out.write(b"half")
        raise RuntimeError("export failed")

    with pytest.raises(RuntimeError):
        replace_if_changed(target, half_then_fail)
    assert [p.name for p in tmp_path.iterdir()] == ["a.xml"]
    assert target.read_bytes() == b"old"
