"""A QTI package is refused by what parsing it would build, not only by its byte sizes: a 40 KB zip of two
million <p> took 4 GB and five minutes to import."""

from __future__ import annotations

from pathlib import Path

import pytest

from moe_lms import zipsafe
from moe_lms.formats import qti21
from moe_lms.problems import ProblemsFound

from .limited import run_capped
from .qti_support import export, members, rezip, rich_bank

ITEM = "items/single-md-en.xml"


def _with_prompt_content(content: str, item: str = ITEM) -> bytes:
    files = members(export(rich_bank(), ["en"]))
    data = files[item].decode()
    at = data.index("<prompt>") + len("<prompt>")
    files[item] = (data[:at] + content + data[at:]).encode()
    return rezip(files)


def _problems(package: bytes) -> list[str]:
    with pytest.raises(ProblemsFound) as caught:
        qti21.read_package(package, name="p.zip")
    return [str(p) for p in caught.value.problems]


def test_an_item_of_a_quarter_million_paragraphs_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    package = tmp_path / "p.zip"
    package.write_bytes(_with_prompt_content("<p>x</p>" * 250_000))  # (within zipsafe.MAX_ITEM_BYTES)
    assert package.stat().st_size < 100_000  # within every size limit
    result = run_capped("import", "qti21", str(package), "-o", str(tmp_path / "bank"))
    assert result.returncode == 1, result.stderr[-2000:]
    assert f"p.zip!/{ITEM}:" in result.stderr
    assert f"error: more than {qti21.MAX_ITEM_ELEMENTS:,} elements; refused" in result.stderr
    assert not (tmp_path / "bank").exists()


def test_the_line_where_the_item_passes_its_element_budget_is_named() -> None:
    package = _with_prompt_content("<p>x</p>\n" * (qti21.MAX_ITEM_ELEMENTS + 10))
    [problem] = _problems(package)
    line = int(problem.split(f"{ITEM}:")[1].split(":")[0])
    assert 1 < line < qti21.MAX_ITEM_ELEMENTS + 100
    assert problem.endswith(f"more than {qti21.MAX_ITEM_ELEMENTS:,} elements; refused")


def test_an_item_nested_deeper_than_the_budget_is_refused() -> None:
    depth = zipsafe.MAX_XML_DEPTH + 20
    [problem] = _problems(_with_prompt_content("<span>" * depth + "x" + "</span>" * depth))
    assert f"elements nested more than {zipsafe.MAX_XML_DEPTH} deep; refused" in problem


def test_rich_content_within_the_budget_imports() -> None:
    table = "<table><tbody>" + "<tr><td>a</td><td>b</td></tr>" * 300 + "</tbody></table>"
    bank, _ = qti21.read_package(_with_prompt_content(table), name="p.zip")
    assert bank.question("single-md").stem.count("<td>a</td><td>b</td>") == 300  # 1,200 elements


def test_items_within_their_own_budget_are_refused_once_the_package_passes_its_total(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(zipsafe, "MAX_PACKAGE_ELEMENTS", 200)  # the rich bank's XML files hold 374 in all
    problems = _problems(export(rich_bank(), ["en"]))
    assert any("the package's XML files hold more than 200 elements in all" in p for p in problems)
