"""The command line: exit codes scripts can rely on (0 ok, 1 problems, 2 usage), and what users read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from moe_lms import __version__
from moe_lms.cli import main
from moe_lms.files import OutputError
from moe_lms.formats.gift import GiftSyntaxError
from moe_lms.lms.canvas_client import CanvasError
from moe_lms.media import MediaError
from moe_lms.merge import MergeError
from moe_lms.model import QuizError
from moe_lms.po import PoSyntaxError
from moe_lms.problems import MoeLmsError, OptionError, ProblemsFound
from moe_lms.richtext import FormulaError
from moe_lms.schemas import SchemaError
from moe_lms.xmlsafe import UnsafeXmlError
from moe_lms.zipsafe import UnsafePackage

from .conftest import SHIPPED_BANK_DIR


@pytest.fixture
def bank_copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(SHIPPED_BANK_DIR, tmp_path / "bank"))


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_version() -> None:
    assert run("--version") == (0, f"moe-lms, version {__version__}\n")


def test_check_reports_every_error_with_file_and_line_and_exits_1(bank_copy: Path) -> None:
    yaml_path = bank_copy / "bank.yaml"
    text = yaml_path.read_text(encoding="utf-8")
    text = text.replace("    stem: Which communication pattern", "    stemm: Which communication pattern", 1)
    text = text.replace("  - id: moe-sparse-compute", "  - id: ep-distributes", 1)
    yaml_path.write_text(text, encoding="utf-8")
    code, output = run("check", str(bank_copy))
    assert code == 1
    assert "bank.yaml:" in output
    assert "question 'ep-communication': unknown key 'stemm' (did you mean 'stem'?)" in output
    assert "question 'ep-distributes': question id 'ep-distributes' is used more than once" in output
    assert "error(s)." in output


def test_check_strict_fails_on_missing_translations(bank_copy: Path) -> None:
    po = bank_copy / "locales" / "vi.po"
    intro = 'msgstr "Câu trả lời và giải thích xuất hiện khi bạn làm bài kiểm tra."'
    po.write_text(po.read_text(encoding="utf-8").replace(intro, 'msgstr ""'), encoding="utf-8")
    drafts = po.read_text(encoding="utf-8").count("\n#, fuzzy\n")  # any awaiting their review in the shipped bank
    assert run("check", str(bank_copy))[0] == 0
    code, output = run("check", "--strict", str(bank_copy))
    assert code == 1
    assert (
        f"1 missing, 0 stale and {drafts} draft translation(s): --strict needs every learner-visible string" in output
    )
    intro_line = po.read_text(encoding="utf-8").splitlines().index('msgctxt "intro"') + 1
    assert f"vi.po:{intro_line}: error: 'intro': review: not translated: learners read the source text" in output


def test_check_names_text_that_renders_to_nothing_which_every_export_would_refuse(bank_copy: Path) -> None:
    yaml_path = bank_copy / "bank.yaml"
    text = yaml_path.read_text(encoding="utf-8")
    yaml_path.write_text(text.replace("text: Only individual attention heads", "text: <!-- heads() -->"))
    po = bank_copy / "locales" / "ur.po"
    po_text = po.read_text(encoding="utf-8")
    po.write_text(po_text.replace('msgstr "صرف انفرادی اٹینشن ہیڈز"', 'msgstr "<!-- سربراہ -->"'), encoding="utf-8")
    po_line = po_text.splitlines().index('msgctxt "ep-distributes/choices/b/text"') + 1
    code, output = run("check", str(bank_copy))
    assert code == 1
    yaml_line = text.splitlines().index("        text: Only individual attention heads") + 1
    assert (
        f"bank.yaml:{yaml_line}:15: error: question 'ep-distributes', choice 'b': the text renders to no text at all"
        in output
    )
    assert (
        f"ur.po:{po_line}: error: question 'ep-distributes', choice 'b': the ur translation of the text renders"
        in output
    )
    assert run("export", "--format", "moodle", str(bank_copy), "-o", "-")[0] == 1  # what check warned of


def test_not_a_bank_directory_is_a_usage_error(tmp_path: Path) -> None:
    code, output = run("check", str(tmp_path))
    assert code == 2
    assert f"no bank here: {tmp_path} has no bank.yaml (or bank.yml)" in output


def test_schema_is_json_schema_of_bank_yaml() -> None:
    code, output = run("schema")
    assert code == 0
    schema = json.loads(output)
    assert schema["title"] == "moe-lms bank.yaml"
    assert "translations" not in schema["properties"]
    assert schema["$defs"]["Choice"]["required"] == ["id", "explanation"]
    assert schema["$defs"]["Choice"]["additionalProperties"] is False
    # A choice needs its text, but a numerical question's, which has a value and no text (issue 30).
    question = schema["$defs"]["Question"]
    assert question["if"]["properties"]["kind"] == {"const": "numerical"}
    assert question["then"]["properties"]["choices"]["items"] == {"required": ["value"], "not": {"required": ["text"]}}
    assert question["else"]["properties"]["choices"]["items"] == {"required": ["text"]}


def test_translations_update_resyncs_po_files_like_msgmerge(bank_copy: Path) -> None:
    yaml_path = bank_copy / "bank.yaml"
    text = yaml_path.read_text(encoding="utf-8")
    yaml_path.write_text(
        text.replace("stem: What does expert parallelism distribute across GPUs?", "stem: What does EP shard?"),
        encoding="utf-8",
    )
    code, output = run("translations", "update", str(bank_copy))
    assert code == 0, output
    assert "ur: 0 added, 1 marked fuzzy (source changed), 0 made obsolete" in output
    ur = (bank_copy / "locales" / "ur.po").read_text(encoding="utf-8")
    assert '#| msgid "What does expert parallelism distribute across GPUs?"' in ur
    code, output = run("check", str(bank_copy))
    assert code == 0
    again = CliRunner().invoke(main, ["translations", "update", str(bank_copy)])
    assert again.stdout.startswith("ur: 0 added, 0 marked fuzzy")


def test_translations_update_leaves_an_unchanged_bank_byte_identical(bank_copy: Path) -> None:
    before = {p.name: p.read_bytes() for p in (bank_copy / "locales").iterdir()}
    assert run("translations", "update", str(bank_copy))[0] == 0
    assert {p.name: p.read_bytes() for p in (bank_copy / "locales").iterdir()} == before


def test_check_warns_that_qti_cannot_carry_a_numbered_lists_start(bank_copy: Path) -> None:
    """Issue 11, item 21: QTI 2.1's <ol> has no start attribute, so "3. …" silently became "1. …" in QTI."""
    yaml_path = bank_copy / "bank.yaml"
    text = yaml_path.read_text(encoding="utf-8")
    old = "    stem: What does expert parallelism distribute across GPUs?"
    yaml_path.write_text(text.replace(old, '    stem: "Steps:\\n\\n3. route\\n4. dispatch"'), encoding="utf-8")
    code, output = run("check", str(bank_copy))
    assert code == 0
    line = text.splitlines().index(old) + 1
    assert f"bank.yaml:{line}:11: warning: question 'ep-distributes': the stem has a numbered list that does not " in (
        " ".join(output.split())
    )
    assert "QTI 2.1 lists have no start number" in " ".join(output.split())


