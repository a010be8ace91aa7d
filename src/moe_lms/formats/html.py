"""A take-the-quiz page: one self-contained HTML file per locale that a learner opens in any browser.

Everything is inline (CSS, a small script, no fonts or anything else fetched), so the file works from a
USB stick or an e-mail attachment. Each question is a small form of real radio buttons (checkboxes for
multiple-answer); "Check" grades it and shows the explanation of each chosen choice, and once every question
is checked the page shows the score. Without JavaScript the page still reads: the answers and every choice's
explanation sit in a ``<details>`` under each question. Text that falls back to the source language carries
its real ``lang``/``dir``, so a screen reader and the font stack treat it as what it is.

Why it is over 700 lines (issue 19): it is one page's document tree, built top to bottom (head, quiz sections and
their draw, each question's form, the no-script answers), and its skeleton for large banks sits beside the element
code it must match; split by part, each part would need the page's shared state passed through every call.
It must not know any LMS format: it reads only the localized view and richtext's rendering.
"""

from __future__ import annotations

import base64
import hashlib
import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import BinaryIO, NamedTuple

import lxml.html
from babel import Locale
from babel.numbers import format_decimal
from lxml import etree
from lxml.html import HtmlElement
from lxml.html.builder import E

from .. import pagewords
from ..locales import LocaleInfo, LocalizedView, Origin, Resolved, locale_info, resolve
from ..model import Bank, DrawnSection, Kind, MediaItem, Question, Quiz, quiz_strings, resolve_quiz, whole_bank_quiz
from ..numeric import number_text
from ..richtext import (
    NOWRAP_CLASS,
    Profile,
    code_style,
    latin_isolated,
    plain_text,
    render_block,
    render_inline,
    rendering,
    renders_as_itself_everywhere,
)
from ..skeleton import Skeleton, raw, slot
from . import ExportOptions, Format, Guide, Held, ShelfEntry

_ASSETS = resources.files(__package__) / "html_assets"
# The page's stylesheet, then the highlighted code's (class-based: the CSP refuses style attributes).
STYLE = (_ASSETS / "quiz.css").read_text(encoding="utf-8") + code_style() + "\n"
SCRIPT = (_ASSETS / "quiz.js").read_text(encoding="utf-8")
# A quiz's page also carries the script that draws each attempt's questions (run before SCRIPT, which grades them)
# and the style of its sections: a page of the whole bank stays as it was.
DRAW_SCRIPT = (_ASSETS / "draw.js").read_text(encoding="utf-8")
QUIZ_STYLE = STYLE + (_ASSETS / "sections.css").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Chrome:
    """The page's own words (buttons, headings), in one language; bank text comes from the bank."""

    lang: str
    question_of: str
    choose_one: str
    choose_all: str
    check: str
    choose_first: str
    your_choice: str
    key: str
    right_answer: str
    wrong_answer: str
    general: str
    progress: str
    finished: str
    score: str
    start_over: str
    score_rule: str
    languages: str
    noscript: str
    untranslated: str
    fallback_note: str
    new_attempt: str
    attempts: str
    attempt_score: str
    letters: tuple[str, ...]
    # A numerical question's words (issue 30): its hint, the box's label, what a text that is no number gets.
    type_number: str
    answer_label: str
    not_a_number: str
    lowercase_language_names: bool = False  # mid-sentence, as Vietnamese writes "tiếng Anh"


def chrome_for(locale: str, bank_words: Mapping[str, pagewords.Catalog] | None = None, *,
               include_drafts: bool = False) -> Chrome:  # fmt: skip
    """The page's own words in ``locale``'s language, from moe-lms's page-word catalogs and the bank's own over them
    (moe_lms.pagewords); English (and then marked as English) where a language has none. Drafts only with
    ``include_drafts``, as for the bank's texts."""
    found = pagewords.page_words(locale, bank_words, include_drafts=include_drafts)
    return Chrome(
        lang=found.locale,
        letters=found.letters,
        lowercase_language_names=found.lowercase_language_names,
        **found.words,
    )


def page_name(bank: Bank, locale: str, quiz: Quiz | None = None) -> str:
    """The file name sibling pages link to: ``<bank-id>.<locale>.html``; a quiz's ``<bank-id>.<quiz>.<locale>.html``."""
    return f"{bank.id}.{locale}.html" if quiz is None else f"{bank.id}.{quiz.id}.{locale}.html"


