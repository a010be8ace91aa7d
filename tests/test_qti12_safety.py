"""Hostile packages are refused by the Common Cartridge and Canvas QTI importers as the QTI 2.1 importer refuses them:
paths that leave the package, symbolic links, entities (billion laughs, external), zip bombs; both read through
zipsafe.SafeZip, whose file-count and total-size limits tests/test_qti21_import.py pins."""

from __future__ import annotations

import io
import struct
import zipfile
from collections.abc import Callable

import pytest

from moe_lms.formats.canvas_qti import read as canvas_read
from moe_lms.formats.cc11 import read as cc11_read
from moe_lms.model import Bank
from moe_lms.problems import Problem, ProblemsFound

from .qti12_support import export, members, rezip
from .sample_bank import sample_bank

Reader = Callable[..., tuple[Bank, list[Problem]]]
FORMATS = {"cc11": (cc11_read.read_package, "quiz-en/assessment.xml"), "canvas-qti": (canvas_read.read_package, "")}


@pytest.fixture(params=list(FORMATS))
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def package_files(kind: str) -> tuple[Reader, dict[str, bytes], str]:
    """The importer, the files of a good one-locale package, and the name of its QTI file."""
    reader, qti = FORMATS[kind]
    files = members(export(kind, sample_bank(), ["en"]))
    return reader, files, qti or "sample-quiz-en/sample-quiz-en.xml"


def refusal(reader: Reader, package: bytes) -> str:
    with pytest.raises(ProblemsFound) as info:
        reader(package, name="evil.zip")
    return "\n".join(str(p) for p in info.value.problems)


def test_the_untouched_package_imports(kind: str) -> None:
    reader, files, _ = package_files(kind)
    bank, _ = reader(rezip(files), name="good.zip")
    assert len(bank.questions) == 3


ESCAPES = ["../evil.xml", "/etc/passwd", "items/../../evil.xml", "C:/evil.xml", "a\\..\\evil.xml"]


@pytest.mark.parametrize("name", ESCAPES)
def test_a_member_whose_path_leaves_the_package_is_refused(kind: str, name: str) -> None:
    reader, files, _ = package_files(kind)
    assert "zip-slip" in refusal(reader, rezip({**files, name: b"<x/>"}))


def test_a_symbolic_link_is_refused(kind: str) -> None:
    reader, files, _ = package_files(kind)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
        link = zipfile.ZipInfo("quiz/link.xml")
        link.external_attr = 0o120777 << 16
        z.writestr(link, b"/etc/passwd")
    assert "symbolic link" in refusal(reader, buf.getvalue())


def test_a_manifest_file_that_leaves_the_package_is_never_read(kind: str) -> None:
    reader, files, _ = package_files(kind)
    files["imsmanifest.xml"] = files["imsmanifest.xml"].replace(b'href="', b'href="../../')
    assert "no choice question" in refusal(reader, rezip(files))


def test_billion_laughs_in_the_manifest_are_refused(kind: str) -> None:
    reader, files, _ = package_files(kind)
    files["imsmanifest.xml"] = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<manifest xmlns="http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1" identifier="&lol2;"/>"""
    message = refusal(reader, rezip(files))
    assert "DOCTYPE" in message and "evil.zip" in message


def test_an_external_entity_in_a_qti_file_is_refused_and_nothing_is_fetched(kind: str) -> None:
    reader, files, qti = package_files(kind)
    files[qti] = (
        files[qti]
        .replace(
            b"<?xml version='1.0' encoding='UTF-8'?>",
            b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY secret SYSTEM "file:///etc/passwd">]>',
        )
        .replace(b"<fieldentry>", b"<fieldentry>&secret;", 1)
    )
    message = refusal(reader, rezip(files))
    assert f"evil.zip!/{qti}" in message and "DOCTYPE" in message and "root:" not in message


def _patch_sizes(package: bytes, name: bytes, size: int) -> bytes:
    """Rewrite the uncompressed size a zip declares for ``name`` in its local and central headers."""
    data = bytearray(package)
    for signature, name_at, size_at, header in ((b"PK\x03\x04", 26, 22, 30), (b"PK\x01\x02", 28, 24, 46)):
        at = data.find(signature)
        while at >= 0:
            length = struct.unpack_from("<H", data, at + name_at)[0]
            if data[at + header : at + header + length] == name:
                struct.pack_into("<I", data, at + size_at, size)
            at = data.find(signature, at + 4)
    return bytes(data)


def test_a_member_declaring_1_gb_is_refused_before_anything_is_inflated(kind: str) -> None:
    reader, files, qti = package_files(kind)
    message = refusal(reader, _patch_sizes(rezip(files), qti.encode(), 1 << 30))
    assert "declares 1,073,741,824 bytes" in message


def test_a_member_that_inflates_past_its_declared_size_is_refused(kind: str) -> None:
    reader, files, qti = package_files(kind)
    files[qti] += b" " * 100_000
    message = refusal(reader, _patch_sizes(rezip(files), qti.encode(), 1000))
    assert qti in message and ("damaged" in message or "declared size" in message)


def test_something_that_is_not_a_zip_and_a_zip_without_a_manifest_are_clear_errors(kind: str) -> None:
    reader, files, qti = package_files(kind)
    assert "not a zip file" in refusal(reader, b"<html>not a package</html>")
    assert "no imsmanifest.xml" in refusal(reader, rezip({qti: files[qti]}))
