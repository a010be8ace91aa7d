"""`moe-lms import qti21`: packages come back as banks (export → import → export is byte-identical), items
of one question in several languages become one question with translations, packages from other tools are
read, and hostile packages are refused with a clear reason."""

from __future__ import annotations

import io
import re
import struct
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from moe_lms.cli import main
from moe_lms.formats import qti21
from moe_lms.loader import load_bank, save_bank
from moe_lms.model import Bank, Kind
from moe_lms.problems import ProblemsFound
from moe_lms.text import plain_text, render_block
from moe_lms.zipsafe import SafeZip, UnsafePackage

from .qti_support import export, members, rezip, rich_bank


def refusal(package: bytes) -> str:
    with pytest.raises(ProblemsFound) as info:
        qti21.read_package(package, name="evil.zip")
    return "\n".join(str(p) for p in info.value.problems)


# --- round trips ---------------------------------------------------------------------------------------------


def test_export_import_export_of_the_shipped_bank_is_byte_identical(shipped_bank: Bank) -> None:
    package = export(shipped_bank)
    bank, warnings = qti21.read_package(package)
    assert warnings == []
    assert export(bank) == package
    assert bank.id == shipped_bank.id
    assert bank.locales == shipped_bank.locales
    assert bank.questions == shipped_bank.questions


def test_the_round_trip_holds_through_a_bank_directory_on_disk(shipped_bank: Bank, tmp_path: Path) -> None:
    package = export(shipped_bank)
    save_bank(qti21.load(package), tmp_path / "bank")
    assert export(load_bank(tmp_path / "bank")) == package


@pytest.mark.parametrize("locales", [(), ("en",), ("en", "ur"), ("en", "vi")])
def test_export_import_export_is_byte_identical_for_a_bank_using_every_feature(locales: tuple[str, ...]) -> None:
    package = export(rich_bank(), locales)
    assert export(qti21.load(package), locales) == package


def test_items_of_one_question_in_several_languages_become_one_question_with_translations() -> None:
    original = rich_bank()
    bank = qti21.load(export(original))
    assert (bank.source_locale, bank.target_locales) == ("en", ("ur", "vi"))
    assert [q.id for q in bank.questions] == ["single-md", "multi", "tf"]
    assert [q.kind for q in bank.questions] == [Kind.SINGLE, Kind.MULTIPLE, Kind.TRUE_FALSE]
    assert bank.questions[0].points == 2.5 and bank.questions[0].shuffle is False
    assert bank.questions[1].correct_choices == original.questions[1].correct_choices
    assert bank.tags == ("demo", "qti") and bank.questions[0].tags == ("markdown",)
    assert bank.intro == original.intro
    ur = bank.translations["ur"]
    assert ur["multi/stem"].text == "اردو: Pick the collectives used by expert parallelism."
    assert ur["multi/stem"].source == bank.questions[1].stem
    assert "single-md/choices/b/explanation" not in ur  # it fell back to English on export
    assert "tf/stem" not in bank.translations["vi"]  # a draft, left out of the export


def test_markdown_comes_back_as_markdown_not_html() -> None:
    bank = qti21.load(export(rich_bank(), ["en"]))
    question = bank.questions[0]
    assert question.stem == "Which call uses `all_to_all`?\n\n- one\n- two"
    assert question.explanation == "See the [docs](https://example.org/a?b=1&c=2) and *this* note."
    assert question.choices[0].explanation == "Yes: **dispatch**."
    assert question.choices[2].text == "5 * 3 > 2 & 1 < 4"


def test_a_package_of_one_translated_locale_imports_with_that_locale_as_source() -> None:
    bank, warnings = qti21.read_package(export(rich_bank(translate_all=True), ["ur"]))
    assert (bank.source_locale, bank.target_locales) == ("ur", ())
    assert bank.questions[2].stem == "اردو: Experts are sharded across GPUs."
    assert warnings == []


def test_source_text_that_had_fallen_back_is_reported_when_the_package_lacks_the_source_locale() -> None:
    bank, warnings = qti21.read_package(export(rich_bank(), ["ur"]))  # one ur string fell back to English
    assert bank.source_locale == "ur"
    (warning,) = warnings
    assert "source locale ur has strings in another language (1 in en)" in warning.message


