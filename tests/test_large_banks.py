"""Large banks load through bulk paths (bank.yaml a question at a time, PO files in runs, translations packed).

Each bulk path must give exactly what the thorough one gives, and must not hide a problem or its line.
"""

from __future__ import annotations

import io
import tempfile
import textwrap
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from moe_lms import loader, po
from moe_lms.escapes import find_trap
from moe_lms.loader import (
    _read_question_by_question,
    _read_whole_document,
    check_bank,
    load_bank,
    save_bank,
)
from moe_lms.locales import coverage, resolve
from moe_lms.model import Bank, Choice, Translation, clean_text, strings
from moe_lms.problems import Severity
from moe_lms.translations import PackedCatalog, StringIndex

from .strategies import banks

# --- PO files read in runs ------------------------------------------------------------------------------------

Flat = tuple[str | None, str, str, bool, int]


def flatten(items: Iterable[po.Run | po.PoEntry]) -> Iterator[Flat]:
    for item in items:
        if isinstance(item, po.Run):
            for k, fields in enumerate(zip(item.contexts, item.msgids, item.msgstrs, item.fuzzy, strict=True)):
                yield (*fields, item.line_of(k))
        elif not item.obsolete:
            yield item.context, item.msgid, item.msgstr, item.fuzzy, item.line


def reference(text: str) -> list[Flat]:
    return list(flatten(po._read_po_lines(text)))


def catalog_text(entries: list[tuple[str, str, str, bool]]) -> str:
    written = po.write_catalog((po.CatalogEntry(*e) for e in entries), locale="vi", project="demo")
    return written.decode("utf-8")


plain_text = st.text(alphabet=st.sampled_from(list("ab ếạ漢#:,.-")), min_size=1, max_size=12)
any_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=12)
entries = st.lists(
    st.tuples(plain_text, plain_text | any_text, st.just("") | plain_text | any_text, st.booleans()),
    max_size=30,
    unique_by=lambda e: e[0],
)


@settings(max_examples=150, deadline=None)
@given(entries, st.sampled_from([16, 64, 300, 1 << 16]))
def test_runs_read_what_the_reference_reader_reads(found: list[tuple[str, str, str, bool]], chunk: int) -> None:
    text = catalog_text(found)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(po, "_CHUNK", chunk)
        assert list(flatten(po.iter_runs(io.StringIO(text)))) == reference(text)


def test_plain_entries_come_in_runs_and_anything_else_does_not(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(po, "_CHUNK", 400)
    found = [(f"q{i}/stem", f"Question {i}", f"Câu hỏi {i}" if i % 3 else "", i % 2 == 0) for i in range(60)]
    text = catalog_text(found)
    # One entry with a flag of its own, deep in the file: its chunk must go to the reference reader.
    text = text.replace('msgctxt "q41/stem"', '#, python-format\nmsgctxt "q41/stem"')
    items = list(po.iter_runs(io.StringIO(text)))
    runs = [item for item in items if isinstance(item, po.Run)]
    assert len(runs) >= 5
    assert not any("q41/stem" in run.contexts for run in runs)
    assert list(flatten(items)) == reference(text)


comment_lines = st.lists(
    st.sampled_from(["# checked by Lan", '# errata: "x" is "y"', "#. glossary: GPU → keep as is", "#: src:1", "#"]),
    max_size=3,
)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(plain_text, plain_text, plain_text, st.booleans(), comment_lines), max_size=30,
                unique_by=lambda e: e[0]),
       st.sampled_from([64, 300, 1 << 16]))  # fmt: skip
