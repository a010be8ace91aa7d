"""One Markdown renderer and one HTML sanitiser for every format.

Bank text is Markdown (CommonMark, inline HTML allowed); what leaves moe-lms is HTML that passed an
allow-list, so a question can never carry a script into an LMS.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import TYPE_CHECKING

import nh3

from .model import XML_ILLEGAL

if TYPE_CHECKING:  # markdown-it is imported when a text first needs it (see _markdown)
    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererHTML
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict

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
# What may sit inside a line of text (a choice, a title, a <label> or <span> of the take-the-quiz page): HTML's
# phrasing content among ALLOWED_TAGS. Inline text drops any other tag (keeping its text), so a choice holding
# <p> or <li> cannot close the paragraph or list item around it.
INLINE_TAGS = frozenset(
    {"br", "strong", "em", "b", "i", "u", "s", "sub", "sup", "code", "kbd", "a", "span", "img", "bdi", "bdo"}
)


@cache
def _markdown() -> MarkdownIt:
    """The Markdown parser, made when a text first needs it: text without Markdown syntax never does (see
    render_block), and importing markdown-it is a fifth of a small command's start-up."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True, "typographer": False}).enable("table").enable("strikethrough")
    md.add_render_rule("html_inline", render_html_inline)
    md.add_render_rule("html_block", render_html_block)
    md.add_render_rule("code_block", _code_block)
    return md


def _code_block(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    """An indented code block, left to right in any text (as richtext.code_block writes a fenced one)."""
    return f'<pre dir="ltr"><code>{html.escape(tokens[idx].content, quote=False)}</code></pre>\n'


# Text with none of these can only render to itself (it has no & < > to escape), so it skips the Markdown parser
# (the hot path of large banks). A property test checks both paths agree.
MARKDOWN_CHARACTERS = "\\`*_[]<>&#!|~\n\r\t\u00a0"
_MARKDOWN_CHARACTERS = re.compile(f"[{re.escape(MARKDOWN_CHARACTERS)}]")
_LIST_NUMBER = re.compile(r"\d+[.)](?:[ \t]|$)")  # (a list number is followed by a space or nothing)
_START_MARKS = frozenset("-+=>\ufeff")  # (markdown-it drops a byte-order mark that starts inline text)


def has_no_markdown_syntax(markdown: str) -> bool:
    """Whether the text renders as itself where ``$`` is not math (inline as the text, block as ``<p>text</p>``,
    nothing to escape; exporters that write text into XML themselves ask it). No Markdown syntax: no syntax
    character, no double space, nothing at the start or end that Markdown reads
    (a space, a list or heading marker, a quote mark, a list number).

    (One alternation regex did the same 3-6x slower: it tried the anchored alternatives at every position.)
    """
    return _MARKDOWN_CHARACTERS.search(markdown) is None and plain_layout(markdown)


def plain_layout(markdown: str) -> bool:
    """The rest of :func:`has_no_markdown_syntax`, for text with no syntax character: no double space, nothing at
    the start or end that Markdown reads."""
    first = markdown[:1]
    return not (
        "  " in markdown
        or first in _START_MARKS
        or first.isspace()
        or (first.isdecimal() and _LIST_NUMBER.match(markdown))
        or markdown[-1:].isspace()
    )


# The syntax characters and "$": text with none of them has no rich content either (each of richtext.py's marks holds
# one), so one search tells both (the hot path of large banks: every plain string).
_SYNTAX_OR_MATH_CHARACTERS = MARKDOWN_CHARACTERS + "$"
SYNTAX_OR_MATH = re.compile(f"[{re.escape(_SYNTAX_OR_MATH_CHARACTERS)}]")


def renders_as_itself_everywhere(markdown: str) -> bool:
    """:func:`has_no_markdown_syntax`, and no ``$`` (which a format may render as math): the text renders as itself in
    every profile (rich.has_no_markdown_syntax)."""
    return SYNTAX_OR_MATH.search(markdown) is None and plain_layout(markdown)


# A text's edges that plain_layout refuses, in a run of texts joined by NUL and framed by it: a mark, a space or a
# list number first (after a NUL), a space last (before one). (\s is str.isspace's test, \d str.isdecimal's.)
_BAD_EDGE = re.compile(r"\x00(?:(?<=\s\x00)|[-+=>\ufeff]|\s|\d+[.)](?:[ \t]|\x00))")


def render_as_themselves_everywhere(texts: Sequence[str]) -> bytes:
    """:func:`renders_as_itself_everywhere` of each text, as 1 or 0: a question's texts at once.

    A few scans of the texts joined by NUL say "every one" for a question of plain prose (most of a large bank), at
    half the cost of a test per text. They look for what any text would be refused for; a NUL inside a text can
    only make them find more, never less, and then each text is tested alone.
    """
    joined = "\x00".join(texts)
    if (
        "  " in joined
        or any(c in joined for c in _SYNTAX_OR_MATH_CHARACTERS)  # (``in`` scans: 4x the regex's speed here)
        or _BAD_EDGE.search(f"\x00{joined}\x00") is not None
    ):
        return bytes(map(renders_as_itself_everywhere, texts))
    return b"\x01" * len(texts)


# Built once: nh3.clean with keyword arguments converts the allow-lists on every call, four times the cost.
_cleaner = nh3.Cleaner(
    tags=set(ALLOWED_TAGS),
    attributes={k: set(v) for k, v in ALLOWED_ATTRIBUTES.items()},
    url_schemes=set(URL_SCHEMES),
    link_rel="noopener noreferrer",
)


inline_cleaner = nh3.Cleaner(
    tags=set(INLINE_TAGS),
    attributes={k: set(v) for k, v in ALLOWED_ATTRIBUTES.items() if k == "*" or k in INLINE_TAGS},
    url_schemes=set(URL_SCHEMES),
    link_rel="noopener noreferrer",
)


def sanitize(fragment: str) -> str:
    """Allow-list HTML sanitising (nh3, i.e. ammonia).

    A character reference in raw HTML can name a character no export may carry (``&#11`` is U+000B): the HTML
    parser decodes it, so it becomes U+FFFD here, as CommonMark already makes it outside raw HTML.
    """
    clean = _cleaner.clean(fragment)
    return XML_ILLEGAL.sub("\ufffd", clean) if XML_ILLEGAL.search(clean) else clean


# -- raw HTML in Markdown: markup the sanitiser keeps, or text the author wrote --------------------------------
#
# The sanitiser removes a tag it does not allow, and for some (<script>, <style>, <template>, …) everything up to
# their end tag: prose that mentions "<script>" lost the words after it, and "a<b and c>d" lost "b and c". So a raw
# tag stays markup only when the sanitiser keeps it (an allowed tag whose every attribute is allowed or a name=value
# pair the sanitiser can drop without losing words); any other tag is shown as the text it is. Comments stay
# comments (hidden on purpose; `check` names a text that is nothing else).
@cache
def _tag_parts() -> re.Pattern[str]:
    from markdown_it.common.html_re import attribute

    return re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)((?:" + attribute + r")*)\s*/?>")


