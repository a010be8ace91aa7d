"""A quiz as a QTI 3 qti-assessment-test: one qti-assessment-section per section with its qti-selection, qti-ordering,
time limit and attempts; valid against the QTI 3 schemas, and read back into quizzes:."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from moe_lms import schemas
from moe_lms.formats import ExportOptions, get
from moe_lms.formats.qti3 import read
from moe_lms.formats.qti3.validate import check_package
from moe_lms.model import resolve_quiz

from .quiz_bank import FIXED, PER_POOL, quiz_bank

TEST = "tests/pools-midterm-en.xml"
QTI = "{http://www.imsglobal.org/xsd/imsqtiasi_v3p0}"


def package() -> bytes:
    bank = quiz_bank()
    return get("qti3").dump(bank, ExportOptions.for_bank(bank, ("en",), quiz="midterm"))


def members() -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(package())) as z:
        return {name: z.read(name) for name in z.namelist()}


@pytest.fixture(scope="module")
def qti3_schemas(schemas_dir: Path) -> schemas.Schemas:
    loaded = schemas.load(schemas_dir)
    if not loaded.has_qti3:
        pytest.skip(f"{schemas_dir} has no qti3/ schemas")
    return loaded


def test_the_quiz_test_items_and_manifest_validate_against_the_qti3_schemas(qti3_schemas: schemas.Schemas) -> None:
    files = members()
    asi = qti3_schemas.qti3()
    for name in [TEST, *(n for n in files if n.startswith("items/"))]:
        assert asi.validate(etree.fromstring(files[name])), (name, asi.error_log)
    manifest = qti3_schemas.qti3_manifest()
    assert manifest.validate(etree.fromstring(files["imsmanifest.xml"])), manifest.error_log
    assert check_package(package(), qti3_schemas) == []


def test_the_quiz_is_a_test_of_its_sections_with_their_draws_time_limit_and_attempts() -> None:
    test = etree.fromstring(members()[TEST])
    assert test.find(f"{QTI}qti-time-limits").get("max-time") == "1200"
    part = test.find(f"{QTI}qti-test-part")
    # one answer per question: the quiz's two attempts are attempts at the test, which QTI leaves to the delivery
    assert part.find(f"{QTI}qti-item-session-control").get("max-attempts") == "1"
    sections = [
        (
            s.get("identifier"),
            s.get("title"),
            s.findtext(f"{QTI}qti-selection") is not None and s.find(f"{QTI}qti-selection").get("select"),
            s.find(f"{QTI}qti-ordering").get("shuffle"),
            len(s.findall(f"{QTI}qti-assessment-item-ref")),
        )
        for s in part.iterfind(f"{QTI}qti-assessment-section")
    ]
    assert sections == [
        ("routing", "Routing", "2", "true", PER_POOL),
        ("memory", "Memory", "3", "true", PER_POOL),
        ("fixed", "Always asked", False, "true", len(FIXED)),
    ]


def test_the_package_holds_the_quizs_items_alone_worth_the_sections_points() -> None:
    files = members()
    assert len([n for n in files if n.startswith("items/")]) == 2 * PER_POOL + len(FIXED)
    assert (
        b'upper-bound="2"' in files["items/memory-01-en.xml"]
        or b"<qti-value>2</qti-value>" in files["items/memory-01-en.xml"]
    )


def test_the_package_reads_back_into_the_quiz_with_its_sections_draws_and_settings() -> None:
    bank, problems = read.read_package(package())
    assert [p for p in problems if p.severity.name == "ERROR"] == []
    (quiz,) = bank.quizzes
    assert (quiz.id, quiz.title, quiz.time_limit_minutes, quiz.attempts, quiz.shuffle_questions) == (
        "midterm",
        "Midterm: expert parallelism",
        20,
        None,  # (QTI has no place for attempts at a whole test)
        True,
    )
    assert [(s.id, s.title, s.draw, len(s.questions or ())) for s in quiz.sections] == [
        ("routing", "Routing", 2, PER_POOL),
        ("memory", "Memory", 3, PER_POOL),
        ("fixed", "Always asked", None, len(FIXED)),
    ]
    assert bank.intro is None  # the quiz's intro is not taken for the bank's


def test_a_quiz_goes_round_the_trip_export_import_export_to_the_same_sections_items_and_test() -> None:
    original = quiz_bank()
    back, _ = read.read_package(package())
    assert [(d.id, d.draw, [q.id for q in d.questions]) for d in resolve_quiz(back, back.quiz("midterm"))] == [
        (d.id, d.draw, [q.id for q in d.questions]) for d in resolve_quiz(original, original.quiz("midterm"))
    ]
    again = get("qti3").dump(back, ExportOptions.for_bank(back, ("en",), quiz="midterm"))
    with zipfile.ZipFile(io.BytesIO(again)) as z:
        items = {n: z.read(n) for n in z.namelist() if n.startswith("items/")}
        test = z.read(TEST)
    assert items == {n: data for n, data in members().items() if n.startswith("items/")}
    # the same test but for the quiz's intro, which the reader does not take back (nor does QTI 2.1's)
    written = etree.fromstring(members()[TEST])
    for rubric in list(written.iter(f"{QTI}qti-rubric-block")):
        rubric.getparent().remove(rubric)
    assert test == etree.tostring(written, xml_declaration=True, encoding="UTF-8") + b"\n"


def test_the_whole_banks_package_is_what_it_was() -> None:
    bank, without = quiz_bank(), quiz_bank([])
    options = ExportOptions.for_bank(bank, ("en",))
    assert get("qti3").dump(bank, options) == get("qti3").dump(without, options)
