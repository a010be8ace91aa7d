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


def canvas_qti(data: bytes) -> Bank:
    from moe_lms.formats.canvas_qti.read import read_package

    return read_package(data)[0]


READERS: dict[str, Callable[[bytes], Bank]] = {"qti21": qti21, "qti3": qti3, "canvas-qti": canvas_qti}


@pytest.mark.parametrize("fmt", sorted(READERS))
def test_a_package_of_every_locale_reads_back_into_the_same_numerical_bank(fmt: str) -> None:
    bank = numerical_bank()
    data = get(fmt).dump(bank, ExportOptions.for_bank(bank))
    same_numerical(bank, READERS[fmt](data), bank.locales)


def test_a_cartridge_of_exact_values_reads_back_into_the_same_bank() -> None:
    from moe_lms.formats.cc11.read import read_package

    from .test_numerical_qti12 import tolerance_free

    bank = tolerance_free(numerical_bank())
    data = get("cc11").dump(bank, ExportOptions.for_bank(bank))
    same_numerical(bank, read_package(data)[0], bank.locales)


@pytest.mark.parametrize("multilang", [False, True])
def test_moodle_xml_reads_back_the_values_tolerances_unit_and_explanations(multilang: bool) -> None:
    """Moodle answers have no ids: the values come back as a, b, c… (as a choice question's choices do)."""
    from moe_lms.formats.moodle import load

    bank = numerical_bank()
    data = get("moodle").dump(bank, ExportOptions.for_bank(bank, multilang=multilang))
    after = load(data).bank
    assert after is not None
    by_id = [
        q.model_copy(
            update={"choices": tuple(c.model_copy(update={"id": "abcdefgh"[j]}) for j, c in enumerate(q.choices))}
        )
        if q.numerical
        else q
        for q in bank.questions
    ]
    renamed = bank.model_copy(update={"questions": tuple(by_id)})
    assert [seen(q) for q in after.questions] == [seen(q) for q in renamed.questions]
    if not multilang:
        ur = {p: t.text for p, t in after.translations["ur"].items() if p.startswith("capacity-tokens/")}
        assert ur["capacity-tokens/unit"] == "ٹوکن"
        assert ur["capacity-tokens/choices/c/explanation"] == "آپ نے top-k چھوڑ دیا۔"


def test_open_edx_courses_of_every_locale_read_back_into_the_same_numerical_bank() -> None:
    from moe_lms.formats.olx.read import read_courses

    bank = numerical_bank()
    archives = [(f"{loc}.tar.gz", get("olx").dump(bank, ExportOptions.for_bank(bank, (loc,)))) for loc in bank.locales]
    after, _warnings = read_courses(archives)
    same_numerical(bank, after, bank.locales)
