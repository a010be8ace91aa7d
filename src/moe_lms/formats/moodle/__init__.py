"""Moodle XML, both directions: the export Moodle imports with nothing lost, and the import back into a bank.

- :mod:`.write` (:func:`write`, :data:`FORMAT`): a ``category`` per locale and a ``multichoice`` per question, or
  one multilang category whose texts are runs of ``<span lang class="multilang">``; :mod:`.texts` makes each
  text's HTML for one locale or as those spans.
- :mod:`.validate` (:func:`check_moodle_xml`): what Moodle's importer would mangle, in any Moodle XML file.
- :mod:`.read` (:func:`load`): ``multichoice`` and ``truefalse`` questions back into a bank; the rest listed.
- :mod:`.shape`: what both directions know of Moodle: its grade list, language codes, the multilang layout.
- :mod:`.files`: images as the ``<file>`` elements of a text, both directions.

Files this package wrote come back exactly (export → import → export is byte-identical).
"""

from __future__ import annotations

from ...xmlsafe import MAX_XML_BYTES
from .. import YES, AllLocales, Format, Guide, Held, Offer, ShelfEntry, lazy
from .read import ImportResult, Skipped, load
from .shape import (
    FEEDBACK_ELEMENTS,
    GRADES,
    MULTILANG_RUN,
    MULTILANG_SUFFIX,
    NO_EXPLANATION,
    QUESTION_BUDGET,
    answer_fractions,
    grade_shares,
    locale_from_lang,
    moodle_lang,
    multilang_refusal,
    on_grade_list,
    split_languages,
    unmark_multilang,
    unwrap,
)
from .validate import check_moodle_xml
from .write import write

__all__ = [
    "FEEDBACK_ELEMENTS",
    "FORMAT",
    "GRADES",
    "MULTILANG_RUN",
    "MULTILANG_SUFFIX",
    "NO_EXPLANATION",
    "QUESTION_BUDGET",
    "ImportResult",
    "Skipped",
    "answer_fractions",
    "check_moodle_xml",
    "grade_shares",
    "load",
    "locale_from_lang",
    "moodle_lang",
    "multilang_refusal",
    "on_grade_list",
    "split_languages",
    "unmark_multilang",
    "unwrap",
    "write",
]


def _sniff(data: bytes, name: str) -> int:
    """XML whose root is ``<quiz>``: Moodle XML. (Other XML falls to the Moodle checker too, which says why not.)"""
    head = data[:512].removeprefix(b"\xef\xbb\xbf").lstrip().lower()
    if data[:4] == b"PK\x03\x04" or not head.startswith(b"<") or head.startswith((b"<!doctype html", b"<html")):
        return 0
    return YES if b"<quiz" in data[:4096] else 1


def _how_to_import(held: Held, first: bool) -> list[str]:
    return [
        "1. Open your course and go to **More → Question bank** (Moodle 4.x; in Moodle 3.x: "
        "**Course administration → Question bank**).",
        "2. Choose **Import** (in Moodle 4.x it is in the drop-down at the top of the question bank page).",
        "3. Under **File format** choose **Moodle XML format** for a `.moodle.xml` file, or **GIFT format** for a "
        "`.gift.txt` file.",
        "4. Under **General**, pick the question category to import into.",
        "5. Under **Import questions from file**, drop the file of your language and click **Import**; "
        "Moodle lists the questions it read. Click **Continue**.",
        "6. To use them in a quiz: open the quiz, **Questions → Add → from question bank**, and pick the category.",
        "",
        "Importing again never updates questions: Moodle adds every question of the file as a new one beside the "
        "old ones, and drops the idnumber of each whose idnumber the category already has. To bring in a changed "
        "bank, import it into a new, empty category (or first delete the old questions, once no quiz uses them).",
        "",
    ]


def _quizzes_and_languages(held: Held, first: bool) -> list[str]:
    lines: list[str] = []
    if held.quizzes:
        lines += [
            "A quiz's Moodle XML and GIFT files hold each section's questions in a category of its own, "
            "*<bank>/<language>/<quiz>/<section>*: Moodle draws from exactly that pool. To build the quiz:",
            "",
            "1. Import the quiz's file as above (keep **Get category from file** ticked).",
            "2. Create the quiz (**Add an activity or resource → Quiz**), and set its **Timing** (time limit) and "
            "**Grade → Attempts allowed** as the quiz's part of this README says.",
            "3. Open **Questions**. For each section that draws: **Add → a random question**, choose the section's "
            "category, set **Number of random questions** to the section's draw, and **Add random question**. For "
            "each section that does not: **Add → from question bank**, its category, select all, **Add selected "
            "questions to the quiz**.",
            "4. Set each question's mark to the section's points (the pencil beside **Maximum grade** of each "
            "slot), and tick **Shuffle** when the quiz shuffles its questions.",
            "5. Set the quiz's **Maximum grade** (on **Questions**) to what an attempt is worth: a new quiz keeps 10 "
            "whatever its questions add up to.",
            "6. No Moodle file carries the quiz's intro: paste it into the quiz's **Description** (the language's "
            "text from `locales/<language>.po`, `quizzes/<quiz>/intro`; for the all-languages course, each "
            "language's in a multilang span).",
            "",
        ]
    if held.every_locale:
        lines += [
            "For the all-languages file, first switch on the filter once: **Site administration → Plugins → "
            "Filters → Manage filters → Multi-language content: On**, applied to *Content and headings*.",
            "",
        ]
    return lines


FORMAT = Format(
    name="moodle",
    warnings=lazy(".moodle.write:warnings"),  # what it cannot carry of a quiz, or what to do after importing it
    description="Moodle XML",
    label="Moodle XML",
    suffix=".moodle.xml",
    write=write,
    quizzes=True,
    accepts=frozenset({"multilang"}),
    read=lazy(".moodle.read:import_files"),
    read_help="""Read a Moodle XML file into a bank directory.

    Multichoice and true/false questions are kept with their per-answer feedback, general feedback, tags,
    categories and multilang spans (each further language becomes a PO file). Questions of other types are
    listed, not imported. Into a folder that holds a bank, the import is merged: its questions update or add to
    the bank's by id, and the bank's other questions and translations (reviewed and draft) stay.
    """,
    read_options=frozenset({"locale", "max_size"}),
    read_limit=MAX_XML_BYTES,
    check=lazy(".moodle.validate:check"),
    check_what="Moodle XML",
    check_detail="well-formedness and structural checks",
    sniff=_sniff,
    shelf=ShelfEntry(
        label="Moodle XML",
        offers=(Offer(30, "**Moodle**", "the `.moodle.xml` file (not the cartridge: see below)"),),
        guide=(Guide(10, "Moodle", _how_to_import), Guide(12, "Moodle", _quizzes_and_languages)),
        all_locales=AllLocales(
            name="multilang",
            options=("multilang",),
            refusal=multilang_refusal,
            present=(
                "All languages in one Moodle file: {link}. Each learner then sees the question in their own "
                "Moodle language; it needs Moodle's *Multi-language content* filter (see below)."
            ),
            absent=(
                "No all-languages Moodle file for this bank: its code blocks cannot go inside Moodle's multi-language "
                "spans, which hold only inline text. Import the Moodle file of each language instead."
            ),
            refused=(
                "holds a list, a table, a quote or a code block, which a Moodle multilang span cannot hold: "
                "export --format moodle --multilang refuses this bank, and build leaves the all-languages Moodle "
                "file out (the per-locale files carry it)"
            ),
        ),
    ),
)
