"""`moe-lms import` into a folder that holds a bank merges: a round trip of the shipped bank through every
format that has an importer (Moodle XML, Moodle multilang, QTI 2.1, Common Cartridge, Canvas QTI) gives back
bank.yaml and both PO files byte for byte, drafts still drafts."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from moe_lms.cli import main
from moe_lms.loader import load_bank
from moe_lms.model import strings

from .conftest import SHIPPED_BANK_DIR

FORMATS = {
    "moodle": ["--format", "moodle"],
    "moodle-multilang": ["--format", "moodle", "--multilang"],
    "qti21": ["--format", "qti21"],
    "cc11": ["--format", "cc11"],
    "canvas-qti": ["--format", "canvas-qti"],
}
FILES = ("bank.yaml", "locales/ur.po", "locales/vi.po")
# What a format has no place for (kept from the bank by a merge; missing from an import into an empty folder).
NO_FEEDBACK_TRANSLATIONS = {"qti21", "cc11", "canvas-qti"}  # the overall feedback messages are not in items
NO_BANK_TAGS = {"canvas-qti"}  # a question has its tags, a package none of its own


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def _export(tmp_path: Path, name: str, *extra: str) -> Path:
    path = tmp_path / f"export.{name}"
    code, output = run("export", *FORMATS[name], str(SHIPPED_BANK_DIR), *extra, "-o", str(path))
    assert code == 0, output
    return path


def _importer(name: str) -> str:
    return name.removesuffix("-multilang")


def _copy_of_the_shipped_bank(tmp_path: Path) -> Path:
    copy = tmp_path / "bank"
    shutil.copytree(SHIPPED_BANK_DIR, copy)
    return copy


@pytest.mark.parametrize("drafts", [["--include-drafts"], []], ids=["with-drafts", "drafts-fell-back"])
@pytest.mark.parametrize("name", FORMATS)
def test_a_round_trip_into_the_bank_gives_back_every_file_byte_for_byte(
    name: str, drafts: list[str], tmp_path: Path
) -> None:
    exported = _export(tmp_path, name, *drafts)
    bank = _copy_of_the_shipped_bank(tmp_path)
    code, output = run("import", _importer(name), str(exported), "-o", str(bank))
    assert code == 0, output
    assert "no file changed" in output
    for file in FILES:
        assert (bank / file).read_bytes() == (SHIPPED_BANK_DIR / file).read_bytes(), file


@pytest.mark.parametrize("name", FORMATS)
def test_a_round_trip_into_an_empty_folder_keeps_every_question_and_translation_the_format_carries(
    name: str, tmp_path: Path
) -> None:
    exported = _export(tmp_path, name, "--include-drafts")
    code, output = run("import", _importer(name), str(exported), "-o", str(tmp_path / "new"))
    assert code == 0, output
    shipped, back = load_bank(SHIPPED_BANK_DIR), load_bank(tmp_path / "new")
    shipped = shipped.model_copy(update={"quizzes": ()})  # (the whole bank's file holds none of its quizzes)
    assert list(strings(back)) == list(strings(shipped))
    assert (back.id, back.target_locales) == (shipped.id, shipped.target_locales)
    assert back.tags == (() if name in NO_BANK_TAGS else shipped.tags)
    for q, b in zip(shipped.questions, back.questions, strict=True):
        # Moodle gives every question the bank's tags too: a question tag that repeats one is not told apart.
        assert {*q.tags} <= {*back.tags, *b.tags} <= {*shipped.tags, *q.tags}
        assert q.model_copy(update={"tags": ()}) == b.model_copy(update={"tags": ()})
    # None of these formats has a place for "draft".
    carried = [p for p, _ in strings(shipped) if not (name in NO_FEEDBACK_TRANSLATIONS and p.startswith("feedback/"))]
    carried = [p for p in carried if not p.startswith("quizzes/")]
    for locale in shipped.target_locales:
        texts = {p: t.text for p, t in back.translations[locale].items()}
        assert texts == {p: t.text for p, t in shipped.translations[locale].items() if p in carried}


def test_an_import_over_the_bank_updates_its_questions_and_keeps_its_draft_translations(tmp_path: Path) -> None:
    exported = _export(tmp_path, "moodle")
    bank = _copy_of_the_shipped_bank(tmp_path)
    ur = bank / "locales" / "ur.po"
    # Make every explanation a draft (those not one already), as a translator's work in progress would be.
    ur.write_text(
        re.sub(
            r'(?<!#, fuzzy\n)^(msgctxt "[^"]*/explanation")$',
            r"#, fuzzy\n\1",
            ur.read_text(encoding="utf-8"),
            flags=re.M,
        ),
        encoding="utf-8",
    )
    drafts_before = ur.read_text(encoding="utf-8").count("#, fuzzy")
    assert drafts_before > 30
    data = exported.read_bytes().replace(b"What does expert parallelism", b"What, exactly, does expert parallelism")
    exported.write_bytes(data)
    code, output = run("import", "moodle", str(exported), "-o", str(bank))
    assert code == 0, output
    merged = load_bank(bank)
    assert merged.question("ep-distributes").stem.startswith("What, exactly, does")
    after = ur.read_text(encoding="utf-8")
    assert after.count("#, fuzzy") == drafts_before
    # The changed stem's translation is kept, made from the old English: stale until a translator reviews it.
    assert merged.translations["ur"]["ep-distributes/stem"].source.startswith("What does expert parallelism")


@pytest.mark.parametrize("flag", ["--replace", "--force"])
def test_replace_overwrites_the_bank_and_removes_catalogs_of_locales_it_does_not_have(
    flag: str, tmp_path: Path
) -> None:
    exported = _export(tmp_path, "qti21", "--locale", "en", "--locale", "ur")
    bank = _copy_of_the_shipped_bank(tmp_path)
    code, output = run("import", "qti21", str(exported), "-o", str(bank), flag)
    assert code == 0, output
    assert "removed" in output and "vi.po" in output
    replaced = load_bank(bank)  # loads: no catalog of a locale the bank does not list is left behind
    assert replaced.target_locales == ("ur",)
    assert not any(t.draft for t in replaced.translations["ur"].values())


@pytest.mark.parametrize("importer", ["moodle", "qti21"])
def test_a_folder_holding_translations_but_no_bank_is_not_overwritten_without_replace(
    importer: str, tmp_path: Path
) -> None:
    exported = _export(tmp_path, "qti21" if importer == "qti21" else "moodle")
    folder = tmp_path / "mine"
    (folder / "locales").mkdir(parents=True)
    (folder / "locales" / "ur.po").write_text("# my own translations\n", encoding="utf-8")
    code, output = run("import", importer, str(exported), "-o", str(folder))
    assert code == 2 and "ur.po" in output and "--replace" in output
    assert (folder / "locales" / "ur.po").read_text(encoding="utf-8") == "# my own translations\n"
    assert not (folder / "bank.yaml").exists()
    code, output = run("import", importer, str(exported), "-o", str(folder), "--replace")
    assert code == 0, output
    load_bank(folder)


def test_a_bank_with_errors_is_not_merged_into(tmp_path: Path) -> None:
    exported = _export(tmp_path, "moodle")
    bank = _copy_of_the_shipped_bank(tmp_path)
    (bank / "bank.yaml").write_text("id: broken\n", encoding="utf-8")
    code, output = run("import", "moodle", str(exported), "-o", str(bank))
    assert code == 1 and "fix them, or pass --replace" in output
    assert (bank / "bank.yaml").read_text(encoding="utf-8") == "id: broken\n"
