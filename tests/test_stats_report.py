"""moe-lms stats shows its analysis: the command (exit codes, JSON, the terminal table), and the HTML report,
escaped, script-free and readable on a 390 px phone in Chromium."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import html as lxml_html

from moe_lms.cli import main
from moe_lms.loader import save_bank
from moe_lms.stats.compute import analyse
from moe_lms.stats.html import report

from .stats_support import attempts_of, plain_csv, simulate, stats_bank
from .test_html_browser import chromium  # noqa: F401  (the fixture)

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"


@pytest.fixture(scope="module")
def bank_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("stats-bank")
    save_bank(stats_bank(), folder)
    (folder / "results.csv").write_bytes(plain_csv(simulate(200)))
    return folder


def run(*args: str) -> tuple[int, str, str]:
    done = CliRunner().invoke(main, list(args))
    return done.exit_code, done.stdout, done.stderr


def test_stats_prints_a_table_with_the_flags(bank_dir: Path) -> None:
    code, stdout, _ = run("stats", str(bank_dir / "results.csv"), "--bank", str(bank_dir))
    assert code == 0
    assert "600 attempts" in stdout and "Cronbach's α 0.77" in stdout
    assert "DIF C in ur vs en" in stdout and "dead distractor d" in stdout


def test_stats_json_goes_to_stdout_or_a_file(bank_dir: Path, tmp_path: Path) -> None:
    code, stdout, _ = run("stats", str(bank_dir / "results.csv"), "--bank", str(bank_dir), "--json")
    assert code == 0
    doc = json.loads(stdout)
    assert doc["format"] == "moe-lms-stats" and len(doc["questions"]) == 8
    code, _, _ = run("stats", str(bank_dir / "results.csv"), "--bank", str(bank_dir), "-o", str(tmp_path / "s.json"))
    assert code == 0 and json.loads((tmp_path / "s.json").read_text()) == doc


def test_stats_exit_codes(bank_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("learner,attempt,locale,question,answer\nl1,1,en,nope,a\n")
    code, _, stderr = run("stats", str(bad), "--bank", str(bank_dir))
    assert code == 1 and "bad.csv:2: error: question 'nope' is not in bank stats-bank" in stderr
    assert run("stats", "--bank", str(bank_dir))[0] == 2
    assert run("stats", str(bank_dir / "results.csv"), "--bank", str(bank_dir), "--locale", "fr")[0] == 2


def test_the_report_escapes_every_text_and_runs_nothing() -> None:
    bank = stats_bank()
    hostile = bank.questions[0].model_copy(update={"stem": "<script>alert(1)</script> <img src=x onerror=alert(2)>"})
    bank = bank.model_copy(update={"questions": (hostile, *bank.questions[1:])})
    page = report(bank, analyse(bank, attempts_of(simulate(40))))
    root = lxml_html.fromstring(page)
    assert root.xpath("//script") == [] and root.xpath("//*[@onerror]") == []
    assert "script>alert(1)" in root.xpath("string(//section[1]/p)")  # shown as text
    csp = root.xpath("//meta[@http-equiv='Content-Security-Policy']/@content")[0]
    assert "script-src" not in csp and "default-src 'none'" in csp
    assert all(src.startswith("data:image/svg+xml;base64,") for src in root.xpath("//img/@src"))
    assert report(bank, analyse(bank, attempts_of(simulate(40)))) == page  # deterministic bytes


def test_the_report_reads_on_a_phone(chromium, bank_dir: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    """390 px wide: nothing wider than the screen (tables scroll in their box), every plot drawn, no script."""
    target = tmp_path / "report.html"
    code, _, _ = run("stats", str(bank_dir / "results.csv"), "--bank", str(bank_dir), "--html", str(target))
    assert code == 0
    context = chromium(viewport={"width": 390, "height": 800}, java_script_enabled=True)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: r.url.startswith(("file://", "data:")) or errors.append(r.url))
        page.goto(target.as_uri())
        width, screen = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert width <= screen == 390
        images = page.evaluate(
            "Array.from(document.images).map(i => [i.naturalWidth, i.getBoundingClientRect().right])"
        )
        assert len(images) == 24 and all(w > 0 and right <= 390 for w, right in images)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "stats-report-390.png"))
        assert errors == []
    finally:
        context.close()


def test_check_warns_on_each_flagged_question_of_a_stats_file(bank_dir: Path, tmp_path: Path) -> None:
    stats = tmp_path / "stats.json"
    assert run("stats", str(bank_dir / "results.csv"), "--bank", str(bank_dir), "-o", str(stats))[0] == 0
    code, stdout, stderr = run("check", str(bank_dir), "--stats", str(stats))
    assert code == 0 and stdout.rstrip().endswith("ok")
    warnings = [line for line in stderr.splitlines() if "stats:" in line]
    assert len(warnings) == 3
    assert "question 'dif-item': stats: DIF class C in ur against en (MH D-DIF -3." in warnings[0]
    assert any("question 'dead-distractor': stats: distractor d is chosen by 0.0 of learners" in w for w in warnings)


def test_check_refuses_a_stats_file_of_another_bank(bank_dir: Path, tmp_path: Path) -> None:
    stats = tmp_path / "stats.json"
    stats.write_text(json.dumps({"format": "moe-lms-stats", "bank": "other", "questions": []}))
    code, _, stderr = run("check", str(bank_dir), "--stats", str(stats))
    assert code == 1 and "the stats are of bank 'other', not 'stats-bank'" in stderr
    stats.write_text("[1, 2")
    assert run("check", str(bank_dir), "--stats", str(stats))[0] == 1
