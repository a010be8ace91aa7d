"""A quiz in Moodle XML: one category per section below the quiz's, its questions worth the section's points, so that
Moodle's "random question from this category" draws from exactly that pool."""

from __future__ import annotations

from lxml import etree

from moe_lms.formats import ExportOptions, get

from .quiz_bank import FIXED, PER_POOL, quiz_bank


def test_each_section_is_a_category_below_the_quizs_with_its_pool_at_its_points() -> None:
    bank = quiz_bank()
    root = etree.fromstring(get("moodle").dump(bank, ExportOptions.for_bank(bank, ("en",), quiz="midterm")))
    pools: dict[str, list[tuple[str, str]]] = {}
    current = ""
    for question in root.iter("question"):
        if question.get("type") == "category":
            current = question.findtext("category/text") or ""
            pools[current] = []
        else:
            pools[current].append((question.findtext("idnumber") or "", question.findtext("defaultgrade") or ""))
    base = "$course$/Pools of questions/English/Midterm: expert parallelism"
    assert list(pools) == [f"{base}/Routing", f"{base}/Memory", f"{base}/Always asked"]
    assert [len(p) for p in pools.values()] == [PER_POOL, PER_POOL, len(FIXED)]
    assert {float(grade) for _, grade in pools[f"{base}/Memory"]} == {2.0}
    assert [idnumber for idnumber, _ in pools[f"{base}/Always asked"]] == [f"{q}-en" for q in FIXED]


def test_the_whole_banks_moodle_xml_is_what_it_was() -> None:
    bank, without = quiz_bank(), quiz_bank([])
    options = ExportOptions.for_bank(bank, ("en",))
    assert get("moodle").dump(bank, options) == get("moodle").dump(without, options)


def test_the_quizs_moodle_xml_passes_the_moodle_checks() -> None:
    from moe_lms.formats.moodle import check_moodle_xml

    bank = quiz_bank()
    assert check_moodle_xml(get("moodle").dump(bank, ExportOptions.for_bank(bank, ("en",), quiz="midterm"))) == []
