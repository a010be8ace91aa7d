"""A quiz as a QTI 2.1 assessmentTest: one assessmentSection per section with its selection, ordering, time limit and
attempts; valid against the XSDs, read as a delivery engine reads it, and read back into quizzes:."""

from __future__ import annotations

import io
import random
import zipfile
from pathlib import Path

from moe_lms import schemas
from moe_lms.formats import ExportOptions, get, qti21

from .qti21_delivery import read_test
from .qti21_engine import Tries
from .quiz_bank import FIXED, PER_ATTEMPT, PER_POOL, quiz_bank

TEST = "tests/pools-midterm-en.xml"


def package() -> bytes:
    bank = quiz_bank()
    return get("qti21").dump(bank, ExportOptions.for_bank(bank, ("en",), quiz="midterm"))


def test_the_quiz_is_an_assessment_test_of_its_sections_as_a_delivery_engine_reads_it() -> None:
    test = read_test(package(), TEST)
    assert (test.identifier, test.title, test.max_time, test.max_attempts) == (
        "pools-midterm-en",
        "Midterm: expert parallelism",
        1200.0,
        1,  # one answer per question: the quiz's two attempts are no item's (the export's warnings say so)
    )
    assert [(s.identifier, s.title, s.select, s.shuffle, len(s.items)) for s in test.sections] == [
        ("routing", "Routing", 2, True, PER_POOL),
        ("memory", "Memory", 3, True, PER_POOL),
        ("fixed", "Always asked", None, True, len(FIXED)),
    ]
    assert test.sections[2].items == tuple(f"{q}-en" for q in FIXED)
    attempts = [test.attempt(random.Random(seed)) for seed in range(20)]
    assert all(len(a) == PER_ATTEMPT for a in attempts)
    assert len({tuple(sorted(a)) for a in attempts}) > 1  # attempts differ


def test_the_package_holds_the_quizs_items_alone_worth_the_sections_points() -> None:
    names = zipfile.ZipFile(io.BytesIO(package())).namelist()
    items = [n for n in names if n.startswith("items/")]
    assert len(items) == 2 * PER_POOL + len(FIXED)
    item = zipfile.ZipFile(io.BytesIO(package())).read("items/memory-01-en.xml")
    assert b"<value>2</value>" in item or b'normalMaximum="2"' in item


def test_the_quiz_package_validates_against_the_qti_2_1_and_ims_cp_schemas(schemas_dir: Path) -> None:
    assert qti21.check_package(package(), schemas.load(schemas_dir)) == []


def test_the_package_reads_back_into_the_quiz_with_its_draws_and_settings() -> None:
    bank, problems = qti21.read_package(package())
    assert [p for p in problems if p.severity.name == "ERROR"] == []
    (quiz,) = bank.quizzes
    # (QTI has no place for attempts at a whole test: maxAttempts is each item's tries, and reads as no attempts)
    assert (quiz.id, quiz.time_limit_minutes, quiz.attempts, quiz.shuffle_questions) == ("midterm", 20, None, True)
    assert [(s.id, s.draw, len(s.questions or ())) for s in quiz.sections] == [
        ("routing", 2, PER_POOL),
        ("memory", 3, PER_POOL),
        ("fixed", None, len(FIXED)),
    ]


def test_the_whole_banks_package_is_what_it_was() -> None:
    bank, without = quiz_bank(), quiz_bank([])
    options = ExportOptions.for_bank(bank, ("en",))
    assert get("qti21").dump(bank, options) == get("qti21").dump(without, options)


def test_a_quiz_attempt_answers_each_question_once_in_qti_sdk(qti_sdk: Tries) -> None:
    """attempts: 2 is two attempts at the quiz, not two tries at each question: in TAO's engine a second try at an
    item of the test (after its feedback said what is right) is refused, and the first try's score stands."""
    files = zipfile.ZipFile(io.BytesIO(package()))
    wrong_then_right = qti_sdk(files.read(TEST), files.read("items/routing-01-en.xml"), "routing-01-en", [["b"], ["a"]])
    assert wrong_then_right[0] == {"score": 0}
    assert "maximum number of attempts (1)" in wrong_then_right[1]["refused"]
