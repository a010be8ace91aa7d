"""Shared fixtures. Tests that need ../shared fail (never skip) when CI is set and it is missing."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import settings

from moe_lms.loader import load_bank
from moe_lms.model import Bank

# CI runs the same examples every time, so a property test cannot pass or fail by luck of the draw;
# local runs keep exploring (and remember failures in .hypothesis/).
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

ROOT = Path(__file__).resolve().parents[1]
# ../shared beside the checkout; MOE_LMS_SHARED names it when the checkout is elsewhere (a git worktree).
SHARED = Path(os.environ.get("MOE_LMS_SHARED") or ROOT.parent / "shared")
SHIPPED_BANK_DIR = ROOT / "question_bank" / "moe-expert-parallelism"


def _need(path: Path, what: str) -> Path:
    if path.exists():
        return path
    message = f"{what} not found at {path} (../shared beside the checkout)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return _need(SHARED, "shared/")


@pytest.fixture(scope="session")
def seeds_dir(shared_dir: Path) -> Path:
    return _need(shared_dir / "seeds", "the seed documents")


SEED_LOCALES = {"000_": "ur", "001_": "vi"}  # seed file name prefix -> locale


def parse_seed(path: Path) -> tuple[str, str, list[tuple[str, list[str]]]]:
    """A seed document as (title, intro, [(stem, [choices])])."""
    lines = path.read_text(encoding="utf-8").split("\n")
    title, intro = lines[0], lines[2]
    questions: list[tuple[str, list[str]]] = []
    for line in lines[3:]:
        numbered = re.match(r"^(\d+)\. (.+)$", line)
        if numbered:
            assert int(numbered[1]) == len(questions) + 1
            questions.append((numbered[2], []))
        elif line.startswith("   • "):
            questions[-1][1].append(line.removeprefix("   • "))
    return title, intro, questions


@pytest.fixture(scope="session")
def seeds(seeds_dir: Path) -> dict[str, tuple[str, str, list[tuple[str, list[str]]]]]:
    """The seed documents by locale (ur, vi), parsed."""
    found = {}
    for path in sorted(seeds_dir.glob("*.txt")):
        locale = next(loc for prefix, loc in SEED_LOCALES.items() if path.name.startswith(prefix))
        found[locale] = parse_seed(path)
    assert sorted(found) == ["ur", "vi"]
    return found


@pytest.fixture(scope="session")
def schemas_dir(shared_dir: Path) -> Path:
    return _need(shared_dir / "schemas", "the official XSDs")


@pytest.fixture(scope="session")
def shipped_bank() -> Bank:
    return load_bank(SHIPPED_BANK_DIR)
