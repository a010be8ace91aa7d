"""Zip packages from outside, read with limits (the ones we write are :mod:`moe_lms.zipout`'s).

A package from outside is checked before anything in it is read (declared file count, zip-slip paths, symbolic
links, encryption, compression methods, declared and actual sizes), and its XML goes through
:mod:`moe_lms.xmlsafe`. Every importer of a zip package (QTI 2.1, Common Cartridge, Canvas QTI) reads through here.
"""

from __future__ import annotations

import io
import posixpath
import re
import struct
import zipfile

from lxml import etree

from .problems import MoeLmsError
from .xmlsafe import Budget, UnsafeXmlError, parse_untrusted

# Limits for packages that come from outside.
MAX_PACKAGE_BYTES = 512 * 1024 * 1024
MAX_FILES = 100_000
MAX_ENTRY_BYTES = 16 * 1024 * 1024
MAX_TOTAL_BYTES = 512 * 1024 * 1024
# What parsing may build, whatever the bytes: a deflated member of a few KB can hold millions of elements, each
# a node in memory and more once converted. Every XML member of a package is counted against one total (a
# 10,000-question bank in 3 locales has about 3 million elements), each member at most MAX_MEMBER_ELEMENTS
# unless its reader asks for less (a QTI 2.1 item: qti21.MAX_ITEM_ELEMENTS), nested at most MAX_XML_DEPTH.
MAX_PACKAGE_ELEMENTS = 10_000_000
MAX_MEMBER_ELEMENTS = 4_000_000  # the manifest of MAX_FILES files, or a question bank holding them all
MAX_XML_DEPTH = 100
# An item is one question: the largest real one (MathML, an SVG inline) is tens of KB. Its reader holds its text
# several times over as it turns it into Markdown, and 30 items of 15 MiB took 3.9 GiB and ten minutes; an item
# over this many bytes (declared, or found as it inflates) is refused before it is read.
MAX_ITEM_BYTES = 2 * 1024 * 1024


# --- reading packages from outside -----------------------------------------------------------------------------


class UnsafePackage(MoeLmsError, ValueError):
    """The package is not a zip we are willing to read: too big, too many files, a path that escapes, …"""


_EOCD = b"PK\x05\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_EOCD = b"PK\x06\x06"


def _declared_entry_count(data: bytes) -> int:
    """The file count the zip's end record declares, read before zipfile builds an object per entry."""
    at = data.rfind(_EOCD, max(0, len(data) - 65_557))
    if at < 0 or len(data) < at + 22:
        raise UnsafePackage("not a zip file (no end-of-central-directory record)")
    count = struct.unpack_from("<H", data, at + 10)[0]
    locator = at - 20
    if locator >= 0 and data[locator : locator + 4] == _ZIP64_LOCATOR:
        offset = struct.unpack_from("<Q", data, locator + 8)[0]
        if offset + 56 <= len(data) and data[offset : offset + 4] == _ZIP64_EOCD:
            count = max(count, struct.unpack_from("<Q", data, offset + 32)[0])
    return int(count)


def safe_member_name(name: str) -> bool:
    """A relative path that stays inside the package: no absolute path, drive, backslash, ``..`` or empty part."""
    if not name or name.startswith("/") or "\\" in name or "\x00" in name or re.match(r"^[A-Za-z]:", name):
        return False
    parts = name.rstrip("/").split("/")
    return all(part not in ("", ".", "..") for part in parts)


