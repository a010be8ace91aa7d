"""The hostile corpus of issue 22: small banks and packages an attacker would hand moe-lms, each made here."""

from __future__ import annotations

import textwrap
from pathlib import Path

from moe_lms.loader import load_bank
from moe_lms.model import Bank

from ..rich_support import SVG, png

# TeX that latex2mathml turns into markup a browser runs or restyles: each must be refused.
SCRIPT_IN_TEXT = r"\text{<script>alert(1)</script>}"
HOSTILE_FORMULAS = {
    "script in \\text": SCRIPT_IN_TEXT,
    "any markup in \\text": r"\text{<iframe/>}",
    "\\href to javascript": r"\href{javascript:alert(1)}{x}",
    "\\style": r"\style{background:url(https://example.invalid/x)}{x}",
    "\\class": r"\class{hidden}{x}",
}


def bank_with_stem(
    directory: Path, stem: str, *, media: dict[str, bytes] | None = None, bank_id: str = "hostile", extra: str = ""
) -> Path:
    """A one-question bank whose stem is ``stem`` (written as a YAML literal block); ``extra``: more top keys."""
    directory.mkdir(parents=True, exist_ok=True)
    body = textwrap.indent(stem, "      ")
    (directory / "bank.yaml").write_text(
        f"id: {bank_id}\ntitle: Hostile\n{extra}questions:\n  - id: q\n    stem: |\n"
        f"{body}\n"
        "    explanation: Because.\n    choices:\n      - id: a\n        text: 'Yes'\n        correct: true\n"
        "        explanation: Right.\n      - id: b\n        text: 'No'\n        explanation: Wrong.\n",
        encoding="utf-8",
    )
    folder = directory / "media"
    folder.mkdir(exist_ok=True)
    for name, data in {"ok.svg": SVG.encode(), "ok.png": png(), **(media or {})}.items():
        (folder / name).write_bytes(data)
    return directory


def bank_saying(directory: Path, stem: str) -> Bank:
    """A loaded bank whose stem is ``stem`` though check refuses it: what a writer meets when called directly."""
    bank = load_bank(bank_with_stem(directory, "Fine."))
    question = bank.questions[0].model_copy(update={"stem": stem})
    return bank.model_copy(update={"questions": [question]})