def test_commented_entries_come_in_runs_read_as_the_reference_reader_reads_them(
    found: list[tuple[str, str, str, bool, list[str]]], chunk: int
) -> None:
    entries = (po.CatalogEntry(c, i, s, f, comments=tuple(notes)) for c, i, s, f, notes in found)
    text = po.write_catalog(entries, locale="vi", project="demo").decode("utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(po, "_CHUNK", chunk)
        items = list(po.iter_runs(io.StringIO(text)))
    assert list(flatten(items)) == reference(text)
    if chunk == 1 << 16 and found:  # (glossary comments must not send a large catalog down the slow path)
        assert [type(item) for item in items] == [po.PoEntry, po.Run]


# --- translations packed, and read back through views --------------------------------------------------------


def saved_and_loaded(bank: Bank) -> Bank:
    with tempfile.TemporaryDirectory() as tmp:
        save_bank(bank, Path(tmp))
        return load_bank(Path(tmp))


@settings(max_examples=60, deadline=None)
@given(banks(), st.booleans(), st.sampled_from([64, 1 << 16]))
def test_a_loaded_bank_reads_in_every_locale_as_the_bank_it_was_saved_from(
    bank: Bank, include_drafts: bool, chunk: int
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(po, "_CHUNK", chunk)
        loaded = saved_and_loaded(bank)
    assert all(isinstance(catalog, PackedCatalog) for catalog in loaded.translations.values())
    for locale in bank.locales:
        want, got = (resolve(b, locale, include_drafts=include_drafts) for b in (bank, loaded))
        for q, lq in zip(bank.questions, loaded.questions, strict=True):
            assert got.question_texts(lq) == want.question_texts(q)
            assert (got.stem(lq), got.explanation(lq)) == (want.stem(q), want.explanation(q))
            for c, lc in zip(q.choices, lq.choices, strict=True):
                assert got.choice_text(lq, lc) == want.choice_text(q, c)
                assert got.choice_explanation(lq, lc) == want.choice_explanation(q, c)
        assert [got.text(p, s) for p, s in strings(loaded)] == [want.text(p, s) for p, s in strings(bank)]
        assert (got.title, got.intro, got.feedback("incorrect")) == (want.title, want.intro, want.feedback("incorrect"))
        assert got.fallbacks == want.fallbacks
        assert got.fallback_count == len(want.fallbacks)
        assert got.summary() == want.summary()
        assert coverage(loaded, locale) == coverage(bank, locale)


def test_a_packed_catalog_is_a_mapping_like_any_other() -> None:
    bank = numbered_bank(3)
    catalog = {
        "title": Translation("Thử", "Big"),
        "q1/stem": Translation("Câu 1", "Stem 1? (old)"),  # stale: keeps the source it was translated from
        "q2/choices/b/explanation": Translation("Sai.", "Wrong 2.", draft=True),
    }
    loaded = saved_and_loaded(bank.model_copy(update={"translations": {"vi": catalog}}))
    packed = loaded.translations["vi"]
    assert isinstance(packed, PackedCatalog)
    assert len(packed) == 3
    assert list(packed) == ["title", "q1/stem", "q2/choices/b/explanation"]  # bank order
    assert dict(packed) == catalog
    assert packed == catalog
    assert "q0/stem" not in packed and "q9/stem" not in packed and "q1/choices/z/text" not in packed
    assert packed.get("q1/stem") == Translation("Câu 1", "Stem 1? (old)")
    with pytest.raises(KeyError):
        packed["q0/explanation"]


@settings(max_examples=60, deadline=None)
@given(bank=banks(max_questions=4, with_translations=False), first=st.integers(0, 60), count=st.integers(0, 60))
def test_a_string_index_gives_any_stretch_of_strings_as_the_bank_lists_them(bank: Bank, first: int, count: int) -> None:
    index = StringIndex(bank)
    every = list(strings(bank))
    assert index.size == len(every)
    want = every[first : first + count]
    assert index.strings(first, count) == want
    assert index.columns(first, count) == ([p for p, _ in want], [s for _, s in want])


_ANY_CHARACTER = st.one_of(
    st.characters(),  # every category: controls, surrogates, format characters, unassigned, private use
    st.sampled_from(list("\t\n\r\x00\x85\x92\x9f\u200c\u200d\u200f\u061c\ufeff\ufffe\uffff\ud800e\u0301\u1100\u1161ا")),
)


@settings(max_examples=400, deadline=None)
@given(pieces=st.lists(st.text(alphabet=_ANY_CHARACTER, min_size=1, max_size=8), min_size=1, max_size=5))
def test_a_run_of_translations_is_taken_as_clean_only_when_clean_text_leaves_every_one_as_it_is(
    pieces: list[str],
) -> None:
    joined = "".join(pieces)
    # (and no control character an escape made of LaTeX, which the entry-by-entry path names: issue 34)
    assert loader._clean_already(joined) == (
        loader.TEXT_ILLEGAL.search(joined) is None
        and unicodedata.is_normalized("NFC", joined)
        and find_trap(joined) is None
    )
    if loader._clean_already(joined):
        for piece in pieces:
            if not piece.isspace():
                assert clean_text(piece) == piece


# --- PO problems found inside runs keep their lines ----------------------------------------------------------


def numbered_bank(questions: int) -> Bank:
    """Questions q0, q1, … with two choices each, every text numbered."""
    return Bank.model_validate(
        {
            "id": "big",
            "title": "Big",
            "target_locales": ["vi"],
            "questions": [
                {
                    "id": f"q{i}",
                    "stem": f"Stem {i}?",
                    "explanation": f"Because {i}.",
                    "choices": [
                        {"id": "a", "text": f"Yes {i}", "correct": True, "explanation": f"Right {i}."},
                        {"id": "b", "text": f"No {i}", "explanation": f"Wrong {i}."},
                    ],
                }
                for i in range(questions)
            ],
        }
    )


def big_bank(tmp_path: Path, questions: int = 120) -> tuple[Path, str]:
    """A saved bank whose vi.po is long enough to be read in many runs, and the PO text."""
    bank = numbered_bank(questions)
    catalog = {p: Translation(f"Tiếng Việt: {s}", s, draft=n % 4 == 0) for n, (p, s) in enumerate(strings(bank))}
    save_bank(bank.model_copy(update={"translations": {"vi": catalog}}), tmp_path)
    return tmp_path, (tmp_path / "locales" / "vi.po").read_text(encoding="utf-8")


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def vi_problems(directory: Path) -> list[str]:
    _, found = check_bank(directory)
    return [str(p).split(": error: ", 1)[1] if ": error: " in str(p) else str(p) for p in found]


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(po, "_CHUNK", 2000)


@pytest.mark.usefixtures("small_chunks")
def test_an_unknown_msgctxt_deep_in_a_run_names_its_line(tmp_path: Path) -> None:
    directory, text = big_bank(tmp_path)
    text = text.replace('msgctxt "q77/choices/b/text"', 'msgctxt "q77/choices/c/text"')
    (directory / "locales" / "vi.po").write_text(text, encoding="utf-8")
    _, found = check_bank(directory)
    line = line_of(text, 'msgctxt "q77/choices/c/text"')
    assert [(p.line, p.severity) for p in found] == [(line, Severity.WARNING)]
    assert found[0].message.startswith(
        f"1 entry names no string of the bank: 'q77/choices/c/text' (line {line}, did you mean 'q77/choices/b/text'?)."
    )


@pytest.mark.usefixtures("small_chunks")
def test_every_unknown_msgctxt_is_counted_in_one_warning_and_the_first_ones_say_what_was_meant(
    tmp_path: Path,
) -> None:
    directory, text = big_bank(tmp_path)
    (directory / "locales" / "vi.po").write_text(text.replace('/choices/b/text"', '/choices/x/text"'), "utf-8")
    _, found = check_bank(directory)
    (warning,) = found
    assert warning.severity is Severity.WARNING
    assert warning.message.startswith("120 entries name no string of the bank: 'q0/choices/x/text' (line ")
    assert warning.message.count("did you mean") == 3 and " and 117 more." in warning.message


@pytest.mark.usefixtures("small_chunks")
def test_a_repeated_entry_after_a_run_is_reported_where_it_is(tmp_path: Path) -> None:
    directory, text = big_bank(tmp_path)
    repeated = 'msgctxt "q3/stem"\nmsgid "Stem 3?"\nmsgstr "Lặp lại"\n'
    text = text.replace('msgctxt "q90/stem"', repeated + '\nmsgctxt "q90/stem"')
    (directory / "locales" / "vi.po").write_text(text, encoding="utf-8")
    _, found = check_bank(directory)
    assert [(p.line, p.message) for p in found] == [
        (line_of(text, repeated), "msgctxt 'q3/stem' appears more than once")
    ]


@pytest.mark.usefixtures("small_chunks")
@pytest.mark.parametrize(
    ("msgstr", "message"),
    [
        ("Bell \u0007 rings", "msgstr: contains U+0007 at character 6, which XML 1.0 cannot carry"),
        ("   ", "msgstr: text is empty"),
    ],
)
def test_a_translation_that_cannot_be_text_is_reported_with_its_line(tmp_path: Path, msgstr: str, message: str) -> None:
    directory, text = big_bank(tmp_path)
    old = 'msgstr "Tiếng Việt: Because 64."'
    text = text.replace(old, f'msgstr "{msgstr}"')
    (directory / "locales" / "vi.po").write_text(text, encoding="utf-8")
    _, found = check_bank(directory)
    # (the message may go on to say where such a character usually comes from: a backslash escape, issue 34)
    assert [(p.line, p.message[: len(message)], p.where) for p in found] == [
        (line_of(text, f'msgstr "{msgstr}"') - 2, message, "question 'q64'")
    ]


@pytest.mark.usefixtures("small_chunks")
def test_an_unescaped_quote_in_a_run_is_a_syntax_error_not_text(tmp_path: Path) -> None:
    directory, text = big_bank(tmp_path)
    text = text.replace('msgstr "Tiếng Việt: No 70"', 'msgstr "Say "no" 70"')
    (directory / "locales" / "vi.po").write_text(text, encoding="utf-8")
    _, found = check_bank(directory)
    assert [(p.line, p.message) for p in found] == [
        (line_of(text, 'msgstr "Say "no" 70"'), "PO syntax error: bad escape or unescaped quote '\"' in string")
    ]


@pytest.mark.usefixtures("small_chunks")
def test_translations_in_a_run_are_normalised_to_nfc(tmp_path: Path) -> None:
    directory, text = big_bank(tmp_path)
    text = text.replace('msgstr "Tiếng Việt: Yes 50"', 'msgstr "Cafe\u0301 50"')
    (directory / "locales" / "vi.po").write_text(text, encoding="utf-8")
    assert load_bank(directory).translations["vi"]["q50/choices/a/text"].text == "Caf\u00e9 50"


@pytest.mark.usefixtures("small_chunks")
def test_entries_in_any_order_or_left_out_load_the_same(tmp_path: Path) -> None:
    directory, text = big_bank(tmp_path)
    in_order = load_bank(directory)
    header, *blocks = text.strip("\n").split("\n\n")
    kept = [b for b in reversed(blocks) if "q11/" not in b]
    (directory / "locales" / "vi.po").write_text("\n\n".join([header, *kept]) + "\n", encoding="utf-8")
    shuffled = load_bank(directory)
    expected = {p: t for p, t in in_order.translations["vi"].items() if not p.startswith("q11/")}
    assert dict(shuffled.translations["vi"].items()) == expected


# --- bank.yaml a question at a time --------------------------------------------------------------------------

LAYOUTS = {
    "as saved": """\
        id: demo
        title: Demo
        questions:
          - id: q1
            stem: One?
            explanation: Yes.
            choices:
              - {id: a, text: "1", correct: true, explanation: Right.}
              - {id: b, text: "2", explanation: Wrong.}
          - id: q2
            stem: Two?
            explanation: Yes.
            choices:
              - {id: a, text: "2", correct: true, explanation: Right.}
              - {id: b, text: "3", explanation: Wrong.}
        """,
    "comments, blank lines, block scalars and keys after the questions": """\
        id: demo   # the bank
        title: Demo

        questions:   # all of them
        # first
          - id: q1
            stem: |
              A list inside a stem:
              - not a question
            explanation: >
              Folded
              text.
        # a comment at the left margin, inside the sequence
            choices:
              - id: a
                text: "1"
                correct: true
                explanation: Right.

              - id: b
                text: "2"
                explanation: Wrong.
          -
            id: q2
            stem: &same Two?
            explanation: *same
            choices:
              - {id: a, text: "2", correct: true, explanation: Right.}
              - {id: b, text: "3", explanation: Wrong.}
        tags: [late]
        intro: Keys may follow the questions.
        """,
    "items at the left margin": """\
        id: demo
        title: Demo
        questions:
        - id: q1
          stem: One?
          explanation: Yes.
          choices:
          - {id: a, text: "1", correct: true, explanation: Right.}
          - {id: b, text: "2", explanation: Wrong.}
        target_locales: [vi]
        """,
}


@pytest.mark.parametrize("block", [1, 1 << 16])
@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_bank_yaml_read_a_question_at_a_time_is_what_the_whole_document_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str, block: int
) -> None:
    monkeypatch.setattr(loader, "_BLOCK", block)  # (a file is read in blocks, each to the end of a line)
    path = tmp_path / "bank.yaml"
    path.write_text(textwrap.dedent(layout), encoding="utf-8")
    fast = _read_question_by_question(path)
    assert fast is not None
    assert _read_whole_document(path) == (fast, [])


def _questions_text(count: int, indent: str) -> str:
    return "".join(
        f"{indent}- id: q{n}\n{indent}  stem: Q{n}?\n"
        f"# a comment at the margin between questions\n{indent}  explanation: Plain {n}.\n{indent}  choices:\n"
        f'{indent}    - {{id: a, text: "1", correct: true, explanation: Right.}}\n'
        f'{indent}    - {{id: b, text: "2", explanation: Wrong.}}\n\n'
        for n in range(count)
    )


@pytest.mark.parametrize("count", [loader._BATCH - 1, loader._BATCH, loader._BATCH + 1, 2 * loader._BATCH + 3])
@pytest.mark.parametrize("indent", ["", "  "])
@pytest.mark.parametrize(
    ("tail", "newline"),
    [
        ("", "\n"),
        ("tags: [late]\n", "\n"),
        ("\t# a tab at the margin ends the questions too\n", "\n"),
        ("intro: no final line break", "\r\n"),
    ],
)
@pytest.mark.parametrize("block", [1, 300, 1 << 16])
def test_questions_read_in_runs_are_the_whole_document_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int, indent: str, tail: str, newline: str, block: int
) -> None:
    """Whatever the blocks the file is read in (a block ends at the end of a line), and the runs of questions
    parsed at once, the bank is the whole document's."""
    monkeypatch.setattr(loader, "_BLOCK", block)
    text = "id: demo\ntitle: Demo\nquestions:  # all\n\n" + _questions_text(count, indent) + tail
    path = tmp_path / "bank.yaml"
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    whole = _read_whole_document(path)
    fast = _read_question_by_question(path)
    if whole[1]:  # (a tab at the margin is no YAML: both ways must see it)
        assert fast is None
        return
    assert fast is not None and len(fast.questions) == count
    assert whole == (fast, [])


