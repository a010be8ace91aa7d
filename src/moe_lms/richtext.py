"""Rich content — math, local images and code — rendered once into what each format needs.

Bank text writes math as ``$…$`` (inline) and ``$$…$$`` (display; a literal dollar is ``\\$``), images as
``![alt](media/file.svg)`` and code as fenced blocks with a language. :mod:`moe_lms.text` renders and sanitises
ordinary Markdown; text with any of these goes through the renderer here, which parses math with
mdit-py-plugins' dollarmath, sanitises the rest with the same allow-list, and only then puts in what it made
itself (MathML from latex2mathml, Pygments' highlighted code, images as the format wants them), so nothing an
author wrote bypasses the sanitiser.

A writer says what it needs with :func:`rendering` around its work (a :class:`Profile`): math as MathML (QTI,
the HTML page) or as ``\\(…\\)`` / ``\\[…\\]`` (Moodle's MathJax filter, Canvas, Common Cartridge), images
as a URL made from each :class:`~moe_lms.model.MediaItem` (``@@PLUGINFILE@@/name``, a package path, a data URI)
and code highlighted or plain. Outside any ``rendering`` block, math is ``\\(…\\)`` and images keep their path.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, Literal

from lxml import etree

from . import text
from .model import PLACEHOLDERS, MediaItem, placeholder_message
from .problems import MoeLmsError

if TYPE_CHECKING:  # markdown-it is imported when a text first needs it, as in text.py
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

MATHML_NS = "http://www.w3.org/1998/Math/MathML"
TEX_ANNOTATION = "application/x-tex"
MathStyle = Literal["mathml", "tex"]

# Text that may hold math, an image or a fenced code block; anything else is ordinary Markdown for text.py.
_RICH = re.compile(r"\$|!\[|```|~~~")


class FormulaError(MoeLmsError, ValueError):
    """A formula that does not parse; the message says what is wrong."""


@dataclass(frozen=True, eq=False)  # (hashed by identity: renderings are cached per profile)
class Profile:
    """What one format needs rich content to become."""

    math: MathStyle = "tex"
    # The URL of an image in the output (None: keep the path written in the bank).
    image_url: Callable[[MediaItem], str] | None = None
    media: Mapping[str, MediaItem] = field(default_factory=dict)
    # Code through Pygments: "inline" styles (Moodle, Canvas), "classes" for a page that carries CODE_STYLE
    # (the HTML page, whose CSP refuses style attributes), "none" for a plain <pre><code> (QTI: no style in XHTML).
    highlight: Literal["inline", "classes", "none"] = "inline"
    ltr: bool = False  # mark MathML formulas dir="ltr" (the HTML page; code and TeX are marked in every profile)
    drop_images: bool = False  # images as their alt text, "[alt]" (GIFT --drop-images: a GIFT file cannot carry them)
    # Whether the format keeps style attributes (Moodle, Canvas, the cartridge, GIFT do; QTI 2.1's XHTML and the
    # HTML page, whose CSP refuses them, carry the same rules in their stylesheet instead).
    styles: bool = True
    # Whether an image links to itself, so a wide diagram shrunk to a phone's width can be opened full size (not for
    # the HTML page: browsers refuse to open a data: URL from a link).
    image_links: bool = True
    # The element of a left-to-right isolate (a formula, a Latin-only text): <bdi dir="ltr">, or <span dir="ltr">
    # for what Canvas imports (its API payload, Canvas QTI, the cartridge). Canvas's sanitiser
    # (instructure/canvas-lms gems/canvas_sanitize/lib/canvas_sanitize/canvas_sanitize.rb, SANITIZE) has no bdi
    # element and no unicode-bidi style property, so it would remove a <bdi> (keeping its text) and the code
    # style's unicode-bidi; it keeps span and dir, and a [dir] element is an isolate in HTML's own stylesheet.
    isolate: Literal["bdi", "span"] = "bdi"


_DEFAULT = Profile()
_profile: ContextVar[Profile] = ContextVar("moe_lms_rich_profile", default=_DEFAULT)


@contextmanager
def rendering(profile: Profile) -> Iterator[Profile]:
    """Render rich content for one format while the block runs (writers wrap their dump in it)."""
    token = _profile.set(profile)
    try:
        yield profile
    finally:
        _profile.reset(token)


def has_rich(markdown: str) -> bool:
    return _RICH.search(markdown) is not None


_SYNTAX_OR_RICH = text.SYNTAX_OR_MATH  # (each _RICH mark holds one of its characters)

# Whether text renders as itself in every profile: inline as the text, block as ``<p>text</p>``.
renders_as_itself_everywhere = text.renders_as_itself_everywhere


def render_block(markdown: str) -> str:
    """:func:`text.render_block`, with math, images and code as the current profile wants them."""
    if _SYNTAX_OR_RICH.search(markdown) is None and text.plain_layout(markdown):
        return f"<p>{markdown}</p>"
    rendered = text.render_block(markdown) if not has_rich(markdown) else _render(markdown, False, _profile.get())
    if "<pre" in rendered and _profile.get().highlight == "inline":  # an indented block, as code_block writes one
        rendered = rendered.replace('<pre dir="ltr"><code', f'<pre dir="ltr" style="{PLAIN_CODE_STYLE}"><code')
    if _nested_too_deep(rendered):  # kept, every word, as text.py keeps Markdown nested past markdown-it's limit
        return "<p>" + html.escape(markdown, quote=False).strip().replace("\n", "<br>") + "</p>"
    return rendered


def render_inline(markdown: str) -> str:
    """:func:`text.render_inline`, with math, images and code as the current profile wants them."""
    if _SYNTAX_OR_RICH.search(markdown) is None and text.plain_layout(markdown):
        return markdown
    rendered = text.render_inline(markdown) if not has_rich(markdown) else _render(markdown, True, _profile.get())
    return html.escape(markdown, quote=False).strip() if _nested_too_deep(rendered) else rendered


# The deepest nesting of elements a text may render to. libxml2's HTML parser, which the HTML page and QTI 2.1
# read each text with, stops at 256 levels (the page's own elements included) and silently drops everything
# after: a text nested deeper is kept as text instead, every word of it (as text.py keeps Markdown nested past
# markdown-it's limit).
MAX_NESTING = 200
_TAG_OR_END = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)[^>]*?(/?)>")
_VOID = frozenset({"area", "br", "col", "embed", "hr", "img", "input", "source", "track", "wbr", "mspace", "none"})


def _nested_too_deep(rendered: str) -> bool:
    if rendered.count("<") <= 2 * MAX_NESTING:  # (too few tags to nest that deep: most text)
        return False
    depth = 0
    for match in _TAG_OR_END.finditer(rendered):
        if match.group(1):
            depth -= 1
        elif not match.group(3) and match.group(2).lower() not in _VOID:
            depth += 1
            if depth > MAX_NESTING:
                return True
    return False


def plain_text(markdown: str) -> str:
    """The text a learner reads, without markup; math stays as its LaTeX between dollars, an image as its alt."""
    if _SYNTAX_OR_RICH.search(markdown) is None and text.plain_layout(markdown):
        return markdown  # (renders as itself, with no & < to unescape or to keep from opening a tag)
    if "$" not in markdown and "![" not in markdown:
        return text.plain_text(markdown)
    tokens = _markdown().parseInline(markdown)
    parts: list[str] = []
    for block in tokens:
        for token in block.children or ():
            if token.type in ("math_inline", "math_inline_double"):  # (with the word it is glued to: top-$k$)
                meta = token.meta or {}
                formula = f"{token.markup}{token.content}{token.markup}"
                parts.append(f"{meta.get('prefix', '')}{formula}{meta.get('suffix', '')}")
            elif token.type in ("image", "text", "code_inline"):
                parts.append(token.content)
            elif token.type in ("softbreak", "hardbreak"):
                parts.append(" ")
    return text.TAG_OPENER.sub("\u2039", "".join(parts))  # (never a tag, as text.visible_text)


def readable_text(markdown: str) -> str:
    """:func:`plain_text` with each formula as the symbols it renders to (``$T = 2048$`` reads ``T = 2048``,
    ``\\cdot`` as ·), for titles shown as plain text in lists, where raw TeX would stand; a formula that does not
    convert stays as its LaTeX."""
    if "$" not in markdown:
        return plain_text(markdown)
    tokens = _markdown().parseInline(markdown)
    parts: list[str] = []
    for block in tokens:
        for token in block.children or ():
            if token.type in ("math_inline", "math_inline_double"):  # (a word it is glued to: its prefix, suffix)
                meta = token.meta or {}
                parts.append(f"{meta.get('prefix', '')}{_formula_text(token.content)}{meta.get('suffix', '')}")
            elif token.type in ("image", "text", "code_inline"):
                parts.append(token.content)
            elif token.type in ("softbreak", "hardbreak"):
                parts.append(" ")
    return text.TAG_OPENER.sub("\u2039", " ".join("".join(parts).split()))


_SPACED_OPERATORS = frozenset("=+−-×·<>≤≥≈≠→")


def _formula_text(latex: str) -> str:
    """A formula's rendered symbols as text: its MathML tokens, with spaces around relations and operators."""
    try:
        element = _mathml_element(latex, display=False)
    except (FormulaError, ValueError):
        return latex
    words: list[str] = []
    for node in element.iter():
        local = etree.QName(node).localname if isinstance(node.tag, str) else ""
        if local in ("mi", "mn", "mo", "mtext", "ms") and node.text:
            symbol = node.text.strip()
            if local == "mo" and symbol in _SPACED_OPERATORS:
                words.append(f" {symbol} ")
            else:
                words.append(symbol)
    return " ".join("".join(words).split())


