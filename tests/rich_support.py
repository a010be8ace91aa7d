"""A small bank with math, images and code, built in a test's tmp_path (its PNG and SVG made here)."""

from __future__ import annotations

import struct
import textwrap
import zlib
from pathlib import Path


def png(width: int = 4, height: int = 3, rgb: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    """A real PNG (solid colour), written with zlib: signature, IHDR, IDAT, IEND."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" viewBox="0 0 120 40">'
    '<rect x="1" y="1" width="118" height="38" fill="#eef" stroke="#336"/>'
    '<text x="10" y="25" font-size="14">GPU 0 → GPU 1</text></svg>'
)

BANK = r"""
id: rich
title: Rich content
target_locales: [ur, vi]
questions:
  - id: capacity
    stem: |
      With $k$ experts per token, $T$ tokens and $E$ experts, the capacity is
      $$C = \left\lceil f \cdot \frac{k T}{E} \right\rceil$$
      ![Tokens dispatched to two GPUs](media/dispatch.svg)
    explanation: |
      $C = \lceil 1.25 \cdot \frac{2 \cdot 4096}{64} \rceil = 160$; a price of \$5 stays a dollar.

      ```python
      capacity = math.ceil(1.25 * 2 * 4096 / 64)
      ```
    choices:
      - id: a
        text: "$160$"
        correct: true
        explanation: "Right: ![Capacity bar](media/bar.png) $160 = 1.25 \\times 128$."
      - id: b
        text: "$128$"
        explanation: "That forgets the capacity factor $f$."
"""

PO = {
    "ur": r"""
msgid ""
msgstr ""
"Language: ur\n"
"Content-Type: text/plain; charset=UTF-8\n"

msgctxt "capacity/choices/b/explanation"
msgid "That forgets the capacity factor $f$."
msgstr "اس میں گنجائش کا عامل $f$ شامل نہیں۔"
""",
    "vi": r"""
msgid ""
msgstr ""
"Language: vi\n"
"Content-Type: text/plain; charset=UTF-8\n"

msgctxt "capacity/choices/b/explanation"
msgid "That forgets the capacity factor $f$."
msgstr "Đáp án này quên hệ số dung lượng $f$."
""",
}


def write_rich_bank(directory: Path, bank_yaml: str = BANK, po: dict[str, str] | None = None) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "bank.yaml").write_text(textwrap.dedent(bank_yaml).lstrip(), encoding="utf-8")
    media = directory / "media"
    media.mkdir(exist_ok=True)
    (media / "dispatch.svg").write_text(SVG, encoding="utf-8")
    (media / "bar.png").write_bytes(png())
    locales = directory / "locales"
    locales.mkdir(exist_ok=True)
    for locale, text in (PO if po is None else po).items():
        (locales / f"{locale}.po").write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return directory
