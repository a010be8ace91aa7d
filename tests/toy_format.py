"""A toy format for tests/test_registry.py: the least a format package declares to be exported, imported,
validated, put on the shelf and documented. Its file is the bank's source-language questions as JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import BinaryIO

from moe_lms.formats import YES, ExportOptions, Format, Guide, Held, Imported, Offer, ShelfEntry
from moe_lms.model import Bank
from moe_lms.problems import Problem, ProblemsFound
from moe_lms.schemas import Schemas

MAGIC = b'{"toy":'


def write(bank: Bank, options: ExportOptions, out: BinaryIO) -> None:
    document = {"toy": 1, "bank": bank.model_dump(mode="json", exclude={"translations", "media"})}
    out.write(json.dumps(document).encode("utf-8"))  # (insertion order: "toy" first, as sniff reads it)


def read(files: Sequence[tuple[str, bytes]], /, *, locale: str | None, max_bytes: int) -> Imported:
    ((name, data),) = files
    problems = check(data, None, name=name)
    if problems:
        raise ProblemsFound(problems)
    document = json.loads(data)
    bank = Bank.model_validate({**document["bank"], "target_locales": []})
    return Imported(bank, [])


def check(data: bytes, schemas: Schemas | None, /, *, name: str) -> list[Problem]:
    try:
        document = json.loads(data)
    except ValueError as exc:
        return [Problem(name, None, f"not JSON: {exc}")]
    if not isinstance(document, dict) or not isinstance(document.get("bank"), dict):
        return [Problem(name, None, "no bank in this toy file")]
    return []


def sniff(data: bytes, name: str) -> int:
    return YES if data.startswith(MAGIC) else 0


def guide(held: Held, first: bool) -> list[str]:
    return ["Drop the `.toy.json` file on the Toy LMS.", ""]


FORMAT = Format(
    name="toy",
    description="toy JSON (a test of the registry)",
    label="Toy",
    suffix=".toy.json",
    write=write,
    one_locale_per_file=True,
    read=read,
    read_help="Read a toy file into a bank directory.",
    check=check,
    check_what="Toy file",
    check_detail="it holds a bank",
    sniff=sniff,
    shelf=ShelfEntry(
        label="Toy", offers=(Offer(90, "**Toy LMS**", "the `.toy.json` file"),), guide=(Guide(90, "Toy LMS", guide),)
    ),
)
