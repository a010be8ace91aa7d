"""Hypothesis strategies for valid banks, shared by the round-trip tests of every format."""

from __future__ import annotations

import string
from typing import Any

from hypothesis import strategies as st

from moe_lms.model import TEXT_ILLEGAL, Bank, Translation, strings
from moe_lms.richtext import formula_problem

ids = st.text(alphabet=string.ascii_lowercase + string.digits + "-", max_size=10).map(lambda s: "x" + s)

# Text a bank can hold: anything XML 1.0 can carry, NFC, not blank. Includes markup characters,
# bidi controls, emoji and combining marks on purpose.
texts = (
    st.text(
        alphabet=st.one_of(
            st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]),
            st.sampled_from(list("&<>]]>{}~=#:\\\"'\u202e\u200f\u0301\n\t")),
        ),
        min_size=1,
        max_size=40,
    )
    .map(lambda s: __import__("unicodedata").normalize("NFC", s))
    .filter(lambda s: s.strip() != "" and not TEXT_ILLEGAL.search(s))  # U+FFFE/U+FFFF are Cn; the placeholders Co
    # A formula that does not parse ("$&$") is a problem of the bank: load_bank refuses it, and tests/hostile says so.
    .filter(lambda s: "$" not in s or formula_problem(s) is None)
)


@st.composite
def questions(draw: st.DrawFn, qid: str, texts: st.SearchStrategy[str] = texts) -> dict[str, Any]:
    kind = draw(st.sampled_from(["single", "multiple", "true-false"]))
    n = 2 if kind == "true-false" else draw(st.integers(2, 5))
    choice_ids = draw(st.lists(ids, min_size=n, max_size=n, unique=True))
    if kind == "multiple":
        correct = set(draw(st.lists(st.sampled_from(choice_ids), min_size=1, unique=True)))
    else:
        correct = {draw(st.sampled_from(choice_ids))}
    return {
        "id": qid,
        "kind": kind,
        "points": draw(st.sampled_from([1, 2, 0.5, 10])),
        "shuffle": draw(st.booleans()),
        "stem": draw(texts),
        "explanation": draw(texts),
        "tags": draw(st.lists(ids, max_size=2, unique=True)),
        "choices": [
            {"id": cid, "text": draw(texts), "correct": cid in correct, "explanation": draw(texts)}
            for cid in choice_ids
        ],
    }


@st.composite
def banks(
    draw: st.DrawFn, max_questions: int = 3, with_translations: bool = True, texts: st.SearchStrategy[str] = texts
) -> Bank:
    qids = draw(st.lists(ids, min_size=1, max_size=max_questions, unique=True))
    targets = draw(st.lists(st.sampled_from(["ur", "vi", "de", "ar"]), max_size=2, unique=True))
    data: dict[str, Any] = {
        "id": draw(ids),
        "title": draw(texts),
        "intro": draw(st.none() | texts),
        "target_locales": targets,
        "tags": draw(st.lists(ids, max_size=2, unique=True)),
        "questions": [draw(questions(qid, texts)) for qid in qids],
    }
    bank = Bank.model_validate(data)
    if not with_translations:
        return bank
    translations: dict[str, dict[str, Translation]] = {}
    for locale in targets:
        catalog = {}
        for path, source in strings(bank):
            state = draw(st.sampled_from(["missing", "reviewed", "draft", "stale"]))
            if state == "missing":
                continue
            text = draw(texts)
            catalog[path] = Translation(text, source + " (old)" if state == "stale" else source, state == "draft")
        if catalog:
            translations[locale] = catalog
    return bank.model_copy(update={"translations": translations})


# Text as banks mostly hold it: words and punctuation with no Markdown syntax (what writers' fast paths take),
# mixed with the thorough ``texts`` above, so a test sees both paths and the characters formats escape.
plain_texts = st.text(
    alphabet=st.sampled_from([*string.ascii_letters, *" .,?'\"-—():={}/%", "ا", "ب", "ă", "ê", "\u200f", "\u0301"]),
    min_size=1,
    max_size=40,
).filter(lambda s: s.strip() != "")
mixed_texts = st.one_of(plain_texts, plain_texts, texts).map(lambda s: __import__("unicodedata").normalize("NFC", s))