UNUSUAL = {
    "a flow sequence": "id: demo\ntitle: Demo\nquestions: [{id: q1, stem: S, explanation: E, choices: "
    "[{id: a, text: A, correct: true, explanation: X}, {id: b, text: B, explanation: Y}]}]\n",
}


@pytest.mark.parametrize("layout", UNUSUAL.values(), ids=UNUSUAL.keys())
def test_unusual_yaml_is_read_as_a_whole_document(tmp_path: Path, layout: str) -> None:
    path = tmp_path / "bank.yaml"
    path.write_text(textwrap.dedent(layout), encoding="utf-8")
    assert _read_question_by_question(path) is None
    bank, found = _read_whole_document(path)
    assert found == [] and bank is not None
    assert load_bank(tmp_path) == bank


ALIASED = """\
id: demo
title: Demo
questions:
  - id: q0
    stem: One?
    explanation: &why Because.
    choices: &choices
      - {id: a, text: "1", correct: true, explanation: Right.}
      - {id: b, text: "2", explanation: Wrong.}
"""


@pytest.mark.parametrize("distance", [1, loader._BATCH - 1, loader._BATCH, 3 * loader._BATCH])
def test_an_alias_to_another_question_reads_as_the_whole_document_reads_it(tmp_path: Path, distance: int) -> None:
    """The fast path parses runs of questions: an alias within a run reads as in the whole document, one to a
    question of an earlier run sends the bank the thorough way; either way the bank is the whole document's."""
    questions = [
        f"  - id: q{n}\n    stem: Q{n}?\n    explanation: Plain.\n    choices:\n"
        '      - {id: a, text: "1", correct: true, explanation: Right.}\n'
        '      - {id: b, text: "2", explanation: Wrong.}\n'
        for n in range(1, distance)
    ]
    last = f"  - id: q{distance}\n    stem: Last?\n    explanation: *why\n    choices: *choices\n"
    path = tmp_path / "bank.yaml"
    path.write_text(ALIASED + "".join(questions) + last, encoding="utf-8")
    bank, found = _read_whole_document(path)
    assert found == [] and bank is not None and bank.questions[-1].explanation == "Because."
    fast = _read_question_by_question(path)
    assert fast == (bank if distance < loader._BATCH else None)
    assert load_bank(tmp_path) == bank


