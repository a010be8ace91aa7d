"""The format registry is the one place a format is declared: every registered format is on the shelf, imported
back where it has a reader, validated where it has a checker, and documented; a format registered from outside
(a toy) shows up in every command and page that lists formats; and no code outside a format's package decides
anything by a format's name."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from moe_lms import formats, shelf
from moe_lms.cli import main
from moe_lms.formats import NO, ExportOptions, Format
from moe_lms.loader import save_bank
from moe_lms.problems import Severity

from .conftest import ROOT
from .sample_bank import sample_bank

SRC = ROOT / "src" / "moe_lms"


def _docs_reference():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import docs_reference
    finally:
        sys.path.pop(0)
    return docs_reference


def _files(fmt: Format) -> list[tuple[str, bytes]]:
    """The sample bank exported by ``fmt``: one file per locale where a file holds one, else one file."""
    bank = sample_bank()
    if fmt.one_locale_per_file or fmt.read_several:
        return [
            (f"sample.{loc}{fmt.suffix}", fmt.dump(bank, ExportOptions.for_bank(bank, (loc,)))) for loc in bank.locales
        ]
    return [(f"sample{fmt.suffix}", fmt.dump(bank, ExportOptions.for_bank(bank)))]


def _sniffed(data: bytes, name: str) -> Format | None:
    """The checker validate chooses for a file: the surest sniff."""
    scored = [(f.sniff(data, name), f) for f in formats.every() if f.check and f.sniff]
    surest = max(score for score, _ in scored)
    return next((f for score, f in scored if score == surest), None) if surest > NO else None


@pytest.mark.parametrize("name", formats.names())
def test_every_format_is_on_the_shelf_with_a_file_per_locale(name: str) -> None:
    fmt = formats.get(name)
    assert fmt.shelf is not None and fmt.shelf.label, f"{name} has no shelf entry"
    bank = sample_bank()
    plan = shelf.plan(bank)
    assert all(plan.file(name, locale) == f"{bank.id}.{locale}{fmt.suffix}" for locale in bank.locales)
    assert f"| {fmt.shelf.label} |" in shelf.readme(plan)


@pytest.mark.parametrize("name", [n for n in formats.names() if formats.get(n).read])
def test_a_format_with_a_reader_reads_its_own_export_back(name: str) -> None:
    fmt = formats.get(name)
    assert fmt.read is not None and fmt.read_help
    files = _files(fmt)
    imported = fmt.read(files if fmt.read_several else files[:1], locale=None, max_bytes=2**26)
    assert [q.id for q in imported.bank.questions] == [q.id for q in sample_bank().questions]


@pytest.mark.parametrize("name", formats.names())
def test_what_a_format_writes_is_validated_by_the_checker_its_sniff_chooses(name: str) -> None:
    fmt = formats.get(name)
    if fmt.check is not None:
        assert fmt.sniff is not None and fmt.check_what
    for file, data in _files(fmt)[:1]:
        checker = _sniffed(data, file)
        if fmt.check is not None:
            assert checker is fmt, f"validate would check {file} as {checker and checker.name}"
        if checker is not None:
            assert checker.check is not None
            errors = [p for p in checker.check(data, None, name=file) if p.severity is Severity.ERROR]
            assert not errors, errors


def test_every_format_is_documented_in_the_format_reference() -> None:
    table = _docs_reference().formats()
    for fmt in formats.every():
        assert f"| `{fmt.name}` | " in table
        if fmt.read:
            assert f"`import {fmt.name}`" in table


@pytest.fixture
def toy() -> Iterator[Format]:
    formats.register("toy", "tests.toy_format")
    try:
        yield formats.get("toy")
    finally:
        formats.unregister("toy")


def test_a_registered_format_is_exported_imported_validated_shelved_and_documented(toy: Format, tmp_path: Path) -> None:
    run = CliRunner().invoke
    bank_dir = tmp_path / "bank"
    save_bank(sample_bank(), bank_dir)
    assert "toy" in run(main, ["export", "--help"]).output
    exported = tmp_path / "sample.toy.json"
    result = run(main, ["export", "--format", "toy", str(bank_dir), "-o", str(exported)])
    assert result.exit_code == 0, result.output
    assert "toy" in run(main, ["import", "--help"]).output
    result = run(main, ["import", "toy", str(exported), "-o", str(tmp_path / "back")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "back" / "bank.yaml").is_file()
    assert "Toy file (toy)" in " ".join(run(main, ["validate", "--help"]).output.split())
    result = run(main, ["validate", str(exported)])
    assert result.exit_code == 0 and "ok (Toy file: it holds a bank)" in result.output, result.output
    assert "Toy (toy)" in " ".join(run(main, ["build", "--help"]).output.split())
    result = run(main, ["build", str(bank_dir), "--out", str(tmp_path / "shelf")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "shelf" / "sample-quiz.ur.toy.json").is_file()
    readme = (tmp_path / "shelf" / "README.md").read_text(encoding="utf-8")
    assert "| Toy |" in readme and "- **Toy LMS**: the `.toy.json` file." in readme and "## Toy LMS" in readme
    reference = _docs_reference()
    assert "| `toy` | " in reference.formats() and "`import toy`" in reference.formats()
    assert "## `moe-lms import toy`" in reference.cli()


def test_after_unregistering_the_toy_is_nowhere(toy: Format) -> None:
    formats.unregister("toy")
    try:
        assert "toy" not in CliRunner().invoke(main, ["import", "--help"]).output
        assert "toy" not in shelf.plan(sample_bank()).formats
    finally:
        formats.register("toy", "tests.toy_format")


# Code outside formats/ that may name a format, and why.
_MAY_NAME = {
    "cli/canvas.py": "push canvas is Canvas's client: --via qti sends the canvas-qti package",
    "cli/stats.py": "its results kinds (moodle, canvas) name an LMS's results reports, not export formats",
}


def _decisions_by_name(tree: ast.AST, names: set[str]) -> Iterator[int]:
    """Lines that compare with a format's name or get a format by a literal name."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(isinstance(o, ast.Constant) and o.value in names for o in operands):
                yield node.lineno
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            if any(isinstance(a, ast.Constant) and a.value in names for a in node.args):
                yield node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module and "formats" in node.module.split("."):
            parts = node.module.split(".")
            inside = parts[parts.index("formats") + 1 :]  # from ..formats.moodle import …: a format's own module
            named = [a.name.replace("_", "-") for a in node.names]  # from ..formats import moodle
            if inside or names.intersection(named):
                yield node.lineno


def test_no_code_outside_a_format_s_package_decides_by_its_name() -> None:
    names = set(formats.names())
    found = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC).as_posix()
        if relative.startswith(("formats/", "lms/")) or relative in _MAY_NAME:
            continue  # (lms/ is the Canvas client: it writes the Canvas format's payloads by design)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{relative}:{line}" for line in _decisions_by_name(tree, names)]
    assert not found
