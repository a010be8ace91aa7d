"""The renderer's shortcuts for text with no Markdown render exactly what the thorough path renders."""

from __future__ import annotations

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from moe_lms import richtext, text

# Characters that start Markdown blocks or mean rich content, mixed with any text.
syntaxy = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]),
        st.sampled_from(list("-+=>.)0123456789٣ \u00a0\u2003#*$![]`~_<>&\\|\t\n")),
    ),
    min_size=0,
)


def thorough(markdown: str, inline: bool) -> str:
    """richtext.render_block / render_inline as they were written before the shared shortcut: text.py's path unless
    the text may hold rich content."""
    if not richtext.has_rich(markdown):
        if inline:
            return text.render_inline(markdown)
        block = text.render_block(markdown)  # (an indented code block takes code_block's line height: issue 33)
        style = f'<pre dir="ltr" style="{richtext.PLAIN_CODE_STYLE}"><code'
        return block.replace('<pre dir="ltr"><code', style) if richtext._profile.get().highlight == "inline" else block
    return richtext._render(markdown, inline, richtext._profile.get())


@settings(max_examples=500, deadline=None)
@given(syntaxy, st.sampled_from(["tex", "mathml"]))
@example("plain words", "tex")
@example("a $5 price", "tex")
@example("$x$", "mathml")
@example("an ![image](media/a.png)", "tex")
@example("~~~\ncode\n~~~", "tex")
@example("```\ncode\n```", "tex")
@example("", "tex")
def test_text_with_no_syntax_or_rich_character_renders_as_the_thorough_path_renders_it(s: str, math: str) -> None:
    assume(richtext.formula_problem(s) is None)  # (check refuses such text before any export)
    with richtext.rendering(richtext.Profile(math=math)):  # type: ignore[arg-type]
        assert richtext.render_block(s) == thorough(s, False)
        assert richtext.render_inline(s) == thorough(s, True)
        if richtext.renders_as_itself_everywhere(s):
            assert richtext.render_block(s) == f"<p>{s}</p>"
            assert richtext.render_inline(s) == s


@settings(max_examples=500, deadline=None)
@given(syntaxy)
@example("  two spaces")
@example("1. listed")
@example("2.0 ms")
@example("trailing ")
@example("a $5 price")
@example("")
def test_a_text_renders_as_itself_everywhere_when_it_renders_as_itself_and_holds_no_dollar(s: str) -> None:
    # (the writers' hot test, asked once per string through LocalizedView.question_plain)
    assert text.renders_as_itself_everywhere(s) == (text.has_no_markdown_syntax(s) and "$" not in s)
    if text.has_no_markdown_syntax(s):
        assert text.render_block(s) == f"<p>{s}</p>" and text.render_inline(s) == s


# Plain prose, which takes the joined run's shortcut, and texts with what makes the per-text test refuse them.
prose = st.text(alphabet=st.sampled_from(list("ab .,-:?'ậا")), min_size=0, max_size=12)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(prose, syntaxy, syntaxy.map(lambda s: s + "\x00"), st.just("x\x00-y")), max_size=12))
@example(["plain", "words"])
@example(["plain ", "words"])
@example(["plain", " words"])
@example(["plain", "-words"])
@example(["a", "1. listed"])
@example(["a", "1.", "b"])
@example(["a\x00", " b"])
@example(["", ""])
@example([])
def test_a_question_s_texts_render_as_themselves_everywhere_when_each_does(texts: list[str]) -> None:
    # (the batched form LocalizedView.question_plain asks: three searches of the texts joined, for the whole run)
    want = bytes(text.renders_as_itself_everywhere(t) for t in texts)
    assert text.render_as_themselves_everywhere(texts) == want


def test_the_syntax_searches_match_exactly_the_syntax_characters() -> None:
    # (the regexes are made from the characters, which the joined run's ``in`` scans look for one by one)
    for pattern, characters in [
        (text._MARKDOWN_CHARACTERS, text.MARKDOWN_CHARACTERS),
        (text.SYNTAX_OR_MATH, text.MARKDOWN_CHARACTERS + "$"),
    ]:
        assert {chr(c) for c in range(0x30000) if pattern.match(chr(c))} == set(characters)


def blank_by_definition(rendered: str) -> bool:
    """renders_blank as its docstring says it: no text once the tags are gone, and no image or formula."""
    return not text._TAG.sub("", rendered).strip() and not text._CONTENT_ELEMENT.search(rendered)


