"""The rules Canvas's and Moodle's own importers apply to our QTI 1.2 files, each as a test on what we write, citing
the importer's file. Canvas: instructure/canvas-lms gems/plugins/qti_exporter/lib/qti/ (html_helper.rb,
assessment_item_converter.rb, choice_interaction.rb, assessment_test_converter.rb), gems/canvas_sanitize, and
lib/cc/importer/standard/converter.rb. Moodle 4.5: backup/cc/ (entity11.quiz.class.php, entities.class.php) and
the Moodle 1.9 step of its restore (backup/converter/moodle1/handlerlib.php, lib/weblib.php text_to_html)."""

from __future__ import annotations

import html
import posixpath
import re
from pathlib import Path

import pytest
from lxml import etree

from moe_lms.loader import load_bank
from moe_lms.model import Bank, Kind

from .qti12_support import NS, export, items, members
from .qti_support import rich_bank
from .rich_support import write_rich_bank
from .sample_bank import sample_bank

ROOT = Path(__file__).resolve().parents[1]
ARITHMETIC = ROOT / "question_bank" / "moe-serving-arithmetic"
IMG_SRC = re.compile(r'<img\b[^>]*\bsrc="([^"]+)"')


def qti_files(package: dict[str, bytes]) -> dict[str, etree._Element]:
    return {
        name: etree.fromstring(data)
        for name, data in package.items()
        if name.endswith(".xml") and name != "imsmanifest.xml" and not name.endswith("assessment_meta.xml")
    }


def mattexts(root: etree._Element) -> list[str]:
    return [m.text or "" for m in root.iter(f"{{{NS['q']}}}mattext")]


@pytest.fixture(scope="module")
def with_images(tmp_path_factory: pytest.TempPathFactory) -> Bank:
    return load_bank(write_rich_bank(tmp_path_factory.mktemp("rich")))


# --- Canvas ---------------------------------------------------------------------------------------------------------


def test_canvas_qti_images_name_a_package_file_once_canvas_strips_its_tokens(with_images: Bank) -> None:
    """html_helper.rb sanitize_html!: ``val.gsub!(/\\$[A-Z_]*\\$/, '')`` then find_best_path_match(val) among the
    package's files (exact path, or one ending with it). $IMS-CC-FILEBASE$ (hyphens) is no such token."""
    package = members(export("canvas-qti", with_images))
    srcs = [
        html.unescape(s) for root in qti_files(package).values() for t in mattexts(root) for s in IMG_SRC.findall(t)
    ]
    assert srcs
    for src in srcs:
        path = re.sub(r"\$[A-Z_]*\$", "", src)
        assert path in package or any(name.endswith(path) for name in package), src


def test_canvas_keeps_each_choice_s_feedback_as_that_choice_s_own() -> None:
    """assessment_item_converter.rb get_feedback_id: an answer's feedback id matching
    /general_|_all|wrong|incorrect|correct|(_IC$)|(_C$)/i is dropped (moved to the question); choice_interaction.rb
    then attaches each remaining id's feedback to its answer, so two answers must never share one."""
    bank = sample_bank()
    first = bank.questions[0]
    ids = ["incorrect-1", "choice1", "wrong", "general"]
    choices = [c.model_copy(update={"id": new}) for c, new in zip(first.choices, ids, strict=False)]
    bank = bank.model_copy(
        update={"questions": (first.model_copy(update={"choices": tuple(choices)}), *bank.questions[1:])}
    )
    for item in items(members(export("canvas-qti", bank, ["en"]))["sample-quiz-en/sample-quiz-en.xml"]).values():
        shown = []
        for condition in item.iterfind("q:resprocessing/q:respcondition", NS):
            direct = condition.findall("q:conditionvar/q:varequal", NS)
            if len(direct) == 1 and condition.find("q:setvar", NS) is None:  # a choice's own condition
                (link,) = [d.get("linkrefid") for d in condition.iterfind("q:displayfeedback", NS)]
                assert not re.search(r"general_|_all|wrong|incorrect|correct|(_IC$)|(_C$)", link or "", re.I), link
                shown.append(link)
        assert len(shown) == len(set(shown)) == len(item.findall("q:presentation//q:response_label", NS))