_TOKENS = [
    *"ab c*_`#[]()<>&!-+.1\\~|\n\t",
    "é",
    "ا",
    "😀",
    "\u200f",
    "&amp;",
    "&#1;",
    "<br>",
    "  \n",
    "\n\n",
    "- ",
    "1. ",
    "<b>b</b>",
    "<u>u</u>",
    "<code>c</code>",
    "<a href='https://x.org'>",
    "<a href='https://x.org'>x</a>",
    "<span lang='ur' dir='rtl'>ا</span>",
]  # HTML tags come balanced (an <a> left open is fine: the sanitiser closes it), as authors write them
COMMONMARK = MarkdownIt("commonmark")
markdown_text = st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=20).map("".join)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stem=markdown_text, choice=markdown_text, explanation=markdown_text)
@example(stem="a", choice="a", explanation="\ta\n\na")  # an indented code block comes back fenced: same HTML
@example(stem="a", choice="a", explanation="~~~a  \na")  # a fence left open comes back closed: same HTML
def test_any_markdown_survives_export_import_export(stem: str, choice: str, explanation: str) -> None:
    # Markdown that renders to nothing ("#", "-") is an empty question text, not something to carry across; and
    # text.py's sanitiser unwraps h1/h2 to bare text, which no other Markdown renders to.
    blocks = [render_block(t) for t in (stem, explanation)]
    assume(all(plain_text(b).strip() for b in blocks) and plain_text(choice).strip())
    assume(not any(re.search(r"<h[12]>", COMMONMARK.render(t)) for t in (stem, explanation)))
    base = rich_bank()
    tf = base.questions[2]
    try:
        question = tf.model_copy(
            update={
                "stem": stem,
                "explanation": explanation,
                "choices": (tf.choices[0].model_copy(update={"text": choice}), tf.choices[1]),
            }
        )
        bank = Bank.model_validate({**base.model_dump(exclude={"translations"}), "questions": [question.model_dump()]})
    except ValueError:
        return
    package = export(bank, ["en"])
    assert export(qti21.load(package), ["en"]) == package


# --- packages from other tools -------------------------------------------------------------------------------

FOREIGN_ITEM = b"""<?xml version="1.0" encoding="UTF-8"?>
<assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="Item_7" title="Capital"
    adaptive="false" timeDependent="false" xml:lang="fr">
  <responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier">
    <correctResponse><value>ChoiceB</value></correctResponse>
  </responseDeclaration>
  <outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"/>
  <outcomeDeclaration identifier="FEEDBACK" cardinality="single" baseType="identifier"/>
  <itemBody>
    <p>Quelle est la capitale de la <em>France</em> ?</p>
    <choiceInteraction responseIdentifier="RESPONSE" shuffle="true" maxChoices="1">
      <simpleChoice identifier="ChoiceA">Lyon<feedbackInline outcomeIdentifier="FEEDBACK" identifier="ChoiceA"
          showHide="show">Non, Lyon est plus petite.</feedbackInline></simpleChoice>
      <simpleChoice identifier="ChoiceB">Paris<feedbackInline outcomeIdentifier="FEEDBACK" identifier="ChoiceB"
          showHide="show">Oui.</feedbackInline></simpleChoice>
    </choiceInteraction>
  </itemBody>
  <responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/match_correct"/>
  <modalFeedback outcomeIdentifier="FEEDBACK" identifier="general" showHide="show"
    >Paris est la capitale.</modalFeedback>
</assessmentItem>"""

FOREIGN_MANIFEST = b"""<?xml version="1.0" encoding="UTF-8"?>
<manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" identifier="M1">
  <organizations/>
  <resources>
    <resource identifier="R1" type="imsqti_item_xmlv2p1" href="Item_7.xml"><file href="Item_7.xml"/></resource>
    <resource identifier="R2" type="imsqti_item_xmlv2p1" href="essay.xml"><file href="essay.xml"/></resource>
  </resources>
</manifest>"""

ESSAY_ITEM = b"""<assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="essay" title="E"
    adaptive="false" timeDependent="false"><itemBody><extendedTextInteraction responseIdentifier="R"/></itemBody>
</assessmentItem>"""


