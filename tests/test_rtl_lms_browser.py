"""Each format's HTML of the Urdu arithmetic questions, as an LMS shows it on a phone (issue 26).

The exported fragments (Moodle XML's texts, the cartridge's and Canvas QTI's mattext, Canvas's payload, GIFT's
[html] texts, QTI 2.1's item bodies with the package's stylesheet, and the HTML page itself) are put in a
``dir="rtl"`` container styled as Moodle's Boost styles a question (``text-align: left``, its font stack), then
rendered in Debian's Chromium at 390 px without MathJax (Moodle's filter loads it from a CDN). The seven findings of
the Moodle review (../shared/reviews/moodle-view) are the checks: code and raw TeX read left to right, the page
does not overflow, the image fits, a Latin-only choice keeps its order, a word hyphenated to a formula too, and
Urdu is aligned right in a Nastaliq font.
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from moe_lms.formats import ExportOptions, get
from moe_lms.loader import load_bank

from .test_html_browser import ARTIFACTS, chromium  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parents[1]
BANK = ROOT / "question_bank" / "moe-serving-arithmetic"
PHONE = {"width": 390, "height": 844}
# Boost's body: Bootstrap's reboot sets text-align left and this font stack; the question card has padding.
BOOST = """
body { margin: 0; text-align: left; font-size: 15px; line-height: 1.5;
  font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans",
  "Liberation Sans", sans-serif; }
