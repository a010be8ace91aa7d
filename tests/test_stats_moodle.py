"""The Moodle Responses report reader on a download the real Moodle 4.5.6 made (tests/stats_data/, the first five
Urdu attempts of tests/test_stats_moodle_real.py's run: simulate(120)'s ur-0000 to ur-0004), so it is checked
where no Moodle runs; and what it refuses, with the row."""

from __future__ import annotations

from pathlib import Path

import pytest

from moe_lms.problems import ProblemsFound
from moe_lms.stats.moodle import read_moodle
from moe_lms.stats.plain import read_plain

from .stats_support import simulate, stats_bank

DOWNLOAD = Path(__file__).parent / "stats_data" / "moodle-4.5.6-responses-ur.csv"
# The JSON download of the same run's Urdu quiz (dataformat_json), cut to its first five records.
JSON_DOWNLOAD = DOWNLOAD.with_suffix(".json")


def test_a_real_download_maps_every_response_to_the_bank_s_ids_and_the_locale() -> None:
    attempts = read_moodle(DOWNLOAD.read_bytes(), DOWNLOAD.name, stats_bank(), None)
    learners = {lr.name: lr for lr in simulate(120) if lr.locale == "ur"}
    assert len(attempts) == 5
    for a in attempts:
        assert a.locale == "ur" and a.learner.endswith("@example.invalid")
        simulated = learners[a.learner.split("@")[0].split("-", 1)[1]]
        assert {q: r.choices for q, r in a.responses.items()} == {q: frozenset(c) for q, c in simulated.answers.items()}


def test_unfinished_attempts_are_left_out() -> None:
    data = DOWNLOAD.read_bytes().replace(b",Finished,", b",In progress,", 2)
    assert len(read_moodle(data, "r.csv", stats_bank(), None)) == 3


def test_a_download_without_the_question_text_says_which_option_to_tick() -> None:
    header = '"Last name","First name","Email address",Status,Started,Completed,Duration,Grade/10.00,"Response 1"\n'
    with pytest.raises(ProblemsFound, match="tick 'Question text'"):
        read_moodle(header.encode(), "r.csv", stats_bank(), None)


def test_an_answer_that_is_no_choice_names_the_row_and_slot() -> None:
    data = DOWNLOAD.read_bytes().replace('جواب D1 — warm-up"'.encode(), 'جواب E1 — warm-up"'.encode(), 1)
    with pytest.raises(ProblemsFound) as caught:
        read_moodle(data, "r.csv", stats_bank(), None)
    (problem,) = caught.value.problems
    assert (problem.file, problem.line) == ("r.csv", 2)
    assert problem.message.startswith("response 1: answer 'جواب E1 — warm-up' is none of question 'warm-up'")


def test_the_plain_csv_refuses_two_answers_to_a_one_answer_question() -> None:
    with pytest.raises(ProblemsFound, match="picks 2 choices of a one-answer question"):
        read_plain(b"learner,attempt,locale,question,answer\nl,1,en,warm-up,a|b\n", "r.csv", stats_bank())


def test_the_command_knows_a_moodle_download_when_it_sees_one(tmp_path: Path) -> None:
    import json

    from click.testing import CliRunner

    from moe_lms.cli import main
    from moe_lms.loader import save_bank

    save_bank(stats_bank(), tmp_path / "bank")
    done = CliRunner().invoke(main, ["stats", str(DOWNLOAD), "--bank", str(tmp_path / "bank"), "--json"])
    assert done.exit_code == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["attempts"] == 5 and set(doc["locales"]) == {"ur"}
    assert all(q["status"] == "too few" for q in doc["questions"])


def test_the_json_download_reads_as_the_csv_does() -> None:
    attempts = read_moodle(JSON_DOWNLOAD.read_bytes(), JSON_DOWNLOAD.name, stats_bank(), None)
    learners = {lr.name: lr for lr in simulate(120) if lr.locale == "ur"}
    assert len(attempts) == 5
    for a in attempts:
        simulated = learners[a.learner.split("@")[0].split("-", 1)[1]]
        assert a.locale == "ur"
        assert {q: r.choices for q, r in a.responses.items()} == {q: frozenset(c) for q, c in simulated.answers.items()}
    data = JSON_DOWNLOAD.read_bytes().replace('جواب D1 — warm-up"'.encode(), 'جواب E1 — warm-up"'.encode(), 1)
    with pytest.raises(ProblemsFound) as caught:
        read_moodle(data, "r.json", stats_bank(), None)
    (problem,) = caught.value.problems
    assert (problem.line, problem.where) == (None, "record 1")
