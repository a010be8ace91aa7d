"""The second shipped bank (math, a diagram, code) through every format that has an importer: the questions,
formulas, code and the diagram come back the same."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest

from moe_lms.formats import ExportOptions, get, moodle, qti21
from moe_lms.formats.canvas_qti import read as canvas_qti_read
from moe_lms.formats.cc11 import read as cc11_read
from moe_lms.loader import load_bank
from moe_lms.model import Bank

from .qti12_support import as_a_cartridge_reads_back

ARITHMETIC_BANK = Path(__file__).resolve().parents[1] / "question_bank" / "moe-serving-arithmetic"


def _moodle(data: bytes) -> Bank:
    result = moodle.load(data)
    assert result.problems == () and result.bank is not None
    return result.bank


def _reader(read: Callable[[bytes], tuple[Bank, list[object]]]) -> Callable[[bytes], Bank]:
    def load(data: bytes) -> Bank:
        bank, problems = read(data)
        assert problems == []
        return bank

    return load


IMPORTERS = {
    "moodle": _moodle,
    "qti21": _reader(qti21.read_package),
    "cc11": _reader(cc11_read.read_package),
    "canvas-qti": _reader(canvas_qti_read.read_package),
}


@pytest.mark.parametrize("format_name", list(IMPORTERS))
def test_the_arithmetic_bank_survives_export_and_import(format_name: str) -> None:
    from moe_lms import variants

    bank = variants.expand(load_bank(ARITHMETIC_BANK), grouped_whole_bank=False)  # (its variants: issue 31)
    out = io.BytesIO()
    get(format_name).write(bank, ExportOptions(locales=(bank.source_locale,)), out)
    imported = IMPORTERS[format_name](out.getvalue())

    # (a cartridge gives soft line breaks back as spaces: qti12_support.as_a_cartridge_reads_back)
    read_as = as_a_cartridge_reads_back if format_name == "cc11" else str.strip

    def texts(b: Bank) -> list[str]:
        return [
            read_as(t)
            for q in b.questions
            for t in (q.stem, q.explanation, *(x for c in q.choices for x in (c.text, c.explanation)))
        ]

    if format_name == "cc11":  # its assessment asks the first variant of each (cc11.write._asked), read first
        asked = [q for q in bank.questions if "~" not in q.id or q.id.endswith("~1")]
        rest = [q for q in bank.questions if q not in asked]
        bank = bank.model_copy(update={"questions": (*asked, *rest)})
    assert texts(imported) == texts(bank)
    assert {p: m.data for p, m in imported.media.items()} == {p: m.data for p, m in bank.media.items()}
