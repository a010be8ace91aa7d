"""Moodle XML, both directions: the export Moodle imports with nothing lost, and the import back into a bank.

Export (:data:`FORMAT`): a ``category`` question per locale (``$course$/<bank title>/<language name>``, idnumber
``<bank-id>-<locale>``, the localized title and intro in ``<info>``) followed by one ``multichoice`` per bank
question (idnumber ``<question-id>-<locale>``). With ``multilang`` there is one category (``$course$/<bank
title>``, idnumber ``<bank-id>-multilang``) and one question per bank question (idnumber ``<question-id>``) whose
every text is made of runs of ``<span lang="xx" class="multilang">`` spans, exactly as Moodle's multilang filter
needs: only those two attributes, two or more adjacent spans. A span holds inline content only (Moodle's HTML
cleaning moves blocks out of spans): a choice is one run, and a block text is paragraphs and headings each holding
one run; each text's direction and language are on a ``<bdi dir lang>`` inside the span.

Language codes: the span ``lang`` is the Moodle language-pack code, which is the bank's locale tag in lower case
(``en``, ``ur``, ``vi``, ``pt_br``); the HTML ``lang`` of wrappers is BCP 47 (``pt-BR``). Text in a right-to-left
locale is wrapped in ``<div dir="rtl" lang="ur">`` (every locale's text says its language: ``<div dir="ltr"
lang="vi">``); text that fell back to the source locale is wrapped with the
source's ``dir`` and ``lang``, so fallbacks stay visible (and the importer does not take them for translations).

What Moodle's own importer mangles silently or fatally (measured on Moodle 4.5) is refused here with a problem
naming the question: single-answer questions without a 100% answer, fractions off Moodle's grade list, fewer than
two answers, duplicate idnumbers in a category, characters XML cannot carry, multilang spans the filter would
mis-read. :func:`check_moodle_xml` applies the same rules to any Moodle XML file.

Import (:func:`load`) reads ``multichoice`` and ``truefalse`` questions, categories, feedback and multilang spans
back into a :class:`Bank`; everything else is listed, never dropped silently. Files this module wrote come back
exactly (export → import → export is byte-identical); files from Moodle get ids made from their names.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import html
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import cache
from typing import BinaryIO

from lxml import etree
from pydantic import ValidationError

from ..bulk import gc_paused
from ..locales import LocaleInfo, LocalizedView, Resolved, locale_info, resolve
from ..model import (
    ID_MAX_LENGTH,
    ID_PATTERN,
    Bank,
    Feedback,
    Kind,
    MediaItem,
    Question,
    Translation,
    clean_text,
    question_sources,
)
from ..problems import Problem, ProblemsFound, Severity
from ..richtext import Profile, markdown_from_rich_html, render_block, render_inline, rendering
from ..skeleton import Skeleton, cdata, escape_text, slot, xml_compatible
from ..skeleton import raw as raw_slot
from ..text import renders_as_itself, renders_blank, visible_text
from ..unrender import markdown_from_html
from ..xmlsafe import MAX_XML_BYTES, Budget, UnsafeXmlError, iterparse_untrusted, parse_untrusted
from . import ExportOptions, Format
from .moodle_files import MEDIA_FOLDER, PLUGINFILE, attach_files, bank_html, missing_files, plugin_url, read_files

# Moodle's grade list (question_bank::fraction_options), in percent as Moodle writes it. Its importer refuses a
# fraction further than 0.001 percent from every entry, and then stops the whole import.
GRADES: tuple[str, ...] = (
    "100", "90", "83.33333", "80", "75", "70", "66.66667", "60", "50", "40", "33.33333", "30", "25", "20",
    "16.66667", "14.28571", "12.5", "11.11111", "10", "5",
)  # fmt: skip
_GRADE_TOLERANCE = Decimal("0.001")
MULTILANG_SUFFIX = "multilang"
FEEDBACK_ELEMENTS = {
    "correct": "correctfeedback",
    "partially_correct": "partiallycorrectfeedback",
    "incorrect": "incorrectfeedback",
}
# What one <question> may hold: a multichoice has about 20 elements and 4 per answer (Moodle's form offers 5 to
# 20 answers); Moodle XML carries HTML as escaped text, so nothing in it nests deeply.
QUESTION_BUDGET = Budget(max_elements=5_000, max_depth=32)
NO_EXPLANATION = "TODO: add an explanation (the imported file had none)."
_NAME_LENGTH = 80
_CATEGORY_NAME_LENGTH = 255  # question_categories.name

# Moodle's multilang filter, verbatim (filter/multilang/classes/text_filter.php): a run of two or more adjacent
# spans whose only attributes are lang and class="multilang"; each span's text ends at the first </span>.
MULTILANG_RUN = re.compile(
    r'(<span(\s+lang="[a-zA-Z0-9_-]+"|\s+class="multilang"){2}\s*>.*?</span>)'
    r'(\s*<span(\s+lang="[a-zA-Z0-9_-]+"|\s+class="multilang"){2}\s*>.*?</span>)+',
    re.I | re.S,
)
_MULTILANG_SPLIT = re.compile(r'<(?:lang|span)[^>]+lang="([a-zA-Z0-9_-]+)"[^>]*>(.*?)</(?:lang|span)>', re.I | re.S)
_MULTILANG_SPAN = re.compile(r"<span\b[^>]*\bclass=\"multilang\"[^>]*>", re.I)
_STRICT_MULTILANG_SPAN = re.compile(r'<span(\s+lang="[a-zA-Z0-9_-]+"|\s+class="multilang"){2}\s*>', re.I)
# The wrapper this module writes around every text of a per-locale export: one div with only dir and/or lang.
_WRAPPER_OPEN = re.compile(r'<div((?:\s+(?:dir|lang)="[^"<>]*"){1,2})\s*>')
_DIV_TAG = re.compile(r"<(/?)div\b[^>]*>", re.I)
_LANG_ATTRIBUTE = re.compile(r'\blang="([^"]*)"')
_TAG = re.compile(r"<[^>]*>")
_TITLE = re.compile(r'^(<div dir="(?:ltr|rtl)" lang="([^"]*)">)?<h3>(.*?)</h3>(?(1)</div>)', re.S)


# --- shared by both directions --------------------------------------------------------------------------------


def moodle_lang(locale: str) -> str:
    """The Moodle language-pack code of a locale tag: the tag in lower case (pt_BR -> pt_br)."""
    return locale.lower()


def locale_from_lang(code: str) -> str:
    """A locale tag from a Moodle language code or a BCP 47 tag: pt_br / pt-BR -> pt_BR, zh_hant_tw -> zh_Hant_TW."""
    first, *rest = code.replace("-", "_").split("_")
    parts = [first.lower()]
    for part in rest:
        if len(part) == 4 and part.isalpha():
            parts.append(part.title())
        elif len(part) == 2 and part.isalpha():
            parts.append(part.upper())
        else:
            parts.append(part)
    return "_".join(parts)


def _same_language(lang: str, locale: str) -> bool:
    return locale_from_lang(lang) == locale_from_lang(locale)


def on_grade_list(percent: Decimal) -> bool:
    """Whether Moodle's importer accepts this fraction (in percent, negative for penalties)."""
    magnitude = abs(percent)
    return magnitude < _GRADE_TOLERANCE or any(abs(magnitude - Decimal(g)) < _GRADE_TOLERANCE for g in GRADES)


@cache
def grade_shares(count: int) -> tuple[str, ...] | None:
    """``count`` grades from Moodle's list adding up to 100, as equal as possible and largest first (None: impossible).

    Equal shares exist for 1-10 and 20 answers; otherwise two neighbouring grades are mixed (11 -> 9 x 10 + 2 x 5).
    """
    best: tuple[tuple[Decimal, int], tuple[str, ...]] | None = None
    for high in GRADES:
        for low in GRADES:
            a, b = Decimal(high), Decimal(low)
            if b > a:
                continue
            for many in range(1, count + 1):
                if abs(a * many + b * (count - many) - 100) <= _GRADE_TOLERANCE:
                    key = (a - b, -many)
                    if best is None or key < best[0]:
                        best = (key, (high,) * many + (low,) * (count - many))
    return None if best is None else best[1]


def answer_fractions(question: Question) -> tuple[str, ...]:
    """The Moodle ``fraction`` of each choice, in choice order; raises ValueError when Moodle cannot grade it.

    Single-answer and true/false: 100 for the key, 0 otherwise. Multiple-answer: the correct choices share 100
    and the wrong ones share -100 (so ticking everything scores 0), all from Moodle's grade list.
    """
    return _fractions(question.kind, tuple(c.correct for c in question.choices))


def _fractions(kind: Kind, key: tuple[bool, ...]) -> tuple[str, ...]:
    """:func:`answer_fractions` of a question of this kind whose choices are correct or not as ``key`` says."""
    if kind is not Kind.MULTIPLE:
        return tuple("100" if correct else "0" for correct in key)
    correct = sum(key)
    wrong = len(key) - correct
    plus = grade_shares(correct)
    if plus is None:
        raise ValueError(f"{correct} correct choices cannot share 100% using Moodle's grade list (at most 20 can)")
    minus = grade_shares(wrong) if wrong else ()
    if minus is None:  # more than 20 wrong choices: the smallest penalty each
        minus = ("5",) * wrong
    plus_iter, minus_iter = iter(plus), iter(minus)
    return tuple(next(plus_iter) if is_correct else "-" + next(minus_iter) for is_correct in key)