# One attribute of a tag (CommonMark's, as markdown-it-py reads it): its name, and "=" when it has a value.
_ATTRIBUTE = re.compile(r"""\s+([a-zA-Z_:][a-zA-Z0-9:._-]*)(?:\s*(=)\s*(?:[^"'=<>`\x00-\x20]+|'[^']*'|"[^"]*"))?""")


def _is_markup(tag: str) -> bool:
    if tag.startswith("<!--"):
        return True
    parts = _tag_parts().fullmatch(tag)
    if parts is None:  # a processing instruction, a declaration, CDATA: none is HTML a learner sees
        return False
    name = parts.group(2).lower()
    if name not in ALLOWED_TAGS:
        return False
    allowed = ALLOWED_ATTRIBUTES["*"] | ALLOWED_ATTRIBUTES.get(name, set())
    return all(
        value or attribute_name.lower() in allowed for attribute_name, value in _ATTRIBUTE.findall(parts.group(3))
    )


def _raw_html(content: str) -> tuple[str, bool]:
    """Raw HTML from Markdown, with every tag that is not markup the sanitiser keeps escaped as text; and whether
    any markup is left."""
    from markdown_it.common.html_re import HTML_TAG_RE

    kept = False

    def tag(match: re.Match[str]) -> str:
        nonlocal kept
        if _is_markup(match.group()):
            kept = True
            return match.group()
        return html.escape(match.group(), quote=False)

    return HTML_TAG_RE.sub(tag, content), kept


