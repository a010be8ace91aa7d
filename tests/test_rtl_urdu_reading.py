"""Urdu as a student reads it at 1280 and 390 px (issue 33, the second look at Urdu in Moodle).

../shared/reviews/moodle-view/README.md found, in the real Moodle, what the first fixes (tests/test_rtl_lms_browser.py)
left: number-and-unit runs inside Urdu sentences read unit first (``KiB 48``; ``(1 KiB = 1024 بائٹس)`` as
``KiB = 1024 1``; ``\\(= 8\\) KiB`` as ``KiB = 8``), long Nastaliq words overlap the line above in the narrow choice
column, display formulas are cut at a phone's width with no sign that they scroll, short isolates break over two
lines (their halves at opposite ends), the code block takes the Urdu line height, and Latin words fall back to
another font than the page's. Each format's HTML of the Urdu arithmetic bank, in a page styled as Boost styles a
question (the fragments test_rtl_lms_browser.py makes), and the HTML page itself, are measured in Debian's Chromium;
tests/test_rtl_moodle_real.py checks what the real Moodle stores and renders of the same file.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pytest

from .test_html_browser import ARTIFACTS, chromium  # noqa: F401  (the fixture)
from .test_rtl_lms_browser import ALIGNED, FORMATS, urdu_exports  # noqa: F401  (the fixture)

WIDTHS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
# What the measurements look at in every format's markup: LTR isolates (bdi, Canvas's span, QTI 2.1's span
# classes), Urdu wrappers, display formulas (raw TeX in its box, MathML).
ISOLATES = 'bdi[dir="ltr"], span[dir="ltr"], .moe-bdi.moe-ltr'
URDU = '[dir="rtl"][lang="ur"], .moe-rtl:lang(ur), html[lang="ur"] main'
DISPLAY_MATH = '[style*="display:block"][dir="ltr"], math[display="block"]'
# Canvas's sanitiser keeps no mask property (richtext.display_math_style): what Canvas imports scrolls without it.
FADES = {"moodle", "gift", "qti21", "html"}

PROBE = r"""
(selectors) => {
  const out = [];
  // (the HTML page shows a question's explanation once it is answered: every one is shown, as after answering)
  for (const el of document.querySelectorAll('[hidden]')) el.hidden = false;
  for (const el of document.querySelectorAll('details')) el.open = true;
  const box = (node, i, j) => { const r = document.createRange(); r.setStart(node, i); r.setEnd(node, j);
    return r.getBoundingClientRect(); };
  const sameLine = (a, b) => Math.abs(a.top - b.top) < Math.max(a.height, b.height) / 2;
  const units = /(\d+(?:\.\d+)?)[ \u00a0]+(KiB|MiB|GiB|GPUs?|ms|MoE|µs)(?![A-Za-z])/g;
  for (const root of document.querySelectorAll(selectors.urdu)) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.parentElement.closest('pre, code')) continue;
      // a number and its unit: the number's last digit left of the unit's first letter
      for (const m of n.data.matchAll(units)) {
        const digit = box(n, m.index + m[1].length - 1, m.index + m[1].length);
        const unit = box(n, m.index + m[0].length - m[2].length, m.index + m[0].length - m[2].length + 1);
        if (digit.width && unit.width && sameLine(digit, unit) && unit.left < digit.left)
          out.push(`"${m[0]}" reads unit first`);
      }
      // a formula and the unit after it (in one isolate, or the unit after the formula's isolate)
      const unitAfter = /^[ \u00a0]+(KiB|MiB|GiB|B)(?![A-Za-z])/.exec(n.data);
      const before = n.previousSibling;
      if (unitAfter && before && before.nodeType === 1 && /\\\)$/.test(before.textContent)) {
        const range = document.createRange(); range.selectNodeContents(before);
        const rects = [...range.getClientRects()].filter((r) => r.width);
        const end = rects[rects.length - 1], unit = box(n, unitAfter[0].length - unitAfter[1].length,
          unitAfter[0].length - unitAfter[1].length + 1);
        if (end && unit.width && sameLine(end, unit) && unit.left < end.left)
          out.push(`"${before.textContent.slice(-12)}${unitAfter[0]}": the unit reads before the formula`);
      }
      for (const m of n.data.matchAll(/\\\)[ \u00a0]+(KiB|MiB|GiB|B)(?![A-Za-z])/g)) {
        const paren = box(n, m.index + 1, m.index + 2), unit = box(n, m.index + m[0].length - m[1].length,
          m.index + m[0].length - m[1].length + 1);
        if (paren.width && unit.width && sameLine(paren, unit) && unit.left < paren.left)
          out.push(`"${m[0]}": the unit reads before the formula`);
      }
    }
    const style = getComputedStyle(root);
    const ratio = parseFloat(style.lineHeight) / parseFloat(style.fontSize);
    if (!(ratio >= 2.6)) out.push(`an Urdu text's line height is ${style.lineHeight} for ${style.fontSize} text`);
    for (const pre of root.querySelectorAll('pre')) {
      const code = getComputedStyle(pre.querySelector('code') || pre);
      const lines = parseFloat(code.lineHeight) / parseFloat(code.fontSize);
      if (!(lines <= 1.6)) out.push(`a code block in Urdu is spaced ${code.lineHeight} for ${code.fontSize} text`);
    }
  }
  for (const el of document.querySelectorAll(selectors.isolates)) {
    if (!el.closest(selectors.urdu) || getComputedStyle(el).display !== 'inline') continue;
    const text = el.textContent.trim();
    if (text.length > 32) continue;
    if (getComputedStyle(el).whiteSpace !== 'nowrap') out.push(`the short isolate "${text}" may break`);
    const lines = new Set([...el.getClientRects()].filter((r) => r.width).map((r) => Math.round(r.top)));
    if (lines.size > 1) out.push(`the short isolate "${text}" is broken over ${lines.size} lines`);
  }
  for (const el of document.querySelectorAll(selectors.display)) {
    if (el.scrollWidth <= el.clientWidth + 1) continue;
    const style = getComputedStyle(el);
    const mask = style.maskImage || style.webkitMaskImage || '';  // (a fade, or the HTML page's edge shadows)
    if (!/gradient/.test(mask) && !/gradient/.test(style.backgroundImage))
      out.push(`a display formula ${el.scrollWidth} px wide in ${el.clientWidth} px is cut with no sign it scrolls`);
  }
  return out;
}
"""


def _latin_fonts(page: Any) -> set[str]:
    """The fonts Chromium drew the Latin letters of isolates inside Urdu text with (CSS.getPlatformFontsForNode)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    selector = ", ".join(f"{u} {i}" for u in URDU.split(", ") for i in ISOLATES.split(", "))
    fonts: set[str] = set()
    for node in cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})["nodeIds"]:
        for font in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]:
            fonts.add(font["familyName"])
    return fonts


