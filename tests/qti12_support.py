"""Test material for QTI 1.2 packages (Common Cartridge, Canvas QTI): exports, a hostile-package kit, and a minimal
QTI 1.2.1 response-processing evaluator for exactly the constructs the items use (no Python QTI 1.2 engine is on
PyPI): respcondition with continue, conditionvar with other / varequal / and / not, setvar Set and
displayfeedback."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable
from pathlib import Path

from lxml import etree

from moe_lms.formats import ExportOptions, get
from moe_lms.model import Bank

QTI = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
NS = {"q": QTI}


def export(format_name: str, bank: Bank, locales: Iterable[str] = (), *, include_drafts: bool = False) -> bytes:
    options = ExportOptions.for_bank(bank, tuple(locales), include_drafts=include_drafts)
    return get(format_name).dump(bank, options)


def members(package: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(package)) as z:
        return {name: z.read(name) for name in z.namelist()}


def rezip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue()


def xsd(schemas_dir: Path, name: str) -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(schemas_dir / "cc11" / name)))


def items(document: bytes) -> dict[str, etree._Element]:
    root = etree.fromstring(document)
    return {i.get("ident", ""): i for i in root.iter(f"{{{QTI}}}item")}


class Unsupported(Exception):
    """The item uses a construct this evaluator does not know: extend it rather than guess."""


def _local(element: etree._Element) -> str:
    return etree.QName(element).localname


def _true(condition: etree._Element, response: frozenset[str]) -> bool:
    name = _local(condition)
    if name == "conditionvar":
        return all(_true(c, response) for c in condition)
    if name == "other":
        return True
    if name == "varequal":
        return (condition.text or "").strip() in response
    if name == "and":
        return all(_true(c, response) for c in condition)
    if name == "not":
        (inner,) = list(condition)
        return not _true(inner, response)
    raise Unsupported(name)


def run(item: etree._Element, response: Iterable[str]) -> tuple[float, list[str]]:
    """The SCORE and the itemfeedback idents shown, in order, after ``response`` (the chosen choice idents)."""
    chosen = frozenset(response)
    score, shown = 0.0, []
    for processing in item.iterfind("q:resprocessing", NS):
        for condition in processing.iterfind("q:respcondition", NS):
            var = condition.find("q:conditionvar", NS)
            assert var is not None
            if not _true(var, chosen):
                continue
            for setvar in condition.iterfind("q:setvar", NS):
                if (setvar.get("action") or "Set") != "Set":
                    raise Unsupported(setvar.get("action", ""))
                score = float(setvar.text or "0")
            shown += [d.get("linkrefid", "") for d in condition.iterfind("q:displayfeedback", NS)]
            if (condition.get("continue") or "No") == "No":
                break
    return score, shown


def as_a_cartridge_reads_back(markdown: str) -> str:
    """A text as reading a cartridge gives it back: its soft line breaks (a line break between two characters of a
    paragraph) as spaces, since the cartridge writes them so (formats/qti12 without_raw_breaks: Moodle's restore
    made each a <br />). The same paragraph: Markdown renders a soft break as a space."""
    import re

    parts = re.split(r"(```.*?```)", markdown.strip(), flags=re.S)  # (not inside a code block)
    return "".join(p if k % 2 else re.sub(r"(?<=[^\n])\n(?=[^\n!`])", " ", p) for k, p in enumerate(parts))
