"""File output at the edge: every file moe-lms writes goes through here (and every file from outside that it
reads whole: :func:`read_limited`).

A regular file is replaced atomically (a temporary file beside it, fsync, rename), so an interrupted run never
leaves half a file, and the replacement keeps the old file's permissions. A symlink is never written through:
the link itself is replaced by the new file and its target is left as it was (a cloned repository can hold a
link to any file of the user's). A character device or a FIFO (``/dev/null``, a named pipe) is written straight
into: it cannot be replaced, only fed; :func:`write_atomic_stream` (``export -o``) feeds one a symlink leads to
too (``/dev/stdout``), :func:`replace_if_changed` (the shelf) never does. A folder is refused, and so is a path
whose folder does not exist unless the caller asks for ``parents``. Every failure is an :class:`OutputError`,
one line naming the path, for the CLI to print without a traceback.

Every write and every delete names the folder it was asked to work in (``within``: the bank, the shelf, the
folder of ``export -o``): the folders on the way from there to the file are resolved, and a path that leaves it
(a ``locales/`` or ``media/`` that is a link to another project's folder, a ``..``) is refused before anything
is written or removed. The folder itself may be a link: it is the one the user named.
"""

from __future__ import annotations

import contextlib
import filecmp
import os
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import BinaryIO

from .errors import MoeLmsError


class OutputError(MoeLmsError):
    """A file that cannot be written, said in one line (path and reason)."""


class InputTooLarge(Exception):
    """A file from outside larger than its limit (or one that does not end: ``/dev/zero``, a pipe)."""


