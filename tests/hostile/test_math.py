"""Math from TeX never carries script, links, styles or classes: latex2mathml's output passes one MathML
allow-list after conversion, in check, in every writer and in every importer."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from moe_lms import richtext
from moe_lms.formats import ExportOptions, get, html, qti21
from moe_lms.formats.canvas_qti import read as canvas_qti_read
from moe_lms.formats.cc11 import read as cc11_read
from moe_lms.formats.qti12 import Text
from moe_lms.loader import check_bank, load_bank
from moe_lms.problems import ProblemsFound

from .corpus import HOSTILE_FORMULAS, SCRIPT_IN_TEXT, bank_saying, bank_with_stem


@pytest.mark.parametrize("latex", HOSTILE_FORMULAS.values(), ids=HOSTILE_FORMULAS.keys())
def test_a_formula_whose_mathml_the_allow_list_refuses_is_a_formula_error(latex: str) -> None:
    with pytest.raises(richtext.UnsafeFormulaError, match="is refused"):
        richtext.mathml(latex, display=False)


@pytest.mark.parametrize("latex", HOSTILE_FORMULAS.values(), ids=HOSTILE_FORMULAS.keys())
def test_check_names_the_formula(tmp_path: Path, latex: str) -> None:
    _bank, problems = check_bank(bank_with_stem(tmp_path, f"See ${latex}$."))
    assert any("is refused" in p.message for p in problems), problems


@pytest.mark.parametrize("name", ["qti21", "html"])
def test_no_writer_puts_the_script_into_its_output(tmp_path: Path, name: str) -> None:
    bank = bank_saying(tmp_path, f"See ${SCRIPT_IN_TEXT}$.")
    writer = {"qti21": qti21, "html": html}[name]
    out = io.BytesIO()
    with pytest.raises((ProblemsFound, richtext.FormulaError), match="is refused"):
        writer.write(bank, ExportOptions(locales=bank.locales), out)
    assert b"<script>alert" not in out.getvalue()


def test_text_in_a_formula_stays_text() -> None:
    made = richtext.mathml(r"\text{&lt;b&gt;}", display=False)
    assert "<mtext>&lt;b&gt;</mtext>" in made


def test_a_formula_longer_than_the_limit_is_refused_at_once() -> None:
    with pytest.raises(richtext.FormulaError, match="longer than the limit of 4,096"):
        richtext.check_formula("x+" * 1_000_000)


@pytest.mark.parametrize("escaped", [SCRIPT_IN_TEXT.replace("<", "&lt;").replace(">", "&gt;")])
def test_an_imported_formula_the_allow_list_refuses_stays_text(escaped: str) -> None:
    """A cartridge or Canvas package holding the formula as escaped text: the import keeps it as text, which
    every writer then escapes, never as a formula that would become markup."""
    markdown = Text(f"<p>See \\({escaped}\\).</p>", None, inline=False).markdown()
    assert "$" not in markdown.replace("\\$", "")
    rendered = richtext.render_block(markdown)
    assert "<script" not in rendered and "&lt;script&gt;" in rendered


@pytest.mark.parametrize("format_name", ["cc11", "canvas-qti"])
def test_a_package_with_the_script_formula_imports_and_reexports_without_script(
    tmp_path: Path, format_name: str
) -> None:
    bank = load_bank(bank_with_stem(tmp_path / "src", "Fine $x$."))
    data = get(format_name).dump(bank, ExportOptions(locales=bank.locales))
    escaped = SCRIPT_IN_TEXT.replace("<", "&amp;lt;").replace(">", "&amp;gt;")
    package = _replace_in_zip(data, b"\\(x\\)", f"\\({escaped}\\)".encode())
    reader = {"cc11": cc11_read, "canvas-qti": canvas_qti_read}[format_name]
    imported, _problems = reader.read_package(package)
    assert imported is not None
    stem = imported.questions[0].stem
    assert "$" not in stem.replace("\\$", ""), stem
    again = io.BytesIO()
    with richtext.rendering(richtext.Profile(math="mathml")):
        page = richtext.render_block(stem)
    assert "<script" not in page
    html.write(imported, ExportOptions(locales=imported.locales), again)
    assert b"<script>alert" not in again.getvalue()


def _replace_in_zip(data: bytes, old: bytes, new: bytes) -> bytes:
    found = False
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            body = source.read(info)
            found = found or old in body
            target.writestr(info, body.replace(old, new))
    assert found, "the formula is in the package"
    return out.getvalue()
