"""qti-sdk (oat-sa/qti-sdk, TAO's QTI 2.1 engine, ../shared/qti-sdk) run as a delivery system runs an item of a
test: ``qti21_engine.php`` gives the item session the test's itemSessionControl and takes each try as an attempt
(the engine refuses one beyond ``maxAttempts``). PHP 8.2 with dom and mbstring runs it (the Moodle install brings
it); the tarball is unpacked once per session."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

DRIVER = Path(__file__).with_name("qti21_engine.php")

Tries = Callable[[bytes, bytes, str, list[list[str]]], list[dict[str, Any]]]


def _unavailable(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def qti_sdk(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Tries:
    """``tries(test_xml, item_xml, item_identifier, [[choice ids], …])``: what the engine made of each try."""
    tarballs = sorted((shared_dir / "qti-sdk").glob("qti-sdk-*.tar.xz"))
    php = shutil.which("php8.2") or shutil.which("php")
    if not tarballs:
        _unavailable(f"qti-sdk not found in {shared_dir / 'qti-sdk'}")
    if php is None:
        _unavailable("PHP not found: apt-get install php8.2-cli php8.2-xml php8.2-mbstring")
    folder = tmp_path_factory.mktemp("qti-sdk")
    with tarfile.open(tarballs[-1]) as archive:
        archive.extractall(folder, filter="data")
    (src,) = folder.glob("*/src")
    assert php is not None

    def tries(test: bytes, item: bytes, identifier: str, responses: list[list[str]]) -> list[dict[str, Any]]:
        payload = {"test": test.decode(), "item": item.decode(), "item_identifier": identifier, "tries": responses}
        done = subprocess.run(
            [php, str(DRIVER), str(src)], input=json.dumps(payload), capture_output=True, text=True, timeout=120,
            check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:] + done.stdout[-2000:]
        result: list[dict[str, Any]] = json.loads(done.stdout)
        return result

    return tries
