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
@example("\ufeff a byte-order mark first")
def test_plain_text_fast_path_renders_exactly_as_markdown_it(s: str) -> None:
    slow_block = text._render_markdown(s, False)
    slow_inline = text._render_markdown(s, True)
    assert text.render_block(s) == slow_block
    assert text.render_inline(s) == slow_inline


def test_headings_keep_their_level_so_importers_can_read_them_back() -> None:
    assert text.render_block("# Title\n\n## Part") == "<h1>Title</h1>\n<h2>Part</h2>"


# --- markup safety: raw HTML is markup the sanitiser keeps, or the text the author wrote (issue 11, items 20–21) ---


def test_prose_that_mentions_a_tag_keeps_every_word_after_it() -> None:
    assert text.render_block("Never put a <script> here; it runs.") == (
        "<p>Never put a &lt;script&gt; here; it runs.</p>"
    )
    assert text.render_inline("A <template> holds inert markup") == "A &lt;template&gt; holds inert markup"
    assert text.render_block("<style>p { color: red }</style> styled") == (
        "<p>&lt;style&gt;p { color: red }&lt;/style&gt; styled</p>"
    )


def test_a_comparison_that_reads_like_a_tag_is_text() -> None:
    assert text.render_inline("a<b and c>d") == "a&lt;b and c&gt;d"
    assert text.render_inline("x<y and z>w") == "x&lt;y and z&gt;w"


def test_a_raw_html_block_of_unknown_tags_keeps_its_text() -> None:
    rendered = text.render_block("<style>\np { color: red }\n</style>\n\nThe words after it.")
    assert "p { color: red }" in rendered and "<p>The words after it.</p>" in rendered
    assert "<style" not in rendered


def test_allowed_markup_stays_markup_and_its_unsafe_attributes_still_go() -> None:
    assert text.render_inline('<em>now</em> <span lang="ur" dir="rtl">ہاں</span>') == (
        '<em>now</em> <span lang="ur" dir="rtl">ہاں</span>'
    )
    assert text.render_inline('<img src="x.png" onerror="alert(1)">') == '<img src="x.png">'
    assert text.render_block("<div>\n<p>raw block</p>\n</div>") == "<div>\n<p>raw block</p>\n</div>"


def test_nesting_deeper_than_the_markdown_parser_goes_keeps_every_word() -> None:
    for deep in (">" * 30 + " deep quote\n\nthe end", "- " * 30 + "deep list\n\nthe end"):
        rendered = text.render_block(deep)
        assert "deep" in rendered and "the end" in rendered, rendered


def test_a_line_of_text_holds_only_inline_markup() -> None:
    """A choice holding <p> or <li> must not close the paragraph or list item it is shown in."""
    assert text.render_inline("<li>one</li>") == "one"
    assert text.render_inline("<p>a <em>b</em></p>") == "a <em>b</em>"
    assert text.render_inline("<div><h3>Title</h3></div>") == "Title"


def test_plain_text_never_carries_a_tag() -> None:
    """Names and titles are plain text that an LMS may show as HTML: escaped markup must not come back live."""
    assert text.plain_text("&lt;script&gt;alert(1)&lt;/script&gt; name") == "‹script>alert(1)‹/script> name"
    assert text.plain_text("Never put a <script> here") == "Never put a ‹script> here"
    assert text.plain_text("&lt;!-- a comment --&gt;") == "‹!-- a comment -->"
    assert text.plain_text("a < b and c > d, 3<4") == "a < b and c > d, 3<4"
    assert text.plain_text("**bold** &amp; <em>more</em>") == "bold & more"


def test_attribute_values_with_spaces_are_values_not_words() -> None:
    assert text.render_inline('<span title="two words">x</span>') == '<span title="two words">x</span>'
    assert text.render_inline("<a href='https://example.org' class=\"a b\">x</a>") == (
        '<a href="https://example.org" rel="noopener noreferrer">x</a>'
    )


def test_link_titles_with_quotes_and_angle_brackets_stay_one_attribute() -> None:
    for markdown in (
        '[t](https://x.org "a \\"q\\" <b> & \'s")',
        '<a href="https://x.org" title=\'a "q" <b> & &#39;s\'>t</a>',
    ):
        rendered = text.render_inline(markdown)
        assert rendered == (
            '<a href="https://x.org" title="a &quot;q&quot; &lt;b&gt; &amp; \'s" rel="noopener noreferrer">t</a>'
        ), markdown
        assert text.plain_text(markdown) == "t"


def test_a_text_that_renders_only_empty_tags_shows_nothing_but_an_image_or_a_formula_is_something() -> None:
    from moe_lms.text import renders_blank

    assert renders_blank(text.render_inline("<P>"))  # an allowed tag with no text: "<p></p>"
    assert renders_blank(text.render_block("<!-- a note -->"))
    assert renders_blank("")
    assert not renders_blank(text.render_inline("<b>bold</b>"))
    assert not renders_blank('<img src="media/a.png" alt="">')
    assert not renders_blank("<math><mn>2</mn></math>")


def test_a_character_reference_in_raw_html_to_a_character_no_export_carries_becomes_a_replacement_character() -> None:
    # html5ever decodes "&#11" (U+000B) in raw HTML; CommonMark makes the same reference outside raw HTML U+FFFD.
    assert text.render_block("<b>\n&#11") == "<b>\n\ufffd</b>"
    assert text.render_block("a &#11; b") == "<p>a \ufffd b</p>"
