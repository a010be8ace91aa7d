"""The smaller cases of issue 35: each a clear message in the author's words, or work linear in the input."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from moe_lms import formats
from moe_lms.cli import main
from moe_lms.formats import ExportOptions
from moe_lms.loader import load_bank

from .corpus import bank_with_stem


def check(directory: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", str(directory)])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.output


def test_a_quiz_section_listing_40000_unknown_ids_is_checked_in_linear_time(tmp_path: Path) -> None:
    ids = ", ".join(f"nope-{n}" for n in range(40_000))
    quiz = f"quizzes:\n  - id: qz\n    title: Q\n    sections:\n      - id: s\n        questions: [q, {ids}]\n"
    bank = bank_with_stem(tmp_path, "Fine.", extra=quiz)
    began = time.perf_counter()
    code, output = check(bank)
    assert time.perf_counter() - began < 20  # (28 s before, on an idle machine: list.index per id)
    assert code == 1 and "no question 'nope-39999' in the bank" in output


def test_init_with_a_title_holding_a_lone_surrogate_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["init", str(tmp_path / "bank"), "--title", "Quiz \udc80"])
    assert result.exit_code == 2 and "U+DC80" in result.output, (result.output, result.exception)
    assert not (tmp_path / "bank" / "bank.yaml").exists()


@pytest.mark.parametrize("tag", ["textarea", "title", "xmp"])
def test_prose_naming_a_raw_text_element_leaves_no_literal_end_tag_in_any_export(tmp_path: Path, tag: str) -> None:
    bank = load_bank(bank_with_stem(tmp_path, f"Type your answer in the <{tag}> below.\n\nThen press **Check**."))
    for name in formats.names():
        data = formats.get(name).dump(bank, ExportOptions(locales=bank.locales))
        assert b"&lt;/p&gt;" not in data and b"&amp;lt;/p&amp;gt;" not in data, name


def test_a_python_tag_is_refused_as_a_tag_not_as_a_list(tmp_path: Path) -> None:
    (tmp_path / "bank.yaml").write_text(
        "id: x\ntitle: !!python/object/apply:os.system ['echo hi']\nquestions: []\n", encoding="utf-8"
    )
    code, output = check(tmp_path)
    assert code == 1 and "YAML tag !!python/object/apply:os.system is refused" in output
    assert "YAML read a list" not in output


def test_a_value_past_its_limit_is_said_in_the_authors_words(tmp_path: Path) -> None:
    quiz = (
        "quizzes:\n  - id: qz\n    title: Q\n    time_limit_minutes: 20000\n    sections:\n"
        "      - id: s\n        questions: [q]\n"
    )
    code, output = check(bank_with_stem(tmp_path, "Fine.", extra=quiz))
    assert code == 1 and "time_limit_minutes: 20000 is more than the most it may be, 10080" in output
    assert "Input should be" not in output


def test_a_section_with_one_bad_field_is_not_also_an_empty_list_of_sections(tmp_path: Path) -> None:
    quiz = "quizzes:\n  - id: qz\n    title: Q\n    sections:\n      - id: s\n        questions: [q]\n        draw: 0\n"
    code, output = check(bank_with_stem(tmp_path, "Fine.", extra=quiz))
    assert code == 1 and "draw: 0 is too small" in output
    assert "Tuple should have at least 1 item" not in output
