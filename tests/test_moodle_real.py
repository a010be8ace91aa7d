"""The real Moodle 4.5 (../shared/moodle, stood up by its install.sh) imports every Moodle-bound file of the shelf and
of a generated bank (Moodle XML per locale, multilang, GIFT, the cartridge through Moodle's restore), its question
engine grades every choice, and what Moodle stored and showed is the bank: question text, the answers' texts,
fractions and feedback, the general explanation, the overall messages.

The driver is tests/moodle/moodle_questions.php (one PHP process per file: Moodle's CC converter keeps static state
between conversions). Set ``MOE_MOODLE_DIR`` to the DIR given to ``install.sh DIR`` (``.ci/run`` does); without it, or
with its database down, these tests skip and say why. Each file's result is kept in test-artifacts/moodle/.
"""

from __future__ import annotations

import html
import json
import os
import shutil
import socket
import subprocess
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from lxml import html as lxml_html

from moe_lms import variants
from moe_lms.formats import ExportOptions, get
from moe_lms.loader import load_bank
from moe_lms.locales import LocalizedView, resolve
from moe_lms.media import image_references
from moe_lms.model import Bank, Kind, Question, resolve_quiz
from moe_lms.richtext import Profile, plain_text, render_block, render_inline, rendering

from .qti_support import rich_bank
from .sample_bank import sample_bank

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "moodle" / "moodle_questions.php"
SHELF = ROOT / "exporters"
ARTIFACTS = ROOT / "test-artifacts" / "moodle"
MARK = "=== moe-lms moodle_questions.php JSON ==="
SHIPPED = {path.name: path for path in sorted((ROOT / "question_bank").iterdir()) if (path / "bank.yaml").exists()}


def missing(message: str) -> None:
    """Skip, or in CI (which stands Moodle up whenever ../shared is there) fail, as conftest does for ../shared."""
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def _moodle() -> Path:
    """The Moodle code folder of MOE_MOODLE_DIR, or a skip saying what is missing."""
    from .conftest import SHARED

    if not (SHARED / "moodle" / "install.sh").exists():
        pytest.skip(f"no real Moodle: {SHARED}/moodle/install.sh not found (../shared beside the checkout)")
    where = os.environ.get("MOE_MOODLE_DIR")
    if not where:
        missing("no real Moodle: set MOE_MOODLE_DIR to the DIR of `../shared/moodle/install.sh DIR` (.ci/run does)")
    code = Path(where) / "www" / "moodle"
    if not (code / "config.php").exists() or not (Path(where) / "installed").exists():
        missing(f"no real Moodle: {where} is not an installed site (run ../shared/moodle/install.sh {where})")
    if shutil.which("php") is None:
        missing("no real Moodle: php is not installed (install.sh installs it)")
    port = int(os.environ.get("MOODLE_PGPORT", "5433"))
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except OSError:
        missing(f"no real Moodle: its PostgreSQL is not running on 127.0.0.1:{port} (install.sh {where} start)")
    return code


@pytest.fixture(scope="module")
def moodle() -> Path:
    return _moodle()


def drive(moodle: Path, name: str, *args: str) -> dict[str, Any]:
    """Run the driver; its JSON (also kept as test-artifacts/moodle/<name>.json)."""
    done = subprocess.run(
        ["php", str(SCRIPT), str(moodle), *args], capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, f"moodle_questions.php {' '.join(args)} failed:\n{done.stderr[-4000:]}"
    result: dict[str, Any] = json.loads(done.stdout.rpartition(MARK)[2])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"{name}.json").write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
    return result


BLOCKS = ("p", "div", "ul", "ol", "li", "pre", "br", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "table", "tr")


def visible(fragment: str | None) -> str:
    """The text a learner reads in an HTML fragment: tags gone, white space collapsed, NFC."""
    if not fragment or not fragment.strip():
        return ""
    root = lxml_html.fragment_fromstring(fragment, create_parent="div")
    for element in root.iter(*BLOCKS):  # (a block starts and ends a line, with or without white space around it)
        element.tail = " " + (element.tail or "")
        element.text = " " + (element.text or "")
    text = root.text_content()
    return unicodedata.normalize("NFC", " ".join(text.split()))


