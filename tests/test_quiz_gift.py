"""A quiz in GIFT: one category per section below the quiz's, so Moodle's "random question from this category" draws
from exactly that pool (GIFT cannot hold a quiz itself)."""

from __future__ import annotations

from moe_lms.formats import ExportOptions, get
from moe_lms.formats.gift import parse

from .quiz_bank import FIXED, PER_POOL, quiz_bank


def test_each_section_is_a_category_below_the_quizs_holding_its_pool() -> None:
    bank = quiz_bank()
    text = get("gift").dump(bank, ExportOptions.for_bank(bank, ("en",), quiz="midterm")).decode()
    pools: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        if line.startswith("$CATEGORY: "):
            current = line.removeprefix("$CATEGORY: ")
            pools[current] = []
        elif line.startswith("// question: "):
            pools[current].append(line.removeprefix("// question: "))
    base = "$course$/Pools of questions/English/Midterm: expert parallelism"
    assert list(pools) == [f"{base}/Routing", f"{base}/Memory", f"{base}/Always asked"]
    assert [len(p) for p in pools.values()] == [PER_POOL, PER_POOL, len(FIXED)]
    assert pools[f"{base}/Always asked"] == list(FIXED)
    assert len(parse(text)) == 2 * PER_POOL + len(FIXED)  # as Moodle's GIFT reader takes it


def test_the_whole_banks_gift_is_what_it_was() -> None:
    bank, without = quiz_bank(), quiz_bank([])
    options = ExportOptions.for_bank(bank, ("en",))
    assert get("gift").dump(bank, options) == get("gift").dump(without, options)