class SafeZip:
    """A zip from outside, checked before anything in it is read; members are read with size limits."""

    def __init__(
        self,
        data: bytes,
        *,
        max_files: int = MAX_FILES,
        max_entry_bytes: int = MAX_ENTRY_BYTES,
        max_total_bytes: int = MAX_TOTAL_BYTES,
    ) -> None:
        if len(data) > MAX_PACKAGE_BYTES:
            raise UnsafePackage(f"the package is {len(data):,} bytes; the limit is {MAX_PACKAGE_BYTES:,}")
        declared = _declared_entry_count(data)
        if declared > max_files:
            raise UnsafePackage(f"the package declares {declared:,} files; the limit is {max_files:,}")
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as exc:
            raise UnsafePackage(f"not a readable zip file: {exc}") from None
        infos = self._zip.infolist()
        if len(infos) > max_files:
            raise UnsafePackage(f"the package holds {len(infos):,} files; the limit is {max_files:,}")
        self.max_entry_bytes = max_entry_bytes
        self.elements_left = MAX_PACKAGE_ELEMENTS
        self.infos: dict[str, zipfile.ZipInfo] = {}
        total = 0
        for info in infos:
            name = info.filename
            if not safe_member_name(name):
                raise UnsafePackage(f"refused: member {name[:200]!r} has a path outside the package (zip-slip)")
            if (info.external_attr >> 16) & 0o170000 == 0o120000:
                raise UnsafePackage(f"refused: member {name!r} is a symbolic link")
            if info.flag_bits & 0x1:
                raise UnsafePackage(f"refused: member {name!r} is encrypted")
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise UnsafePackage(f"refused: member {name!r} uses compression method {info.compress_type}")
            if info.file_size > max_entry_bytes:
                raise UnsafePackage(
                    f"refused: member {name!r} declares {info.file_size:,} bytes; the limit is {max_entry_bytes:,}"
                )
            total += info.file_size
            if total > max_total_bytes:
                raise UnsafePackage(f"refused: the files declare more than {max_total_bytes:,} bytes in all")
            if name in self.infos:
                raise UnsafePackage(f"refused: member {name!r} appears twice")
            if not info.is_dir():
                self.infos[name] = info

    @property
    def names(self) -> list[str]:
        return list(self.infos)

    def read(self, name: str, *, max_bytes: int | None = None) -> bytes:
        """A member's bytes, counting what is really inflated (a lying declared size is caught too); ``max_bytes``:
        a lower limit for this member (an item's :data:`MAX_ITEM_BYTES`)."""
        info = self.infos[name]
        if max_bytes is not None and info.file_size > max_bytes:
            raise UnsafePackage(
                f"refused: member {name!r} declares {info.file_size:,} bytes; the limit is {max_bytes:,}"
            )
        limit = min(info.file_size, self.max_entry_bytes)
        chunks, size = [], 0
        try:
            with self._zip.open(info) as member:
                while chunk := member.read(1 << 16):
                    size += len(chunk)
                    if size > limit:
                        raise UnsafePackage(f"refused: member {name!r} inflates past its declared size")
                    chunks.append(chunk)
        except (zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
            if isinstance(exc, UnsafePackage):
                raise
            raise UnsafePackage(f"member {name!r} is damaged: {exc}") from None
        return b"".join(chunks)

    def xml(
        self, name: str, *, max_elements: int = MAX_MEMBER_ELEMENTS, max_bytes: int | None = None
    ) -> etree._Element:
        """A member parsed within ``max_elements`` and what is left of the package's total: refused as soon as the
        parser passes either, with the line it had reached. ``max_bytes``: as for :meth:`read`."""
        budget = Budget(min(max_elements, self.elements_left), MAX_XML_DEPTH)
        try:
            root = parse_untrusted(self.read(name, max_bytes=max_bytes), max_bytes=self.max_entry_bytes, budget=budget)
        except UnsafeXmlError as exc:
            if budget.max_elements < max_elements and "elements; refused" in exc.message:
                message = f"refused: the package's XML files hold more than {MAX_PACKAGE_ELEMENTS:,} elements in all"
                raise UnsafePackage(message) from None
            raise
        self.elements_left -= sum(1 for _ in root.iter())
        return root


def resolve_href(base_file: str, href: str) -> str | None:
    """The package path ``href`` names, relative to ``base_file``; None if it leaves the package or is a URL."""
    if not href or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", href) or href.startswith("/") or "\\" in href:
        return None
    path = posixpath.normpath(posixpath.join(posixpath.dirname(base_file), href.split("#")[0]))
    return path if safe_member_name(path) else None
