"""IMS Common Cartridge 1.1: the export validates against the official CC 1.1 schemas, scores and shows feedback as a
QTI 1.2.1 engine would, marks language and direction, reads back into the same bank, and `validate` checks it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import etree

from moe_lms import schemas, shelf
from moe_lms.cli import main
from moe_lms.formats.cc11 import read
from moe_lms.formats.cc11.validate import check_package
from moe_lms.locales import resolve
from moe_lms.model import Bank, Kind, Question, strings
from moe_lms.problems import Severity
from moe_lms.richtext import direction_style
from moe_lms.text import plain_text, render_block, render_inline

from .conftest import SHIPPED_BANK_DIR
from .qti12_support import NS, export, items, members, rezip, run, xsd
from .qti_support import rich_bank
from .sample_bank import sample_bank

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def seen(q: Question) -> dict[str, object]:
    """A question as learners and graders get it: every text rendered (the Markdown spelling may differ)."""
    return {
        "id": q.id,
        "kind": q.kind,
        "points": q.points,
        "shuffle": q.shuffle,
        "tags": q.tags,
        "stem": render_block(q.stem),
        "explanation": render_block(q.explanation),
        "choices": [(c.id, c.correct, render_inline(c.text), render_block(c.explanation)) for c in q.choices],
    }


def same_bank(a: Bank, b: Bank) -> None:
    """Same questions (key, every explanation, kind, points, shuffle, tags) and the same text in every locale
    (titles as the plain text they are in QTI and LOM)."""
    assert (b.id, plain_text(b.title), b.intro, b.source_locale, b.target_locales) == (
        a.id,
        plain_text(a.title),
        a.intro,
        a.source_locale,
        a.target_locales,
    )
    assert [seen(q) for q in b.questions] == [seen(q) for q in a.questions]
    imported = dict(strings(b))
    for locale in a.target_locales:
        before, after = resolve(a, locale), resolve(b, locale)
        assert plain_text(after.title.text) == plain_text(before.title.text)
        for path, source in strings(a):
            if path != "title" and not path.startswith(("feedback/", "quizzes/")):  # (quizzes: their own files)
                got, want = after.text(path, imported[path]), before.text(path, source)
                assert (render_block(got.text), got.lang) == (render_block(want.text), want.lang), (locale, path)


# --- the export against the official schemas -------------------------------------------------------------------


def test_the_shipped_bank_validates_against_the_cc11_schemas(shipped_bank: Bank, schemas_dir: Path) -> None:
    package = members(export("cc11", shipped_bank))
    manifest_xsd = xsd(schemas_dir, "cc11libxml2validator.xsd")
    qti_xsd = xsd(schemas_dir, "ccv1p1_qtiasiv1p2p1_v1p0.xsd")
    assert manifest_xsd.validate(etree.fromstring(package["imsmanifest.xml"])), manifest_xsd.error_log
    quizzes = [name for name in package if name.endswith(".xml") and name != "imsmanifest.xml"]
    quizzes_per_locale = [f"quiz-{loc}/assessment.xml" for loc in ("en", "ur", "vi")]
    assert sorted(quizzes) == ["question_bank/questions.xml", *quizzes_per_locale]
    for name in quizzes:
        assert qti_xsd.validate(etree.fromstring(package[name])), (name, qti_xsd.error_log)


def test_validate_passes_the_shipped_cartridge_with_xsd(shipped_bank: Bank, schemas_dir: Path) -> None:
    assert check_package(export("cc11", shipped_bank), schemas.load(schemas_dir)) == []


def test_the_cartridge_holds_one_question_bank_and_a_quiz_per_locale_in_the_organization() -> None:
    manifest = etree.fromstring(members(export("cc11", sample_bank()))["imsmanifest.xml"])
    kinds = [r.get("type") for r in manifest.iter("{*}resource")]
    assert kinds.count("imsqti_xmlv1p2/imscc_xmlv1p1/question-bank") == 1
    assert kinds.count("imsqti_xmlv1p2/imscc_xmlv1p1/assessment") == 3
    linked = [i.get("identifierref") for i in manifest.iter("{*}item") if i.get("identifierref")]
    assert linked == ["QUIZ-en", "QUIZ-ur", "QUIZ-vi"]


def test_items_carry_the_cc_profile_and_points_of_their_kind() -> None:
    found = items(members(export("cc11", rich_bank()))["quiz-en/assessment.xml"])
    profiles = {
        ident: {
            f.findtext("q:fieldlabel", namespaces=NS): f.findtext("q:fieldentry", namespaces=NS)
            for f in item.iterfind("q:itemmetadata/q:qtimetadata/q:qtimetadatafield", NS)
        }
        for ident, item in found.items()
    }
    assert profiles["single-md-en"]["cc_profile"] == "cc.multiple_choice.v0p1"
    assert profiles["single-md-en"]["cc_weighting"] == "2.5"
    assert profiles["multi-en"]["cc_profile"] == "cc.multiple_response.v0p1"
    assert profiles["tf-en"]["cc_profile"] == "cc.true_false.v0p1"


def test_the_same_bank_gives_the_same_bytes() -> None:
    assert export("cc11", rich_bank()) == export("cc11", rich_bank())


# --- what a learner gets ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ident", "response", "score"),
    [
        ("single-md-en", ["a"], 100),
        ("single-md-en", ["b"], 0),
        ("tf-en", ["true"], 100),
        ("tf-en", ["false"], 0),
        ("multi-en", ["dispatch", "combine"], 100),
        ("multi-en", ["dispatch"], 0),
        ("multi-en", ["dispatch", "combine", "reduce"], 0),
    ],
)
def test_choosing_scores_the_key_and_shows_the_general_and_each_chosen_explanation(
    ident: str, response: list[str], score: int
) -> None:
    item = items(members(export("cc11", rich_bank()))["quiz-en/assessment.xml"])[ident]
    got, shown = run(item, response)
    assert got == score
    assert shown[0] == "general_fb"
    assert sorted(shown[1:]) == sorted(f"{c}_fb" for c in response)
    feedback = {f.get("ident") for f in item.iterfind("q:itemfeedback", NS)}
    assert set(shown) <= feedback


def test_single_answer_items_leave_moodles_general_feedback_to_the_general_explanation() -> None:
    """Moodle takes every continue="Yes" condition's feedback as the general feedback."""
    item = items(members(export("cc11", rich_bank()))["quiz-en/assessment.xml"])["single-md-en"]
    path = "q:resprocessing/q:respcondition[@continue='Yes']/q:displayfeedback/@linkrefid"
    continuing = item.xpath(path, namespaces=NS)
    assert continuing == ["general_fb"]