@dataclass(frozen=True)
class Expected:
    """What Moodle should hold for one question in one file: texts as learners read them."""

    question: Question
    stem: tuple[str, ...]  # one per language the text carries (several in a multilang file)
    explanation: tuple[str, ...]
    choices: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]  # (text, explanation) per choice
    correct: tuple[str, ...] | None  # the overall messages, where the file carries them
    incorrect: tuple[str, ...] | None
    restored: bool = False  # through Moodle's CC restore


def expected(
    question: Question, views: Sequence[LocalizedView], profile: Profile, *, overall: bool, decoded: bool = False
) -> Expected:
    """``decoded``: as Moodle's CC restore stores text, every character reference decoded first (backup/cc/
    entities.class.php safexml: ``a &lt;b&gt;`` becomes the tag ``<b>``; docs/how-to/import-into-lms.md says so)."""

    def each(get_text: Callable[[LocalizedView], str], render: Callable[[str], str]) -> tuple[str, ...]:
        with rendering(profile):
            made = [render(get_text(view)) for view in views]
        return tuple(visible(html.unescape(m) if decoded else m) for m in made)

    choices = tuple(
        (
            each(lambda v, c=choice: v.choice_text(question, c).text, render_inline),
            each(lambda v, c=choice: v.choice_explanation(question, c).text, render_block),
        )
        for choice in question.choices
    )
    return Expected(
        question,
        each(lambda v: v.stem(question).text, render_block),
        each(lambda v: v.explanation(question).text, render_block),
        choices,
        each(lambda v: v.feedback("correct").text, render_block) if overall else None,
        each(lambda v: v.feedback("incorrect").text, render_block) if overall else None,
        decoded,
    )


def same(stored: str, wanted: tuple[str, ...]) -> bool:
    """One language: the same text. Several (multilang): each language's text is there."""
    text = visible(stored)
    return text == wanted[0] if len(wanted) == 1 else all(w in text for w in wanted)


@dataclass
class Figures:
    files: int = 0
    questions: int = 0
    graded: int = 0
    feedback_shown: int = 0


FIGURES: dict[str, Figures] = {}


def check_question(found: dict[str, Any], want: Expected, figures: Figures, where: str) -> None:
    """Stored texts, fractions and feedback, and every graded choice's mark and shown feedback."""
    q = want.question
    at = f"{where}: question {q.id}"
    assert same(found["questiontext"], want.stem), (at, found["questiontext"], want.stem)
    if want.restored and q.kind is Kind.MULTIPLE:
        # Moodle's CC restore appends the feedback of every continue="Yes" condition to the general feedback
        # (entity11.quiz.class.php get_general_feedback), and a multiple-answer item needs one per choice.
        assert visible(found["generalfeedback"]).startswith(want.explanation[0]), (at, found["generalfeedback"])
    else:
        assert same(found["generalfeedback"], want.explanation), (at, found["generalfeedback"], want.explanation)
    answers = found["answers"]
    assert len(answers) == len(q.choices), (at, answers)
    for answer, choice, (text, explanation) in zip(answers, q.choices, want.choices, strict=True):
        assert same(answer["text"], text), (at, choice.id, answer["text"], text)
        assert same(answer["feedback"], explanation), (at, choice.id, answer["feedback"], explanation)
        assert (answer["fraction"] > 0) == choice.correct, (at, choice.id, answer["fraction"])
    assert abs(sum(a["fraction"] for a in answers if a["fraction"] > 0) - 1) < 1e-6, (at, answers)
    if want.correct is not None and want.incorrect is not None:
        assert same(found["correctfeedback"], want.correct), (at, found["correctfeedback"])
        assert same(found["incorrectfeedback"], want.incorrect), (at, found["incorrectfeedback"])
    correct = {j for j, c in enumerate(q.choices) if c.correct}
    for graded in found["graded"]:
        chosen = set(graded["chosen"])
        figures.graded += 1
        if q.kind is Kind.MULTIPLE:
            share = len(chosen & correct) / len(correct) if not chosen - correct else 0.0
            if chosen == correct:
                share = 1.0
            assert graded["fraction"] == pytest.approx(share, abs=1e-6), (at, graded)
        else:
            assert graded["fraction"] == (1 if chosen <= correct else 0), (at, graded)
        general = " ".join(visible(f) for f in graded["general_feedback"])
        assert all(w in general for w in want.explanation), (at, graded["general_feedback"])
        # (the choice's feedback: beside it, or for Moodle's true/false type in the outcome box)
        shown = " ".join(visible(f) for f in graded["choice_feedback"] + graded["outcome_feedback"])
        for j in chosen:
            assert all(w in shown for w in want.choices[j][1]), (at, j, graded["choice_feedback"])
        if want.correct is not None and want.incorrect is not None and graded["fraction"] in (0, 1):
            message = want.correct if graded["fraction"] == 1 else want.incorrect  # (partly right: its own message)
            outcome = " ".join(visible(f) for f in graded["outcome_feedback"])
            assert all(m in outcome for m in message), (at, graded["outcome_feedback"])
        figures.feedback_shown += 1
    figures.questions += 1


