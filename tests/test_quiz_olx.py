"""A quiz as an Open edX course: one timed subsection of a unit per section; a section that draws (or any, when the
quiz shuffles) a problem bank (itembank, edx-platform xmodule/item_bank_block.py) of its problems inline in the
course, showing max_count of them; each problem at its quiz points, answered once."""

from __future__ import annotations

import io
import json
import tarfile
from typing import Any

from lxml import etree

from moe_lms.formats import ExportOptions, get
from moe_lms.formats.olx import read
from moe_lms.formats.olx.validate import check_course

from .capa_block import Submit
from .quiz_bank import FIXED, MIDTERM, PER_POOL, quiz_bank


def course(quiz: dict[str, object] = MIDTERM) -> dict[str, etree._Element]:
    bank = quiz_bank([quiz])
    data = get("olx").dump(bank, ExportOptions.for_bank(bank, ("en",), quiz=str(quiz["id"])))
    assert check_course(data) == []
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        return {
            m.name.removeprefix("course/"): etree.fromstring(archive.extractfile(m).read())  # type: ignore[union-attr]
            for m in archive.getmembers()
            if m.isfile() and m.name.endswith(".xml")
        }


def policies(quiz: dict[str, object] = MIDTERM) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The course's run (course.xml's url_name) and the two policies Studio reads for it, found as Studio finds
    them (edx-platform xmodule/modulestore/xml.py load_course: policies/<url_name>/policy.json;
    xmodule/course_block.py CourseBlock.parse_xml: policies/<url_name>/grading_policy.json)."""
    bank = quiz_bank([quiz])
    data = get("olx").dump(bank, ExportOptions.for_bank(bank, ("en",), quiz=str(quiz["id"])))
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        run = etree.fromstring(archive.extractfile("course/course.xml").read()).get("url_name")  # type: ignore[union-attr]
        folder = f"course/policies/{run}"
        policy = json.loads(archive.extractfile(f"{folder}/policy.json").read())  # type: ignore[union-attr]
        grading = json.loads(archive.extractfile(f"{folder}/grading_policy.json").read())  # type: ignore[union-attr]
    return run, policy, grading


def test_the_quiz_counts_a_graded_subsection_of_the_one_grader_as_studio_reads_the_policies() -> None:
    run, policy, grading = policies()
    # policy.json maps "<category>/<url_name>" to fields (xml.py get_policy: policy.get(policy_key(usage_id)))
    assert policy["sequential/pools-midterm-quiz"] == {"graded": True, "format": "Quiz"}
    assert policy[f"course/{run}"] == {"enable_timed_exams": True}  # the quiz is timed: 20 minutes
    files = course()
    blocks = {name.removesuffix(".xml") for name in files}  # "<category>/<url_name>", as the archive holds them
    assert {key for key in policy if not key.startswith("course/")} <= blocks
    (grader,) = grading["GRADER"]
    assert grader == {"type": "Quiz", "short_label": "Quiz", "min_count": 1, "drop_count": 0, "weight": 1.0}
    assert grading["GRADE_CUTOFFS"] == {"Pass": 0.5}
    sequential = files["sequential/pools-midterm-quiz.xml"]
    assert (sequential.get("graded"), sequential.get("format")) == ("true", grader["type"])


def test_an_untimed_quiz_leaves_timed_exams_as_the_platform_has_them() -> None:
    run, policy, _ = policies({**MIDTERM, "time_limit_minutes": None})
    assert policy[f"course/{run}"] == {}


def test_the_quiz_is_a_timed_subsection_of_a_unit_per_section() -> None:
    files = course()
    sequential = files["sequential/pools-midterm-quiz.xml"]
    assert (sequential.get("is_time_limited"), sequential.get("default_time_limit_minutes")) == ("true", "20")
    units = [files[f"vertical/{v.get('url_name')}.xml"] for v in sequential.iterfind("vertical")]
    assert [u.get("display_name") for u in units] == ["Routing", "Memory", "Always asked"]
    assert [c.tag for c in units[0]] == ["html", "itembank"]  # the quiz's intro opens the first unit


def test_a_drawing_section_is_a_problem_bank_of_its_pool_showing_its_draw() -> None:
    files = course()
    banks = {name: element for name, element in files.items() if name.startswith("itembank/")}
    assert {n: (b.get("max_count"), len(b.findall("problem"))) for n, b in banks.items()} == {
        "itembank/midterm-routing.xml": ("2", PER_POOL),
        "itembank/midterm-memory.xml": ("3", PER_POOL),
        "itembank/midterm-fixed.xml": ("-1", len(FIXED)),  # the quiz shuffles: all, in an order of each learner's
    }


def test_each_problem_is_worth_its_quiz_points_and_answered_once() -> None:
    files = course()
    problems = {n: p for n, p in files.items() if n.startswith("problem/")}
    assert len(problems) == 2 * PER_POOL + len(FIXED)
    assert (files["problem/memory-01.xml"].get("weight"), files["problem/routing-01.xml"].get("weight")) == ("2", "1")
    assert {p.get("max_attempts") for p in problems.values()} == {"1"}


def test_open_edx_closes_a_quiz_problem_after_one_submission(submit: Submit) -> None:
    """attempts: 2 is two attempts at the quiz, not two submissions of each problem: after a wrong answer (whose
    hint says what is right) Open edX's ProblemBlock refuses a second submission, so it cannot be scored right."""
    data = get("olx").dump(quiz_bank(), ExportOptions.for_bank(quiz_bank(), ("en",), quiz="midterm"))
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        problem = archive.extractfile("course/problem/routing-01.xml").read()  # type: ignore[union-attr]
    assert submit(problem, ["b", "a"]) == ["incorrect", "closed: Problem is closed."]


def test_a_section_that_neither_draws_nor_shuffles_is_its_problems_in_the_unit() -> None:
    quiz = {**MIDTERM, "shuffle_questions": False, "time_limit_minutes": None, "attempts": None}
    files = course(quiz)
    fixed = files["vertical/midterm-fixed-unit.xml"]
    assert [(c.tag, c.get("url_name")) for c in fixed] == [("problem", q) for q in FIXED]
    assert "is_time_limited" not in files["sequential/pools-midterm-quiz.xml"].attrib
    assert files["problem/network-01.xml"].get("max_attempts") == "1"  # (the quiz's attempts are no problem's)


def test_import_olx_reads_the_quiz_back_with_its_sections_draws_and_settings() -> None:
    bank = quiz_bank()
    data = get("olx").dump(bank, ExportOptions.for_bank(bank, ("en",), quiz="midterm"))
    back, problems = read.read_package(data)
    assert [p for p in problems if p.severity.name == "ERROR"] == []
    assert len(back.questions) == 2 * PER_POOL + len(FIXED)
    (quiz,) = back.quizzes
    assert (quiz.id, quiz.title, quiz.intro, quiz.time_limit_minutes, quiz.attempts, quiz.shuffle_questions) == (
        "midterm",
        "Midterm: expert parallelism",
        "Twenty minutes, two attempts.",
        20,
        None,  # (Open edX has no attempts at a subsection: max_attempts is each problem's submissions)
        True,
    )
    assert [(s.id, s.title, s.draw, len(s.questions or ())) for s in quiz.sections] == [
        ("routing", "Routing", 2, PER_POOL),
        ("memory", "Memory", 3, PER_POOL),
        ("fixed", "Always asked", None, len(FIXED)),
    ]
    assert back.intro is None  # the quiz's intro, not the bank's
