"""ERRATA.md is the record of every seed string the shipped bank corrects: the seed text exactly as the owner's
seed document has it, what is wrong with it, and the shipped text, which is what the PO file and every export carry.
The glossary check holds the shipped seed strings to the glossary like every other translation."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from moe_lms.glossary import read_glossary
from moe_lms.loader import load_bank
from moe_lms.po import PoEntry, read_po
from moe_lms.quality import Check, translation_findings

from .conftest import SHIPPED_BANK_DIR

LOCALES = ("ur", "vi")
COLUMNS = ["locale", "string", "seed text", "problem", "shipped text"]


class Erratum(NamedTuple):
    locale: str
    path: str
    seed: str
    problem: str
    shipped: str


def errata() -> dict[tuple[str, str], Erratum]:
    """The rows of ERRATA.md's table, by (locale, msgctxt)."""
    rows: dict[tuple[str, str], Erratum] = {}
    lines = (SHIPPED_BANK_DIR / "ERRATA.md").read_text(encoding="utf-8").splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| locale |"))
    assert [c.strip() for c in lines[header].strip().strip("|").split("|")] == COLUMNS
    for line in lines[header + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 5 and cells[0] in LOCALES and cells[1].startswith("`"), line
        row = Erratum(cells[0], cells[1].strip("`"), *cells[2:])
        assert (row.locale, row.path) not in rows, row
        rows[(row.locale, row.path)] = row
    return rows


def entries(locale: str) -> dict[str, PoEntry]:
    text = (SHIPPED_BANK_DIR / "locales" / f"{locale}.po").read_text(encoding="utf-8")
    return {e.context: e for e in read_po(text).entries if e.context is not None and not e.obsolete}


def has_errata_comment(entry: PoEntry) -> bool:
    return any(c.removeprefix("#").strip().startswith("errata:") for c in entry.comments if not c.startswith("#."))


def test_errata_md_has_a_row_for_each_seed_string_the_native_review_found_wrong() -> None:
    rows = errata()
    # translation-review.md counts 16 Urdu and 22 Vietnamese seed strings with an error; five more Urdu seed choices
    # only lose the trailing full stop the review asks to drop.
    assert sum(r.locale == "ur" for r in rows.values()) >= 16
    assert sum(r.locale == "vi" for r in rows.values()) >= 22
    for row in rows.values():
        assert row.seed and row.problem and row.shipped and row.seed != row.shipped, row


def test_every_seed_text_cell_is_byte_identical_to_the_seed_documents(seeds_dir: Path) -> None:
    documents = {
        "ur": (seeds_dir / "000_c148c68060ea16d0.txt").read_bytes(),
        "vi": (seeds_dir / "001_f1c066f88742853e.txt").read_bytes(),
    }
    for row in errata().values():
        # A whole line of the seed document (title, or a stem or choice after its number or bullet): not NFC-equal,
        # not a fragment of a longer string, but the bytes the owner wrote.
        lines = [line.split(". ", 1)[-1].removeprefix("   • ") for line in documents[row.locale].decode().split("\n")]
        assert row.seed.encode() in documents[row.locale], row
        assert row.seed in lines, row


def test_every_shipped_text_cell_is_the_po_msgstr_of_its_string() -> None:
    for row in errata().values():
        entry = entries(row.locale)[row.path]
        assert entry.msgstr == row.shipped, row
        assert row.seed not in {e.msgstr for e in entries(row.locale).values()}, row  # no other string keeps it


def test_the_errata_comments_in_the_po_files_name_exactly_the_rows_of_errata_md() -> None:
    commented = {(loc, path) for loc in LOCALES for path, e in entries(loc).items() if has_errata_comment(e)}
    assert commented == set(errata())
    for locale in LOCALES:
        for path, e in entries(locale).items():
            assert not any(c.startswith("# errata-suggested:") for c in e.comments), (locale, path)


def test_each_corrected_seed_string_records_who_wrote_and_who_reviewed_it() -> None:
    for row in errata().values():
        entry = entries(row.locale)[row.path]
        notes = [c.removeprefix("# reviewed:").strip() for c in entry.comments if c.startswith("# reviewed:")]
        drafts = [c for c in entry.comments if c.startswith("# draft:")]
        if entry.fuzzy:  # written in issue 20, not verbatim from the native review: a draft until a second pass
            assert len(drafts) == 1 and "awaiting an independent review" in drafts[0] and notes == [], row
        else:
            # The native reviewer's text, or a draft since reviewed by someone who did not write it.
            assert notes and "review" in notes[-1] and not drafts, row


def test_the_glossary_check_finds_nothing_in_the_shipped_strings_seed_strings_included() -> None:
    bank = load_bank(SHIPPED_BANK_DIR)
    glossary, problems = read_glossary(SHIPPED_BANK_DIR, bank.target_locales)
    assert problems == [] and glossary is not None
    findings = [f for f in translation_findings(bank, glossary) if f.check is Check.GLOSSARY]
    assert findings == []
