"""moe-lms stats on the real Moodle 4.5's own Responses report: simulated learners (tests/stats_support.py: known
difficulties, one question harder in Urdu only, one distractor nobody picks) take a quiz of the stats bank in en, ur
and vi through mod_quiz's attempt API, and the report's CSV download, made by Moodle's table and dataformat code
(tests/moodle/moodle_quiz_attempts.php), is what moe-lms reads. Skips without MOE_MOODLE_DIR, as
tests/test_moodle_real.py does; the downloads are kept in test-artifacts/moodle/."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from moe_lms.cli import main
from moe_lms.formats import ExportOptions, get
from moe_lms.loader import save_bank
from moe_lms.problems import ProblemsFound
from moe_lms.stats.compute import analyse
from moe_lms.stats.json_out import document
from moe_lms.stats.moodle import read_moodle
from moe_lms.stats.results import merge

from .stats_support import ITEMS, LOCALES, expected_facility, observed_facility, simulate, stats_bank
from .test_moodle_real import ARTIFACTS, moodle  # noqa: F401  (the fixture)

SCRIPT = Path(__file__).parent / "moodle" / "moodle_quiz_attempts.php"
MARK = "=== moe-lms moodle_quiz_attempts.php JSON ==="
PER_LOCALE = 120  # 360 attempts: enough for the DIF to be class C, about a minute of Moodle's time


def _json(done: subprocess.CompletedProcess[str], what: str) -> Any:
    assert done.returncode == 0, f"{what} failed:\n{done.stderr[-4000:]}"
    return json.loads(done.stdout.rpartition(MARK)[2])


@pytest.fixture(scope="module")
def downloads(moodle: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], list[Any]]:  # noqa: F811
    bank = stats_bank()
    folder = tmp_path_factory.mktemp("moodle-stats")
    files = []
    for locale in LOCALES:
        path = folder / f"stats-bank.{locale}.moodle.xml"
        with path.open("wb") as stream:
            get("moodle").write(bank, ExportOptions.for_bank(bank, (locale,)), stream)
        files.append(f"{locale}={path}")
    setup = _json(
        subprocess.run(["php", str(SCRIPT), str(moodle), "setup", *files], capture_output=True, text=True, timeout=300),
        "setup",
    )
    learners = simulate(PER_LOCALE)
    position = {q.id: {c.id: j for j, c in enumerate(q.choices)} for q in bank.questions}
    runs = []
    for locale in LOCALES:  # the three quizzes' attempts side by side
        payload = [
            {
                "name": f"{setup['course']}-{lr.name}",
                "answers": {f"{q}-{lr.locale}": [position[q][c] for c in chosen] for q, chosen in lr.answers.items()},
            }
            for lr in learners
            if lr.locale == locale
        ]
        quiz = str(setup["quizzes"][locale]["quiz"])
        process = subprocess.Popen(
            ["php", str(SCRIPT), str(moodle), "attempts", quiz],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        runs.append((locale, process, json.dumps(payload)))
    for locale, process, payload in runs:
        stdout, stderr = process.communicate(payload, timeout=600)
        _json(subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr), f"attempts in {locale}")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    csvs = []
    for locale in LOCALES:
        quiz = str(setup["quizzes"][locale]["quiz"])
        done = subprocess.run(["php", str(SCRIPT), str(moodle), "report", quiz], capture_output=True, timeout=300)
        assert done.returncode == 0, done.stderr.decode()[-4000:]
        path = ARTIFACTS / f"stats-responses-{locale}.csv"
        path.write_bytes(done.stdout)
        csvs.append(path)
    quiz = str(setup["quizzes"]["ur"]["quiz"])  # and one JSON download (dataformat_json), beside the CSVs
    done = subprocess.run(["php", str(SCRIPT), str(moodle), "report", quiz, "json"], capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()[-4000:]
    (ARTIFACTS / "stats-responses-ur.json").write_bytes(done.stdout)
    return csvs, learners


def test_moodle_s_responses_report_gives_the_known_truth(downloads: tuple[list[Path], list[Any]]) -> None:
    csvs, learners = downloads
    header = csvs[0].read_bytes().decode("utf-8-sig").splitlines()[0]
    assert header.startswith('"Last name","First name","Email address",Status,Started,Completed,Duration,Grade/')
    assert '"Question 1","Response 1"' in header
    bank = stats_bank()
    attempts = merge(read_moodle(p.read_bytes(), p.name, bank, None) for p in csvs)
    assert len(attempts) == len(learners) == 3 * PER_LOCALE
    assert {loc: sum(a.locale == loc for a in attempts) for loc in LOCALES} == dict.fromkeys(LOCALES, PER_LOCALE)
    doc = document(analyse(bank, attempts))
    for q in doc["questions"]:
        assert q["facility"] == pytest.approx(observed_facility(learners, q["id"]), abs=1e-4), q["id"]
        assert abs(q["facility"] - expected_facility(q["id"])) < 0.05, q["id"]
    flags = [
        (q["id"], f["kind"], f.get("locale"), f.get("choice"), f.get("class"))
        for q in doc["questions"]
        for f in q["flags"]
    ]
    assert ("dif-item", "dif", "ur", None, "C") in flags
    assert ("dead-distractor", "non-functioning-distractor", None, "d", None) in flags
    assert [f for f in flags if f[4] == "C" and f[0] != "dif-item"] == []
    assert [q["id"] for q in doc["questions"]] == list(ITEMS)


def test_the_command_reads_the_three_downloads(downloads: tuple[list[Path], list[Any]], tmp_path: Path) -> None:
    csvs, _ = downloads
    save_bank(stats_bank(), tmp_path / "bank")
    done = CliRunner().invoke(main, ["stats", *map(str, csvs), "--bank", str(tmp_path / "bank"), "--json"])
    assert done.exit_code == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["attempts"] == 3 * PER_LOCALE and set(doc["locales"]) == set(LOCALES)


def test_a_download_of_another_bank_names_the_row(downloads: tuple[list[Path], list[Any]]) -> None:
    data = downloads[0][0].read_bytes().replace(b"which statement about WARM-UP", b"which claim about WARM-UP")
    with pytest.raises(ProblemsFound) as caught:
        read_moodle(data, "r.csv", stats_bank(), None)
    first = caught.value.problems[0]
    assert first.file == "r.csv" and first.line == 2
    assert first.message.startswith("question 1: 'Question 1: which claim about WARM-UP is right?")
    assert "is no question of bank stats-bank" in first.message


def test_moodle_s_json_download_reads_as_its_csv(downloads: tuple[list[Path], list[Any]]) -> None:
    bank = stats_bank()
    from_csv = read_moodle((ARTIFACTS / "stats-responses-ur.csv").read_bytes(), "ur.csv", bank, None)
    from_json = read_moodle((ARTIFACTS / "stats-responses-ur.json").read_bytes(), "ur.json", bank, None)
    assert [(a.learner, a.locale, a.responses) for a in from_json] == [
        (a.learner, a.locale, a.responses) for a in from_csv
    ]