def test_canvas_reads_the_overall_messages_by_their_feedback_names() -> None:
    """assessment_item_converter.rb get_feedback: modalFeedback named /wrong|incorrect/ → incorrect comments, then
    /correct/ → correct comments, /general_|_all/ → neutral comments. The payload sends the bank's messages; the
    QTI package says them too."""
    bank = sample_bank()
    for item in items(members(export("canvas-qti", bank, ["en"]))["sample-quiz-en/sample-quiz-en.xml"]).values():
        feedback = {f.get("ident"): "".join(mattexts(f)) for f in item.iterfind("q:itemfeedback", NS)}
        correct = [i for i in feedback if not re.search("wrong|incorrect", i) and re.search("correct", i)]
        incorrect = [i for i in feedback if re.search("wrong|incorrect", i)]
        assert [len(correct), len(incorrect)] == [1, 1], feedback
        assert bank.feedback.correct in feedback[correct[0]]
        assert bank.feedback.incorrect in feedback[incorrect[0]]


def test_canvas_shuffles_a_quiz_only_if_every_question_may_be_shuffled() -> None:
    """lib/cc/importer/canvas/quiz_metadata_converter.rb reads shuffle_answers for the whole quiz: one question
    with ``shuffle: false`` keeps the quiz unshuffled (as the payload decides: formats/canvas.py)."""
    bank = rich_bank()  # its single-md question says shuffle: false
    assert not all(q.shuffle for q in bank.questions)
    meta = etree.fromstring(members(export("canvas-qti", bank, ["en"]))["rich-bank-en/assessment_meta.xml"])
    assert meta.findtext("{*}shuffle_answers") == "false"


# --- Moodle's CC restore ----------------------------------------------------------------------------------------


def test_moodle_finds_the_correct_choices_of_a_multiple_answer_item() -> None:
    """entity11.quiz.class.php get_answers: a cc.multiple_response item's correct choices are the
    ``varequal[@case='Yes'][not(parent::not)]`` of the condition that sets SCORE to 100; without case="Yes" every
    fraction is stored as 0."""
    package = members(export("cc11", rich_bank(), ["en"]))
    item = items(package["quiz-en/assessment.xml"])["multi-en"]
    found = item.xpath(
        ".//q:setvar[@varname='SCORE'][.=100]/../q:conditionvar//q:varequal[@case='Yes'][not(parent::q:not)]",
        namespaces=NS,
    )
    assert sorted(v.text for v in found) == sorted(c.id for c in rich_bank().question("multi").choices if c.correct)


def test_moodle_restores_cartridge_text_without_losing_spaces_or_doubling_lines() -> None:
    """handlerlib.php (Moodle 1.9 step of the CC restore) runs text_to_html() on every text, after safexml
    (entities.class.php) has decoded every character reference: it deletes white space between tags
    (``preg_replace("~>([[:space:]]+)<~i", "><", …)``, the spaces of a highlighted code block) and makes each line
    break a <br />. The cartridge's texts hold neither."""
    package = members(export("cc11", load_bank(ARITHMETIC)))
    texts = [t for root in qti_files(package).values() for t in mattexts(root)]
    assert any("<pre" in t for t in texts)
    block = r"</?(?:p|div|ul|ol|li|pre|code|h[1-6]|blockquote|table|thead|tbody|tr|td|th|hr|br)\b[^<>]*>"
    space = "[ \t\n\r\f\v]"  # (PCRE's [[:space:]]: ASCII)
    for text in texts:
        for code in re.findall(r"<pre\b.*?</pre>", text, re.S):  # a code block: no line break, no gap at all
            assert "\n" not in code and re.search(f">{space}+<", code) is None, code[:200]
        prose = re.sub(r"<pre\b.*?</pre>", "<pre></pre>", text, flags=re.S)
        # Between two tags only block gaps (deleted, they show nothing); a line break only beside a tag (made a
        # space), never inside text (made a <br />).
        for gap in re.finditer(f"(<[^<>]*>){space}+(?=(<[^<>]*>))", prose):
            assert re.match(block, gap.group(1)) or re.match(block, gap.group(2)), gap.group(0)
        assert re.search(r"[^>\n]\n[^<\n]", prose) is None, prose[:200]


