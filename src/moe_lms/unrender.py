"""HTML back to Markdown, for importers: the inverse of :func:`text.render_block` / :func:`text.render_inline`.

Banks keep Markdown, LMS files carry HTML. The Markdown an importer keeps is one that text.py renders back to the
same sanitised HTML, so what learners see survives import and re-export byte for byte. Candidates are tried from
the most readable to the least: the plain text (the common case), the text with Markdown syntax escaped,
markdownify's conversion, and the sanitised HTML itself (Markdown allows inline HTML).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

from .text import render_block, render_inline, sanitize

_PARAGRAPH = re.compile(r"<p>([^<]*)</p>")
_TAG = re.compile(r"<[^>]+>")
_TAG_OR_TEXT = re.compile(r"<[^>]*>|[^<]+")
# Markdown syntax characters that plain text may contain; escaping them with a backslash is always valid CommonMark.
_SOME_SYNTAX = re.compile(r"([\\`*_\[\]<>&!|~#])")
_ALL_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
# Editors (Moodle's Atto and TinyMCE) mark every paragraph left-to-right; it says nothing in an LTR text.
_LTR_PARAGRAPH = re.compile(r'<p dir="ltr">')
_EDGE_SPACE = re.compile(r"[ \t]+(?=\n)|(?<=\n)[ \t]+|^[ \t]+|[ \t]+$")
# Tags of the elements whose content an HTML parser reads as text up to their end tag (RCDATA and raw text, but
# script and style, which the sanitiser removes whole): a <textarea> written in imported prose made every tag
# after it literal text (a "</p>" in the learner's text). The tag is made text, as the author meant it.
_RAW_TEXT_TAG = re.compile(r"<(?=/?(?:textarea|title|xmp|iframe|noembed|noframes|noscript|plaintext)\b)", re.I)


def markdown_from_html(fragment: str, *, inline: bool = False, tidy: bool = False) -> str:
    """Markdown whose rendering is ``fragment`` (sanitised), or the closest readable text when none is found.

    ``inline`` for text rendered with render_inline (choices, titles). ``tidy`` drops editor noise first (a
    paragraph around a choice, ``dir="ltr"`` on paragraphs): for files moe-lms did not write.
    """
    fragment = _RAW_TEXT_TAG.sub("&lt;", fragment.strip())
    target = sanitize(fragment).strip()
    if tidy:
        target = _LTR_PARAGRAPH.sub("<p>", target)
        single = _single_paragraph(target) if inline else None
        if single is not None:
            target = single
    if not target:
        return ""
    render = render_inline if inline else render_block
    fallback: str | None = None
    # HTML text.py wrote is matched as it is; other HTML as the sanitiser leaves it.
    for goal in dict.fromkeys((fragment, target) if not tidy else (target,)):
        for candidate in _candidates(goal, inline):
            if not candidate.strip():  # (the renderer's fast path turns "" into "<p></p>"; a bank has no blank text)
                continue
            rendered = render(candidate)
            if rendered == goal:
                return candidate
            if fallback is None and _words(rendered) == _words(target):
                fallback = candidate
    return fallback if fallback is not None else target


def _candidates(target: str, inline: bool) -> Iterator[str]:
    literal = _literal(target, inline)
    if literal is not None:
        yield literal
        yield _SOME_SYNTAX.sub(r"\\\1", literal)
        yield _ALL_PUNCTUATION.sub(r"\\\1", literal)
        if _EDGE_SPACE.search(literal):
            yield _keep_spaces(_ALL_PUNCTUATION.sub(r"\\\1", literal))
    from markdownify import markdownify  # (with BeautifulSoup: megabytes, needed only when plain text is not enough)

    for escape_misc in (False, True):
        try:
            yield markdownify(
                target,
                heading_style="ATX",
                bullets="-",
                newline_style="backslash",
                escape_misc=escape_misc,
            ).strip()
        except RecursionError:  # markdownify recurses per nesting level; deeply nested HTML stays HTML
            break
    yield target
    # Inline HTML inside Markdown text: its text between tags is Markdown, so escape it there.
    escaped = "".join(
        part if part.startswith("<") else _ALL_PUNCTUATION.sub(r"\\\1", html.unescape(part))
        for part in _TAG_OR_TEXT.findall(target)
    )
    yield escaped
    if _EDGE_SPACE.search(escaped):
        yield _keep_spaces(escaped)


def _keep_spaces(markdown: str) -> str:
    """Spaces Markdown would drop (at line ends and starts) written as character references, which it keeps."""
    return _EDGE_SPACE.sub(lambda m: "".join(f"&#{ord(ch)};" for ch in m.group()), markdown)


def _literal(target: str, inline: bool) -> str | None:
    """The text of HTML that is nothing but text (in one paragraph, for block text)."""
    if inline:
        return None if "<" in target else html.unescape(target)
    match = _PARAGRAPH.fullmatch(target)
    return html.unescape(match.group(1)) if match else None


def _single_paragraph(target: str) -> str | None:
    if target.startswith("<p>") and target.endswith("</p>") and target.count("<p>") == 1:
        return target[3:-4].strip()
    return None


def _words(fragment: str) -> list[str]:
    return html.unescape(_TAG.sub(" ", fragment)).split()
