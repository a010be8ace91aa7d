"""QTI 2.1 export: packages validate against the official XSDs, are deterministic, bind each choice's
explanation to that choice, mark right-to-left text without `dir`, and stay readable by Canvas."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from moe_lms import schemas
from moe_lms.formats import ExportOptions, get, qti21
from moe_lms.formats.qti21 import GENERAL_FEEDBACK as GENERAL
from moe_lms.model import Bank, Translation
from moe_lms.problems import ProblemsFound
from moe_lms.text import render_block, render_inline

from .qti_support import NS, QTI, export, item_root, members, rich_bank

CP = "http://www.imsglobal.org/xsd/imscp_v1p1"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


@pytest.fixture(scope="module")
def validators(schemas_dir: Path) -> schemas.Schemas:
    return schemas.load(schemas_dir)


def xsd_errors(package: bytes, validators: schemas.Schemas) -> dict[str, list[str]]:
    errors = {}
    for name, data in members(package).items():
        if not name.endswith(".xml"):
            continue
        schema = validators.manifest() if name == "imsmanifest.xml" else validators.qti()
        if not schema.validate(etree.fromstring(data)):
            errors[name] = [f"{e.line}: {e.message}" for e in schema.error_log]
    return errors


@pytest.mark.parametrize("locales", [("en",), ("ur",), ("vi",), ()], ids=["en", "ur", "vi", "all"])
def test_every_file_of_the_shipped_bank_package_validates_against_the_official_xsds(
    shipped_bank: Bank, validators: schemas.Schemas, locales: tuple[str, ...]
) -> None:
    package = export(shipped_bank, locales)
    expected_items = len(shipped_bank.questions) * len(locales or shipped_bank.locales)
    assert sum(1 for n in members(package) if n.startswith("items/")) == expected_items
    assert xsd_errors(package, validators) == {}
    assert qti21.check_package(package, validators) == []


def test_a_bank_using_every_feature_validates_and_passes_the_semantic_checks(validators: schemas.Schemas) -> None:
    for include_drafts in (False, True):
        package = export(rich_bank(), include_drafts=include_drafts)
        assert xsd_errors(package, validators) == {}
        assert qti21.check_package(package, validators) == []


def test_manifest_metadata_is_checked_strictly_not_skipped(validators: schemas.Schemas) -> None:
    files = members(export(rich_bank(), ["en"]))
    broken = (
        files["imsmanifest.xml"]
        .replace(b"<imsqti:toolName>", b"<imsqti:toolNom>")
        .replace(b"</imsqti:toolName>", b"</imsqti:toolNom>")
    )
    schema = validators.manifest()
    assert schema.validate(etree.fromstring(files["imsmanifest.xml"]))
    assert not schema.validate(etree.fromstring(broken))
    assert "toolNom" in str(schema.error_log)


def test_export_is_byte_identical_across_runs_and_kinds_of_output_stream(shipped_bank: Bank, tmp_path: Path) -> None:
    first = export(shipped_bank)
    assert export(shipped_bank) == first

    class Pipe(io.RawIOBase):  # write-only, no seek or tell, like stdout into a pipe
        def __init__(self) -> None:
            self.data = bytearray()

        def writable(self) -> bool:
            return True

        def write(self, b: bytes) -> int:  # type: ignore[override]
            self.data += b
            return len(b)

    pipe = Pipe()
    options = ExportOptions.for_bank(shipped_bank)
    get("qti21").write(shipped_bank, options, pipe)  # type: ignore[arg-type]
    assert bytes(pipe.data) == first
    with (tmp_path / "p.zip").open("wb") as f:
        get("qti21").write(shipped_bank, options, f)
    assert (tmp_path / "p.zip").read_bytes() == first


def test_zip_entries_are_sorted_with_fixed_timestamps_and_permissions(shipped_bank: Bank) -> None:
    with zipfile.ZipFile(io.BytesIO(export(shipped_bank))) as z:
        infos = z.infolist()
    names = [i.filename for i in infos]
    assert names == sorted(names)
    assert names[0] == "imsmanifest.xml"
    assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
    assert {i.external_attr >> 16 for i in infos} == {0o100644}
    assert {i.create_system for i in infos} == {3}
    assert {i.compress_type for i in infos} == {zipfile.ZIP_DEFLATED}


def test_the_manifest_lists_every_file_of_the_zip_and_nothing_else() -> None:
    package = export(rich_bank())
    manifest = etree.fromstring(members(package)["imsmanifest.xml"])
    listed = {f.get("href") for f in manifest.iter(f"{{{CP}}}file")}
    assert listed | {"imsmanifest.xml"} == set(members(package))
    resources = {r.get("identifier"): r for r in manifest.iter(f"{{{CP}}}resource")}
    for resource in resources.values():
        for dependency in resource.iterfind(f"{{{CP}}}dependency"):
            assert dependency.get("identifierref") in resources


def test_one_test_per_locale_lists_its_items_in_bank_order() -> None:
    bank = rich_bank()
    files = members(export(bank))
    for locale in bank.locales:
        test = etree.fromstring(files[f"tests/rich-bank-{locale}.xml"])
        assert len(test.findall("q:testPart", NS)) == 1
        assert len(test.findall("q:testPart/q:assessmentSection", NS)) == 1
        refs = test.findall(".//q:assessmentItemRef", NS)
        assert [r.get("href") for r in refs] == [f"../items/{q.id}-{locale}.xml" for q in bank.questions]


def test_canvas_reads_the_package_as_qti2_and_finds_every_item() -> None:
    """canvas-lms Qti::Converter.is_qti_2: a namespace on the manifest root starting with a QTI 2 namespace;
    items come only from resources whose type starts with imsqti_item_xmlv2p."""
    bank = rich_bank()
    manifest = etree.fromstring(members(export(bank))["imsmanifest.xml"])
    qti2 = ("http://www.imsglobal.org/xsd/imsqti_v2p0", "http://www.imsglobal.org/xsd/imsqti_v2p1")
    assert any(ns.startswith(qti2) for ns in manifest.nsmap.values())
    item_resources = [
        r for r in manifest.iter(f"{{{CP}}}resource") if r.get("type", "").startswith("imsqti_item_xmlv2p")
    ]
    assert len(item_resources) == len(bank.questions) * len(bank.locales)


def test_items_are_identified_by_question_and_locale_and_are_not_adaptive() -> None:
    item = item_root(export(rich_bank()), "multi", "ur")
    assert item.get("identifier") == "multi-ur"
    assert item.get(XML_LANG) == "ur"
    assert (item.get("adaptive"), item.get("timeDependent")) == ("false", "false")
    assert item.get("title") == "اردو: Pick the collectives used by expert parallelism."
    outcomes = {o.get("identifier"): o for o in item.iterfind("q:outcomeDeclaration", NS)}
    assert set(outcomes) == {"SCORE", "MAXSCORE", "FEEDBACK"}
    assert outcomes["FEEDBACK"].get("baseType") == "identifier"
    assert outcomes["MAXSCORE"].findtext("q:defaultValue/q:value", namespaces=NS) == "3"


def test_single_answer_items_declare_one_correct_choice_and_allow_one_choice() -> None:
    item = item_root(export(rich_bank()), "single-md", "en")
    response = item.find("q:responseDeclaration", NS)
    assert response is not None and response.get("cardinality") == "single"
    assert [v.text for v in response.iterfind("q:correctResponse/q:value", NS)] == ["a"]
    assert response.find("q:mapping", NS) is None
    interaction = item.find(".//q:choiceInteraction", NS)
    assert interaction is not None
    assert (interaction.get("maxChoices"), interaction.get("shuffle")) == ("1", "false")


def test_multiple_answer_items_declare_every_correct_choice_and_a_mapping() -> None:
    item = item_root(export(rich_bank()), "multi", "en")
    response = item.find("q:responseDeclaration", NS)
    assert response is not None and response.get("cardinality") == "multiple"
    assert [v.text for v in response.iterfind("q:correctResponse/q:value", NS)] == ["dispatch", "combine"]
    mapping = response.find("q:mapping", NS)
    assert mapping is not None
    assert (mapping.get("lowerBound"), mapping.get("upperBound")) == ("0", "3")
    entries = {e.get("mapKey"): float(e.get("mappedValue", "")) for e in mapping}
    assert entries == {"dispatch": 1.5, "combine": 1.5, "broadcast": -1.5, "reduce": -1.5}
    interaction = item.find(".//q:choiceInteraction", NS)
    assert interaction is not None and interaction.get("maxChoices") == "4"


def test_the_stem_is_the_prompt_and_each_choice_id_is_its_identifier() -> None:
    item = item_root(export(rich_bank()), "single-md", "en")
    prompt = item.find(".//q:choiceInteraction/q:prompt", NS)
    assert prompt is not None
    assert [etree.QName(e).localname for e in prompt] == ["p", "ul"]
    assert prompt.findtext("q:p/q:code", namespaces=NS) == "all_to_all"
    assert [c.get("identifier") for c in item.iterfind(".//q:simpleChoice", NS)] == ["a", "b", "c"]


def test_each_choice_explanation_is_feedback_bound_to_that_choice() -> None:
    bank = rich_bank()
    for question in bank.questions:
        item = item_root(export(bank, ["en"]), question.id, "en")
        feedback = {f.get("identifier"): f for f in item.iterfind("q:modalFeedback", NS)}
        assert set(feedback) == {c.id for c in question.choices} | {GENERAL}
        for choice in question.choices:
            bound = feedback[choice.id]
            assert (bound.get("outcomeIdentifier"), bound.get("showHide")) == ("FEEDBACK", "show")
            assert "".join(bound.itertext()).strip() != ""
        general = "".join(feedback[GENERAL].itertext()).strip()
        assert general[:7] == question.explanation[:7]
    item = item_root(export(bank, ["en"]), "single-md", "en")
    texts = {f.get("identifier"): "".join(f.itertext()).strip() for f in item.iterfind("q:modalFeedback", NS)}
    assert texts["a"] == "Yes: dispatch."
    assert texts["b"] == "No bold claim."
    assert texts["c"] == "Arithmetic: 5 * 3."


def test_right_to_left_items_carry_language_class_and_a_packaged_stylesheet_but_no_dir() -> None:
    package = export(rich_bank(translate_all=True), ["ur"])
    files = members(package)
    item = etree.fromstring(files["items/tf-ur.xml"])
    body = item.find("q:itemBody", NS)
    assert body is not None and "moe-rtl" in (body.get("class") or "").split()
    stylesheet = item.find("q:stylesheet", NS)
    assert stylesheet is not None and stylesheet.get("href") == "../style/moe-lms.css"
    css = files["style/moe-lms.css"].decode()
    assert re.search(r"\.moe-rtl\s*\{[^}]*direction:\s*rtl", css)
    for feedback in item.iterfind("q:modalFeedback/q:div", NS):
        assert feedback.get("class") == "moe-rtl"
    for data in files.values():
        assert b" dir=" not in data


def test_strings_that_fell_back_carry_the_source_language_and_direction() -> None:
    item = item_root(export(rich_bank(), ["ur"]), "single-md", "ur")  # choice b's explanation is untranslated
    feedback = {f.get("identifier"): f for f in item.iterfind("q:modalFeedback", NS)}
    fallback = feedback["b"].find("q:div", NS)
    assert fallback is not None
    assert (fallback.get(XML_LANG), fallback.get("class")) == ("en", "moe-ltr")
    translated = feedback["a"].find("q:div", NS)
    assert translated is not None
    assert (translated.get(XML_LANG), translated.get("class")) == (None, "moe-rtl")


def test_drafts_are_left_out_unless_asked_for() -> None:
    bank = rich_bank()
    without = item_root(export(bank, ["vi"]), "tf", "vi").find(".//q:prompt", NS)
    with_drafts = item_root(export(bank, ["vi"], include_drafts=True), "tf", "vi").find(".//q:prompt", NS)
    assert without is not None and with_drafts is not None
    assert "".join(without.itertext()) == "Experts are sharded across GPUs."
    assert without.get(XML_LANG) == "en"
    assert "".join(with_drafts.itertext()).startswith("Tiếng Việt: ")


def test_adversarial_text_is_escaped_and_sanitised(validators: schemas.Schemas) -> None:
    nasty = "]]> <!-- x --> <?pi?> &amp; \"quotes\" 'apos' \u202eRTL override\u202c 😀 <img src=x onerror=alert(1)>"
    bank = rich_bank()
    question = bank.questions[0]
    question = question.model_copy(update={"stem": nasty, "choices": question.choices})
    bank = bank.model_copy(update={"questions": (question, *bank.questions[1:])})
    package = export(bank)
    assert xsd_errors(package, validators) == {}
    item = item_root(package, "single-md", "en")
    assert not list(item.iter(f"{{{QTI}}}script"))
    assert all("onerror" not in e.attrib for e in item.iter())
    prompt_text = "".join(item.find(".//q:prompt", NS).itertext())  # type: ignore[union-attr]
    assert "]]>" in prompt_text and "😀" in prompt_text and "\u202e" in prompt_text


def test_characters_xml_cannot_carry_are_a_clear_error_naming_the_question() -> None:
    bank = rich_bank()
    catalog = dict(bank.translations["vi"])
    catalog["multi/stem"] = Translation(text="bad \x01 text", source=bank.questions[1].stem)
    bank = bank.model_copy(update={"translations": {**bank.translations, "vi": catalog}})
    with pytest.raises(ProblemsFound) as info:
        export(bank, ["vi"])
    (problem,) = info.value.problems
    assert problem.where == "question 'multi'"
    assert "U+0001" in problem.message and "(vi)" in problem.message


def test_a_control_character_written_as_an_html_entity_never_reaches_the_xml(validators: schemas.Schemas) -> None:
    bank = rich_bank()
    question = bank.questions[2].model_copy(update={"stem": "Is <b>&#1;</b> or &#x1; allowed?"})
    bank = bank.model_copy(update={"questions": (*bank.questions[:2], question)})
    package = export(bank, ["en"])
    assert xsd_errors(package, validators) == {}
    prompt = item_root(package, "tf", "en").find(".//q:prompt", NS)
    assert prompt is not None and "".join(prompt.itertext()) == "Is \ufffd or \ufffd allowed?"


def canvas_answers(item: etree._Element) -> tuple[dict[str, tuple[int, str | None]], str | None]:
    """What canvas-lms's QTI 2 importer (Qti::ChoiceInteraction, process_response_conditions, get_feedback_id,
    attach_feedback_values, get_feedback) takes from an item: per answer its weight and comment, and the
    question's neutral comment. A transcription of its Nokogiri selectors into XPath."""
    weights: dict[str, int] = {c.get("identifier", ""): 0 for c in item.iterfind(".//q:simpleChoice", NS)}
    feedback_ids: dict[str, str] = {}
    for condition in item.iterfind("q:responseProcessing//q:responseCondition", NS):
        for branch in condition.xpath(".//q:responseIf | .//q:responseElseIf", namespaces=NS):
            found = branch.xpath(
                ".//q:match//q:baseValue[@baseType='identifier'] | .//q:member//q:baseValue", namespaces=NS
            )
            if not found or found[0].text not in weights:
                continue
            answer = found[0].text
            setter = branch.find(".//q:setOutcomeValue[@identifier='FEEDBACK']", NS)
            if setter is not None and setter.find(".//q:variable[@identifier='FEEDBACK']", NS) is not None:
                value = setter.find(".//q:baseValue[@baseType='identifier']", NS)
                if value is not None and not re.search(
                    r"general_|_all|wrong|incorrect|correct|_IC$|_C$", value.text or "", re.I
                ):
                    feedback_ids.setdefault(answer, value.text or "")
    for value in item.iterfind("q:responseDeclaration/q:correctResponse/q:value", NS):
        weights[value.text or ""] = 100
    modal = {f.get("identifier"): f for f in item.iterfind("q:modalFeedback", NS)}
    first_paragraph = {i: "".join(f.find(".//q:p", NS).itertext()) for i, f in modal.items()}  # type: ignore[union-attr]
    neutral = next((first_paragraph[i] for i in modal if re.search("general_|_all", i or "", re.I)), None)
    return {a: (w, first_paragraph.get(feedback_ids.get(a))) for a, w in weights.items()}, neutral


