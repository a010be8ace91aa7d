"""Each format carries a parameterised question as a pool of its variants (issue 31), and every file still passes
its format's checks (XSDs where the format has them: ../shared/schemas)."""

from __future__ import annotations

import io
import re
import tarfile
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from moe_lms import formats
from moe_lms.cli import main
from moe_lms.loader import load_bank
from moe_lms.model import Bank

from .variant_bank import write_bank

SUFFIXES = {"moodle": ".xml", "qti21": ".zip", "qti3": ".zip", "canvas-qti": ".zip", "olx": ".tar.gz", "cc11": ".imscc"}


@pytest.fixture(scope="module")
def bank(tmp_path_factory: pytest.TempPathFactory) -> Bank:
    return load_bank(write_bank(tmp_path_factory.mktemp("variants") / "bank"))


def dump(bank: Bank, name: str, locales: tuple[str, ...] = ("en",)) -> bytes:
    return formats.get(name).dump(bank, formats.ExportOptions(locales=locales))


@pytest.mark.parametrize("name", sorted(SUFFIXES))
def test_every_file_with_variants_passes_its_formats_checks(
    bank: Bank, name: str, tmp_path: Path, schemas_dir: Path
) -> None:
    locales = ("en",) if name == "olx" else ("en", "ur", "vi")
    path = tmp_path / f"variants{SUFFIXES[name]}"
    path.write_bytes(dump(bank, name, locales))
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert ": ok (" in result.output


def test_moodle_xml_puts_each_questions_variants_in_a_category_of_their_own(bank: Bank) -> None:
    text = dump(bank, "moodle").decode()
    categories = re.findall(r"<text>\$course\$/([^<]*)</text>", text)
    assert categories == ["Variants demo/English/Variants demo/all", "Variants demo/English/Variants demo/capacity",
                          "Variants demo/English/Variants demo/powers"]  # fmt: skip
    capacity = text.split("Variants demo/capacity</text>")[1].split('<question type="category">')[0]
    assert re.findall(r"<idnumber>([^<]*)</idnumber>", capacity)[1:] == [f"capacity~{n}-en" for n in range(1, 7)]


def test_qti3_and_canvas_qti_sections_select_one_variant(bank: Bank) -> None:
    qti3 = zipfile.ZipFile(io.BytesIO(dump(bank, "qti3"))).read("tests/variant-demo-all-en.xml").decode()
    assert re.findall(r'identifier="(\w+)" title="\w+" visible="true"><qti-selection select="(\d)"/>', qti3) == [
        ("capacity", "1"), ("powers", "1")
    ]  # fmt: skip
    canvas = zipfile.ZipFile(io.BytesIO(dump(bank, "canvas-qti")))
    text = canvas.read("variant-demo-all-en/variant-demo-all-en.xml").decode()
    assert text.count("<selection_number>1</selection_number>") == 2


def test_olx_makes_each_questions_variants_a_problem_bank_drawing_one(bank: Bank) -> None:
    with tarfile.open(fileobj=io.BytesIO(dump(bank, "olx"))) as tar:
        names = tar.getnames()
        banks = [n for n in names if "/itembank/" in n]
        assert banks == ["course/itembank/all-capacity.xml", "course/itembank/all-powers.xml"]
        member = tar.extractfile("course/itembank/all-capacity.xml")
        assert member is not None
        text = member.read().decode()
    assert 'max_count="1"' in text and text.count("<problem ") == 6


def test_gift_puts_each_questions_variants_in_a_category(bank: Bank) -> None:
    text = dump(bank, "gift").decode()
    assert re.findall(r"\$CATEGORY: (.*)", text) == [
        "$course$/Variants demo/English/Variants demo/all",
        "$course$/Variants demo/English/Variants demo/capacity",
        "$course$/Variants demo/English/Variants demo/powers",
    ]


