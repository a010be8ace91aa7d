"""The renderer's shortcuts for text with no Markdown render exactly what the thorough path renders."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from moe_lms import rich, text

# Characters that start Markdown blocks or mean rich content, mixed with any text.
syntaxy = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]),
        st.sampled_from(list("-+=>.)0123456789٣ \u00a0\u2003#*$![]`~_<>&\\|\t\n")),
    ),
    min_size=0,
)


def thorough(markdown: str, inline: bool) -> str:
    """rich.render_block / render_inline as they were written before the shared shortcut: text.py's path unless
    the text may hold rich content."""
    if not rich.has_rich(markdown):
        return text.render_inline(markdown) if inline else text.render_block(markdown)
    return rich._render(markdown, inline, rich._profile.get())


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
    with rich.rendering(rich.Profile(math=math)):  # type: ignore[arg-type]
        assert rich.render_block(s) == thorough(s, False)
        assert rich.render_inline(s) == thorough(s, True)
        if rich.renders_as_itself(s):
            assert rich.render_block(s) == f"<p>{s}</p>"
            assert rich.render_inline(s) == s
