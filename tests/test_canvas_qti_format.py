"""Canvas QTI 1.2: the package is shaped as Canvas exports a quiz (assessment_meta.xml beside the assessment, Canvas's
item metadata and answer comments), its QTI validates against the CC QTI 1.2.1 profile, and it reads back into the
same bank; so do a package text2qti makes and one shaped like a Canvas quiz export."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import etree

from moe_lms import schemas
from moe_lms.cli import main
from moe_lms.formats.canvas_qti import read
from moe_lms.formats.cc11.validate import check_package
from moe_lms.model import Bank, Kind
from moe_lms.problems import ProblemsFound

from .conftest import SHIPPED_BANK_DIR
from .qti12_support import NS, export, items, members, rezip, run, xsd
from .qti_support import rich_bank
from .sample_bank import sample_bank
from .test_cc11 import same_bank

CANVAS = "http://canvas.instructure.com/xsd/cccv1p0"


def fields(item: etree._Element) -> dict[str, str]:
    return {
        f.findtext("q:fieldlabel", namespaces=NS) or "": f.findtext("q:fieldentry", namespaces=NS) or ""
        for f in item.iterfind("q:itemmetadata/q:qtimetadata/q:qtimetadatafield", NS)
    }


# --- the export -------------------------------------------------------------------------------------------------


def test_the_shipped_banks_quizzes_validate_against_the_cc_qti_profile(shipped_bank: Bank, schemas_dir: Path) -> None:
    package = export("canvas-qti", shipped_bank)
    qti = xsd(schemas_dir, "ccv1p1_qtiasiv1p2p1_v1p0.xsd")
    for locale in shipped_bank.locales:
        name = f"{shipped_bank.id}-{locale}/{shipped_bank.id}-{locale}.xml"
        assert qti.validate(etree.fromstring(members(package)[name])), (name, qti.error_log)
    assert check_package(package, schemas.load(schemas_dir)) == []


def test_assessment_meta_sits_in_the_folder_named_after_its_assessment() -> None:
    """Canvas finds a quiz's settings at <assessment ident>/assessment_meta.xml (quiz_metadata_converter.rb)."""
    files = members(export("canvas-qti", sample_bank(), ["ur"]))
    quiz = etree.fromstring(files["sample-quiz-ur/sample-quiz-ur.xml"]).find("q:assessment", NS)
    assert quiz is not None and quiz.get("ident") == "sample-quiz-ur"
    meta = etree.fromstring(files["sample-quiz-ur/assessment_meta.xml"])
    assert meta.tag == f"{{{CANVAS}}}quiz"
    assert meta.findtext(f"{{{CANVAS}}}title") == "ایم او ای سروِنگ کے لیے ماہرین کی متوازیت"
    assert meta.findtext(f"{{{CANVAS}}}points_possible") == "3"
    manifest = etree.fromstring(files["imsmanifest.xml"])
    kinds = {r.get("identifier"): r.get("type") for r in manifest.iter("{*}resource")}
    assert kinds == {
        "sample-quiz-ur": "imsqti_xmlv1p2",
        "sample-quiz-ur-meta": "associatedcontent/imscc_xmlv1p1/learning-application-resource",
    }


def test_items_carry_canvas_metadata_and_answer_comments() -> None:
    found = items(members(export("canvas-qti", rich_bank(), ["en"]))["rich-bank-en/rich-bank-en.xml"])
    single, multi, tf = found["single-md-en"], found["multi-en"], found["tf-en"]
    assert fields(single) == {
        "question_type": "multiple_choice_question",
        "points_possible": "2.5",
        "original_answer_ids": "a,b,c",
        "assessment_question_identifierref": "single-md-en-ref",
        "moe_lms_tags": "markdown",
    }
    assert fields(multi)["question_type"] == "multiple_answers_question"
    assert fields(tf)["question_type"] == "true_false_question"
    labels = [label.get("ident") for label in single.iter(f"{{{NS['q']}}}response_label")]
    assert labels == fields(single)["original_answer_ids"].split(",")
    assert {f.get("ident") for f in single.iterfind("q:itemfeedback", NS)} == {"general_fb", "a_fb", "b_fb", "c_fb"}