@settings(max_examples=60, deadline=None)
@given(banks(with_translations=False))
def test_any_saved_bank_reads_the_same_a_question_at_a_time(bank: Bank) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        save_bank(bank, Path(tmp))
        path = Path(tmp) / "bank.yaml"
        fast = _read_question_by_question(path)
        assert fast == bank
        assert _read_whole_document(path) == (fast, [])


# What YAML can turn into $ or ![ without writing them: escapes, and an escaped line break (which joins lines).
HIDDEN_MARKS = {
    "an escaped dollar": (r'"Costs \x24 5"', "Costs $ 5"),
    "a unicode-escaped dollar": (r'"Costs \u0024 5"', "Costs $ 5"),
    "a long-escaped dollar": (r'"Costs \U00000024 5"', "Costs $ 5"),
    "an escaped line break between ! and [": ('"See !\\\n      [a](media/a.png)"', "See ![a](media/a.png)"),
}


@pytest.mark.parametrize(("written", "read"), HIDDEN_MARKS.values(), ids=HIDDEN_MARKS.keys())
def test_math_or_an_image_hidden_behind_a_yaml_escape_is_still_checked(tmp_path: Path, written: str, read: str) -> None:
    text = (
        "id: demo\ntitle: Demo\nquestions:\n"
        f"  - id: q1\n    stem: {written}\n    explanation: Plain.\n    choices:\n"
        '      - {id: a, text: "1", correct: true, explanation: Right.}\n'
        '      - {id: b, text: "2", explanation: Wrong.}\n'
    )
    path = tmp_path / "bank.yaml"
    path.write_text(text, encoding="utf-8")
    bank = loader._read_in_runs(path)
    assert bank is not None
    assert bank.questions[0].stem == read
    assert [p for p, _ in loader._rich_strings(bank)] == ["q1/stem"]


