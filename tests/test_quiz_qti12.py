"""A quiz in Canvas's QTI 1.2 package: question groups as Canvas writes and reads them, and back into quizzes:.

Common Cartridge 1.1 refuses a quiz: its QTI profile allows one section of items and no selection.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from click.testing import CliRunner
from lxml import etree

from moe_lms import schemas
from moe_lms.cli import main
from moe_lms.formats import ExportOptions, get
from moe_lms.formats.canvas_qti.read import read_package
from moe_lms.formats.cc11.validate import check_package

from .quiz_bank import FIXED, quiz_bank, write_quiz_bank

QTI = "{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}"
CANVAS = "{http://canvas.instructure.com/xsd/cccv1p0}"


def package() -> bytes:
    bank = quiz_bank()
    return get("canvas-qti").dump(bank, ExportOptions.for_bank(bank, ("en",), quiz="midterm"))


def test_each_drawing_section_is_a_canvas_question_group_with_its_draw_and_points() -> None:
    files = zipfile.ZipFile(io.BytesIO(package()))
    root = etree.fromstring(files.read("pools-midterm-en/pools-midterm-en.xml"))
    (assessment,) = root.iter(f"{QTI}assessment")
    (top,) = assessment.findall(f"{QTI}section")
    groups = top.findall(f"{QTI}section")
    found = [
        (
            g.get("title"),
            g.findtext(f"{QTI}selection_ordering/{QTI}selection/{QTI}selection_number"),
            g.findtext(f"{QTI}selection_ordering/{QTI}selection/{QTI}selection_extension/{QTI}points_per_item"),
            len(g.findall(f"{QTI}item")),
        )
        for g in groups
    ]
    # The fixed two are a group drawing both: a shuffled quiz's questions are shuffled in Canvas only in a group.
    assert found == [("Routing", "2", "1", 20), ("Memory", "3", "2", 20), ("Always asked", "2", "1", 2)]
    fields = {
        f.findtext(f"{QTI}fieldlabel"): f.findtext(f"{QTI}fieldentry")
        for f in assessment.iterfind(f"{QTI}qtimetadata/{QTI}qtimetadatafield")
    }
    assert fields == {"qmd_timelimit": "20", "cc_maxattempts": "2"}
    meta = etree.fromstring(files.read("pools-midterm-en/assessment_meta.xml"))
    assert [meta.findtext(f"{CANVAS}{tag}") for tag in ("time_limit", "allowed_attempts", "points_possible")] == [
        "20",
        "2",
        "10",
    ]


def test_the_quiz_package_passes_validate_with_its_items_against_the_cc_qti_profile(schemas_dir: Path) -> None:
    assert check_package(package(), schemas.load(schemas_dir)) == []


def test_validate_names_a_group_that_draws_more_than_it_holds() -> None:
    files = zipfile.ZipFile(io.BytesIO(package()))
    path = "pools-midterm-en/pools-midterm-en.xml"
    text = files.read(path).replace(
        b"<selection_number>3</selection_number>", b"<selection_number>30</selection_number>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as rewritten:
        for name in files.namelist():
            rewritten.writestr(name, text if name == path else files.read(name))
    (problem,) = check_package(out.getvalue(), None)
    assert "question group 'pools-midterm-en-memory' draws '30' of its 20 item(s)" in str(problem)


def test_the_package_reads_back_into_the_quiz_with_its_sections_draws_and_settings() -> None:
    bank, problems = read_package(package())
    assert problems == []
    (quiz,) = bank.quizzes
    assert (bank.id, quiz.id, quiz.time_limit_minutes, quiz.attempts, quiz.shuffle_questions) == (
        "pools",
        "midterm",
        20,
        2,
        True,
    )
    assert [(s.id, s.draw, s.points, len(s.questions or ())) for s in quiz.sections] == [
        ("routing", 2, 1, 20),
        ("memory", 3, 2, 20),
        ("fixed", None, 1, 2),
    ]
    assert quiz.sections[2].questions == FIXED


def test_a_cartridge_of_a_quiz_is_refused_with_the_profiles_reason(tmp_path: Path) -> None:
    bank_dir = write_quiz_bank(tmp_path / "pools")
    result = CliRunner().invoke(main, ["export", "--format", "cc11", "--quiz", "midterm", str(bank_dir)])
    assert result.exit_code == 2
    assert "one section of items, without sections or selection" in result.output
