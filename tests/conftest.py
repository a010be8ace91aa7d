"""Shared fixtures. Tests that need ../shared fail (never skip) when CI is set and it is missing."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import settings

from moe_lms import schemas
from moe_lms.loader import load_bank
from moe_lms.model import Bank

from .capa_block import submit  # noqa: F401  (fixture: Open edX's ProblemBlock)
from .qti21_engine import qti_sdk  # noqa: F401  (fixture: qti-sdk, a QTI 2.1 engine)

# CI runs the same examples every time, so a property test cannot pass or fail by luck of the draw;
# local runs keep exploring (and remember failures in .hypothesis/).
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

ROOT = Path(__file__).resolve().parents[1]


def _find_shared() -> Path:
    """../shared beside the checkout; for a git worktree, beside its main checkout; or $MOE_LMS_SHARED."""
    if os.environ.get("MOE_LMS_SHARED"):
        return Path(os.environ["MOE_LMS_SHARED"])
    beside = ROOT.parent / "shared"
    dot_git = ROOT / ".git"
    if not beside.exists() and dot_git.is_file():  # a worktree: ".git" says "gitdir: MAIN/.git/worktrees/NAME"
        gitdir = dot_git.read_text(encoding="utf-8").partition("gitdir:")[2].strip()
        if gitdir:
            main_checkout = Path(gitdir).resolve().parents[2]
            if (main_checkout.parent / "shared").exists():
                return main_checkout.parent / "shared"
    return beside


SHARED = _find_shared()
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
def schemas_dir() -> Path:
    """The official XSDs: ../shared/schemas, else the user cache ``moe-lms schemas fetch`` fills."""
    if (SHARED / "schemas").is_dir():
        return SHARED / "schemas"
    cached = schemas.cache_dir()
    if all((cached / f.path).is_file() for f in schemas.FILES):
        return cached
    message = (
        f"the official XSDs are neither in {SHARED / 'schemas'} nor in the user cache {cached}: "
        "run `moe-lms schemas fetch` (once; it downloads them and checks each against its pinned SHA-256)"
    )
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def shipped_bank() -> Bank:
    return load_bank(SHIPPED_BANK_DIR)