# --- export -o: where the file goes -----------------------------------------------------------------------------


def test_a_folder_as_output_is_refused_as_a_usage_error(tmp_path: Path) -> None:
    code, output = run("export", "--format", "moodle", "-o", str(tmp_path))
    assert code == 2 and "is a directory" in output


@pytest.mark.parametrize("where", ["missing-folder", "dangling-folder-link", "proc"])
def test_an_unwritable_output_is_one_line_and_exit_1(tmp_path: Path, where: str) -> None:
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    output = {
        "missing-folder": tmp_path / "typo" / "q.xml",
        "dangling-folder-link": tmp_path / "gone" / "q.xml",
        "proc": Path("/proc/self/q.xml"),
    }[where]
    result = CliRunner().invoke(main, ["export", "--format", "moodle", "-o", str(output)])
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert [line for line in result.output.splitlines() if line.startswith("error:")] == [
        line for line in result.output.splitlines() if "cannot" in line
    ]
    assert "Traceback" not in result.output and f"error: cannot write {output}" in result.output
    assert not (tmp_path / "typo").exists()


def test_parents_creates_the_missing_folder(tmp_path: Path) -> None:
    target = tmp_path / "new" / "q.xml"
    code, output = run("export", "--format", "moodle", "--parents", "-o", str(target))
    assert code == 0, output
    assert target.is_file()