def check_numerical(found: dict[str, Any], want: Expected, figures: Figures, where: str) -> None:
    """A numerical question as Moodle holds it (``numerical`` from Moodle XML and GIFT; ``shortanswer`` of the exact
    values from a cartridge's cc.fib): each value with its fraction, tolerance and explanation, and each value typed
    (and 123456, no value) graded by the engine with that value's explanation shown (the driver types them)."""
    from moe_lms.numeric import number_text

    q = want.question
    at = f"{where}: question {q.id}"
    assert found["qtype"] in ("numerical", "shortanswer"), (at, found["qtype"])
    assert same(found["questiontext"], want.stem), (at, found["questiontext"], want.stem)
    answers = [a for a in found["answers"] if a["text"] != "*"]
    assert [(float(a["text"]), a["fraction"] > 0) for a in answers] == [(q.value_of(c), c.correct) for c in q.choices]
    for answer, choice, (_, explanation) in zip(answers, q.choices, want.choices, strict=True):
        if want.restored and choice.correct:
            # Moodle's CC restore drops a correct fill-in-the-blank answer's feedback: get_answers_fib stores it in
            # $correctanswerfib, a misspelling of $correctanswersfib (backup/cc/entity11.quiz.class.php).
            assert answer["feedback"] == "", (at, answer)
            continue
        assert same(answer["feedback"], explanation), (at, choice.id, answer["feedback"], explanation)
        if "tolerance" in answer:
            assert answer["tolerance"] == q.tolerance_of(choice), (at, choice.id, answer)
    by_value = {number_text(q.value_of(c)): j for j, c in enumerate(q.choices)}
    typed = [g for g in found["graded"] if g["typed"] in by_value]
    assert len(typed) == len(q.choices) and any(g["typed"] == "123456" for g in found["graded"]), (at, found["graded"])
    for graded in found["graded"]:
        j = by_value.get(graded["typed"])
        right = j is not None and q.choices[j].correct
        assert float(graded["fraction"]) == (1.0 if right else 0.0), (at, graded)
        shown = " ".join(visible(f) for f in graded["outcome_feedback"])
        if j is not None and not (want.restored and right):
            assert all(w in shown for w in want.choices[j][1]), (at, graded["typed"], graded["outcome_feedback"])
        figures.graded += 1
        figures.feedback_shown += 1
    figures.questions += 1


