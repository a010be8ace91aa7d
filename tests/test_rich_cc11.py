"""Math and images in a Common Cartridge and a Canvas QTI package: math as \\(…\\) / \\[…\\] (MathJax in Canvas and
Moodle), images as webcontent resources under web_resources/, referred to as each importer resolves them
($IMS-CC-FILEBASE$../web_resources/… in a cartridge, web_resources/… in a Canvas QTI package); valid against the CC 1.1
XSDs; validate names a missing image; read back intact."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from moe_lms.formats import ExportOptions, get
from moe_lms.formats.canvas_qti import read as canvas_qti_read
from moe_lms.formats.cc11 import read as cc11_read
from moe_lms.formats.cc11.validate import check_package
from moe_lms.loader import load_bank
from moe_lms.model import Question
from moe_lms.richtext import render_block
from moe_lms.schemas import Schemas

from .qti12_support import as_a_cartridge_reads_back
from .rich_support import SVG, png, write_rich_bank

READERS = {"cc11": cc11_read, "canvas-qti": canvas_qti_read}


def export(directory: Path, format_name: str) -> bytes:
    bank = load_bank(directory)
    return get(format_name).dump(bank, ExportOptions(locales=bank.locales))


@pytest.mark.parametrize("format_name", ["cc11", "canvas-qti"])
def test_images_are_packaged_webcontent_and_math_is_mathjax(
    tmp_path: Path, format_name: str, schemas_dir: Path
) -> None:
    data = export(write_rich_bank(tmp_path), format_name)
    assert check_package(data, Schemas(schemas_dir)) == []
    assert export(tmp_path, format_name) == data
    package = zipfile.ZipFile(io.BytesIO(data))
    assert package.read("web_resources/media/bar.png") == png()
    assert package.read("web_resources/media/dispatch.svg") == SVG.encode()
    manifest = etree.fromstring(package.read("imsmanifest.xml"))
    webcontent = [r.get("href") for r in manifest.iter("{*}resource") if r.get("type") == "webcontent"]
    assert webcontent == ["web_resources/media/bar.png", "web_resources/media/dispatch.svg"]
    quiz = next(n for n in package.namelist() if n.endswith(".xml") and "-en" in n and "meta" not in n)
    text = package.read(quiz).decode()
    # The path each importer resolves: Moodle's CC restore against the QTI file's folder (backup/cc/
    # entities.class.php), Canvas's QTI import by the package path (qti_exporter/lib/qti/html_helper.rb).
    src = {"cc11": "$IMS-CC-FILEBASE$../web_resources/", "canvas-qti": "web_resources/"}[format_name]
    assert f'src="{src}media/dispatch.svg"' in text
    assert "$IMS-CC-FILEBASE$/" not in text
    assert r"\[C = \left\lceil f \cdot \frac{k T}{E} \right\rceil\]" in text


@pytest.mark.parametrize("format_name", ["cc11", "canvas-qti"])
def test_validate_names_an_image_the_package_lacks(tmp_path: Path, format_name: str) -> None:
    source = zipfile.ZipFile(io.BytesIO(export(write_rich_bank(tmp_path), format_name)))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as broken:
        for info in source.infolist():
            if info.filename != "web_resources/media/bar.png":
                data = source.read(info)
                if info.filename == "imsmanifest.xml":
                    data = data.replace(b'<file href="web_resources/media/bar.png"/>', b"")
                broken.writestr(info, data)
    found = [str(p) for p in check_package(out.getvalue(), None)]
    assert any("an image refers to 'media/bar.png', which is not in the package" in f for f in found)


@pytest.mark.parametrize("format_name", ["cc11", "canvas-qti"])
def test_the_package_reads_back_with_formulas_code_and_images(tmp_path: Path, format_name: str) -> None:
    directory = write_rich_bank(tmp_path)
    original = load_bank(directory)
    bank, problems = READERS[format_name].read_package(export(directory, format_name))
    assert problems == []

    def read_as(text: str) -> str:
        return as_a_cartridge_reads_back(text) if format_name == "cc11" else text.strip()

    def shown(text: str) -> str:
        """What a learner reads: the rendered text, a soft line break and a space being the same white space."""
        return re.sub(r"\s+", " ", render_block(text))

    def reading(q: Question) -> dict[str, object]:
        return {**q.model_dump(), "stem": shown(q.stem), "explanation": shown(q.explanation)}

    assert [reading(q) for q in bank.questions] == [
        reading(q.model_copy(update={"stem": read_as(q.stem), "explanation": read_as(q.explanation)}))
        for q in original.questions
    ]
    assert {path: item.data for path, item in bank.media.items()} == {
        "media/bar.png": png(),
        "media/dispatch.svg": SVG.encode(),
    }
