"""The Moodle writer's fast way (each question filled into its shape's lxml-built skeleton, plain text wrapped
without the renderer) writes the bytes of the thorough way (each question built element by element, every text
rendered), and raises the same problems, for every shape of question, every locale, multilang, drafts, rich content
and hostile text."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from moe_lms.formats import ExportOptions, moodle
from moe_lms.loader import load_bank
from moe_lms.model import Bank, MediaItem, Translation, strings
from moe_lms.problems import ProblemsFound

from .rich_support import SVG, png
from .strategies import ids
from .strategies import texts as any_texts

SHIPPED = sorted(Path(__file__).resolve().parents[1].joinpath("question_bank").iterdir())
MEDIA = {
    path: MediaItem(path, data, kind, hashlib.sha256(data).hexdigest())
    for path, data, kind in [
        ("media/bar.png", png(), "image/png"),
        ("media/dispatch.svg", SVG.encode(), "image/svg+xml"),
    ]
}

# Pieces of text that take each way through the writer: plain words (the fast way), Markdown, math, images, code,
# raw HTML, CDATA terminators, what Markdown reads at the start or end of a text, right-to-left text and controls,
# characters that look like the skeleton's own markers.
PIECES = [
    "Expert", "token router", "اردو میں", "Tiếng Việt", "$x^2$", "$$y = 1$$", "$5", "**bold**", "*em*", "`code`",
    "[link](https://example.com)", "![bar](media/bar.png)", "![svg](media/dispatch.svg)", "]]>", "]]]]>", "<b>b</b>",
    "<span>s</span>", "a & b", "&amp;", "<", ">", "\u202e", "\u200f", "\u00a0", "  ", "1.", "2)", "- item", "# Head",
    "> quote", "+", "=", "\n", "\n\n", "\t", "😀", "e\u0301", "@@PLUGINFILE@@/bar.png", "\ue000", "\ue0010\ue002",
    "```\ncode\n```", "\ufeff", "\u2003", " ",
]  # fmt: skip
PLAIN = ["Expert", "token router", "اردو میں", "Tiếng Việt", "word", "Q?", "(1-2)", "a—b", "x_y"]
texts = st.one_of(
    st.lists(st.sampled_from(PLAIN), min_size=1, max_size=4).map(" ".join),  # (every text of a question plain)
    st.lists(st.sampled_from(PLAIN), min_size=1, max_size=4).map(" ".join),
    st.lists(st.sampled_from(PIECES) | st.sampled_from(PLAIN), min_size=1, max_size=5).map("".join),
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=4).map(" ".join),
    any_texts,
).filter(lambda s: s.strip() != "")


@st.composite
def question(draw: st.DrawFn, qid: str) -> dict[str, Any]:
    kind = draw(st.sampled_from(["single", "multiple", "true-false"]))
    n = 2 if kind == "true-false" else draw(st.integers(2, 6))
    if kind == "multiple":
        correct = set(draw(st.lists(st.integers(0, n - 1), min_size=1, unique=True)))
    else:
        correct = {draw(st.integers(0, n - 1))}
    return {
        "id": qid,
        "kind": kind,
        "points": draw(st.sampled_from([1, 2, 0.5, 10, 2.25])),
        "shuffle": draw(st.booleans()),
        "stem": draw(texts),
        "explanation": draw(texts),
        "tags": draw(st.lists(ids, max_size=2, unique=True)),
        "choices": [
            {"id": f"c{i}", "text": draw(texts), "correct": i in correct, "explanation": draw(texts)} for i in range(n)
        ],
    }


@st.composite
def banks(draw: st.DrawFn) -> Bank:
    qids = draw(st.lists(ids, min_size=1, max_size=3, unique=True))
    data: dict[str, Any] = {
        "id": "bank",
        "title": draw(texts),
        "intro": draw(st.none() | texts),
        "target_locales": draw(st.lists(st.sampled_from(["ur", "vi", "pt_BR"]), max_size=2, unique=True)),
        "tags": draw(st.lists(ids, max_size=2, unique=True)),
        "questions": [draw(question(qid)) for qid in qids],
    }
    if draw(st.booleans()):
        data["feedback"] = {"correct": draw(texts), "partially_correct": draw(texts), "incorrect": draw(texts)}
    try:
        bank = Bank.model_validate(data)
    except ValidationError:
        assume(False)
        raise
    translations: dict[str, dict[str, Translation]] = {}
    for locale in bank.target_locales:
        catalog = {}
        for path, source in strings(bank):
            state = draw(st.sampled_from(["missing", "reviewed", "draft", "stale"]))
            if state != "missing":
                catalog[path] = Translation(
                    draw(texts), source + " (old)" if state == "stale" else source, state == "draft"
                )
        translations[locale] = catalog
    media = MEDIA if draw(st.booleans()) else {}
    return bank.model_copy(update={"translations": translations, "media": media})


def written(bank: Bank, options: ExportOptions, *, thorough: bool) -> bytes | list[str]:
    """The file, or the problems that stopped it (or what else was raised: the renderer refuses a surrogate, which
    only a bank made past the model's checks holds)."""
    out = io.BytesIO()
    try:
        moodle.write(bank, options, out, thorough=thorough)
    except ProblemsFound as exc:
        return [str(p) for p in exc.problems]
    except UnicodeEncodeError as exc:
        return [repr(exc)]
    return out.getvalue()


def every_export(bank: Bank) -> list[ExportOptions]:
    options = [ExportOptions((locale,), include_drafts=d) for locale in bank.locales for d in (False, True)]
    options.append(ExportOptions(bank.locales))
    if len(bank.locales) > 1:
        options += [ExportOptions(bank.locales, multilang=True, include_drafts=d) for d in (False, True)]
    return options


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(banks())
def test_every_export_from_skeletons_is_the_export_built_element_by_element(bank: Bank) -> None:
    for options in every_export(bank):
        assert written(bank, options, thorough=False) == written(bank, options, thorough=True), options


@pytest.mark.parametrize("directory", SHIPPED, ids=[d.name for d in SHIPPED])
def test_the_shipped_banks_are_written_alike_both_ways(directory: Path) -> None:
    bank = load_bank(directory)
    for options in every_export(bank):
        fast = written(bank, options, thorough=False)
        assert fast == written(bank, options, thorough=True), options
        assert isinstance(fast, bytes) or options.multilang  # (a bank with code blocks has no multilang file)


def _with_text(bank: Bank, where: str, text: str) -> Bank:
    """The bank with one text of its first question replaced, past the model's checks (as a model_construct'd or
    model_copy'd bank reaches a writer)."""
    q = bank.questions[0]
    if where == "tag":
        q = q.model_copy(update={"tags": (text,)})
    elif where.startswith("choice"):
        field = where.split()[1]
        choices = (q.choices[0].model_copy(update={field: text}), *q.choices[1:])
        q = q.model_copy(update={"choices": choices})
    else:
        q = q.model_copy(update={where: text})
    return bank.model_copy(update={"questions": (q, *bank.questions[1:])})


@pytest.mark.parametrize("where", ["stem", "explanation", "choice text", "choice explanation", "tag"])
@pytest.mark.parametrize("bad", ["\x01", "\x0b", "\ufffe", "\ud800"])
@pytest.mark.parametrize("markdown", [False, True])
def test_a_character_xml_cannot_carry_is_named_as_the_thorough_way_names_it(
    where: str, bad: str, markdown: bool
) -> None:
    bank = load_bank(SHIPPED[0])
    bank = _with_text(bank, where, ("**x** " if markdown else "plain ") + bad + " text")
    for options in every_export(bank):
        fast = written(bank, options, thorough=False)
        assert fast == written(bank, options, thorough=True), options
        # (A draft may stand in for the source text; the renderer makes U+FFFD of what Markdown text holds.)
        if bank.source_locale in options.locales and not options.include_drafts and not markdown:
            assert isinstance(fast, list) and any("XML 1.0 cannot carry" in problem for problem in fast)