# -- the renderer ----------------------------------------------------------------------------------------------


@cache
def _markdown() -> MarkdownIt:
    """text.py's parser plus dollarmath, with our rules for math, images and fences and text.py's for raw HTML
    (markup the sanitiser keeps, else shown as text); made when a rich text first needs it."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    md = (
        MarkdownIt("commonmark", {"html": True, "typographer": False})
        .enable("table")
        .enable("strikethrough")
        # $5 and $6 stays money: no space inside the dollars, no digit right after the closing one.
        .use(dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=True)
    )
    md.add_render_rule("html_inline", text.render_html_inline)
    md.add_render_rule("html_block", text.render_html_block)
    for name, rule in _RULES.items():
        md.add_render_rule(name, _method(rule))
    md.core.ruler.push("moe_hyphenated_math", _join_hyphenated)
    return md


def _method(rule: Callable[..., str]) -> Callable[..., str]:
    """A rule as markdown-it calls one added with add_render_rule (bound, so with the renderer first)."""
    return lambda _renderer, tokens, idx, options, env: rule(tokens, idx, options, env)


# Placeholders survive the sanitiser as text (private-use characters), then become what we made ourselves.
_HOLE = "\ue000{}\ue001"
_HOLE_RE = re.compile("\ue000(\\d+)\ue001")


class _Holes:
    def __init__(self) -> None:
        self.parts: list[str] = []

    def put(self, markup: str) -> str:
        self.parts.append(markup)
        return _HOLE.format(len(self.parts) - 1)

    def fill(self, sanitised: str) -> str:
        """The sanitised text with each hole replaced by its markup; a hole that is not one of ours (an index past
        the list, one seen twice: text that smuggled the placeholders in) is refused, never filled."""
        seen: set[int] = set()

        def part(match: re.Match[str]) -> str:
            index = int(match.group(1)) if len(match.group(1)) < 10 else len(self.parts)
            if index >= len(self.parts) or index in seen:
                raise ValueError(placeholder_message(0xE000, match.start() + 1))
            seen.add(index)
            return self.parts[index]

        return _HOLE_RE.sub(part, sanitised)


def _render(markdown: str, inline: bool, profile: Profile) -> str:
    if (bad := _PLACEHOLDER.search(markdown)) is not None:
        raise ValueError(placeholder_message(ord(bad.group()), bad.start() + 1))
    return _render_cached(markdown, inline, profile)


_PLACEHOLDER = re.compile(f"[{PLACEHOLDERS}]")


@lru_cache(maxsize=4096)
def _render_cached(markdown: str, inline: bool, profile: Profile) -> str:
    holes = _Holes()
    env: dict[str, Any] = {"holes": holes, "profile": profile}
    # As text._render_markdown does, with the same raw-HTML rules and cleaners; then the holes are filled.
    md = _markdown()
    if inline:
        rendered = md.renderer.render(md.parseInline(markdown, env), md.options, env)
        return holes.fill(text.inline_cleaner.clean(rendered).strip())
    if text.one_paragraph(markdown):  # (as text._render_markdown does: no block parser for one paragraph)
        rendered = md.renderer.render(md.parseInline(markdown, env), md.options, env)
        return holes.fill(text.sanitize(f"<p>{rendered}</p>\n").strip())
    tokens = md.parse(markdown, env)
    if text.too_deep(tokens):  # nested deeper than any real text: text.py keeps every word, as text
        return text.render_block(markdown)
    return holes.fill(text.sanitize(md.renderer.render(tokens, md.options, env)).strip())


def _math_rule(*, display: bool, block: bool = False) -> Callable[..., str]:
    def rule(tokens: Sequence[Token], idx: int, _options: Any, env: dict[str, Any]) -> str:
        profile: Profile = env["profile"]
        token = tokens[idx]
        source = token.content.strip()
        prefix, suffix = token.meta.get("prefix", ""), token.meta.get("suffix", "")
        if profile.math == "mathml":
            made = mathml(source, display=display, ltr=profile.ltr)
            if prefix or suffix:  # (a <math> is one neutral character to the bidi algorithm, as a TeX run is)
                made = ltr_isolate(f"{prefix}{made}{suffix}", profile)
        else:
            tex = html.escape(f"\\[{source}\\]" if display else f"\\({source}\\)", quote=False)
            style = f' style="{display_math_style(profile)}"' if display and profile.styles else ""
            made = ltr_isolate(f"{prefix}{tex}{suffix}", profile, style)
        made = env["holes"].put(made)
        return f"<p>{made}</p>\n" if block else made

    return rule


def ltr_isolate(inner: str, profile: Profile, style: str = "") -> str:
    """``inner`` as a left-to-right isolate of ``profile``'s element (``<bdi dir="ltr">`` or ``<span dir="ltr">``).
    A short one (``\\(k = 8\\)``, ``48 KiB``, ``GPU 0``) never breaks over two lines: in right-to-left text its
    halves would land at opposite ends of two lines (a style where the format keeps one, else a class its
    stylesheet styles)."""
    if not style and len(html.unescape(_TAG.sub("", inner))) <= SHORT_ISOLATE:
        style = f' style="{NOWRAP_STYLE}"' if profile.styles else f' class="{NOWRAP_CLASS}"'
    return f'<{profile.isolate} dir="ltr"{style}>{inner}</{profile.isolate}>'


# The longest isolate kept on one line (visible characters): a quantity or a short formula, never a long one that
# must wrap on a phone.
SHORT_ISOLATE = 32
NOWRAP_STYLE = "white-space:nowrap"
NOWRAP_CLASS = "moe-nowrap"


# Raw TeX (before MathJax runs, or where it cannot load) and a formula are right-to-left text's neutrals: each math
# run is an isolate, written left to right, and a Latin word joined to it by a hyphen (top-$k$, $k$-way) goes into
# the same isolate, or an Urdu sentence shows "top-k" as "k-top".
_HYPHEN_BEFORE = re.compile(r"(?<![^\s(])[A-Za-z][A-Za-z0-9]*-$")
_HYPHEN_AFTER = re.compile(r"^-[A-Za-z][A-Za-z0-9]*(?![^\s.,;:!?)\u06d4\u060c\u061f])")
# Display math scrolls inside its own box on a phone instead of widening the card, and shows that it does: a phone's
# scrollbars are overlays, hidden until touched, and a formula cut at "… =" reads as ending there (MathJax at 390 px,
# ../shared/reviews/moodle-view). The box's end fades out over its end padding, so a formula that fits never reaches
# the fade and one that does not is seen to go on; scrolled to its end, its last characters sit clear of it.
# Canvas's sanitiser keeps no mask property (canvas_sanitize.rb style_properties): what Canvas imports (span
# isolates) scrolls without the fade.
DISPLAY_MATH_BOX = "display:block;overflow-x:auto;overflow-y:hidden;max-width:100%;padding-right:2em"
DISPLAY_MATH_STYLE = (
    DISPLAY_MATH_BOX
    + ";-webkit-mask-image:linear-gradient(to left,transparent,#000 2em)"
    + ";mask-image:linear-gradient(to left,transparent,#000 2em)"
)


def display_math_style(profile: Profile) -> str:
    """The style of a display formula's box in a format that keeps styles (Canvas's without the fade)."""
    return DISPLAY_MATH_STYLE if profile.isolate == "bdi" else DISPLAY_MATH_BOX


def _join_hyphenated(state: Any) -> None:
    """A core rule: move a hyphenated Latin word next to a formula into the formula's token (its meta)."""
    for block in state.tokens:
        children = block.children
        if not children:
            continue
        for i, child in enumerate(children):
            if child.type != "math_inline":
                continue
            if i > 0 and children[i - 1].type == "text":
                before = _HYPHEN_BEFORE.search(children[i - 1].content)
                if before:
                    child.meta["prefix"] = before.group()
                    children[i - 1].content = children[i - 1].content[: before.start()]
            if i + 1 < len(children) and children[i + 1].type == "text":
                after = _HYPHEN_AFTER.search(children[i + 1].content)
                if after:
                    child.meta["suffix"] = after.group()
                    children[i + 1].content = children[i + 1].content[after.end() :]


