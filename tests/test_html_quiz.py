"""A quiz's take-the-quiz page: each attempt draws its questions from the sections' pools, in a real Chromium.

Without JavaScript the page shows every question of every pool; with it, an attempt shows as many of each pool as
its section draws, "New attempt" keeps the attempt's score and draws anew.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import lxml.html
import pytest

from moe_lms.formats import ExportOptions, get
from moe_lms.formats.html import render

from .quiz_bank import FIXED, PER_ATTEMPT, PER_POOL, quiz_bank
from .test_html_browser import ARTIFACTS, chromium  # noqa: F401  (the browser fixture)


def quiz_page() -> bytes:
    bank = quiz_bank()
    return render(bank, "en", quiz=bank.quiz("midterm"))


def test_a_quiz_page_holds_every_question_of_its_pools_in_their_sections() -> None:
    page = lxml.html.fromstring(quiz_page())
    sections = page.cssselect("section.quiz-section")
    assert [(s.get("id"), s.get("data-draw"), len(s.cssselect("form.question"))) for s in sections] == [
        ("s-routing", "2", PER_POOL),
        ("s-memory", "3", PER_POOL),
        ("s-fixed", "2", 2),
    ]
    assert [f.get("id") for f in sections[2].cssselect("form.question")] == [f"q-{q}" for q in FIXED]
    assert page.cssselect("h1")[0].text_content() == "Midterm: expert parallelism"
    assert sections[1].cssselect("form.question")[0].get("data-points") == "2"  # the section's points
    assert page.get_element_by_id("score").get("data-total") == "10"  # 2 × 1 + 3 × 2 + 2 × 1
    assert page.get_element_by_id("attempts").get("data-allowed") == "2"


def test_the_page_of_the_whole_bank_is_what_it_was_without_a_quiz() -> None:
    bank = quiz_bank()
    without_quizzes = quiz_bank([])
    assert render(bank, "en") == render(without_quizzes, "en")
    assert b"quiz-section" not in render(bank, "en")


def test_export_with_a_quiz_option_writes_the_quizs_page() -> None:
    bank = quiz_bank()
    options = ExportOptions.for_bank(bank, ("en",), quiz="midterm")
    assert get("html").dump(bank, options) == quiz_page()
    with pytest.raises(ValueError, match="no quiz 'final'"):
        ExportOptions.for_bank(bank, ("en",), quiz="final")


@pytest.fixture
def quiz(chromium, tmp_path: Path) -> Iterator[object]:  # type: ignore[no-untyped-def]  # noqa: F811
    """Open the quiz page (``java_script_enabled`` and other context options pass through); no script errors."""
    path = tmp_path / "pools.midterm.en.html"
    path.write_bytes(quiz_page())
    problems: list[str] = []
    contexts = []

    def open_page(**options):  # type: ignore[no-untyped-def]
        context = chromium(**{"viewport": {"width": 900, "height": 1000}, **options})
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
        page.on("console", lambda msg: msg.type == "error" and problems.append(f"console: {msg.text}"))
        page.goto(path.as_uri())
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert problems == []


def drawn(page) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(i) for i in page.locator("main form.question:visible").evaluate_all("fs => fs.map(f => f.id)")]


def test_an_attempt_shows_seven_questions_two_three_and_the_fixed_two(quiz) -> None:  # type: ignore[no-untyped-def]
    page = quiz()
    ids = drawn(page)
    assert len(ids) == PER_ATTEMPT
    assert sum(i.startswith("q-routing-") for i in ids) == 2
    assert sum(i.startswith("q-memory-") for i in ids) == 3
    assert sorted(i for i in ids if i.startswith("q-network-")) == [f"q-{q}" for q in FIXED]  # (shuffled)
    headings = page.locator("main form.question h2").all_inner_texts()
    assert [h.casefold() for h in headings] == [f"question {n} of 7" for n in range(1, 8)]
    page.screenshot(path=ARTIFACTS / "html-quiz-attempt.png", full_page=True)


def test_new_attempt_keeps_the_score_and_draws_anew(quiz) -> None:  # type: ignore[no-untyped-def]
    page = quiz()
    first = drawn(page)
    question = page.locator(f"#{first[0]}")
    question.get_by_label("Right answer", exact=False).first.check()
    question.get_by_role("button", name="Check").click()
    assert "Your answer is correct." in question.locator(".result").inner_text()
    page.get_by_role("button", name="New attempt").click()
    assert page.locator("#attempts li").all_inner_texts() == ["Attempt 1: 1 of 10 points (10%)"]
    second = drawn(page)
    assert len(second) == PER_ATTEMPT
    assert second != first  # (the same 5 of 40 again: one chance in 216,600)
    # The new attempt's questions are graded, each once, and its score counts them alone.
    question = page.locator(f"#{second[0]}")
    assert question.locator(".result").is_hidden()
    question.get_by_label("Wrong answer", exact=False).first.check()
    question.get_by_role("button", name="Check").click()
    assert "Your answer is incorrect." in question.locator(".result").inner_text()
    assert page.locator(".progress-text").inner_text() == "1 of 7 checked"
    # The quiz allows two attempts: this was the last.
    assert page.get_by_role("button", name="New attempt").is_disabled()


def test_a_finished_attempt_shows_its_score_out_of_the_attempts_points(quiz) -> None:  # type: ignore[no-untyped-def]
    page = quiz()
    for qid in drawn(page):
        question = page.locator(f"#{qid}")
        question.get_by_label("Right answer", exact=False).first.check()
        question.get_by_role("button", name="Check").click()
    assert page.locator("#score .score-text").inner_text() == "Your score: 10 of 10 points (100%)"


def test_with_javascript_off_every_question_of_the_quiz_is_shown(quiz) -> None:  # type: ignore[no-untyped-def]
    page = quiz(java_script_enabled=False)
    assert page.locator("form.question:visible").count() == 2 * PER_POOL + len(FIXED)
    assert page.locator("#attempts").is_hidden()


def test_a_quizs_pages_link_to_the_quizs_pages_in_the_other_languages() -> None:
    bank = quiz_bank().model_copy(update={"target_locales": ("vi",)})
    page = lxml.html.fromstring(render(bank, "en", siblings=bank.locales, quiz=bank.quiz("midterm")))
    assert [a.get("href") for a in page.cssselect("nav.languages a")] == [
        "pools.midterm.en.html",
        "pools.midterm.vi.html",
    ]
