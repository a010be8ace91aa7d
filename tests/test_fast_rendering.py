"""The writers that build text themselves (Canvas payloads, GIFT) take a short cut for text with no Markdown
syntax and no math: it is itself as inline HTML and as plain text, ``<p>text</p>`` as block HTML. The short cut
gives exactly what the renderer gives, for any text."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from moe_lms.formats import _rendered
from moe_lms.rich import Profile, plain_text, render_block, render_inline, rendering

from .strategies import mixed_texts

ANY_TEXT = st.one_of(mixed_texts, st.text(max_size=30))


@settings(max_examples=500, deadline=None)
@given(text=ANY_TEXT, profile=st.sampled_from([Profile(math="tex"), Profile(math="mathml")]))
@example(text="", profile=Profile(math="tex"))
@example(text="1. one", profile=Profile(math="tex"))
@example(text="a  b", profile=Profile(math="tex"))
@example(text="$x$ and $y$", profile=Profile(math="mathml"))
@example(text="- item", profile=Profile(math="tex"))
@example(text="price: $5", profile=Profile(math="tex"))
@example(text=" lead", profile=Profile(math="tex"))
def test_the_short_cut_renders_as_the_renderer_does(text: str, profile: Profile) -> None:
    with rendering(profile):
        assert _rendered.block_html(text) == render_block(text)
        assert _rendered.inline_html(text) == render_inline(text)
        assert _rendered.plain(text) == plain_text(text)