# --- the model's memory diet ---------------------------------------------------------------------------------


def test_instances_share_a_fields_set_without_sharing_changes() -> None:
    plain = Choice.model_validate({"id": "a", "text": "A", "explanation": "E"})
    other = Choice.model_validate({"id": "b", "text": "B", "explanation": "F"})
    assert plain.model_fields_set == other.model_fields_set == {"id", "text", "explanation"}
    changed = plain.model_copy(update={"correct": True})
    assert changed.model_fields_set == {"id", "text", "explanation", "correct"}
    assert plain.model_fields_set == other.model_fields_set == {"id", "text", "explanation"}
    # (exclude_none: a choice question's choice dumps its numerical fields as None, issue 30)
    assert Choice.model_validate({**plain.model_dump(exclude_none=True), "correct": True}).model_fields_set == {
        "id",
        "text",
        "explanation",
        "correct",
    }


def test_the_choices_of_every_question_share_one_fields_set_and_the_questions_another() -> None:
    bank = numbered_bank(3)
    first, *others = bank.questions
    for q in others:
        assert q.__pydantic_fields_set__ is first.__pydantic_fields_set__
        for mine, theirs in zip(q.choices, first.choices, strict=True):
            assert mine.__pydantic_fields_set__ is theirs.__pydantic_fields_set__
    assert first.choices[0].model_fields_set == {"id", "text", "correct", "explanation"}
    assert first.choices[1].model_fields_set == {"id", "text", "explanation"}


@settings(max_examples=40, deadline=None)
@given(banks(), st.booleans())
def test_whether_a_text_renders_as_itself_is_known_once_per_string_and_read_the_same_by_every_view(
    bank: Bank, include_drafts: bool
) -> None:
    from moe_lms.text import renders_as_itself_everywhere

    loaded = saved_and_loaded(bank)
    for _ in range(2):  # found, then read back
        for locale in loaded.locales:
            for drafts in (include_drafts, not include_drafts):
                view = resolve(loaded, locale, include_drafts=drafts)
                for q in loaded.questions:
                    texts = view.question_texts(q)
                    want = bytes(renders_as_itself_everywhere(r.text) for r in texts)
                    assert view.question_plain(q, texts) == want
