"""Numerical questions come back (issue 30): every format that carries the values, their tolerances, the unit and
the explanations reads back into the same bank: the same questions, and the translations really in each locale."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from moe_lms.formats import ExportOptions, get
from moe_lms.model import Bank, Question

from .numerical_bank import numerical_bank


def seen(q: Question) -> tuple[object, ...]:
    """What a learner meets of a question (a value's tolerance however the bank placed it)."""
    choices = tuple((c.id, c.text, q.value_of(c) if q.numerical else None, q.tolerance_of(c) if q.numerical else None,
                     c.correct, c.explanation) for c in q.choices)  # fmt: skip
    return (q.id, q.kind, float(q.points), q.stem, q.explanation, q.unit, choices)


def same_numerical(before: Bank, after: Bank, locales: tuple[str, ...]) -> None:
    assert [seen(q) for q in after.questions] == [seen(q) for q in before.questions]
    for locale in locales:
        if locale == before.source_locale:
            continue
        wanted = {p: t.text for p, t in before.translations.get(locale, {}).items()}
        got = {p: t.text for p, t in after.translations.get(locale, {}).items()}
        assert got == wanted, locale


def qti21(data: bytes) -> Bank:
    from moe_lms.formats.qti21.read import read_package

    return read_package(data)[0]


def qti3(data: bytes) -> Bank:
    from moe_lms.formats.qti3.read import read_package

    return read_package(data)[0]


READERS: dict[str, Callable[[bytes], Bank]] = {"qti21": qti21, "qti3": qti3}


@pytest.mark.parametrize("fmt", sorted(READERS))
def test_a_package_of_every_locale_reads_back_into_the_same_numerical_bank(fmt: str) -> None:
    bank = numerical_bank()
    data = get(fmt).dump(bank, ExportOptions.for_bank(bank))
    same_numerical(bank, READERS[fmt](data), bank.locales)
