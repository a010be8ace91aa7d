"""A real QTI 2.1 engine for tests: oat-sa/qti-sdk (qtism, TAO's engine) from ../shared/qti-sdk, unpacked once into
the user cache and driven by tests/qtisdk/score_items.php (one PHP process per batch of items). Without the tarball
or php, the tests that need it skip (or fail in CI) and say why."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Any

import pytest

from .conftest import SHARED

SCRIPT = Path(__file__).resolve().parent / "qtisdk" / "score_items.php"


def _missing(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def qtisdk_src() -> Path:
    """The unpacked qti-sdk ``src`` folder (unpacked on first use)."""
    tarballs = sorted((SHARED / "qti-sdk").glob("qti-sdk-*.tar.xz"))
    if not tarballs:
        _missing(f"no QTI 2.1 engine: {SHARED / 'qti-sdk'}/qti-sdk-*.tar.xz not found (../shared beside the checkout)")
    if shutil.which("php") is None:
        _missing("no QTI 2.1 engine: php is not installed (../shared/moodle/install.sh installs it)")
    tarball = tarballs[-1]
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "moe-lms" / tarball.name.split(".")[0]
    src = cache / "qti-sdk" / "src"
    if not (src / "qtism").is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        partial = cache.with_name(cache.name + f".{os.getpid()}")
        with tarfile.open(tarball) as archive:
            archive.extractall(partial, filter="data")
        try:
            partial.rename(cache) if not (src / "qtism").is_dir() else shutil.rmtree(partial)
        except OSError:  # (another process unpacked it first)
            shutil.rmtree(partial, ignore_errors=True)
    return src


def score(items: dict[str, bytes], responses: dict[str, list[Any]], tmp_path: Path) -> dict[str, list[dict[str, Any]]]:
    """Each item (by name: its XML) run once per response of ``responses[name]`` through qti-sdk's item session:
    per response, SCORE, the FEEDBACK identifiers and the modal feedback shown (identifier and text)."""
    src = qtisdk_src()
    jobs = []
    for name, data in items.items():
        path = tmp_path / f"{name.replace('/', '_')}"
        path.write_bytes(data)
        jobs.append({"file": str(path), "responses": responses[name]})
    (tmp_path / "jobs.json").write_text(json.dumps(jobs), encoding="utf-8")
    done = subprocess.run(
        ["php", str(SCRIPT), str(src), str(tmp_path / "jobs.json")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"score_items.php failed:\n{done.stderr[-4000:]}"
    found = json.loads(done.stdout)
    return {name: result["results"] for name, result in zip(items, found, strict=True)}
