"""The cyclic garbage collector paused around work over a whole bank at once (:func:`gc_paused`: a load, an export).

The console script's own pause and freeze of the collector for the whole process is gone (issue 19,
docs/design/speed.md). This module must not know banks, formats or the CLI.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


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
