"""File output at the edge: every file is written atomically, so an interrupted run never leaves half a file."""

from __future__ import annotations

import filecmp
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and an atomic rename."""
    write_atomic_stream(path, lambda out: out.write(data))


def write_atomic_stream(path: Path, produce: Callable[[BinaryIO], object]) -> None:
    """Let ``produce`` stream into a temporary file, then rename it over ``path`` (nothing is left on failure)."""
    _through_temporary_file(path, produce, compare=False, replace=True)


def replace_if_changed(path: Path, produce: Callable[[BinaryIO], object], *, replace: bool = True) -> bool:
    """Stream ``produce`` into a temporary file and say whether its bytes differ from ``path`` (or it is missing).

    With ``replace``, a differing file is moved over ``path`` as write_atomic_stream does; without, nothing in
    ``path``'s folder is touched (the temporary file goes to the system's). Files are compared a chunk at a time,
    so memory stays flat however large they are.
    """
    return _through_temporary_file(path, produce, compare=True, replace=replace)


def _through_temporary_file(path: Path, produce: Callable[[BinaryIO], object], *, compare: bool, replace: bool) -> bool:
    """The one way files are written: into a temporary file, then (if it differs, when ``compare``) renamed over
    ``path`` after an fsync. Returns whether it differed; the temporary file never stays behind."""
    if replace:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent if replace else None)
    try:
        with os.fdopen(fd, "wb") as out:
            produce(out)
            out.flush()
            differs = not (compare and path.is_file() and filecmp.cmp(tmp, path, shallow=False))
            if differs and replace:
                os.fsync(out.fileno())
        if differs and replace:
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        return differs
    finally:
        Path(tmp).unlink(missing_ok=True)
