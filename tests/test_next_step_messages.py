"""Messages that say the next step (issue 34, M5, M6, C11, C13): validate names `moe-lms schemas fetch` for every
format it could not validate by XSD; a quiz exported to Moodle XML says that the draw is made in Moodle; an
unreachable published schema does not blame a --base-url nobody gave."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from moe_lms import schemas
from moe_lms.cli import main

from .conftest import SHIPPED_BANK_DIR


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def no_schemas(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(schemas.ENV_VAR, raising=False)
    monkeypatch.setattr(schemas, "FALLBACKS", ())
    monkeypatch.setattr(schemas, "cache_dir", lambda: tmp_path / "empty-cache")


@pytest.mark.parametrize(
    ("fmt", "name"),
    [
        ("qti21", "bank.qti21.zip"),
        ("qti3", "bank.qti3.zip"),
        ("cc11", "bank.imscc"),
        ("canvas-qti", "bank.canvas-qti.zip"),
    ],
)
def test_validate_names_schemas_fetch_for_every_format_it_could_not_validate_by_xsd(
    tmp_path: Path, no_schemas: None, fmt: str, name: str
) -> None:
    package = tmp_path / name
    exported = invoke("export", "--format", fmt, "--locale", "en", "-o", str(package), str(SHIPPED_BANK_DIR))
    assert exported.exit_code == 0, exported.output
    result = invoke("validate", str(package))
    assert result.exit_code == 0, result.output
    assert (
        "XSD validation: NOT DONE (no schema folder found; run `moe-lms schemas fetch` once, or pass --schemas DIR "
        f"or set {schemas.ENV_VAR})"
    ) in result.output


def test_validate_on_a_file_it_does_not_check_lists_every_format_it_does(tmp_path: Path) -> None:
    path = tmp_path / "quiz.en.gift.txt"
    path.write_bytes(b"::q1:: What? {=yes ~no}\n")
    result = invoke("validate", str(path))
    assert result.exit_code == 2
    assert "QTI 2.1 and QTI 3.0 packages (.zip)" in result.output
    assert "Open edX courses (.tar.gz)" in result.output


def test_a_quiz_exported_to_moodle_says_the_draw_is_made_in_moodle_with_random_questions(tmp_path: Path) -> None:
    result = invoke(
        "export", "--format", "moodle", "--locale", "en", "--quiz", "check", "-o", str(tmp_path / "q.xml"),
        str(SHIPPED_BANK_DIR),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "note: Moodle XML carries the quiz's pools, not the quiz" in result.stderr
    assert "make the draw there with random questions" in result.stderr
    assert (
        "Add → a random question, category 'Expert parallelism for MoE serving: a quiz/English/Expert parallelism: "
        "a check/MoE layers', Number of random questions: 2 (of 3)"
    ) in result.stderr
    whole = invoke("export", "--format", "moodle", "--locale", "en", "-o", str(tmp_path / "all.xml"),
                   str(SHIPPED_BANK_DIR))  # fmt: skip
    assert "random question" not in whole.stderr


def test_an_unreachable_published_schema_does_not_blame_a_base_url_nobody_gave(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    with socket.socket() as s:  # a port nobody listens on stands for the published copies, offline
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(schemas, "PUBLISHED_URL", f"http://127.0.0.1:{port}/qti/")
    monkeypatch.setattr(schemas, "CC_PUBLISHED_URL", f"http://127.0.0.1:{port}/cc/")
    result = invoke("schemas", "fetch")
    assert result.exit_code == 1
    assert "--base-url" in result.output  # offered as a way out ...
    assert "check --base-url" not in result.output  # ... but not blamed
    assert "check this machine's internet connection" in result.output
