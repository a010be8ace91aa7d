"""What each export tells the teacher it cannot carry, or what to do after importing it: the export's warnings,
printed by `moe-lms export` (and nothing is said where there is nothing to say)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from moe_lms import formats
from moe_lms.cli import main
from moe_lms.formats import ExportOptions
from moe_lms.problems import Severity

from .quiz_bank import MIDTERM, quiz_bank, write_quiz_bank


def said(format_name: str, quiz: dict[str, object] | None = MIDTERM) -> str:
    bank = quiz_bank([] if quiz is None else [quiz])
    options = ExportOptions.for_bank(bank, ("en",), quiz=None if quiz is None else str(quiz["id"]))
    warnings = formats.get(format_name).warnings  # the format's warnings channel
    found = warnings(bank, options) if warnings else []
    assert all(p.severity in (Severity.WARNING, Severity.NOTE) for p in found)
    return " ".join(" ".join(str(p) for p in found).split())


def test_qti_says_the_quizs_attempts_are_for_the_delivery_system_to_set() -> None:
    for name, version in (("qti21", "2.1"), ("qti3", "3.0")):
        text = said(name)
        assert f"attempts: 2 is not in the QTI {version} file" in text
        assert "one answer per question" in text and ".canvas-qti.zip" in text
    assert "attempts" not in said("qti21", {**MIDTERM, "attempts": 1})
    assert said("qti21", None) == ""


def test_qti3_says_the_citolab_player_ignores_the_tests_draws_order_and_time() -> None:
    assert "Citolab QTI 3 player shows every item of a test in order and untimed" in said("qti3")


def test_open_edx_says_attempts_releases_and_timed_exams() -> None:
    text = said("olx")
    assert "attempts: 2 is not in the course" in text
    assert "Open edX Sumac or later" in text and "PR 37830" in text and "PR 38296" in text
    assert "ENABLE_SPECIAL_EXAMS" in text


def test_a_cartridge_says_how_to_show_feedback_after_a_moodle_restore_and_to_prefer_canvas_qti() -> None:
    text = said("cc11", None)
    assert "tick 'The attempt' first" in text and "'Deferred feedback'" in text
    assert "appended to its general feedback" in text and ".canvas-qti.zip" in text


def test_moodle_pools_say_the_maximum_grade_and_where_the_intro_goes() -> None:
    six_points = {**MIDTERM, "sections": [{**s, "points": 1} for s in MIDTERM["sections"]]}  # type: ignore[attr-defined]
    for name in ("moodle", "gift"):
        text = said(name, six_points)  # 2 + 3 + 2 questions of 1 point
        assert "keeps Moodle's maximum grade 10 while an attempt is worth 7 points: set 'Maximum grade' to 7" in text
        assert "quiz's Description" in text
        assert "Maximum grade" not in said(name)  # 2×1 + 3×2 + 2×1 = 10: nothing to set
        assert "Description" not in said(name, {**MIDTERM, "intro": None})


def test_export_prints_the_warnings_and_strict_refuses_them(tmp_path: Path) -> None:
    bank_dir = write_quiz_bank(tmp_path / "bank")
    result = CliRunner().invoke(
        main, ["export", "--format", "qti21", "--quiz", "midterm", "-o", str(tmp_path / "q.zip"), str(bank_dir)]
    )
    assert result.exit_code == 0, result.output
    assert "warning: quiz 'midterm': attempts: 2 is not in the QTI 2.1 file" in " ".join(result.output.split())
    strict = CliRunner().invoke(
        main,
        ["export", "--format", "qti21", "--quiz", "midterm", "--strict", "-o", str(tmp_path / "s.zip"), str(bank_dir)],
    )
    assert strict.exit_code == 1 and "(--strict)" in strict.output and not (tmp_path / "s.zip").exists()


def test_strict_writes_a_cartridge_whose_only_words_are_what_to_do_after_the_import(tmp_path: Path) -> None:
    """The cartridge's restore advice is a note: it drops nothing, so --strict must not refuse every cartridge."""
    bank_dir = write_quiz_bank(tmp_path / "bank")
    out = tmp_path / "c.imscc"
    result = CliRunner().invoke(
        main, ["export", "--format", "cc11", "--locale", "en", "--strict", "-o", str(out), str(bank_dir)]
    )
    assert result.exit_code == 0, result.output
    assert out.exists() and "Deferred feedback" in " ".join(result.output.split())
