"""The take-the-quiz page in a real browser: Debian's Chromium, headless, driven by Playwright.

Chromium is the system's (/usr/bin/chromium, or $CHROMIUM); Playwright never downloads a browser. Without one the
tests skip on a developer machine and fail under CI. Screenshots land in test-artifacts/ for a person to look at.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from moe_lms.formats.html import page_name, render
from moe_lms.model import Bank

from .sample_bank import sample_bank

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _unavailable(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def chromium() -> Iterator[object]:
    """A persistent-context launcher on a fresh, throw-away profile folder per context."""
    executable = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(executable).exists():
        _unavailable("Chromium not found: apt-get install chromium (.ci/run does)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright not installed: pip install -e '.[test]'")
    with sync_playwright() as playwright:
        yield lambda **kwargs: playwright.chromium.launch_persistent_context(
            tempfile.mkdtemp(prefix="moe-lms-chromium-"),
            executable_path=executable,
            args=CHROMIUM_FLAGS,
            headless=True,
            **kwargs,
        )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample bank's pages side by side, as moe-lms build lays them out."""
    folder = tmp_path_factory.mktemp("site")
    bank = sample_bank()
    for locale in bank.locales:
        (folder / page_name(bank, locale)).write_bytes(render(bank, locale, siblings=bank.locales))
    ARTIFACTS.mkdir(exist_ok=True)
    return folder


@pytest.fixture
def browse(chromium, site: Path):  # type: ignore[no-untyped-def]
    """Open a page; fails the test on any script error or any request that leaves the page's folder."""
    contexts = []
    problems: list[str] = []

    def open_page(locale: str, bank: Bank | None = None, **context_options):  # type: ignore[no-untyped-def]
        """The sample bank's page in ``locale``, or ``bank``'s (written beside them)."""
        context = chromium(**{"viewport": {"width": 900, "height": 1000}, **context_options})
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
        page.on("console", lambda msg: msg.type == "error" and problems.append(f"console: {msg.text}"))
        page.on("request", lambda r: r.url.startswith("file://") or problems.append(f"fetched {r.url}"))
        if bank is not None:
            (site / page_name(bank, locale)).write_bytes(render(bank, locale))
        page.goto((site / page_name(bank or sample_bank(), locale)).as_uri())
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert problems == []


def test_a_learner_sees_why_a_wrong_answer_is_wrong_then_gets_it_right_and_reads_the_score(browse) -> None:  # type: ignore[no-untyped-def]
    page = browse("en")
    question = page.locator("#q-ep-distributes")
    question.get_by_label("Full copies of the model").check()
    question.get_by_role("button", name="Check").click()
    result = question.locator(".result")
    assert result.is_visible()
    assert "Your answer is incorrect." in result.inner_text()
    assert "That is data parallelism, not expert parallelism." in result.inner_text()  # the chosen choice's why
    # After a wrong answer the right one is shown too, with its explanation (issue 10, item 4).
    answer = result.locator(".answer")
    assert answer.count() == 1
    assert answer.inner_text().startswith("Right answer: B The feed-forward experts of an MoE layer")
    assert "Each GPU hosts a subset of the experts." in answer.inner_text()
    assert question.locator(".choice.is-wrong").count() == 1
    assert question.locator(".choice.is-answer").get_attribute("data-choice") == "b"
    page.screenshot(path=ARTIFACTS / "html-en-wrong-answer.png", full_page=True)

    question.get_by_label("The feed-forward experts of an MoE layer").check()
    assert not result.is_visible()  # a changed answer clears the old verdict
    question.get_by_role("button", name="Check").click()
    assert "Your answer is correct." in result.inner_text()
    assert "Each GPU hosts a subset of the experts." in result.inner_text()
    assert result.locator(".answer").count() == 0 and question.locator(".choice.is-answer").count() == 0

    costs = page.locator("#q-ep-costs")
    costs.get_by_label("All-to-all communication").check()
    costs.get_by_role("button", name="Check").click()
    assert "Your answer is partially correct." in costs.locator(".result").inner_text()
    assert not page.locator("#score").is_visible()

    router = page.locator("#q-ep-router")
    router.get_by_label("True").check()
    router.get_by_role("button", name="Check").click()
    score = page.locator("#score")
    assert score.is_visible()
    # First checks: wrong (0) + half of the multiple-answer question (0.5) + right (1).
    assert score.locator(".score-text").inner_text() == "Your score: 1.5 of 3 points (50%)"
    assert page.evaluate("document.activeElement.id") == "score"
    assert page.locator(".progress-text").inner_text() == "3 of 3 checked"
    page.screenshot(path=ARTIFACTS / "html-en-finished.png", full_page=True)

    score.get_by_role("button", name="Start over").click()
    assert not score.is_visible()
    assert not result.is_visible()
    assert page.locator("input:checked").count() == 0
    assert page.locator(".progress-text").inner_text() == "0 of 3 checked"
    assert page.evaluate("document.activeElement.id") == "q-ep-distributes-a"


