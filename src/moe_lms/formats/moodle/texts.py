"""The HTML of one text of a Moodle export: for one locale (wrapped in ``<div dir lang>``, fallbacks marked as the
source's language) or for every locale at once as multilang spans (``<span lang class="multilang">``, a
``<bdi dir lang>`` inside each, blocks outside the spans).

This module knows Moodle's multilang filter and HTML cleaning (see the comment in :class:`Texts`), not the
question element around a text: that is :mod:`.write`.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

from ...locales import LocaleInfo, LocalizedView, Resolved
from ...richtext import direction_style, latin_isolated, render_block, render_inline
from ...text import renders_blank
from .shape import moodle_lang, simple_blocks


class Unwritable(Exception):
    """A text Moodle would receive broken; carries the message of the problem."""


def _wrapper(info: LocaleInfo) -> str:
    """The opening tag that marks text as being in a language and direction (closed by ``</div>``)."""
    if info.rtl:  # (Moodle keeps a text's inline styles: see docs/explanation/right-to-left.md)
        return f'<div dir="rtl" lang="{html.escape(info.lang)}" style="{direction_style(info.lang)}">'
    return f'<div dir="{html.escape(info.direction)}" lang="{html.escape(info.lang)}">'


class Texts:
    """The HTML of the texts of one category: one locale, or every locale as multilang spans."""

    def __init__(self, views: Sequence[LocalizedView]) -> None:
        self.views = views
        self.multilang = len(views) > 1
        self._langs = [v.info.lang for v in views]
        self._own = [_wrapper(v.info) for v in views]  # every text says its language (issue 10, item 3)
        self._fallback = [_wrapper(v.source_info) for v in views]
        self._spans = [f'<span lang="{html.escape(moodle_lang(v.locale))}" class="multilang">' for v in views]
        self._first_lang, self._first_fallback = self._langs[0], self._fallback[0]

    def html(
        self, what: str, resolved: Sequence[Resolved], render: Callable[[str], str], choice: str | None = None
    ) -> str:
        """One text, as each locale of the category resolved it (one per view), rendered, marked and joined as
        Moodle needs it. ``what`` (and ``choice``, a choice id) name the text in problems."""
        if not self.multilang:  # the hot path of a per-locale export: _localized for one locale, inlined
            first = resolved[0]
            rendered = render(first.text)
            if rendered and first.lang != self._first_lang:
                return self._first_fallback + rendered + "</div>"
            return self._localized(0, what, first, rendered, choice)
        rendered_texts = []
        for i, view in enumerate(self.views):
            rendered = render(resolved[i].text)
            if "<span" in rendered or "</lang" in rendered:
                raise Unwritable(
                    f"{_label(what, choice)} ({view.locale}) contains a <span>; Moodle's multilang filter ends a "
                    "language at the first </span>, so it cannot go in a multilang export (use <em>, <strong> or "
                    "<bdi> instead)"
                )
            if renders_blank(rendered):
                raise Unwritable(f"{_label(what, choice)} ({view.locale}) renders to no text at all")
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
            blocks = simple_blocks(text)
            if blocks is None:
                raise Unwritable(
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
            raise Unwritable(f"{_label(what, choice)} ({self.views[i].locale}) renders to no text at all")
        if resolved.lang != self._langs[i]:
            return self._fallback[i] + rendered + "</div>"
        if self.views[i].info.rtl:
            rendered = latin_isolated(rendered)
        return self._own[i] + rendered + "</div>"  # (a text that looks like our wrapper is so wrapped once more)

    def info(self) -> str:
        """Category description: the localized title as a heading, then the intro."""
        if self.multilang:
            titles = [view.title for view in self.views]
            rendered = [render_inline(title.text) for title in titles]
            for view, text in zip(self.views, rendered, strict=True):
                if renders_blank(text) or "<span" in text:
                    raise Unwritable(f"the bank title ({view.locale}) renders to no text or holds a <span>")
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