def test_a_package_from_another_tool_is_read_with_inline_feedback_and_a_stem_outside_the_prompt() -> None:
    package = rezip({"imsmanifest.xml": FOREIGN_MANIFEST, "Item_7.xml": FOREIGN_ITEM, "essay.xml": ESSAY_ITEM})
    bank, warnings = qti21.read_package(package, name="capitals.zip")
    assert bank.id == "capitals" and bank.source_locale == "fr"
    (question,) = bank.questions
    assert question.id == "item-7"
    assert question.stem == "Quelle est la capitale de la *France* ?"
    assert [(c.id, c.text, c.correct, c.explanation) for c in question.choices] == [
        ("choicea", "Lyon", False, "Non, Lyon est plus petite."),
        ("choiceb", "Paris", True, "Oui."),
    ]
    assert question.explanation == "Paris est la capitale."
    (skipped,) = warnings
    assert "essay.xml" in skipped.file and "only items with exactly one choiceInteraction" in skipped.message


def test_an_item_without_per_choice_feedback_is_an_error_naming_the_item_and_choices() -> None:
    item = FOREIGN_ITEM.replace(b'identifier="ChoiceA"\n          showHide', b'identifier="Other"\n          showHide')
    message = refusal(rezip({"imsmanifest.xml": FOREIGN_MANIFEST.replace(b"essay", b"Item_7"), "Item_7.xml": item}))
    assert "no feedback for choice 'ChoiceA'" in message
    assert "evil.zip!/Item_7.xml" in message


# --- hostile packages --------------------------------------------------------------------------------------------


def one_file_zip(name: str, data: bytes = b"<x/>", *, mode: int | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("imsmanifest.xml", FOREIGN_MANIFEST)
        info = zipfile.ZipInfo(name)
        if mode is not None:
            info.external_attr = mode << 16
        z.writestr(info, data)
    return buf.getvalue()


@pytest.mark.parametrize(
    "name", ["../evil.xml", "/etc/passwd", "items/../../evil.xml", "C:/evil.xml", "a\\..\\..\\evil.xml"]
)
def test_a_member_whose_path_leaves_the_package_is_refused(name: str) -> None:
    assert "zip-slip" in refusal(one_file_zip(name))


def test_a_symbolic_link_is_refused() -> None:
    assert "symbolic link" in refusal(one_file_zip("items/link.xml", b"/etc/passwd", mode=0o120777))


def test_a_manifest_href_that_leaves_the_package_names_no_file() -> None:
    manifest = FOREIGN_MANIFEST.replace(b'href="Item_7.xml"><file href="Item_7.xml"/>', b'href="../../etc/passwd">')
    assert "resource 'R1' names no file of the package" in refusal(rezip({"imsmanifest.xml": manifest}))


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" identifier="&lol3;"/>"""

EXTERNAL_ENTITY = FOREIGN_ITEM.replace(
    b'<?xml version="1.0" encoding="UTF-8"?>',
    b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY secret SYSTEM "file:///etc/passwd">]>',
).replace(b"Oui.", b"&secret;")


def test_billion_laughs_entities_are_refused() -> None:
    message = refusal(rezip({"imsmanifest.xml": BILLION_LAUGHS}))
    assert "DOCTYPE" in message and "evil.zip" in message


def test_an_external_entity_in_an_item_is_refused_and_nothing_is_fetched() -> None:
    message = refusal(
        rezip({"imsmanifest.xml": FOREIGN_MANIFEST.replace(b"essay", b"Item_7"), "Item_7.xml": EXTERNAL_ENTITY})
    )
    assert "evil.zip!/Item_7.xml" in message and "DOCTYPE" in message
    assert "root:" not in message


def _patch_sizes(package: bytes, name: bytes, size: int) -> bytes:
    """Rewrite the uncompressed size a zip declares for ``name`` in its local and central headers."""
    data = bytearray(package)
    local = data.find(b"PK\x03\x04")
    while local >= 0:
        name_length = struct.unpack_from("<H", data, local + 26)[0]
        if data[local + 30 : local + 30 + name_length] == name:
            struct.pack_into("<I", data, local + 22, size)
        local = data.find(b"PK\x03\x04", local + 4)
    central = data.find(b"PK\x01\x02")
    while central >= 0:
        name_length = struct.unpack_from("<H", data, central + 28)[0]
        if data[central + 46 : central + 46 + name_length] == name:
            struct.pack_into("<I", data, central + 24, size)
        central = data.find(b"PK\x01\x02", central + 4)
    return bytes(data)


def test_a_member_declaring_1_gb_is_refused_before_anything_is_inflated() -> None:
    package = _patch_sizes(
        rezip({"imsmanifest.xml": FOREIGN_MANIFEST, "Item_7.xml": FOREIGN_ITEM}), b"Item_7.xml", 1 << 30
    )
    message = refusal(package)
    assert "declares 1,073,741,824 bytes" in message and "limit" in message


