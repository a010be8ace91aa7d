"""The hostile inputs of issue 35 that are about size: each made here, small on disk, for measuring what moe-lms
does with them (peak memory, time) under ``/usr/bin/time -v``:

    python bench/hostile_inputs.py OUT_DIR
    /usr/bin/time -v moe-lms import qti3 OUT_DIR/qti3-one-item-400-times.zip -o /tmp/b   # "Maximum resident set size"

- ``qti3-one-item-400-times.zip`` / ``qti21-one-item-400-times.zip``: a manifest naming one 14 MiB item 400 times;
- ``qti21-30-items-of-15-mib.zip``: 30 distinct items of 15 MiB of text each (450 MiB inflated);
- ``olx-bomb-38-members.tar.gz``: a tar of 38 files of 15.9 MiB of zeros (600 MiB inflated, just under the
  archive's inflate limit), and ``olx-bomb-38-gzip-members.tar.gz`` the same with one gzip member per file;
- ``olx-two-members.tar.gz``: a valid course whose tar is split over two gzip members (as ``cat a.gz b.gz``).
"""

from __future__ import annotations

import argparse
import gzip
import io
import re
import tarfile
import zipfile
from pathlib import Path

from moe_lms.formats import ExportOptions, get
from moe_lms.model import Bank, Choice, Question

MIB = 1 << 20


def _bank(questions: int = 1) -> Bank:
    made = [
        Question(
            id=f"q{n}",
            stem=f"Question {n}?",
            explanation="Because.",
            choices=[
                Choice(id="a", text="Yes", correct=True, explanation="Right."),
                Choice(id="b", text="No", explanation="Wrong."),
            ],
        )
        for n in range(questions)
    ]
    return Bank(id="hostile", title="Hostile", questions=made)


def _rezip(data: bytes, edit: dict[str, bytes], extra: dict[str, bytes] | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            target.writestr(info.filename, edit.get(info.filename, source.read(info)))
        for name, body in (extra or {}).items():
            target.writestr(name, body)
    return out.getvalue()


def _padded(item: bytes, size: int, paragraphs: int = 4000) -> bytes:
    """The item with ``size`` bytes of words in ``paragraphs`` paragraphs before its first (within the item's
    element budget, and each text node under libxml2's 10 MB limit)."""
    each = size // paragraphs
    words = b"<p>" + (b"expert parallelism " * (each // 19 + 1))[:each] + b"</p>"
    return re.sub(rb"(<p\b[^>]*>)", lambda m: words * paragraphs + m.group(1), item, count=1)


def one_item_named_400_times(fmt: str, size: int = 14 * MIB) -> bytes:
    bank = _bank()
    data = get(fmt).dump(bank, ExportOptions.for_bank(bank, ("en",)))
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        manifest = package.read("imsmanifest.xml").decode("utf-8")
        item_name = next(n for n in package.namelist() if n.endswith(".xml") and "q0" in n)
        item = package.read(item_name)
    resource = re.search(r"<resource\b[^>]*\bhref=\"" + re.escape(item_name) + r"\".*?</resource>", manifest, re.S)
    assert resource is not None, item_name
    copies = "".join(resource.group(0).replace('identifier="', f'identifier="copy{n}-', 1) for n in range(399))
    manifest = manifest.replace(resource.group(0), resource.group(0) + copies)
    return _rezip(data, {"imsmanifest.xml": manifest.encode("utf-8"), item_name: _padded(item, size)})


def thirty_items_of(size: int = 15 * MIB, count: int = 30) -> bytes:
    bank = _bank(count)
    data = get("qti21").dump(bank, ExportOptions.for_bank(bank, ("en",)))
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        items = {n: package.read(n) for n in package.namelist() if n.startswith("items/") or "/q" in n}
    return _rezip(data, {n: _padded(body, size) for n, body in items.items() if b"<p" in body})


def _tar(files: dict[str, bytes]) -> list[bytes]:
    """Each member's tar bytes (header, data, padding) and the tar's end, as separate pieces."""
    pieces = []
    for name, body in files.items():
        info = tarfile.TarInfo(name)
        info.size = len(body)
        header = info.tobuf(tarfile.PAX_FORMAT)
        pieces.append(header + body + b"\0" * (-len(body) % 512))
    pieces.append(b"\0" * 1024)
    return pieces


def olx_bomb(members: int = 38, size: int = 16 * MIB - 100 * 1024, *, gzip_members: bool) -> bytes:
    """38 tar members of zeros; in one gzip stream, or one gzip member per tar member."""
    course = b'<course course="c" org="o" display_name="C"></course>'
    files = {"course/course.xml": course, **{f"course/static/blob{n}.bin": b"\0" * size for n in range(members)}}
    pieces = _tar(files)
    if gzip_members:
        return b"".join(gzip.compress(piece, compresslevel=9, mtime=0) for piece in pieces)
    return gzip.compress(b"".join(pieces), compresslevel=9, mtime=0)


def olx_two_members() -> bytes:
    bank = _bank()
    data = get("olx").dump(bank, ExportOptions.for_bank(bank, ("en",)))
    raw = gzip.decompress(data)
    return gzip.compress(raw[:512], mtime=0) + gzip.compress(raw[512:], mtime=0)  # (the first header alone)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    out = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    made = {
        "qti3-one-item-400-times.zip": one_item_named_400_times("qti3"),
        "qti21-one-item-400-times.zip": one_item_named_400_times("qti21"),
        "qti21-30-items-of-15-mib.zip": thirty_items_of(),
        "olx-bomb-38-members.tar.gz": olx_bomb(gzip_members=False),
        "olx-bomb-38-gzip-members.tar.gz": olx_bomb(gzip_members=True),
        "olx-two-members.tar.gz": olx_two_members(),
    }
    for name, data in made.items():
        (out / name).write_bytes(data)
        print(f"{out / name}: {len(data):,} bytes")


if __name__ == "__main__":
    main()