def _image_rule(tokens: Sequence[Token], idx: int, _options: Any, env: dict[str, Any]) -> str:
    token = tokens[idx]
    profile: Profile = env["profile"]
    alt = "".join(child.content for child in token.children or ()) or token.content
    if profile.drop_images:  # (GIFT) the image's alt text stays visible in its place
        return f"<em>[{html.escape(alt, quote=False)}]</em>"
    src = str(token.attrs.get("src", ""))
    item = _media_item(profile, src)
    if item is None or profile.image_url is None:
        return f'<img src="{html.escape(src)}" alt="{html.escape(alt)}">'
    return str(env["holes"].put(image(item, profile.image_url(item), alt, profile)))


def image(item: MediaItem, url: str, alt: str, profile: Profile) -> str:
    """An image of the bank as a format shows it: its width and height, shrunk to the width of a phone (a style
    where the format keeps one, else the format's stylesheet), and a link to itself to see it full size."""
    attributes = f'src="{html.escape(url)}" alt="{html.escape(alt)}"'
    size = image_size(item)
    if size is not None:
        attributes += f' width="{size[0]}" height="{size[1]}"'
    if profile.styles:
        attributes += f' style="{IMAGE_STYLE}"'
    made = f"<img {attributes}>"
    if profile.image_links:
        made = f'<a href="{html.escape(url)}">{made}</a>'
    return made


