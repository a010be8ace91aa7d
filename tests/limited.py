"""Running moe-lms in a child process whose address space is capped, to show memory stays bounded (no timing)."""

from __future__ import annotations

import resource
import subprocess
import sys

MEMORY_CAP = 512 * 2**20  # an interpreter with moe-lms imported needs about a fifth of this


def run_capped(*args: str, cap: int = MEMORY_CAP) -> subprocess.CompletedProcess[str]:
    """``moe-lms ARGS`` with RLIMIT_AS set to ``cap``: a run that needed more dies instead of swapping."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    code = "import sys; from moe_lms.cli import run; sys.argv[0] = 'moe-lms'; run()"  # (the console script)
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, preexec_fn=limit, check=False
    )
