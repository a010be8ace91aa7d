"""`check_package` and `moe-lms validate`: what XSD checks, what it cannot (each planted error is caught),
and output that never passes a package whose XSD validation was not done."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from moe_lms import schemas
from moe_lms.cli import main
from moe_lms.formats import qti21

from .qti_support import export, members, rezip, rich_bank

Edit = Callable[[dict[str, bytes]], None]


@pytest.fixture(scope="module")
def validators(schemas_dir: Path) -> schemas.Schemas:
    return schemas.load(schemas_dir)


@pytest.fixture(scope="module")
def good() -> dict[str, bytes]:
    return members(export(rich_bank(), ["en", "ur"]))


def replace(name: str, old: bytes, new: bytes, count: int = 1) -> Edit:
    def edit(files: dict[str, bytes]) -> None:
        assert old in files[name], f"{old!r} not in {name}"
        files[name] = files[name].replace(old, new, count)

    return edit


ITEM = "items/multi-en.xml"
MATCH_CORRECT = b'<responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/match_correct"/>'
PLANTED: dict[str, tuple[Edit, str]] = {
    "duplicate outcome identifier": (
        replace(ITEM, b'identifier="MAXSCORE"', b'identifier="SCORE"'),
        "identifier 'SCORE' is declared twice",
    ),
    "duplicate choice identifier": (
        replace(ITEM, b'<simpleChoice identifier="combine">', b'<simpleChoice identifier="dispatch">'),
        "choice identifier 'dispatch' is used twice",
    ),
    "undeclared outcome in feedback": (
        replace(
            ITEM,
            b'outcomeIdentifier="FEEDBACK" showHide="show" identifier="reduce"',
            b'outcomeIdentifier="FEEDBAK" showHide="show" identifier="reduce"',
        ),
        "refers to outcome 'FEEDBAK', which is not declared",
    ),
    "undeclared outcome set": (
        replace(ITEM, b'<setOutcomeValue identifier="FEEDBACK">', b'<setOutcomeValue identifier="FEEDBACKS">'),
        "setOutcomeValue refers to outcome 'FEEDBACKS', which is not declared",
    ),
    "undeclared variable": (
        replace(ITEM, b'<variable identifier="MAXSCORE"/>', b'<variable identifier="MAXPOINTS"/>'),
        "variable refers to variable 'MAXPOINTS', which is not declared",
    ),
    "correctResponse names no choice": (
        replace(ITEM, b"<value>combine</value>", b"<value>gather</value>"),
        "correctResponse names 'gather', which is not a choice",
    ),
    "choice without feedback": (
        replace(ITEM, b'showHide="show" identifier="broadcast"', b'showHide="show" identifier="general_explanation"'),
        "choice 'broadcast' has no feedback bound to it",
    ),
    "feedback never set (match_correct)": (
        lambda files: files.update(
            {ITEM: re.sub(rb"<responseProcessing>.*</responseProcessing>", MATCH_CORRECT, files[ITEM], flags=re.S)}
        ),
        "outcome 'FEEDBACK', which responseProcessing never sets",
    ),
    "manifest lists a missing file": (
        lambda files: files.pop("items/tf-ur.xml"),
        "the manifest lists 'items/tf-ur.xml', which is not in the zip",
    ),
    "zip holds an unlisted file": (
        lambda files: files.update({"items/stray.xml": b"<x/>"}),
        "the zip holds this file but the manifest does not list it",
    ),
    "dependency on a missing resource": (
        replace("imsmanifest.xml", b'identifierref="ITEM-tf-en"', b'identifierref="ITEM-tf-fr"'),
        "depends on 'ITEM-tf-fr', which is not a resource",
    ),
    "duplicate item identifier": (
        replace("items/tf-ur.xml", b'identifier="tf-ur"', b'identifier="tf-en"'),
        "item identifier 'tf-en' is also used by",
    ),
    "test refers to a missing item": (
        replace("tests/rich-bank-en.xml", b"../items/tf-en.xml", b"../items/tf-xx.xml"),
        "does not name an item of the package",
    ),
    "no QTI 2 namespace for Canvas": (
        replace("imsmanifest.xml", b' xmlns:qti="http://www.imsglobal.org/xsd/imsqti_v2p1"', b""),
        "Canvas will not read it as QTI 2",
    ),
}


def test_the_untouched_package_passes(good: dict[str, bytes], validators: schemas.Schemas) -> None:
    assert qti21.check_package(rezip(good), validators) == []


@pytest.mark.parametrize("kind", list(PLANTED))
def test_a_planted_error_of_each_kind_is_caught(kind: str, good: dict[str, bytes], validators: schemas.Schemas) -> None:
    edit, expected = PLANTED[kind]
    files = dict(good)
    edit(files)
    messages = [str(p) for p in qti21.check_package(rezip(files), validators, name="p.zip")]
    assert any(expected in m for m in messages), messages


def test_problems_name_the_file_line_and_item(good: dict[str, bytes], validators: schemas.Schemas) -> None:
    files = dict(good)
    PLANTED["correctResponse names no choice"][0](files)
    (problem,) = qti21.check_package(rezip(files), validators, name="p.zip")
    assert problem.file == "p.zip!/items/multi-en.xml"
    assert problem.where == "item 'multi-en'"
    assert problem.line is not None and problem.line > 1


def test_xsd_rejects_a_dir_attribute_which_qti_2_1_does_not_have(
    good: dict[str, bytes], validators: schemas.Schemas
) -> None:
    files = dict(good)
    replace("items/tf-ur.xml", b'<itemBody class="moe-lms moe-rtl"', b'<itemBody dir="rtl" class="moe-lms moe-rtl"')(
        files
    )
    problems = qti21.check_package(rezip(files), validators)
    assert problems and all(p.message.startswith("XSD: ") for p in problems)
    assert "dir" in problems[0].message
    assert qti21.check_package(rezip(files), None) == []  # the semantic checks alone cannot see it


def test_a_file_that_is_not_a_zip_is_one_clear_problem() -> None:
    (problem,) = qti21.check_package(b"not a zip at all", None, name="x.zip")
    assert "not a zip" in problem.message


# --- the command ---------------------------------------------------------------------------------------------


def test_validate_passes_a_good_package_and_says_xsd_validation_was_done(tmp_path: Path, schemas_dir: Path) -> None:
    package = tmp_path / "ur.zip"
    package.write_bytes(export(rich_bank(), ["ur"]))
    result = CliRunner().invoke(main, ["validate", str(package), "--schemas", str(schemas_dir)])
    assert result.exit_code == 0, result.output
    assert f"XSD validation: done, against {schemas_dir.resolve()}" in result.output
    assert "ok (QTI 2.1 package: XSD and semantic checks)" in result.output


def test_validate_finds_the_schemas_through_the_environment(
    tmp_path: Path, schemas_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "en.zip"
    package.write_bytes(export(rich_bank(), ["en"]))
    monkeypatch.setenv(schemas.ENV_VAR, str(schemas_dir))
    result = CliRunner().invoke(main, ["validate", str(package)])
    assert result.exit_code == 0, result.output
    assert "XSD validation: done" in result.output


def test_validate_reports_xsd_validation_as_not_done_never_as_passed_when_no_schemas_are_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "en.zip"
    package.write_bytes(export(rich_bank(), ["en"]))
    monkeypatch.delenv(schemas.ENV_VAR, raising=False)
    monkeypatch.setattr(schemas, "FALLBACKS", ())
    monkeypatch.setattr(schemas, "cache_dir", lambda: tmp_path / "empty-cache")
    result = CliRunner().invoke(main, ["validate", str(package)])
    assert result.exit_code == 0, result.output
    assert "XSD validation: NOT DONE" in result.output
    assert "ok (QTI 2.1 package: semantic checks only)" in result.output
    assert "XSD and semantic" not in result.output


def test_a_schema_folder_is_found_in_shared_beside_the_current_folder(
    tmp_path: Path, schemas_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "schemas").symlink_to(schemas_dir.resolve())
    (tmp_path / "checkout").mkdir()
    monkeypatch.chdir(tmp_path / "checkout")
    monkeypatch.delenv(schemas.ENV_VAR, raising=False)
    assert schemas.locate() == Path("..") / "shared" / "schemas"


def test_an_explicit_schema_folder_wins_over_the_environment(
    tmp_path: Path, schemas_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(schemas.ENV_VAR, str(tmp_path))
    assert schemas.locate(schemas_dir) == schemas_dir
    with pytest.raises(schemas.SchemaError, match=schemas.ENV_VAR):
        schemas.locate()


def test_validate_refuses_a_schema_folder_that_lacks_the_xsds(tmp_path: Path) -> None:
    package = tmp_path / "en.zip"
    package.write_bytes(export(rich_bank(), ["en"]))
    result = CliRunner().invoke(main, ["validate", str(package), "--schemas", str(tmp_path)])
    assert result.exit_code == 2
    assert "lacks qti21/imsqti_v2p1.xsd" in result.output


def test_validate_exits_1_and_lists_every_problem(tmp_path: Path, good: dict[str, bytes], schemas_dir: Path) -> None:
    files = dict(good)
    PLANTED["correctResponse names no choice"][0](files)
    PLANTED["zip holds an unlisted file"][0](files)
    package = tmp_path / "bad.zip"
    package.write_bytes(rezip(files))
    result = CliRunner().invoke(main, ["validate", str(package), "--schemas", str(schemas_dir)])
    assert result.exit_code == 1
    assert "correctResponse names 'gather'" in result.output
    assert "bad.zip!/items/stray.xml" in result.output
    assert "2 error(s)." in result.output


def test_validate_checks_that_moodle_xml_is_well_formed(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.xml", tmp_path / "bad.xml"
    good.write_bytes(b'<?xml version="1.0"?><quiz><question type="category"/></quiz>')
    bad.write_bytes(b"<quiz><question></quiz>")
    ok = CliRunner().invoke(main, ["validate", str(good)])
    assert "XSD validation: not applicable" in ok.output
    failed = CliRunner().invoke(main, ["validate", str(bad)])
    assert failed.exit_code == 1
    assert "not well-formed" in failed.output


def test_validate_runs_the_moodle_structural_checks_when_the_moodle_format_is_there(tmp_path: Path) -> None:
    if importlib.util.find_spec("moe_lms.formats.moodle") is None:
        pytest.skip("the Moodle format has not landed in this checkout")
    one_answer = tmp_path / "one.xml"
    one_answer.write_bytes(
        b'<?xml version="1.0"?><quiz><question type="multichoice"><name><text>x</text></name>'
        b'<questiontext format="html"><text>q</text></questiontext>'
        b'<answer fraction="100"><text>a</text></answer></question></quiz>'
    )
    result = CliRunner().invoke(main, ["validate", str(one_answer)])
    assert result.exit_code == 1
    assert "1 error(s)." in result.output


@pytest.mark.parametrize(
    ("name", "data", "looks_like"),
    [
        ("quiz.en.gift.txt", b"::q1:: What? {=yes ~no}\n", "GIFT or plain text"),
        ("quiz.en.canvas.json", b'{"quiz": {}}', "JSON"),
        ("quiz.en.html", b"<!DOCTYPE html><html><body></body></html>", "an HTML page"),
    ],
)
def test_validate_on_a_file_it_does_not_check_says_which_files_it_checks(
    tmp_path: Path, name: str, data: bytes, looks_like: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 2
    assert f"looks like {looks_like}" in result.output
    said = " ".join(result.output.split())
    assert "validate checks Moodle XML, QTI 1.2 package, QTI 2.1 package, QTI 3.0 package, Open edX course" in said
    assert "well-formed" not in result.output
