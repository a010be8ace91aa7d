"""Rendered HTML of a bank text for the writers that build text themselves (Canvas payloads, GIFT).

The same HTML as :func:`moe_lms.rich.render_block` / ``render_inline`` / ``plain_text``, with the commonest case
decided in one test: text with no Markdown syntax and no math (see :func:`moe_lms.text.renders_as_itself`) is
itself as inline HTML and as plain text, and one paragraph ``<p>text</p>`` as block HTML. (At 10,000 questions the
rich → text → check chain of calls costs a writer a tenth of a second per pass.) A property test holds these
equal to rich's functions on any text.
"""

from __future__ import annotations

from ..rich import plain_text, render_block, render_inline
from ..text import renders_as_itself


def is_plain(text: str) -> bool:
    """Whether ``text`` renders as itself: no Markdown syntax, no math (``$``), so no image or code either."""
    return "$" not in text and renders_as_itself(text)


def block_html(text: str) -> str:
    return f"<p>{text}</p>" if is_plain(text) else render_block(text)


def inline_html(text: str) -> str:
    return text if is_plain(text) else render_inline(text)


def plain(text: str) -> str:
    return text if is_plain(text) else plain_text(text)