IMAGE_STYLE = "max-width:100%;height:auto"


@lru_cache(maxsize=256)
def image_size(item: MediaItem) -> tuple[int, int] | None:
    """An image's size in CSS pixels (an SVG's width and height in its units, else its viewBox), or None."""
    import io

    import imagesize  # type: ignore[import-untyped]

    try:
        width, height = imagesize.get(io.BytesIO(item.data))
    except (ValueError, OSError):  # (imagesize reads headers; a file it does not know gives -1, -1)
        return None
    if width <= 0 or height <= 0:
        return None
    return round(width), round(height)


def _media_item(profile: Profile, src: str) -> MediaItem | None:
    from .media import MediaError, bank_relative

    try:
        return profile.media.get(bank_relative(src))
    except MediaError:
        return None


def _fence_rule(tokens: Sequence[Token], idx: int, _options: Any, env: dict[str, Any]) -> str:
    token = tokens[idx]
    profile: Profile = env["profile"]
    language = token.info.strip().split(" ")[0] if token.info else ""
    # A fence left open at the end of the text ends without the line break a closed one's code has: the same code
    # either way, so the same bytes (an importer can only write the closed form back).
    code = token.content if token.content.endswith("\n") or not token.content else token.content + "\n"
    block = code_block(code, language, highlight=profile.highlight, bidi_style=profile.isolate == "bdi")
    return str(env["holes"].put(block)) + "\n"  # (the line break after the block, as markdown-it's own rule writes)


# The longest code block Pygments highlights: its time grows with the code (100,000 characters took 2.8 s in
# each file that shows it, 10 MB over six minutes); a longer block is shown plain, and check says so.
MAX_HIGHLIGHT = 20_000


def code_block(code: str, language: str, *, highlight: str, bidi_style: bool = True) -> str:
    """A code block: Pygments with inline styles or classes (deterministic) where the format takes them, and
    plain past :data:`MAX_HIGHLIGHT` characters. Code is left to right in every text (dir="ltr"): in a
    right-to-left one the browser would otherwise put a line's final ``:`` at its left end, lose its indent and
    open a scrolled block at the lines' ends. Without ``bidi_style`` (Canvas, which removes the property) the
    inline style has no ``unicode-bidi`` (a block with dir="ltr" is isolated by the browser's own stylesheet)."""
    direction = ' dir="ltr"'
    if highlight != "none" and language and len(code) <= MAX_HIGHLIGHT:
        from pygments import highlight as pygmentize
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import get_lexer_by_name
        from pygments.util import ClassNotFound

        try:
            lexer = get_lexer_by_name(language)
        except ClassNotFound:
            lexer = None
        if lexer is not None:
            inline = highlight == "inline"
            formatter = HtmlFormatter(noclasses=inline, nowrap=True, style=CODE_THEME)
            body = pygmentize(code, lexer, formatter)
            code_style = CODE_STYLE if bidi_style else CODE_STYLE.replace(";unicode-bidi:isolate", "")
            style = f' style="{code_style}"' if inline else ""
            name = html.escape(language)
            return f'<pre{direction} class="code"{style}><code class="language-{name}">{body}</code></pre>'
    # As markdown-it renders a fence (trailing newline and all) and nh3 then writes it: a no-break space as
    # &nbsp;, so a fenced block and an indented one (which an import reads back as fenced) are the same bytes.
    body = html.escape(code, quote=False).replace("\xa0", "&nbsp;")
    name = f' class="language-{html.escape(language)}"' if re.fullmatch(r"[\w+#.-]+", language) else ""
    style = f' style="{PLAIN_CODE_STYLE}"' if highlight == "inline" else ""  # (where the format keeps styles)
    return f"<pre{direction}{style}><code{name}>{body}</code></pre>"  # (as text.py writes an indented block)


