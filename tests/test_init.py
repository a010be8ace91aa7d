"""`moe-lms init`: a bank from nothing that passes check and exports at once, and never overwrites a file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from moe_lms import formats, loader
from moe_lms.cli import main
from moe_lms.glossary import read_glossary
from moe_lms.model import Kind
from moe_lms.po import read_po


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    result = invoke("init", "quiz", "--locales", "vi,ur", "--title", 'Cells: "the basics"')
    assert result.exit_code == 0, result.output
    return tmp_path / "quiz"


def test_the_new_bank_passes_check_and_exports_to_moodle_at_once(made: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(made)
    checked = invoke("check")
    assert checked.exit_code == 0, checked.output
    assert checked.stdout.startswith("quiz: 3 questions, source en, targets vi, ur")
    exported = invoke("export", "--format", "moodle")
    assert exported.exit_code == 0, exported.output
    assert (made / "quiz.moodle.xml").is_file()


@pytest.mark.parametrize("name", formats.names())
def test_the_new_bank_exports_to_every_format(made: Path, name: str) -> None:
    result = invoke("export", "--format", name, str(made), "-o", str(made.parent / f"out-{name}"))
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr


def test_it_has_one_question_of_each_kind_each_explained(made: Path) -> None:
    bank = loader.load_bank(made)
    assert [q.kind for q in bank.questions] == [Kind.SINGLE, Kind.MULTIPLE, Kind.TRUE_FALSE]
    assert bank.title == 'Cells: "the basics"'
    assert all(q.explanation and all(c.explanation for c in q.choices) for q in bank.questions)
    text = (made / "bank.yaml").read_text(encoding="utf-8")
    assert "# The general explanation: shown after answering, whatever was chosen." in text
    assert "# Every choice explains itself: why it is right, or why it is wrong and what is true instead." in text


def test_the_first_line_points_editors_at_the_schema_written_beside_it(made: Path) -> None:
    first = (made / "bank.yaml").read_text(encoding="utf-8").splitlines()[0]
    assert first == "# yaml-language-server: $schema=bank.schema.json"
    written = json.loads((made / "bank.schema.json").read_text(encoding="utf-8"))
    assert written == json.loads(invoke("schema").stdout)


def test_each_target_locale_gets_a_po_file_with_every_string_untranslated(made: Path) -> None:
    bank = loader.load_bank(made)
    for locale in ("vi", "ur"):
        catalog = read_po((made / "locales" / f"{locale}.po").read_text(encoding="utf-8"))
        assert catalog.header["Language"] == locale
        assert len(catalog.entries) == 4 + sum(2 + 2 * len(q.choices) for q in bank.questions)
        assert {e.msgstr for e in catalog.entries} == {""}


def test_the_glossary_is_empty_and_valid(made: Path) -> None:
    glossary, problems = read_glossary(made, ("vi", "ur"))
    assert problems == []
    assert glossary is not None and glossary.terms == ()


def test_the_gitignore_leaves_out_what_every_export_writes(made: Path) -> None:
    ignored = (made / ".gitignore").read_text(encoding="utf-8").splitlines()
    for name in formats.names():
        assert f"/*{formats.get(name).suffix}" in ignored


def test_init_without_a_folder_starts_the_bank_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = tmp_path / "Intro Biology"
    here.mkdir()
    monkeypatch.chdir(here)
    assert invoke("init").exit_code == 0
    bank = loader.load_bank(here)
    assert (bank.id, bank.title, bank.target_locales) == ("intro-biology", "Intro biology", ())
    assert not (here / "locales").exists()


def test_it_refuses_to_overwrite_anything_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "bank.yml").write_text("mine\n", encoding="utf-8")
    (tmp_path / "locales").mkdir()
    (tmp_path / "locales" / "vi.po").write_text("mine too\n", encoding="utf-8")
    result = invoke("init", str(tmp_path), "--locales", "vi")
    assert result.exit_code == 1
    assert "bank.yml" in result.stderr and "vi.po" in result.stderr
    assert "moe-lms init never overwrites a file" in result.stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["bank.yml", "locales", "vi.po"]
    assert (tmp_path / "bank.yml").read_text(encoding="utf-8") == "mine\n"


def test_an_unknown_locale_is_a_usage_error(tmp_path: Path) -> None:
    result = invoke("init", str(tmp_path / "q"), "--locales", "vi,xq")
    assert result.exit_code == 2
    assert "unknown locale 'xq'" in result.output
    assert not (tmp_path / "q").exists()
