"""One Markdown renderer and one HTML sanitiser for every format.

Bank text is Markdown (CommonMark, inline HTML allowed); what leaves moe-lms is HTML that passed an
allow-list, so a question can never carry a script into an LMS.
"""

from __future__ import annotations

import html
import re
from functools import cache, lru_cache
from typing import TYPE_CHECKING

import nh3

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

ALLOWED_TAGS = frozenset(
    {
        "p", "br", "strong", "em", "b", "i", "u", "s", "sub", "sup", "code", "pre", "kbd", "blockquote",
        "ul", "ol", "li", "a", "span", "div", "table", "thead", "tbody", "tr", "th", "td", "hr",
        "h1", "h2", "h3", "h4", "h5", "h6", "img", "bdi", "bdo",
    }
)  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "*": {"lang", "dir", "title"},
    "a": {"href"},
    "img": {"src", "alt", "width", "height"},
    "ol": {"start"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan"},
}
URL_SCHEMES = frozenset({"http", "https", "mailto"})


@cache
def _markdown() -> MarkdownIt:
    """The Markdown parser, made when first needed: text without Markdown syntax never needs it (see below),
    and importing markdown-it is a fifth of a small command's start-up."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True, "typographer": False}).enable("table").enable("strikethrough")


# Text with none of these can only render to itself (it has no & < > to escape), so it skips the Markdown parser
# (the hot path of large banks). A property test checks both paths agree.
_MARKDOWN_CHARACTERS = re.compile(r"[\\`*_\[\]<>&#!|~\n\r\t\u00a0]")
_LIST_NUMBER = re.compile(r"\d+[.)]")
_START_MARKS = frozenset("-+=>")


def _renders_as_itself(markdown: str) -> bool:
    """No Markdown syntax: no syntax character, no double space, nothing at the start or end that Markdown reads
    (a space, a list or heading marker, a quote mark, a list number).

    (One alternation regex did the same 3-6x slower: it tried the anchored alternatives at every position.)
    """
    first = markdown[:1]
    return not (
        _MARKDOWN_CHARACTERS.search(markdown)
        or "  " in markdown
        or first in _START_MARKS
        or first.isspace()
        or (first.isdecimal() and _LIST_NUMBER.match(markdown))
        or markdown[-1:].isspace()
    )


# Public for exporters that write text into XML themselves: such text is itself as inline HTML, and the one
# paragraph <p>text</p> as block HTML, with nothing to escape.
renders_as_itself = _renders_as_itself


# Built once: nh3.clean with keyword arguments converts the allow-lists on every call, four times the cost.
_cleaner = nh3.Cleaner(
    tags=set(ALLOWED_TAGS),
    attributes={k: set(v) for k, v in ALLOWED_ATTRIBUTES.items()},
    url_schemes=set(URL_SCHEMES),
    link_rel="noopener noreferrer",
)


def sanitize(fragment: str) -> str:
    """Allow-list HTML sanitising (nh3, i.e. ammonia)."""
    return _cleaner.clean(fragment)


def render_block(markdown: str) -> str:
    """Markdown to sanitised HTML block content (paragraphs, lists …), no trailing newline."""
    if _renders_as_itself(markdown):  # (it has no & < >, so it needs no escaping either)
        return f"<p>{markdown}</p>"
    return _render_markdown(markdown, False)


def render_inline(markdown: str) -> str:
    """Markdown to sanitised inline HTML (no wrapping paragraph), for choices and titles."""
    if _renders_as_itself(markdown):
        return markdown
    return _render_markdown(markdown, True)


# Only real Markdown is cached (plain text costs less than a cache look-up). A multi-locale export renders the
# source text of every string that fell back once per locale, a whole locale apart, so the cache is large.
@lru_cache(maxsize=65536)
def _render_markdown(markdown: str, inline: bool) -> str:
    md = _markdown()
    return sanitize(md.renderInline(markdown) if inline else md.render(markdown)).strip()


def plain_text(markdown: str) -> str:
    """The text a learner reads, without markup: for names, titles and plain-text formats."""
    rendered = render_inline(markdown)
    return html.unescape(re.sub(r"<[^>]+>", "", rendered))
