"""An OLX course tree is followed as Open edX follows it, each file once: a block that contains itself is a clear
error (not a RecursionError), and pointers that fan out (100 × 100 × 90 references to three files, in an archive
of a few hundred bytes) are refused at once instead of being walked for a minute."""

from __future__ import annotations

import io
import tarfile
import time
from pathlib import Path

from click.testing import CliRunner

from moe_lms.cli import main

PROBLEM = (
    '<problem display_name="Q"><multiplechoiceresponse><label>Which?</label><choicegroup type="MultipleChoice">'
    '<choice correct="true">A<choicehint>Yes.</choicehint></choice><choice correct="false">B<choicehint>No.'
    "</choicehint></choice></choicegroup></multiplechoiceresponse><solution>Because.</solution></problem>"
)


def archive(files: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(f"course/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def course(**files: str) -> dict[str, str]:
    return {
        "course.xml": '<course course="c" org="o" display_name="C"><chapter url_name="ch"/></course>',
        "chapter/ch.xml": '<chapter display_name="Ch"><sequential url_name="s"/></chapter>',
        **{name.replace("__", "/") + ".xml": text for name, text in files.items()},
    }


def import_olx(tmp_path: Path, files: dict[str, str]) -> tuple[int, str, float]:
    path = tmp_path / "course.tar.gz"
    path.write_bytes(archive(files))
    began = time.perf_counter()
    result = CliRunner().invoke(main, ["import", "olx", str(path), "-o", str(tmp_path / "bank")])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.output, time.perf_counter() - began


def test_a_vertical_that_contains_itself_is_a_cycle_named_in_the_error(tmp_path: Path) -> None:
    files = course(
        sequential__s='<sequential><vertical url_name="v"/></sequential>',
        vertical__v='<vertical><vertical url_name="v"/></vertical>',
    )
    code, output, _ = import_olx(tmp_path, files)
    assert code == 1 and "cycle" in output and "vertical/v.xml" in output


def test_a_sequential_that_names_its_own_chapter_is_a_cycle(tmp_path: Path) -> None:
    files = course(sequential__s='<sequential><chapter url_name="ch"/></sequential>')
    code, output, _ = import_olx(tmp_path, files)
    assert code == 1 and "cycle" in output and "chapter/ch.xml" in output


def test_pointers_fanning_out_to_one_file_are_refused_at_once(tmp_path: Path) -> None:
    files = {
        "course.xml": '<course course="c" org="o" display_name="C"><chapter url_name="ch"/></course>',
        "chapter/ch.xml": "<chapter>" + '<sequential url_name="s"/>' * 100 + "</chapter>",
        "sequential/s.xml": "<sequential>" + '<vertical url_name="v"/>' * 100 + "</sequential>",
        "vertical/v.xml": "<vertical>" + '<problem url_name="p"/>' * 90 + "</vertical>",
        "problem/p.xml": PROBLEM,
    }
    assert len(archive(files)) < 1000
    code, output, seconds = import_olx(tmp_path, files)
    assert code == 1 and "named a second time" in output
    assert seconds < 5


def test_a_course_whose_blocks_each_appear_once_still_imports(tmp_path: Path) -> None:
    files = course(
        sequential__s='<sequential><vertical url_name="v"/></sequential>',
        vertical__v='<vertical><problem url_name="p"/><problem url_name="p2"/></vertical>',
        problem__p=PROBLEM,
        problem__p2=PROBLEM,
    )
    code, output, _ = import_olx(tmp_path, files)
    assert code == 0, output