# A code block keeps a code block's line height inside an Urdu text (2.7, which double-spaces code).
CODE_STYLE = "background:#f8f8f8;padding:0.5em;overflow-x:auto;unicode-bidi:isolate;text-align:left;line-height:1.45"
PLAIN_CODE_STYLE = "line-height:1.45"


def code_blocks(markdown: str) -> list[str]:
    """The code of every fenced block of a Markdown text."""
    return [token.content for token in _markdown().parse(markdown) if token.type == "fence"]


_RULES: dict[str, Callable[..., str]] = {
    "math_inline": _math_rule(display=False),
    "math_inline_double": _math_rule(display=True),
    "math_block": _math_rule(display=True, block=True),
    "math_block_label": _math_rule(display=True, block=True),
    "image": _image_rule,
    "fence": _fence_rule,
}


CODE_THEME = "default"


def code_style() -> str:
    """The stylesheet for code highlighted with classes (Pygments' theme, scoped to ``pre.code``)."""
    from pygments.formatters import HtmlFormatter

    return str(HtmlFormatter(style=CODE_THEME).get_style_defs("pre.code"))


# -- right-to-left wrappers -----------------------------------------------------------------------------------

# Where an LMS keeps inline styles (Moodle, Canvas, the cartridge, GIFT), a right-to-left wrapper also says how the
# text is laid out: dir="rtl" does not undo a theme's text-align:left (Moodle's Boost sets it on body), and a theme's
# font stack rarely has an Urdu font, so the browser mixes Kufi and Naskh glyphs; Urdu is read in Nastaliq, which
# needs a taller line.
# At 2.2 long cascading Nastaliq words (امپلیمنٹیشن) overlap the line above in Moodle's narrow choice column at
# 390 px (../shared/reviews/moodle-view); 2.7 clears them, and an inline style cannot know a column's width. Latin
# words and digits take the Latin faces of the LMS's page (Boost's Roboto, Noto Sans …), each without Arabic script,
# before DejaVu; faces that carry Arabic (Arial, Segoe UI, system-ui) would draw Urdu in Naskh.
URDU_FONTS = (
    "'Noto Nastaliq Urdu','Jameel Noori Nastaleeq','Noto Naskh Arabic','Noto Sans Arabic',"
    "Roboto,'Helvetica Neue','Noto Sans','Liberation Sans','DejaVu Sans',serif"
)
URDU_LINE_HEIGHT = "2.7"
_RTL_FONTS = {"ur": (URDU_FONTS, URDU_LINE_HEIGHT)}


def direction_style(lang: str) -> str:
    """The style of a right-to-left wrapper for ``lang`` (a BCP 47 tag or a locale): its alignment and, for a
    language read in a script most fonts lack (Urdu's Nastaliq), a font stack and line height."""
    parts = ["text-align:start"]
    fonts = _RTL_FONTS.get(re.split(r"[-_]", lang, maxsplit=1)[0].lower())
    if fonts is not None:
        parts += [f"font-family:{fonts[0]}", f"line-height:{fonts[1]}"]
    return ";".join(parts)


_TAG = re.compile(r"<[^>]*>")
_ONE_PARAGRAPH = re.compile(r"<p>((?:(?!</?(?:p|div|pre|ul|ol|li|table|blockquote|h\d)\b).)*)</p>", re.S)


def latin_isolated(rendered: str) -> str:
    """Rendered text of a right-to-left language with its left-to-right runs isolated, so the wrapper shows each in
    its own order: a text whose strong characters are all left-to-right (the choice ``64 KiB``) as one LTR
    isolate, and in any other text each quantity, a number with its unit or a formula with its unit
    (``48 KiB``, ``1 KiB = 1024``, ``\\(= 8\\) KiB``, ``GPU 0``), as one (see :func:`quantities_isolated`)."""
    import unicodedata

    visible = html.unescape(_TAG.sub("", rendered))
    strong = {unicodedata.bidirectional(c) for c in visible} & {"L", "R", "AL"}
    if strong != {"L"}:
        return quantities_isolated(rendered) if "L" in strong and _DIGIT_OR_ISOLATE.search(rendered) else rendered
    profile = _profile.get()
    paragraph = _ONE_PARAGRAPH.fullmatch(rendered)
    if paragraph is not None:
        return f"<p>{ltr_isolate(paragraph.group(1), profile)}</p>"
    if re.search(r"</?(?:p|div|pre|ul|ol|li|table|blockquote|h\d)\b", rendered):
        return rendered  # (blocks: each keeps the wrapper's direction)
    return ltr_isolate(rendered, profile)


