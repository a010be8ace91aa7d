"""Quantities inside right-to-left sentences are isolated whole (issue 33): the markup, format by format.

tests/test_rtl_urdu_reading.py measures what Chromium draws of it; these say what is written, without a browser.
"""

from __future__ import annotations

from moe_lms.richtext import Profile, direction_style, latin_isolated, render_block, rendering

BDI = Profile()
CANVAS = Profile(isolate="span")
CLASSES = Profile(math="mathml", styles=False, ltr=True)
ONE_LINE = 'style="white-space:nowrap"'


def test_a_number_and_its_unit_are_one_isolate_kept_on_one_line() -> None:
    with rendering(BDI):
        made = latin_isolated("<p>اوسطاً 48 KiB منتقل ہوتے ہیں (1 KiB = 1024 بائٹس)</p>")
    assert made == (
        f'<p>اوسطاً <bdi dir="ltr" {ONE_LINE}>48 KiB</bdi> منتقل ہوتے ہیں '
        f'(<bdi dir="ltr" {ONE_LINE}>1 KiB = 1024</bdi> بائٹس)</p>'
    )


def test_a_formula_and_the_unit_after_it_are_one_isolate() -> None:
    with rendering(BDI):
        made = latin_isolated(render_block("کل $= 8$ KiB ہے"))
    assert made == f'<p>کل <bdi dir="ltr" {ONE_LINE}>\\(= 8\\) KiB</bdi> ہے</p>'


def test_canvas_gets_spans_and_a_stylesheet_format_a_class() -> None:
    with rendering(CANVAS):
        assert latin_isolated("<p>ہر 8 GPUs پر</p>") == f'<p>ہر <span dir="ltr" {ONE_LINE}>8 GPUs</span> پر</p>'
    with rendering(CLASSES):
        made = latin_isolated("<p>ہر 8 GPUs پر</p>")
    assert made == '<p>ہر <bdi dir="ltr" class="moe-nowrap">8 GPUs</bdi> پر</p>'


def test_words_alone_numbers_alone_code_and_links_are_left_as_they_are() -> None:
    text = '<p>DeepSeek-V3 کی 1000 ٹوکن <code>int(6000 * 1.25)</code> اور <a href="https://x.org/a">8 GB</a></p>'
    with rendering(BDI):
        assert latin_isolated(text) == text


def test_a_long_formula_may_wrap_and_a_short_one_may_not() -> None:
    with rendering(BDI):
        short = render_block("$k = 8$")
        long = render_block(r"$\frac{1.25 \times 6000 \times 8}{128} = 468.75 + 0.25 = 469$")
    assert ONE_LINE in short and "nowrap" not in long


def test_urdu_lines_are_tall_and_latin_words_take_latin_faces_without_arabic() -> None:
    style = direction_style("ur")
    assert "line-height:2.7" in style
    fonts = style.split("font-family:")[1].split(";")[0].split(",")
    assert fonts.index("'Noto Sans'") < fonts.index("'DejaVu Sans'")
    assert fonts.index("'Noto Nastaliq Urdu'") == 0
    assert not {"Arial", "'Segoe UI'", "system-ui"} & set(fonts)  # (they carry Arabic: Urdu would be Naskh)


def test_a_code_block_keeps_a_code_blocks_line_height() -> None:
    with rendering(BDI):
        made = render_block("```python\nx = 1\n```")
    assert "line-height:1.45" in made
