"""A bank repository that checks itself (issue 34, point 6): the `moe-lms-check` hook of .pre-commit-hooks.yaml, run
by pre-commit itself on a bank kept in git, and the CI workflow of docs/how-to/ that a teacher copies.

pre-commit installs the hook from a snapshot of this checkout (a git repository of its own, as a teacher's
`repo:` would be) into its own virtualenv; nothing but PyPI is reached for the dependencies."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from moe_lms.cli import main

from .conftest import ROOT

pytest.importorskip("pre_commit", reason="pre-commit is in the test extra: pip install -e '.[test]'")

HOOKS = ROOT / ".pre-commit-hooks.yaml"
WORKFLOW = ROOT / "docs" / "how-to" / "moe-lms-check.yml"
BROKEN_STEM = '    stem: "Note: what is $2 \\times 3$?"\n'


def git(directory: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org"}  # fmt: skip
    done = subprocess.run(["git", "-C", str(directory), *args], capture_output=True, text=True, env=env, check=True)
    return done.stdout.strip()


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """This checkout as the hook's repository: what pip needs to install it, and the hooks file, committed."""
    repo = tmp_path_factory.mktemp("moe-lms-hook-repo")
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy(ROOT / name, repo / name)
    shutil.copytree(ROOT / "src", repo / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "snapshot")
    yield repo, git(repo, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit cache for the module: the hook's environment is installed once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def bank_repo(directory: Path, hook_repo: tuple[Path, str], args: list[str] | None = None) -> Path:
    """A teacher's bank in a git repository of its own, with a .pre-commit-config.yaml naming the hook."""
    result = CliRunner().invoke(main, ["init", str(directory), "--title", "Cells"])
    assert result.exit_code == 0, result.output
    hook: dict[str, object] = {"id": "moe-lms-check"}
    if args is not None:
        hook["args"] = args
    config = {"repos": [{"repo": str(hook_repo[0]), "rev": hook_repo[1], "hooks": [hook]}]}
    (directory / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    git(directory, "init", "-q")
    git(directory, "add", "-A")
    git(directory, "commit", "-q", "-m", "a bank")
    return directory


def pre_commit(directory: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args], cwd=directory, capture_output=True, text=True, env=env,
        timeout=900,
    )  # fmt: skip


def break_the_bank(directory: Path) -> None:
    path = directory / "bank.yaml"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines) if line.startswith("    stem: "))
    lines[number] = BROKEN_STEM
    path.write_text("".join(lines), encoding="utf-8")


def test_the_hooks_file_declares_moe_lms_check_on_the_banks_files() -> None:
    (hook,) = yaml.safe_load(HOOKS.read_text(encoding="utf-8"))
    assert hook["id"] == "moe-lms-check"
    assert hook["entry"] == "moe-lms check"
    assert hook["language"] == "python"
    assert hook["pass_filenames"] is False
    for path in ("bank.yaml", "bank.yml", "locales/ur.po", "media/cell.png", "glossary.yaml", "sub/bank.yaml"):
        assert re.search(hook["files"], path), path
    for path in ("README.md", "notes/locales.txt"):
        assert not re.search(hook["files"], path), path


def test_pre_commit_runs_the_hook_passes_a_good_bank_and_stops_a_broken_one(
    tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path
) -> None:
    bank = bank_repo(tmp_path / "cells", hook_repo)
    good = pre_commit(bank, pre_commit_home, "run", "--all-files")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "moe-lms check" in good.stdout and "Passed" in good.stdout
    break_the_bank(bank)
    git(bank, "add", "bank.yaml")
    broken = pre_commit(bank, pre_commit_home, "run")  # (the staged files, as on a commit)
    assert broken.returncode == 1
    assert "Failed" in broken.stdout
    assert 'a backslash inside "double quotes" is a YAML escape: \\times became a tab' in broken.stdout
    assert "1 error(s)." in broken.stdout


def test_the_hook_takes_strict_as_an_argument(
    tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path
) -> None:
    """With a target locale and nothing translated, check passes (warnings) and check --strict fails."""
    for args, code in ((None, 0), (["--strict"], 1)):
        bank = bank_repo(tmp_path / f"cells-{code}", hook_repo, args)
        path = bank / "bank.yaml"
        path.write_text(path.read_text(encoding="utf-8").replace("target_locales: []", "target_locales: [ur]"))
        assert CliRunner().invoke(main, ["translations", "update", str(bank)]).exit_code == 0
        git(bank, "add", "-A")
        result = pre_commit(bank, pre_commit_home, "run")
        assert result.returncode == code, result.stdout + result.stderr
        if args:
            assert "--strict needs every learner-visible string translated and reviewed" in result.stdout


def test_the_ci_workflow_a_teacher_copies_runs_check_strict_and_fails_a_broken_bank(tmp_path: Path) -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    steps = workflow["jobs"]["check"]["steps"]
    runs = [step["run"] for step in steps if "run" in step]
    assert runs[0] == 'python -m pip install "$MOE_LMS"'
    assert runs[-1] == "moe-lms check --strict"
    assert WORKFLOW.read_text(encoding="utf-8") in (ROOT / "docs" / "how-to" / "check-in-git.md").read_text(
        encoding="utf-8"
    )  # the page shows the file as it is
    bank = tmp_path / "cells"
    assert CliRunner().invoke(main, ["init", str(bank)]).exit_code == 0
    moe_lms = Path(sys.executable).parent / "moe-lms"
    command = runs[-1].split()
    assert subprocess.run([str(moe_lms), *command[1:]], cwd=bank, capture_output=True).returncode == 0
    break_the_bank(bank)
    failed = subprocess.run([str(moe_lms), *command[1:]], cwd=bank, capture_output=True, text=True)
    assert failed.returncode == 1
    assert "bank.yaml:" in failed.stderr and "YAML escape" in failed.stderr