def render_html_inline(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return _raw_html(tokens[idx].content)[0]


def render_html_block(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    content, kept = _raw_html(tokens[idx].content)
    return content if kept else f"<p>{content.strip()}</p>\n"  # no markup left: a paragraph of text


def too_deep(tokens: Sequence[Token]) -> bool:
    """Whether Markdown nesting reached markdown-it's limit, past which it silently drops the rest of the text."""
    limit = int(_markdown().options.maxNesting)
    return any(t.nesting == 1 and t.level >= limit - 1 for t in tokens)


def render_block(markdown: str) -> str:
    """Markdown to sanitised HTML block content (paragraphs, lists …), no trailing newline."""
    if _MARKDOWN_CHARACTERS.search(markdown) is None and plain_layout(markdown):  # (has_no_markdown_syntax)
        return f"<p>{markdown}</p>"  # (it has no & < >, so it needs no escaping either)
    return _render_markdown(markdown, False)


def render_inline(markdown: str) -> str:
    """Markdown to sanitised inline HTML (no wrapping paragraph), for choices and titles."""
    if _MARKDOWN_CHARACTERS.search(markdown) is None and plain_layout(markdown):  # (has_no_markdown_syntax)
        return markdown
    return _render_markdown(markdown, True)


# Only real Markdown is cached (plain text costs less than a cache look-up). A multi-locale export renders the
# source text of every string that fell back once per locale, a whole locale apart, so the cache is large.
@lru_cache(maxsize=65536)
def _render_markdown(markdown: str, inline: bool) -> str:
    md = _markdown()
    env: EnvType = {}
    if inline:
        return inline_cleaner.clean(md.renderer.render(md.parseInline(markdown, env), md.options, env)).strip()
    if one_paragraph(markdown):  # (a third faster: the block parser would find the one paragraph)
        return sanitize(f"<p>{md.renderer.render(md.parseInline(markdown, env), md.options, env)}</p>\n").strip()
    tokens = md.parse(markdown, env)
    if too_deep(tokens):  # nested deeper than any real text: keep every word, as text
        return "<p>" + html.escape(markdown, quote=False).strip().replace("\n", "<br>") + "</p>"
    return sanitize(md.renderer.render(tokens, md.options, env)).strip()


# What may start a block other than a paragraph on a line (CommonMark, markdown-it's table and dollarmath's $$):
# a heading, quote, fence, HTML block, reference, table, math block; a bullet or number of a list; a thematic
# break. Broader than each rule, on purpose: text starting so takes the block parser.
_BLOCK_START = re.compile(r"[#>+=~`|<\[\ufeff-]|\$\$|[*_](?:[ \t]|$)|[*_](?:[ \t]*[*_]){2,}[ \t]*$|\d+[.)](?:[ \t]|$)")


def one_paragraph(markdown: str) -> bool:
    """Whether block Markdown is one paragraph whose inline content is the whole text: one line, nothing around
    it to strip, no block syntax at its start. Its block rendering is then ``<p>`` and its inline rendering
    (before the sanitiser), found without the block parser."""
    return (
        "\n" not in markdown
        and "\r" not in markdown
        and markdown[:1] != ""
        and not markdown[0].isspace()
        and not markdown[-1].isspace()
        and _BLOCK_START.match(markdown) is None
    )


# "<" that would open a tag (or a comment, a declaration, an end tag) in a plain-text place that an LMS shows as
# HTML or strips tags from (a Moodle question name, a Canvas title). "‹" (U+2039) reads the same to a learner.
TAG_OPENER = re.compile(r"<(?=[A-Za-z/!?])")


def plain_text(markdown: str) -> str:
    """The text a learner reads, without markup: for names, titles and plain-text formats (see :func:`visible_text`)."""
    return visible_text(render_inline(markdown))


def visible_text(rendered: str) -> str:
    """The text of rendered HTML, for a plain-text place (a name, a title, a plain-text format).

    Never carries a tag: text the bank escaped (``&lt;script&gt;``) is text, so a "<" that would open a tag becomes
    "‹" rather than turning into live markup where an LMS shows a plain-text field as HTML.
    """
    if "<" in rendered:
        import lxml.html

        rendered = lxml.html.fragment_fromstring(rendered, create_parent="span").text_content()
    elif "&" in rendered:
        rendered = html.unescape(rendered)
    else:
        return rendered
    return TAG_OPENER.sub("\u2039", rendered)


_TAG = re.compile(r"<[^>]*>")
_CONTENT_ELEMENT = re.compile(r"<(?:img|math)\b")


def renders_blank(rendered: str) -> bool:
    """Whether rendered HTML shows a learner nothing: no text (``<p></p>`` from a bank text "<P>" counts as nothing,
    as does a lone comment) and no image or formula. Every export refuses such text and ``check`` names it."""
    # The common case, without copying the text: text right at the start or right after a leading "<p>"
    # (a complete tag, so what follows it is outside every tag).
    first = rendered[3:4] if rendered.startswith("<p>") else rendered[:1]
    if first and first != "<" and not first.isspace():
        return False
    if _TAG.sub("", rendered).strip():  # (some text between the tags)
        return False
    return not _CONTENT_ELEMENT.search(rendered)


def markdown_renders_blank(markdown: str, *, inline: bool = False) -> bool:
    """``renders_blank`` of ``markdown`` rendered (inline as render_inline, else as render_block), without building
    the rendering of text that renders as itself (most text of a large bank): that shows nothing only when empty."""
    if has_no_markdown_syntax(markdown):
        return not markdown
    return renders_blank(_render_markdown(markdown, inline))


def visible_length(markdown: str, *, inline: bool = False) -> int:
    """How many characters a learner reads in ``markdown`` once rendered (``inline`` as render_inline does):
    the text's characters, not Markdown or HTML syntax, not spaces. (Text with no Markdown syntax character is
    counted as it stands, a list's "1." or "-" included: the learner sees a number or a bullet there too.)"""
    if not _MARKDOWN_CHARACTERS.search(markdown):
        return len(markdown) - markdown.count(" ")  # (no other whitespace: tabs and newlines are Markdown syntax)
    text = _TAG.sub("", _render_markdown(markdown, inline))
    return len("".join(html.unescape(text).split()))
