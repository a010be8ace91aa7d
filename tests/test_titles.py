"""Titles a learner or teacher reads in a list (QTI items' title, Open edX problems' and units' display names)
are plain text as the stem renders: a formula reads as its symbols (T = 2048), never as raw TeX ($T = 2048$)."""

from __future__ import annotations

import io
import re
import tarfile
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from moe_lms.formats import ExportOptions, get
from moe_lms.loader import load_bank
from moe_lms.richtext import readable_text

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted((ROOT / "question_bank").glob("*/bank.yaml"))
RAW_TEX = re.compile(r"\$|\\[A-Za-z(\[]")


def test_a_formula_reads_as_its_symbols() -> None:
    assert readable_text("With $T = 2048$ tokens") == "With T = 2048 tokens"
    assert readable_text(r"$\lceil 1.25 \cdot 2 \rceil$ slots") == "⌈1.25 · 2⌉ slots"
    assert readable_text(r"top-$k$ routing, $E=64$") == "top-k routing, E = 64"
    assert readable_text("no math here") == "no math here"


@pytest.mark.parametrize("bank_yaml", SHIPPED, ids=lambda p: p.parent.name)
def test_no_title_or_display_name_holds_raw_tex(bank_yaml: Path) -> None:
    bank = load_bank(bank_yaml.parent)
    found = []
    for name in ("qti21", "qti3"):
        data = get(name).dump(bank, ExportOptions.for_bank(bank))
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            for member in package.namelist():
                if member.startswith("items/"):
                    title = etree.fromstring(package.read(member)).get("title", "")
                    found += [f"{name} {member}: {title}"] if RAW_TEX.search(title) else []
    for locale in bank.locales:
        data = get("olx").dump(bank, ExportOptions.for_bank(bank, (locale,)))
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            for member in archive.getmembers():
                if member.isfile() and member.name.endswith(".xml"):
                    shown = etree.fromstring(archive.extractfile(member).read()).get("display_name", "")  # type: ignore[union-attr]
                    found += [f"olx {locale} {member.name}: {shown}"] if RAW_TEX.search(shown) else []
    assert found == []