def test_the_cartridge_says_it_cannot_draw_and_carries_every_variant_in_its_question_bank(bank: Bank) -> None:
    files = zipfile.ZipFile(io.BytesIO(dump(bank, "cc11")))
    assessment = files.read("quiz-en/assessment.xml").decode()
    assert "Common Cartridge 1.1 cannot draw a question per attempt" in assessment
    assert "capacity: 6 variants, this assessment asks capacity~1" in assessment
    assert assessment.count("<item ") == 3
    assert files.read("question_bank/questions.xml").decode().count("<item ") == 10


def test_a_bank_without_parameterised_questions_is_written_as_before(tmp_path: Path) -> None:
    from .sample_bank import sample_bank

    plain = sample_bank()
    assert formats.concrete(plain, formats.ExportOptions(locales=("en",)))[0] is plain


NUMERICAL_FORMATS = {"moodle": ".xml", "qti21": ".zip", "canvas-qti": ".zip", "olx": ".tar.gz", "cc11": ".imscc"}


@pytest.mark.parametrize("name", sorted(NUMERICAL_FORMATS))
def test_numerical_variants_pass_each_formats_checks(name: str, tmp_path: Path, schemas_dir: Path) -> None:
    from .variant_bank import NUMERICAL_YAML

    directory = tmp_path / "numerical"
    (directory / "locales").mkdir(parents=True)
    (directory / "bank.yaml").write_text(NUMERICAL_YAML, encoding="utf-8")
    path = tmp_path / f"numerical{NUMERICAL_FORMATS[name]}"
    path.write_bytes(dump(load_bank(directory), name))
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 0, result.output


def test_push_canvas_makes_each_questions_variants_a_question_group_picking_one(bank: Bank) -> None:
    """Against the Canvas-like server (tests/canvas_server.py), through the command's path (formats.concrete)."""
    from moe_lms.formats.canvas import desired_quizzes, read_question_marker
    from moe_lms.lms.canvas import Pusher
    from moe_lms.lms.canvas_client import CanvasClient, RetryPolicy

    from .canvas_server import TOKEN, Canvas, CanvasServer

    app = Canvas()
    with CanvasServer(app):
        client = CanvasClient(app.base_url, TOKEN, retry=RetryPolicy(attempts=5, base_delay=0.001), seed=3)
        pusher = Pusher(client, "1", "classic")
        concrete, options = formats.concrete(bank, formats.ExportOptions(locales=("en",)), quizzes=False)
        desired = list(desired_quizzes(concrete, options, "classic"))  # (as push canvas calls it)
        pusher.apply(pusher.plan(desired, bank.locales, prune=False, publish=False))
        again = pusher.plan(desired, bank.locales, prune=False, publish=False)
        assert again.writes == 0  # a second push finds every variant again by its marker, and writes nothing
        (quiz,) = app.course().quizzes.values()
        groups = {g["id"]: g for g in app.course().quiz_groups(quiz["id"])}
        members: dict[object, list[str]] = {}
        for question in app.course().classic_questions(quiz["id"]):
            key = read_question_marker(question["question_name"]).key  # type: ignore[union-attr]
            members.setdefault(question["quiz_group_id"], []).append(key)
    by_group = {tuple(sorted(keys)): group_id for group_id, keys in members.items()}
    capacity = by_group[tuple(f"capacity~{n}" for n in range(1, 7))]
    powers = by_group[tuple(f"powers~{n}" for n in range(1, 4))]
    assert groups[capacity]["pick_count"] == groups[powers]["pick_count"] == 1
    assert members[None] == ["plain"]
    assert quiz["points_possible"] == 3  # an attempt: the plain question and one variant of each


def test_new_quizzes_asks_the_first_variant_of_each_and_says_it_cannot_draw(bank: Bank) -> None:
    from moe_lms.formats.canvas import desired_quizzes

    concrete, options = formats.concrete(bank, formats.ExportOptions(locales=("en",)), quizzes=False)
    (quiz,) = desired_quizzes(concrete, options, "new-quizzes")  # (as push canvas calls it)
    assert [q.key for q in quiz.questions] == ["plain", "capacity~1", "powers~1"]
    assert any("New Quizzes cannot draw a question per attempt" in w for w in quiz.warnings), quiz.warnings