@pytest.mark.parametrize(
    ("ident", "response", "score"),
    [("single-md-en", ["c"], 0), ("single-md-en", ["a"], 100), ("multi-en", ["combine", "dispatch"], 100)],
)
def test_choosing_shows_the_general_comment_then_each_chosen_answers_comment(
    ident: str, response: list[str], score: int
) -> None:
    item = items(members(export("canvas-qti", rich_bank(), ["en"]))["rich-bank-en/rich-bank-en.xml"])[ident]
    got, shown = run(item, response)
    assert (got, shown[0], sorted(shown[1:])) == (score, "general_fb", sorted(f"{c}_fb" for c in response))


def test_the_same_bank_gives_the_same_bytes() -> None:
    assert export("canvas-qti", rich_bank()) == export("canvas-qti", rich_bank())


# --- reading back -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [sample_bank, lambda: rich_bank(translate_all=True)], ids=["sample", "rich"])
def test_export_then_import_gives_the_same_bank(make: object) -> None:
    assert callable(make)
    bank = make()
    imported, warnings = read.read_package(export("canvas-qti", bank))
    assert warnings == []
    same_bank(bank, imported)


def test_the_shipped_bank_survives_the_round_trip(shipped_bank: Bank) -> None:
    same_bank(shipped_bank, read.load(export("canvas-qti", shipped_bank)))


TEXT2QTI_QUIZ = """\
Quiz title: Collectives
Quiz description: Which collective does what.

1.  Which collective sends each rank different data?
... All-to-all is a personalised exchange.
a)  Broadcast
... A broadcast sends the same data to every rank.
*b) All-to-all
... Every rank sends each other rank its own part.

2.  Which of these are collectives?
... Both move data between all ranks.
[*] All-reduce
... It sums across ranks.
[*] All-gather
... It concatenates across ranks.
[ ] Matrix multiply
... That is local computation.

3.  Expert parallelism shards experts across GPUs.
... That is its definition.
*a) True
... Yes.
b)  False
... It does shard them.
"""


