"""GIFT and Canvas with rich content. GIFT: math as \\(…\\) with GIFT's control characters escaped (Moodle's own
GIFT parser gets the LaTeX back); images cannot travel, so a bank with one is refused naming the question, unless
--drop-images (a warning per image). Canvas: math as \\(…\\) / \\[…\\]; images refused until they can be uploaded,
with a hook (a function from media item to URL) for the upload."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from moe_lms.cli import main
from moe_lms.formats import ExportOptions, canvas, gift
from moe_lms.loader import load_bank
from moe_lms.problems import ProblemsFound

from .rich_support import BANK, write_rich_bank

NO_IMAGES = BANK.replace("\n      ![Tokens dispatched to two GPUs](media/dispatch.svg)", "").replace(
    " ![Capacity bar](media/bar.png)", ""
)


def test_gift_escapes_the_control_characters_of_latex_and_moodle_reads_the_formula_back(tmp_path: Path) -> None:
    bank = load_bank(write_rich_bank(tmp_path, NO_IMAGES))
    text = gift.FORMAT.dump(bank, ExportOptions(locales=("en",))).decode()
    assert r"\\(C \= \\left\\lceil f \\cdot \\frac\{k T\}\{E\} \\right\\rceil\\)" not in text  # display, not inline
    assert r"\\[C \= \\left\\lceil f \\cdot \\frac\{k T\}\{E\} \\right\\rceil\\]" in text
    (question,) = gift.parse(text)
    assert r"\[C = \left\lceil f \cdot \frac{k T}{E} \right\rceil\]" in question.text
    right = next(a for a in question.answers if a.weight == 100)
    assert r"\(160\)" in right.text


def test_gift_refuses_a_question_with_an_image_naming_it(tmp_path: Path) -> None:
    bank = load_bank(write_rich_bank(tmp_path))
    with pytest.raises(ProblemsFound) as caught:
        gift.FORMAT.dump(bank, ExportOptions(locales=("en",)))
    messages = [str(p) for p in caught.value.problems]
    assert len(messages) == 2
    assert all("question 'capacity'" in m and "--drop-images" in m for m in messages)
    assert "'media/dispatch.svg'" in messages[0] and "'media/bar.png'" in messages[1]


def test_drop_images_leaves_them_out_with_a_warning_each(tmp_path: Path) -> None:
    directory = write_rich_bank(tmp_path / "bank")
    output = tmp_path / "out.gift.txt"
    result = CliRunner().invoke(
        main, ["export", "--format", "gift", "--drop-images", str(directory), "-o", str(output)]
    )
    assert result.exit_code == 0, result.output
    assert result.output.count("warning: question 'capacity': image") == 2
    text = output.read_text(encoding="utf-8")
    assert "<img" not in text and r"\\(160\\)" in text
    # The alt text stays visible where the image was (it once became an empty <p></p>).
    assert "<em>[Tokens dispatched to two GPUs]</em>" in gift.parse(text)[0].text
    assert "<em>[Capacity bar]</em>" in gift.parse(text)[0].answers[0].feedback
    refused = CliRunner().invoke(main, ["export", "--format", "gift", str(directory), "-o", str(output)])
    assert refused.exit_code == 1 and "a GIFT file cannot carry" in refused.output


def test_canvas_gets_math_in_the_delimiters_it_renders(tmp_path: Path) -> None:
    bank = load_bank(write_rich_bank(tmp_path, NO_IMAGES))
    payload = json.loads(canvas.FORMAT.dump(bank, ExportOptions(locales=("en",))))
    text = json.dumps(payload)
    assert r"\\[C = \\left\\lceil f \\cdot \\frac{k T}{E} \\right\\rceil\\]" in text
    answer = payload["locales"][0]["classic"]["questions"][0]["body"]["question"]["answers"][0]
    assert r"\(160\)" in answer["answer_html"] and "$" not in answer["answer_html"]


def test_the_canvas_export_shows_each_image_as_the_reference_a_push_resolves_and_says_which_file_it_is(
    tmp_path: Path,
) -> None:
    bank = load_bank(write_rich_bank(tmp_path))
    payload = json.loads(canvas.FORMAT.dump(bank, ExportOptions(locales=("en",))))
    item = bank.media["media/dispatch.svg"]
    reference = f"moe-file:{item.sha256}"
    assert payload["images"][reference] == {
        "path": "media/dispatch.svg",
        "media_type": item.media_type,
        "bytes": len(item.data),
    }
    assert sorted(entry["path"] for entry in payload["images"].values()) == sorted(bank.media)
    assert f'src=\\"{reference}\\"' in json.dumps(payload["locales"][0]["classic"]["questions"])


def test_a_request_body_made_without_the_upload_hook_refuses_images(tmp_path: Path) -> None:
    bank = load_bank(write_rich_bank(tmp_path))
    with pytest.raises(ProblemsFound) as caught:
        list(canvas.QuizStream(bank, "en", "classic").questions())
    assert any("`push canvas` uploads the images" in str(p) for p in caught.value.problems)


def test_the_upload_hook_maps_each_image_to_its_course_file(tmp_path: Path) -> None:
    bank = load_bank(write_rich_bank(tmp_path))
    stream = canvas.QuizStream(
        bank, "en", "classic", image_url=lambda item: f"https://canvas.test/files/{item.sha256[:8]}/preview"
    )
    (question,) = stream.questions()
    text = json.dumps(question.body)
    assert f'src=\\"https://canvas.test/files/{bank.media["media/dispatch.svg"].sha256[:8]}/preview\\"' in text


def test_build_says_which_gift_files_lack_images(tmp_path: Path) -> None:
    directory = write_rich_bank(tmp_path / "bank")
    result = CliRunner().invoke(main, ["build", str(directory), "--out", str(tmp_path / "shelf")])
    assert result.exit_code == 0, result.output
    assert "rich.en.gift.txt: without its images (media/bar.png, media/dispatch.svg)" in result.output


def test_export_strict_refuses_what_the_format_would_drop_and_writes_nothing(tmp_path: Path) -> None:
    directory = write_rich_bank(tmp_path / "bank")
    output = tmp_path / "out.gift.txt"
    args = ["export", "--format", "gift", "--drop-images", "--strict", str(directory), "-o", str(output)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert result.output.count("error: question 'capacity': image") == 2 and "(--strict)" in result.output
    assert not output.exists()
    # A format that drops nothing passes --strict unchanged.
    strict = ["export", "--format", "moodle", "--strict", str(directory), "-o", str(tmp_path / "m.xml")]
    assert CliRunner().invoke(main, strict).exit_code == 0
