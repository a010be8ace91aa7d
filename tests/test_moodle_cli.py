"""`moe-lms export --format moodle` and `moe-lms import moodle` as a user runs them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from moe_lms.cli import main
from moe_lms.formats.moodle import check_moodle_xml
from moe_lms.loader import load_bank
from moe_lms.model import strings

from .conftest import SHIPPED_BANK_DIR
from .test_moodle_import import FROM_MOODLE

SHIPPED = str(SHIPPED_BANK_DIR)  # named: from a folder outside the checkout no bank is the default


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.fixture
def in_tmp(tmp_path: Path) -> Path:
    cwd = Path.cwd()
    os.chdir(tmp_path)
    yield tmp_path  # type: ignore[misc]
    os.chdir(cwd)


@pytest.mark.parametrize("locale", ["ur", "vi", "en"])
def test_export_one_locale_of_the_shipped_bank(locale: str, in_tmp: Path) -> None:
    code, output = run("export", "--format", "moodle", "--locale", locale, "-o", f"{locale}.xml", SHIPPED)
    assert code == 0, output
    assert f"wrote {locale}.xml (Moodle XML, 8 questions)" in output
    assert check_moodle_xml((in_tmp / f"{locale}.xml").read_bytes()) == []


def test_export_without_options_writes_every_locale_to_the_default_file_and_reports_fallbacks(in_tmp: Path) -> None:
    code, output = run("export", "--format", "moodle", SHIPPED)
    assert code == 0, output
    assert (in_tmp / "moe-expert-parallelism.moodle.xml").is_file()
    assert "en: source locale" in output
    drafts = (SHIPPED_BANK_DIR / "locales" / "ur.po").read_text(encoding="utf-8").count("\n#, fuzzy\n")
    total = sum(1 for _ in strings(load_bank(SHIPPED_BANK_DIR)))  # (its quiz's strings too)
    assert f"ur: {total - drafts}/{total} strings translated, {drafts} fell back to en (drafts not included)" in output


def test_export_to_stdout(in_tmp: Path) -> None:
    code, output = run("export", "--format", "moodle", "--multilang", "-o", "-", SHIPPED)
    assert code == 0
    assert '<span lang="ur" class="multilang">' in output


def test_export_an_unknown_locale_is_a_usage_error() -> None:
    code, output = run("export", "--format", "moodle", "--locale", "fr", "-o", "-")
    assert code == 2 and "has no locale fr" in output


def test_import_writes_a_bank_that_loads_and_exports_back_identically(in_tmp: Path) -> None:
    assert run("export", "--format", "moodle", "-o", "all.xml", SHIPPED)[0] == 0
    code, output = run("import", "moodle", "all.xml", "-o", "copy")
    assert code == 0, output
    assert "imported 8 questions into copy: 8 questions, source en, targets ur, vi; wrote copy" in output
    copy, shipped = load_bank(in_tmp / "copy"), load_bank(SHIPPED_BANK_DIR)
    # Moodle has no bank tags: each question carries them, and the import takes the shared ones back as bank tags.
    assert [q.model_copy(update={"tags": ()}) for q in copy.questions] == [
        q.model_copy(update={"tags": ()}) for q in shipped.questions
    ]
    assert [{*copy.tags, *q.tags} for q in copy.questions] == [{*shipped.tags, *q.tags} for q in shipped.questions]
    assert run("export", "--format", "moodle", "copy", "-o", "again.xml")[0] == 0
    assert (in_tmp / "again.xml").read_bytes() == (in_tmp / "all.xml").read_bytes()


def test_import_lists_the_questions_of_other_types_it_did_not_import(in_tmp: Path) -> None:
    (in_tmp / "phy.xml").write_bytes(FROM_MOODLE)
    code, output = run("import", "moodle", "phy.xml", "-o", "phy")
    assert code == 0, output
    assert "phy.xml: not imported: line 59: shortanswer question 'Unit of frequency'" in output
    assert "essay question 'Explain'" in output
    assert "2 question(s) of other types not imported" in output
    assert "phy.xml:14: warning: question 'wave-speed': no explanation" in output
    assert run("check", "phy")[0] == 0


def test_import_of_malformed_xml_exits_1_naming_file_and_line(in_tmp: Path) -> None:
    (in_tmp / "bad.xml").write_text("<quiz>\n<question type='multichoice'>\n</quiz>\n", encoding="utf-8")
    code, output = run("import", "moodle", "bad.xml", "-o", "out")
    assert code == 1
    assert "bad.xml:3: error: not well-formed XML" in output
    assert not (in_tmp / "out").exists()


def test_import_merges_into_a_bank_and_replaces_it_only_when_told(in_tmp: Path) -> None:
    (in_tmp / "phy.xml").write_bytes(FROM_MOODLE)
    assert run("import", "moodle", "phy.xml", "-o", "phy")[0] == 0
    code, output = run("import", "moodle", "phy.xml", "-o", "phy")
    assert code == 0 and "no file changed" in output
    code, output = run("import", "moodle", "phy.xml", "-o", "phy", "--locale", "de")
    assert code == 1 and "source locale is de" in output and "--replace" in output
    assert run("import", "moodle", "phy.xml", "-o", "phy", "--replace", "--locale", "de")[0] == 0
    assert load_bank(in_tmp / "phy").source_locale == "de"


def test_import_with_an_unknown_locale_is_a_usage_error(in_tmp: Path) -> None:
    (in_tmp / "phy.xml").write_bytes(FROM_MOODLE)
    code, output = run("import", "moodle", "phy.xml", "-o", "phy", "--locale", "xx")
    assert code == 2 and "unknown locale" in output


def test_a_file_over_the_size_limit_is_refused_naming_the_option_that_raises_it(in_tmp: Path) -> None:
    padding = b"<!-- " + b"x" * (3 * 2**19) + b" -->\n"  # 1.5 MiB of comment
    (in_tmp / "big.xml").write_bytes(FROM_MOODLE.replace(b"<quiz>", b"<quiz>\n" + padding, 1))
    code, output = run("import", "moodle", "big.xml", "-o", "big", "--max-size", "1")
    assert code == 1
    assert "big.xml: error: the file is 1.5 MiB, over the limit of 1 MiB (--max-size)" in output
    assert not (in_tmp / "big").exists()
    code, output = run("import", "moodle", "big.xml", "-o", "big", "--max-size", "2")
    assert code == 0, output
    assert load_bank(in_tmp / "big").questions


@pytest.mark.parametrize("fraction", ["NaN", "sNaN", "Infinity", "-Infinity", "abc", "1e999999", "150"])
def test_a_fraction_that_is_no_percentage_is_an_error_naming_the_question_and_line(fraction: str, in_tmp: Path) -> None:
    data = FROM_MOODLE.replace(
        b'<answer fraction="100" format="html">', f'<answer fraction="{fraction}" format="html">'.encode(), 1
    )
    assert data != FROM_MOODLE
    (in_tmp / "odd.xml").write_bytes(data)
    result = CliRunner().invoke(main, ["import", "moodle", "odd.xml", "-o", "out"])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output  # no traceback
    line = data[: data.index(f'fraction="{fraction}"'.encode())].count(b"\n") + 1
    assert f"odd.xml:{line}: error: question " in result.output
    assert f"fraction '{fraction}' is not a percentage from -100 to 100" in result.output
    assert not (in_tmp / "out").exists()