def unwrap(fragment: str) -> tuple[str | None, str] | None:
    """``(lang, inner HTML)`` when the fragment is one ``<div>`` carrying only ``dir`` and/or ``lang``, else None."""
    match = _WRAPPER_OPEN.match(fragment)
    if match is None or not fragment.endswith("</div>"):
        return None
    inner = fragment[match.end() : -len("</div>")]
    depth = 0
    for tag in _DIV_TAG.finditer(inner):
        depth += -1 if tag.group(1) else 1
        if depth < 0:  # the closing tag at the end belongs to a later div, not to this one
            return None
    if depth != 0:
        return None
    lang = _LANG_ATTRIBUTE.search(match.group(1))
    return (lang.group(1) if lang else None), inner


# A block of a multilang text, as the export writes them: a paragraph or heading of inline content only.
_SIMPLE_BLOCK = re.compile(
    r"\s*<(p|h[1-6])>((?:(?!</?(?:p|h[1-6]|div|ul|ol|li|pre|blockquote|table|hr|span)\b).)*)</\1>\s*", re.S
)
# Between blocks, what the sanitiser leaves of an unclosed inline tag ("<b>\n</b>"): nothing a learner sees.
_EMPTY_INLINE = re.compile(r"(?:\s*<([a-z]+)>\s*</\1>)+\s*")
_BDI_WRAPPER = re.compile(r'<bdi dir="(ltr|rtl)" lang="([^"<>]*)">(.*)</bdi>', re.S)


def _simple_blocks(rendered: str) -> list[tuple[str, str]] | None:
    """``(tag, inline HTML)`` of each block of a rendered text made of paragraphs and headings only, else None."""
    blocks: list[tuple[str, str]] = []
    position = 0
    while position < len(rendered):
        empty = _EMPTY_INLINE.match(rendered, position)
        if empty is not None and (empty.end() == len(rendered) or blocks):
            position = empty.end()
            continue
        match = _SIMPLE_BLOCK.match(rendered, position)
        if match is None:
            return None
        blocks.append((match.group(1), match.group(2)))
        position = match.end()
    return blocks or None


def _bdi_wrapper(inline: str) -> tuple[str, str] | None:
    """``(lang, inner HTML)`` when inline HTML is one <bdi> carrying only dir and lang (the multilang marker)."""
    match = _BDI_WRAPPER.fullmatch(inline)
    if match is None or "<bdi" in match.group(3) or "</bdi" in match.group(3):
        return None
    return match.group(2), match.group(3)


def unmark_multilang(fragment: str) -> tuple[str | None, str]:
    """One language's text as Moodle's multilang filter shows it, back as the export rendered it: without the
    empty blocks of the other languages, and without the <bdi> markers; with the language they said (None when
    unmarked). A fragment of another layout comes back as it is."""
    blocks = _simple_blocks(fragment)
    if blocks is None:
        wrapped = _bdi_wrapper(fragment.strip())
        return wrapped if wrapped is not None else (None, fragment)
    langs = set()
    parts = []
    for tag, inline in blocks:
        if not inline:
            continue
        wrapped = _bdi_wrapper(inline)
        langs.add(wrapped[0] if wrapped else None)
        parts.append(f"<{tag}>{wrapped[1] if wrapped else inline}</{tag}>")
    if len(langs) != 1:
        return None, fragment
    return langs.pop(), "\n".join(parts)


def split_languages(text: str) -> dict[str, str] | None:
    """The text Moodle's multilang filter shows in each language of the text, by language code; None without spans.

    Follows the filter: in each run of spans a language sees its own span, else its parent language's, else
    English, else the first.
    """
    runs = list(MULTILANG_RUN.finditer(text))
    if not runs:
        return None
    codes: list[str] = []
    for run in runs:
        for code, _ in _MULTILANG_SPLIT.findall(run.group(0)):
            normalised = code.lower().replace("-", "_")
            if normalised not in codes:
                codes.append(normalised)

    def pick(code: str) -> Callable[[re.Match[str]], str]:
        def choose(run: re.Match[str]) -> str:
            spans: dict[str, str] = {}
            for lang, inner in _MULTILANG_SPLIT.findall(run.group(0)):
                spans[lang.lower().replace("-", "_")] = inner
            for candidate in (code, code.split("_")[0], "en"):
                if candidate in spans:
                    return spans[candidate]
            return next(iter(spans.values()))

        return choose

    return {code: MULTILANG_RUN.sub(pick(code), text) for code in codes}


def _multilang_problems(text: str) -> list[str]:
    """What Moodle's multilang filter would mis-read in an HTML text."""
    found = []
    for span in _MULTILANG_SPAN.finditer(text):
        if not _STRICT_MULTILANG_SPAN.fullmatch(span.group(0)):
            found.append(
                f"{span.group(0)} has attributes besides lang and class; Moodle's multilang filter ignores it "
                "and shows every language"
            )
    for run in MULTILANG_RUN.finditer(text):
        for _, inner in _MULTILANG_SPLIT.findall(run.group(0)):
            if "<span" in inner.lower():
                found.append(
                    "a multilang span contains another <span>; the filter ends a language at the first </span>"
                )
                break
        for _, inner in _MULTILANG_SPLIT.findall(run.group(0)):
            block = _BLOCK_TAG.search(inner)
            if block:
                found.append(
                    f"a multilang span contains a <{block.group(1).lower()}> block; with Moodle's content cleaning "
                    "on, it is moved out of the span and learners see every language (put blocks outside the spans)"
                )
                break
    return found


_BLOCK_TAG = re.compile(r"<(p|div|h[1-6]|ul|ol|li|pre|blockquote|table|hr)\b", re.I)


# --- export ---------------------------------------------------------------------------------------------------


class _Unwritable(Exception):
    """A text Moodle would receive broken; carries the message of the problem."""


def _wrapper(info: LocaleInfo) -> str:
    """The opening tag that marks text as being in a language and direction (closed by ``</div>``)."""
    return f'<div dir="{html.escape(info.direction)}" lang="{html.escape(info.lang)}">'