# A quantity inside right-to-left text: a number next to a Latin unit or word, or a formula next to one, each
# joined by spaces and at most one operator. The bidi algorithm lays a number before a Latin word out right to left
# ("48 KiB" shows "KiB 48"; "(1 KiB = 1024 بائٹس)" shows "KiB = 1024 1"), and a formula is a neutral that a
# following unit overtakes ("\\(= 8\\) KiB" shows "KiB = 8"): the whole quantity is one LTR isolate (the
# review of Urdu in Moodle, ../shared/reviews/moodle-view, found 31 such runs in the arithmetic bank).
_HOLE_CHAR = "\ue010"  # one formula or isolate, while the text around it is read
_NUMBER = r"\d+(?:[.,]\d+)*"
_WORD = r"[A-Za-z\u00b5\u00c0-\u024f][A-Za-z0-9\u00b5\u00c0-\u024f]*(?:[-'_.][A-Za-z0-9\u00b5]+)*"
_UNIT_TOKEN = rf"(?:{_NUMBER}%?|{_WORD}|%|{_HOLE_CHAR})"
_JOIN = r"(?:[ \u00a0]*[=\u00d7/+\u2212\u2248\u00b7][ \u00a0]*|[ \u00a0]+)"
_QUANTITY = re.compile(rf"(?<![\w\u00b5-]){_UNIT_TOKEN}(?:{_JOIN}{_UNIT_TOKEN})+(?![\w\u00b5])")
_BARRIER_CHAR = "\ue011"  # any other element, while the text around it is read
_UNIT_OR_OPERATOR = re.compile(rf"[A-Za-z\u00b5%]|{_HOLE_CHAR}|\d.*[=\u00d7/+\u2212\u2248]")
_DIGIT_OR_ISOLATE = re.compile(r'\d|dir="ltr"|<math\b')
# An element that is one piece of a quantity: an inline LTR isolate (a formula, a hyphenated word) or MathML.
_PIECE = re.compile(
    r'<(bdi|span) dir="ltr"(?: style="' + re.escape(NOWRAP_STYLE) + r'"| class="' + NOWRAP_CLASS + r'")?>'
    r"((?:(?!</?(?:bdi|span)\b)[^<]|<(?!/?(?:bdi|span)\b)[^>]*>)*)</\1>"
    r'|<math\b(?![^>]*display="block")[^>]*>.*?</math>',
    re.S,
)
# Where a quantity is never looked for: code, and what is already an isolate of its own or another element's text.
_SKIP = re.compile(r"<(pre|code|math|bdi|bdo|span|a|script|style)\b[^>]*>.*?</\1>|<[^>]*>", re.S)


def quantities_isolated(rendered: str) -> str:
    """Each quantity of right-to-left text (``48 KiB``, ``1 KiB = 1024``, ``\\(= 8\\) KiB``, ``GPU 0``) as one
    LTR isolate, in the profile's element, kept on one line when short. Text in code, links and existing
    isolates is left as it is; an inline formula's isolate next to a unit goes into the quantity's."""
    profile = _profile.get()
    pieces: list[str] = []

    def hold(match: re.Match[str]) -> str:
        pieces.append(match.group())
        return _HOLE_CHAR

    # Formulas and inline isolates become one character each, every other element one barrier character
    barriers: list[str] = []

    def bar(match: re.Match[str]) -> str:
        barriers.append(match.group())
        return _BARRIER_CHAR

    held = _PIECE.sub(hold, rendered)
    held = _SKIP.sub(bar, held)
    if not _QUANTITY.search(held):
        return rendered
    counter = iter(range(len(pieces)))

    def unhold(text: str) -> str:
        out = []
        for char in text:
            if char == _HOLE_CHAR:
                piece = pieces[next(counter)]
                inner = _PIECE.fullmatch(piece)
                # (a formula's own isolate goes: the quantity's isolate holds it in order)
                out.append(inner.group(2) if inner is not None and inner.group(2) is not None else piece)
            else:
                out.append(char)
        return "".join(out)

    result = []
    last = 0
    for match in _QUANTITY.finditer(held):
        text, quantity = held[last : match.start()], match.group()
        result.append(_unhole(text, pieces, counter))
        if not re.search(rf"\d|{_HOLE_CHAR}", quantity) or not _UNIT_OR_OPERATOR.search(quantity):
            result.append(_unhole(quantity, pieces, counter))  # (words only, or numbers alone: in order already)
        else:
            result.append(ltr_isolate(unhold(quantity), profile))
        last = match.end()
    result.append(_unhole(held[last:], pieces, counter))
    bars = iter(barriers)
    return re.sub(_BARRIER_CHAR, lambda _: next(bars), "".join(result))


def _unhole(text: str, pieces: list[str], counter: Iterator[int]) -> str:
    return "".join(pieces[next(counter)] if char == _HOLE_CHAR else char for char in text)


# -- math ------------------------------------------------------------------------------------------------------

# MathML elements and how many children each needs: latex2mathml leaves one out where the LaTeX lacks an argument.
_ARITY = {"mfrac": 2, "msup": 2, "msub": 2, "mroot": 2, "munder": 2, "mover": 2, "msubsup": 3, "munderover": 3}

# The longest formula moe-lms converts: latex2mathml's time and memory grow faster than the formula (20,000
# characters took 1.9 s, 2 MB a minute and 1.7 GiB), and a formula in a question is a few hundred characters.
MAX_FORMULA = 4096

# The one MathML allow-list every formula passes after conversion, in every writer and importer: presentation
# elements of MathML Core and MathML 2, and their layout attributes. No href, style, class, id, event or foreign
# attribute (LaTeX's \href, \style, \class and \cssId are refused), no element of another namespace (markup
# latex2mathml copied from a \text), no maction or annotation-xml (they carry links or other markup); text is
# text, written escaped.
# fmt: off
MATHML_ELEMENTS = frozenset({
    "math", "semantics", "annotation", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup", "msubsup",
    "munder", "mover", "munderover", "mfrac", "msqrt", "mroot", "mstyle", "mpadded", "mphantom", "menclose", "merror",
    "mfenced", "mtable", "mtr", "mtd", "mlabeledtr", "mmultiscripts", "mprescripts", "none", "maligngroup",
    "malignmark",
})
MATHML_ATTRIBUTES = frozenset({
    "display", "dir", "mathvariant", "mathsize", "mathcolor", "mathbackground", "displaystyle", "scriptlevel",
    "scriptsizemultiplier", "scriptminsize", "stretchy", "fence", "separator", "lspace", "rspace", "minsize",
    "maxsize", "movablelimits", "largeop", "symmetric", "accent", "accentunder", "form", "linethickness", "numalign",
    "denomalign", "bevelled", "notation", "open", "close", "separators", "width", "height", "depth", "voffset",
    "columnalign", "rowalign", "columnlines", "rowlines", "columnspacing", "rowspacing", "columnspan", "rowspan",
    "frame", "framespacing", "equalrows", "equalcolumns", "align", "side", "linebreak", "encoding",
})
# fmt: on
# A colour or a length: what latex2mathml writes in these attributes, and nothing that could name a URL.
_MATHML_VALUE = re.compile(r"[#\w .,+%-]*")


