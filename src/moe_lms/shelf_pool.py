"""Writing the files of a shelf on every core the machine gives us.

The files of a shelf are independent: each is a function of the loaded bank. So ``build`` loads the bank once,
then forks worker processes that inherit it (no copy, no pickling of the bank) and hands each worker the *name*
of a file to write or compare. Every file is written by exactly one process through
:func:`files.replace_if_changed`, so its bytes are those a sequential build writes whatever the scheduling, and
the results are given back in the plan's order, so what ``build`` prints does not depend on it either.

A worker that meets a problem (``ProblemsFound``, or an ``OutputError`` the file could not be written for) sends
it back as a value; the caller reports it as the sequential build does, once every worker has ended. A bug in a
worker is sent back too, and re-raised in the caller with the worker's traceback (multiprocessing's
``RemoteTraceback``).
"""

from __future__ import annotations

import contextlib
import gc
import glob
import multiprocessing
import os
import signal
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO, NamedTuple

from .files import OutputError, remove_file, replace_if_changed
from .problems import Problem, ProblemsFound

Writer = tuple[str, Callable[[BinaryIO], object]]


class Outcome(NamedTuple):
    name: str
    changed: bool  # the file differed from a fresh build (or was missing); with ``replace``, it was replaced
    problems: tuple[Problem, ...]  # the file could not be made: nothing else of the outcome holds
    sha256: str | None = None  # the digest of the file as it now is on the shelf, when it is a fresh build's


# What the forked workers inherit: set just before the fork, read by the workers, cleared after.
_job: tuple[Path, dict[str, Callable[[BinaryIO], object]], bool] | None = None


@contextlib.contextmanager
def locked(folder: Path, *, exclusive: bool, wait: Callable[[], None] = lambda: None) -> Iterator[None]:
    """Hold the shelf ``folder``'s lock while the block runs: an ``fcntl.flock`` on the folder itself (no lock
    file to commit or leave behind), exclusive for a build, shared for a check. A second build of the same shelf
    waits for the first (``wait`` is called once, to say so), so neither loses the other's record in the
    manifest; the system drops the lock when the process ends, however it ends."""
    import fcntl

    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise OutputError(f"cannot lock the shelf {folder}: {exc.strerror or exc}") from None
    try:
        kind = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
        try:
            fcntl.flock(fd, kind | fcntl.LOCK_NB)
        except BlockingIOError:
            wait()
            try:
                fcntl.flock(fd, kind)
            except OSError as exc:
                raise OutputError(f"cannot lock the shelf {folder}: {exc.strerror or exc}") from None
        except OSError as exc:  # (a file system without locks)
            raise OutputError(f"cannot lock the shelf {folder}: {exc.strerror or exc}") from None
        yield
    finally:
        os.close(fd)  # (closing the descriptor releases the lock)


def usable_cpus() -> int:
    """The cores this process may run on (its affinity mask, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _one(folder: Path, name: str, write: Callable[[BinaryIO], object], replace: bool) -> Outcome:
    from .shelf import file_sha256

    try:
        changed = replace_if_changed(folder / name, write, within=folder, replace=replace)
        fresh = replace or not changed  # (the file on the shelf is now the fresh build's bytes)
        return Outcome(name, changed, (), file_sha256(folder / name) if fresh else None)
    except ProblemsFound as exc:
        return Outcome(name, False, tuple(exc.problems))


def _as_worker() -> None:
    """A worker ends at once when the pool terminates it: the CLI's SIGTERM handler (files.py) belongs to the
    parent, which removes what a terminated worker left behind (:func:`_remove_temporary_files`)."""
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def _remove_temporary_files(folder: Path, names: Sequence[str]) -> None:
    """The temporary files (``files.py``'s ``.<name>.*.tmp``) of workers ended mid-write."""
    for name in names:
        for leftover in folder.glob(f".{glob.escape(name)}.*.tmp"):
            remove_file(leftover, within=folder)


class WorkerTraceback(Exception):
    """The traceback of a bug in a worker, shown as the cause of the error re-raised in the parent (as
    multiprocessing's own RemoteTraceback shows it)."""

    def __str__(self) -> str:
        return f'\n"""\n{self.args[0]}"""'


class _Failure(NamedTuple):
    """What a worker sends back when a file's writing raised: an ``OutputError`` (the file cannot be written) or
    a bug. The parent raises it once every worker has ended on its own, never through ``Pool.terminate``."""

    name: str
    error: Exception
    traceback: str


def _worker(name: str) -> Outcome | _Failure:
    assert _job is not None, "a shelf worker runs only in a process forked by write_files"
    folder, writers, replace = _job
    try:
        return _one(folder, name, writers[name], replace)
    except Exception as exc:
        return _Failure(name, exc, traceback.format_exc())


def write_files(
    folder: Path,
    writers: Sequence[Writer],
    *,
    replace: bool,
    jobs: int,
    advance: Callable[[int], None] = lambda n: None,
) -> Iterator[Outcome]:
    """Write (or, without ``replace``, compare) every file of ``writers`` in ``folder`` with up to ``jobs``
    processes; yield each file's outcome in the order of ``writers`` once all are done (or sooner, one by one,
    when a single process does the work). ``advance(1)`` is called as each file is finished."""
    global _job
    jobs = min(jobs, len(writers))
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        for name, write in writers:
            outcome = _one(folder, name, write, replace)
            advance(1)
            yield outcome
        return
    # Largest first, so that no core is left alone with a big file at the end: the file carrying every locale,
    # then the packages (zips of many parts), then the rest.
    order = sorted((name for name, _ in writers), key=_expected_cost, reverse=True)
    _job = (folder, dict(writers), replace)
    gc.freeze()  # the bank's objects are shared with the workers; the collector would copy their pages
    pool = multiprocessing.get_context("fork").Pool(jobs, initializer=_as_worker)
    try:
        outcomes: dict[str, Outcome] = {}
        failures: dict[str, _Failure] = {}
        for result in pool.imap_unordered(_worker, order):
            if isinstance(result, _Failure):
                failures[result.name] = result
            else:
                outcomes[result.name] = result
            advance(1)
        # Done: the workers are told to stop and end on their own. (Pool's context manager would terminate them
        # with SIGTERM instead, and a worker signalled while waiting for the task queue's lock could be left
        # hanging, and the build with it, for ever.)
        pool.close()
        pool.join()
    except BaseException:
        # Ctrl-C: end every worker now. (Pool.terminate can hang, now and then, on the task queue's lock, so a
        # file that cannot be written or a bug in a worker comes back as a _Failure instead of raising here.)
        pool.terminate()
        pool.join()
        _remove_temporary_files(folder, order)
        raise
    finally:
        _job = None
        gc.unfreeze()
    for name, _ in writers:
        if name in failures:  # the first in the plan's order, as a one-process build meets it
            failure = failures[name]
            if not isinstance(failure.error, OutputError):
                failure.error.__cause__ = WorkerTraceback(failure.traceback)
            raise failure.error
        yield outcomes[name]


def _expected_cost(name: str) -> int:
    if ".multilang." in name:
        return 3
    if name.endswith((".zip", ".imscc")):
        return 2
    return 1 if "." in name.removesuffix(".md") else 0
