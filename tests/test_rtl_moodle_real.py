"""The real Moodle 4.5 keeps the right-to-left layout of the shipped Urdu Moodle XML (issues 26 and 33).

The shelf's ``moe-serving-arithmetic.ur.moodle.xml`` is imported through Moodle's own XML format
(question/format/xml) by tests/moodle/moodle_questions.php, as tests/test_moodle_real.py does; what Moodle stored
keeps every layout mark the export wrote: code blocks ``<pre dir="ltr">``, the formulas' LTR isolates, the image's
width, height and style, the Urdu wrapper's alignment and Nastaliq font stack, and the Latin-only choices' isolates
(docs/explanation/right-to-left.md). Without a Moodle (``MOE_MOODLE_DIR``, its database up) it skips as the other
real-Moodle tests do.

Issue 33: the quantities' isolates (``48 KiB``, ``1 KiB = 1024``, ``\\(= 8\\) KiB``), kept on one line, the
display formulas' fade, and each question as Moodle's own question engine renders it (its review, every feedback
shown), laid out with the stylesheet Moodle's Boost theme serves, read in Chromium at 1280 and 390 px with
tests/test_rtl_urdu_reading.py's measurements: numbers and units in order, Urdu lines tall enough, code not
double-spaced, short isolates on one line, Latin words in the page's font.
"""

from __future__ import annotations

import html
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from moe_lms.richtext import DISPLAY_MATH_STYLE, IMAGE_STYLE, NOWRAP_STYLE, direction_style

from .test_html_browser import ARTIFACTS, chromium  # noqa: F401  (the fixture)
from .test_moodle_real import SCRIPT, SHELF, drive, moodle  # noqa: F401  (moodle: the fixture)
from .test_rtl_lms_browser import _with_images
from .test_rtl_urdu_reading import DISPLAY_MATH, ISOLATES, PROBE, URDU, WIDTHS, _latin_fonts

URDU_XML = SHELF / "moe-serving-arithmetic.ur.moodle.xml"
# Each mark and a pattern that finds it in question HTML.
MARKS = {
    "a code block laid out left to right": re.compile(r'<pre dir="ltr"'),
    "a formula's left-to-right isolate": re.compile(r'<bdi dir="ltr"(?: style="[^"]*")?>\\[(\[]'),
    "the image's size and phone-wide style": re.compile(
        r'<img [^>]*width="821" height="267" style="' + re.escape(IMAGE_STYLE) + '"'
    ),
    "the Urdu wrapper's alignment and font stack": re.compile(
        r'<div dir="rtl" lang="ur" style="' + re.escape(direction_style("ur")) + '"'
    ),
    "a Latin-only choice's isolate": re.compile(r'<bdi dir="ltr"(?: style="white-space:nowrap")?>\d+ KiB</bdi>'),
    "a quantity's isolate, kept on one line": re.compile(
        r'<bdi dir="ltr" style="' + re.escape(NOWRAP_STYLE) + r'">1 KiB = 1024</bdi>'
    ),
    "a formula and its unit in one isolate": re.compile(r'style="' + re.escape(NOWRAP_STYLE) + r'">\\\(= \d+\\\) KiB<'),
    "a display formula's box that fades out at its end": re.compile(re.escape(f'style="{DISPLAY_MATH_STYLE}"')),
}


def _exported_texts(path: Path) -> list[str]:
    root = etree.parse(str(path)).getroot()
    shown = ("questiontext", "answer", "feedback", "generalfeedback")
    return [
        e.findtext("text") or "" for q in root.iter("question") if q.get("type") != "category" for e in q.iter(*shown)
    ]


def _stored_texts(found: list[dict[str, Any]]) -> list[str]:
    texts = []
    for question in found:
        texts += [question.get("questiontext") or "", question.get("generalfeedback") or ""]
        for answer in question.get("answers") or []:
            texts += [answer.get("text") or "", answer.get("feedback") or ""]
    return texts


def test_the_real_moodle_stores_the_shipped_urdu_xml_with_its_right_to_left_layout(moodle: Path) -> None:  # noqa: F811
    found = drive(moodle, f"rtl-{URDU_XML.name}", "import", "xml", str(URDU_XML))["questions"]
    exported, stored = "\n".join(_exported_texts(URDU_XML)), "\n".join(_stored_texts(found))
    for what, pattern in MARKS.items():
        written = len(pattern.findall(exported))
        assert written, f"the export has no {what}"
        assert len(pattern.findall(stored)) == written, f"Moodle stored {what} fewer times than the export wrote it"


@pytest.fixture(scope="module")
def rendered(moodle: Path) -> list[str]:  # noqa: F811
    """Each question of the shipped Urdu file as Moodle's question engine renders its review (first choice taken,
    every feedback shown)."""
    found = drive(moodle, f"rtl-render-{URDU_XML.name}", "import", "xml", str(URDU_XML))["questions"]
    return [q["graded"][0]["html"] for q in found if q.get("graded")]


@pytest.fixture(scope="module")
def boost_css(moodle: Path) -> str:  # noqa: F811
    done = subprocess.run(
        ["php", str(SCRIPT), str(moodle), "css", "boost"], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0 and ".que" in done.stdout, done.stderr[-2000:]
    return done.stdout


@pytest.fixture(scope="module")
def read_in_moodle(chromium: Any, rendered: list[str], boost_css: str, tmp_path_factory: Any) -> dict[str, Any]:  # noqa: F811
    page_file = tmp_path_factory.mktemp("moodle-rendered") / "review.html"
    questions = "".join(_with_images(q) for q in rendered)
    page_file.write_text(
        '<!DOCTYPE html><html lang="en" dir="ltr"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<style>{boost_css}</style></head><body class="path-mod-quiz"><div id="page" class="container-fluid">'
        f'<div role="main" id="region-main"><form>{questions}</form></div></div></body></html>',
        encoding="utf-8",
    )
    found = {}
    for width, viewport in WIDTHS.items():
        phone = width == "phone"
        context = chromium(viewport=viewport, offline=True, is_mobile=phone, has_touch=phone)
        try:
            page = context.new_page()
            page.goto(page_file.as_uri())
            page.wait_for_load_state("load")
            selectors = {"urdu": URDU, "isolates": ISOLATES, "display": DISPLAY_MATH}
            problems = [html.unescape(p) for p in page.evaluate(PROBE, selectors)]
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"moodle-rendered-ur-{width}.png"), full_page=True)
            found[width] = (problems, _latin_fonts(page), page.evaluate("document.querySelectorAll('.que').length"))
        finally:
            context.close()
    return found


@pytest.mark.parametrize("width", list(WIDTHS))
def test_urdu_questions_as_the_real_moodle_renders_them_read_in_order_at_1280_and_390_px(
    read_in_moodle: dict[str, Any], width: str
) -> None:
    problems, fonts, questions = read_in_moodle[width]
    # every question of the file, a parameterised one's variants each (issue 31)
    assert questions == int(etree.parse(str(URDU_XML)).xpath("count(/quiz/question[@type!='category'])"))
    assert problems == [], "; ".join(problems)
    assert fonts and "DejaVu Sans" not in fonts, fonts