class _Texts:
    """The HTML of the texts of one category: one locale, or every locale as multilang spans."""

    def __init__(self, views: Sequence[LocalizedView]) -> None:
        self.views = views
        self.multilang = len(views) > 1
        self._langs = [v.info.lang for v in views]
        self._own = [_wrapper(v.info) for v in views]  # every text says its language (issue 10, item 3)
        self._mark = [_wrapper(v.info) for v in views]
        self._fallback = [_wrapper(v.source_info) for v in views]
        self._spans = [f'<span lang="{html.escape(moodle_lang(v.locale))}" class="multilang">' for v in views]
        self._first_lang, self._first_own, self._first_fallback = self._langs[0], self._own[0], self._fallback[0]

    def html(
        self, what: str, resolved: Sequence[Resolved], render: Callable[[str], str], choice: str | None = None
    ) -> str:
        """One text, as each locale of the category resolved it (one per view), rendered, marked and joined as
        Moodle needs it. ``what`` (and ``choice``, a choice id) name the text in problems."""
        if not self.multilang:  # the hot path of a per-locale export: _localized for one locale, inlined
            first = resolved[0]
            rendered = render(first.text)
            if rendered:
                if first.lang != self._first_lang:
                    return self._first_fallback + rendered + "</div>"
                if self._first_own is None and not rendered.startswith("<div"):
                    return rendered
            return self._localized(0, what, first, rendered, choice)
        rendered_texts = []
        for i, view in enumerate(self.views):
            rendered = render(resolved[i].text)
            if "<span" in rendered or "</lang" in rendered:
                raise _Unwritable(
                    f"{_label(what, choice)} ({view.locale}) contains a <span>; Moodle's multilang filter ends a "
                    "language at the first </span>, so it cannot go in a multilang export (use <em>, <strong> or "
                    "<bdi> instead)"
                )
            if renders_blank(rendered):
                raise _Unwritable(f"{_label(what, choice)} ({view.locale}) renders to no text at all")
            rendered_texts.append(rendered)
        if render is render_inline:
            return self._run([self._marked(i, resolved[i], [r])[0] for i, r in enumerate(rendered_texts)])
        return self._blocks(what, choice, resolved, rendered_texts)

    # Multilang layout. Moodle's filter picks one span of each run of adjacent multilang spans
    # (filter/multilang/classes/text_filter.php in moodle/moodle: '/(<span(\s+lang="[a-zA-Z0-9_-]+"|\s+class=
    # "multilang"){2}\s*>.*?<\/span>)(\s*<span…>.*?<\/span>)+/is'), so a span's text ends at its first </span>.
    # With "Content cleaning everywhere" on, HTMLPurifier (lib/weblib.php purify_html) runs first and moves any
    # block element out of a span, and every learner then sees every language. So a span holds only inline
    # content: blocks go outside, each block holding one run of spans, and an isolating <bdi dir lang> inside a
    # span carries a text's direction and language (purify_html declares bdi an inline element of HTMLPurifier's
    # definition, "Enable the bidirectional isolate element"; a Moodle without that keeps the text, not the bdi).

    def _marked(self, i: int, resolved: Resolved, inlines: Sequence[str]) -> list[str]:
        """The inline HTML of each block of one text of locale ``i``, each inside a <bdi> saying its direction and
        language (the filter keeps a span's content, not the span: its lang would not reach the page)."""
        info = self.views[i].source_info if resolved.lang != self._langs[i] else self.views[i].info
        marker = self._bdi(info)
        return [marker + inline + "</bdi>" for inline in inlines]

    @staticmethod
    def _bdi(info: LocaleInfo) -> str:
        return f'<bdi dir="{html.escape(info.direction)}" lang="{html.escape(info.lang)}">'

    def _run(self, inlines: Sequence[str]) -> str:
        return "".join(span + inline + "</span>" for span, inline in zip(self._spans, inlines, strict=True))

    def _blocks(self, what: str, choice: str | None, resolved: Sequence[Resolved], rendered: Sequence[str]) -> str:
        """Block texts, one per locale, as blocks of runs: aligned when every locale has the same blocks (one
        paragraph each, the usual case), else each locale's blocks in turn with the other locales' spans empty."""
        layouts = []
        for i, text in enumerate(rendered):
            blocks = _simple_blocks(text)
            if blocks is None:
                raise _Unwritable(
                    f"{_label(what, choice)} ({self.views[i].locale}) holds a list, a table, a quote or a code block: "
                    "a multilang span can hold only inline text (Moodle's content cleaning moves blocks out of the "
                    "spans, and learners then see every language); export one file per locale instead"
                )
            layouts.append(blocks)
        marked = [self._marked(i, resolved[i], [inline for _, inline in blocks]) for i, blocks in enumerate(layouts)]
        tags = [tag for tag, _ in layouts[0]]
        if all([tag for tag, _ in blocks] == tags for blocks in layouts):
            return "".join(
                f"<{tag}>" + self._run([inlines[k] for inlines in marked]) + f"</{tag}>" for k, tag in enumerate(tags)
            )
        parts = []
        for i, blocks in enumerate(layouts):
            for k, (tag, _) in enumerate(blocks):
                inlines = [""] * len(layouts)
                inlines[i] = marked[i][k]
                parts.append(f"<{tag}>{self._run(inlines)}</{tag}>")
        return "".join(parts)

    def _localized(self, i: int, what: str, resolved: Resolved, rendered: str, choice: str | None = None) -> str:
        """Rendered text as locale ``i`` shows it: marked when it fell back, direction set when right-to-left."""
        if renders_blank(rendered):
            raise _Unwritable(f"{_label(what, choice)} ({self.views[i].locale}) renders to no text at all")
        if resolved.lang != self._langs[i]:
            return self._fallback[i] + rendered + "</div>"
        own = self._own[i]
        if own is not None:
            return own + rendered + "</div>"
        if rendered.startswith("<div") and unwrap(rendered) is not None:
            # A text that itself looks like our wrapper is wrapped once more, so the importer removes only ours.
            return self._mark[i] + rendered + "</div>"
        return rendered

    def info(self) -> str:
        """Category description: the localized title as a heading, then the intro."""
        if self.multilang:
            titles = [view.title for view in self.views]
            rendered = [render_inline(title.text) for title in titles]
            for view, text in zip(self.views, rendered, strict=True):
                if renders_blank(text) or "<span" in text:
                    raise _Unwritable(f"the bank title ({view.locale}) renders to no text or holds a <span>")
            marked = [
                self._marked(i, title, [text])[0] for i, (title, text) in enumerate(zip(titles, rendered, strict=True))
            ]
            info = "<h3>" + self._run(marked) + "</h3>"
            intros = [view.intro for view in self.views]
            if all(intro is not None for intro in intros):
                info += self.html("the bank intro", [i for i in intros if i is not None], render_block)
            return info
        parts = []
        for i, view in enumerate(self.views):
            title = view.title
            part = self._localized(i, "the bank title", title, f"<h3>{render_inline(title.text)}</h3>")
            intro = view.intro
            if intro is not None:
                part += self._localized(i, "the bank intro", intro, render_block(intro.text))
            parts.append(self._spans[i] + part + "</span>" if self.multilang else part)
        return "".join(parts)


def _label(what: str, choice: str | None) -> str:
    return what if choice is None else f"{what} {choice!r}"


def _set(node: etree._Element, value: str) -> None:
    """Text of an element; HTML goes in CDATA, as Moodle writes it, so the file stays readable (lxml splits "]]>")."""
    node.text = etree.CDATA(value) if ("<" in value or "&" in value or ">" in value) else value


def _text_element(parent: etree._Element, tag: str, value: str | None, **attributes: str) -> etree._Element:
    element = etree.SubElement(parent, tag, attributes)
    text = etree.SubElement(element, "text")
    if value is not None:
        _set(text, value)
    return element


def _xml_char(ch: str) -> bool:
    code = ord(ch)
    return code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or code >= 0x10000


def _not_xml(what: str, value: str) -> _Unwritable:
    bad = next((ch for ch in value if not _xml_char(ch)), "?")
    return _Unwritable(f"{what} contains U+{ord(bad):04X}, which XML 1.0 cannot carry")


def _category_segment(name: str) -> str:
    """One category name in a Moodle path: '/' doubled, a space against a leading or trailing '/', 255 at most."""
    name = " ".join(name.split())
    if len(name) > _CATEGORY_NAME_LENGTH:
        name = name[: _CATEGORY_NAME_LENGTH - 1] + "…"
    escaped = name.replace("/", "//")
    if escaped.startswith("/"):
        escaped = " " + escaped
    if escaped.endswith("/"):
        escaped += " "
    return escaped


def _visible(rendered: str) -> str:
    """The text of rendered HTML, for plain-text fields. From the HTML, not the Markdown: an import keeps the HTML."""
    if rendered.startswith("<p>") and rendered.endswith("</p>") and rendered.count("<") == 2:
        rendered = rendered[3:-4]  # the common case: one paragraph of text
    return visible_text(rendered)  # never a tag, even from text the bank escaped


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _category(bank: Bank, texts: _Texts) -> etree._Element:
    path = "$course$/" + _category_segment(_visible(render_inline(bank.title)))
    if texts.multilang:
        idnumber = f"{bank.id}-{MULTILANG_SUFFIX}"
    else:
        view = texts.views[0]
        path += "/" + _category_segment(view.info.name)
        idnumber = f"{bank.id}-{view.locale}"
    element = etree.Element("question", type="category")
    info = texts.info()
    try:
        _text_element(element, "category", path)
        _text_element(element, "info", info, format="html")
    except ValueError:
        raise _not_xml("the bank title or intro", path + info) from None
    attach_files(element, bank.media)
    etree.SubElement(element, "idnumber").text = idnumber
    return element


@dataclass
class _Template:
    """A question element with everything its category's questions of one shape share; ``slots`` are the positions
    (in document order) of what each question fills in. Copying it is four times faster than building a question."""

    element: etree._Element
    slots: list[int]
    answers: list[int]