def test_urdu_text_is_marked_right_to_left_and_fallbacks_keep_their_language() -> None:
    item = items(members(export("cc11", rich_bank()))["quiz-ur/assessment.xml"])["single-md-ur"]
    assert item.get(XML_LANG) == "ur"
    stem = item.find("q:presentation/q:material/q:mattext", NS)
    assert stem is not None and stem.get(XML_LANG) == "ur" and stem.get("texttype") == "text/html"
    assert (stem.text or "").startswith(f'<div lang="ur" dir="rtl" style="{direction_style("ur")}">')
    fallback = item.find("q:itemfeedback[@ident='b_fb']/q:flow_mat/q:material/q:mattext", NS)
    assert fallback is not None and fallback.get(XML_LANG) == "en"
    assert (fallback.text or "").startswith('<div lang="en" dir="ltr">')


# --- reading it back -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [sample_bank, lambda: rich_bank(translate_all=True)], ids=["sample", "rich"])
def test_export_then_import_gives_the_same_bank(make: object) -> None:
    assert callable(make)
    bank = make()
    imported, warnings = read.read_package(export("cc11", bank))
    assert warnings == []
    same_bank(bank, imported)


def test_the_shipped_bank_survives_the_round_trip(shipped_bank: Bank) -> None:
    imported, _ = read.read_package(export("cc11", shipped_bank))
    same_bank(shipped_bank, imported)
    assert imported.tags == shipped_bank.tags


def test_every_kind_keeps_its_key_and_explanations() -> None:
    bank = rich_bank()
    imported = read.load(export("cc11", bank, ["en"]))
    assert {q.kind for q in imported.questions} == {Kind.SINGLE, Kind.MULTIPLE, Kind.TRUE_FALSE}
    for before, after in zip(bank.questions, imported.questions, strict=True):
        assert seen(after) == seen(before)


def test_a_planted_error_of_each_kind_is_caught(schemas_dir: Path) -> None:
    files = members(export("cc11", rich_bank(), ["en"]))
    quiz = files["quiz-en/assessment.xml"]
    files["quiz-en/assessment.xml"] = quiz.replace(b'linkrefid="a_fb"', b'linkrefid="nowhere_fb"').replace(
        b'<varequal respident="response1">c</varequal>', b'<varequal respident="response1">zz</varequal>', 1
    )
    files["stray.txt"] = b"not listed"
    messages = "\n".join(str(p) for p in check_package(rezip(files), schemas.load(schemas_dir), name="c.imscc"))
    assert "displayfeedback names 'nowhere_fb'" in messages
    assert "varequal names 'zz'" in messages
    assert "c.imscc!/stray.txt" in messages and "manifest does not list it" in messages


def test_an_item_without_an_answer_key_is_an_error() -> None:
    files = members(export("cc11", sample_bank(), ["en"]))
    files["quiz-en/assessment.xml"] = files["quiz-en/assessment.xml"].replace(b">100<", b">0<")
    problems = check_package(rezip(files), None, name="c.imscc")
    assert any("no answer key" in p.message and p.severity is Severity.ERROR for p in problems)


