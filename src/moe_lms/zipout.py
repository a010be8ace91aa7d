"""A deterministic zip written as a stream: exactly the bytes :mod:`zipfile` writes into a stream it cannot seek
(every entry deflated at zlib's default level, with a data descriptor after it; fixed timestamp, Unix permissions
0644), for a fraction of zipfile's work per entry (a QTI package of a large bank is tens of thousands of small
entries). tests/test_zipout.py checks the bytes against zipfile's, ZIP64 records included.
"""

from __future__ import annotations

import struct
import zlib
from typing import BinaryIO

# zipfile's constants (zipfile.py): record layouts, signatures and limits.
_LOCAL = struct.Struct("<4s2B4HL2L2H")
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")
_END = struct.Struct("<4s4H2LH")
_END64 = struct.Struct("<4sQ2H2L4Q")
_END64_LOCATOR = struct.Struct("<4sLQL")
_DESCRIPTOR = struct.Struct("<LLLL")
_DESCRIPTOR_SIGNATURE = 0x08074B50
ZIP64_LIMIT = (1 << 31) - 1
FILE_COUNT_LIMIT = (1 << 16) - 1
_VERSION = 20  # zipfile.DEFAULT_VERSION
_ZIP64_VERSION = 45
_DEFLATED = 8
_USES_DESCRIPTOR = 0x08
_UTF8_NAME = 0x800
_UNIX = 3
_PERMISSIONS = 0o100644 << 16
_TIME, _DATE = 0, (1980 - 1980) << 9 | 1 << 5 | 1  # 1980-01-01 00:00:00, DOS format