def test_moodle_resolves_cartridge_images_against_the_qti_file_s_folder(with_images: Bank) -> None:
    """entities.class.php update_sources: the src without $IMS-CC-FILEBASE$, joined to the folder of the QTI file
    (full_path), must be a file of the package; Canvas's cartridge import drops the token and a leading ../ and
    finds the file under web_resources/ (lib/cc/importer/standard/converter.rb get_canvas_att_replacement_url)."""
    package = members(export("cc11", with_images))
    checked = 0
    for name, root in qti_files(package).items():
        for text in mattexts(root):
            for src in map(html.unescape, IMG_SRC.findall(text)):
                moodle = posixpath.normpath(
                    posixpath.join(posixpath.dirname(name), src.replace("$IMS-CC-FILEBASE$", ""))
                )
                canvas = "web_resources/" + src.replace("$IMS-CC-FILEBASE$", "").removeprefix("../").removeprefix(
                    "web_resources/"
                )
                assert moodle in package and canvas in package, (name, src)
                checked += 1
    assert checked


# Canvas's sanitizer (gems/canvas_sanitize/lib/canvas_sanitize/canvas_sanitize.rb SANITIZE, as read at commit
# ecc99ed9): the elements, attributes and style properties it keeps; anything else it removes.
CANVAS_ELEMENTS = set(
    [
        "a",
        "b",
        "blockquote",
        "br",
        "caption",
        "cite",
        "code",
        "col",
        "hr",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "h7",
        "h8",
        "del",
        "ins",
        "iframe",
        "font",
        "colgroup",
        "dd",
        "div",
        "dl",
        "dt",
        "em",
        "figure",
        "figcaption",
        "i",
        "img",
        "li",
        "ol",
        "p",
        "pre",
        "q",
        "small",
        "span",
        "strike",
        "strong",
        "sub",
        "sup",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "u",
        "ul",
        "object",
        "embed",
        "param",
        "video",
        "audio",
    ]
)
# canvas-lms gems/canvas_sanitize/lib/canvas_sanitize/canvas_sanitize.rb, SANITIZE[:attributes][:all]: these and
# the aria-* attributes (a hidden marker paragraph carries aria-hidden).
CANVAS_ATTRIBUTES = {"style", "class", "id", "title", "role", "lang", "dir"} | {
    f"aria-{name}"
    for name in [
        "labelledby",
        "atomic",
        "busy",
        "controls",
        "describedby",
        "disabled",
        "dropeffect",
        "flowto",
        "grabbed",
        "haspopup",
        "hidden",
        "invalid",
        "label",
        "live",
        "owns",
        "relevant",
        "autocomplete",
        "checked",
        "expanded",
        "level",
        "multiline",
        "multiselectable",
        "orientation",
        "pressed",
        "readonly",
        "required",
        "selected",
        "sort",
        "valuemax",
        "valuemin",
        "valuenow",
        "valuetext",
    ]
}
CANVAS_TAG_ATTRIBUTES = {"a": {"href", "target", "name"}, "img": {"align", "alt", "height", "src", "width"}}
CANVAS_STYLE = re.compile(
    r"^(?:background|border|clear|color|cursor|direction|display|float|font|height|left|line-height|list-style|"
    r"margin|max-height|max-width|min-height|min-width|overflow|overflow-x|overflow-y|padding|position|right|"
    r"text-align|table-layout|text-decoration|text-indent|top|vertical-align|visibility|white-space|width|z-index|"
    r"zoom|background-(?:attachment|color|image|position|repeat)|font-(?:family|size|stretch|style|variant|weight)|"
    r"margin-(?:bottom|left|right|top|offset)|padding-(?:bottom|left|right|top))$"
)