# --- the commands ----------------------------------------------------------------------------------------------


def test_export_names_a_one_locale_cartridge_after_its_locale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    bank = str(SHIPPED_BANK_DIR)
    assert runner.invoke(main, ["export", "--format", "cc11", "--locale", "ur", bank]).exit_code == 0
    assert runner.invoke(main, ["export", "--format", "cc11", bank]).exit_code == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["moe-expert-parallelism.imscc", "moe-expert-parallelism.ur.imscc"]


def test_validate_and_import_a_cartridge(tmp_path: Path, schemas_dir: Path, shipped_bank: Bank) -> None:
    cartridge = tmp_path / "bank.imscc"
    cartridge.write_bytes(export("cc11", shipped_bank))
    runner = CliRunner()
    checked = runner.invoke(main, ["validate", str(cartridge), "--schemas", str(schemas_dir)])
    assert checked.exit_code == 0, checked.output
    assert "XSD validation: done" in checked.output
    assert "ok (QTI 1.2 package: XSD and semantic checks)" in checked.output
    imported = runner.invoke(main, ["import", "cc11", str(cartridge), "-o", str(tmp_path / "bank")])
    assert imported.exit_code == 0, imported.output
    assert (tmp_path / "bank" / "locales" / "ur.po").is_file()
    before = {p: p.read_bytes() for p in (tmp_path / "bank").rglob("*") if p.is_file()}
    again = runner.invoke(main, ["import", "cc11", str(cartridge), "-o", str(tmp_path / "bank")])
    assert again.exit_code == 0 and "no file changed" in again.output  # merged into the bank: nothing new
    assert {p: p.read_bytes() for p in (tmp_path / "bank").rglob("*") if p.is_file()} == before


def test_the_shelf_has_a_cartridge_and_a_canvas_package_per_locale_and_says_which_platform_takes_which() -> None:
    plan = shelf.plan(sample_bank())
    for locale in ("en", "ur", "vi"):
        assert f"sample-quiz.{locale}.imscc" in plan.filenames
        assert f"sample-quiz.{locale}.canvas-qti.zip" in plan.filenames
    readme = shelf.readme(plan)
    assert "- **Blackboard Learn, D2L Brightspace, Sakai, Schoology**" in readme
    assert "the `.imscc` cartridge" in readme.split("Blackboard Learn, D2L Brightspace, Sakai, Schoology")[1]
    assert "- **Canvas**: `moe-lms push canvas` (keeps the quiz in sync), or the `.canvas-qti.zip` package" in readme
    assert "- **Moodle**: the `.moodle.xml` file (not the cartridge: see below)." in readme


def test_a_canvas_course_export_s_two_copies_of_a_quiz_give_one_set_of_questions() -> None:
    """Canvas exports each quiz as CC QTI and as its own QTI (non_cc_assessments/*.xml.qti), with other item ids."""
    bank = sample_bank()
    cc = members(export("cc11", bank, ["en"]))["quiz-en/assessment.xml"]
    canvas = members(export("canvas-qti", bank, ["en"]))["sample-quiz-en/sample-quiz-en.xml"]
    canvas = canvas.replace(
        b"points_possible</fieldlabel>\n        <fieldentry>1<", b"points_possible</fieldlabel>\n        <fieldentry>4<"
    )
    head, section, items_part = cc.partition(b"<section")
    manifest = b"""<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="c1" xmlns="http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1">
  <metadata><schema>IMS Common Cartridge</schema><schemaversion>1.1.0</schemaversion></metadata>
  <organizations/>
  <resources>
    <resource identifier="sample-quiz-en" type="imsqti_xmlv1p2/imscc_xmlv1p1/assessment">
      <file href="sample-quiz-en/assessment_qti.xml"/><dependency identifierref="canvas-meta"/></resource>
    <resource identifier="canvas-meta" type="associatedcontent/imscc_xmlv1p1/learning-application-resource"
      href="sample-quiz-en/assessment_meta.xml"><file href="sample-quiz-en/assessment_meta.xml"/>
      <file href="non_cc_assessments/sample-quiz-en.xml.qti"/></resource>
  </resources>
</manifest>"""
    files = {
        "imsmanifest.xml": manifest,
        "sample-quiz-en/assessment_qti.xml": head + section + items_part.replace(b'-en" title', b'-en-cc" title'),
        "sample-quiz-en/assessment_meta.xml": b'<quiz xmlns="http://canvas.instructure.com/xsd/cccv1p0"/>',
        "non_cc_assessments/sample-quiz-en.xml.qti": canvas,
    }
    imported = read.load(rezip(files))
    assert [q.id for q in imported.questions] == [q.id for q in bank.questions]
    assert [q.points for q in imported.questions] == [4, 4, 4]  # the Canvas copy, which says the points