.que { margin: 8px; padding: 12px; background: #def2f8; border-radius: 6px; }
"""
# What an LMS keeps of the right-to-left wrapper's layout (docs/explanation/right-to-left.md): these formats carry it.
ALIGNED = {"moodle", "cc11", "canvas-qti", "qti21", "html"}


def _gift_html(data: bytes) -> list[str]:
    texts = re.findall(r"\[html\]((?:\\.|[^\\{}~=#])*)", data.decode())
    return [re.sub(r"\\(.)", r"\1", t).strip() for t in texts]


def _zip_members(data: bytes, suffix: str) -> list[bytes]:
    archive = zipfile.ZipFile(io.BytesIO(data))
    return [archive.read(n) for n in archive.namelist() if n.endswith(suffix)]


def _mattexts(data: bytes) -> list[str]:
    found = []
    for member in _zip_members(data, ".xml"):
        root = etree.fromstring(member)
        found += [e.text or "" for e in root.iter("{*}mattext") if e.get("texttype") == "text/html"]
    return found


def _qti21_bodies(data: bytes) -> list[str]:
    found = []
    for member in _zip_members(data, ".xml"):
        root = etree.fromstring(member)
        if etree.QName(root).localname != "assessmentItem":
            continue
        for element in root:
            if etree.QName(element).localname in ("itemBody", "modalFeedback"):  # (in the item's language)
                lang = root.get("{http://www.w3.org/XML/1998/namespace}lang", "")
                found.append(f'<div lang="{lang}">' + etree.tostring(element, encoding="unicode") + "</div>")
    # (the HTML parser reads QTI's elements as unknown inline ones and <math> as MathML; xml:lang is lang in HTML,
    # as a QTI player writes it)
    return [re.sub(r"\sxmlns(:\w+)?=\"[^\"]*\"", "", f).replace(" xml:lang=", " lang=") for f in found]


def _canvas_html(data: bytes) -> list[str]:
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str) and value.startswith(("<div", "<span")):
            found.append(value)

    walk(json.loads(data))
    return found


def _fragments(format_name: str, data: bytes) -> list[str]:
    if format_name == "moodle":
        root = etree.fromstring(data)
        shown = ("questiontext", "answer", "feedback", "generalfeedback")  # (not the name: a learner never sees it)
        return [
            e.findtext("text") or ""
            for q in root.iter("question")
            for e in q.iter(*shown)
            if q.get("type") != "category"
        ]
    if format_name == "gift":
        return _gift_html(data)
    if format_name in ("cc11", "canvas-qti"):
        return _mattexts(data)
    if format_name == "qti21":
        return _qti21_bodies(data)
    return _canvas_html(data)


def _with_images(fragment: str) -> str:
    """Every image's URL (@@PLUGINFILE@@/…, a package path, a Canvas file) as the bank's file, so it loads."""
    svg = (BANK / "media" / "dispatch-combine.svg").read_bytes()
    uri = "data:image/svg+xml;base64," + base64.b64encode(svg).decode()
    return re.sub(r'(src|href)="[^"]*dispatch-combine\.svg"', rf'\1="{uri}"', fragment)


def _page(format_name: str, fragments: list[str]) -> str:
    css = BOOST
    if format_name == "qti21":
        from moe_lms.formats.qti21.names import STYLESHEET_CSS

        css += STYLESHEET_CSS.decode() + "\nprompt, simpleChoice, modalFeedback, choiceInteraction { display: block; }"
    cards = "".join(f'<div class="que" dir="rtl">{_with_images(f)}</div>' for f in fragments)
    return (
        '<!DOCTYPE html><html lang="en" dir="ltr"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<style>{css}</style></head><body>{cards}</body></html>"
    )


# What the page shows, measured in the browser: each finding of the review as a list of what is wrong.
PROBE = r"""
() => {
  const out = [];
  const W = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > W + 1)
    out.push(`the page is ${document.documentElement.scrollWidth} px wide on a ${W} px phone`);
  for (const img of document.images) {
    const r = img.getBoundingClientRect();
    if (r.left < -1 || r.right > W + 1) out.push(`an image spans ${Math.round(r.left)}..${Math.round(r.right)} px`);
  }
  const rects = (node, start, end) => {
    const found = [];
    for (let i = start; i < end; i++) {
      if (/\s/.test(node.data[i])) continue;
      const range = document.createRange();
      range.setStart(node, i); range.setEnd(node, i + 1);
      const r = range.getBoundingClientRect();
      if (r.width > 0) found.push({ch: node.data[i], x: r.left, y: Math.round(r.top)});
    }
    return found;
  };
  const inOrder = (found, what) => {  // left to right on each line, in logical order
    for (let i = 1; i < found.length; i++)
      if (found[i].y === found[i - 1].y && found[i].x < found[i - 1].x) {
        out.push(`${what}: "${found[i - 1].ch}" is drawn right of "${found[i].ch}"`);
        return;
      }
  };
  for (const pre of document.querySelectorAll('pre')) {
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    const found = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const lines = n.data.split('\n');
      let offset = 0;
      for (const line of lines) {  // each line of one text node on its own (a line's end is a new line)
        const part = rects(n, offset, offset + line.length);
        found.push(...part);
        offset += line.length + 1;
      }
    }
    inOrder(found, 'code ' + JSON.stringify(pre.textContent.slice(0, 30)));
    const box = pre.getBoundingClientRect();
    if (found.length && found[0].x > box.left + 24) out.push('a code block opens scrolled away from its lines\' start');
  }
  const text = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = text.nextNode(); n; n = text.nextNode()) {
    if (n.parentElement.closest('pre')) continue;
    for (const m of n.data.matchAll(/(?:[A-Za-z]+-)?\\\(.+?\\\)|\\\[.+?\\\]/g))
      inOrder(rects(n, m.index, m.index + m[0].length), 'TeX ' + JSON.stringify(m[0].slice(0, 30)));
    const whole = n.parentElement.textContent.trim();
    if (/^\d+ KiB$/.test(whole) && n.data.trim() === whole) {
      const m = n.data.indexOf(whole);
      inOrder(rects(n, m, m + whole.length), `the choice "${whole}"`);
    }
    if (/[A-Za-z]-$/.test(n.data) && n.nextSibling && n.nextSibling.nodeName.toLowerCase() === 'math') {
      const last = rects(n, n.data.length - 4, n.data.length);
      const math = n.nextSibling.getBoundingClientRect();
      if (last.length && last[0].y === Math.round(math.top) && math.left < last[0].x)
        out.push('a formula hyphenated to a word is drawn before it');
    }
  }
  return out;
}
"""
LAYOUT = r"""
() => {
  const out = [];
  for (const el of document.querySelectorAll('.que [dir="rtl"][lang="ur"], .que .moe-rtl, html[dir="rtl"] main')) {
    const style = getComputedStyle(el);
    if (style.textAlign === 'left') { out.push('Urdu text is aligned left'); break; }
    if (!/Nastaliq/.test(style.fontFamily)) {
      out.push('Urdu text asks for no Nastaliq font: ' + style.fontFamily);
      break;
    }
  }
  return out;
}
"""

FORMATS = ["moodle", "cc11", "canvas-qti", "canvas", "gift", "qti21", "html"]


@pytest.fixture(scope="module")
def urdu_exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    bank = load_bank(BANK)
    folder = tmp_path_factory.mktemp("rtl-lms")
    pages = {}
    for format_name in FORMATS:
        data = get(format_name).dump(bank, ExportOptions(locales=("ur",), drop_images=format_name == "gift"))
        path = folder / f"{format_name}.html"
        if format_name == "html":
            path.write_bytes(data)
        else:
            path.write_text(_page(format_name, _fragments(format_name, data)), encoding="utf-8")
        pages[format_name] = path
    return pages


def _measure(launch: Any, page_file: Path, format_name: str) -> list[str]:
    context = launch(viewport=PHONE, offline=True)
    try:
        page = context.new_page()
        page.goto(page_file.as_uri())
        page.wait_for_load_state("load")
        problems: list[str] = page.evaluate(PROBE)
        if format_name in ALIGNED:
            problems += page.evaluate(LAYOUT)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"rtl-lms-{format_name}-phone.png"), full_page=True)
    finally:
        context.close()
    return [html.unescape(p) for p in problems]


@pytest.fixture(scope="module")
def measured(chromium: Any, urdu_exports: dict[str, Path]) -> dict[str, list[str]]:  # noqa: F811  (the fixture)
    return {name: _measure(chromium, path, name) for name, path in urdu_exports.items()}


@pytest.mark.parametrize("format_name", FORMATS)
def test_urdu_questions_with_code_math_and_an_image_fit_a_phone_and_read_in_order(
    measured: dict[str, list[str]], format_name: str
) -> None:
    problems = [p for p in measured[format_name] if not p.startswith("the choice")]
    assert problems == [], "; ".join(problems)


# Every format isolates a Latin-only text in right-to-left text (<bdi dir="ltr">, <span dir="ltr"> for what Canvas
# imports, a span of class moe-bdi moe-ltr in QTI 2.1).
@pytest.mark.parametrize("format_name", FORMATS)
def test_a_latin_only_choice_keeps_its_order_in_urdu(measured: dict[str, list[str]], format_name: str) -> None:
    problems = [p for p in measured[format_name] if p.startswith("the choice")]
    assert problems == [], "; ".join(problems)
