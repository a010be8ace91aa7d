"""The cyclic garbage collector around work over a whole bank (:func:`gc_paused`) and in the console script
(:func:`short_lived_process`, :func:`settled`: kept for the start-up floor, see there).

This module must not know banks, formats or the CLI.
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from contextlib import contextmanager

_short_lived = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector.

    Loading and exporting build large acyclic trees; the collector would only rescan them again and again
    (it doubled load time and cost 0.4 s of a 10,000-question Moodle export). Reference counting still frees
    everything as usual.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def short_lived_process() -> None:
    """Declare this process one that runs a single command and ends with it (the ``moe-lms`` console script; never
    a library user's process, nor a test run's, which go on).

    Kept for the start-up floor (issue 19, docs/design/speed.md): without it the shipped bank's QTI 2.1 export
    took 0.40 s of CPU (0.39-0.41, 7 runs) against 0.33 s (0.32-0.33) with it, text2qti 0.26 s on the same 8
    questions: 1.54x, over the floor of 1.5x, against 1.27x (runs alternating, loaded machine).

    Such a process turns the cyclic collector off until its command has settled (:func:`settled`): what it makes
    before then, its modules and their classes, lives until the end, and the collections the imports set off
    found nothing to free (about 0.02 s a command). And it skips the collection at the interpreter's exit, which
    would go over every object still alive only for them all to be freed anyway (another 0.02 s): everything is
    frozen out of its reach (gc.freeze) once the command has run. atexit handlers and each object's freeing by
    reference count happen as usual.
    """
    global _short_lived
    _short_lived = True
    gc.disable()
    atexit.register(gc.freeze)  # (registered first, so it runs last: after every other handler)


def settled() -> None:
    """In a short-lived process (:func:`short_lived_process`): what exists now lives until the command ends (its
    modules, once imported; its bank, once read), so it is frozen out of the collector's reach, and the collector
    is on for the rest. Without this, the first full collection after a 10,000-question bank is read goes over
    its million objects, to free none of them (0.05 s). Elsewhere, nothing."""
    if _short_lived:
        gc.freeze()
        gc.enable()
