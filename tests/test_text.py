"""One Markdown renderer and one allow-list sanitiser for every format."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from moe_lms import text


def test_markdown_renders_to_html() -> None:
    assert text.render_block("Use **top-k** routing") == "<p>Use <strong>top-k</strong> routing</p>"
    assert text.render_inline("`all-to-all` *twice*") == "<code>all-to-all</code> <em>twice</em>"


def test_scripts_and_event_handlers_are_removed() -> None:
    html = text.render_block(
        'Hi <script>alert(1)</script><img src="x.png" onerror="alert(2)"> [a](javascript:alert(3))'
    )
    assert "<script" not in html and "onerror" not in html and 'href="javascript' not in html
    assert '<img src="x.png">' in html


def test_markup_characters_are_escaped() -> None:
    assert text.render_inline("a < b & c > d") == "a &lt; b &amp; c &gt; d"


def test_plain_text_strips_markup() -> None:
    assert text.plain_text("**Top-k** & <em>more</em>") == "Top-k & more"


@settings(max_examples=300)
@given(
    st.text(
        alphabet=st.one_of(
            st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]),
            st.sampled_from(list("-+=>.)0123456789٣ \u00a0\u2003#*")),  # what may start a Markdown block
        ),
        min_size=1,
    )
)
@example("1. a list item")
@example("12) another")
@example("1.5 is a number")
@example("٣. an Arabic-Indic digit")
@example("- a bullet")
@example("+ a bullet")
@example("= an underline")
@example("> a quote")
@example(" a leading space")
@example("a trailing space ")
@example("two  spaces")
def test_plain_text_fast_path_renders_exactly_as_markdown_it(s: str) -> None:
    slow_block = text.sanitize(text._markdown().render(s)).strip()
    slow_inline = text.sanitize(text._markdown().renderInline(s)).strip()
    assert text.render_block(s) == slow_block
    assert text.render_inline(s) == slow_inline


def test_headings_keep_their_level_so_importers_can_read_them_back() -> None:
    assert text.render_block("# Title\n\n## Part") == "<h1>Title</h1>\n<h2>Part</h2>"
