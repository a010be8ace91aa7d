"""The real Moodle 4.5 keeps the right-to-left layout of the shipped Urdu Moodle XML (issue 26).

The shelf's ``moe-serving-arithmetic.ur.moodle.xml`` is imported through Moodle's own XML format
(question/format/xml) by tests/moodle/moodle_questions.php, as tests/test_moodle_real.py does; what Moodle stored
keeps every layout mark the export wrote: code blocks ``<pre dir="ltr">``, the formulas' LTR isolates, the image's
width, height and style, the Urdu wrapper's alignment and Nastaliq font stack, and the Latin-only choices' isolates
(docs/explanation/right-to-left.md). Without a Moodle (``MOE_MOODLE_DIR``, its database up) it skips as the other
real-Moodle tests do.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lxml import etree

from moe_lms.richtext import IMAGE_STYLE, direction_style

from .test_moodle_real import SHELF, drive, moodle  # noqa: F401  (moodle: the fixture)

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
    "a Latin-only choice's isolate": re.compile(r'<bdi dir="ltr">\d+ KiB</bdi>'),
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
