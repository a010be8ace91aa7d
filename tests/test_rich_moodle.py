"""Math and images in Moodle XML: math as \\(…\\) / \\[…\\] for Moodle's MathJax filter, each image embedded as a
base64 <file> in the very element whose text shows it (question text, choice, every feedback), as Moodle's
importer (question/format/xml/format.php, import_text_with_files) reads them; read back into the same bank."""

from __future__ import annotations

import base64
import io
from pathlib import Path

from lxml import etree

from moe_lms.formats import ExportOptions, moodle
from moe_lms.loader import load_bank, save_bank

from .rich_support import BANK, SVG, png, write_rich_bank


def export(directory: Path, **options: object) -> bytes:
    bank = load_bank(directory)
    out = io.BytesIO()
    moodle.write(bank, ExportOptions(locales=bank.locales, **options), out)  # type: ignore[arg-type]
    return out.getvalue()


def test_images_travel_in_the_element_that_shows_them_and_math_is_mathjax(tmp_path: Path) -> None:
    data = export(write_rich_bank(tmp_path))
    assert moodle.check_moodle_xml(data) == []
    question = etree.fromstring(data).find("question[@type='multichoice']")
    assert question is not None
    stem = question.find("questiontext")
    assert stem is not None
    assert (
        '<a href="@@PLUGINFILE@@/dispatch.svg"><img src="@@PLUGINFILE@@/dispatch.svg" alt="Tokens dispatched to two '
        'GPUs" width="120" height="40" style="max-width:100%;height:auto"></a>'
    ) in (stem.findtext("text") or "")
    assert r"\[C = \left\lceil f \cdot \frac{k T}{E} \right\rceil\]" in (stem.findtext("text") or "")
    (svg,) = stem.findall("file")
    assert (svg.get("name"), svg.get("path"), svg.get("encoding")) == ("dispatch.svg", "/", "base64")
    assert base64.b64decode(svg.text or "") == SVG.encode()
    feedback = question.find("answer/feedback")
    assert feedback is not None
    assert r"\(160 = 1.25 \times 128\)" in (feedback.findtext("text") or "")
    (bar,) = feedback.findall("file")
    assert base64.b64decode(bar.text or "") == png()
    assert question.find("answer/file") is None and question.find("generalfeedback/file") is None


def test_the_export_reads_back_into_the_same_bank_with_its_images(tmp_path: Path) -> None:
    source = write_rich_bank(tmp_path / "source")
    data = export(source)
    result = moodle.load(data)
    assert result.problems == () and result.bank is not None
    original = load_bank(source)
    assert [q.model_dump() for q in result.bank.questions] == [
        q.model_copy(update={"stem": q.stem.strip(), "explanation": q.explanation.strip()}).model_dump()
        for q in original.questions
    ]
    save_bank(result.bank, tmp_path / "imported")
    assert (tmp_path / "imported" / "media" / "bar.png").read_bytes() == png()
    assert (tmp_path / "imported" / "media" / "dispatch.svg").read_text(encoding="utf-8") == SVG
    assert export(tmp_path / "imported") == data


def test_the_export_is_the_same_bytes_every_time(tmp_path: Path) -> None:
    directory = write_rich_bank(tmp_path)
    assert export(directory) == export(directory)


def test_a_multilang_export_carries_math_and_images_in_every_language(tmp_path: Path) -> None:
    without_code = BANK.replace("      ```python\n      capacity = math.ceil(1.25 * 2 * 4096 / 64)\n      ```\n", "")
    data = export(write_rich_bank(tmp_path, without_code), multilang=True)
    assert data == export(tmp_path, multilang=True)
    assert moodle.check_moodle_xml(data) == []
    feedback = etree.fromstring(data).find("question[@type='multichoice']/answer[2]/feedback/text")
    assert feedback is not None and r"\(f\)" in (feedback.text or "")
    result = moodle.load(data)
    assert result.bank is not None
    assert result.bank.translations["vi"]["capacity/choices/b/explanation"].text == (
        "Đáp án này quên hệ số dung lượng $f$."
    )


def test_the_structural_check_names_an_image_no_file_carries(tmp_path: Path) -> None:
    data = export(write_rich_bank(tmp_path))
    broken = data.replace(
        b'<file name="bar.png" path="/" encoding="base64">', b'<file name="other.png" path="/" encoding="base64">'
    )
    found = [str(p) for p in moodle.check_moodle_xml(broken)]
    assert len(found) == 3 and all("@@PLUGINFILE@@/bar.png, but no <file> in <feedback> carries it" in f for f in found)
