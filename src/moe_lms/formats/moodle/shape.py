"""What both directions of Moodle XML know of Moodle: its grade list, its language codes, the multilang layout.

Language codes: the span ``lang`` is the Moodle language-pack code, which is the bank's locale tag in lower case
(``en``, ``ur``, ``vi``, ``pt_br``); the HTML ``lang`` of wrappers is BCP 47 (``pt-BR``). Moodle's multilang
filter picks one span of each run of two or more adjacent ``<span lang="xx" class="multilang">`` spans
(:data:`MULTILANG_RUN`, its regex verbatim); :func:`split_languages` reads a text as the filter shows it.

This module must not know how a question is written or read (elements, the bank's model beyond a question's kind
and answer key): :mod:`.write`, :mod:`.read` and :mod:`.validate` build on it, never the other way.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from functools import cache

from ...model import (
    Bank,
    Kind,
    Question,
)
from ...text import visible_text
from ...xmlsafe import Budget

# Moodle's grade list (question_bank::fraction_options), in percent as Moodle writes it. Its importer refuses a
# fraction further than 0.001 percent from every entry, and then stops the whole import.
GRADES: tuple[str, ...] = (
    "100", "90", "83.33333", "80", "75", "70", "66.66667", "60", "50", "40", "33.33333", "30", "25", "20",
    "16.66667", "14.28571", "12.5", "11.11111", "10", "5",
)  # fmt: skip
GRADE_TOLERANCE = Decimal("0.001")
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
NAME_LENGTH = 80
CATEGORY_NAME_LENGTH = 255  # question_categories.name

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
_WRAPPER_OPEN = re.compile(r'<div((?:\s+(?:dir|lang)="[^"<>]*"){1,2}(?:\s+style="[^"<>]*")?)\s*>')
_DIV_TAG = re.compile(r"<(/?)div\b[^>]*>", re.I)
_LANG_ATTRIBUTE = re.compile(r'\blang="([^"]*)"')
_TAG = re.compile(r"<[^>]*>")
TITLE = re.compile(r'^(<div dir="(?:ltr|rtl)" lang="([^"]*)"(?: style="[^"<>]*")?>)?<h3>(.*?)</h3>(?(1)</div>)', re.S)


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


def same_language(lang: str, locale: str) -> bool:
    return locale_from_lang(lang) == locale_from_lang(locale)


def on_grade_list(percent: Decimal) -> bool:
    """Whether Moodle's importer accepts this fraction (in percent, negative for penalties)."""
    magnitude = abs(percent)
    return magnitude < GRADE_TOLERANCE or any(abs(magnitude - Decimal(g)) < GRADE_TOLERANCE for g in GRADES)


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
                if abs(a * many + b * (count - many) - 100) <= GRADE_TOLERANCE:
                    key = (a - b, -many)
                    if best is None or key < best[0]:
                        best = (key, (high,) * many + (low,) * (count - many))
    return None if best is None else best[1]


def answer_fractions(question: Question) -> tuple[str, ...]:
    """The Moodle ``fraction`` of each choice, in choice order; raises ValueError when Moodle cannot grade it.

    Single-answer and true/false: 100 for the key, 0 otherwise. Multiple-answer: the correct choices share 100
    and the wrong ones share -100 (so ticking everything scores 0), all from Moodle's grade list.
    """
    return key_fractions(question.kind, tuple(c.correct for c in question.choices))


def key_fractions(kind: Kind, key: tuple[bool, ...]) -> tuple[str, ...]:
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
_MARKER_BDI = re.compile(r"<bdi [^<>]*\blang=")


def simple_blocks(rendered: str) -> list[tuple[str, str]] | None:
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


def bdi_wrapper(inline: str) -> tuple[str, str] | None:
    """``(lang, inner HTML)`` when inline HTML is one <bdi> carrying only dir and lang (the multilang marker)."""
    match = _BDI_WRAPPER.fullmatch(inline)
    inner = match.group(3) if match is not None else ""
    # (an isolate the renderer writes, <bdi dir="ltr"> around a formula, may sit inside; another marker may not)
    if match is None or _MARKER_BDI.search(inner) or inner.count("<bdi") != inner.count("</bdi"):
        return None
    return match.group(2), match.group(3)


def unmark_multilang(fragment: str) -> tuple[str | None, str]:
    """One language's text as Moodle's multilang filter shows it, back as the export rendered it: without the
    empty blocks of the other languages, and without the <bdi> markers; with the language they said (None when
    unmarked). A fragment of another layout comes back as it is."""
    blocks = simple_blocks(fragment)
    if blocks is None:
        wrapped = bdi_wrapper(fragment.strip())
        return wrapped if wrapped is not None else (None, fragment)
    langs = set()
    parts = []
    for tag, inline in blocks:
        if not inline:
            continue
        wrapped = bdi_wrapper(inline)
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


def multilang_problems(text: str) -> list[str]:
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


def visible_of(rendered: str) -> str:
    """The text of rendered HTML, for plain-text fields. From the HTML, not the Markdown: an import keeps the HTML."""
    if rendered.startswith("<p>") and rendered.endswith("</p>") and rendered.count("<") == 2:
        rendered = rendered[3:-4]  # the common case: one paragraph of text
    return visible_text(rendered)  # never a tag, even from text the bank escaped


def multilang_refusal(bank: Bank) -> str | None:
    """The path of the first text (source or translation) that a Moodle multilang span cannot hold, or None.

    ``export --format moodle --multilang`` refuses a bank with one, so ``check`` names it and the shelf leaves
    the all-languages file out. Only a text that is not one paragraph is rendered to see (most are one)."""
    from ...model import strings
    from ...richtext import render_block
    from ...text import one_paragraph

    def refused(path: str, text: str) -> bool:
        inline = path == "title" or path.endswith("/text")
        return not inline and not one_paragraph(text) and simple_blocks(render_block(text)) is None

    for path, source in strings(bank):
        if refused(path, source):
            return path
    for catalog in bank.translations.values():
        for path, translation in catalog.items():
            if translation.text and refused(path, translation.text):
                return path
    return None
