"""The command line: exit codes scripts can rely on (0 ok, 1 problems, 2 usage), and what users read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from moe_lms import __version__
from moe_lms.cli import main

from .conftest import SHIPPED_BANK_DIR


@pytest.fixture
def bank_copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(SHIPPED_BANK_DIR, tmp_path / "bank"))


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_version() -> None:
    assert run("--version") == (0, f"moe-lms, version {__version__}\n")


def test_check_reports_every_error_with_file_and_line_and_exits_1(bank_copy: Path) -> None:
    yaml_path = bank_copy / "bank.yaml"
    text = yaml_path.read_text(encoding="utf-8")
    text = text.replace("    stem: Which communication pattern", "    stemm: Which communication pattern", 1)
    text = text.replace("  - id: moe-sparse-compute", "  - id: ep-distributes", 1)
    yaml_path.write_text(text, encoding="utf-8")
    code, output = run("check", str(bank_copy))
    assert code == 1
    assert "bank.yaml:" in output
    assert "question 'ep-communication': unknown key 'stemm' (did you mean 'stem'?)" in output
    assert "question 'ep-distributes': question id 'ep-distributes' is used more than once" in output
    assert "error(s)." in output


def test_check_strict_fails_on_missing_translations(bank_copy: Path) -> None:
    po = bank_copy / "locales" / "vi.po"
    intro = 'msgstr "Câu trả lời và giải thích xuất hiện khi bạn làm bài kiểm tra."'
    po.write_text(po.read_text(encoding="utf-8").replace(intro, 'msgstr ""'), encoding="utf-8")
    assert run("check", str(bank_copy))[0] == 0
    code, output = run("check", "--strict", str(bank_copy))
    assert code == 1
    assert "1 missing and 0 stale translation(s) (--strict)" in output


def test_check_names_text_that_renders_to_nothing_which_every_export_would_refuse(bank_copy: Path) -> None:
    yaml_path = bank_copy / "bank.yaml"
    text = yaml_path.read_text(encoding="utf-8")
    yaml_path.write_text(text.replace("text: Only individual attention heads", "text: <script>heads()</script>"))
    po = bank_copy / "locales" / "ur.po"
    po_text = po.read_text(encoding="utf-8")
    po.write_text(po_text.replace('msgstr "صرف انفرادی توجہ کے سربراہ"', 'msgstr "<!-- سربراہ -->"'), encoding="utf-8")
    po_line = po_text.splitlines().index('msgctxt "ep-distributes/choices/b/text"') + 1
    code, output = run("check", str(bank_copy))
    assert code == 1
    yaml_line = text.splitlines().index("        text: Only individual attention heads") + 1
    assert (
        f"bank.yaml:{yaml_line}:15: error: question 'ep-distributes', choice 'b': the text renders to no text at all"
        in output
    )
    assert (
        f"ur.po:{po_line}: error: question 'ep-distributes', choice 'b': the ur translation of the text renders"
        in output
    )
    assert run("export", "--format", "moodle", str(bank_copy), "-o", "-")[0] == 1  # what check warned of


def test_not_a_bank_directory_is_a_usage_error(tmp_path: Path) -> None:
    code, output = run("check", str(tmp_path))
    assert code == 2
    assert "is not a bank directory" in output


def test_schema_is_json_schema_of_bank_yaml() -> None:
    code, output = run("schema")
    assert code == 0
    schema = json.loads(output)
    assert schema["title"] == "moe-lms bank.yaml"
    assert "translations" not in schema["properties"]
    assert schema["$defs"]["Choice"]["required"] == ["id", "text", "explanation"]
    assert schema["$defs"]["Choice"]["additionalProperties"] is False


def test_translations_update_resyncs_po_files_like_msgmerge(bank_copy: Path) -> None:
    yaml_path = bank_copy / "bank.yaml"
    text = yaml_path.read_text(encoding="utf-8")
    yaml_path.write_text(
        text.replace("stem: What does expert parallelism distribute across GPUs?", "stem: What does EP shard?"),
        encoding="utf-8",
    )
    code, output = run("translations", "update", str(bank_copy))
    assert code == 0, output
    assert "ur: 0 added, 1 marked fuzzy (source changed), 0 made obsolete" in output
    ur = (bank_copy / "locales" / "ur.po").read_text(encoding="utf-8")
    assert '#| msgid "What does expert parallelism distribute across GPUs?"' in ur
    code, output = run("check", str(bank_copy))
    assert code == 0
    assert run("translations", "update", str(bank_copy))[1].startswith("ur: 0 added, 0 marked fuzzy")


def test_translations_update_leaves_an_unchanged_bank_byte_identical(bank_copy: Path) -> None:
    before = {p.name: p.read_bytes() for p in (bank_copy / "locales").iterdir()}
    assert run("translations", "update", str(bank_copy))[0] == 0
    assert {p.name: p.read_bytes() for p in (bank_copy / "locales").iterdir()} == before
