"""No write and no delete leaves the folder moe-lms was asked to work in, even when a folder on the way is a
symbolic link out of it (a cloned repository can hold one): ``init DIR`` with ``DIR/locales`` a link,
``import … -o B`` with ``B/media`` a link (every importer), ``translations update`` and ``import --replace``
with ``locales/`` a link. Each is refused with one line naming the link; the folder it leads to stays as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from moe_lms.cli import main

from .corpus import bank_with_stem

PO = b'msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n'


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """Another project's folder, which a link in the bank leads to."""
    folder = tmp_path / "other-project"
    folder.mkdir()
    (folder / "de.po").write_bytes(PO)
    (folder / "fr.po").write_bytes(PO.replace(b"de", b"fr"))
    return folder


def untouched(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


BEFORE = {"de.po": PO, "fr.po": PO.replace(b"de", b"fr")}


def test_init_refuses_a_locales_folder_that_links_out_of_the_bank(tmp_path: Path, elsewhere: Path) -> None:
    (elsewhere / "de.po").unlink()
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "locales").symlink_to(elsewhere)
    result = run("init", str(bank), "--locales", "de")
    assert result.exit_code == 1
    assert "locales" in result.output and "symbolic link" in result.output and "Traceback" not in result.output
    assert sorted(p.name for p in elsewhere.iterdir()) == ["fr.po"]


@pytest.mark.parametrize(
    ("fmt", "suffix"),
    [("moodle", "xml"), ("qti21", "zip"), ("qti3", "zip"), ("cc11", "imscc"), ("canvas-qti", "zip"), ("olx", "tar.gz")],
)
def test_import_refuses_a_media_folder_that_links_out_of_the_bank(
    tmp_path: Path, elsewhere: Path, fmt: str, suffix: str
) -> None:
    source = bank_with_stem(tmp_path / "source", "See ![a picture](media/ok.png).")
    package = tmp_path / f"package.{suffix}"
    assert run("export", "--format", fmt, str(source), "-o", str(package)).exit_code == 0
    target = tmp_path / "imported"
    target.mkdir()
    (target / "media").symlink_to(elsewhere)
    result = run("import", fmt, str(package), "-o", str(target))
    assert result.exit_code == 1, result.output
    assert "media" in result.output and "symbolic link" in result.output
    assert untouched(elsewhere) == BEFORE


def test_translations_update_refuses_a_locales_folder_that_links_out(tmp_path: Path, elsewhere: Path) -> None:
    bank = bank_with_stem(tmp_path / "bank", "Fine.", extra="target_locales: [de]\n")
    (bank / "locales").symlink_to(elsewhere)
    result = run("translations", "update", str(bank))
    assert result.exit_code == 1 and "symbolic link" in result.output, result.output
    assert untouched(elsewhere) == BEFORE


def test_import_replace_deletes_no_catalog_through_a_locales_link(tmp_path: Path, elsewhere: Path) -> None:
    source = bank_with_stem(tmp_path / "source", "Fine.")
    package = tmp_path / "bank.zip"
    assert run("export", "--format", "qti21", str(source), "-o", str(package)).exit_code == 0
    target = tmp_path / "imported"
    target.mkdir()
    (target / "locales").symlink_to(elsewhere)
    result = run("import", "qti21", str(package), "-o", str(target), "--replace")
    assert result.exit_code == 1 and "symbolic link" in result.output, result.output
    assert untouched(elsewhere) == BEFORE


def test_the_write_helper_refuses_a_path_whose_folder_leaves_the_one_it_works_in(
    tmp_path: Path, elsewhere: Path
) -> None:
    from moe_lms.files import OutputError, remove_file, write_atomic

    bank = tmp_path / "bank"
    (bank / "deep").mkdir(parents=True)
    (bank / "deep" / "locales").symlink_to(elsewhere)
    with pytest.raises(OutputError, match="symbolic link"):
        write_atomic(bank / "deep" / "locales" / "de.po", b"x", within=bank)
    with pytest.raises(OutputError, match="symbolic link"):
        remove_file(bank / "deep" / "locales" / "de.po", within=bank)
    with pytest.raises(OutputError, match="outside"):
        write_atomic(bank / ".." / "other-project" / "de.po", b"x", within=bank)
    assert untouched(elsewhere) == BEFORE
    write_atomic(bank / "deep" / "new" / "x.txt", b"fine", within=bank, parents=True)  # (a real folder is fine)
    assert (bank / "deep" / "new" / "x.txt").read_bytes() == b"fine"


def test_a_bank_folder_that_is_itself_a_link_is_the_folder_asked_for(tmp_path: Path) -> None:
    """The folder named on the command line is the user's choice, link or not: only links inside it are refused."""
    real = bank_with_stem(tmp_path / "real", "Fine.", extra="target_locales: [de]\n")
    (tmp_path / "alias").symlink_to(real)
    result = run("translations", "update", str(tmp_path / "alias"))
    assert result.exit_code == 0, result.output
    assert (real / "locales" / "de.po").is_file()