def read_limited(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, refused past ``limit`` without holding more than ``limit`` + 1 of them.

    The size a file declares is not trusted to bound the read: ``/dev/zero`` and a pipe declare 0 and never end,
    so the read itself stops at ``limit`` + 1 bytes. A regular file larger than the limit is refused unread."""
    try:
        with path.open("rb") as stream:
            status = os.fstat(stream.fileno())
            regular = stat.S_ISREG(status.st_mode)
            if regular and status.st_size > limit:
                raise InputTooLarge(f"the file is {status.st_size:,} bytes; the limit is {limit:,}")
            # A regular file in one read of its size (one buffer); anything else a MiB at a time (a read of the
            # whole limit at once would reserve it, whatever arrives).
            chunks = [stream.read(status.st_size + 1)] if regular else []
            size = sum(map(len, chunks))
            while size <= limit and (chunk := stream.read(min(1 << 20, limit + 1 - size))):
                chunks.append(chunk)
                size += len(chunk)
    except OSError as exc:
        raise InputTooLarge(f"cannot read it: {_reason(exc)}") from None
    if size > limit:
        raise InputTooLarge(f"it holds more than {limit:,} bytes (the limit), and was not read further")
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def write_atomic(path: Path, data: bytes, *, within: Path, parents: bool = False) -> None:
    """Write ``data`` to ``path`` (atomically when it is, or will be, a regular file), a file inside ``within``."""
    write_atomic_stream(path, lambda out: out.write(data), within=within, parents=parents)


def write_atomic_stream(
    path: Path, produce: Callable[[BinaryIO], object], *, within: Path, parents: bool = False
) -> None:
    """Let ``produce`` stream into ``path``: via a temporary file renamed over it, or straight into a device."""
    inside(path, within)
    _write(path, produce, compare=False, replace=True, parents=parents, devices=True, within=within)


def write_new(path: Path, data: bytes, *, within: Path) -> None:
    """Write a file that must not exist yet (exclusive creation: never over a file made meanwhile, nor through a
    link), its missing folders made inside ``within``."""
    inside(path, within)
    _make_folders(path.parent, within)
    try:
        with path.open("xb") as stream:
            stream.write(data)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {_reason(exc)}") from None


def remove_file(path: Path, *, within: Path) -> None:
    """Delete the file (or link: never its target) ``path``, which must be inside ``within``."""
    inside(path, within, verb="remove")
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot remove {path}: {_reason(exc)}") from None


def inside(path: Path, within: Path, *, verb: str = "write") -> None:
    """Refuse ``path`` when the folders on the way from ``within`` to it leave ``within``: a ``..``, or a folder
    that is a symbolic link leading elsewhere. ``path`` itself may be a link (a write replaces it, a delete
    removes it): only its folders are followed."""
    base = Path(os.path.realpath(within))
    folder = Path(os.path.realpath(path.parent))
    if folder == base or folder.is_relative_to(base):
        return
    step = Path(within)
    try:
        parts = path.parent.relative_to(within).parts
    except ValueError:
        parts = ()
    for part in parts:
        step = step / part
        if step.is_symlink():
            raise OutputError(
                f"refused to {verb} {path}: {step} is a symbolic link to {os.readlink(step)}, outside {within}; "
                "moe-lms writes only inside the folder it is given (replace the link with a folder)"
            )
    raise OutputError(f"refused to {verb} {path}: it is outside {within}, the folder moe-lms was asked to work in")


def _make_folders(folder: Path, within: Path) -> None:
    """Create ``folder`` and its missing parents, then check again that it is inside ``within`` (a folder on
    the way swapped for a link meanwhile is refused before anything is written in it)."""
    missing: list[Path] = []
    step = folder
    while not step.is_dir():
        if step.exists() or step.is_symlink():
            what = "is a symlink to nothing" if not step.exists() else "is not a folder"
            raise OutputError(f"cannot write in {folder}: {step} {what}")
        missing.append(step)
        step = step.parent
    for made in reversed(missing):
        try:
            made.mkdir()
        except FileExistsError:
            pass
        except OSError as exc:
            raise OutputError(f"cannot create the folder {made}: {_reason(exc)}") from None
    inside(folder / "x", within)


def replace_if_changed(
    path: Path,
    produce: Callable[[BinaryIO], object],
    *,
    within: Path,
    replace: bool = True,
    parents: bool = False,
) -> bool:
    """Stream ``produce`` into a temporary file and say whether its bytes differ from ``path`` (or it is missing).

    With ``replace``, a differing file is moved over ``path`` as write_atomic_stream does; without, nothing in
    ``path``'s folder is touched (the temporary file goes to the system's). Files are compared a chunk at a time,
    so memory stays flat however large they are.
    """
    inside(path, within)
    return _write(path, produce, compare=True, replace=replace, parents=parents, devices=False, within=within)


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _leads_to_device(path: Path) -> bool:
    """Whether the symlink ``path`` leads to a character device or a FIFO (``/dev/stdout``)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def resolve_output(path: Path, *, within: Path, parents: bool = False) -> Path:
    """The file a write to ``path`` lands in: ``path`` itself (a symlink is replaced, never followed); a folder,
    or a missing folder, refused."""
    target = path
    if target.is_dir():
        what = "a symlink to a folder" if target.is_symlink() else "a folder"
        raise OutputError(f"cannot write {path}: it is {what}; name a file inside it")
    folder = target.parent
    if not folder.is_dir():
        if folder.exists() or folder.is_symlink():
            what = "is a symlink to nothing" if not folder.exists() else "is not a folder"
            raise OutputError(f"cannot write {path}: {folder} {what}")
        if not parents:
            raise OutputError(f"cannot write {path}: the folder {folder} does not exist (create it, or pass --parents)")
        _make_folders(folder, within)
    inside(path, within)  # (again: a folder may have been swapped for a link meanwhile)
    return target


def make_folder(path: Path) -> None:
    """Create the folder ``path`` (its parent must exist: a mistyped path is an error, not a new tree). It is the
    folder the user named (the shelf): the folder others are checked to be ``within``."""
    if path.is_dir():
        return
    if not path.parent.is_dir():
        raise OutputError(f"cannot create the folder {path}: {path.parent} does not exist")
    try:
        path.mkdir()
    except OSError as exc:
        raise OutputError(f"cannot create the folder {path}: {_reason(exc)}") from None