@pytest.fixture(scope="module")
def text2qti_package(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A package made by text2qti itself, from a quiz with feedback on every answer."""
    cmdline = pytest.importorskip("text2qti.cmdline")
    folder = tmp_path_factory.mktemp("text2qti")
    quiz = folder / "collectives.md"
    quiz.write_text(TEXT2QTI_QUIZ, encoding="utf-8")
    mp = pytest.MonkeyPatch()
    with mp.context() as patch:
        patch.chdir(folder)
        patch.setattr("sys.argv", ["text2qti", str(quiz)])
        cmdline.main()
    return (folder / "collectives.zip").read_bytes()


def test_a_text2qti_package_imports_with_its_feedback(text2qti_package: bytes) -> None:
    bank, warnings = read.read_package(text2qti_package, name="collectives.zip")
    assert warnings == []
    assert bank.title == "Collectives" and bank.intro == "Which collective does what."
    single, multiple, true_false = bank.questions
    assert (single.kind, multiple.kind, true_false.kind) == (Kind.SINGLE, Kind.MULTIPLE, Kind.TRUE_FALSE)
    assert single.stem == "Which collective sends each rank different data?"
    assert single.explanation == "All-to-all is a personalised exchange."
    assert [(c.text, c.correct, c.explanation) for c in single.choices] == [
        ("Broadcast", False, "A broadcast sends the same data to every rank."),
        ("All-to-all", True, "Every rank sends each other rank its own part."),
    ]
    assert [(c.text, c.correct) for c in multiple.choices] == [
        ("All-reduce", True),
        ("All-gather", True),
        ("Matrix multiply", False),
    ]
    assert [c.explanation for c in multiple.choices][2] == "That is local computation."
    assert [(c.text, c.correct, c.explanation) for c in true_false.choices] == [
        ("True", True, "Yes."),
        ("False", False, "It does shard them."),
    ]


def test_a_text2qti_package_passes_validate(text2qti_package: bytes, schemas_dir: Path) -> None:
    assert check_package(text2qti_package, schemas.load(schemas_dir)) == []


# A quiz as Canvas exports it (instructure/canvas-lms lib/cc/qti/qti_items.rb and qti_generator.rb): numeric answer
# ids, question text in a <div>, plain-text answers, neutral/correct/incorrect comments, answer comments, and an
# essay question moe-lms cannot keep.
CANVAS_ITEM = """
<item ident="{ident}" title="Question">
  <itemmetadata><qtimetadata>
    <qtimetadatafield><fieldlabel>question_type</fieldlabel><fieldentry>{kind}</fieldentry></qtimetadatafield>
    <qtimetadatafield><fieldlabel>points_possible</fieldlabel><fieldentry>{points}</fieldentry></qtimetadatafield>
    <qtimetadatafield><fieldlabel>original_answer_ids</fieldlabel><fieldentry>{ids}</fieldentry></qtimetadatafield>
    <qtimetadatafield><fieldlabel>assessment_question_identifierref</fieldlabel><fieldentry>aq{ident}</fieldentry>
    </qtimetadatafield>
  </qtimetadata></itemmetadata>
  <presentation>
    <material><mattext texttype="text/html">&lt;div&gt;&lt;p&gt;{stem}&lt;/p&gt;&lt;/div&gt;</mattext></material>
    <response_lid ident="response1" rcardinality="{cardinality}"><render_choice>{labels}</render_choice></response_lid>
  </presentation>
  <resprocessing>
    <outcomes><decvar maxvalue="100" minvalue="0" varname="SCORE" vartype="Decimal"/></outcomes>
    <respcondition continue="Yes"><conditionvar><other/></conditionvar>
      <displayfeedback feedbacktype="Response" linkrefid="general_fb"/></respcondition>
    {answer_conditions}
    <respcondition continue="No"><conditionvar>{key}</conditionvar>
      <setvar action="Set" varname="SCORE">100</setvar>
      <displayfeedback feedbacktype="Response" linkrefid="correct_fb"/></respcondition>
    <respcondition continue="Yes"><conditionvar><other/></conditionvar>
      <displayfeedback feedbacktype="Response" linkrefid="general_incorrect_fb"/></respcondition>
  </resprocessing>
  <itemfeedback ident="general_fb"><flow_mat><material>
    <mattext texttype="text/html">&lt;p&gt;{general}&lt;/p&gt;</mattext></material></flow_mat></itemfeedback>
  <itemfeedback ident="correct_fb"><flow_mat><material><mattext texttype="text/plain">Well done.</mattext></material>
  </flow_mat></itemfeedback>
  <itemfeedback ident="general_incorrect_fb"><flow_mat><material><mattext texttype="text/plain">Not quite.</mattext>
  </material></flow_mat></itemfeedback>
  {answer_feedback}
</item>"""


def canvas_item(ident: str, kind: str, stem: str, general: str, answers: list[tuple[str, str, bool, str]]) -> str:
    labels = "".join(
        f'<response_label ident="{a}"><material><mattext texttype="text/plain">{text}</mattext></material>'
        "</response_label>"
        for a, text, _, _ in answers
    )
    conditions = "".join(
        f'<respcondition continue="Yes"><conditionvar><varequal respident="response1">{a}</varequal></conditionvar>'
        f'<displayfeedback feedbacktype="Response" linkrefid="{a}_fb"/></respcondition>'
        for a, _, _, _ in answers
    )
    if kind == "multiple_answers_question":
        key = (
            "<and>"
            + "".join(
                f'<varequal respident="response1">{a}</varequal>'
                if ok
                else f'<not><varequal respident="response1">{a}</varequal></not>'
                for a, _, ok, _ in answers
            )
            + "</and>"
        )
    else:
        key = "".join(f'<varequal respident="response1">{a}</varequal>' for a, _, ok, _ in answers if ok)
    feedback = "".join(
        f'<itemfeedback ident="{a}_fb"><flow_mat><material><mattext texttype="text/html">&lt;p&gt;{comment}&lt;/p&gt;'
        "</mattext></material></flow_mat></itemfeedback>"
        for a, _, _, comment in answers
    )
    return CANVAS_ITEM.format(
        ident=ident,
        kind=kind,
        points="2.0",
        ids=",".join(a for a, _, _, _ in answers),
        stem=stem,
        cardinality="Multiple" if kind == "multiple_answers_question" else "Single",
        labels=labels,
        answer_conditions=conditions,
        key=key,
        general=general,
        answer_feedback=feedback,
    )


CANVAS_ESSAY = """
<item ident="g9essay" title="Essay">
  <itemmetadata><qtimetadata>
    <qtimetadatafield><fieldlabel>question_type</fieldlabel><fieldentry>essay_question</fieldentry></qtimetadatafield>
  </qtimetadata></itemmetadata>
  <presentation><material><mattext texttype="text/html">Explain.</mattext></material>
    <response_str ident="response1" rcardinality="Single"><render_fib><response_label ident="answer1" rshuffle="No"/>
    </render_fib></response_str></presentation>
</item>"""


def canvas_export() -> bytes:
    quiz = "g0c1a2b3"
    questions = "".join(
        [
            canvas_item(
                "g1single",
                "multiple_choice_question",
                "What does expert parallelism shard?",
                "Experts live on different GPUs.",
                [
                    ("4501", "Experts", True, "Yes, the experts."),
                    ("2285", "Heads", False, "That is tensor parallelism."),
                ],
            ),
            canvas_item(
                "g2multi",
                "multiple_answers_question",
                "Which steps are all-to-all?",
                "Both exchanges are all-to-all.",
                [
                    ("7001", "Dispatch", True, "Tokens go out."),
                    ("7002", "Combine", True, "Outputs come back."),
                    ("7003", "Softmax", False, "Local math."),
                ],
            ),
            canvas_item(
                "g3tf",
                "true_false_question",
                "Routing is per token.",
                "Each token picks its experts.",
                [("9001", "True", True, "Right."), ("9002", "False", False, "It is per token.")],
            ),
            CANVAS_ESSAY,
        ]
    )
    qti = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<questestinterop xmlns="http://www.imsglobal.org/xsd/ims_qtiasiv1p2">'
        f'<assessment ident="{quiz}" title="Canvas quiz"><section ident="root_section">{questions}</section>'
        "</assessment></questestinterop>"
    )
    meta = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<quiz identifier="{quiz}" xmlns="{CANVAS}"><title>MoE basics</title>'
        "<description>&lt;p&gt;A short quiz.&lt;/p&gt;</description><quiz_type>assignment</quiz_type></quiz>"
    )
    manifest = f"""<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="m1" xmlns="http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1">
  <metadata><schema>IMS Content</schema><schemaversion>1.1.3</schemaversion></metadata>
  <organizations/>
  <resources>
    <resource identifier="{quiz}" type="imsqti_xmlv1p2"><file href="{quiz}/{quiz}.xml"/>
      <dependency identifierref="{quiz}m"/></resource>
    <resource identifier="{quiz}m" type="associatedcontent/imscc_xmlv1p1/learning-application-resource"
      href="{quiz}/assessment_meta.xml"><file href="{quiz}/assessment_meta.xml"/></resource>
  </resources>
</manifest>"""
    return rezip(
        {
            "imsmanifest.xml": manifest.encode(),
            f"{quiz}/{quiz}.xml": qti.encode(),
            f"{quiz}/assessment_meta.xml": meta.encode(),
        }
    )


def test_a_canvas_quiz_export_imports_with_its_answer_comments() -> None:
    bank, warnings = read.read_package(canvas_export(), name="canvas.zip")
    assert [str(w) for w in warnings] == [
        "canvas.zip!/g0c1a2b3/g0c1a2b3.xml:"
        f"{warnings[0].line}: warning: item 'g9essay': skipped: only choice questions can be imported"
        " (this one is essay_question)"
    ]
    assert (bank.title, bank.intro) == ("MoE basics", "A short quiz.")
    single, multiple, true_false = bank.questions
    assert single.stem == "What does expert parallelism shard?" and single.points == 2
    assert single.explanation == "Experts live on different GPUs."
    assert [(c.id, c.text, c.correct, c.explanation) for c in single.choices] == [
        ("q-4501", "Experts", True, "Yes, the experts."),
        ("q-2285", "Heads", False, "That is tensor parallelism."),
    ]
    assert multiple.kind is Kind.MULTIPLE and [c.correct for c in multiple.choices] == [True, True, False]
    assert [c.explanation for c in multiple.choices] == ["Tokens go out.", "Outputs come back.", "Local math."]
    assert true_false.kind is Kind.TRUE_FALSE and [c.correct for c in true_false.choices] == [True, False]


def test_an_item_whose_choice_has_no_comment_is_refused_naming_it() -> None:
    files = members(export("canvas-qti", sample_bank(), ["en"]))
    name = "sample-quiz-en/sample-quiz-en.xml"
    files[name] = (
        files[name]
        .replace(b'linkrefid="b_fb"', b'linkrefid="general_fb"', 1)
        .replace(b'<itemfeedback ident="b_fb">', b'<itemfeedback ident="unused_fb">', 1)
    )
    with pytest.raises(ProblemsFound) as info:
        read.read_package(rezip(files), name="quiz.zip")
    (problem,) = info.value.problems
    assert problem.file == f"quiz.zip!/{name}" and problem.where == "question 'ep-distributes'"
    assert "no feedback for choice 'b'" in problem.message


# --- the commands -----------------------------------------------------------------------------------------------


def test_export_and_import_canvas_qti(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shipped_bank: Bank) -> None:
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    export_args = ["export", "--format", "canvas-qti", "--locale", "vi", str(SHIPPED_BANK_DIR)]
    assert runner.invoke(main, export_args).exit_code == 0
    package = tmp_path / "moe-expert-parallelism.vi.canvas-qti.zip"
    result = runner.invoke(main, ["import", "canvas-qti", str(package), "-o", "bank"])
    assert result.exit_code == 0, result.output
    imported = read.load(package.read_bytes())
    assert imported.source_locale == "vi"
    assert [q.id for q in imported.questions] == [q.id for q in shipped_bank.questions]


def test_a_choice_named_like_canvas_s_overall_feedback_gets_a_neutral_feedback_name() -> None:
    """Canvas reads feedback named /correct|wrong|solution|general_/ as the question's overall comments."""
    bank = sample_bank()
    first = bank.questions[0]
    renamed = [
        c.model_copy(update={"id": new}) for c, new in zip(first.choices, ["correct", "general", "c"], strict=True)
    ]
    bank = bank.model_copy(
        update={"questions": (first.model_copy(update={"choices": tuple(renamed)}), *bank.questions[1:])}
    )
    item = items(members(export("canvas-qti", bank, ["en"]))["sample-quiz-en/sample-quiz-en.xml"])["ep-distributes-en"]
    assert [f.get("ident") for f in item.iterfind("q:itemfeedback", NS)] == [
        "general_fb",
        "choice1_fb",
        "choice2_fb",
        "c_fb",
    ]
    imported = read.load(export("canvas-qti", bank, ["en"]))
    assert [(c.id, c.explanation) for c in imported.questions[0].choices] == [(c.id, c.explanation) for c in renamed]