def _csp_hash(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii") + "'"


# Nothing may be fetched: no fonts, scripts, styles or images from anywhere; only the inline script and style, by
# hash, and the bank's images, which the page carries as data: URIs.
CONTENT_SECURITY_POLICY = (
    f"default-src 'none'; script-src {_csp_hash(SCRIPT)}; style-src {_csp_hash(STYLE)}; img-src data:; "
    "base-uri 'none'; form-action 'none'"
)
QUIZ_CONTENT_SECURITY_POLICY = (
    f"default-src 'none'; script-src {_csp_hash(DRAW_SCRIPT)} {_csp_hash(SCRIPT)}; style-src {_csp_hash(QUIZ_STYLE)}; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)


def integer_format(locale: str) -> Callable[[int], str]:
    """``format_decimal(n, locale=locale)`` for a whole number n >= 0 (a question's number, a count), without
    Babel's work per call (a tenth of a large page's time): the locale's pattern (prefix, grouping, suffix) is
    read once and checked against Babel on numbers of every width up to 10 digits; a locale it does not
    reproduce, and any other number, goes to Babel."""
    from babel.numbers import get_group_symbol

    def babel(n: int) -> str:
        return str(format_decimal(n, locale=locale))

    pattern = Locale.parse(locale).decimal_formats[None]
    group: str = get_group_symbol(locale)
    primary: int = pattern.grouping[0]
    secondary: int = pattern.grouping[1]
    prefix: str = pattern.prefix[0]
    suffix: str = pattern.suffix[0]
    least: int = pattern.int_prec[0]
    if primary <= 0 or secondary <= 0:
        return babel

    def fast(n: int) -> str:
        if n < 0 or n >= LARGEST or type(n) is not int:
            return babel(n)
        digits = str(n).rjust(least, "0")
        if len(digits) <= primary:
            return prefix + digits + suffix
        head, groups = digits[:-primary], [digits[-primary:]]
        while len(head) > secondary:
            groups.append(head[-secondary:])
            head = head[:-secondary]
        groups.append(head)
        return prefix + group.join(reversed(groups)) + suffix

    samples = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 9999, 10000, 12345, 99999, 100000, 123456, 1000000]
    samples += [1234567, 10000000, 12345678, 100000000, 123456789, 1000000000, 1234567890, LARGEST - 1]
    return fast if all(fast(n) == babel(n) for n in samples) else babel


LARGEST = 10**10  # integer_format checks its numbers below this against Babel


class _Shape(NamedTuple):
    """What a question's markup depends on besides its ids and texts (the page's words are the page's)."""

    kind: Kind
    correct: tuple[bool, ...]  # for each choice, whether it is right


def _shape(q: Question) -> _Shape:
    return _Shape(q.kind, tuple([c.correct for c in q.choices]))


def _serialise(element: HtmlElement) -> str:
    """An element as the page writes it (lxml's HTML serialiser, which etree.htmlfile uses too)."""
    return str(etree.tostring(element, method="html", encoding="unicode"))


def _escape_text(value: str) -> str:
    """``value`` as lxml's HTML serialiser writes it as element text (UTF-8 output: only & < > are escaped)."""
    if "&" in value or "<" in value or ">" in value:
        return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return value


def lxml_form(markup: str) -> str:
    """Rendered bank text as the page writes it: the markup lxml writes once it has parsed it into an element
    (fragment_fromstring, as :meth:`_Page.bank_text` does) and serialises that element's content.

    The renderer's output is sanitised HTML that html5ever (nh3) serialised; lxml writes most of it back as it
    stands. Text with no markup at all needs no parsing (the common case), nor does markup :func:`_as_written`
    proves lxml keeps; anything else is parsed and written as the element-by-element page does."""
    if "&" not in markup and "\r" not in markup:
        if "<" not in markup:
            return markup if markup.strip() else ""  # (lxml drops leading text that is only white space)
        if markup.startswith("<p>") and markup.endswith("</p>") and markup.count("<") == 2:
            return markup  # one paragraph of text
    return _parsed_form(markup)


def _parsed_form(markup: str) -> str:
    """:func:`lxml_form` the thorough way: parse, serialise, take the content out of its parent."""
    written = _serialise(lxml.html.fragment_fromstring(markup, create_parent="div"))
    return written[len("<div>") : -len("</div>")]


class _Page:
    """Builds one locale's page: its parts as lxml elements, its questions from skeletons of those."""

    # Question skeletons kept per page; a bank whose questions take more shapes builds the rest as it goes.
    SKELETONS = 512

    def __init__(self, view: LocalizedView, siblings: Sequence[str], quiz: Quiz | None = None) -> None:
        self.view = view
        # A quiz of the bank (its sections, each a pool to draw from), or the whole bank as one section.
        self.quiz = quiz or whole_bank_quiz(view.bank)
        self.sections: tuple[DrawnSection, ...] = resolve_quiz(view.bank, self.quiz)
        self.is_quiz = quiz is not None
        self.info = view.info
        self.lang = view.info.lang
        self.chrome = chrome_for(view.locale, view.bank.page_words, include_drafts=view.include_drafts)
        self.chrome_info = locale_info(self.chrome.lang) if self.chrome.lang != view.locale else self.info
        self.siblings = siblings
        self._number = integer_format(view.locale)
        self.total = self.number(sum(len(s.questions) for s in self.sections))  # every question on the page
        self._wrappers: dict[tuple[bool, str, bool, bool, bool], tuple[Skeleton, str, str]] = {}
        self._questions: dict[_Shape, Skeleton] = {}

    # -- text helpers ---------------------------------------------------------------------------------------

    def _mark(self, element: HtmlElement, info: LocaleInfo, *, fallback: bool) -> HtmlElement:
        """Say the language of text that is not in the page's language; a fallback also gets a visible badge
        with its language's code ("EN"), which touch screens show too (they never show the title tooltip)."""
        if info.lang != self.info.lang:
            element.set("lang", info.lang)
            element.set("dir", info.direction)
        if fallback:
            element.set("class", " ".join(filter(None, [element.get("class"), "fallback"])))
            element.set("title", self.chrome.untranslated)
            badge = E.span(info.lang.split("-")[0].upper(), {"class": "lang-badge", "aria-hidden": "true"})
            badge.tail, element.text = element.text, None
            element.insert(0, badge)
        return element

    def bank_text(self, resolved: Resolved, *, block: bool, cls: str, **attrs: str) -> HtmlElement:
        """A bank string as rendered HTML inside a div (block) or span (inline).

        (The element-by-element way, for the page's few one-off texts and as the reference :meth:`bank_html`
        is tested against.)"""
        markup = render_block(resolved.text) if block else render_inline(resolved.text)
        info = self.view.source_info if resolved.lang != self.info.lang else self.info
        if info.rtl:  # (a Latin-only text, "64 KiB", keeps its order: an LTR isolate)
            markup = latin_isolated(markup)
        element = lxml.html.fragment_fromstring(markup, create_parent="div" if block else "span")
        element.set("class", cls)
        for name, value in attrs.items():
            element.set(name, value)
        return self._mark(element, info, fallback=resolved.fell_back)

    def bank_html(self, resolved: Resolved, block: bool, cls: str, id: str = "", *, plain: int | None = None) -> str:
        """:meth:`bank_text` serialised (with ``id`` when given, an identifier), from a skeleton of its wrapper
        and the rendering in the form lxml writes it (see :func:`lxml_form`)."""
        text, origin, lang = resolved
        key = (block, cls, bool(id), lang != self.lang, origin is Origin.FALLBACK)
        wrapper = self._wrappers.get(key) or self._wrapper(*key)
        if (
            renders_as_itself_everywhere(text) if plain is None else plain
        ):  # (no & < >: lxml writes it back as it stands)
            content = f"<p>{text}</p>" if block else text
        else:
            content = lxml_form(render_block(text) if block else render_inline(text))
        if (self.view.source_info if lang != self.lang else self.info).rtl:
            content = latin_isolated(content)
        if id:
            return wrapper[0].fill((id, content))
        return wrapper[1] + content + wrapper[2]

    def _wrapper(self, block: bool, cls: str, with_id: bool, other: bool, fallback: bool) -> tuple[Skeleton, str, str]:
        """The skeleton of a bank text's element (its id, its content), and the markup before and after the
        content of one without an id."""
        element = E.div() if block else E.span()
        element.set("class", cls)
        if with_id:
            element.set("id", slot(0))
        element.text = raw(1)
        self._mark(element, self.view.source_info if other else self.info, fallback=fallback)
        skeleton = Skeleton(_serialise(element), verbatim={0})
        wrapper = self._wrappers[block, cls, with_id, other, fallback] = (skeleton, *skeleton.around(("", ""), 1))
        return wrapper

    def ui(self, tag: str, text: str, **attrs: str) -> HtmlElement:
        """An element holding the page's own words, marked when they are not in the page's language."""
        element = E(tag, text, **attrs)
        return self._mark(element, self.chrome_info, fallback=False)

    def language_name(self, tag: str) -> str:
        """A language's name in the words of the page's own text ("tiếng Anh", "انگریزی")."""
        name = Locale.parse(self.chrome.lang).languages.get(tag.split("_")[0])
        if not name:
            return locale_info(tag).english_name
        return str(name)[:1].lower() + str(name)[1:] if self.chrome.lowercase_language_names else str(name)

    def number(self, value: int) -> str:
        return self._number(value)

    # -- parts ----------------------------------------------------------------------------------------------

    def head(self) -> HtmlElement:
        return E.head(
            E.meta(charset="utf-8"),
            E.meta(name="viewport", content="width=device-width, initial-scale=1"),
            E.meta(
                **{
                    "http-equiv": "Content-Security-Policy",
                    "content": QUIZ_CONTENT_SECURITY_POLICY if self.is_quiz else CONTENT_SECURITY_POLICY,
                }
            ),
            E.meta(name="generator", content="moe-lms"),
            E.title(plain_text(self.view.quiz_title(self.quiz).text)),
            E.style(QUIZ_STYLE if self.is_quiz else STYLE),
        )

    def page(self, locale: str) -> str:
        return page_name(self.view.bank, locale, self.quiz if self.is_quiz else None)

    def language_switcher(self) -> HtmlElement | None:
        if len(self.siblings) < 2:
            return None
        items = []
        for locale in self.siblings:
            info = locale_info(locale)
            if locale == self.view.locale:
                link = E.a(info.name, href=self.page(locale), **{"aria-current": "page"})
            else:
                link = E.a(info.name, href=self.page(locale), hreflang=info.lang)
            link.set("lang", info.lang)
            link.set("dir", info.direction)
            items.append(E.li(link))
        nav = E.nav(E.ul(*items), **{"class": "languages", "aria-label": self.chrome.languages})
        return nav

    def header(self) -> HtmlElement:
        header = E.header({"class": "masthead"})
        switcher = self.language_switcher()
        if switcher is not None:
            header.append(switcher)
        header.append(self.bank_text(self.view.quiz_title(self.quiz), block=False, cls="title"))
        header[-1].tag = "h1"
        intro = self.view.quiz_intro(self.quiz)
        if intro is not None:
            header.append(self.bank_text(intro, block=True, cls="intro"))
        header.append(self.ui("p", self.chrome.noscript, **{"class": "noscript"}))
        total = sum(s.draw for s in self.sections)  # an attempt's questions
        progress = E.div(
            E.progress(value="0", max=str(total), **{"aria-hidden": "true"}),
            self.ui("span", "", **{"class": "progress-text"}),
            {"class": "progress", "hidden": "hidden", "data-template": self.chrome.progress},
        )
        header.append(progress)
        return header

    def question(self, number: int, q: Question) -> HtmlElement:
        """A question as a form, element by element (the reference :meth:`question_html` is tested against)."""
        if q.numerical:
            return self.numerical_question(number, q)
        texts = self.view.question_texts(q)

        def bank(k: int, block: bool, cls: str, **attrs: str) -> HtmlElement:
            return self.bank_text(texts[k], block=block, cls=cls, **attrs)

        ids = [c.id for c in q.choices]
        return self._question(_shape(q), f"q-{q.id}", self.number(number), format(q.points, "g"), ids, bank)

    def question_html(self, number: int, q: Question, points: float | None = None) -> str:
        """:meth:`question` serialised, from one skeleton per shape of question (kind, which choices are right)
        with each bank text put in from :meth:`bank_html`. Measured in issue 29 (docs/design/speed.md): the 10k
        bank's page 2.24 s of CPU this way, 8.07 s element by element; no floor covers HTML yet, so whether it
        stays is open there."""
        if q.numerical:  # (of no shared shape: built element by element)
            return _serialise(self.numerical_question(number, q, points))
        shape = _shape(q)
        skeleton = self._questions.get(shape)
        n = len(shape.correct)
        if skeleton is None:
            base = 3 + n

            def marker(k: int, block: bool, cls: str, **attrs: str) -> str:
                return raw(base + k)

            ids = [slot(3 + j) for j in range(n)]
            tree = self._question(shape, slot(0), slot(1), slot(2), ids, marker)
            skeleton = Skeleton(_serialise(tree), verbatim=range(base))
            if len(self._questions) < self.SKELETONS:
                self._questions[shape] = skeleton
        qid = f"q-{q.id}"
        texts = self.view.question_texts(q)
        plain = self.view.question_plain(q, texts)  # (each text renders as itself everywhere: 1)
        html = self.bank_html
        values = [qid, _escape_text(self.number(number)), format(q.points if points is None else points, "g")]
        values += [c.id for c in q.choices]
        values.append(html(texts[0], True, "stem", f"{qid}-stem", plain=plain[0]))
        values.append(html(texts[1], True, "explanation-text", plain=plain[1]))
        for k in range(2, 2 + 2 * n, 2):
            values.append(html(texts[k], False, "choice-text", plain=plain[k]))
            values.append(html(texts[k + 1], True, "choice-explanation", plain=plain[k + 1]))
        return skeleton.fill(values)

    def value_text(self, value: float) -> str:
        """A value as the page's locale writes numbers (vi 468,75), every digit kept."""
        return str(format_decimal(value, format="#,##0.##########", locale=self.view.locale))

    def numerical_question(self, number: int, q: Question, points: float | None = None) -> HtmlElement:
        """A numerical question as a form: a text box (inputmode decimal: a phone shows its number pad; type text,
        not number, so the locale's separator and digits are accepted, quiz.js reads them) and the unit after it; the
        key lists each value with its tolerance (data-value, data-tolerance: numbers as JavaScript reads them) and
        its explanation, which the script shows for the value whose range holds the typed number."""
        chrome, view, qid = self.chrome, self.view, f"q-{q.id}"
        heading = self.ui("h2", chrome.question_of.format(n=self.number(number), total=self.total), id=f"{qid}-h")
        hint = self.ui("p", chrome.type_number, id=f"{qid}-hint")
        hint.set("class", "hint")
        box = E.input(
            type="text",
            inputmode="decimal",
            name=qid,
            id=f"{qid}-answer",
            autocomplete="off",
            spellcheck="false",
            dir="ltr",
            **{"class": "number-box", "aria-describedby": f"{qid}-hint"},
        )
        label = self.ui("label", chrome.answer_label, **{"for": f"{qid}-answer", "class": "number-label"})
        row = E.div(box, {"class": "number-row"})
        unit = view.unit(q)
        if unit is not None:
            row.append(self.bank_text(unit, block=False, cls="unit", id=f"{qid}-unit"))
            box.set("aria-describedby", f"{qid}-hint {qid}-unit")
        fieldset = E.fieldset(hint, label, row, {"class": "numeric", "aria-labelledby": f"{qid}-h {qid}-stem"})
        key_items = []
        for c in q.choices:
            value, tolerance = q.value_of(c), q.tolerance_of(c)
            shown = self.value_text(value) + (f" ± {self.value_text(tolerance)}" if tolerance else "")
            verdict = chrome.right_answer if c.correct else chrome.wrong_answer
            key_items.append(
                E.li(
                    E.p(
                        self.ui("span", verdict, **{"class": "verdict-mark"}),
                        E.bdi(shown, {"class": "value", "dir": "ltr"}),
                        {"class": "key-choice"},
                    ),
                    self.bank_text(view.choice_explanation(q, c), block=True, cls="choice-explanation"),
                    {
                        "class": "right" if c.correct else "wrong",
                        "data-choice": c.id,
                        "data-value": number_text(value),
                        "data-tolerance": number_text(tolerance),
                        "data-correct": "true" if c.correct else "false",
                    },
                )
            )
        general = E.div(
            self.ui("h3", chrome.general),
            self.bank_text(view.explanation(q), block=True, cls="explanation-text"),
            {"class": "general"},
        )
        key = E.details(
            E.summary(self.ui("span", chrome.key)), E.ol(*key_items, {"class": "key-list"}), general, {"class": "key"}
        )
        actions = E.div(
            E.button(self.ui("span", chrome.check), type="submit", **{"class": "check"}),
            self.ui("p", "", **{"class": "nudge", "aria-live": "polite"}),
            {"class": "actions", "hidden": "hidden"},
        )
        result = E.div({"class": "result", "hidden": "hidden", "tabindex": "-1", "aria-live": "polite"})
        return E.form(
            heading,
            self.bank_text(view.stem(q), block=True, cls="stem", id=f"{qid}-stem"),
            fieldset,
            actions,
            result,
            key,
            {
                "class": "question",
                "id": qid,
                "method": "dialog",
                "data-kind": q.kind.value,
                "data-points": format(q.points if points is None else points, "g"),
                "data-not-a-number": chrome.not_a_number.format(example=self.value_text(468.75)),
            },
        )

    def _question(
        self,
        shape: _Shape,
        qid: str,
        number: str,
        points: str,
        choice_ids: Sequence[str],
        bank: Callable[..., HtmlElement | str],
    ) -> HtmlElement:
        """The form of a question of ``shape``; ``bank(k, block, cls, **attrs)`` gives its k-th text (in
        LocalizedView.question_texts order) as an element, or as a skeleton's marker."""
        chrome = self.chrome
        multiple = shape.kind is Kind.MULTIPLE
        heading = self.ui("h2", chrome.question_of.format(n=number, total=self.total), id=f"{qid}-h")
        hint = self.ui("p", chrome.choose_all if multiple else chrome.choose_one, id=f"{qid}-hint")
        hint.set("class", "hint")
        fieldset = E.fieldset(
            hint,
            {"class": "choices", "aria-labelledby": f"{qid}-h {qid}-stem", "aria-describedby": f"{qid}-hint"},
        )
        key_items = []
        correct_count = sum(shape.correct)
        wrong_count = len(shape.correct) - correct_count
        for index, (choice_id, correct) in enumerate(zip(choice_ids, shape.correct, strict=True)):
            input_id = f"{qid}-{choice_id}"
            letter = chrome.letters[index] if index < len(chrome.letters) else self.number(index + 1)
            text = bank(2 + 2 * index, False, "choice-text")
            box = E.input(
                type="checkbox" if multiple else "radio",
                name=qid,
                id=input_id,
                value=choice_id,
                **{"data-correct": "true" if correct else "false"},
            )
            label = E.label(E.span(letter, {"class": "letter", "aria-hidden": "true"}), text, {"for": input_id})
            fieldset.append(E.div(box, label, {"class": "choice", "data-choice": choice_id}))
            verdict = chrome.right_answer if correct else chrome.wrong_answer
            key_items.append(
                E.li(
                    E.p(
                        self.ui("span", verdict, **{"class": "verdict-mark"}),
                        E.span(letter, {"class": "letter"}),
                        bank(2 + 2 * index, False, "choice-text"),
                        {"class": "key-choice"},
                    ),
                    bank(3 + 2 * index, True, "choice-explanation"),
                    {"class": "right" if correct else "wrong", "data-choice": choice_id},
                )
            )
        general = E.div(
            self.ui("h3", chrome.general),
            bank(1, True, "explanation-text"),
            {"class": "general"},
        )
        key = E.details(
            E.summary(self.ui("span", chrome.key)),
            E.ol(*key_items, {"class": "key-list"}),
            general,
            {"class": "key"},
        )
        actions = E.div(
            E.button(self.ui("span", chrome.check), type="submit", **{"class": "check"}),
            self.ui("p", "", **{"class": "nudge", "aria-live": "polite"}),
            {"class": "actions", "hidden": "hidden"},
        )
        result = E.div(
            {"class": "result", "hidden": "hidden", "tabindex": "-1", "aria-live": "polite"},
        )
        return E.form(
            heading,
            bank(0, True, "stem", id=f"{qid}-stem"),
            fieldset,
            actions,
            result,
            key,
            {
                "class": "question",
                "id": qid,
                "method": "dialog",
                "data-kind": shape.kind.value,
                "data-points": points,
                "data-right": str(correct_count),
                "data-wrong": str(wrong_count),
            },
        )

    def templates(self) -> HtmlElement:
        """Words the script copies into the page: the bank's verdicts and the page's labels."""
        verdicts = [
            self.bank_text(self.view.feedback(name), block=True, cls="verdict", **{"data-verdict": name})
            for name in ("correct", "partially_correct", "incorrect")
        ]
        return E.div(
            *verdicts,
            self.ui("span", self.chrome.your_choice, **{"data-label": "your-choice"}),
            self.ui("span", self.chrome.right_answer, **{"data-label": "right-answer"}),
            self.ui("span", self.chrome.answer_label, **{"data-label": "your-answer"}),
            self.ui("span", self.chrome.choose_first, **{"data-label": "choose-first"}),
            {"id": "templates", "hidden": "hidden"},
        )

    def score(self) -> HtmlElement:
        total = format(sum(s.attempt_points for s in self.sections), "g")
        return E.section(
            self.ui("h2", self.chrome.finished, id="score-h"),
            self.ui("p", "", **{"class": "score-text"}),
            self.ui("p", self.chrome.score_rule, **{"class": "score-rule"}),
            E.button(self.ui("span", self.chrome.start_over), type="button", **{"class": "start-over"}),
            {
                "id": "score",
                "hidden": "hidden",
                "tabindex": "-1",
                "aria-labelledby": "score-h",
                "data-template": self.chrome.score,
                "data-total": total,
            },
        )

    def footer(self) -> HtmlElement:
        footer = E.footer({"class": "colophon"})
        fell_back = self._fallbacks_on_page()
        if fell_back:
            note = self.chrome.fallback_note.format(
                count=self.number(fell_back), language=self.language_name(self.view.bank.source_locale)
            )
            footer.append(self.ui("p", note))
        bank_id = E.span(self.view.bank.id, {"dir": "ltr", "class": NOWRAP_CLASS})
        footer.append(E.p(bank_id, " · moe-lms", {"class": "generator"}))
        return footer

    def _fallbacks_on_page(self) -> int:
        """How many texts on the page fell back to the source (on the whole bank's page: every string of it)."""
        view = self.view
        if not self.is_quiz:  # every string of the bank but its quizzes' (which are on their own pages)
            quizzes = [view.text(path, source) for z in view.bank.quizzes for path, source in quiz_strings(z)]
            return view.fallback_count - sum(1 for r in quizzes if r.fell_back)
        heads = [view.quiz_title(self.quiz), view.quiz_intro(self.quiz)]
        heads += [view.section_title(self.quiz, s.section) for s in self.sections]
        heads += [view.feedback(name) for name in ("correct", "partially_correct", "incorrect")]
        count = sum(1 for r in heads if r is not None and r.fell_back)
        for section in self.sections:
            count += sum(1 for q in section.questions for r in view.question_texts(q) if r.fell_back)
        return count

    def stream(self, out: BinaryIO) -> None:
        """Write the page question by question, so memory stays flat however large the bank; a quiz's page in
        its sections, each holding its whole pool (the script draws an attempt's questions from it)."""
        before, after = self._frame()
        out.write(before)
        number = 1
        for section in self.sections:
            opening, closing = self._section_frame(section) if self.is_quiz else (b"", b"")
            out.write(opening)
            questions, points = section.questions, section.points
            for start in range(0, len(questions), self.CHUNK):
                chunk = zip(questions[start : start + self.CHUNK], points[start : start + self.CHUNK], strict=True)
                out.write(
                    "".join([self.question_html(n, q, p) for n, (q, p) in enumerate(chunk, start=number)]).encode()
                )
                number += min(self.CHUNK, len(questions) - start)
            out.write(closing)
        out.write(after)

    def _section_frame(self, section: DrawnSection) -> tuple[bytes, bytes]:
        """A quiz section's markup before its questions and after them: how many an attempt draws, whether in
        shuffled order, and its title."""
        element = E.section(
            {
                "class": "quiz-section",
                "id": f"s-{section.id}",
                "data-draw": str(section.draw),
                "data-shuffle": "true" if self.quiz.shuffle_questions else "false",
            }
        )
        title = self.view.section_title(self.quiz, section.section)
        if title is not None:
            heading = self.bank_text(title, block=False, cls="section-title")
            heading.tag = "h2"
            element.append(heading)
        element.append(E.span(_QUESTIONS))
        before, _, after = _serialise(element).partition(f"<span>{_QUESTIONS}</span>")
        return before.encode(), after.encode()

    def attempts(self) -> HtmlElement:
        """A quiz's attempts: the score of each one, and the button that draws the next (shown by the script)."""
        return E.section(
            self.ui("h2", self.chrome.attempts, id="attempts-h"),
            E.ol({"hidden": "hidden"}),
            E.button(self.ui("span", self.chrome.new_attempt), type="button", **{"class": "new-attempt"}),
            {
                "id": "attempts",
                "hidden": "hidden",
                "aria-labelledby": "attempts-h",
                "data-template": self.chrome.attempt_score,
                "data-allowed": str(self.quiz.attempts or 0),
            },
        )

    CHUNK = 256  # questions written at once

    def _frame(self) -> tuple[bytes, bytes]:
        """The page before its questions and after them, written by lxml around a marker where they go."""
        buffer = io.BytesIO()
        with etree.htmlfile(buffer, encoding="utf-8") as xf:
            xf.write_doctype("<!DOCTYPE html>")
            with xf.element("html", lang=self.info.lang, dir=self.info.direction):
                xf.write(self.head())
                with xf.element("body"):
                    xf.write(self.header())
                    main = {"id": "quiz"}
                    if self.is_quiz:
                        main["data-question-of"] = self.chrome.question_of
                    with xf.element("main", main):
                        xf.write(_QUESTIONS)
                        xf.write(self.score())
                        if self.is_quiz:
                            xf.write(self.attempts())
                        xf.write(self.templates())
                    xf.write(self.footer())
                    if self.is_quiz:
                        xf.write(E.script(DRAW_SCRIPT))
                        xf.write(E.script(SCRIPT, {"data-grader": ""}))
                    else:
                        xf.write(E.script(SCRIPT))
        before, marker, after = buffer.getvalue().partition(_QUESTIONS.encode())
        assert marker, "the page's frame lost the questions' marker"
        return before, after + b"\n"


_QUESTIONS = "\ue003"  # (a private-use character: lxml writes it as it is, bank text never reaches the frame)


def stream(
    bank: Bank,
    locale: str,
    out: BinaryIO,
    *,
    include_drafts: bool = False,
    siblings: Sequence[str] = (),
    quiz: Quiz | None = None,
) -> None:
    """Write the page for ``locale``; ``siblings`` (locales, current one included) get a language switcher.

    Math becomes MathML (Chromium, Firefox and Safari render it natively), images data: URIs, code highlighted;
    formulas and code stay left-to-right on a right-to-left page."""
    profile = Profile(
        math="mathml",
        image_url=data_uri,
        media=bank.media,
        highlight="classes",
        ltr=True,
        styles=False,
        image_links=False,
    )
    with rendering(profile):
        _Page(resolve(bank, locale, include_drafts=include_drafts), siblings, quiz).stream(out)


def data_uri(item: MediaItem) -> str:
    """An image inside the page itself (base64), so the page stays one self-contained file."""
    return f"data:{item.media_type};base64,{base64.b64encode(item.data).decode('ascii')}"


def render(
    bank: Bank, locale: str, *, include_drafts: bool = False, siblings: Sequence[str] = (), quiz: Quiz | None = None
) -> bytes:
    """The page for ``locale`` as bytes (see :func:`stream`)."""
    buffer = io.BytesIO()
    stream(bank, locale, buffer, include_drafts=include_drafts, siblings=siblings, quiz=quiz)
    return buffer.getvalue()


def write(bank: Bank, options: ExportOptions, out: BinaryIO) -> None:
    """The page for ``options.locales[0]``. When more locales are given, the page carries a language switcher
    to its sibling pages ``<bank-id>.<locale>.html`` (the layout ``moe-lms build`` writes), listed in bank order."""
    chosen = set(options.locales)
    siblings = [loc for loc in bank.locales if loc in chosen] if len(chosen) > 1 else []
    quiz = None if options.quiz is None else bank.quiz(options.quiz)
    stream(bank, options.locales[0], out, include_drafts=options.include_drafts, siblings=siblings, quiz=quiz)


def _guide(held: Held, first: bool) -> list[str]:
    return [
        "Open a `.html` file: double-click it, or drag it into a browser window. It works offline and needs "
        "nothing else; the links at the top switch language while the pages stay side by side in one folder. "
        "Choose an answer and press **Check** (or Enter) to see whether it is right and why; after the last "
        "question you get your score. With JavaScript off, each question's answers and explanations are under "
        "*Answers and explanations*.",
        "",
    ]


FORMAT = Format(
    name="html",
    description="take-the-quiz HTML page",
    suffix=".html",
    write=write,
    one_locale_per_file=True,
    quizzes=True,
    label="HTML page",
    # The page of one locale lists every locale, so the shelf's links its siblings.
    shelf=ShelfEntry(
        label="Take the quiz (HTML)", siblings=True, guide=(Guide(70, "Take the quiz in a browser", _guide),)
    ),
)
