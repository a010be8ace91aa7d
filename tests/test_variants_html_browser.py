"""Per-student variants on the take-the-quiz HTML page (issue 31), in a real Chromium: each attempt draws one
variant of each parameterised question, and its key is the one its own numbers make right."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from moe_lms import formats
from moe_lms.loader import load_bank

from .test_html_browser import ARTIFACTS, chromium  # noqa: F401  (the browser fixture)
from .variant_bank import write_bank


@pytest.fixture
def page(chromium, tmp_path: Path) -> Iterator[object]:  # type: ignore[no-untyped-def]  # noqa: F811
    bank = load_bank(write_bank(tmp_path / "bank"))
    path = tmp_path / "variants.vi.html"
    path.write_bytes(formats.get("html").dump(bank, formats.ExportOptions(locales=("vi",))))
    problems: list[str] = []
    context = chromium(viewport={"width": 900, "height": 1000})
    opened = context.new_page()
    opened.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    opened.on("console", lambda msg: msg.type == "error" and problems.append(f"console: {msg.text}"))
    opened.goto(path.as_uri())
    yield opened
    context.close()
    assert problems == []


def shown(page) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(i) for i in page.locator("main form.question:visible").evaluate_all("fs => fs.map(f => f.id)")]


def numbers(stem: str) -> tuple[int, int, int]:
    """T, k, E as the Vietnamese learner reads them (6.000: a dot groups thousands in vi)."""
    text = " ".join(stem.split())  # (MathML shows T and E as mathematical italic letters)
    found = re.search(r"= ([\d.]+) token, định tuyến top-(\d+) qua \S+ = (\d+) chuyên gia", text)
    assert found, text
    tokens, k, experts = (int(g.replace(".", "")) for g in found.groups())
    return tokens, k, experts


def test_each_attempt_draws_one_variant_and_grades_it_by_its_own_numbers(page) -> None:  # type: ignore[no-untyped-def]
    seen = set()
    for attempt in range(6):
        ids = shown(page)
        capacity = [i for i in ids if i.startswith("q-capacity")]
        assert len(ids) == 3 and len(capacity) == 1 and sum(i.startswith("q-powers") for i in ids) == 1, ids
        seen.add(capacity[0])
        form = page.locator(f'[id="{capacity[0]}"]')
        tokens, k, experts = numbers(form.locator(".stem").inner_text())
        exact = 1.25 * tokens * k / experts
        key = f"{math.ceil(exact):,}".replace(",", ".")
        choice = form.locator("label").filter(has_text=re.compile(rf"(^|\D){re.escape(key)}$"))
        assert choice.count() == 1, (
            key
        )  # (its text is the number written for vi, and no "EN" badge: nothing to translate)
        choice.click()
        form.locator("button.check").click()
        result = form.locator(".result").inner_text()
        assert "Your answer is correct." in result, result  # (the bank's feedback: no vi translation of it here)
        written = f"{exact:,.12g}".replace(",", " ").replace(".", ",").replace(" ", ".")  # vi: 468,75
        assert written in result, result
        if attempt == 0:
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=ARTIFACTS / "html-variants-attempt.png", full_page=True)
        page.locator("button.new-attempt").click()
    assert len(seen) >= 2, seen