def _write(
    path: Path,
    produce: Callable[[BinaryIO], object],
    *,
    compare: bool,
    replace: bool,
    parents: bool,
    devices: bool,
    within: Path,
) -> bool:
    target = resolve_output(path, within=within, parents=parents) if replace else path
    try:
        # A symlink is the file to replace, never followed (but one to a device is fed, where ``devices`` allows).
        fed = devices and target.is_symlink() and _leads_to_device(target)
        existing: os.stat_result | None = target.stat() if fed else target.lstat()
        if existing is not None and stat.S_ISLNK(existing.st_mode):
            existing = None  # (the new file gets the default mode, not the link's, and always differs)
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {_reason(exc)}") from None
    mode = existing.st_mode if existing is not None else None
    if mode is not None and not stat.S_ISREG(mode):
        if not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
            raise OutputError(f"cannot write {path}: it is neither a file, a device nor a pipe")
        if not devices:  # (the shelf: a pipe where a file goes would hang the build, a device swallow the file)
            what = "a named pipe" if stat.S_ISFIFO(mode) else "a device"
            raise OutputError(f"cannot write {path}: it is {what}, not a regular file; remove it")
        if replace:  # a device or a pipe is fed, never replaced; and never equal to what it would receive
            try:
                with open(target, "wb") as out:
                    produce(out)
            except OSError as exc:
                raise OutputError(f"cannot write {path}: {_reason(exc)}") from None
        return True
    try:
        return _through_temporary_file(target, produce, compare=compare, replace=replace, existing=existing)
    except OutputError:
        raise
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {_reason(exc)}") from None


def _keep_owner_and_mode(fd: int, existing: os.stat_result | None) -> None:
    """Give the replacement the permissions (and, where allowed, the owner) of the file it replaces."""
    if existing is None:
        os.fchmod(fd, _default_mode())
        return
    if (existing.st_uid, existing.st_gid) != (os.geteuid(), os.getegid()):
        with contextlib.suppress(PermissionError):  # only root may give a file away; others keep their own
            os.fchown(fd, existing.st_uid, existing.st_gid)
    os.fchmod(fd, stat.S_IMODE(existing.st_mode))  # after chown, which clears set-id bits


_umask: list[int] = []


def _default_mode() -> int:
    """What ``open()`` would give a new file: 0o666 less the umask (read once, as reading it means setting it)."""
    if not _umask:
        mask = os.umask(0o022)
        os.umask(mask)
        _umask.append(mask)
    return 0o666 & ~_umask[0]


# Bytes handed to the system at a time: exports write many small pieces, and at the default 8 KiB a 30 MB file
# took 4,000 system calls, 0.025 s of CPU time more than at this size.
_WRITE_BUFFER = 1 << 16


def _through_temporary_file(
    path: Path, produce: Callable[[BinaryIO], object], *, compare: bool, replace: bool, existing: os.stat_result | None
) -> bool:
    """The one way regular files are written: into a temporary file, then (if it differs, when ``compare``)
    renamed over ``path`` after an fsync. Returns whether it differed; the temporary file never stays behind,
    not even when the process is ended by SIGTERM (see :func:`remove_temporary_files_on_signals`)."""
    with _live_lock:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent if replace else None)
        _live.add(tmp)
    try:
        with os.fdopen(fd, "wb", buffering=_WRITE_BUFFER) as out:
            produce(out)
            out.flush()
            differs = not (compare and _is_regular(path) and filecmp.cmp(tmp, path, shallow=False))
            if differs and replace:
                _keep_owner_and_mode(out.fileno(), existing)
                os.fsync(out.fileno())
        if differs and replace:
            os.replace(tmp, path)
        return differs
    finally:
        with _live_lock:
            Path(tmp).unlink(missing_ok=True)
            _live.discard(tmp)


def _is_regular(path: Path) -> bool:
    """A regular file, not a symlink to one (a symlink always differs: it is replaced, its target never read)."""
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


# --- no temporary file outlives a signal ----------------------------------------------------------------------

_live: set[str] = set()
_live_lock = threading.Lock()
_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def _remove_and_die(signum: int, frame: FrameType | None) -> None:
    for tmp in list(_live):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    signal.signal(signum, signal.SIG_DFL)
    sys.stderr.flush()
    os.kill(os.getpid(), signum)  # end as the signal would have, so the parent sees it


def remove_temporary_files_on_signals() -> None:
    """On SIGTERM or SIGHUP, delete the temporary files being written, then end as the signal would.

    Python's default for these signals ends the process without running ``finally`` blocks; Ctrl-C (SIGINT)
    already runs them. Called once by the CLI, from the main thread.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in _SIGNALS:
        if signal.getsignal(signum) in (signal.SIG_DFL, None):
            signal.signal(signum, _remove_and_die)