class ZipStream:
    """Writes entries one after the other into ``out``; :meth:`close` writes the central directory."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._offset = 0
        self._entries: list[tuple[bytes, int, int, int, int, int]] = []  # name, flags, crc, sizes, offset

    def _write(self, data: bytes) -> None:
        self._out.write(data)
        self._offset += len(data)

    def _name(self, name: str) -> tuple[bytes, int]:
        try:
            return name.encode("ascii"), _USES_DESCRIPTOR
        except UnicodeEncodeError:
            return name.encode("utf-8"), _USES_DESCRIPTOR | _UTF8_NAME

    def add(self, name: str, data: bytes) -> None:
        """One file, deflated (the same bytes as :meth:`open` and one write, in one step)."""
        encoded, flags = self._name(name)
        compressor = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
        deflated = compressor.compress(data) + compressor.flush()
        crc, size, compressed = zlib.crc32(data), len(data), len(deflated)
        if size > ZIP64_LIMIT or compressed > ZIP64_LIMIT:
            raise RuntimeError(f"{name} is too large for a zip entry written as a stream")  # as zipfile does
        header = _LOCAL.pack(b"PK\x03\x04", _VERSION, 0, flags, _DEFLATED, _TIME, _DATE, 0, 0, 0, len(encoded), 0)
        descriptor = _DESCRIPTOR.pack(_DESCRIPTOR_SIGNATURE, crc, compressed, size)
        self._entries.append((encoded, flags, crc, compressed, size, self._offset))
        self._write(b"".join((header, encoded, deflated, descriptor)))

    def open(self, name: str) -> Entry:
        """One file, written in parts (``with stream.open(name) as entry: entry.write(...)``)."""
        encoded, flags = self._name(name)
        offset = self._offset
        self._write(_LOCAL.pack(b"PK\x03\x04", _VERSION, 0, flags, _DEFLATED, _TIME, _DATE, 0, 0, 0, len(encoded), 0))
        self._write(encoded)
        return Entry(self, name, encoded, flags, offset)

    def held(self, name: str) -> HeldEntry:
        """One file, written in parts now but into the zip later, by :meth:`put` (where it then stands among the
        entries): for a file made of parts that other files, written before it, are made of too (a cartridge's
        question bank holds its quizzes' items), so each part is made once. Its parts are deflated as they come;
        only the deflated bytes are held."""
        encoded, flags = self._name(name)
        return HeldEntry(self, name, encoded, flags)

    def put(self, entry: HeldEntry) -> None:
        """Write a :meth:`held` file, finished, at this place: the same bytes as :meth:`open` writing its parts."""
        deflated, descriptor = entry.finish()
        offset = self._offset
        header = _LOCAL.pack(
            b"PK\x03\x04", _VERSION, 0, entry.flags, _DEFLATED, _TIME, _DATE, 0, 0, 0, len(entry.encoded), 0
        )
        self._write(header + entry.encoded)
        for part in deflated:
            self._write(part)
        self._write(descriptor)
        self._entries.append((entry.encoded, entry.flags, entry.crc, entry.compressed, entry.size, offset))

    def close(self) -> None:
        start = self._offset
        directory = []
        for encoded, flags, crc, compressed, size, offset in self._entries:
            extra, version = b"", _VERSION
            if offset > ZIP64_LIMIT:
                extra, version, offset = struct.pack("<HHQ", 1, 8, offset), _ZIP64_VERSION, 0xFFFFFFFF
            fields = (version, _UNIX, version, 0, flags, _DEFLATED, _TIME, _DATE, crc, compressed, size)
            record = _CENTRAL.pack(b"PK\x01\x02", *fields, len(encoded), len(extra), 0, 0, 0, _PERMISSIONS, offset)
            directory.append(record + encoded + extra)
        self._write(b"".join(directory))
        end = self._offset
        count, size = len(self._entries), end - start
        if count > FILE_COUNT_LIMIT or start > ZIP64_LIMIT or size > ZIP64_LIMIT:
            self._write(_END64.pack(b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, size, start))
            self._write(_END64_LOCATOR.pack(b"PK\x06\x07", 0, end, 1))
            count, size, start = min(count, 0xFFFF), min(size, 0xFFFFFFFF), min(start, 0xFFFFFFFF)
        self._write(_END.pack(b"PK\x05\x06", 0, 0, count, count, size, start, 0))
        self._out.flush()


class Entry:
    """A file of a :class:`ZipStream` being written: deflated as it comes, then its data descriptor."""

    def __init__(self, stream: ZipStream, name: str, encoded: bytes, flags: int, offset: int) -> None:
        self._stream, self._name, self._encoded, self._flags, self._offset = stream, name, encoded, flags, offset
        self._compressor = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
        self._crc = self._size = self._compressed = 0

    def write(self, data: bytes) -> int:
        self._crc = zlib.crc32(data, self._crc)
        self._size += len(data)
        deflated = self._compressor.compress(data)
        if deflated:
            self._compressed += len(deflated)
            self._stream._write(deflated)
        return len(data)

    def close(self) -> None:
        deflated = self._compressor.flush()
        self._compressed += len(deflated)
        if self._size > ZIP64_LIMIT or self._compressed > ZIP64_LIMIT:
            raise RuntimeError(f"{self._name} is too large for a zip entry written as a stream")  # as zipfile does
        descriptor = _DESCRIPTOR.pack(_DESCRIPTOR_SIGNATURE, self._crc, self._compressed, self._size)
        self._stream._write(deflated + descriptor)
        self._stream._entries.append(
            (self._encoded, self._flags, self._crc, self._compressed, self._size, self._offset)
        )

    def __enter__(self) -> Entry:
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is None:
            self.close()


class HeldEntry:
    """A file of a :class:`ZipStream` deflated as it comes and held (deflated) until :meth:`ZipStream.put`."""

    def __init__(self, stream: ZipStream, name: str, encoded: bytes, flags: int) -> None:
        self._stream, self.name, self.encoded, self.flags = stream, name, encoded, flags
        self._compressor = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
        self._deflated: list[bytes] = []
        self.crc = self.size = self.compressed = 0

    def write(self, data: bytes) -> int:
        self.crc = zlib.crc32(data, self.crc)
        self.size += len(data)
        deflated = self._compressor.compress(data)
        if deflated:
            self.compressed += len(deflated)
            self._deflated.append(deflated)
        return len(data)

    def finish(self) -> tuple[list[bytes], bytes]:
        """The deflated parts and the data descriptor (once: the entry is then spent)."""
        deflated = self._compressor.flush()
        self.compressed += len(deflated)
        self._deflated.append(deflated)
        if self.size > ZIP64_LIMIT or self.compressed > ZIP64_LIMIT:
            raise RuntimeError(f"{self.name} is too large for a zip entry written as a stream")  # as zipfile does
        parts, self._deflated = self._deflated, []
        return parts, _DESCRIPTOR.pack(_DESCRIPTOR_SIGNATURE, self.crc, self.compressed, self.size)
