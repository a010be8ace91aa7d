"""A PO entry whose msgctxt is no path of any string (``../../etc/passwd``) is an error, naming it; one shaped
like the path of a deleted question stays the warning that ``translations update`` clears."""

from __future__ import annotations

from pathlib import Path

from moe_lms.loader import check_bank
from moe_lms.problems import Severity

from .corpus import bank_with_stem

HEADER = 'msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'


def catalog(directory: Path, *contexts: str) -> Path:
    bank = bank_with_stem(directory, "Fine.", extra="target_locales: [de]\n")
    (bank / "locales").mkdir(exist_ok=True)
    entries = "".join(f'msgctxt "{context}"\nmsgid "x"\nmsgstr "y"\n\n' for context in contexts)
    (bank / "locales" / "de.po").write_text(HEADER + entries, encoding="utf-8")
    return bank


def test_a_msgctxt_that_is_no_string_path_is_an_error_naming_it(tmp_path: Path) -> None:
    _bank, problems = check_bank(catalog(tmp_path, "../../etc/passwd"))
    (error,) = [p for p in problems if p.severity is Severity.ERROR]
    assert "'../../etc/passwd' (line 6)" in error.message and error.line == 6


def test_the_path_of_a_deleted_question_stays_a_warning(tmp_path: Path) -> None:
    _bank, problems = check_bank(catalog(tmp_path, "gone/choices/a/text"))
    assert [p.severity for p in problems] == [Severity.WARNING]
    assert "translations update" in problems[0].message
