"""Every number read from a package goes through one parser: ASCII digits, a range, a length; anything else is an
error naming the file and the element, never a traceback. ``str.isdigit()`` says yes to "²", which ``int()``
refuses, and ``int()`` refuses 5,000 digits too."""

from __future__ import annotations

import io
import re
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from moe_lms.cli import main
from moe_lms.formats import ExportOptions, get

from .. import quiz_bank

HOSTILE = {
    "superscript two": "²",
    "5,000 digits": "9" * 5000,
    "negative": "-3",
    "a fraction": "2.5",
    "an exponent": "1e2",
}


def package(fmt: str) -> bytes:
    bank = quiz_bank.quiz_bank()
    return get(fmt).dump(bank, ExportOptions.for_bank(bank, ("en",), quiz="midterm"))


def edit_zip(data: bytes, edit: Callable[[str, bytes], bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            target.writestr(info.filename, edit(info.filename, source.read(info)))
    return out.getvalue()


def edit_tar(data: bytes, edit: Callable[[str, bytes], bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as source, tarfile.open(fileobj=out, mode="w:gz") as tar:
        for member in source:
            extracted = source.extractfile(member)
            body = edit(member.name, extracted.read()) if extracted is not None else b""
            member.size = len(body)
            tar.addfile(member, io.BytesIO(body) if extracted is not None else None)
    return out.getvalue()


def replacing(pattern: str, value: str) -> Callable[[str, bytes], bytes]:
    """An edit putting ``value`` in the first place ``pattern`` (with one group: the number) matches."""

    def edit(name: str, body: bytes) -> bytes:
        text = body.decode("utf-8")
        match = re.search(pattern, text)
        if match is None:
            return body
        return (text[: match.start(1)] + value + text[match.end(1) :]).encode("utf-8")

    return edit


CASES = {  # format, suffix, where the number is, what the error names
    "qti21 select": ("qti21", "zip", r'<selection select="(\d+)"', "select"),
    "qti21 maxAttempts": ("qti21", "zip", r'maxAttempts="(\d+)"', "maxAttempts"),
    "qti3 select": ("qti3", "zip", r'<qti-selection select="(\d+)"', "select"),
    "qti3 max-attempts": ("qti3", "zip", r'max-attempts="(\d+)"', "max-attempts"),
    "olx max_count": ("olx", "tar.gz", r'max_count="(\d+)"', "max_count"),
    "olx time limit": ("olx", "tar.gz", r'default_time_limit_minutes="(\d+)"', "default_time_limit_minutes"),
    "canvas-qti selection_number": ("canvas-qti", "zip", r"<selection_number>(\d+)<", "selection_number"),
    "canvas-qti cc_maxattempts": (
        "canvas-qti",
        "zip",
        r"cc_maxattempts</fieldlabel>\s*<fieldentry>(\d+)<",
        "cc_maxattempts",
    ),
}


@pytest.fixture(scope="module")
def packages() -> dict[str, bytes]:
    return {fmt: package(fmt) for fmt in ("qti21", "qti3", "olx", "canvas-qti")}


@pytest.mark.parametrize("value", HOSTILE.values(), ids=HOSTILE.keys())
@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_a_number_that_is_not_one_is_an_error_naming_the_file_and_the_element(
    tmp_path: Path, packages: dict[str, bytes], case: tuple[str, str, str, str], value: str
) -> None:
    fmt, suffix, pattern, name = case
    edit = replacing(pattern, value)
    data = edit_tar(packages[fmt], edit) if suffix == "tar.gz" else edit_zip(packages[fmt], edit)
    assert data != packages[fmt]
    path = tmp_path / f"hostile.{suffix}"
    path.write_bytes(data)
    result = CliRunner().invoke(main, ["import", fmt, str(path), "-o", str(tmp_path / "bank")])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1, result.output
    assert name in result.output and "whole number" in result.output
    assert str(path) in result.output
    assert not (tmp_path / "bank" / "bank.yaml").exists()


def test_the_parser_takes_ascii_digits_within_its_range_and_nothing_else() -> None:
    from moe_lms.numbers_in import BadNumber, whole_number

    assert whole_number("12", low=0, high=100, file="f", what="select") == 12
    assert whole_number(" 7 ", low=0, high=100, file="f", what="select") == 7
    assert whole_number(None, low=0, high=100, file="f", what="select") is None
    assert whole_number("", low=0, high=100, file="f", what="select") is None
    assert whole_number("-1", low=-1, high=100, file="f", what="max_count") == -1
    for bad in ("²", "١٢", "1_000", "101", "1e2", "9" * 5000, "+-1", "0x10"):
        with pytest.raises(BadNumber, match=r"f:3: .*select.*is not a whole number from 0 to 100"):
            whole_number(bad, low=0, high=100, file="f", line=3, what="select")
