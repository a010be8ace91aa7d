"""Prose an attacker (or an accident) shapes oddly loses nothing: a <textarea> named in imported text leaves no
literal tag behind, and text nested past what an HTML parser reads is kept, every word."""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path

import pytest

from moe_lms import formats, richtext, text
from moe_lms.formats import ExportOptions
from moe_lms.formats.qti12 import Text
from moe_lms.loader import load_bank
from moe_lms.unrender import markdown_from_html

from .corpus import bank_with_stem


@pytest.mark.parametrize("tag", ["textarea", "title", "xmp", "noscript"])
def test_a_raw_text_element_named_in_imported_prose_leaves_no_literal_tag(tag: str) -> None:
    fragment = f"<p>Type your answer in the <{tag}> below.</p><p>Then press <b>Check</b>.</p>"
    markdown = Text(fragment, None, inline=False).markdown()
    rendered = text.render_block(markdown)
    assert "&lt;/p&gt;" not in rendered and "&lt;b&gt;" not in rendered
    assert f"&lt;{tag}&gt; below." in rendered and "<b>Check</b>" in rendered
    assert markdown_from_html(fragment) == markdown


def test_text_after_300_deep_nesting_is_kept_in_every_export() -> None:
    stem = "<b>" * 300 + "deep" + "</b>" * 300 + " AFTERWORD"
    bank = load_bank(bank_with_stem(Path(tempfile.mkdtemp()), stem))
    for name in formats.names():
        data = formats.get(name).dump(bank, ExportOptions(locales=bank.locales))
        parts = [data]
        if data[:2] == b"PK":
            with zipfile.ZipFile(io.BytesIO(data)) as package:
                parts = [package.read(member) for member in package.namelist()]
        assert any(b"AFTERWORD" in part for part in parts), name


def test_nesting_within_the_limit_renders_as_markup() -> None:
    stem = "<b>" * richtext.MAX_NESTING + "x" + "</b>" * richtext.MAX_NESTING
    assert richtext.render_inline(stem).startswith("<b><b>")
    deeper = "<b>" * (richtext.MAX_NESTING + 1) + "x" + "</b>" * (richtext.MAX_NESTING + 1)
    assert richtext.render_inline(deeper).startswith("&lt;b&gt;")