def check_formula(source: str) -> None:
    """Raise FormulaError when ``source`` is not LaTeX math latex2mathml understands fully."""
    _mathml_element(source, display=False)


def _mathml_element(source: str, *, display: bool) -> etree._Element:
    return _mathml_cached(source, display)


@lru_cache(maxsize=4096)
def _mathml_cached(source: str, display: bool) -> etree._Element:
    from latex2mathml.converter import convert

    if not source.strip():
        raise FormulaError("the formula is empty")
    if len(source) > MAX_FORMULA:
        raise FormulaError(
            f"a formula of {len(source):,} characters is longer than the limit of {MAX_FORMULA:,}: split it"
        )
    depth = 0
    for match in re.finditer(r"\\.|[{}]", source):
        if match.group() == "{":
            depth += 1
        elif match.group() == "}":
            depth -= 1
            if depth < 0:
                raise FormulaError(f"unbalanced '}}' in ${source}$")
    if depth:
        raise FormulaError(f"unbalanced '{{' in ${source}$ ({depth} not closed)")
    try:
        converted = convert(source, display="block" if display else "inline")
    except Exception as exc:  # latex2mathml raises many kinds (its own, IndexError, KeyError …)
        raise FormulaError(f"${source}$ does not parse: {exc.__class__.__name__} {exc}".rstrip()) from None
    try:
        root = etree.fromstring(converted.encode("utf-8"))
    except etree.XMLSyntaxError:  # latex2mathml writes some input as is: a lone "&" (a column break) is no XML
        hint = ": '&' separates the columns of a matrix; an ampersand is \\&" if "&" in source else ""
        raise FormulaError(f"${source}$ does not parse{hint}") from None
    for element in root.iter():
        unsafe = _not_allowed(element)
        if unsafe:
            raise UnsafeFormulaError(f"${source}$ is refused: {unsafe}")
        local = etree.QName(element).localname
        if local in ("mi", "mo", "mtext") and element.text and re.match(r"\\[A-Za-z]+", element.text):
            raise FormulaError(f"${source}$ uses {element.text}, which is not a LaTeX math command moe-lms knows")
        wanted = _ARITY.get(local)
        if wanted is not None and len(element) != wanted:
            raise FormulaError(f"${source}$ does not parse: a command lacks an argument")
    return root


class UnsafeFormulaError(FormulaError):
    """A formula whose MathML the allow-list refuses (markup in a \\text, a link, a style or a class)."""


def _not_allowed(element: etree._Element) -> str | None:
    """What the MathML allow-list refuses in ``element`` (not its children), or None."""
    if not isinstance(element.tag, str):
        return "it holds a comment or processing instruction"
    name = etree.QName(element)
    if name.namespace not in (None, MATHML_NS) or name.localname not in MATHML_ELEMENTS:
        return f"<{name.localname}> is not a MathML presentation element (markup in a \\text is not allowed)"
    for attribute, value in element.attrib.items():
        attr = etree.QName(attribute)
        if attr.namespace is not None or attr.localname not in MATHML_ATTRIBUTES:
            what = {"href": "\\href (a link)", "style": "\\style", "class": "\\class", "id": "\\cssId"}
            return f"it uses {what.get(attr.localname, repr(attr.localname))}, which a formula may not carry"
        if not _MATHML_VALUE.fullmatch(value):
            return f"its {attr.localname} is {value[:40]!r}, not a colour or a length"
    return None


def mathml(source: str, *, display: bool, ltr: bool = False) -> str:
    """A formula as MathML 2: the presentation markup and, in <semantics>, the LaTeX it came from."""
    converted = _mathml_element(source, display=display)
    math = etree.Element(f"{{{MATHML_NS}}}math", nsmap={None: MATHML_NS})
    math.set("display", "block" if display else "inline")
    if ltr:
        math.set("dir", "ltr")
    semantics = etree.SubElement(math, f"{{{MATHML_NS}}}semantics")
    children = list(converted)
    if len(children) == 1 and etree.QName(children[0]).localname == "mrow":
        semantics.append(_copy(children[0]))
    else:
        row = etree.SubElement(semantics, f"{{{MATHML_NS}}}mrow")
        for child in children:
            row.append(_copy(child))
    annotation = etree.SubElement(semantics, f"{{{MATHML_NS}}}annotation", encoding=TEX_ANNOTATION)
    annotation.text = source
    return etree.tostring(math, encoding="unicode")


def _copy(element: etree._Element) -> etree._Element:
    import copy

    return copy.deepcopy(element)


def formulas(markdown: str) -> Iterator[tuple[str, bool]]:
    """Every formula in a Markdown text as (LaTeX, display)."""
    if "$" not in markdown:
        return
    for token in _markdown().parse(markdown):
        if token.type in ("math_block", "math_block_label"):
            yield token.content.strip(), True
        for child in token.children or ():
            if child.type in ("math_inline", "math_inline_double"):
                yield child.content.strip(), child.type == "math_inline_double"


