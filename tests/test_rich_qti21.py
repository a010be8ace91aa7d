"""Math and images in QTI 2.1: formulas as MathML 2 in the item body (valid against the MathML schema the QTI
2.1 XSD imports) carrying their LaTeX as an annotation, images packaged and listed as files of the items that
show them; validate finds a missing file; the importer restores the exact bank."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from lxml import etree

from moe_lms.formats import ExportOptions, qti21
from moe_lms.loader import load_bank
from moe_lms.schemas import Schemas

from .rich_support import SVG, png, write_rich_bank

MATHML = "{http://www.w3.org/1998/Math/MathML}"
CP = "{http://www.imsglobal.org/xsd/imscp_v1p1}"


def export(directory: Path) -> bytes:
    bank = load_bank(directory)
    out = io.BytesIO()
    qti21.write(bank, ExportOptions(locales=bank.locales), out)
    return out.getvalue()


def test_the_package_validates_against_the_qti_xsds_including_mathml(tmp_path: Path, schemas_dir: Path) -> None:
    data = export(write_rich_bank(tmp_path))
    assert qti21.check_package(data, Schemas(schemas_dir)) == []
    assert export(tmp_path) == data


def test_formulas_are_mathml_with_their_latex_and_images_are_files_of_their_item(tmp_path: Path) -> None:
    package = zipfile.ZipFile(io.BytesIO(export(write_rich_bank(tmp_path))))
    item = etree.fromstring(package.read("items/capacity-vi.xml"))
    formulas = list(item.iter(f"{MATHML}math"))
    assert {f.get("display") for f in formulas} == {"inline", "block"}
    annotations = [a.text for a in item.iter(f"{MATHML}annotation") if a.get("encoding") == "application/x-tex"]
    assert r"C = \left\lceil f \cdot \frac{k T}{E} \right\rceil" in annotations and "f" in annotations
    sources = sorted(img.get("src") for img in item.iter("{*}img"))
    assert sources == ["../media/bar.png", "../media/dispatch.svg"]
    assert package.read("media/bar.png") == png() and package.read("media/dispatch.svg") == SVG.encode()
    manifest = etree.fromstring(package.read("imsmanifest.xml"))
    (resource,) = [r for r in manifest.iter(f"{CP}resource") if r.get("href") == "items/capacity-vi.xml"]
    assert [f.get("href") for f in resource.iter(f"{CP}file")] == [
        "items/capacity-vi.xml",
        "media/bar.png",
        "media/dispatch.svg",
    ]


def test_validate_names_an_image_the_package_lacks(tmp_path: Path) -> None:
    data = export(write_rich_bank(tmp_path))
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as broken:
        for info in source.infolist():
            if info.filename != "media/bar.png":
                broken.writestr(info, source.read(info))
    found = [str(p) for p in qti21.check_package(out.getvalue(), None)]
    assert any("items/capacity-en.xml" in f and "'media/bar.png', which is not in the package" in f for f in found)


def test_the_package_reads_back_into_the_same_bank_with_formulas_code_and_images(tmp_path: Path) -> None:
    directory = write_rich_bank(tmp_path)
    original = load_bank(directory)
    bank, problems = qti21.read_package(export(directory))
    assert problems == []
    assert [q.model_dump() for q in bank.questions] == [
        q.model_copy(update={"stem": q.stem.strip(), "explanation": q.explanation.strip()}).model_dump()
        for q in original.questions
    ]
    assert {path: item.data for path, item in bank.media.items()} == {
        "media/bar.png": png(),
        "media/dispatch.svg": SVG.encode(),
    }
    translated = bank.translations["vi"]["capacity/choices/b/explanation"].text
    assert translated == "Đáp án này quên hệ số dung lượng $f$."
