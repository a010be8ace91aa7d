"""`moe-lms check` for a translator: one locale at a time, stale strings named with their change, and a table that
fits the terminal."""

from __future__ import annotations

import shutil
from io import StringIO
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from rich.console import Console

from moe_lms import loader
from moe_lms.cli import main
from moe_lms.cli.bank import coverage_table
from moe_lms.locales import Status, coverage

from .conftest import SHIPPED_BANK_DIR

OLD_STEM = "What does expert parallelism distribute across GPUs?"
NEW_STEM = "What, exactly, does expert parallelism distribute across GPUs?"


@pytest.fixture
def bank_copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(SHIPPED_BANK_DIR, tmp_path / "bank"))


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def change_a_stem(bank: Path) -> None:
    path = bank / "bank.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace(OLD_STEM, NEW_STEM, 1), encoding="utf-8")


def line_of(po_file: Path, context: str) -> int:
    return po_file.read_text(encoding="utf-8").splitlines().index(f'msgctxt "{context}"') + 1


def test_a_stale_string_is_listed_at_its_po_line_with_the_change_and_the_refresh_command(bank_copy: Path) -> None:
    change_a_stem(bank_copy)
    result = invoke("check", str(bank_copy))
    assert result.exit_code == 0, result.output
    po_line = line_of(bank_copy / "locales" / "ur.po", "ep-distributes/stem")
    assert (
        f"ur.po:{po_line}: warning: 'ep-distributes/stem': stale: the source changed since it was translated: "
        f"{OLD_STEM!r} → {NEW_STEM!r}; run `moe-lms translations update`"
    ) in result.stderr


def test_after_translations_update_a_stale_string_stays_stale_until_re_translated(bank_copy: Path) -> None:
    before = coverage(loader.load_bank(bank_copy), "ur")
    drafts = before[Status.DRAFT]  # (those awaiting review already, if any)
    change_a_stem(bank_copy)
    assert invoke("translations", "update", str(bank_copy)).exit_code == 0
    bank = loader.load_bank(bank_copy)
    counts = coverage(bank, "ur")
    assert (counts[Status.STALE], counts[Status.DRAFT]) == (1, drafts)
    result = invoke("check", str(bank_copy))
    assert f"{OLD_STEM!r} → {NEW_STEM!r}; re-translate it, then delete its `#, fuzzy` and `#| msgid` lines" in (
        result.stderr
    )
    po_file = bank_copy / "locales" / "ur.po"
    text = po_file.read_text(encoding="utf-8")
    marks = f'#, fuzzy\n#| msgid "{OLD_STEM}"\nmsgctxt "ep-distributes/stem"'
    assert marks in text
    po_file.write_text(text.replace(marks, 'msgctxt "ep-distributes/stem"'), encoding="utf-8")  # re-translated
    reviewed = coverage(loader.load_bank(bank_copy), "ur")
    assert (reviewed[Status.STALE], reviewed[Status.REVIEWED]) == (0, before[Status.REVIEWED])  # as before the change


def test_check_locale_limits_everything_to_that_locale(bank_copy: Path) -> None:
    change_a_stem(bank_copy)
    vi = bank_copy / "locales" / "vi.po"
    vi.write_text(
        vi.read_text(encoding="utf-8") + '\nmsgctxt "no-such/stem"\nmsgid "x"\nmsgstr "y"\n', encoding="utf-8"
    )
    whole = invoke("check", str(bank_copy))
    assert "vi.po" in whole.stderr
    result = invoke("check", "--locale", "ur", str(bank_copy))
    assert result.exit_code == 0, result.output
    assert "vi.po" not in result.stderr
    assert "ur.po" in result.stderr
    rows = [line.split()[0] for line in result.stdout.splitlines() if line.startswith(("ur ", "vi "))]
    assert rows == ["ur"]


def test_check_locale_of_a_locale_the_bank_does_not_target_says_how_to_add_it(bank_copy: Path) -> None:
    result = invoke("check", "--locale", "de", str(bank_copy))
    assert result.exit_code == 2
    assert "put it in target_locales: in bank.yaml and run `moe-lms translations update`" in result.stderr


def test_a_target_locale_without_a_po_file_says_how_to_make_it(bank_copy: Path) -> None:
    path = bank_copy / "bank.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("target_locales: [ur, vi]", "target_locales: [ur, vi, de]")
    )
    result = invoke("check", str(bank_copy))
    assert result.exit_code == 0, result.output
    de = bank_copy / "locales" / "de.po"
    assert f"{de}: warning: locale 'de' is in target_locales but has no {de} yet" in result.stderr
    assert "run `moe-lms translations update` to make it" in result.stderr


def test_the_coverage_table_fits_80_columns_with_every_header_and_language_whole() -> None:
    bank = loader.load_bank(SHIPPED_BANK_DIR)
    console = Console(file=StringIO(), width=80)
    console.print(coverage_table(bank))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert max(map(len, text.splitlines())) <= 80
    assert "…" not in text
    for header in ("locale", "language", "reviewed", "draft", "stale", "missing", "chars", "Vietnamese"):
        assert header in text


def test_an_export_of_a_locale_the_bank_does_not_have_says_how_to_add_it(bank_copy: Path) -> None:
    result = invoke("export", "--format", "moodle", "--locale", "de", "-o", "-", str(bank_copy))
    assert result.exit_code == 2
    assert (
        "has no locale de (it has en, ur, vi); to add one, put it in target_locales: in bank.yaml and run "
        "`moe-lms translations update`"
    ) in result.stderr


@pytest.mark.parametrize("options", [(), ("--strict",), ("--locale", "ur")])
def test_a_po_file_of_a_locale_the_bank_does_not_list_fails_check_as_it_fails_export(
    bank_copy: Path, options: tuple[str, ...]
) -> None:
    """Issue 34 (M1): check passed a stray locales/de.po that export and build refuse."""
    shutil.copy(bank_copy / "locales" / "vi.po", bank_copy / "locales" / "de.po")
    result = invoke("check", *options, str(bank_copy))
    assert result.exit_code == 1, result.output
    assert "de.po: error: locale 'de' is not in the bank's target_locales" in result.stderr
    exported = invoke("export", "--format", "moodle", "-o", str(bank_copy / "out.xml"), str(bank_copy))
    assert exported.exit_code == 1
