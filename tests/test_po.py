"""PO catalogs: what Babel writes we read back exactly; msgmerge-like updates; errors name their line."""

from __future__ import annotations

import io

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po
from hypothesis import given, settings
from hypothesis import strategies as st

from moe_lms import po

po_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=60)


def babel_po(entries: list[tuple[str, str, str, bool]], width: int = 76) -> str:
    catalog = Catalog(locale="vi", fuzzy=False)
    for context, msgid, msgstr, fuzzy in entries:
        catalog.add(msgid, msgstr, context=context, flags=("fuzzy",) if fuzzy else ())
    buf = io.BytesIO()
    write_po(buf, catalog, width=width)
    return buf.getvalue().decode("utf-8")


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(po_text.filter(bool), po_text.filter(bool), po_text, st.booleans()),
        max_size=8,
        unique_by=lambda e: e[0],
    ),
    st.sampled_from([0, 20, 76]),
)
def test_what_babel_writes_we_read_back_exactly(entries: list[tuple[str, str, str, bool]], width: int) -> None:
    parsed = po.read_po(babel_po(entries, width))
    assert [(e.context, e.msgid, e.msgstr, e.fuzzy) for e in parsed.entries] == entries
    assert parsed.header["Language"] == "vi"


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(po_text.filter(bool), po_text.filter(bool), po_text, st.booleans()), max_size=8))
def test_fast_reader_and_line_reader_agree(entries: list[tuple[str, str, str, bool]]) -> None:
    text = babel_po(entries, width=20)
    assert po.read_po(text) == po._collect(po._read_po_lines(text))


def test_entries_read_across_chunk_boundaries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(po, "_CHUNK", 64)
    entries = [(f"q{i}/stem", f"Question {i}", f"Câu hỏi {i}", i % 2 == 0) for i in range(50)]
    parsed = po.read_po(babel_po(entries))
    assert [(e.context, e.msgid, e.msgstr, e.fuzzy) for e in parsed.entries] == entries


def test_entries_carry_the_line_of_their_msgctxt() -> None:
    text = 'msgid ""\nmsgstr ""\n\n#, fuzzy\nmsgctxt "a"\nmsgid "A"\nmsgstr "á"\n\nmsgctxt "b"\nmsgid "B"\nmsgstr ""\n'
    assert [(e.context, e.line, e.fuzzy) for e in po.read_po(text).entries] == [("a", 5, True), ("b", 9, False)]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('msgctxt "a"\nmsgid "A"\n', 1, "msgid without msgstr"),
        ('msgid "A"\nmsgstr "B\n', 2, "expected a quoted string"),
        ('msgid "A"\nmsgstr "\\q"\n', 2, "bad escape"),
        ('msgid "A"\nmsgid_plural "As"\nmsgstr[0] "B"\n', 2, "plural forms are not used"),
        ('msgid "A"\nmsgstr "B"\nbogus "x"\n', 3, "unknown keyword 'bogus'"),
    ],
)
def test_syntax_errors_name_their_line(text: str, line: int, message: str) -> None:
    with pytest.raises(po.PoSyntaxError) as info:
        po.read_po(text)
    assert info.value.line == line
    assert message in info.value.message


def test_merge_adds_new_strings_fuzzies_changed_ones_and_obsoletes_removed_ones() -> None:
    old = po.read_po(
        'msgctxt "q1/stem"\nmsgid "Old stem"\nmsgstr "Thân cũ"\n\n'
        'msgctxt "q1/explanation"\nmsgid "Same"\nmsgstr "Giống"\n\n'
        'msgctxt "q9/stem"\nmsgid "Gone"\nmsgstr "Đã xoá"\n'
    ).entries
    merged = po.merge(old, [("q1/stem", "New stem"), ("q1/explanation", "Same"), ("q2/stem", "Brand new")])
    assert merged == [
        po.CatalogEntry("q1/stem", "New stem", "Thân cũ", fuzzy=True, previous_msgid="Old stem"),
        po.CatalogEntry("q1/explanation", "Same", "Giống"),
        po.CatalogEntry("q2/stem", "Brand new"),
        po.CatalogEntry("q9/stem", "Gone", "Đã xoá", obsolete=True),
    ]
    written = po.write_catalog(merged, locale="vi", project="demo").decode()
    assert '#| msgid "Old stem"' in written
    assert '#~ msgctxt "q9/stem"' in written
    reread = po.read_po(written).entries
    assert [(e.context, e.fuzzy, e.obsolete, e.previous_msgid) for e in reread] == [
        ("q1/stem", True, False, "Old stem"),
        ("q1/explanation", False, False, None),
        ("q2/stem", False, False, None),
        ("q9/stem", False, True, None),
    ]


def test_written_catalogs_are_deterministic_and_name_their_language() -> None:
    entries = [po.CatalogEntry("title", "Title", "عنوان")]
    first = po.write_catalog(entries, locale="ur", project="demo")
    assert first == po.write_catalog(entries, locale="ur", project="demo")
    assert b"Generated-By" not in first
    assert b'"Language: ur\\n"' in first
    assert first.startswith(b"# Urdu translations of the moe-lms question bank demo.")


def test_written_catalogs_never_flag_bank_text_as_a_python_format_string() -> None:
    # Babel guesses the flags from the msgid: LaTeX braces look like str.format fields and "95% of" like a
    # %-placeholder. Bank text is never a format string; with the flag, Poedit and msgfmt -c would demand the
    # translation keep those "placeholders" and reject a correct one.
    entries = [
        po.CatalogEntry("q/stem", r"$\frac{T \cdot k}{E}$ per expert", r"$\frac{T \cdot k}{E}$ فی ماہر", fuzzy=True),
        po.CatalogEntry("q/explanation", "95% of the characters", "95% حروف"),
        po.CatalogEntry("old/stem", "{x} is gone", "{x} ختم", obsolete=True),
    ]
    text = po.write_catalog(entries, locale="ur", project="demo").decode()
    assert "python-brace-format" not in text
    assert "python-format" not in text
    assert '#, fuzzy\nmsgctxt "q/stem"' in text


def test_a_long_changed_source_is_written_as_one_previous_msgid_that_reads_back() -> None:
    # Babel wraps "#| msgid" at 76 columns as a comment, splitting the quoted string over lines that are not PO
    # (issue 33: `translations update` after a changed stem wrote a file its own reader refused).
    old = "In a capacity-based (token-dropping) MoE implementation, a layer has $E = 128$ experts and routes each "
    old += 'token to its top-$k$ "hot" experts with $k = 8$ \\ and so on, long past seventy-six columns.'
    entry = po.CatalogEntry("q1/stem", "New stem", "Thân cũ", fuzzy=True, previous_msgid=old)
    written = po.write_catalog([entry], locale="vi", project="demo").decode()
    (reread,) = po.read_po(written).entries
    assert (reread.fuzzy, reread.previous_msgid, reread.msgstr) == (True, old, "Thân cũ")
    assert sum(line.startswith("#|") for line in written.splitlines()) == 1
    # and a previous text of several lines (an explanation with a formula on its own line) as PO writes one
    several = po.CatalogEntry("q1/explanation", "New", "Mới", fuzzy=True, previous_msgid="Old line\n\n$$x$$ end")
    written = po.write_catalog([several], locale="vi", project="demo").decode()
    assert po.read_po(written).entries[0].previous_msgid == "Old line\n\n$$x$$ end"
