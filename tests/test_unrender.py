"""HTML back to Markdown for importers: the Markdown renders to the same HTML, and reads like Markdown."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings

from moe_lms.text import render_block, render_inline
from moe_lms.unrender import markdown_from_html

from .strategies import texts

HEADING = re.compile(r"(^|\n)[ \t]*(#|=+[ \t]*(\n|$)|-+[ \t]*(\n|$))")


@pytest.mark.parametrize(
    "markdown",
    [
        "What does expert parallelism distribute across GPUs?",
        "A *routed* token runs **two** experts: `top-2`.",
        "See [the paper](https://example.org/moe).",
        "First paragraph.\n\nSecond paragraph.",
        "- dispatch\n- combine",
        "1. route\n2. compute",
        "> quoted",
        "```\ncode\n\nmore\n```",
        "a \\*literal\\* star & a <",
        "x ~ y = z # w : v { u }",
        "ایم او ای سرونگ کوئز کے لیے ماہر متوازی",
    ],
)
def test_what_text_py_renders_comes_back_as_markdown_that_renders_the_same(markdown: str) -> None:
    for render, inline in ((render_block, False), (render_inline, True)):
        rendered = render(markdown)
        assert render(markdown_from_html(rendered, inline=inline)) == rendered


def test_plain_text_comes_back_character_for_character() -> None:
    text = "Tokens & experts < devices > routers ]]> {x} ~ = # : \u202eA\u200f 😀 e\u0301"
    assert markdown_from_html(render_block(text)) == text
    assert markdown_from_html(render_inline(text), inline=True) == text


def test_formatting_comes_back_as_markdown_not_html() -> None:
    assert markdown_from_html("<p>A <em>routed</em> token runs <code>top-2</code>.</p>") == (
        "A *routed* token runs `top-2`."
    )
    assert markdown_from_html("<ul>\n<li>dispatch</li>\n<li>combine</li>\n</ul>") == "- dispatch\n- combine"


def test_editor_noise_from_moodle_is_tidied_when_asked() -> None:
    atto = '<p dir="ltr" style="text-align: left;">Tension and <strong>mass</strong></p>'
    assert markdown_from_html(atto, tidy=True) == "Tension and **mass**"
    assert markdown_from_html(atto, inline=True, tidy=True) == "Tension and **mass**"


def test_scripts_and_event_handlers_never_reach_the_bank() -> None:
    markdown = markdown_from_html('<p onclick="x()">Hi<script>alert(1)</script></p>')
    assert "script" not in markdown and "onclick" not in markdown
    assert markdown == "Hi"


def test_deeply_nested_html_is_kept_as_html_instead_of_crashing() -> None:
    nested = "<p>" + "<b>" * 3000 + "deep" + "</b>" * 3000 + "</p>"
    markdown = markdown_from_html(nested)
    assert "deep" in markdown


def test_empty_html_is_no_text() -> None:
    assert markdown_from_html("") == ""
    assert markdown_from_html("<p></p>") == "<p></p>"  # what text.py renders from "<p>"; "" would render the same


@settings(max_examples=300, deadline=None)
@given(texts)
def test_anything_text_py_renders_comes_back_rendering_the_same(markdown: str) -> None:
    # text.py drops the tags of level-1 and -2 headings ("# x" renders to a bare "x"): no Markdown renders to that.
    assume(not HEADING.search(markdown))
    for render, inline in ((render_block, False), (render_inline, True)):
        rendered = render(markdown)
        assume(rendered)
        assert render(markdown_from_html(rendered, inline=inline)) == rendered


@pytest.mark.parametrize("code", ["0\xa0", "no-break\xa0space & <tags> \"quoted\" 'x'", "\u202eA\u200f 😀"])
def test_a_code_block_is_written_the_same_fenced_or_indented(code: str) -> None:
    # An import reads an indented block back as a fenced one; a no-break space written raw by one and as
    # &nbsp; by the other made a Moodle export, imported and exported again, differ in its bytes.
    from moe_lms import richtext

    assert richtext.render_block(f"```\n{code}\n```") == richtext.render_block(f"    {code}")