@settings(max_examples=500, deadline=None)
@given(st.one_of(syntaxy, syntaxy.map(lambda s: f"<p>{s}</p>"), syntaxy.map(text.render_block)))
@example("<p></p>")
@example("<p> </p>")
@example("<p><img src='x'></p>")
@example("<p>")
@example("<p")
@example("<p><!-- c --></p>")
@example("\u3000<p></p>")
def test_the_blank_check_of_rendered_html_agrees_with_its_definition(rendered: str) -> None:
    assert text.renders_blank(rendered) == blank_by_definition(rendered)


@settings(max_examples=300, deadline=None)
@given(syntaxy)
@example("plain words")
@example("a < b")
@example("x &amp; y")
def test_the_plain_text_of_text_with_no_math_or_image_is_text_pys(s: str) -> None:
    if "$" not in s and "![" not in s:  # (richtext.plain_text's own reading of math and images is not shortcut)
        assert richtext.plain_text(s) == text.plain_text(s)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789.) \tx٣\u00a0")), min_size=1))
@example("2.0 ms")
@example("1.")
@example("1)")
@example("1. x")
@example("1.\tx")
@example("1234567890. ten digits")
@example("٣. Arabic-Indic")
def test_a_number_at_the_start_is_a_list_number_only_when_markdown_it_says_so(s: str) -> None:
    assert text.render_block(s) == text._render_markdown(s, False)
    assert text.render_inline(s) == text._render_markdown(s, True)


def block_parsed(markdown: str, md: object, env: dict[str, object]) -> str:
    """A block rendering through markdown-it's block parser, as text._render_markdown and rich's renderer wrote
    every block before one paragraph took the shortcut (text.py's escape for too deep a nesting left out: one
    paragraph never reaches it)."""
    tokens = md.parse(markdown, env)  # type: ignore[attr-defined]
    return text.sanitize(md.renderer.render(tokens, md.options, env)).strip()  # type: ignore[attr-defined]


one_line = (
    st.lists(
        st.one_of(
            st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]),
            st.sampled_from(list("#>+=~`|<[]$-*_!()0123456789.) \t\u00a0\u2003\ufeff&;\\:/\"'")),
            st.sampled_from(["**", "__", "```", "~~~", "$$", "<em>", "</em>", "<p>", "<div>", "[a]: /u", "[a]", "1. "]),
        ),
        min_size=1,
    )
    .map("".join)
    .filter(lambda s: "\n" not in s and "\r" not in s)
)


@settings(max_examples=1000, deadline=None)
@given(one_line)
@example("**bold** at the start")
@example("* a bullet")
@example("*** a rule? no")
@example("***")
@example("_ _ _")
@example("__init__ is a name")
@example("[a]: /url")
@example("$$x$$")
@example("$$x$$ (1)")
@example("| a | b |")
@example("\ufeffbyte-order mark")
@example("1) x")
@example("12345678901. too long for a list")
@example("0$$&$")
def test_one_paragraph_renders_without_the_block_parser_as_with_it(s: str) -> None:
    if text.one_paragraph(s):
        assert text._render_markdown.__wrapped__(s, False) == block_parsed(s, text._markdown(), {})
        if richtext.formula_problem(s) is not None:  # (check refuses such text before any export)
            return
        for math in ("tex", "mathml"):
            profile = richtext.Profile(math=math)  # type: ignore[arg-type]
            holes = richtext._Holes()
            expected = holes.fill(block_parsed(s, richtext._markdown(), {"holes": holes, "profile": profile}))
            assert richtext._render_cached.__wrapped__(s, False, profile) == expected


def test_a_formula_with_a_lone_ampersand_is_named_as_a_formula_problem_not_a_crash() -> None:
    # latex2mathml writes LaTeX's column separator outside a matrix as a bare "&", which is no XML.
    problem = richtext.formula_problem("Both $a & b$ hold.")
    assert problem is not None and "$a & b$" in problem and "\\&" in problem
    assert richtext.formula_problem("An ampersand: $a \\& b$.") is None
    assert richtext.formula_problem("$\\begin{matrix} a & b \\\\ c & d \\end{matrix}$") is None


def test_a_formula_that_only_a_line_of_text_reads_as_math_is_checked_too() -> None:
    # As a block this text is raw HTML (it starts with <script>), so it holds no formula; as a choice or a title
    # (inline) it holds $6_em_$, which does not parse: check must name it, or the export would fail on it.
    line = "<script>alert(1)</script> costs $6_em_$"
    with richtext.rendering(richtext.Profile(math="mathml")):
        try:
            richtext.render_inline(line)
        except richtext.FormulaError as exc:
            assert richtext.formula_problem(line) == str(exc)
        else:
            raise AssertionError("the inline rendering was expected to meet the bad formula")