def by_id(found: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Imported questions by bank question id (their names start ``<question id>:``)."""
    return {question["name"].partition(":")[0]: question for question in found}


MOODLE_PROFILE = Profile(math="tex")
GIFT_PROFILE = Profile(math="tex", drop_images=True)


def check_import(moodle: Path, bank: Bank, path: Path, fmt: str, locales: Sequence[str], figures: Figures) -> None:
    found = by_id(drive(moodle, path.name, "import", fmt, str(path))["questions"])
    views = [resolve(bank, locale) for locale in locales]
    assert sorted(found) == sorted(q.id for q in bank.questions), path.name
    profile = GIFT_PROFILE if fmt == "gift" else MOODLE_PROFILE
    for question in bank.questions:
        want = expected(question, views, profile, overall=fmt == "xml")
        check = check_numerical if question.numerical else check_question
        check(found[question.id], want, figures, path.name)
    figures.files += 1


def check_restore(moodle: Path, bank: Bank, path: Path, locales: Sequence[str], figures: Figures) -> dict[str, Any]:
    result = drive(moodle, path.name, "restore", str(path))
    quizzes = result["quizzes"]
    assert [quiz["name"] for quiz in quizzes] == [plain_text(resolve(bank, loc).title.text) for loc in locales]
    for quiz, locale in zip(quizzes, locales, strict=True):
        views = [resolve(bank, locale)]
        assert len(quiz["slots"]) == len(bank.questions), path.name
        for slot, question in zip(quiz["slots"], bank.questions, strict=True):
            found = slot["question"]
            if question.numerical:  # (a cartridge's cc.fib: Moodle restores a short answer of the exact values)
                want = expected(question, views, MOODLE_PROFILE, overall=False, decoded=True)
                check_numerical(found, want, figures, path.name)
                continue
            assert found["qtype"] in ("multichoice", "truefalse"), (path.name, question.id, found["qtype"])
            if found["qtype"] == "truefalse":
                # Moodle's own True and False, in that order, for the choices called true and false (the cartridge
                # sends other true/false questions as multiple choice): compare in that order, not their texts.
                by_id = {c.id: c for c in question.choices}
                question = question.model_copy(update={"choices": (by_id["true"], by_id["false"])})
            want = expected(question, views, MOODLE_PROFILE, overall=False, decoded=True)
            if found["qtype"] == "truefalse":
                want = replace(
                    want,
                    choices=tuple(((a["text"],), e) for a, (_, e) in zip(found["answers"], want.choices, strict=True)),
                )
            check_question(found, want, figures, path.name)
            # Each image links to the course file it was restored as (…/file.php/<course>/web_resources/<path>).
            text = found["questiontext"] + found["generalfeedback"] + "".join(a["feedback"] for a in found["answers"])
            for reference in (r for m in (question.stem, question.explanation) for r in image_references(m)):
                link = f"/file.php/{result['course']}/web_resources/{reference.path}"
                assert link in text and f"web_resources/{reference.path}" in result["files"], (path.name, link)
    figures.files += 1
    return result


# --- the shelf ----------------------------------------------------------------------------------------------------


def shelf_files(suffix: str) -> list[Path]:
    return sorted(SHELF.glob(f"*{suffix}"))


def bank_of(path: Path) -> tuple[Bank, list[str]]:
    """The bank a shelf file holds, and its locales: ``<bank>.<locale>.…``, or a quiz's ``<bank>.<quiz>.<locale>.…``
    (the quiz's questions, each at its points in the quiz)."""
    bank_id, second, third = path.name.split(".")[:3]
    bank = load_bank(SHIPPED[bank_id])
    if variants.has_variants(bank):  # (a file carries each parameterised question's variants, issue 31)
        bank = variants.expand(bank)
    quiz = next((q for q in bank.quizzes if q.id == second), None)
    locale = second if quiz is None else third
    if quiz is not None:
        questions = tuple(q for drawn in resolve_quiz(bank, quiz) for q in drawn.scored())
        bank = bank.model_copy(update={"questions": questions})
    return bank, list(bank.locales) if locale == "multilang" else [locale]


@pytest.mark.parametrize("path", shelf_files(".moodle.xml"), ids=lambda p: p.name)
def test_moodle_imports_each_shelf_moodle_xml_file_as_the_bank(moodle: Path, path: Path) -> None:
    bank, locales = bank_of(path)
    check_import(moodle, bank, path, "xml", locales, FIGURES.setdefault("shelf moodle.xml", Figures()))


@pytest.mark.parametrize("path", shelf_files(".gift.txt"), ids=lambda p: p.name)
def test_moodle_imports_each_shelf_gift_file_as_the_bank(moodle: Path, path: Path) -> None:
    bank, locales = bank_of(path)
    check_import(moodle, bank, path, "gift", locales, FIGURES.setdefault("shelf gift", Figures()))


@pytest.mark.parametrize("path", shelf_files(".imscc"), ids=lambda p: p.name)
def test_moodle_restores_each_shelf_cartridge_as_a_quiz_of_the_bank(moodle: Path, path: Path) -> None:
    bank, locales = bank_of(path)
    # A cartridge cannot draw: its quiz asks the first variant of each parameterised question (issue 31).
    asked = tuple(q for q in bank.questions if "~" not in q.id or q.id.endswith("~1"))
    bank = bank.model_copy(update={"questions": asked})
    result = check_restore(moodle, bank, path, locales, FIGURES.setdefault("shelf imscc", Figures()))
    (quiz,) = result["quizzes"]
    # Moodle's defects, not the cartridge's (backup/cc/sheets/course_modules_mod_quiz.xml writes these constants):
    # a fixed sum of marks (4) and maximum grade (10), and review options 0 (learners are shown neither the
    # answers' feedback nor the general feedback). docs/how-to/import-into-lms.md says so and sends Moodle users to
    # the Moodle XML file.
    assert (quiz["sumgrades"], quiz["grade"]) == (4, 10), quiz
    assert (quiz["reviewoptions"]["specificfeedback"], quiz["reviewoptions"]["generalfeedback"]) == (0, 0), quiz


# --- a generated bank -----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Bank, Path]:
    bank = rich_bank(translate_all=True)
    out = tmp_path_factory.mktemp("generated")
    for locale in bank.locales:
        options = ExportOptions.for_bank(bank, (locale,))
        (out / f"{bank.id}.{locale}.moodle.xml").write_bytes(get("moodle").dump(bank, options))
        (out / f"{bank.id}.{locale}.gift.txt").write_bytes(get("gift").dump(bank, options))
    everything = ExportOptions.for_bank(bank, bank.locales)
    # (a multilang span holds inline text only: the sample bank, whose texts are all inline)
    inline = sample_bank()
    multilang = ExportOptions(inline.locales, multilang=True)
    (out / f"{inline.id}.multilang.moodle.xml").write_bytes(get("moodle").dump(inline, multilang))
    (out / f"{bank.id}.imscc").write_bytes(get("cc11").dump(bank, everything))
    return bank, out


def test_moodle_imports_a_generated_bank_in_every_moodle_bound_format(
    moodle: Path, generated: tuple[Bank, Path]
) -> None:
    bank, out = generated
    figures = FIGURES.setdefault("generated", Figures())
    for locale in bank.locales:
        check_import(moodle, bank, out / f"{bank.id}.{locale}.moodle.xml", "xml", [locale], figures)
        check_import(moodle, bank, out / f"{bank.id}.{locale}.gift.txt", "gift", [locale], figures)
    inline = sample_bank()
    check_import(moodle, inline, out / f"{inline.id}.multilang.moodle.xml", "xml", inline.locales, figures)
    check_restore(moodle, bank, out / f"{bank.id}.imscc", bank.locales, figures)


def test_zz_figures_are_kept_for_the_report(moodle: Path) -> None:
    """(Last in the file) the counts of files, questions, graded choices and shown feedback, in test-artifacts."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    figures = {name: vars(f) for name, f in FIGURES.items()}
    (ARTIFACTS / "figures.json").write_text(json.dumps(figures, indent=1), encoding="utf-8")