def test_every_choices_explanation_can_be_revealed_after_checking(browse) -> None:  # type: ignore[no-untyped-def]
    page = browse("en")
    question = page.locator("#q-ep-distributes")
    key = question.locator("details.key")
    assert not key.is_visible()  # with the script on, the key waits for a first check
    question.get_by_label("Individual attention heads").check()
    question.get_by_role("button", name="Check").click()
    key.locator("summary").click()
    text = key.inner_text()
    for why in ("That is data parallelism", "Each GPU hosts a subset", "Splitting heads is tensor parallelism"):
        assert why in text


def test_the_quiz_can_be_taken_with_the_keyboard_alone(browse) -> None:  # type: ignore[no-untyped-def]
    page = browse("en")
    for _ in range(10):  # past the language links to the first question's choices
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.name") == "q-ep-distributes":
            break
    assert page.evaluate("document.activeElement.id") == "q-ep-distributes-a"
    page.keyboard.press("ArrowDown")  # moves to, and chooses, the next radio button
    page.keyboard.press("Space")
    assert page.is_checked("#q-ep-distributes-b")
    page.screenshot(path=ARTIFACTS / "html-en-keyboard-focus.png")
    page.keyboard.press("Enter")
    result = page.locator("#q-ep-distributes .result")
    assert "Your answer is correct." in result.inner_text()
    assert page.evaluate("document.activeElement.classList.contains('result')")

    # Checkboxes: Space ticks, Enter checks.
    page.focus("#q-ep-costs-a")
    page.keyboard.press("Space")
    page.keyboard.press("Tab")
    page.keyboard.press("Space")
    assert page.is_checked("#q-ep-costs-b")
    page.keyboard.press("Enter")
    assert "Your answer is correct." in page.locator("#q-ep-costs .result").inner_text()

    # Tab reaches the answer key after a check, and Enter opens it.
    page.focus("#q-ep-costs .check")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.tagName") == "SUMMARY"
    page.keyboard.press("Enter")
    assert page.locator("#q-ep-costs details.key").get_attribute("open") is not None


def test_the_urdu_page_reads_right_to_left_in_nastaliq_with_english_fallbacks_left_to_right(browse) -> None:  # type: ignore[no-untyped-def]
    page = browse("ur")
    assert page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == ["ur", "rtl"]
    assert page.evaluate("getComputedStyle(document.body).direction") == "rtl"
    stem = page.locator("#q-ep-distributes-stem")
    assert stem.evaluate("e => getComputedStyle(e).direction") == "rtl"
    assert "Noto Nastaliq Urdu" in stem.evaluate("e => getComputedStyle(e).fontFamily")
    fallback = page.locator("#q-ep-costs-stem")
    assert fallback.evaluate("e => [e.lang, getComputedStyle(e).direction]") == ["en", "ltr"]
    # The language switcher leads to the sibling pages.
    assert page.locator("nav.languages a[aria-current=page]").inner_text() == "اردو"
    page.locator("#q-ep-distributes-a + label").click()
    page.locator("#q-ep-distributes .check").click()
    assert "یہ ڈیٹا متوازیت ہے" in page.locator("#q-ep-distributes .result").inner_text()
    page.screenshot(path=ARTIFACTS / "html-ur-desktop.png", full_page=True)
    page.get_by_role("link", name="English").click()
    assert page.evaluate("document.documentElement.lang") == "en"


