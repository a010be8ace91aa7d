"""The take-the-quiz page written fast is the page written element by element: each question from its shape's
skeleton, each bank text from its wrapper's, the renderer's output put in as lxml would write it back, numbers
as Babel writes them. Checked on hostile and rich text, byte for byte."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from babel.numbers import format_decimal
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from moe_lms.formats import html
from moe_lms.locales import Origin, Resolved, resolve
from moe_lms.model import Bank
from moe_lms.richtext import Profile, formula_problem, render_block, render_inline, rendering

from .sample_bank import sample_bank
from .strategies import banks, texts

# Pieces of Markdown and raw HTML that make the renderer write every kind of markup, and the escapes, quotes and
# spaces the renderer and lxml might write differently.
PIECES = [
    "**bold**", "_em_", "`code <b>`", "<script>alert(1)</script>", "a < b & c > d", "&amp; &lt; &copy; &nbsp;",
    "\u00a0", '"quoted"', "'single'", '<a href="https://x.org/?a=1&b=2" title=\'a"b<c>\'>link</a>',
    '<a href="https://x.org/a b">space</a>', "<a href='https://x.org/é'>accent</a>", "<img src=x onerror=alert(1)>",
    '<img src="media/none.png" alt="a&quot;b">', "$x^2$", "$$\\frac{a}{b}$$", "]]>", "<!-- comment -->",
    "\n\n- item\n- item\n\n", "\n\n1. one\n2. two\n\n", "\n\n3) three\n\n", "\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n",
    "\n\n# Heading\n\n", "\n\n> quote\n\n", "line<br>break", "<b><i>misnested</b></i>", "<p>para</p>",
    "<span dir=rtl>rtl</span>", "اردو", "Tiếng Việt", "🎉", "&#11;", "&#13;", "\r\n", "&#x1F600;", "<div>div</div>",
    "<table><tr><td>cell</td></tr></table>", "<bdo dir=ltr>bdo</bdo>", "&hellip;", "<ol start=3><li>x</li></ol>",
    "<http://auto.link/x?y=1&z=2>", '[link](http://a.b/c "ti\\"tle")', "<pre>\nleading newline</pre>",
    "\n\n```\ncode\n  block\n```\n\n", "\n\n```python\nx = 1 < 2\n```\n\n", "![alt](media/none.png)", "~~gone~~",
    "<u>u</u><s>s</s><sub>1</sub><sup>2</sup>", "<kbd>Ctrl</kbd>", "<h2>h2</h2>", "<hr>", "\n\n---\n\n", "a\\*b",
    "\t", "<em>unclosed", "</strong>", "<p>a<p>b", "<li>loose</li>", "<a href=javascript:x>js</a>",
    "<span><div>block in a span</div></span>", "<p><table><tr><td>t</td></tr></table></p>", "<a><a>nested</a></a>",
    "<ul><li><p>para</p></li></ul>", "<span title=\"a&amp;b\">t</span>", "<span title='a\u00a0b'>t</span>",
    "<textarea>t</textarea>", "<math><mi>x</mi></math>", "<svg><g/></svg>", "  ", " ", "\n", "\u2003", "\u3000",
    "<span>\u00a0</span>", "<code>&lt;x&gt;</code>", "<h1>a</h1><h1>b</h1>", "<td>alone</td>", "1. ", "- ", "# ",
    "<ul>\n<li>a<ul><li>b</li></ul></li>\n</ul>", "<blockquote><p>q</p></blockquote>", "\\$5 and $6",
]  # fmt: skip

markdown = st.lists(st.one_of(st.sampled_from(PIECES), texts), min_size=1, max_size=6).map("".join)

PROFILE = Profile(math="mathml", image_url=html.data_uri, highlight="classes", ltr=True)


@contextmanager
def page_of(bank: Bank, locale: str) -> Iterator[html._Page]:
    with rendering(PROFILE):
        yield html._Page(resolve(bank, locale), bank.locales)


@settings(max_examples=600, deadline=None)
@given(markdown, st.booleans())
@example("plain words", True)
@example("plain words", False)
@example("\u00a0", False)
@example("x\u00a0", True)
@example('<a title="a&quot;b">t</a>', False)
@example("<a href='https://x.org/é'>accent</a>", False)
@example("&#13;", True)
@example("<span><div>x</div></span>", True)
@example("$$\\frac{a}{b}$$a < b & c > d$$\\frac{a}{b}$$", True)
def test_the_renderers_output_is_put_in_as_lxml_writes_it_back(text: str, block: bool) -> None:
    assume(formula_problem(text) is None)  # (check refuses such text before any export)
    with rendering(PROFILE):
        rendered = render_block(text) if block else render_inline(text)
    assert html.lxml_form(rendered) == html._parsed_form(rendered)


@settings(max_examples=300, deadline=None)
@given(markdown, st.booleans(), st.sampled_from(["en", "ur"]), st.sampled_from(list(Origin)), st.booleans())
def test_a_bank_text_from_its_wrapper_is_the_element_built_from_its_rendering(
    text: str, block: bool, lang: str, origin: Origin, with_id: bool
) -> None:
    assume(formula_problem(text) is None)
    ident = "q-x1-stem" if with_id else ""
    with page_of(sample_bank(), "ur") as page:
        resolved = Resolved(text, origin, lang)
        attrs = {"id": ident} if with_id else {}
        expected = html._serialise(page.bank_text(resolved, block=block, cls="stem", **attrs))
        assert page.bank_html(resolved, block=block, cls="stem", id=ident) == expected


@settings(max_examples=60, deadline=None)
@given(banks(max_questions=4))
def test_each_question_from_its_skeleton_is_the_question_built_element_by_element(bank: Bank) -> None:
    for locale in bank.locales:
        with page_of(bank, locale) as page:
            for number, q in enumerate(bank.questions, start=1):
                assert page.question_html(number, q) == html._serialise(page.question(number, q))


def test_a_page_with_more_shapes_than_it_keeps_skeletons_of_writes_each_question_alike(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bank = sample_bank()
    monkeypatch.setattr(html._Page, "SKELETONS", 1)
    with page_of(bank, "vi") as page:
        for number, q in enumerate(bank.questions, start=1):
            assert page.question_html(number, q) == html._serialise(page.question(number, q))
        assert len(page._questions) == 1


@pytest.mark.parametrize("locale", ["en", "ur", "vi", "hi", "de_CH", "fr", "ar", "fa", "es", "pt_BR", "my", "ta"])
def test_whole_numbers_are_written_as_babel_writes_them(locale: str) -> None:
    write = html.integer_format(locale)
    draw = random.Random(locale)
    numbers = [*range(0, 2000), *(draw.randrange(10 ** draw.randint(1, 12)) for _ in range(2000)), 10**10, 10**13]
    assert [write(n) for n in numbers] == [format_decimal(n, locale=locale) for n in numbers]
