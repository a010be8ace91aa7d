"""The streamed zip is byte for byte what zipfile writes into a stream it cannot seek, with the entries' fixed
timestamp and permissions, ZIP64 end records included, and any zip reader reads it back."""

from __future__ import annotations

import io
import zipfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

from moe_lms import zipout


class Pipe(io.RawIOBase):
    """Write-only, no seek or tell: zipfile then streams, as into stdout."""

    def __init__(self) -> None:
        self.data = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, b: bytes) -> int:  # type: ignore[override]
        self.data += b
        return len(b)


def by_zipfile(entries: list[tuple[str, bytes]]) -> bytes:
    pipe = Pipe()
    with zipfile.ZipFile(pipe, "w", compression=zipfile.ZIP_DEFLATED) as package:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = 0o100644 << 16
            with package.open(info, "w") as entry:
                entry.write(data)
    return bytes(pipe.data)


def by_zipout(entries: list[tuple[str, bytes]], *, in_parts: bool = False) -> bytes:
    out = io.BytesIO()
    stream = zipout.ZipStream(out)
    for name, data in entries:
        if in_parts:
            with stream.open(name) as entry:
                for start in range(0, len(data), 7):
                    entry.write(data[start : start + 7])
        else:
            stream.add(name, data)
    stream.close()
    return out.getvalue()


names = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), min_size=1, max_size=20)
entries = st.lists(st.tuples(names, st.binary(max_size=3000) | st.text().map(str.encode)), max_size=8)


@given(entries)
def test_the_bytes_are_what_zipfile_writes_into_a_stream(files: list[tuple[str, bytes]]) -> None:
    files = list(dict(files).items())  # one entry per name, as in a package
    written = by_zipout(files)
    assert written == by_zipfile(files)
    assert by_zipout(files, in_parts=True) == written
    with zipfile.ZipFile(io.BytesIO(written)) as package:
        assert [(i.filename, package.read(i)) for i in package.infolist()] == files
        assert package.testzip() is None


def test_zip64_records_are_written_where_zipfile_writes_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past 65,535 entries or 2 GiB of offsets (made small here, in both writers alike)."""
    files = [(f"items/q{n}.xml", b"<item>%d</item>" % n * 20) for n in range(12)]
    for module, name, value in [(zipfile, "ZIP_FILECOUNT_LIMIT", 5), (zipout, "FILE_COUNT_LIMIT", 5)]:
        monkeypatch.setattr(module, name, value)
    assert by_zipout(files) == by_zipfile(files)
    for module, name in [(zipfile, "ZIP64_LIMIT"), (zipout, "ZIP64_LIMIT")]:
        monkeypatch.setattr(module, name, 200)
    small = [(name, data[:50]) for name, data in files]
    assert by_zipout(small) == by_zipfile(small)
    assert b"PK\x06\x06" in by_zipout(small)


@given(entries, st.data())
def test_a_held_entry_put_later_is_the_bytes_of_that_entry_written_in_place(
    files: list[tuple[str, bytes]], data: st.DataObject
) -> None:
    """A file deflated while others are written, and put after them, is the file written there in one go."""
    files = list(dict(files).items())
    if not files:
        return
    at = data.draw(st.integers(0, len(files) - 1))
    name, content = files[at]
    out = io.BytesIO()
    stream = zipout.ZipStream(out)
    held = stream.held(name)
    cut = data.draw(st.integers(0, len(content)))
    held.write(content[:cut])  # in two parts, the second while others are written
    for other, other_data in files[:at]:
        stream.add(other, other_data)
        held.write(b"")
    held.write(content[cut:])
    stream.put(held)
    for other, other_data in files[at + 1 :]:
        stream.add(other, other_data)
    stream.close()
    assert out.getvalue() == by_zipfile(files)
