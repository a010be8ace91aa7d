"""A broken bank names the file, the line and the question; every problem of a run is reported together."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from moe_lms.loader import check_bank, load_bank, save_bank
from moe_lms.problems import ProblemsFound

GOOD = """\
id: demo
title: Demo bank
target_locales: [ur]
questions:
  - id: q1
    stem: What is 2 + 2?
    explanation: Arithmetic.
    choices:
      - id: a
        text: "4"
        correct: true
        explanation: Two and two make four.
      - id: b
        text: "5"
        explanation: One too many.
"""


def write(tmp_path: Path, bank_yaml: str, po: dict[str, str] | None = None) -> Path:
    (tmp_path / "bank.yaml").write_text(textwrap.dedent(bank_yaml), encoding="utf-8")
    for locale, text in (po or {}).items():
        (tmp_path / "locales").mkdir(exist_ok=True)
        (tmp_path / "locales" / f"{locale}.po").write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


def problems(directory: Path) -> list[str]:
    _bank, found = check_bank(directory)
    return [str(p) for p in found]


def test_a_good_bank_loads(tmp_path: Path) -> None:
    bank = load_bank(write(tmp_path, GOOD))
    assert bank.id == "demo"
    assert bank.questions[0].choices[0].correct


def test_yaml_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    found = problems(write(tmp_path, GOOD.replace("    stem: What is 2 + 2?", "    stem: [What is 2 + 2?")))
    assert len(found) == 1
    assert found[0].startswith(f"{tmp_path / 'bank.yaml'}:7:16: error: YAML syntax error:")
    assert "YAML syntax error" in found[0]


def test_duplicate_question_id_names_the_second_use(tmp_path: Path) -> None:
    second = GOOD[GOOD.index("  - id: q1") :]
    found = problems(write(tmp_path, GOOD + second))
    assert found == [f"{tmp_path / 'bank.yaml'}:16:9: error: question 'q1': question id 'q1' is used more than once"]


def test_two_correct_answers_in_a_single_answer_question(tmp_path: Path) -> None:
    text = GOOD.replace(
        "        explanation: One too many.", "        correct: true\n        explanation: One too many."
    )
    found = problems(write(tmp_path, text))
    assert found == [
        f"{tmp_path / 'bank.yaml'}:9:7: error: question 'q1': "
        "a single-answer question needs exactly one correct choice, found 2 (a, b)"
    ]


def test_misspelled_key_is_an_error_with_a_suggestion(tmp_path: Path) -> None:
    found = problems(write(tmp_path, GOOD.replace("explanation: Two", "explaination: Two")))
    assert (
        f"{tmp_path / 'bank.yaml'}:12:9: error: question 'q1', choice 'a': unknown key 'explaination' "
        "(did you mean 'explanation'?)"
    ) in found
    assert (
        f"{tmp_path / 'bank.yaml'}:9:9: error: question 'q1', choice 'a': missing required key 'explanation'" in found
    )


def test_duplicate_yaml_key_is_an_error_with_its_line(tmp_path: Path) -> None:
    found = problems(write(tmp_path, GOOD.replace("    stem: What is 2 + 2?", "    stem: A\n    stem: B")))
    assert found == [f"{tmp_path / 'bank.yaml'}:7:5: error: key 'stem' appears twice in the same mapping"]


def test_all_errors_of_a_run_are_reported_together(tmp_path: Path) -> None:
    broken = GOOD.replace("explanation: Two", "explaination: Two").replace("id: b", "id: B")
    broken += "  - id: q1\n    stem: ''\n    explanation: E\n    choices: []\n"
    found = problems(write(tmp_path, broken))
    assert len(found) >= 4, found
    assert any("unknown key 'explaination'" in p for p in found)
    assert any("choice 'B': id: 'B' is not a valid id" in p for p in found)
    assert any("question id 'q1' is used more than once" in p for p in found)
    assert any("stem: text is empty" in p for p in found)


def test_not_utf8_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "bank.yaml").write_bytes(GOOD.encode().replace(b"Demo bank", b"Demo \xff bank"))
    assert problems(tmp_path) == [f"{tmp_path / 'bank.yaml'}:2: error: not UTF-8: byte 0xff cannot be decoded"]


def test_po_entry_naming_no_string_is_a_warning_with_its_line_that_says_what_to_run(tmp_path: Path) -> None:
    po = """\
        msgid ""
        msgstr ""
        "Language: ur\\n"

        msgctxt "q1/stem"
        msgid "What is 2 + 2?"
        msgstr "دو جمع دو کیا ہے؟"

        msgctxt "q1/choices/c/text"
        msgid "6"
        msgstr "۶"
        """
    found = problems(write(tmp_path, GOOD, {"ur": po}))
    assert found == [
        f"{tmp_path / 'locales' / 'ur.po'}:9: warning: 1 entry names no string of the bank: "
        "'q1/choices/c/text' (line 9, did you mean 'q1/choices/b/text'?). Their question or choice was deleted or "
        "renamed: run `moe-lms translations update` to make them obsolete (or correct a mistyped msgctxt); until "
        "then they are not used"
    ]
    assert load_bank(tmp_path).translations["ur"]["q1/stem"].text == "دو جمع دو کیا ہے؟"


def test_po_syntax_error_names_its_line(tmp_path: Path) -> None:
    po = 'msgctxt "title"\nmsgid "Demo bank"\nmsgstr "oops\n'
    found = problems(write(tmp_path, GOOD, {"ur": po}))
    assert found == [
        f"{tmp_path / 'locales' / 'ur.po'}:3: error: PO syntax error: expected a quoted string, found '\"oops'"
    ]


def test_po_for_a_locale_the_bank_does_not_target_is_an_error(tmp_path: Path) -> None:
    found = problems(write(tmp_path, GOOD, {"fr": 'msgid ""\nmsgstr ""\n'}))
    assert found == [
        f"{tmp_path / 'locales' / 'fr.po'}: error: locale 'fr' is not in the bank's target_locales: to translate "
        "into it, add fr to target_locales: in bank.yaml and run `moe-lms translations update` (or delete this file)"
    ]


def test_load_bank_raises_with_every_problem(tmp_path: Path) -> None:
    with pytest.raises(ProblemsFound) as info:
        load_bank(write(tmp_path, GOOD.replace("id: b", "id: a")))
    assert "choice id 'a' is used more than once" in str(info.value)


def test_save_writes_bank_and_catalogs_that_load_back(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    bank = load_bank(write(tmp_path / "in", GOOD))
    written = save_bank(bank, tmp_path / "out")
    assert [p.name for p in written] == ["bank.yaml", "ur.po"]
    assert load_bank(tmp_path / "out") == bank


def test_a_byte_order_mark_that_windows_editors_add_is_not_part_of_the_text(tmp_path: Path) -> None:
    po = 'msgid ""\nmsgstr ""\n"Language: ur\\n"\n\nmsgctxt "q1/stem"\nmsgid "What is 2 + 2?"\nmsgstr "دو جمع دو؟"\n'
    directory = write(tmp_path, GOOD, {"ur": po})
    for name in ("bank.yaml", "locales/ur.po"):
        (directory / name).write_bytes(b"\xef\xbb\xbf" + (directory / name).read_bytes())
    bank = load_bank(directory)
    assert bank.id == "demo"
    assert bank.translations["ur"]["q1/stem"].text == "دو جمع دو؟"


def test_not_utf8_after_a_byte_order_mark_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "bank.yaml").write_bytes(b"\xef\xbb\xbf" + GOOD.encode().replace(b"Demo bank", b"Demo \xff bank"))
    assert problems(tmp_path) == [f"{tmp_path / 'bank.yaml'}:2: error: not UTF-8: byte 0xff cannot be decoded"]


def test_a_c1_control_character_in_a_translation_is_an_error_naming_the_po_line(tmp_path: Path) -> None:
    """Issue 11, item 24: PO text goes through the same check as bank.yaml text."""
    from .sample_bank import sample_bank

    save_bank(sample_bank(), tmp_path)
    po = tmp_path / "locales" / "ur.po"
    lines = po.read_text(encoding="utf-8").splitlines()
    line = next(n for n, row in enumerate(lines, 1) if row.startswith('msgstr "') and row != 'msgstr ""')
    lines[line - 1] = lines[line - 1].replace('msgstr "', 'msgstr "\u0085', 1)
    po.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ProblemsFound) as caught:
        load_bank(tmp_path)
    assert any(
        p.file.endswith("ur.po")
        and p.line is not None
        and line - 3 <= p.line <= line
        and "U+0085" in p.message
        and "HTML pages cannot show" in p.message
        for p in caught.value.problems
    ), caught.value.problems


# --- messages in plain words --------------------------------------------------------------------------------------


def test_an_unquoted_colon_says_to_put_the_text_in_quotes(tmp_path: Path) -> None:
    found = problems(write(tmp_path, GOOD.replace("stem: What is 2 + 2?", "stem: Sum: what is 2 + 2?")))
    assert found == [
        f"{tmp_path / 'bank.yaml'}:6:14: error: YAML syntax error: a colon followed by a space inside a text makes "
        "YAML read a new key: put the text in single quotes (stem: 'Note: …'; a ' inside is written '') or write it "
        "as a block (stem: >- and the text on the next lines, indented) (YAML: mapping values are not allowed in this "
        "context)"
    ]


def test_a_tab_is_reported_on_its_own_line(tmp_path: Path) -> None:
    found = problems(write(tmp_path, GOOD.replace("    stem: What is", "\tstem: What is")))
    assert len(found) == 1
    assert found[0].startswith(f"{tmp_path / 'bank.yaml'}:6:1: error: YAML syntax error: a tab character:")
    assert "replace the tab with spaces" in found[0]


def test_points_that_is_no_number_is_one_plain_message(tmp_path: Path) -> None:
    found = problems(write(tmp_path, GOOD.replace("  - id: q1\n", "  - id: q1\n    points: one\n")))
    assert found == [f"{tmp_path / 'bank.yaml'}:6:13: error: question 'q1': points: 'one' is not a number"]


@pytest.mark.parametrize("tag", ["klingon", "xq"])
def test_an_unknown_locale_is_named_as_such_without_a_list_index(tmp_path: Path, tag: str) -> None:
    found = problems(write(tmp_path, GOOD.replace("target_locales: [ur]", f"target_locales: [{tag}]")))
    assert found == [
        f"{tmp_path / 'bank.yaml'}:3:18: error: target_locales: unknown locale '{tag}' "
        "(a locale tag such as en, ur, vi or pt_BR)"
    ]


@pytest.mark.parametrize(
    ("explanation", "placeholder"),
    [("TODO", True), ('"todo: write it"', True), ("TBD", True), ('"..."', True), ('"?"', True), ("FIXME later", True),
     ("Todos los expertos.", False), ("To do so, shard the experts.", False), ("One too many.", False)],
)  # fmt: skip
def test_placeholder_explanations_are_flagged(tmp_path: Path, explanation: str, placeholder: bool) -> None:
    from moe_lms.loader import placeholder_problems

    directory = write(tmp_path, GOOD.replace("explanation: One too many.", f"explanation: {explanation}"))
    found = placeholder_problems(directory, load_bank(directory))
    assert [(p.line, p.where) for p in found] == ([(15, "question 'q1', choice 'b'")] if placeholder else [])


def test_the_packed_fast_reads_agree_with_the_catalogs_own_items(tmp_path: Path) -> None:
    """rendering_problems and the quality checks read a loaded catalog's texts without building a Translation per
    string: they must see exactly what catalog.items() gives, reviewed, draft, stale and missing strings alike."""
    from moe_lms.loader import _translated_texts
    from moe_lms.model import Translation, strings
    from moe_lms.translations import PackedCatalog

    from .sample_bank import sample_bank

    bank = sample_bank()
    ur = dict(bank.translations["ur"])
    paths = [path for path, _ in strings(bank)]
    gone, stale = [path for path in paths if path in ur][:2]
    del ur[gone]  # missing
    ur[stale] = Translation(ur[stale].text, "an older source text", draft=True)
    save_bank(bank.model_copy(update={"translations": {**bank.translations, "ur": ur}}), tmp_path)
    loaded, problems = check_bank(tmp_path)
    assert loaded is not None, problems
    for catalog in loaded.translations.values():
        assert isinstance(catalog, PackedCatalog)
        assert list(_translated_texts(catalog, loaded)) == [(path, t.text) for path, t in catalog.items()]
        for ordinal, (path, source) in enumerate(strings(loaded)):
            t = catalog.translation(ordinal, source)
            assert catalog.text_and_source(ordinal, source) == (None if t is None else (t.text, t.source)), path
    urdu = loaded.translations["ur"]
    assert isinstance(urdu, PackedCatalog)
    stale_read = urdu.text_and_source(paths.index(stale), "the current source")
    assert stale_read == (ur[stale].text, "an older source text")


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from(list("0123456789.)( -*ab\n<>olOLstar=\"'")), max_size=40))
@example("3. starts at three")
@example("2) also")
@example('<ol start="5"><li>five</li></ol>')
@example('<OL START="5"><li>five</li></OL>')
def test_only_text_with_a_list_number_or_an_ol_tag_is_rendered_again_for_the_list_start_warning(s: str) -> None:
    from moe_lms.loader import LIST_START, MAYBE_ORDERED_LIST
    from moe_lms.text import render_block

    if LIST_START.search(render_block(s)):
        assert MAYBE_ORDERED_LIST.search(s)


@pytest.mark.parametrize("text", ["0_", "1_000", "0o7", "_1", "1__2", "0b1_", "+1_0"])
def test_a_saved_bank_reads_back_a_text_that_looks_like_a_number_as_that_text(tmp_path: Path, text: str) -> None:
    """yaml_rs writes these plain and reads them back as numbers; a saved bank must read back as itself."""
    from moe_lms.loader import load_bank, save_bank
    from moe_lms.model import Bank

    bank = Bank.model_validate(
        {
            "id": "numbers",
            "title": "Numbers",
            "questions": [
                {
                    "id": "q",
                    "kind": "single",
                    "stem": "Which?",
                    "explanation": "Because.",
                    "choices": [
                        {"id": "a", "text": text, "correct": True, "explanation": "It is."},
                        {"id": "b", "text": "other", "explanation": "It is not."},
                    ],
                }
            ],
        }
    )
    save_bank(bank, tmp_path)
    assert load_bank(tmp_path).questions[0].choices[0].text == text