def _canvas_payload_html(data: bytes) -> list[str]:
    import json

    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str) and value.startswith(("<div", "<span", "<p")):
            found.append(value)

    walk(json.loads(data))
    return found


def _canvas_texts(format_name: str, bank: Bank) -> list[str]:
    """The HTML texts Canvas would store of ``bank`` exported as ``format_name`` (in every locale, Urdu too)."""
    if format_name == "canvas":
        return _canvas_payload_html(export("canvas", bank))
    return [text for root in qti_files(members(export(format_name, bank))).values() for text in mattexts(root)]


# What Canvas imports: its API payload, its QTI zip and a Common Cartridge (lib/cc/importer/standard).
@pytest.mark.parametrize("format_name", ["canvas-qti", "cc11", "canvas"])
def test_canvas_s_sanitizer_keeps_all_the_markup_canvas_imports(with_images: Bank, format_name: str) -> None:
    """canvas_sanitize.rb: every element, attribute and style property of our HTML is one Canvas keeps (html_helper.rb
    sanitize_html! runs it on every text), so nothing a learner should see is removed: a formula's or a Latin-only
    text's left-to-right isolate is a <span dir="ltr"> (SANITIZE has no bdi), code has no unicode-bidi."""
    from lxml import html as lxml_html

    banks = (
        (load_bank(ARITHMETIC), rich_bank())
        if format_name == "canvas"
        else (with_images, load_bank(ARITHMETIC), rich_bank())
    )
    isolates = 0
    for bank in banks:
        for text in _canvas_texts(format_name, bank):
            for element in lxml_html.fragment_fromstring(text, create_parent="div").iter():
                if element.tag == "div" and element.getparent() is None:
                    continue
                assert element.tag in CANVAS_ELEMENTS, element.tag
                # (a link's rel="noopener" Canvas drops: it shows nothing, and Canvas opens links its own way)
                kept = CANVAS_ATTRIBUTES | CANVAS_TAG_ATTRIBUTES.get(element.tag, set()) | {"rel"}
                extra = set(element.attrib) - kept
                assert not extra, (element.tag, extra)
                for declaration in filter(None, (element.get("style") or "").split(";")):
                    assert CANVAS_STYLE.match(declaration.split(":")[0].strip()), declaration
                isolates += element.tag == "span" and element.get("dir") == "ltr"
    assert isolates  # (the arithmetic bank's formulas and its Urdu choice "64 KiB")


def test_moodle_restores_a_true_false_question_whatever_its_choices_are_called() -> None:
    """entity11.quiz.class.php (true/false): a cc.true_false item's answers must be identified ``true`` and
    ``false``, or Moodle stops the whole restore ("Unknown answer identifier"). Others go as multiple choice, the
    kind kept in moe_lms_kind for moe-lms's reader."""
    bank = rich_bank()
    tf = bank.question("tf")
    renamed = tf.model_copy(
        update={
            "choices": tuple(c.model_copy(update={"id": new}) for c, new in zip(tf.choices, ["yes", "no"], strict=True))
        }
    )
    bank = bank.model_copy(update={"questions": tuple(renamed if q.id == "tf" else q for q in bank.questions)})
    for name, data in qti_files(members(export("cc11", bank, ["en"]))).items():
        for item in data.iter(f"{{{NS['q']}}}item"):
            fields = {
                f.findtext("q:fieldlabel", namespaces=NS): f.findtext("q:fieldentry", namespaces=NS)
                for f in item.iterfind("q:itemmetadata/q:qtimetadata/q:qtimetadatafield", NS)
            }
            labels = {label.get("ident") for label in item.iter(f"{{{NS['q']}}}response_label")}
            if fields["cc_profile"] == "cc.true_false.v0p1":
                assert labels == {"true", "false"}, (name, labels)
            if item.get("ident") == "tf-en":
                assert (fields["cc_profile"], fields["moe_lms_kind"]) == ("cc.multiple_choice.v0p1", "true-false")
    from moe_lms.formats.cc11 import read

    assert read.load(export("cc11", bank, ["en"])).question("tf").kind is Kind.TRUE_FALSE
