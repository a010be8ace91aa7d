"""Math, images and code in a bank: loaded once, checked with file, line and question, hostile content refused."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from moe_lms.loader import check_bank
from moe_lms.richtext import FormulaError, Profile, check_formula, render_block, rendering

from .rich_support import BANK, SVG, png, write_rich_bank


def errors(directory: Path) -> list[str]:
    _bank, found = check_bank(directory)
    return [str(p) for p in found]


def test_a_rich_bank_loads_its_images_once_with_type_and_digest(tmp_path: Path) -> None:
    bank, found = check_bank(write_rich_bank(tmp_path))
    assert found == []
    assert bank is not None
    svg, bar = bank.media["media/dispatch.svg"], bank.media["media/bar.png"]
    assert (svg.media_type, bar.media_type) == ("image/svg+xml", "image/png")
    assert bar.data == png() and bar.sha256 == hashlib.sha256(png()).hexdigest()
    assert svg.name == "dispatch.svg"


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("../outside.png", "leaves the bank folder"),
        ("/etc/passwd.png", "is absolute"),
        ("media/missing.png", "does not exist"),
        ("media/notes.txt", "unsupported type"),
        ("https://example.org/x.png", "is remote"),
    ],
)
def test_an_image_path_that_cannot_be_used_is_named_with_file_line_and_question(
    tmp_path: Path, path: str, says: str
) -> None:
    bank = BANK.replace("media/dispatch.svg", path)
    found = errors(write_rich_bank(tmp_path, bank))
    assert len(found) == 1
    assert "bank.yaml:" in found[0] and "question 'capacity'" in found[0] and says in found[0]


def test_a_symlink_out_of_the_bank_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "secret.png"
    outside.write_bytes(png())
    directory = write_rich_bank(tmp_path / "bank")
    os.symlink(outside, directory / "media" / "link.png")
    found = errors(write_rich_bank(directory, BANK.replace("media/bar.png", "media/link.png")))
    assert any("symbolic link that leads out of the bank folder" in f and "choice 'a'" in f for f in found)


def test_an_svg_with_a_script_is_refused(tmp_path: Path) -> None:
    directory = write_rich_bank(tmp_path)
    hostile = SVG.replace("</svg>", "<script>fetch('https://evil.example')</script></svg>")
    (directory / "media" / "dispatch.svg").write_text(hostile, encoding="utf-8")
    found = errors(directory)
    assert len(found) == 1 and "has a <script> element" in found[0] and "question 'capacity'" in found[0]


@pytest.mark.parametrize(
    ("svg", "says"),
    [
        (SVG.replace("<rect", '<rect onclick="alert(1)"'), "event attribute 'onclick'"),
        (SVG.replace("<rect", '<image href="https://evil.example/x.png"/><rect'), "outside the file"),
        (SVG.replace("<rect", "<foreignObject><p>x</p></foreignObject><rect"), "foreignObject"),
        ('<!DOCTYPE svg [<!ENTITY x "y">]>' + SVG, "DOCTYPE"),
    ],
)
def test_other_active_or_external_svg_content_is_refused(tmp_path: Path, svg: str, says: str) -> None:
    directory = write_rich_bank(tmp_path)
    (directory / "media" / "dispatch.svg").write_text(svg, encoding="utf-8")
    found = errors(directory)
    assert len(found) == 1 and says in found[0]


def test_a_50_mb_image_is_refused_without_being_read_whole(tmp_path: Path) -> None:
    directory = write_rich_bank(tmp_path)
    with (directory / "media" / "bar.png").open("wb") as big:
        big.write(png())
        big.truncate(50 * 1024 * 1024)
    found = errors(directory)
    assert len(found) == 1 and "is 50.0 MiB; the limit is 1.0 MiB" in found[0] and "choice 'a'" in found[0]


def test_the_size_limit_is_set_in_bank_yaml(tmp_path: Path) -> None:
    directory = write_rich_bank(tmp_path, BANK.replace("target_locales", "media_max_kib: 1\ntarget_locales"))
    (directory / "media" / "bar.png").write_bytes(png(64, 64, (1, 2, 3)) + b"\0" * 2048)
    assert any("the limit is 1 KiB" in f for f in errors(directory))


def test_a_file_whose_bytes_are_another_type_than_its_name_is_refused(tmp_path: Path) -> None:
    directory = write_rich_bank(tmp_path)
    (directory / "media" / "bar.png").write_bytes(b"\xff\xd8\xff\xe0" + b"\0" * 100)
    found = errors(directory)
    assert len(found) == 1 and "named as image/png but its bytes are image/jpeg" in found[0]


def test_an_image_without_alt_text_is_an_error(tmp_path: Path) -> None:
    found = errors(write_rich_bank(tmp_path, BANK.replace("![Capacity bar]", "![]")))
    assert len(found) == 1 and "has no alt text" in found[0] and "choice 'a'" in found[0]


def test_a_formula_that_does_not_parse_is_named_with_its_line(tmp_path: Path) -> None:
    found = errors(write_rich_bank(tmp_path, BANK.replace(r"$128$", r"$\\frac{1}{$")))
    assert len(found) == 1
    assert "bank.yaml:22:" in found[0] and "choice 'b'" in found[0] and "unbalanced" in found[0]


def test_a_bad_formula_in_a_translation_names_the_po_file_and_line(tmp_path: Path) -> None:
    from .rich_support import PO

    po = {**PO, "vi": PO["vi"].replace("dung lượng $f$", r"dung lượng $\\nosuch{f}$")}
    found = errors(write_rich_bank(tmp_path, po=po))
    assert len(found) == 1 and "vi.po:6:" in found[0] and r"\nosuch" in found[0] and "choice 'b'" in found[0]


def test_a_translation_may_point_at_its_own_localised_image(tmp_path: Path) -> None:
    from .rich_support import PO

    entry = (
        '\nmsgctxt "capacity/choices/a/explanation"\n'
        'msgid "Right: ![Capacity bar](media/bar.png) $160 = 1.25 \\\\times 128$."\n'
        'msgstr "Đúng: ![Thanh dung lượng](media/vi/bar.png) $160 = 1.25 \\\\times 128$."\n'
    )
    directory = write_rich_bank(tmp_path, po={**PO, "vi": PO["vi"] + entry})
    (directory / "media" / "vi").mkdir()
    (directory / "media" / "vi" / "bar.png").write_bytes(png(rgb=(0, 0, 200)))
    bank, found = check_bank(directory)
    assert [str(p) for p in found] == [] and bank is not None
    assert bank.media["media/vi/bar.png"].data == png(rgb=(0, 0, 200))


@pytest.mark.parametrize("formula", [r"\frac{a}", "x^", r"\left( x", r"\unknowncommand", "a}"])
def test_formulas_that_do_not_parse(formula: str) -> None:
    with pytest.raises(FormulaError):
        check_formula(formula)


def test_math_becomes_tex_delimiters_or_mathml_with_the_latex_kept() -> None:
    assert (
        render_block(r"So $x^2$ and \$5.")
        == r'<p>So <bdi dir="ltr" style="white-space:nowrap">\(x^2\)</bdi> and $5.</p>'
    )
    with rendering(Profile(math="mathml")):
        html = render_block(r"So $x^2$.")
    assert "<msup><mi>x</mi><mn>2</mn></msup>" in html
    assert '<annotation encoding="application/x-tex">x^2</annotation>' in html


def test_code_is_highlighted_with_inline_styles_and_the_sanitiser_still_runs() -> None:
    html = render_block('```python\nprint("hi")\n```\n\nSee <script>alert(1)</script> and $x$')
    assert '<span style="color: #008000">print</span>' in html
    assert "<script" not in html and r"\(x\)" in html


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab $!*_`<>[]()#-\n\\&")), max_size=40))
def test_text_without_math_images_or_fences_renders_as_text_py_renders_it(markdown: str) -> None:
    from moe_lms import text

    if formulas_in(markdown) or markdown.count("$") >= 2 or "](" in markdown or "```" in markdown or "~~~" in markdown:
        return  # (two dollars may be a formula: inline text is parsed without block structure)
    assert render_block(markdown) == text.render_block(markdown)
    from moe_lms.richtext import render_inline

    assert render_inline(markdown) == text.render_inline(markdown)


def formulas_in(markdown: str) -> list[tuple[str, bool]]:
    from moe_lms.richtext import formulas

    return list(formulas(markdown))


def test_translation_checks_keep_formulas_and_images_and_allow_a_localised_image() -> None:
    from moe_lms.quality import analyse, parity_problems

    source = analyse("Capacity ![A bar](media/bar.png) is $C = 160$.")
    kept = analyse("Dung lượng ![Một thanh](media/vi/bar.png) là $C = 160$.")
    assert parity_problems(source, kept, "en", "vi") == []
    lost = analyse("Dung lượng là $C = 16$.")
    problems = parity_problems(source, lost, "en", "vi")
    assert any("image" in p for p in problems) and any("math" in p for p in problems)