@pytest.fixture(scope="module")
def read(chromium: Any, urdu_exports: dict[str, Path]) -> dict[tuple[str, str], tuple[list[str], set[str]]]:  # noqa: F811
    found = {}
    selectors = {"urdu": URDU, "isolates": ISOLATES, "display": DISPLAY_MATH}
    for width, viewport in WIDTHS.items():
        for name, path in urdu_exports.items():
            context = chromium(viewport=viewport, offline=True, is_mobile=width == "phone", has_touch=width == "phone")
            try:
                page = context.new_page()
                page.goto(path.as_uri())
                page.wait_for_load_state("load")
                problems = [html.unescape(p) for p in page.evaluate(PROBE, selectors)]
                fonts = _latin_fonts(page)
                ARTIFACTS.mkdir(exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / f"rtl-urdu-{name}-{width}.png"), full_page=True)
            finally:
                context.close()
            found[(name, width)] = (problems, fonts)
    return found


CASES = [(name, width) for name in FORMATS for width in WIDTHS]


def _problems(read: Any, name: str, width: str, *starts: str) -> list[str]:
    return [p for p in read[(name, width)][0] if p.startswith(starts)]


@pytest.mark.parametrize(("name", "width"), CASES)
def test_every_number_and_unit_reads_in_order_in_urdu_sentences(read: Any, name: str, width: str) -> None:
    problems = [p for p in read[(name, width)][0] if "reads unit first" in p or "the unit reads before" in p]
    assert problems == [], "; ".join(problems)


@pytest.mark.parametrize(("name", "width"), CASES)
def test_short_isolates_stay_on_one_line(read: Any, name: str, width: str) -> None:
    if name not in ALIGNED | {"gift", "canvas"}:
        pytest.skip(f"{name} keeps no style")
    assert _problems(read, name, width, "the short isolate") == []


@pytest.mark.parametrize(("name", "width"), [c for c in CASES if c[0] in ALIGNED])
def test_urdu_lines_are_tall_enough_for_nastaliq_and_code_keeps_its_own(read: Any, name: str, width: str) -> None:
    assert _problems(read, name, width, "an Urdu text's line height", "a code block in Urdu") == []


@pytest.mark.parametrize(("name", "width"), [c for c in CASES if c[0] in FADES])
def test_a_display_formula_wider_than_its_box_shows_that_it_scrolls(read: Any, name: str, width: str) -> None:
    assert _problems(read, name, width, "a display formula") == []


@pytest.mark.parametrize(("name", "width"), [c for c in CASES if c[0] in ALIGNED])
def test_latin_words_in_urdu_take_the_pages_latin_font(read: Any, name: str, width: str) -> None:
    fonts = read[(name, width)][1]
    assert fonts, "no isolate inside Urdu text was drawn"
    assert "DejaVu Sans" not in fonts, fonts