def test_a_member_that_inflates_past_its_declared_size_is_refused() -> None:
    bomb = rezip(
        {"imsmanifest.xml": FOREIGN_MANIFEST.replace(b"essay", b"Item_7"), "Item_7.xml": FOREIGN_ITEM + b" " * 100_000}
    )
    message = refusal(_patch_sizes(bomb, b"Item_7.xml", 1000))
    assert "Item_7.xml" in message and ("damaged" in message or "declared size" in message)


def test_too_many_files_are_refused_from_the_declared_count() -> None:
    package = bytearray(rezip({"imsmanifest.xml": FOREIGN_MANIFEST}))
    end = package.rfind(b"PK\x05\x06")
    struct.pack_into("<HH", package, end + 8, 65_000, 65_000)
    with pytest.raises(UnsafePackage, match="declares 65,000 files"):
        SafeZip(bytes(package), max_files=1000)


def test_too_many_real_files_are_refused() -> None:
    files = {f"f{i}.xml": b"<x/>" for i in range(12)}
    with pytest.raises(UnsafePackage, match="limit is 10"):
        SafeZip(rezip(files), max_files=10)


def test_files_adding_up_past_the_total_limit_are_refused() -> None:
    files = {f"f{i}.xml": b"x" * 1000 for i in range(5)}
    with pytest.raises(UnsafePackage, match="more than 3,000 bytes in all"):
        SafeZip(rezip(files), max_total_bytes=3000)


def test_something_that_is_not_a_zip_is_a_clear_error() -> None:
    assert "not a zip file" in refusal(b"<html>not a package</html>")


def test_a_zip_without_a_manifest_is_a_clear_error() -> None:
    assert "no imsmanifest.xml" in refusal(rezip({"item.xml": FOREIGN_ITEM}))


# --- the command ---------------------------------------------------------------------------------------------


def test_import_writes_a_bank_directory_that_loads_and_exports_identically(tmp_path: Path) -> None:
    package = tmp_path / "rich.qti21.zip"
    package.write_bytes(export(rich_bank()))
    result = CliRunner().invoke(main, ["import", "qti21", str(package), "-o", str(tmp_path / "bank")])
    assert result.exit_code == 0, result.output
    assert "imported 3 questions" in result.output and "targets ur, vi" in result.output
    assert {p.name for p in (tmp_path / "bank").rglob("*") if p.is_file()} == {"bank.yaml", "ur.po", "vi.po"}
    assert export(load_bank(tmp_path / "bank")) == package.read_bytes()


def test_import_will_not_overwrite_a_bank_it_cannot_merge_into_without_replace(tmp_path: Path) -> None:
    package = tmp_path / "p.zip"
    package.write_bytes(export(rich_bank(), ["en"]))
    (tmp_path / "bank").mkdir()
    (tmp_path / "bank" / "bank.yaml").write_text("id: keep-me\n")
    refused = CliRunner().invoke(main, ["import", "qti21", str(package), "-o", str(tmp_path / "bank")])
    assert refused.exit_code == 1 and "--replace" in refused.output
    assert (tmp_path / "bank" / "bank.yaml").read_text() == "id: keep-me\n"
    forced = CliRunner().invoke(main, ["import", "qti21", str(package), "-o", str(tmp_path / "bank"), "--replace"])
    assert forced.exit_code == 0, forced.output


def test_import_of_a_hostile_package_exits_1_with_the_reason_and_writes_nothing(tmp_path: Path) -> None:
    package = tmp_path / "evil.zip"
    package.write_bytes(one_file_zip("../../evil.xml"))
    result = CliRunner().invoke(main, ["import", "qti21", str(package), "-o", str(tmp_path / "bank")])
    assert result.exit_code == 1
    assert "zip-slip" in result.output
    assert not (tmp_path / "bank").exists()
    assert not (tmp_path.parent / "evil.xml").exists()


def test_members_are_never_written_to_disk(tmp_path: Path) -> None:
    files = members(export(rich_bank(), ["en"]))
    package = tmp_path / "p.zip"
    package.write_bytes(rezip(files))
    CliRunner().invoke(main, ["import", "qti21", str(package), "-o", str(tmp_path / "bank")])
    written = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
    assert written == {"p.zip", "bank/bank.yaml"}