def test_canvas_attaches_each_choice_explanation_to_its_answer_and_the_general_one_to_the_question() -> None:
    bank = rich_bank()
    for question in bank.questions:
        answers, neutral = canvas_answers(item_root(export(bank, ["en"]), question.id, "en"))
        assert answers == {
            c.id: (
                100 if c.correct else 0,
                "".join(etree.fromstring(f"<p>{render_inline(c.explanation)}</p>").itertext()),
            )
            for c in question.choices
        }
        assert neutral == "".join(etree.fromstring(render_block(question.explanation)).itertext())


LOM_NS = "http://ltsc.ieee.org/xsd/LOM"


def test_the_manifest_declares_the_package_languages_and_tags_in_the_source_language(
    validators: schemas.Schemas,
) -> None:
    """Issue 10, item 3: the Urdu package declared only English, and labelled the (English) tags ur."""
    bank = rich_bank()
    assert bank.tags and any(q.tags for q in bank.questions)
    for locales, languages in ((("ur",), ["en", "ur"]), ((), ["en", *(loc for loc in bank.target_locales)])):
        package = export(bank, locales)
        manifest = etree.fromstring(members(package)["imsmanifest.xml"])
        general = manifest.find(f"{{{CP}}}metadata/{{{LOM_NS}}}lom/{{{LOM_NS}}}general")
        assert [e.text for e in general.iterfind(f"{{{LOM_NS}}}language")] == languages
        keywords = manifest.iterfind(f".//{{{LOM_NS}}}keyword/{{{LOM_NS}}}string")
        assert {k.get("language") for k in keywords} == {"en"}
        assert xsd_errors(package, validators) == {}


def test_an_items_title_never_carries_a_tag_from_text_the_bank_escaped() -> None:
    """Issue 11, item 20: titles are plain text; "&lt;script&gt;" in the bank must not come out as <script>."""
    bank = rich_bank()
    q = bank.questions[0].model_copy(update={"stem": "&lt;script&gt;alert(1)&lt;/script&gt; routing"})
    bank = bank.model_copy(update={"questions": (q, *bank.questions[1:])})
    item = item_root(export(bank, ("en",)), q.id, "en")
    assert item.get("title") == "‹script>alert(1)‹/script> routing"
