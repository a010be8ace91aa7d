"""Messages that say the next step (issue 34, M5, M6, C11, C13): validate names `moe-lms schemas fetch` for every
format it could not validate by XSD; a quiz exported to Moodle XML says that the draw is made in Moodle; an
unreachable published schema does not blame a --base-url nobody gave."""

from __future__ import annotations

import shutil
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
    said = " ".join(result.output.split())
    assert "QTI 3.0 package" in said and "Open edX course" in said


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
        "a check/Dispatch and combine', Number of random questions: 1 (of 2)"
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


# --- the review's cosmetic findings (C3-C8, C19) -------------------------------------------------------------------


def test_a_format_is_read_whatever_its_case_and_a_typo_gets_the_nearest(tmp_path: Path) -> None:
    upper = invoke("export", "--format", "Moodle", "-o", str(tmp_path / "x.xml"), str(SHIPPED_BANK_DIR))
    assert upper.exit_code == 0, upper.output
    typo = invoke("export", "--format", "moodel", str(SHIPPED_BANK_DIR))
    assert typo.exit_code == 2
    assert "'moodel' is not a format: did you mean 'moodle'?" in typo.output


def one_question_bank(directory: Path, stem: str = "'What is 6?'") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "bank.yaml").write_text(
        "id: one\ntitle: One\nsource_locale: en\ntarget_locales: []\nquestions:\n"
        f"  - id: q1\n    stem: {stem}\n    explanation: Because.\n    choices:\n"
        "      - {id: a, text: '6', correct: true, explanation: Right.}\n"
        "      - {id: b, text: '5', explanation: Wrong.}\n",
        encoding="utf-8",
    )
    return directory


def test_check_of_a_one_question_bank_says_one_question(tmp_path: Path) -> None:
    result = invoke("check", str(one_question_bank(tmp_path / "bank")))
    assert result.exit_code == 0, result.output
    assert "one: 1 question, source en" in result.stdout


def test_a_missing_image_gets_the_nearest_file_of_its_folder(tmp_path: Path) -> None:
    bank = one_question_bank(tmp_path / "bank", "'A cell: ![a cell](media/cell.png)'")
    (bank / "media").mkdir()
    (bank / "media" / "cell-diagram.png").write_bytes(
        bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                      "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082")
    )  # fmt: skip
    result = invoke("check", str(bank))
    assert result.exit_code == 1
    assert "image file 'media/cell.png' does not exist in the bank folder (did you mean 'media/cell-diagram.png'?)" in (
        result.stderr
    )


def test_a_mistyped_msgctxt_gets_the_nearest_path(tmp_path: Path) -> None:
    bank = one_question_bank(tmp_path / "bank")
    path = bank / "bank.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("target_locales: []", "target_locales: [fr]"))
    assert invoke("translations", "update", str(bank)).exit_code == 0
    po_file = bank / "locales" / "fr.po"
    po_file.write_text(
        po_file.read_text(encoding="utf-8").replace('msgctxt "q1/choices/a/text"', 'msgctxt "q1/choice/a/text"')
    )
    result = invoke("check", str(bank))
    assert "1 msgctxt names no string a bank can have: 'q1/choice/a/text' (line" in result.stderr
    assert "did you mean 'q1/choices/a/text'?" in result.stderr


def test_translations_update_without_target_locales_says_there_is_nothing_to_update(tmp_path: Path) -> None:
    result = invoke("translations", "update", str(one_question_bank(tmp_path / "bank")))
    assert result.exit_code == 0
    assert "one has no target locales, so there is no PO file to update" in result.stdout
    assert "target_locales: [fr]" in result.stdout


def test_an_html_export_without_locale_names_the_other_languages(tmp_path: Path) -> None:
    result = invoke("export", "--format", "html", "-o", str(tmp_path / "p.html"), str(SHIPPED_BANK_DIR))
    assert result.exit_code == 0, result.output
    assert (
        "note: --format html writes one language per file; the bank's other languages: --locale ur, --locale vi"
        in result.stderr
    )
    chosen = invoke("export", "--format", "html", "--locale", "ur", "-o", str(tmp_path / "u.html"),
                    str(SHIPPED_BANK_DIR))  # fmt: skip
    assert "other languages" not in chosen.stderr


def test_the_gift_refusal_of_an_image_names_the_questions_line(tmp_path: Path) -> None:
    """Issue 34 (C16): every other error has file:line; the GIFT refusal had neither line nor folder."""
    bank = tmp_path / "bank"
    shutil.copytree(SHIPPED_BANK_DIR.parent / "moe-serving-arithmetic", bank)
    result = invoke("export", "--format", "gift", "-o", str(tmp_path / "g.txt"), str(bank))
    assert result.exit_code == 1
    lines = (bank / "bank.yaml").read_text(encoding="utf-8").splitlines()
    line = lines.index("  - id: local-and-remote") + 1
    assert f"bank.yaml:{line}:5: error: question 'local-and-remote': shows image" in result.stderr
