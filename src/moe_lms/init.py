"""``moe-lms init``: a new bank that passes ``check`` and exports at once, and teaches by example what to write.

The files are texts with comments (what YAML and PO readers keep for the author), written only where nothing is:
an existing file is never overwritten.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .loader import BANK_FILE, BANK_FILE_OTHER_NAME, LOCALES_DIR
from .model import ID_MAX_LENGTH, Bank

SCHEMA_FILE = "bank.schema.json"

BANK_TEMPLATE = """\
# yaml-language-server: $schema={schema}
# A question bank for moe-lms. `moe-lms check` checks it; `moe-lms export --format moodle` (or qti21, qti3,
# canvas-qti, cc11, canvas, olx, gift, html) writes a file an LMS imports. The line above gives editors with the
# YAML language server (VS Code's YAML extension, for one) completion and checking as you type.
#
# Texts are Markdown: *emphasis*, `code`, lists, $math$, images as ![what it shows](media/file.png).
# Put a text in single quotes when it is a number ('15'), yes, no, true or false, when it holds a colon followed by
# a space ('Note: ...'), or when it starts with one of [ {{ & * ! | > ' " % @ `. A ' inside single quotes is
# written ''. Use single quotes, not double: inside "double quotes" a backslash is an escape, so "$2 \\times 3$"
# would lose the \\t of \\times ('$2 \\times 3$' keeps it). A long text, or one with LaTeX, reads best as a block:
#   stem: >-
#     What is $\\frac{{1}}{{2}}$ of 3? (the lines below the key, indented; a backslash is just a backslash)
# Indent with spaces (never tabs); keys of one question or choice start in the same column.

id: {id}  # the bank's stable id: it names the exported files; keep it once the bank is in an LMS
title: {title}
source_locale: {source_locale}  # the language the texts below are written in
target_locales: {target_locales}  # the languages it is translated into: one locales/<tag>.po file each

questions:
  # One answer is right (kind: single, the default): exactly one choice says correct: true.
  - id: boiling-point  # a question's stable id: the LMS knows the question by it, so never reuse or rename it
    tags: [water]  # optional: what a quiz draws by (see quizzes: at the end)
    stem: At sea level, at what temperature does pure water boil?
    # The general explanation: shown after answering, whatever was chosen. Teach the idea behind the answer.
    explanation: >-
      Water boils when its vapour pressure reaches the pressure of the air around it. At sea level that is one
      atmosphere, which water reaches at 100 °C.
    choices:
      - id: a
        text: 100 °C
        correct: true
        # Every choice explains itself: why it is right, or why it is wrong and what is true instead.
        explanation: Right, at one atmosphere of air pressure water boils at 100 °C.
      - id: b
        text: 90 °C
        explanation: >-
          Water boils near 90 °C about 3,000 m up, where the air pressure is lower; at sea level it takes 100 °C.
      - id: c
        text: '0 °C'
        explanation: 0 °C is where water freezes, not where it boils.

  # Several answers may be right (kind: multiple): at least one choice says correct: true.
  - id: prime-numbers
    kind: multiple
    stem: Which of these numbers are prime?
    explanation: A prime number has exactly two divisors, 1 and itself.
    choices:
      - id: a
        text: '2'  # a number as a text: in quotes
        correct: true
        explanation: 2 is divisible only by 1 and 2; it is the only even prime.
      - id: b
        text: '9'
        explanation: 9 = 3 × 3, so 3 divides it too.
      - id: c
        text: '11'
        correct: true
        explanation: 11 is divisible only by 1 and 11.

  # A statement that is true or false (kind: true-false): say which with correct: true or false, and explain both
  # answers. (moe-lms makes the two choices, True and False, with the ids t and f; a bank whose source language
  # is not English writes them out as choices, like the questions above, with its own words for True and False.)
  - id: light-year
    kind: true-false
    stem: A light-year is a unit of time.
    correct: false
    explanation: A light-year is the distance light travels in one year, about 9.46 trillion km.
    true_explanation: It sounds like one, but a light-year measures distance, not time.
    false_explanation: Right, it is a distance, the one light covers in a year.

# Quizzes drawn from the questions (optional; docs/how-to/quizzes.md). For example:
# quizzes:
#   - id: weekly
#     title: Weekly check
#     sections:
#       - id: main
#         draw: 1                      # 1 question per attempt ...
#         from: {{tags: [water]}}        # ... from those tagged water
#       - id: always
#         questions: [light-year]      # always these
"""

GLOSSARY_TEMPLATE = """\
# The bank's glossary: technical terms and how each target locale must render them. `moe-lms check` warns when a
# translation leaves a term out, and `moe-lms translations update` shows translators the rendering beside each
# string that uses the term. For example:
#
# terms:
#   - source: [boiling point]      # the term as the source texts write it (a plural matches too)
#     note: the temperature at which a liquid boils
#     vi: {use: "điểm sôi"}        # the rendering a translation must use
#     ur: keep                     # or keep the term as it is
terms: []
"""

GITIGNORE = """\
# What `moe-lms export` writes here: made from the bank at any time, so not kept in git.
/*.moodle.xml
/*.qti21.zip
/*.qti3.zip
/*.olx.tar.gz
/*.canvas-qti.zip
/*.imscc
/*.canvas.json
/*.gift.txt
/*.html
"""


def bank_id_for(directory: Path) -> str:
    """A valid bank id made from a folder's name (``My Quiz 2`` -> ``my-quiz-2``)."""
    words = re.sub(r"[^a-z0-9]+", "-", directory.resolve().name.lower()).strip("-")
    if not words or not words[0].isalpha():
        words = f"bank-{words}".rstrip("-")
    return words[:ID_MAX_LENGTH].rstrip("-")


def schema_document() -> dict[str, Any]:
    """The JSON Schema of bank.yaml (what ``moe-lms schema`` prints and ``init`` writes beside the bank)."""
    document: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **Bank.model_json_schema(mode="validation"),
    }
    document["title"] = "moe-lms bank.yaml"
    return document


def _yaml_text(value: str) -> str:
    """A text as a YAML scalar: in single quotes (the form the comments teach: a backslash stays a backslash), or,
    for a text with a control character, a JSON string (a valid double-quoted YAML scalar, whatever it holds)."""
    if value.isprintable():
        return "'" + value.replace("'", "''") + "'"
    return json.dumps(value, ensure_ascii=False)


def planned_files(
    directory: Path, *, title: str, source_locale: str, target_locales: tuple[str, ...]
) -> dict[Path, bytes]:
    """Every file ``init`` writes (but the PO files, which the loader makes from the bank), by path."""
    bank = BANK_TEMPLATE.format(
        schema=SCHEMA_FILE,
        id=bank_id_for(directory),
        title=_yaml_text(title),
        source_locale=source_locale,
        target_locales=f"[{', '.join(target_locales)}]",
    )
    schema = json.dumps(schema_document(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    return {
        directory / BANK_FILE: bank.encode("utf-8"),
        directory / SCHEMA_FILE: schema.encode("utf-8"),
        directory / "glossary.yaml": GLOSSARY_TEMPLATE.encode("utf-8"),
        directory / ".gitignore": GITIGNORE.encode("utf-8"),
    }


def in_the_way(directory: Path, files: dict[Path, bytes], target_locales: tuple[str, ...]) -> list[Path]:
    """The files ``init`` would write that already exist (bank.yml counts as bank.yaml)."""
    wanted = [*files, directory / BANK_FILE_OTHER_NAME]
    wanted += [directory / LOCALES_DIR / f"{locale}.po" for locale in target_locales]
    return [path for path in wanted if path.exists() or path.is_symlink()]