@pytest.mark.parametrize("fmt", ["moodle", "qti21", "canvas"])
def test_single_locale_exports_are_named_like_build_so_they_never_overwrite_each_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    monkeypatch.chdir(tmp_path)
    for args in (["--locale", "ur"], ["--locale", "vi"], [], ["--locale", "ur", "--locale", "vi"]):
        assert run("export", "--format", fmt, str(SHIPPED_BANK_DIR), *args)[0] == 0
    suffix = {"moodle": ".moodle.xml", "qti21": ".qti21.zip", "canvas": ".canvas.json"}[fmt]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"moe-expert-parallelism{middle}{suffix}" for middle in (".ur", ".vi", "", ".ur+vi")
    )


@pytest.mark.parametrize("fmt", ["qti21", "canvas", "gift", "html"])
def test_multilang_outside_moodle_is_a_usage_error(fmt: str) -> None:
    code, output = run("export", "--format", fmt, "--multilang", "-o", "-")
    assert code == 2
    assert "--multilang is for --format moodle only" in output


# --- which bank a command works on ------------------------------------------------------------------------------


def test_inside_a_bank_folder_commands_use_that_bank_and_say_so(
    bank_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    yaml_path = bank_copy / "bank.yaml"
    yaml_path.write_text(yaml_path.read_text(encoding="utf-8").replace("id: moe-expert-parallelism", "id: my-own", 1))
    monkeypatch.chdir(bank_copy)
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == "bank: . (bank.yaml in the current folder)"
    assert result.stdout.startswith("my-own: ")


def test_inside_the_checkout_the_shipped_bank_is_used_and_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SHIPPED_BANK_DIR.parents[1] / "docs")
    result = CliRunner().invoke(main, ["export", "--format", "gift", "-o", "-"])
    assert result.exit_code == 0, result.output
    first = result.stderr.splitlines()[0]
    assert first == (
        f"bank: {SHIPPED_BANK_DIR} (the bank shipped with moe-lms: inside its checkout, no bank.yaml in the current "
        "folder and no BANK_DIR given)"
    )


def test_a_named_bank_is_named_too(bank_copy: Path) -> None:
    result = CliRunner().invoke(main, ["check", str(bank_copy)])
    assert result.stderr.splitlines()[0] == f"bank: {bank_copy}"


# --- everyday edits ---------------------------------------------------------------------------------------------


def delete_first_question(bank_copy: Path) -> None:
    yaml_path = bank_copy / "bank.yaml"
    text = yaml_path.read_text(encoding="utf-8")
    start = text.index("\n  - id: ep-distributes")
    end = text.index("\n  - id: ", start + 1)
    yaml_path.write_text(text[:start] + text[end:], encoding="utf-8")


def test_deleting_a_question_is_one_warning_per_po_file_and_check_and_export_go_on(bank_copy: Path) -> None:
    delete_first_question(bank_copy)
    result = CliRunner().invoke(main, ["check", str(bank_copy)])
    assert result.exit_code == 0, result.output
    # (the page words' own warnings, locales/page/*.po, aside: issue 30's three words are drafts until reviewed)
    warnings = [line for line in result.stderr.splitlines() if ": warning: " in line and "/page/" not in line]
    assert [w.split(":")[0].rsplit("/", 1)[1] for w in warnings] == ["ur.po", "vi.po"]
    assert all("entries name no string of the bank" in w and "moe-lms translations update" in w for w in warnings)
    assert result.stdout.endswith("ok\n")
    exported = CliRunner().invoke(main, ["export", "--format", "moodle", str(bank_copy), "-o", "-"])
    assert exported.exit_code == 0 and exported.stdout.startswith("<?xml")
    assert len([line for line in exported.stderr.splitlines() if ": warning: " in line]) == 2
    assert run("translations", "update", str(bank_copy))[0] == 0
    after = CliRunner().invoke(main, ["check", str(bank_copy)]).stderr
    assert not [line for line in after.splitlines() if ": warning: " in line and "/page/" not in line]


