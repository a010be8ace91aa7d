"""Math, images and code on the take-the-quiz page, in headless Chromium: formulas render as MathML with a real
box and no raw dollar left, images come from the page itself (no request at all), code is highlighted, and on
the Urdu page formulas and code stay left-to-right."""

from __future__ import annotations

from pathlib import Path

import pytest

from moe_lms.formats.html import CONTENT_SECURITY_POLICY, page_name, render
from moe_lms.loader import load_bank

from .rich_support import write_rich_bank
from .test_html_browser import ARTIFACTS, chromium  # noqa: F401  (the fixture)

ARITHMETIC_BANK = Path(__file__).resolve().parents[1] / "question_bank" / "moe-serving-arithmetic"


@pytest.fixture(scope="module", params=["rich", "moe-serving-arithmetic"])
def rich_site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The pages of the test's rich bank, and of the shipped bank that needs math, images and code."""
    if request.param == "rich":
        bank = load_bank(write_rich_bank(tmp_path_factory.mktemp("bank")))
    else:
        bank = load_bank(ARITHMETIC_BANK)
    folder = tmp_path_factory.mktemp("rich-site")
    for locale in bank.locales:
        (folder / page_name(bank, locale)).write_bytes(render(bank, locale, siblings=bank.locales))
    return folder, bank.id


def test_the_page_allows_images_only_from_itself() -> None:
    assert "img-src data:;" in CONTENT_SECURITY_POLICY


@pytest.mark.parametrize("locale", ["en", "ur", "vi"])
def test_formulas_images_and_code_render_from_the_page_itself(
    chromium,  # noqa: F811  (the fixture)
    rich_site: tuple[Path, str],
    locale: str,
) -> None:  # type: ignore[no-untyped-def]
    context = chromium(viewport={"width": 900, "height": 1000})
    problems: list[str] = []
    requests: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
        page.on("console", lambda msg: msg.type == "error" and problems.append(f"console: {msg.text}"))
        page.on("request", lambda r: requests.append(r.url))
        folder, bank_id = rich_site
        page.goto((folder / f"{bank_id}.{locale}.html").as_uri())
        page.eval_on_selector_all("details", "ds => ds.forEach(d => { d.open = true; })")
        boxes = page.eval_on_selector_all(
            "math",
            "ms => ms.filter(m => !m.closest('[hidden]'))"
            ".map(m => { const r = m.getBoundingClientRect(); return [r.width, r.height]; })",
        )
        assert len(boxes) >= 5 and all(w > 0 and h > 0 for w, h in boxes)
        visible = page.inner_text("main")
        assert "$" not in visible.replace("$5", ""), "a raw dollar of a formula is left on the page"
        assert not any(mark in visible for mark in ("\\(", "\\[", "\\frac"))
        images = page.eval_on_selector_all(
            "img", "is => is.map(i => [i.complete, i.naturalWidth, i.src.slice(0, 15), i.alt])"
        )
        assert {(done, width > 0, src) for done, width, src, _alt in images} <= {
            (True, True, "data:image/svg+"),
            (True, True, "data:image/png;"),
        }
        assert len(images) >= 1 and all(alt for *_rest, alt in images)
        assert page.eval_on_selector_all("pre.code span", "ss => ss.length") > 3
        colour = page.eval_on_selector("pre.code span.n, pre.code span.nb", "s => getComputedStyle(s).color")
        assert colour
        if locale == "ur":
            assert page.eval_on_selector("html", "h => h.dir") == "rtl"
            directions = page.eval_on_selector_all("math, pre", "es => es.map(e => getComputedStyle(e).direction)")
            assert set(directions) == {"ltr"}
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{bank_id}.{locale}.png"), full_page=True)
    finally:
        context.close()
    assert problems == []
    assert [url for url in requests if not url.startswith(("file://", "data:"))] == []
