"""A numerical question on the take-the-quiz page, in a real browser (Chromium, as tests/test_html_browser.py drives
it): a number box a phone opens its number pad for, graded with the tolerance, showing the explanation of the value
whose range holds the typed number (an anticipated wrong value's, or the right one's) and the general one; typed in
the locale's digits and separator (vi 468,75, Urdu ۴۶۹); right to left in Urdu with the unit after the box."""

from __future__ import annotations

from pathlib import Path

import pytest

from moe_lms.formats.html import render
from moe_lms.locales import resolve
from moe_lms.model import Bank
from moe_lms.richtext import plain_text

from .numerical_bank import numerical_bank
from .test_html_browser import ARTIFACTS, chromium  # noqa: F401  (the fixture)


@pytest.fixture
def open_page(chromium, tmp_path: Path):  # type: ignore[no-untyped-def]  # noqa: F811
    contexts, problems = [], []

    def open_page(bank: Bank, locale: str, **options):  # type: ignore[no-untyped-def]
        path = tmp_path / f"{bank.id}.{locale}.html"
        path.write_bytes(render(bank, locale))
        context = chromium(**{"viewport": {"width": 900, "height": 1000}, **options})
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
        page.goto(path.as_uri())
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert problems == []


def check(page, qid: str, typed: str) -> str:  # type: ignore[no-untyped-def]
    question = page.locator(f"#q-{qid}")
    question.locator(".number-box").fill(typed)
    question.locator(".check").click()
    return str(question.locator(".result").inner_text())


def test_a_typed_number_is_graded_with_its_tolerance_and_the_matching_value_explained(open_page) -> None:  # type: ignore[no-untyped-def]
    bank = numerical_bank()
    page = open_page(bank, "en")
    box = page.locator("#q-capacity-tokens .number-box")
    assert box.get_attribute("inputmode") == "decimal"
    q = bank.question("capacity-tokens")
    general = plain_text(q.explanation)
    explained = {c.id: plain_text(c.explanation) for c in q.choices}

    result = check(page, "capacity-tokens", "468")  # an anticipated value: its explanation
    assert "Your answer is incorrect." in result and explained["truncated"] in result
    assert "Right answer: 469" in result and explained["right"] in result and general in result
    assert page.locator("#q-capacity-tokens .number-box.is-wrong").count() == 1
    result = check(page, "capacity-tokens", "59.4")  # inside no-top-k's own tolerance of 0.5
    assert explained["no-top-k"] in result
    result = check(page, "capacity-tokens", "1000")  # any other number: the right answer and the general one
    assert "Your answer is incorrect." in result and explained["right"] in result
    assert explained["truncated"] not in result and explained["no-top-k"] not in result
    result = check(page, "capacity-tokens", "469 tokens")  # not a number: a nudge, no grade
    assert page.locator("#q-capacity-tokens .nudge").inner_text() == "Type a number, such as 468.75."
    result = check(page, "capacity-tokens", "469")
    assert "Your answer is correct." in result and explained["right"] in result and general in result
    assert "Right answer:" not in result

    result = check(page, "dispatch-kib", "224.04")  # inside the question-wide tolerance of 0.05
    assert "Your answer is correct." in result
    page.locator("#q-ep-what-a + label").click()
    page.locator("#q-ep-what .check").click()
    score = page.locator("#score").inner_text()
    assert "Your score: 2 of 3 points" in score  # the first check of each question counts: 0 + 1 + 1
    page.screenshot(path=ARTIFACTS / "html-numerical-en.png", full_page=True)


@pytest.mark.parametrize(
    ("locale", "typed", "choice"),
    [("vi", "468,75", None), ("vi", "468", "truncated"), ("ur", "۴۶۹", "right"), ("ur", "٥٩٫٢", "no-top-k")],
)
def test_the_box_reads_the_locales_digits_and_decimal_separator(
    open_page, locale: str, typed: str, choice: str | None
) -> None:  # type: ignore[no-untyped-def]
    bank = numerical_bank()
    view = resolve(bank, locale)
    q = bank.question("capacity-tokens")
    page = open_page(bank, locale)
    result = check(page, "capacity-tokens", typed)
    assert page.locator("#q-capacity-tokens .nudge").inner_text() == ""  # read as a number
    if choice is None:  # 468.75: no value's range holds it
        assert page.locator("#q-capacity-tokens .chosen").get_attribute("data-choice") is None
    else:
        assert page.locator("#q-capacity-tokens .chosen").get_attribute("data-choice") == choice
        c = next(c for c in q.choices if c.id == choice)
        assert plain_text(view.choice_explanation(q, c).text) in result


def test_urdu_lays_the_box_and_unit_right_to_left_and_fits_a_phone(open_page) -> None:  # type: ignore[no-untyped-def]
    bank = numerical_bank()
    for width in (900, 360):
        page = open_page(bank, "ur", viewport={"width": width, "height": 780}, is_mobile=width < 400)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        row = page.locator("#q-capacity-tokens .number-row")
        assert row.evaluate("e => getComputedStyle(e).direction") == "rtl"
        box = page.locator("#q-capacity-tokens .number-box").bounding_box()
        unit = page.locator("#q-capacity-tokens .unit").bounding_box()
        assert box is not None and unit is not None
        assert unit["x"] + unit["width"] <= box["x"] + 1  # the unit reads after the box: to its left
        assert page.locator("#q-capacity-tokens .unit").inner_text() == "ٹوکن"
        check(page, "capacity-tokens", "۴۶۹")
        assert (
            "درست" in page.locator("#q-capacity-tokens .result").inner_text()
            or page.locator("#q-capacity-tokens .number-box.is-right").count() == 1
        )
        page.screenshot(path=ARTIFACTS / f"html-numerical-ur-{width}.png", full_page=True)