def formula_problem(markdown: str) -> str | None:
    """What is wrong with the first formula of a text that does not parse, or None. The text is read both as a
    block and as a line (a choice, a title): the two can find different formulas (a line that starts with raw
    HTML is an HTML block, whose dollars a line still reads as math), and check cannot tell which it is."""
    for source, _display in (*formulas(markdown), *_line_formulas(markdown)):
        try:
            check_formula(source)
        except FormulaError as exc:
            return str(exc)
    return None


def _line_formulas(markdown: str) -> Iterator[tuple[str, bool]]:
    """The formulas of a text read as render_inline reads it."""
    if "$" not in markdown:
        return
    for token in _markdown().parseInline(markdown):
        for child in token.children or ():
            if child.type in ("math_inline", "math_inline_double"):
                yield child.content.strip(), child.type == "math_inline_double"


# \(…\) and \[…\] as moe-lms writes them for MathJax (and as Moodle and Canvas users type them).
_TEX_INLINE = re.compile(r"\\\((.+?)\\\)", re.S)
_TEX_DISPLAY = re.compile(r"\\\[(.+?)\\\]", re.S)
_CODE = re.compile(r'<pre\b[^>]*><code class="language-([\w+#.-]+)">(.*?)</code></pre>', re.S)
_HOLE_WORD = re.compile(r"MoeLmsRich(\d+)x")
_TAGS = re.compile(r"<[^>]+>")


# What the renderer adds for layout only (directions, sizes, links to an image itself), which an import takes off.
_LTR_ISOLATE = re.compile(
    r'<(bdi|span) dir="ltr"(?: style="(?:'
    + re.escape(DISPLAY_MATH_STYLE)
    + "|"
    + re.escape(DISPLAY_MATH_BOX)
    + "|"
    + re.escape("display:block;overflow-x:auto;overflow-y:hidden;max-width:100%")  # (before issue 33)
    + "|"
    + re.escape(NOWRAP_STYLE)
    + r')"| class="'
    + NOWRAP_CLASS
    + r'")?>((?:(?!</?\1\b).)*)</\1>',
    re.S,
)
_SELF_LINK = re.compile(r'<a href="[^"<>]*?([^"<>/]*)"(?: rel="[^"<>]*")?>(<img src="[^"<>]*?/?\1" [^<>]*>)\s*</a>')
_IMAGE_SIZE = re.compile(
    r'(<img src="[^"<>]*" alt="[^"<>]*") width="\d+" height="\d+"(?: style="' + re.escape(IMAGE_STYLE) + r'")?\s*/?>'
)
_BARE_PRE = re.compile(r"<pre>(?=<code)")  # (another tool's block: moe-lms writes every one dir="ltr")


def _without_layout_marks(fragment: str) -> str:
    """Imported HTML without what :func:`code_block`, :func:`image` and the math rule add for layout."""
    if 'dir="ltr"' not in fragment and "<img" not in fragment and "<pre>" not in fragment:  # (ours all say dir)
        return fragment
    for _ in range(8):  # (isolates inside isolates: a Latin-only choice holding a formula)
        fragment, count = _LTR_ISOLATE.subn(r"\2", fragment)
        if not count:
            break
    fragment = _SELF_LINK.sub(r"\2", fragment)
    fragment = _IMAGE_SIZE.sub(r"\1>", fragment)
    fragment = fragment.replace(f'<pre dir="ltr" style="{PLAIN_CODE_STYLE}">', '<pre dir="ltr">')
    return _BARE_PRE.sub('<pre dir="ltr">', fragment)


def markdown_from_rich_html(fragment: str, to_markdown: Callable[[str], str]) -> str:
    """The Markdown of imported HTML whose math is ``\\(…\\)`` / ``\\[…\\]`` and whose code blocks are
    moe-lms's highlighted ones: those become ``$…$`` / ``$$…$$`` and fenced blocks again, the rest goes through
    ``to_markdown`` (unrender.markdown_from_html), with any literal dollar escaped once the text holds math."""
    fragment = _without_layout_marks(fragment)
    if "\\(" not in fragment and "\\[" not in fragment and 'code class="language-' not in fragment:
        return to_markdown(fragment)
    pieces: list[str] = []

    def hole(piece: str) -> str:
        pieces.append(piece)
        return f"MoeLmsRich{len(pieces) - 1}x"

    def code(match: re.Match[str]) -> str:
        body = html.unescape(_TAGS.sub("", match.group(2))).removesuffix("\n")
        return "<p>" + hole(f"```{match.group(1)}\n{body}\n```") + "</p>"

    def formula(match: re.Match[str], dollars: str) -> str:
        latex = html.unescape(match.group(1)).strip()
        try:
            check_formula(latex)
        except UnsafeFormulaError:  # (script in a \text, \href …): the MathML allow-list refuses it, so it stays
            return match.group(0)  # text, shown as written, never a formula a writer would make markup of
        except FormulaError:
            pass  # (LaTeX latex2mathml does not know: imported as math, for check to name)
        return hole(dollars + latex + dollars)

    fragment = _CODE.sub(code, fragment)
    math = len(pieces)
    fragment = _TEX_DISPLAY.sub(lambda m: formula(m, "$$"), fragment)
    fragment = _TEX_INLINE.sub(lambda m: formula(m, "$"), fragment)
    markdown = to_markdown(fragment)
    if len(pieces) > math:
        markdown = markdown.replace("$", "\\$")
    return _HOLE_WORD.sub(lambda m: pieces[int(m.group(1))], markdown)
