"""Issue 13, target 5: start-up. CPU time of small commands on the shipped bank, median of many runs.

    python bench/startup.py [--runs 15] [--from-source]

Each command runs in a fresh process, as a user runs it; its CPU time (user + system, getrusage of the child)
is nearly all interpreter start and imports. ``python -c pass`` is the floor no command can go under.

As installed: an installed package has its modules compiled to bytecode (pip compiles them; an editable install
writes them on first use), so each command runs once untimed first, with bytecode written to a cache folder of
this run (PYTHONPYCACHEPREFIX), even where PYTHONDONTWRITEBYTECODE is set, as it is on some CI machines.
``--as-is`` runs the commands in this environment as it is instead: where PYTHONDONTWRITEBYTECODE is set and no
bytecode lies beside moe-lms's sources (a fresh editable install), every run compiles them again (about 0.04 s).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from versus import _tool, cpu_of, installed_env

SHIPPED = Path(__file__).resolve().parents[1] / "question_bank" / "moe-expert-parallelism"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--as-is", action="store_true", help="this environment's bytecode settings, unchanged")
    args = parser.parse_args()
    moe_lms = _tool("moe-lms")
    commands = [
        ("python -c pass (the floor)", [sys.executable, "-c", "pass"], None),
        ("moe-lms --help", [moe_lms, "--help"], 0.1),
        ("moe-lms export --format moodle", [moe_lms, "export", "--format", "moodle", str(SHIPPED), "-o", "m.xml"], 0.2),
        ("moe-lms export --format qti21", [moe_lms, "export", "--format", "qti21", str(SHIPPED), "-o", "q.zip"], None),
        ("moe-lms check", [moe_lms, "check", str(SHIPPED)], None),
    ]
    how = "this environment's bytecode settings" if args.as_is else "bytecode written by a first, untimed run"
    print(f"CPU seconds, median of {args.runs} runs (min, max), shipped bank ({SHIPPED.name}); {how}\n")
    with tempfile.TemporaryDirectory() as tmp:
        env: dict[str, str] | None = None
        if not args.as_is:
            env = installed_env(Path(tmp))
        for label, command, target in commands:
            if env is not None:
                cpu_of(command, Path(tmp), env)
            runs = [cpu_of(command, Path(tmp), env) for _ in range(args.runs)]
            median = statistics.median(runs)
            verdict = f"   target <= {target} s: {'met' if median <= target else 'NOT met'}" if target else ""
            print(f"{label:<34} {median:6.3f}  ({min(runs):.3f}, {max(runs):.3f}){verdict}")


if __name__ == "__main__":
    main()
