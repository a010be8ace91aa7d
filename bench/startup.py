"""Start-up: CPU time of small commands on the shipped bank, median of many runs, and the shipped bank's export
beside text2qti on a quiz of the same 8 questions (issue 19's floor: at most 1.5x text2qti's CPU, side by side,
because absolute start-up times differ threefold between machines).

    pip install -e '.[bench]'
    python bench/startup.py [--runs 15] [--as-is]

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

from versus import _tool, cpu_of, installed_env, write_quiz

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
        side_by_side(moe_lms, Path(tmp), env, args.runs)


FLOOR = 1.5  # issue 19: the shipped bank's export at most 1.5x the CPU of text2qti on a quiz of the same shape


def side_by_side(moe_lms: str, folder: Path, env: dict[str, str] | None, runs: int) -> None:
    """The shipped bank's exports and text2qti on its 8 questions (source text, explanations), runs alternating."""
    from moe_lms.loader import load_bank

    quiz = folder / "quiz.md"
    write_quiz(load_bank(SHIPPED), quiz)
    text2qti = [_tool("text2qti"), str(quiz)]
    exports = {f: [moe_lms, "export", "--format", f, str(SHIPPED), "-o", f"side.{f}"] for f in ("qti21", "moodle")}
    for command in (text2qti, *exports.values()):
        cpu_of(command, folder, env)  # (untimed: bytecode)
    times: dict[str, list[float]] = {"text2qti": [], **{f: [] for f in exports}}
    for _ in range(runs):
        times["text2qti"].append(cpu_of(text2qti, folder, env))
        for f, command in exports.items():
            times[f].append(cpu_of(command, folder, env))
    peer = statistics.median(times["text2qti"])
    print(
        f"\nside by side, runs alternating: text2qti on the same {len(load_bank(SHIPPED).questions)} questions "
        f"{peer:6.3f} s (median of {runs})"
    )
    for f in exports:
        mine = statistics.median(times[f])
        verdict = "met" if mine <= FLOOR * peer else "NOT met"
        ratio = mine / peer
        print(f"moe-lms export --format {f:<8} {mine:6.3f} s = {ratio:4.2f}x text2qti   floor <= {FLOOR}x: {verdict}")


if __name__ == "__main__":
    main()