def test_the_page_fits_a_phone_screen_without_sideways_scrolling(browse) -> None:  # type: ignore[no-untyped-def]
    for locale in ("en", "ur"):
        page = browse(locale, viewport={"width": 360, "height": 780}, device_scale_factor=2, is_mobile=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        page.locator("#q-ep-distributes-b + label").click()
        page.locator("#q-ep-distributes .check").click()
        page.screenshot(path=ARTIFACTS / f"html-{locale}-phone.png", full_page=True)


def test_with_javascript_off_the_answers_are_behind_details_and_readable(browse) -> None:  # type: ignore[no-untyped-def]
    page = browse("en", java_script_enabled=False)
    assert page.locator(".noscript").is_visible()
    assert not page.locator("#q-ep-distributes .check").is_visible()
    key = page.locator("#q-ep-distributes details.key")
    assert key.is_visible()
    assert not key.locator(".choice-explanation").first.is_visible()
    key.locator("summary").click()
    assert key.locator(".choice-explanation").first.is_visible()
    assert "That is data parallelism" in key.inner_text()
    page.screenshot(path=ARTIFACTS / "html-en-no-javascript.png", full_page=True)


def test_raw_html_in_a_bank_cannot_break_the_page_or_its_check_button(browse) -> None:  # type: ignore[no-untyped-def]
    """Issue 11, item 20: a raw <style>, a raw HTML block and choices holding <li> or <p> left the page
    malformed, and Check failed with a script error and the wrong verdict."""
    bank = sample_bank()
    q = bank.questions[0]
    a, b, c = q.choices
    q = q.model_copy(
        update={
            "stem": "<style>p { color: red }</style> What does expert parallelism distribute?\n\n"
            "<div>\n<p>A raw block</p>\n</div>",
            "choices": (
                a.model_copy(update={"text": "<li>Full copies of the model</li>"}),
                b.model_copy(update={"text": "<p>The experts of an MoE layer</p>"}),
                c,
            ),
        }
    )
    bank = bank.model_copy(update={"id": "raw-html", "questions": (q, *bank.questions[1:])})
    page = browse("en", bank)
    question = page.locator("#q-ep-distributes")
    # The answer key holds one entry per choice, each with its text (a stray <li> would have closed them).
    assert question.locator(".key-list > li").count() == 3
    assert question.locator(".key-list > li > .key-choice .choice-text").count() == 3
    assert "<style>p { color: red }</style> What does" in question.locator(".stem").inner_text()
    question.get_by_label("The experts of an MoE layer").check()
    question.get_by_role("button", name="Check").click()
    assert "Your answer is correct." in question.locator(".result").inner_text()
    question.get_by_label("Full copies of the model").check()
    question.get_by_role("button", name="Check").click()
    assert "Your answer is incorrect." in question.locator(".result").inner_text()


def test_english_fallbacks_carry_a_visible_badge_on_a_phone_where_tooltips_never_show(browse) -> None:  # type: ignore[no-untyped-def]
    """Issue 10, item 4: the fallback was marked only by a title tooltip, which touch screens do not show."""
    page = browse("ur", viewport={"width": 360, "height": 780}, device_scale_factor=2, is_mobile=True, has_touch=True)
    fallback = page.locator("#q-ep-costs-stem")
    badge = fallback.locator(".lang-badge")
    assert badge.is_visible() and badge.inner_text() == "EN"
    assert badge.bounding_box()["width"] > 0
    assert page.locator("#q-ep-distributes-stem .lang-badge").count() == 0  # Urdu text has none
    page.screenshot(path=ARTIFACTS / "html-ur-phone-fallback-badge.png", full_page=True)


def test_the_your_choice_line_isolates_the_choice_so_mixed_urdu_and_english_reads_in_order(browse) -> None:  # type: ignore[no-untyped-def]
    page = browse("ur")
    question = page.locator("#q-ep-costs")
    question.locator("#q-ep-costs-c + label").click()  # an English fallback choice on the Urdu page
    question.locator(".check").click()
    line = question.locator(".result .chosen p").first
    assert line.locator("> bdi").count() == 1
    assert line.locator("> bdi .choice-text").get_attribute("lang") == "en"
    assert line.evaluate("p => getComputedStyle(p.querySelector('bdi')).unicodeBidi") == "isolate"


def test_an_arabic_page_has_its_own_words_and_letters_and_works_at_phone_width(browse) -> None:  # type: ignore[no-untyped-def]
    """Issue 34 (M4): the page's words come from the page-word catalogs (here the shipped Arabic ones, taken as
    reviewed by the bank's own catalog), its choice letters too; the page works and fits at 390 px."""
    from moe_lms import pagewords

    shipped = pagewords.shipped("ar")
    assert shipped is not None
    reviewed = pagewords.Catalog("ar", reviewed={**shipped.reviewed, **shipped.drafts})
    bank = sample_bank(target_locales=("ar",), translations={}, page_words={"ar": reviewed})
    page = browse("ar", bank, viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
    assert page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == ["ar", "rtl"]
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    question = page.locator("#q-ep-distributes")
    letters = question.locator(".choice .letter").all_inner_texts()
    assert letters[:3] == ["أ", "ب", "ج"]
    assert "اختر إجابة واحدة." in question.inner_text()
    question.get_by_role("button", name="تحقّق").click()  # nothing chosen yet
    assert "اختر إجابة أولًا." in question.locator(".nudge").inner_text()
    question.get_by_label("Full copies of the model").check()
    question.get_by_role("button", name="تحقّق").click()
    answer = question.locator(".result .answer")
    assert answer.inner_text().startswith("إجابة صحيحة")
    assert "English" not in page.locator(".choices").first.inner_text()
    page.screenshot(path=ARTIFACTS / "html-ar-390-page-words.png", full_page=True)


def test_a_display_formula_that_scrolls_shows_an_edge_shadow_and_urdu_lines_have_the_fonts_height(browse) -> None:  # type: ignore[no-untyped-def]
    """Issue 34 (C1, C2): at 390 px a display formula wider than its box is cut with a shadow at the edge it
    continues past (gone once scrolled to that end); an Urdu line is 2.5 em high, Noto Nastaliq Urdu's own line
    metrics (ascender 1.904 + descender 0.596), so that long connected words do not rise into the line above."""
    from moe_lms.loader import load_bank

    bank = load_bank(ROOT / "question_bank" / "moe-serving-arithmetic")
    page = browse("ur", bank, viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
    page.evaluate(  # every answer key shown and open, as after a check
        "document.querySelectorAll('details').forEach(d => { d.open = true; d.hidden = false })"
    )
    wide = page.evaluate(
        "[...document.querySelectorAll('math[display=block]')]"
        ".filter(e => e.getClientRects().length && e.scrollWidth > e.clientWidth + 5)"
        ".map(e => getComputedStyle(e).backgroundImage)"
    )
    assert wide, "no display formula wider than its box at 390 px"
    assert all(image.count("radial-gradient") == 2 and "local" not in image for image in wide)
    stem = page.locator(".stem p:lang(ur)").first  # (a draft translation's stem falls back to English)
    height, size = stem.evaluate("e => [getComputedStyle(e).lineHeight, getComputedStyle(e).fontSize].map(parseFloat)")
    assert height / size >= 2.5 - 1e-6
    page.screenshot(path=ARTIFACTS / "html-ur-390-formula-shadow.png", full_page=True)