def test_translations_update_on_a_po_syntax_error_says_what_check_says_and_changes_nothing(bank_copy: Path) -> None:
    po = bank_copy / "locales" / "vi.po"
    text = po.read_text(encoding="utf-8")
    broken = text.replace('msgstr "', 'msgstr "oops\n', 3)
    po.write_text(broken, encoding="utf-8")
    before = {p.name: p.read_bytes() for p in (bank_copy / "locales").iterdir()}
    checked = CliRunner().invoke(main, ["check", str(bank_copy)])
    updated = CliRunner().invoke(main, ["translations", "update", str(bank_copy)])
    assert checked.exit_code == updated.exit_code == 1
    assert updated.exception is None or isinstance(updated.exception, SystemExit)
    syntax = [line for line in checked.stderr.splitlines() if "PO syntax error" in line]
    assert len(syntax) == 1 and syntax[0].startswith(f"{po}:")
    assert syntax[0] in updated.stderr.splitlines()
    assert {p.name: p.read_bytes() for p in (bank_copy / "locales").iterdir()} == before


def test_todo_explanations_as_importers_write_them_are_flagged_by_check(bank_copy: Path) -> None:
    from moe_lms.formats.moodle import NO_EXPLANATION

    yaml_path = bank_copy / "bank.yaml"
    text = yaml_path.read_text(encoding="utf-8")
    marker = (
        "      - id: b\n        text: Only individual attention heads\n        correct: false\n        explanation: "
    )
    start = text.index(marker) + len(marker)
    end = text.index("\n      - id: c", start)
    yaml_path.write_text(text[:start] + f'"{NO_EXPLANATION}"' + text[end:], encoding="utf-8")
    line = text[:start].count("\n") + 1
    checked = CliRunner().invoke(main, ["check", str(bank_copy)])
    assert checked.exit_code == 0, checked.output
    expected = (
        f"bank.yaml:{line}:22: warning: question 'ep-distributes', choice 'b': the explanation is a placeholder "
        "('TODO: add an explanation (the imported f'): write the real one"
    )
    assert expected in checked.stderr
    strict = CliRunner().invoke(main, ["check", "--strict", str(bank_copy)])
    assert strict.exit_code == 1
    assert expected.replace("warning", "error") + " (--strict)" in strict.stderr


def test_check_names_a_title_made_only_of_an_empty_tag_which_every_export_would_refuse(bank_copy: Path) -> None:
    yaml_path = bank_copy / "bank.yaml"
    text = yaml_path.read_text(encoding="utf-8")
    yaml_path.write_text(text.replace("title: 'Expert parallelism for MoE serving: a quiz'", "title: <P>"))
    code, output = run("check", str(bank_copy))
    assert code == 1
    assert "bank.yaml:2:8: error: the bank title renders to no text at all" in output
    code, output = run("export", "--format", "moodle", "--locale", "en", "-o", "-", str(bank_copy))
    assert code == 1 and "renders to no text at all" in output


@pytest.mark.parametrize(
    ("error", "code"),
    [(MediaError("media/x.png: not an image"), 1), (OptionError("no quiz 'final'"), 2), (SchemaError("bad"), 2)],
)
def test_every_moe_lms_error_a_command_leaves_is_one_line_and_its_exit_code(
    error: MoeLmsError, code: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    def raising(*args: object) -> object:
        raise error

    monkeypatch.setattr("moe_lms.cli.export.load_or_exit", raising)
    result = CliRunner().invoke(main, ["export", "--format", "moodle", str(SHIPPED_BANK_DIR), "-o", "-"])
    assert result.exit_code == code
    assert f"error: {error}" in result.output and "Traceback" not in result.output


def test_every_exception_of_moe_lms_has_the_common_base() -> None:
    for error in (MediaError, OptionError, SchemaError, MergeError, QuizError, UnsafeXmlError, PoSyntaxError,
                  UnsafePackage, FormulaError, GiftSyntaxError, OutputError, CanvasError, ProblemsFound):  # fmt: skip
        assert issubclass(error, MoeLmsError), error
