"""moe-lms build: the ready-to-import shelf, reproducible, and --check naming every stale file."""

from __future__ import annotations

from pathlib import Path

import lxml.html
import pytest
from click.testing import CliRunner, Result

from moe_lms import formats, shelf
from moe_lms.cli import main
from moe_lms.loader import save_bank

from .sample_bank import sample_bank


@pytest.fixture
def bank_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "bank"
    save_bank(sample_bank(), directory)
    return directory


def build(bank_dir: Path, out: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["build", str(bank_dir), "--out", str(out), *args], catch_exceptions=False)


def test_build_writes_every_available_format_per_locale_and_a_readme(bank_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "exporters"
    result = build(bank_dir, out)
    assert result.exit_code == 0, result.output
    names = {p.name for p in out.iterdir()}
    assert "README.md" in names
    for locale in ("en", "ur", "vi"):
        for fmt in shelf.shelved():
            assert f"sample-quiz.{locale}{fmt.suffix}" in names
    if "moodle" in formats.names():
        assert "sample-quiz.multilang.moodle.xml" in names


def test_the_shelf_is_the_registry_s_a_format_not_registered_is_neither_a_file_nor_a_column(
    bank_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(formats._REGISTERED, "gift")
    result = build(bank_dir, tmp_path / "exporters")
    assert result.exit_code == 0, result.output
    assert not list((tmp_path / "exporters").glob("*.gift.txt"))
    readme = (tmp_path / "exporters" / "README.md").read_text(encoding="utf-8")
    assert "| GIFT |" not in readme and "GIFT keeps the texts" not in readme
    assert "| Moodle XML |" in readme and "## Moodle" in readme


def test_the_same_bank_builds_byte_identical_files(bank_dir: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    build(bank_dir, first)
    build(bank_dir, second)
    assert sorted(p.name for p in first.iterdir()) == sorted(p.name for p in second.iterdir())
    for path in first.iterdir():
        assert path.read_bytes() == (second / path.name).read_bytes(), path.name


def test_a_second_build_rewrites_nothing(bank_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "exporters"
    build(bank_dir, out)
    result = build(bank_dir, out)
    assert " 0 written" in result.output


def test_check_passes_on_a_fresh_shelf(bank_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "exporters"
    build(bank_dir, out)
    result = build(bank_dir, out, "--check")
    assert result.exit_code == 0, result.output
    assert "up to date" in result.output


def drop_vietnamese(bank_dir: Path) -> None:
    bank_yaml = bank_dir / "bank.yaml"
    bank_yaml.write_text(
        bank_yaml.read_text(encoding="utf-8").replace("target_locales:\n  - ur\n  - vi\n", "target_locales:\n  - ur\n"),
        encoding="utf-8",
    )
    (bank_dir / "locales" / "vi.po").unlink()


def test_check_names_every_changed_missing_and_extra_file_and_writes_nothing(bank_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "exporters"
    build(bank_dir, out)
    changed, missing = out / "sample-quiz.ur.html", out / "sample-quiz.en.gift.txt"
    changed.write_bytes(changed.read_bytes() + b"<!-- edited by hand -->")
    missing.unlink()
    drop_vietnamese(bank_dir)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    result = build(bank_dir, out, "--check")

    assert result.exit_code == 1
    assert "sample-quiz.ur.html: error: differs from a fresh build" in result.output
    assert "sample-quiz.en.gift.txt: error: is missing" in result.output
    assert "sample-quiz.vi.html: error: is extra" in result.output
    assert "run moe-lms build" in result.output
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_check_notices_a_change_in_the_bank(bank_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "exporters"
    build(bank_dir, out)
    bank_yaml = bank_dir / "bank.yaml"
    bank_yaml.write_text(bank_yaml.read_text(encoding="utf-8").replace("Full copies", "Whole copies"), "utf-8")
    result = build(bank_dir, out, "--check")
    assert result.exit_code == 1
    assert "sample-quiz.en.html: error: differs" in result.output


def test_build_removes_its_own_stale_files_but_leaves_others(bank_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "exporters"
    build(bank_dir, out)
    (out / "notes.txt").write_text("mine")
    drop_vietnamese(bank_dir)
    result = build(bank_dir, out)
    assert result.exit_code == 0, result.output
    assert not list(out.glob("sample-quiz.vi.*"))
    assert "removed" in result.output and "sample-quiz.vi.html" in result.output
    assert (out / "notes.txt").read_text() == "mine"
    assert "left" in result.output and "notes.txt" in result.output


# --- a shelf of several banks, and folders that are not shelves -------------------------------------------------


def second_bank(tmp_path: Path, bank_id: str = "second-quiz") -> Path:
    directory = tmp_path / bank_id
    save_bank(sample_bank(id=bank_id, title="A second quiz", target_locales=("vi",)), directory)
    return directory


def test_a_shelf_holds_several_banks_and_its_readme_lists_them_all(bank_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "exporters"
    other = second_bank(tmp_path)
    assert build(bank_dir, out).exit_code == 0
    result = build(other, out)
    assert result.exit_code == 0, result.output
    assert "left" not in result.output and "removed" not in result.output
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert readme.startswith("# Ready-to-import quiz files\n")
    assert "This folder holds 2 question banks: `sample-quiz`, `second-quiz`." in readme
    assert "## Expert parallelism for MoE serving" in readme and "## A second quiz" in readme
    assert "[`sample-quiz.ur.html`](sample-quiz.ur.html)" in readme
    assert "[`second-quiz.vi.html`](second-quiz.vi.html)" in readme
    assert readme.count("## Moodle") == 1
    # Rebuilding the first bank keeps the second's files and its part of the README.
    result = build(bank_dir, out)
    assert result.exit_code == 0 and "removed" not in result.output and "left" not in result.output
    assert (out / "second-quiz.vi.html").is_file()
    assert (out / "README.md").read_text(encoding="utf-8") == readme
    assert build(bank_dir, out, "--check").exit_code == 0
    assert build(other, out, "--check").exit_code == 0


def test_the_readme_speaks_of_every_file_on_the_shelf_whichever_bank_was_built_last(
    bank_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "exporters"
    # A bank in one language has no all-languages Moodle file; the sample bank has one.
    one_language = tmp_path / "one-language"
    bank = sample_bank()
    save_bank(bank.model_copy(update={"id": "one-language", "target_locales": (), "translations": {}}), one_language)
    assert build(bank_dir, out).exit_code == 0
    assert build(one_language, out).exit_code == 0
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert "For the all-languages file, first switch on the filter once" in readme
    assert build(bank_dir, out, "--check").exit_code == 0
    assert build(one_language, out, "--check").exit_code == 0


def test_a_folder_of_the_users_files_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    """The issue's case: build BANK --out docs, where docs holds the user's README and notes named like the bank."""
    demo = second_bank(tmp_path, "demo")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "README.md").write_text("# My course\n")
    (docs / "demo.lecture-notes.txt").write_text("my notes")
    before = {p.name: p.read_bytes() for p in docs.iterdir()}

    refused = build(demo, docs)
    assert refused.exit_code == 1
    assert "is not a moe-lms shelf" in refused.output and "pass --init" in refused.output
    assert "README.md" in refused.output and "demo.lecture-notes.txt" in refused.output
    assert {p.name: p.read_bytes() for p in docs.iterdir()} == before

    clash = build(demo, docs, "--init")
    assert clash.exit_code == 1
    assert "README.md: error: exists and moe-lms did not write it: move it away" in clash.output
    assert {p.name: p.read_bytes() for p in docs.iterdir()} == before

    (docs / "README.md").rename(tmp_path / "README.md")
    assert build(demo, docs, "--init").exit_code == 0
    assert (docs / "demo.lecture-notes.txt").read_text() == "my notes"
    again = build(demo, docs)  # now a shelf: no --init needed, and the notes are still not touched
    assert again.exit_code == 0 and (docs / "demo.lecture-notes.txt").read_text() == "my notes"
    assert "left docs/demo.lecture-notes.txt alone" in again.output.replace(str(tmp_path) + "/", "")


def test_a_shelf_an_older_moe_lms_built_is_taken_over(bank_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "exporters"
    build(bank_dir, out)
    (out / ".moe-lms-shelf.json").unlink()
    (out / "sample-quiz.de.html").write_text("a language the bank dropped")
    result = build(bank_dir, out)
    assert result.exit_code == 0, result.output
    assert not (out / "sample-quiz.de.html").exists()
    assert (out / ".moe-lms-shelf.json").is_file()


def test_a_file_of_another_bank_is_never_overwritten(bank_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "exporters"
    build(bank_dir, out)
    manifest = out / ".moe-lms-shelf.json"
    manifest.write_text(manifest.read_text().replace('"sample-quiz"', '"renamed-quiz"'))
    result = build(bank_dir, out)
    assert result.exit_code == 1
    assert "sample-quiz.en.html: error: belongs to another bank of this shelf" in result.output


def test_the_html_pages_on_the_shelf_link_each_other(bank_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "exporters"
    build(bank_dir, out)
    for page in out.glob("*.html"):
        hrefs = lxml.html.parse(str(page)).getroot().xpath("//nav[@class='languages']//a/@href")
        assert sorted(hrefs) == ["sample-quiz.en.html", "sample-quiz.ur.html", "sample-quiz.vi.html"]
        assert all((out / href).is_file() for href in hrefs)


def test_the_readme_says_which_file_to_take_for_each_language_and_how_to_import_it(
    bank_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "exporters"
    build(bank_dir, out)
    readme = (out / "README.md").read_text(encoding="utf-8")
    rows = [line for line in readme.splitlines() if line.startswith("| ") and "`" in line]
    assert [row.split("`")[1] for row in rows] == ["en", "ur", "vi"]
    assert "[`sample-quiz.ur.html`](sample-quiz.ur.html)" in rows[1]
    assert "اردو (Urdu), `ur`" in rows[1]
    assert "12 of 27 texts reviewed; the rest in English" in rows[1]
    assert "## Take the quiz in a browser" in readme
    if "moodle" in formats.names():
        assert "Question bank" in readme and "Moodle XML format" in readme
    if "qti21" in formats.names():
        assert "Import Course Content" in readme and "QTI .zip file" in readme


def test_the_readme_says_moodle_never_updates_on_reimport_and_what_gift_cannot_carry(
    bank_dir: Path, tmp_path: Path
) -> None:
    """Issue 11, items 12-13: the docs read as if Moodle updated questions on a second import; it never does."""
    out = tmp_path / "exporters"
    build(bank_dir, out)
    readme = " ".join((out / "README.md").read_text(encoding="utf-8").split())
    assert "Importing again never updates questions" in readme
    assert "import it into a new, empty category" in readme
    assert "`// [id:…] [tag:…]`" in readme
    assert "no place for the overall feedback messages" in readme


# --- the files are written in parallel, one process per core (issue 13, target 3) ----------------------------------


@pytest.mark.parametrize("jobs", ["2", "3"])
def test_a_parallel_build_writes_the_bytes_a_one_process_build_writes(
    bank_dir: Path, tmp_path: Path, jobs: str
) -> None:
    alone, parallel = tmp_path / "alone", tmp_path / "parallel"
    assert build(bank_dir, alone, "--jobs", "1").exit_code == 0
    result = build(bank_dir, parallel, "--jobs", jobs)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in alone.iterdir()) == sorted(p.name for p in parallel.iterdir())
    for path in alone.iterdir():
        assert path.read_bytes() == (parallel / path.name).read_bytes(), path.name
    assert build(bank_dir, parallel, "--check", "--jobs", jobs).exit_code == 0


def test_a_parallel_check_names_the_stale_files_in_the_order_a_one_process_check_does(
    bank_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "exporters"
    build(bank_dir, out)
    drop_vietnamese(bank_dir)
    alone = build(bank_dir, out, "--check", "--jobs", "1")
    parallel = build(bank_dir, out, "--check", "--jobs", "2")
    assert alone.exit_code == parallel.exit_code == 1
    assert "differs from a fresh build" in parallel.output
    assert parallel.output == alone.output


def test_a_problem_met_in_a_worker_reaches_the_user_as_a_clear_message(tmp_path: Path) -> None:
    bank = sample_bank()
    long = bank.questions[0].model_copy(update={"explanation": "x" * 6000})  # over Canvas's limit of 5120
    directory = tmp_path / "bank"
    save_bank(bank.model_copy(update={"questions": (long, *bank.questions[1:])}), directory)
    result = build(directory, tmp_path / "exporters", "--jobs", "2")
    assert result.exit_code == 1
    assert f"question '{long.id}'" in result.output and "limit of 5120" in result.output
    assert "Traceback" not in result.output


def test_a_file_a_worker_cannot_write_is_named_in_one_line(bank_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "exporters"
    (out / "sample-quiz.vi.gift.txt").mkdir(parents=True)  # a folder where a file of the shelf goes
    result = CliRunner().invoke(main, ["build", str(bank_dir), "--out", str(out), "--jobs", "2"])
    assert result.exit_code == 1
    assert "cannot write" in result.output and "sample-quiz.vi.gift.txt: it is a folder" in result.output
    assert "Traceback" not in result.output


def test_many_parallel_builds_in_a_row_all_finish(tmp_path: Path) -> None:
    """Pool.terminate at the end of each build used to leave, now and then, a worker waiting for ever on the task
    queue's lock, and the build with it (within 300 builds here). Run in a child so a hang is a failure, not a
    stuck test run; the limit is far above the few seconds this takes."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from click.testing import CliRunner
        from moe_lms.cli import main
        from moe_lms.loader import save_bank
        from tests.sample_bank import sample_bank
        folder = Path({str(tmp_path)!r})
        save_bank(sample_bank(), folder / "bank")
        for i in range(300):
            args = ["build", str(folder / "bank"), "--out", str(folder / f"out{{i % 3}}"), "--jobs", "2"]
            assert CliRunner().invoke(main, args, catch_exceptions=False).exit_code == 0
        """
    )
    root = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-c", script], cwd=root, check=True, timeout=600)


def test_a_bug_in_a_worker_is_raised_with_its_traceback_once_the_other_files_are_written(tmp_path: Path) -> None:
    # The worker sends the error back; the pool is closed, never terminated (Pool.terminate can hang).
    from typing import BinaryIO

    from moe_lms.shelf_pool import WorkerTraceback, write_files

    def broken(out: BinaryIO) -> None:
        raise RuntimeError("a bug in a writer")

    def fine(out: BinaryIO) -> None:
        out.write(b"written")

    writers = [("a.txt", fine), ("b.txt", broken), ("c.txt", fine)]
    with pytest.raises(RuntimeError, match="a bug in a writer") as caught:
        list(write_files(tmp_path, writers, replace=True, jobs=2))
    assert isinstance(caught.value.__cause__, WorkerTraceback)
    assert "in broken" in str(caught.value.__cause__)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "c.txt"]


ARITHMETIC = Path(__file__).resolve().parents[1] / "question_bank" / "moe-serving-arithmetic"


def test_the_readme_names_the_folder_the_bank_was_built_from_never_a_path_it_does_not_have(tmp_path: Path) -> None:
    """The newcomer review's case: a bank in photosynthesis/ whose id is another name; the README used to say
    question_bank/<id>/ whatever the folder was."""
    courses = tmp_path / "courses"
    save_bank(sample_bank(), courses / "photosynthesis")
    assert build(courses / "photosynthesis", courses / "shelf").exit_code == 0
    beside = (courses / "shelf" / "README.md").read_text(encoding="utf-8")
    assert "from `photosynthesis/`" in beside and "question_bank/" not in beside
    (tmp_path / "elsewhere").mkdir()
    assert build(courses / "photosynthesis", tmp_path / "elsewhere" / "shelf").exit_code == 0
    away = (tmp_path / "elsewhere" / "shelf" / "README.md").read_text(encoding="utf-8")
    assert "from `photosynthesis/`" in away and str(tmp_path) not in away
    nested = tmp_path / "repo" / "question_bank" / "photosynthesis"
    save_bank(sample_bank(), nested)
    assert build(nested, tmp_path / "repo" / "exporters").exit_code == 0
    readme = (tmp_path / "repo" / "exporters" / "README.md").read_text(encoding="utf-8")
    assert "from `question_bank/photosynthesis/`" in readme


def test_the_readme_says_what_the_shelf_leaves_out_of_a_bank_with_an_image_and_code(tmp_path: Path) -> None:
    """GIFT files without the diagram, and no all-languages Moodle file because of the code block: both used to go
    unsaid (newcomer review, item 12)."""
    assert build(ARITHMETIC, tmp_path / "shelf").exit_code == 0
    readme = (tmp_path / "shelf" / "README.md").read_text(encoding="utf-8")
    assert "Without images: [`moe-serving-arithmetic.en.gift.txt`]" in readme
    assert "(GIFT cannot carry them). Each shows the alt text of `media/dispatch-combine.svg`" in readme
    assert "No all-languages Moodle file for this bank: its code blocks" in readme
    assert not list((tmp_path / "shelf").glob("*.multilang.moodle.xml"))


def test_a_bank_the_shelf_leaves_nothing_out_of_gets_no_such_sentence(bank_dir: Path, tmp_path: Path) -> None:
    assert build(bank_dir, tmp_path / "shelf").exit_code == 0
    readme = (tmp_path / "shelf" / "README.md").read_text(encoding="utf-8")
    assert "Without images" not in readme and "No all-languages Moodle file" not in readme