class _Questions:
    """Builds the question elements of one category from per-shape templates (:meth:`element`), and writes them
    from per-shape skeletons (:meth:`serialised`, the same bytes, several times faster)."""

    def __init__(self, bank: Bank, texts: _Texts) -> None:
        self.bank = bank
        self.texts = texts
        self.templates: dict[tuple[Kind, int, int], _Template] = {}
        self.skeletons: dict[tuple[Kind, int, int, bool], Skeleton] = {}
        self.feedback = {
            which: texts.html(
                f"the bank's {which.replace('_', ' ')} feedback",
                [view.feedback(which) for view in texts.views],
                render_block,
            )
            for which in FEEDBACK_ELEMENTS
        }
        for which, value in self.feedback.items():
            try:
                _set(etree.Element("text"), value)
            except ValueError:
                raise _not_xml(f"the bank's {which.replace('_', ' ')} feedback", value) from None
        # What the skeletons' feedback slots hold; and whether an image of the bank may show in a question (then
        # attach_files adds <file> elements, and the question is built element by element).
        self._feedback_values = [_element_text(value) for value in self.feedback.values()]
        self._media = bool(bank.media)
        self._feedback_files = any(PLUGINFILE in value for value in self.feedback.values())
        # The fast path's pieces: a text that renders as itself is one of these around it (see _Texts.html): a
        # choice inline, any other text as one paragraph; in its locale's own language or fallen back.
        view = texts.views[0]
        self._view, self._locale, self._lang = view, view.locale, view.info.lang
        self._source = view.locale == bank.source_locale
        own, fallback = "<![CDATA[" + texts._first_own, "<![CDATA[" + texts._first_fallback
        self._block = (own + "<p>", fallback + "<p>", "</p></div>]]>")
        self._inline = (own, fallback, "</div>]]>")
        # Multilang: the span and <bdi> of each locale, for a text in the locale's own language or fallen back.
        self._runs = [
            (texts._spans[i] + texts._bdi(view.info), texts._spans[i] + texts._bdi(view.source_info), view.info.lang)
            for i, view in enumerate(texts.views)
        ]
        self._points: dict[float, str] = {}
        self._tag_values: dict[tuple[str, ...], list[str]] = {}

    def template(self, kind: Kind, choices: int, tags: int) -> _Template:
        key = (kind, choices, tags)
        if key not in self.templates:
            self.templates[key] = self._build(kind, choices, tags)
        return self.templates[key]

    def _build(self, kind: Kind, choices: int, tags: int) -> _Template:
        element = etree.Element("question", type="multichoice")
        slots: list[etree._Element] = []
        answers: list[etree._Element] = []
        for tag in ("name", "questiontext", "generalfeedback"):
            slots.append(_text_element(element, tag, None, **({} if tag == "name" else {"format": "html"}))[0])
        slots.append(etree.SubElement(element, "defaultgrade"))
        etree.SubElement(element, "penalty").text = f"{1 / (choices - 1):.7f}"
        etree.SubElement(element, "hidden").text = "0"
        slots.append(etree.SubElement(element, "idnumber"))
        etree.SubElement(element, "single").text = "false" if kind is Kind.MULTIPLE else "true"
        slots.append(etree.SubElement(element, "shuffleanswers"))
        # True/false choices go unnumbered; the importer reads a two-answer unnumbered question back as true/false.
        etree.SubElement(element, "answernumbering").text = "none" if kind is Kind.TRUE_FALSE else "abc"
        etree.SubElement(element, "showstandardinstruction").text = "1"
        for which, tag in FEEDBACK_ELEMENTS.items():
            _text_element(element, tag, self.feedback[which], format="html")
        etree.SubElement(element, "shownumcorrect")
        for _ in range(choices):
            answer = _text_element(element, "answer", None, fraction="0", format="html")
            answers.append(answer)
            slots.append(answer[0])
            slots.append(_text_element(answer, "feedback", None, format="html")[0])
        if tags:
            tags_element = etree.SubElement(element, "tags")
            slots.extend(_text_element(tags_element, "tag", None)[0] for _ in range(tags))
        position = {node: i for i, node in enumerate(element.iter())}
        return _Template(element, [position[s] for s in slots], [position[a] for a in answers])

    def _skeleton(self, kind: Kind, choices: int, tags: int, wrapped: bool) -> Skeleton:
        """The template of this shape, serialised as write() serialises a question, with a marker in every slot
        (see :meth:`_fast_values` for their order). Every text is a raw marker, filled as :func:`_element_text`
        writes it (the bank's feedback too, so that no bank text is ever read as a marker); the fractions are
        verbatim (numbers). ``wrapped``: the question's texts are plain and in the locale's own language, and the
        skeleton holds the CDATA section and wrapper around each (as _Texts.html wraps such a text)."""
        key = (kind, choices, tags, wrapped)
        skeleton = self.skeletons.get(key)
        if skeleton is None:
            template = self.template(kind, choices, tags)
            element = copy.copy(template.element)
            nodes = list(element.iter())
            texts = 2 + 2 * choices
            # template.slots: name, question text, general feedback, grade, idnumber, shuffle, each answer's text
            # and feedback, tags. Values: the texts in question_texts order, then name, grade, idnumber, shuffle,
            # tags, fractions, feedback.
            order = [
                texts,
                0,
                1,
                texts + 1,
                texts + 2,
                texts + 3,
                *range(2, texts),
                *range(texts + 4, texts + 4 + tags),
            ]
            own = self.texts._first_own
            for index, position in zip(order, template.slots, strict=True):
                if wrapped and index < texts:
                    inline = index >= 2 and index % 2 == 0
                    around = (own, "</div>") if inline else (own + "<p>", "</p></div>")
                    nodes[position].text = etree.CDATA(around[0] + raw_slot(index) + around[1])
                else:
                    nodes[position].text = raw_slot(index)
            fractions = texts + 4 + tags
            for j, position in enumerate(template.answers):
                nodes[position].set("fraction", slot(fractions + j))
            feedback = fractions + choices
            for k, tag in enumerate(FEEDBACK_ELEMENTS.values()):
                found = element.find(tag)
                assert found is not None
                found[0].text = raw_slot(feedback + k)
            verbatim = range(fractions, feedback)
            skeleton = self.skeletons[key] = Skeleton.of(element, pretty_print=True, verbatim=verbatim)
        return skeleton

    def values(self, q: Question) -> list[str]:
        """The text of each slot of the question's template, in slot order (see :meth:`element`)."""
        texts, html = self.texts, self.texts.html
        # Every string of the question in each locale, in model.question_strings order (stem, explanation, choices).
        columns = list(zip(*(view.question_texts(q) for view in texts.views), strict=True))
        values = [
            f"{q.id}: {_short(_visible(render_block(columns[0][0].text)), _NAME_LENGTH)}",
            html("the stem", columns[0], render_block),
            html("the explanation", columns[1], render_block),
            f"{float(q.points):.7f}",
            q.id if texts.multilang else f"{q.id}-{texts.views[0].locale}",
            "true" if q.shuffle else "false",
        ]
        for j, c in enumerate(q.choices):
            values.append(html("choice", columns[2 + 2 * j], render_inline, c.id))
            values.append(html("the explanation of choice", columns[3 + 2 * j], render_block, c.id))
        values += _question_tags(self.bank, q)
        return values

    def element(self, q: Question, fractions: tuple[str, ...]) -> etree._Element:
        """The question element, built from its shape's template (the thorough way: see :meth:`serialised`)."""
        values = self.values(q)
        template = self.template(q.kind, len(q.choices), len(values) - 6 - 2 * len(q.choices))
        element = copy.copy(template.element)  # lxml's copy of an element is deep: the whole subtree
        nodes = list(element.iter())
        try:
            for position, value in zip(template.slots, values, strict=True):
                _set(nodes[position], value)
        except ValueError:
            raise _not_xml(*_bad_slot(q, values)) from None
        for position, fraction in zip(template.answers, fractions, strict=True):
            nodes[position].set("fraction", fraction)
        if self.bank.media:
            attach_files(element, self.bank.media)
        return element

    def built(self, q: Question, fractions: tuple[str, ...]) -> bytes:
        """:meth:`element` serialised as write() writes it."""
        data: bytes = etree.tostring(self.element(q, fractions), encoding="UTF-8", pretty_print=True)
        return data

    def serialised(self, q: Question, fractions: tuple[str, ...]) -> bytes:
        """The bytes of :meth:`built`, from the shape's skeleton. A text that renders as itself (most of a bank) is
        wrapped here as _Texts would wrap its rendering; any other goes through _Texts. A question that needs
        anything else (a character XML cannot carry, to be named in the error; an image of the bank, carried in
        <file> elements) is built element by element."""
        try:
            if self.texts.multilang:
                values, wrapped = self._fast_multilang_values(q), False
            else:
                values, wrapped = self._fast_values(q)
        except ValueError:  # a character XML cannot carry: the thorough way names the text that holds it
            return self.built(q, fractions)
        tags = len(values) - 6 - 2 * len(q.choices)
        values += fractions
        values += self._feedback_values
        filled = self._skeleton(q.kind, len(q.choices), tags, wrapped).fill_bytes(values)
        if self._media and (self._feedback_files or _PLUGINFILE_BYTES in filled):
            return self.built(q, fractions)
        return filled

    def _fast_values(self, q: Question) -> tuple[list[str], bool]:
        """What a per-locale category's skeleton is filled with, each as :func:`_element_text` writes it: the
        question's texts in question_texts order, then its name, grade, idnumber, shuffle and tags; and whether
        every text is plain and in the locale's own language (then the texts go in as they are, into the skeleton
        that holds their wrappers). Raises ValueError for a character XML cannot carry."""
        texts: Sequence[str]
        langs: Sequence[str] | None
        if self._source:  # every text is the source's, in the locale's own language: no Resolved needed
            texts, langs = question_sources(q), None
        else:
            texts, _, langs = zip(*self._view.question_texts(q), strict=True)
        # (_plain, with the view's answer to renders_as_itself_everywhere: it runs for every text of the bank)
        plain = [
            bool(text) and bool(everywhere) and (text.isprintable() or xml_compatible(text))
            for text, everywhere in zip(texts, self._view.question_plain(q, texts), strict=True)
        ]
        stem = texts[0]
        name = f"{q.id}: {_short(stem if plain[0] else _visible(render_block(stem)), _NAME_LENGTH)}"
        lang = self._lang
        wrapped = all(plain) and (langs is None or langs.count(lang) == len(langs))
        if wrapped:
            values = list(texts)
        else:
            values = []
            own_block, fallback_block, block_end = self._block
            own_inline, fallback_inline, inline_end = self._inline
            for k, text in enumerate(texts):
                if plain[k]:
                    own = langs is None or langs[k] == lang
                    if k < 2 or k % 2:
                        values.append((own_block if own else fallback_block) + text + block_end)
                    else:
                        values.append((own_inline if own else fallback_inline) + text + inline_end)
                else:
                    values.append(self._rendered(q, k, self._view.question_texts(q)[k : k + 1]))
        values += (_element_text(name), self._grade(q), _element_text(f"{q.id}-{self._locale}"), _SHUFFLE[q.shuffle])
        values += self._tags(q)
        return values, wrapped

    def _fast_multilang_values(self, q: Question) -> list[str]:
        """:meth:`_fast_values` of a multilang category."""
        runs = self._runs
        resolved = [view.question_texts(q) for view in self.texts.views]
        everywhere = [view.question_plain(q, texts) for view, texts in zip(self.texts.views, resolved, strict=True)]
        stem = resolved[0][0].text
        name = f"{q.id}: {_short(stem if _plain(stem) else _visible(render_block(stem)), _NAME_LENGTH)}"
        values: list[str] = []
        for k in range(len(resolved[0])):
            # A text that renders as itself in every locale is one paragraph (a choice: one inline run) of a span
            # per locale, the layout _Texts.html gives it.
            spans = []
            first = None  # the first locale's text, once found plain: a text that fell back to it is plain too
            for (own, fallback, lang), texts, plain in zip(runs, resolved, everywhere, strict=True):
                text, _, text_lang = texts[k]
                if text is not first and not (
                    text and plain[k] and (text.isprintable() or xml_compatible(text))
                ):  # (_plain, with the view's answer to renders_as_itself_everywhere)
                    values.append(self._rendered(q, k, [texts[k] for texts in resolved]))
                    break
                if first is None:
                    first = text
                spans.append((own if text_lang == lang else fallback) + text)
            else:
                run = _SPAN_END.join(spans)
                values.append(
                    f"<![CDATA[<p>{run}</bdi></span></p>]]>" if k < 2 or k % 2 else f"<![CDATA[{run}</bdi></span>]]>"
                )
        values += (_element_text(name), self._grade(q), _element_text(q.id), _SHUFFLE[q.shuffle])
        values += self._tags(q)
        return values

    def _rendered(self, q: Question, k: int, column: Sequence[Resolved]) -> str:
        """Text ``k`` of a question (question_texts order) as _Texts.html gives it, written as _element_text."""
        if k < 2:
            return _element_text(self.texts.html(_WHAT[k], column, render_block))
        choice, render = q.choices[(k - 2) // 2].id, render_block if k % 2 else render_inline
        return _element_text(self.texts.html(_WHAT[2 + k % 2], column, render, choice))

    def _tags(self, q: Question) -> list[str]:
        """:func:`_question_tags`, each as :func:`_element_text` writes it (questions share a few tag lists: the
        first _KEPT are kept)."""
        tags = self._tag_values.get(q.tags)
        if tags is None:
            tags = [_element_text(tag) for tag in _question_tags(self.bank, q)]
            if len(self._tag_values) < _KEPT:
                self._tag_values[q.tags] = tags
        return tags

    def _grade(self, q: Question) -> str:
        grade = self._points.get(q.points)
        if grade is None:
            grade = f"{float(q.points):.7f}"
            if len(self._points) < _KEPT:
                self._points[q.points] = grade
        return grade


def _plain(text: str) -> bool:
    """Whether a text renders as itself, with nothing to escape, both inline and as one paragraph (Moodle's math
    is $: such text goes to the renderer), and holds only characters XML carries (most text is printable, which
    says so at once; the rest is looked at)."""
    return bool(text) and "$" not in text and renders_as_itself(text) and (text.isprintable() or xml_compatible(text))


_PLUGINFILE_BYTES = PLUGINFILE.encode("ascii")
_KEPT = 1024  # distinct tag lists and grades a category keeps written (a bank has a handful)
_SPAN_END = "</bdi></span>"
# What _Questions.values names each text of a question (stem, explanation, a choice, a choice's explanation).
_WHAT = ("the stem", "the explanation", "choice", "the explanation of choice")
_SHUFFLE = {True: "true", False: "false"}


def _element_text(value: str) -> str:
    """``value`` as :func:`_set` writes it: a CDATA section when it holds markup characters, else escaped text.
    Raises ValueError for a character XML cannot carry, as lxml does."""
    if "<" in value or "&" in value or ">" in value:
        return cdata(value)
    return escape_text(value)


def _bad_slot(q: Question, values: list[str]) -> tuple[str, str]:
    """Which text of a question's slots XML cannot carry, named."""
    names = ["the stem", "the stem", "the explanation", "", "", ""]
    for c in q.choices:
        names += [f"choice {c.id!r}", f"the explanation of choice {c.id!r}"]
    for name, value in zip(names + ["a tag"] * len(values), values, strict=False):
        if not all(_xml_char(ch) for ch in value):
            return name, value
    return "a text", ""


def _question_tags(bank: Bank, q: Question) -> list[str]:
    """Moodle has no bank-level tags: every question carries the bank's tags first, then its own."""
    return [*bank.tags, *(t for t in q.tags if t not in bank.tags)]


def _structure_problems(bank: Bank) -> tuple[dict[str, tuple[str, ...]], list[Problem]]:
    """Each question's fractions, and what Moodle would import wrongly (the model forbids it; asserted again)."""
    fractions: dict[str, tuple[str, ...]] = {}
    problems: list[Problem] = []
    seen: set[str] = set()
    for q in bank.questions:
        qid = q.id
        if qid in seen:
            message = "the id is used twice; Moodle silently drops the second question's idnumber"
            problems.append(Problem("bank.yaml", None, message, f"question {qid!r}"))
        seen.add(qid)
        values, messages = _grading(q.kind, tuple([c.correct for c in q.choices]))
        if messages:
            problems += [Problem("bank.yaml", None, message, f"question {qid!r}") for message in messages]
        if values is not None:
            fractions[qid] = values
    return fractions, problems


@cache
def _grading(kind: Kind, key: tuple[bool, ...]) -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
    """The fractions of a question with this answer key (None if Moodle cannot grade it), and what Moodle would
    import wrongly. It depends on the kind and the key alone, so a bank's questions share a few results."""
    if len(key) < 2:
        return None, (f"has {len(key)} choice(s); Moodle aborts the import mid-file below 2",)
    try:
        values = _fractions(kind, key)
    except ValueError as exc:
        return None, (str(exc),)
    problems = []
    numbers = [Decimal(v) for v in values]
    if not all(on_grade_list(n) for n in numbers):
        problems.append(f"fractions {', '.join(values)} are not all on Moodle's grade list")
    if kind is Kind.MULTIPLE:
        if abs(sum((n for n in numbers if n > 0), Decimal(0)) - 100) > Decimal("0.5"):
            problems.append("the fractions of the correct choices do not add up to 100%")
    elif sum(1 for n in numbers if n == 100) != 1:
        problems.append(
            "a single-answer question needs exactly one correct choice; Moodle would import it silently unusable"
        )
    return values, tuple(problems)


def write(bank: Bank, options: ExportOptions, out: BinaryIO, *, thorough: bool = False) -> None:
    """Stream the bank as Moodle XML: one category per locale, or one multilang category (see the module doc).

    Each question is written from its shape's skeleton; ``thorough`` builds each one element by element instead
    (the same bytes: tests compare the two)."""
    fractions, problems = _structure_problems(bank)
    if problems:
        raise ProblemsFound(problems)
    locales = sorted(options.locales, key=bank.locales.index)  # source first, so the importer finds it first
    views = [resolve(bank, locale, include_drafts=options.include_drafts) for locale in locales]
    groups = [_Texts(views)] if options.multilang and len(views) > 1 else [_Texts([v]) for v in views]
    # Math as \(…\) and \[…\] for Moodle's MathJax filter; images embedded where they appear (moodle_files).
    # Code is highlighted with <span>s, which a multilang text cannot hold: there it stays plain.
    multilang = len(groups) == 1 and groups[0].multilang
    profile = Profile(math="tex", image_url=plugin_url, media=bank.media, highlight="none" if multilang else "inline")
    # The bytes lxml's xmlfile wrote: the declaration, <quiz>, each question indented, then </quiz>.
    with gc_paused(), rendering(profile):
        out.write(b"<?xml version='1.0' encoding='UTF-8'?>\n<quiz>\n")
        for texts in groups:
            file = "bank.yaml" if texts.multilang else _file_of(bank, texts.views[0].locale)
            try:
                out.write(etree.tostring(_category(bank, texts), encoding="UTF-8", pretty_print=True))
            except _Unwritable as exc:
                problems.append(Problem(file, None, str(exc), "the bank"))
            try:
                builder = _Questions(bank, texts)
            except _Unwritable as exc:
                problems.append(Problem(file, None, str(exc), "the bank"))
                continue
            question = builder.built if thorough else builder.serialised
            for q in bank.questions:
                try:
                    out.write(question(q, fractions[q.id]))
                except _Unwritable as exc:
                    problems.append(Problem(file, None, str(exc), f"question {q.id!r}"))
        out.write(b"</quiz>")
    if problems:
        raise ProblemsFound(problems)


def _file_of(bank: Bank, locale: str) -> str:
    return "bank.yaml" if locale == bank.source_locale else f"locales/{locale}.po"


FORMAT = Format(
    name="moodle",
    description="Moodle XML",
    suffix=".moodle.xml",
    write=write,
)


# --- checking any Moodle XML file -----------------------------------------------------------------------------


def _single(element: etree._Element) -> bool:
    """Moodle's reading of <single>: absent means true; 'false', empty and '0' mean false."""
    value = element.findtext("single")
    return value is None or value.strip() not in ("false", "", "0")


def check_moodle_xml(data: bytes, *, file: str = "<moodle xml>") -> list[Problem]:
    """Problems Moodle's importer would have with a Moodle XML file, each with its line; empty when it is fine.

    Checks that the file is well-formed XML (parsed safely: no DTDs, no entities, size-limited) with a ``<quiz>``
    root, and the rules Moodle 4.5 enforces badly: every multichoice has at least two answers (else the import
    aborts half-done), fractions are on Moodle's grade list (else the whole import stops), a single-answer
    multichoice has a 100% answer (else it imports silently as a question nobody can get right), the positive
    fractions of a multiple-answer question add up to 100%, and no idnumber repeats within a category (Moodle
    silently drops the second one's idnumber). Multilang spans the filter would mis-read are reported as warnings.
    """
    try:
        root = parse_untrusted(data)
    except UnsafeXmlError as exc:
        return [Problem(file, exc.line, exc.message)]
    if root.tag != "quiz":
        return [Problem(file, root.sourceline, f"the root element is <{root.tag!s}>; Moodle XML needs <quiz>")]
    problems: list[Problem] = []
    category = ""  # questions before any category go to the one chosen on Moodle's import page
    first_use: dict[tuple[str, str], int | None] = {}
    for q in root.iterchildren("question"):
        qtype = q.get("type")
        name = (q.findtext("name/text") or "").strip()
        where = f"question {name!r}" if name else None

        def add(
            message: str,
            line: int | None = q.sourceline,
            severity: Severity = Severity.ERROR,
            where: str | None = where,
        ) -> None:
            problems.append(Problem(file, line, message, where, severity=severity))

        if qtype is None:
            add("<question> has no type attribute")
            continue
        if qtype == "category":
            path = (q.findtext("category/text") or "").strip()
            if not path:
                add("a category question needs <category><text>path</text></category>")
            else:
                category = path
        else:
            idnumber = (q.findtext("idnumber") or "").strip()
            if idnumber:
                key = (category, idnumber)
                if key in first_use:
                    add(
                        f"idnumber {idnumber!r} is already used in category {category or '(default)'!r} at line "
                        f"{first_use[key]}; Moodle silently drops the idnumber of the second"
                    )
                else:
                    first_use[key] = q.sourceline
            if qtype == "multichoice":
                for message, line in _multichoice_problems(q):
                    add(message, line)
        for text in q.iter("text"):
            for message in _multilang_problems(text.text or ""):
                add(message, text.sourceline, Severity.WARNING)
            for message in missing_files(text):
                add(message, text.sourceline)
    return problems


def _multichoice_problems(q: etree._Element) -> Iterable[tuple[str, int | None]]:
    answers = q.findall("answer")
    if len(answers) < 2:
        yield f"a multichoice has {len(answers)} answer(s); Moodle aborts the import mid-file below 2", q.sourceline
    fractions: list[Decimal] = []
    for answer in answers:
        raw = answer.get("fraction", "0")
        try:
            value = Decimal(raw.strip())
        except InvalidOperation:
            yield f"fraction {raw!r} is not a number", answer.sourceline
            continue
        if not value.is_finite() or not on_grade_list(value):
            yield (
                f"fraction {raw} is not on Moodle's grade list ({', '.join(GRADES)}, 0 and their negatives); "
                "Moodle stops the whole import",
                answer.sourceline,
            )
            continue
        fractions.append(value)
    if not fractions:
        return
    if _single(q):
        if max(fractions) < 100 - _GRADE_TOLERANCE:
            yield (
                "a single-answer multichoice without a 100% answer; Moodle imports it silently as a question "
                "nobody can get right",
                q.sourceline,
            )
    else:
        total = sum(f for f in fractions if f > 0)
        if round(total / 100, 2) != 1:
            yield f"the positive fractions add up to {total}%, not 100%", q.sourceline


# --- import ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Skipped:
    """A question of a type moe-lms does not keep (Moodle has many: shortanswer, essay, cloze …)."""

    type: str
    name: str
    line: int | None

    def __str__(self) -> str:
        place = f"line {self.line}: " if self.line else ""
        return f"{place}{self.type} question {self.name!r}"


@dataclass(frozen=True)
class ImportResult:
    bank: Bank | None  # None when nothing usable was found (see problems)
    skipped: tuple[Skipped, ...]
    problems: tuple[Problem, ...]


@dataclass(frozen=True)
class _Text:
    body: str
    format: str  # html, moodle_auto_format, plain_text, markdown


@dataclass
class _Category:
    path: str
    info: _Text
    line: int | None
    bank_id: str | None = None  # set when the idnumber is one this module writes
    locale: str | None = None  # the category of one locale
    multilang: bool = False


@dataclass
class _Answer:
    fraction: Decimal
    text: _Text
    feedback: _Text
    line: int | None


@dataclass
class _RawQuestion:
    type: str
    line: int | None
    name: str
    idnumber: str
    category: _Category
    stem: _Text
    explanation: _Text
    points: str
    single: bool
    shuffle: bool
    numbering: str
    answers: list[_Answer]
    feedback: dict[str, _Text]
    tags: list[str]


@dataclass(frozen=True)
class _Piece:
    """One text in one locale: its Markdown, and whether it is really in that locale (not a marked fallback)."""

    markdown: str
    own: bool


@dataclass
class _Occurrence:
    """A question as one locale has it."""

    raw: _RawQuestion
    texts: dict[str, _Piece | None] = field(default_factory=dict)  # "stem", "explanation", "0/text", "feedback/…"


class _Importer:
    def __init__(self, file: str, locale: str | None) -> None:
        self.file = file
        self.requested_locale = locale
        self.problems: list[Problem] = []
        self.skipped: list[Skipped] = []
        self.categories: list[_Category] = []
        self.questions: list[_RawQuestion] = []
        self.files: dict[str, bytes] = {}  # embedded images by file-area path (moodle_files)

    def warn(self, line: int | None, message: str, where: str | None = None) -> None:
        self.problems.append(Problem(self.file, line, message, where, severity=Severity.WARNING))

    # Reading the XML.

    def read(self, children: Iterable[etree._Element]) -> None:
        """Read the children of <quiz> in order (they may come one at a time from a streaming parser)."""
        category = _Category("", _Text("", "html"), None)
        for q in children:
            if q.tag != "question":
                continue
            qtype = q.get("type") or ""
            name = " ".join((q.findtext("name/text") or "").split())
            if q.find(".//file") is not None:
                for holder in q.iter():
                    self.files.update(read_files(holder))
            if qtype == "category":
                category = self._category(q)
                self.categories.append(category)
            elif qtype in ("multichoice", "truefalse"):
                self.questions.append(self._question(q, qtype, name, category))
            else:
                self.skipped.append(Skipped(qtype or "(untyped)", name, q.sourceline))

    def _category(self, q: etree._Element) -> _Category:
        category = _Category((q.findtext("category/text") or "").strip(), _text(q, "info"), q.sourceline)
        idnumber = (q.findtext("idnumber") or "").strip()
        bank_id, _, suffix = idnumber.rpartition("-")
        if re.fullmatch(ID_PATTERN, bank_id) and len(bank_id) <= ID_MAX_LENGTH:
            if suffix == MULTILANG_SUFFIX:
                category.bank_id, category.multilang = bank_id, True
            elif re.fullmatch(r"[a-z]{2,3}(_[A-Za-z0-9]{2,8})*", suffix) and _known_locale(suffix):
                category.bank_id, category.locale = bank_id, suffix
        return category

    def _question(self, q: etree._Element, qtype: str, name: str, category: _Category) -> _RawQuestion:
        default_format = _text(q, "questiontext").format
        answers = []
        for a in q.findall("answer"):
            fraction = self._fraction(a, name)
            text = _Text((a.findtext("text") or "").strip(), a.get("format") or default_format)
            if qtype == "truefalse":
                text = _Text(text.body.capitalize() or "True", "plain_text")
            answers.append(_Answer(fraction, text, _text(a, "feedback", default_format), a.sourceline))
        return _RawQuestion(
            type=qtype,
            line=q.sourceline,
            name=name,
            idnumber=(q.findtext("idnumber") or "").strip(),
            category=category,
            stem=_text(q, "questiontext"),
            explanation=_text(q, "generalfeedback", default_format),
            points=(q.findtext("defaultgrade") or "1").strip(),
            single=qtype == "truefalse" or _single(q),
            shuffle=(q.findtext("shuffleanswers") or "true").strip() not in ("false", "", "0"),
            numbering=(q.findtext("answernumbering") or "abc").strip(),
            answers=answers,
            feedback={which: _text(q, tag, default_format) for which, tag in FEEDBACK_ELEMENTS.items()},
            tags=[t.strip() for t in q.xpath("tags/tag/text/text()") if isinstance(t, str) and t.strip()],
        )

    def _fraction(self, answer: etree._Element, name: str) -> Decimal:
        """An answer's fraction: a percentage from -100 to 100. Anything else (``abc``, ``NaN``, ``sNaN``,
        ``Infinity``, ``1e999999``) is an error naming the question, and is read as 0 to report further errors."""
        raw = (answer.get("fraction") or "0").strip()
        try:
            fraction = Decimal(raw)
            if fraction.is_finite() and -100 <= fraction <= 100:
                return fraction
        except InvalidOperation:
            pass
        self.problems.append(
            Problem(
                self.file,
                answer.sourceline,
                f"fraction {raw[:40]!r} is not a percentage from -100 to 100",
                f"question {name!r}",
            )
        )
        return Decimal(0)

    # Deciding the locales.

    def locales(self) -> list[str]:
        """Every locale the file has, source first."""
        found: list[str] = []
        for category in self.categories:
            if category.locale and category.locale not in found:
                found.append(category.locale)
        unknown: set[str] = set()
        for text in self._all_texts():
            for code in split_languages(text.body) or {}:
                locale = locale_from_lang(code)
                if locale in found or locale in unknown:
                    continue
                if _known_locale(locale):
                    found.append(locale)
                else:
                    unknown.add(locale)
                    self.warn(None, f"multilang spans in language {code!r}, which is no locale moe-lms knows; skipped")
        source = self.requested_locale or (found[0] if found else "en")
        return [source, *(loc for loc in found if loc != source)]

    def _all_texts(self) -> Iterable[_Text]:
        for category in self.categories:
            yield category.info
        for q in self.questions:
            yield q.stem
            yield q.explanation

    # Texts, per locale.

    def pieces(
        self, text: _Text, locale: str | None, source: str, inline: bool, ours: bool, multilang: bool = False
    ) -> dict[str, _Piece]:
        """Each locale's Markdown of one text. ``locale`` is the category's; None means the source or multilang
        (``multilang``: a part of a multilang text, already one language's)."""
        body = text.body
        if text.format == "markdown":
            return {locale or source: _Piece(body, True)} if body else {}
        if text.format == "plain_text":
            body = html.escape(body, quote=False)
            body = body if inline else f"<p>{body}</p>"
        split = split_languages(body) if body else None
        by_locale = {locale_from_lang(code): value for code, value in split.items()} if split else {}
        if not by_locale:
            by_locale = {locale or source: body} if body else {}
        pieces: dict[str, _Piece] = {}
        for loc, fragment in by_locale.items():
            fragment = fragment.strip()
            lang: str | None = None
            if split or multilang:
                lang, fragment = unmark_multilang(fragment)
            unwrapped = unwrap(fragment) if lang is None else None
            if unwrapped is not None:
                lang, fragment = unwrapped
            markdown = markdown_from_rich_html(  # \(…\) back to $…$, @@PLUGINFILE@@/ back to media/
                bank_html(fragment), lambda f: markdown_from_html(f, inline=inline, tidy=not ours)
            )
            if markdown:
                pieces[loc] = _Piece(markdown, lang is None or _same_language(lang, loc))
        return pieces

    # Assembling the bank.

    def bank(self) -> Bank | None:
        if not self.questions:
            self.problems.append(
                Problem(self.file, None, "no multichoice or truefalse questions in the file; nothing to import")
            )
            return None
        locales = self.locales()
        source = locales[0]
        ours = any(c.bank_id for c in self.categories)
        order: list[str] = []
        occurrences: dict[str, dict[str, _Occurrence]] = {}
        used_ids: set[str] = set()
        for index, raw in enumerate(self.questions, start=1):
            by_locale = self._localize(raw, source, ours)
            base = self._question_id(raw, index)
            qid = base
            # The same question comes once per locale; a second one in a locale is another question.
            while qid in occurrences and set(by_locale) & set(occurrences[qid]):
                qid = _numbered(base, used_ids)
            used_ids.add(qid)
            if qid not in occurrences:
                occurrences[qid] = {}
                order.append(qid)
            occurrences[qid].update(by_locale)
        questions: list[Question] = []
        translations: dict[str, dict[str, Translation]] = {loc: {} for loc in locales[1:]}
        feedback: dict[str, dict[str, _Piece]] = {}
        for qid in order:
            occ = occurrences[qid]
            if source not in occ:
                first = next(iter(occ.values())).raw
                self.warn(
                    first.line, f"question has no text in the source locale {source}; skipped", f"question {qid!r}"
                )
                continue
            question = self._build_question(qid, occ[source])
            if question is None:
                continue
            questions.append(question)
            for loc in locales[1:]:
                if loc in occ:
                    self._translate(question, occ[source], occ[loc], translations[loc])
            for loc, o in occ.items():
                for which in FEEDBACK_ELEMENTS:
                    piece = o.texts.get(f"feedback/{which}")
                    if piece is not None:
                        feedback.setdefault(loc, {}).setdefault(which, piece)
        if not questions:
            self.problems.append(Problem(self.file, None, "none of the questions could be imported (see above)"))
            return None
        return self._assemble(locales, questions, translations, feedback)

    def _localize(self, raw: _RawQuestion, source: str, ours: bool) -> dict[str, _Occurrence]:
        locale = raw.category.locale
        occurrences: dict[str, _Occurrence] = {}

        def put(key: str, text: _Text, inline: bool) -> None:
            for loc, piece in self.pieces(text, locale, source, inline, ours).items():
                occurrences.setdefault(loc, _Occurrence(raw)).texts[key] = piece

        put("stem", raw.stem, False)
        put("explanation", raw.explanation, False)
        for i, answer in enumerate(raw.answers):
            put(f"{i}/text", answer.text, True)
            put(f"{i}/explanation", answer.feedback, False)
        for which in FEEDBACK_ELEMENTS:
            put(f"feedback/{which}", raw.feedback[which], False)
        if not occurrences:
            occurrences[locale or source] = _Occurrence(raw)
        return occurrences

    def _question_id(self, raw: _RawQuestion, index: int) -> str:
        idnumber = raw.idnumber
        suffix = f"-{raw.category.locale}" if raw.category.locale else ""
        if raw.category.bank_id and suffix and idnumber.endswith(suffix):
            idnumber = idnumber[: -len(suffix)]
        if re.fullmatch(ID_PATTERN, idnumber) and len(idnumber) <= ID_MAX_LENGTH:
            return idnumber
        return _slug(idnumber) or _slug(raw.name) or f"question-{index}"

    def _build_question(self, qid: str, occ: _Occurrence) -> Question | None:
        raw = occ.raw
        where = f"question {qid!r}"
        stem = occ.texts.get("stem")
        if stem is None:
            self.warn(raw.line, "has no question text; skipped", where)
            return None
        placeholders = []

        def text(key: str, what: str) -> str:
            piece = occ.texts.get(key)
            if piece is None:
                placeholders.append(what)
                return NO_EXPLANATION
            return piece.markdown

        if raw.type == "truefalse":
            kind = Kind.TRUE_FALSE
            ids = [
                a.text.body.lower() if a.text.body.lower() in ("true", "false") else f"c{i}"
                for i, a in enumerate(raw.answers)
            ]
        else:
            kind = Kind.SINGLE if raw.single else Kind.MULTIPLE
            if raw.single and raw.numbering == "none" and len(raw.answers) == 2:
                kind = Kind.TRUE_FALSE
            ids = [_choice_id(i) for i in range(len(raw.answers))]
        choices = []
        for i, answer in enumerate(raw.answers):
            choice_text = occ.texts.get(f"{i}/text")
            choices.append(
                {
                    "id": ids[i],
                    "text": choice_text.markdown if choice_text else "-",
                    "correct": answer.fraction > 0,
                    "explanation": text(f"{i}/explanation", f"choice {ids[i]}"),
                }
            )
        data = {
            "id": qid,
            "kind": kind,
            "points": _points(raw.points),
            "shuffle": raw.shuffle,
            "stem": stem.markdown,
            "explanation": text("explanation", "the general explanation"),
            "choices": choices,
            "tags": _tags(raw.tags),
        }
        try:
            question = Question.model_validate(data)
        except ValidationError as exc:
            reasons = "; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors(include_url=False))
            self.warn(raw.line, f"cannot be imported: {reasons}; skipped", where)
            return None
        if placeholders:
            self.warn(raw.line, f"no explanation for {', '.join(placeholders)}; wrote {NO_EXPLANATION!r}", where)
        return question

    def _media(self, questions: list[Question]) -> dict[str, MediaItem]:
        """The embedded images the imported text refers to, as bank media (``media/<file-area path>``)."""
        if not self.files:
            return {}
        from ..media import MEDIA_TYPES, sniff

        media: dict[str, MediaItem] = {}
        for area_path, data in sorted(self.files.items()):
            kind = sniff(data)
            suffix = "." + area_path.rsplit(".", 1)[-1].lower() if "." in area_path else ""
            if kind is None or MEDIA_TYPES.get(suffix) != kind:
                self.warn(None, f"embedded file {area_path!r} is no PNG, JPEG, GIF, WebP or SVG image; skipped")
                continue
            path = MEDIA_FOLDER + area_path
            media[path] = MediaItem(path, data, kind, hashlib.sha256(data).hexdigest())
        return media

    def _translate(
        self, question: Question, source: _Occurrence, target: _Occurrence, catalog: dict[str, Translation]
    ) -> None:
        if len(target.raw.answers) != len(question.choices):
            self.warn(
                target.raw.line,
                f"has {len(target.raw.answers)} answers where the source has {len(question.choices)}; "
                "its choices are not taken as translations",
                f"question {question.id!r}",
            )
        paths = {"stem": f"{question.id}/stem", "explanation": f"{question.id}/explanation"}
        originals = {"stem": question.stem, "explanation": question.explanation}
        if len(target.raw.answers) == len(question.choices):
            for i, choice in enumerate(question.choices):
                for part in ("text", "explanation"):
                    paths[f"{i}/{part}"] = f"{question.id}/choices/{choice.id}/{part}"
                    originals[f"{i}/{part}"] = getattr(choice, part)
        for key, path in paths.items():
            piece = target.texts.get(key)
            if piece is not None and piece.own and source.texts.get(key) is not None:
                _add_translation(catalog, path, piece.markdown, originals[key])

    def _assemble(
        self,
        locales: list[str],
        questions: list[Question],
        translations: dict[str, dict[str, Translation]],
        feedback: dict[str, dict[str, _Piece]],
    ) -> Bank | None:
        source = locales[0]
        titles, intros, bank_id = self._titles(locales)
        title = titles.get(source)
        if title is None:
            title = _Piece(_plain_markdown(_root_category_name(self.categories) or "Imported questions"), True)
        values: dict[str, object] = {
            "id": bank_id or _slug(_visible(render_inline(title.markdown))) or "imported-bank",
            "title": title.markdown,
            "source_locale": source,
            "target_locales": tuple(locales[1:]),
            "questions": tuple(questions),
        }
        if source in intros:
            values["intro"] = intros[source].markdown
        values["media"] = self._media(questions)
        source_feedback = {w: p.markdown for w, p in feedback.get(source, {}).items()}
        if source_feedback:  # left unset when the file has none, so a merge keeps the bank's own
            values["feedback"] = Feedback(**source_feedback)
        common = _common_prefix([list(q.tags) for q in questions])
        if common:
            values["tags"] = tuple(common)
            values["questions"] = tuple(
                q.model_copy(update={"tags": tuple(t for t in q.tags if t not in common)}) for q in questions
            )
        for loc in locales[1:]:
            catalog = translations[loc]
            if loc in titles and titles[loc].own:
                _add_translation(catalog, "title", titles[loc].markdown, title.markdown)
            if loc in intros and intros[loc].own and "intro" in values:
                _add_translation(catalog, "intro", intros[loc].markdown, str(values["intro"]))
            for which, piece in feedback.get(loc, {}).items():
                if piece.own and which in source_feedback:
                    _add_translation(catalog, f"feedback/{which}", piece.markdown, source_feedback[which])
        try:
            bank = Bank.model_validate(values)
        except ValidationError as exc:
            for e in exc.errors(include_url=False):
                self.problems.append(Problem(self.file, None, f"cannot make a bank: {e['msg']}"))
            return None
        return bank.model_copy(update={"translations": {loc: c for loc, c in translations.items() if c}})

    def _titles(self, locales: list[str]) -> tuple[dict[str, _Piece], dict[str, _Piece], str | None]:
        """The bank's title and intro per locale, from the categories this module writes, and the bank id."""
        titles: dict[str, _Piece] = {}
        intros: dict[str, _Piece] = {}
        bank_id: str | None = None
        for category in self.categories:
            if category.bank_id is None:
                continue
            bank_id = bank_id or category.bank_id
            split = split_languages(category.info.body) if category.multilang else None
            infos = (
                {locale_from_lang(k): v for k, v in split.items()}
                if split
                else {category.locale or locales[0]: category.info.body}
            )
            for loc, info in infos.items():
                match = _TITLE.match(info.strip())
                if match is None or loc in titles:
                    continue
                lang, title_html = match.group(2), match.group(3)
                marked = _bdi_wrapper(title_html) if split else None
                if marked is not None:
                    lang, title_html = marked
                title = markdown_from_html(title_html, inline=True)
                if title:
                    titles[loc] = _Piece(title, lang is None or _same_language(lang, loc))
                rest = info.strip()[match.end() :]
                if rest:
                    pieces = self.pieces(_Text(rest, "html"), loc, locales[0], False, True, multilang=bool(split))
                    if loc in pieces:
                        intros[loc] = pieces[loc]
        return titles, intros, bank_id


def _text(parent: etree._Element, tag: str, default_format: str = "html") -> _Text:
    element = parent.find(tag)
    if element is None:
        return _Text("", default_format)
    return _Text((element.findtext("text") or "").strip(), element.get("format") or default_format)


def _known_locale(tag: str) -> bool:
    try:
        locale_info(tag)
    except ValueError:
        return False
    return True


def _add_translation(catalog: dict[str, Translation], path: str, text: str, source: str) -> None:
    with contextlib.suppress(ValueError):  # an empty translation is no translation
        catalog[path] = Translation(text=clean_text(text), source=source, draft=False)


def _choice_id(index: int) -> str:
    """a, b, … z, then aa, ab …"""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


def _slug(text: str) -> str | None:
    """An id from free text: ASCII letters and digits joined by hyphens, starting with a letter."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")
    if not slug:
        return None
    if not slug[0].isalpha():
        slug = "q-" + slug
    return slug[:ID_MAX_LENGTH].rstrip("-")


def _numbered(base: str, used: set[str]) -> str:
    n = 2
    while True:
        suffix = f"-{n}"
        candidate = base[: ID_MAX_LENGTH - len(suffix)].rstrip("-") + suffix
        if candidate not in used:
            return candidate
        n += 1


def _points(raw: str) -> int | float:
    try:
        value = float(raw)
    except ValueError:
        return 1
    if not 0 < value <= 1000:
        return 1
    return int(value) if value.is_integer() else value


def _tags(raw: list[str]) -> list[str]:
    tags: list[str] = []
    for t in raw:
        slug = t if re.fullmatch(ID_PATTERN, t) and len(t) <= ID_MAX_LENGTH else _slug(t)
        if slug and slug not in tags:
            tags.append(slug)
    return tags


def _common_prefix(lists: list[list[str]]) -> list[str]:
    if not lists:
        return []
    prefix = lists[0]
    for tags in lists[1:]:
        n = 0
        while n < min(len(prefix), len(tags)) and prefix[n] == tags[n]:
            n += 1
        prefix = prefix[:n]
    return prefix


def _plain_markdown(text: str) -> str:
    return markdown_from_html(html.escape(text, quote=False), inline=True)


def _root_category_name(categories: list[_Category]) -> str | None:
    """The first user-made category of a path: '$course$/top/Physics/Waves' -> 'Physics'."""
    for category in categories:
        names = [n for n in re.split(r"(?<!/)/(?!/)", category.path.strip("/"))]
        names = [n.replace("//", "/").strip() for n in names]
        names = [n for n in names if n and not re.fullmatch(r"\$[a-z]+\$", n)]
        if names and names[0] == "top":
            names = names[1:]
        if names:
            return names[0]
    return None


def load(
    data: bytes, *, file: str = "<moodle xml>", locale: str | None = None, max_bytes: int = MAX_XML_BYTES
) -> ImportResult:
    """Read Moodle XML into a bank: multichoice and truefalse questions, per-answer and general feedback,
    overall feedback, tags, categories and multilang spans (one PO catalog per further language). A file over
    ``max_bytes`` is refused before parsing. The file is parsed a question at a time, so memory does not hold
    its whole tree.

    ``locale`` is the source locale when the file does not say (a file from Moodle without multilang spans);
    by default the first locale of a file moe-lms wrote, else ``en``. Translations read from a file are taken as
    reviewed: they are what learners were shown. Problems are warnings (something kept differently, or a
    question skipped) unless the bank is None.
    """
    importer = _Importer(file, locale)
    if len(data) > max_bytes:
        message = f"the file is {len(data):,} bytes; the limit is {max_bytes:,}"
        return ImportResult(None, (), (Problem(file, None, message),))
    try:
        # One question in memory at a time, and each within a budget: 45 MB of <answer> in one question took 3.4 GB.
        elements = iterparse_untrusted(data, max_bytes=max_bytes, budget=QUESTION_BUDGET)
        root = next(elements)
        if root.tag != "quiz":
            message = f"the root element is <{root.tag!s}>; Moodle XML has <quiz>"
            return ImportResult(None, (), (Problem(file, root.sourceline, message),))
        importer.read(elements)
    except UnsafeXmlError as exc:
        return ImportResult(None, (), (Problem(file, exc.line, exc.message),))
    bank = importer.bank()
    return ImportResult(bank, tuple(importer.skipped), tuple(importer.problems))
