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

from .. import Format
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
    "on_grade_list",
    "split_languages",
    "unmark_multilang",
    "unwrap",
    "write",
]

FORMAT = Format(
    name="moodle",
    description="Moodle XML",
    suffix=".moodle.xml",
    write=write,
    quizzes=True,
)
