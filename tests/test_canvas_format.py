"""The Canvas payloads: exactly what a push sends, and the traps of the Canvas API it avoids."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from moe_lms import formats, loader
from moe_lms.cli import main
from moe_lms.formats import canvas
from moe_lms.formats.canvas_media import image_ref
from moe_lms.model import Bank, Kind, flat_quiz
from moe_lms.problems import ProblemsFound
from tests import canvas_reference
from tests.canvas_helpers import make_bank
from tests.strategies import banks, mixed_texts


def test_the_export_is_json_with_classic_and_new_quizzes_bodies_per_locale_and_byte_identical() -> None:
    bank = make_bank()
    fmt = formats.get("canvas")
    options = formats.ExportOptions.for_bank(bank)
    first, second = fmt.dump(bank, options), fmt.dump(bank, options)
    assert first == second
    document = json.loads(first)
    assert [loc["locale"] for loc in document["locales"]] == ["en", "ur", "vi"]
    ur = document["locales"][1]
    assert ur["classic"]["quiz"]["path"] == "/api/v1/courses/{course_id}/quizzes"
    assert len(ur["classic"]["questions"]) == len(bank.questions) == len(ur["new_quizzes"]["items"])
    assert ur["new_quizzes"]["quiz"]["path"] == "/api/quiz/v1/courses/{course_id}/quizzes"


def test_classic_answers_carry_the_choice_explanation_in_answer_comment_html_and_weight_100_on_each_key() -> None:
    bank = make_bank()
    quiz = canvas.desired_quiz(bank, "en", "classic")
    for q, desired in zip(bank.questions, quiz.questions, strict=True):
        body = desired.body["question"]
        assert isinstance(body["answers"], list)  # a hash keyed from 1 would be a 500
        for choice, answer in zip(q.choices, body["answers"], strict=True):
            assert "answer_comments" not in answer  # silently dropped by Canvas (canvas-lms #2045)
            assert choice.explanation.rstrip(".") in answer["answer_comment_html"]
            assert answer["answer_weight"] == (100 if choice.correct else 0)
        expected = "multiple_answers_question" if q.kind is Kind.MULTIPLE else "multiple_choice_question"
        assert body["question_type"] == expected
        assert q.explanation.split(";")[0] in body["neutral_comments_html"]
        assert body["points_possible"] == float(q.points)


def test_new_quizzes_choice_ids_are_uuids_derived_from_stable_ids_and_key_the_scoring_and_feedback() -> None:
    bank = make_bank()
    first = canvas.desired_quiz(bank, "vi", "new-quizzes")
    again = canvas.desired_quiz(make_bank(), "vi", "new-quizzes")
    assert first == again
    for q, desired in zip(bank.questions, first.questions, strict=True):
        entry = desired.body["item"]["entry"]
        ids = [c["id"] for c in entry["interaction_data"]["choices"]]
        assert all(uuid.UUID(i).version == 5 for i in ids)
        by_choice = dict(zip([c.id for c in q.choices], ids, strict=True))
        if q.kind is Kind.MULTIPLE:
            assert entry["interaction_type_slug"] == "multi-answer"
            assert entry["scoring_data"]["value"] == [by_choice[c.id] for c in q.correct_choices]
            assert "answer_feedback" not in entry
            assert all(f"{c.explanation}"[:20] in entry["feedback"]["neutral"] for c in q.choices[:1])
        else:
            assert entry["interaction_type_slug"] == "choice"
            assert entry["scoring_algorithm"] == "Equivalence"
            assert entry["scoring_data"]["value"] == by_choice[q.correct_choices[0].id]
            assert set(entry["answer_feedback"]) == set(ids)


def test_markers_carry_the_stable_id_and_the_fingerprint_and_read_back() -> None:
    bank = make_bank()
    quiz = canvas.desired_quiz(bank, "ur", "classic")
    marker = canvas.read_quiz_marker(quiz.body()["quiz"]["description"])
    assert marker == canvas.QuizMarker(bank.id, "ur", quiz.fingerprint, quiz.digest)
    name = quiz.questions[0].body["question"]["question_name"]
    assert canvas.read_question_marker(name) == canvas.QuestionMarker(bank.id, "q0001", quiz.questions[0].fingerprint)
    nq = canvas.desired_quiz(bank, "ur", "new-quizzes")
    title = nq.questions[0].body["item"]["entry"]["title"]
    assert canvas.read_question_marker(title) == canvas.QuestionMarker(bank.id, "q0001", nq.questions[0].fingerprint)


def test_a_fingerprint_changes_with_the_content_only() -> None:
    bank = make_bank()
    before = canvas.desired_quiz(bank, "en", "classic")
    assert canvas.desired_quiz(make_bank(), "en", "classic") == before
    q = bank.questions[1]
    edited = bank.model_copy(
        update={"questions": (bank.questions[0], q.model_copy(update={"stem": "A new stem"}), *bank.questions[2:])}
    )
    after = canvas.desired_quiz(edited, "en", "classic")
    changed = [a.key for a, b in zip(before.questions, after.questions, strict=True) if a.fingerprint != b.fingerprint]
    assert changed == [q.id]
    assert after.digest != before.digest and after.fingerprint == before.fingerprint


def test_text_is_marked_with_the_language_it_is_really_in_including_fallbacks() -> None:
    bank = make_bank()
    quiz = canvas.desired_quiz(bank, "ur", "classic")
    texts = [d.body["question"]["question_text"] for d in quiz.questions]
    assert any(t.startswith('<div lang="ur" dir="rtl">') for t in texts)
    assert any(t.startswith('<div lang="en" dir="ltr">') for t in texts)  # fell back to the source


def test_fields_over_canvas_limits_are_reported_naming_each_question() -> None:
    bank = make_bank(3)
    long = bank.questions[1].model_copy(update={"explanation": "x" * 6000, "stem": "y" * 17000})
    bank = bank.model_copy(update={"questions": (bank.questions[0], long, bank.questions[2])})
    with pytest.raises(ProblemsFound) as caught:
        list(canvas.desired_quizzes(bank, formats.ExportOptions(("en", "vi")), "classic"))
    messages = [str(p) for p in caught.value.problems]
    assert len(messages) == 4  # stem and explanation, in both locales
    assert all("question 'q0002'" in m for m in messages)
    assert any("limit of 5120" in m for m in messages) and any("limit of 16384" in m for m in messages)


def whole_document(bank: Bank, options: formats.ExportOptions) -> bytes:
    """The export as one json.dumps of the whole document built from what a push sends."""
    classic = list(canvas.desired_quizzes(bank, options, "classic"))
    new = list(canvas.desired_quizzes(bank, options, "new-quizzes"))
    locales = []
    for c, n in zip(classic, new, strict=True):
        classic_path, new_path = "/api/v1/courses/{course_id}/quizzes", "/api/quiz/v1/courses/{course_id}/quizzes"
        locales.append(
            {
                "locale": c.locale,
                "classic": {
                    "quiz": {"method": "POST", "path": classic_path, "body": c.body()},
                    "questions": [
                        {"method": "POST", "path": classic_path + "/{quiz_id}/questions", "body": d.body}
                        for d in c.questions
                    ],
                },
                "new_quizzes": {
                    "quiz": {"method": "POST", "path": new_path, "body": n.body()},
                    "items": [
                        {"method": "POST", "path": new_path + "/{assignment_id}/items", "body": d.body}
                        for d in n.questions
                    ],
                },
            }
        )
    document = {"bank": bank.id, "generator": "moe-lms canvas payloads 1", "locales": locales}
    return (json.dumps(document, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode()


@settings(max_examples=40, deadline=None)
@given(banks(), st.booleans())
def test_the_streamed_export_is_byte_for_byte_the_whole_document_a_push_would_send(
    bank: Bank, include_drafts: bool
) -> None:
    options = formats.ExportOptions.for_bank(bank, include_drafts=include_drafts)
    assert formats.get("canvas").dump(bank, options) == whole_document(bank, options)


def test_the_streamed_export_reports_every_field_over_a_limit_too() -> None:
    bank = make_bank(3)
    long = bank.questions[1].model_copy(update={"explanation": "x" * 6000})
    bank = bank.model_copy(update={"questions": (bank.questions[0], long, bank.questions[2])})
    with pytest.raises(ProblemsFound) as caught:
        formats.get("canvas").dump(bank, formats.ExportOptions(("en", "vi")))
    assert [p.where for p in caught.value.problems] == ["question 'q0002' (en)", "question 'q0002' (vi)"]


def test_export_format_canvas_writes_the_file(tmp_path: Path) -> None:
    loader.save_bank(make_bank(), tmp_path / "bank")
    result = CliRunner().invoke(
        main, ["export", "--format", "canvas", str(tmp_path / "bank"), "--locale", "ur", "-o", str(tmp_path / "x.json")]
    )
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "x.json").read_text())
    assert [loc["locale"] for loc in document["locales"]] == ["ur"]


def test_only_the_marker_moe_lms_appended_at_the_end_counts() -> None:
    bank = make_bank(1)
    quiz = canvas.desired_quiz(bank, "ur", "classic")
    description = quiz.body()["quiz"]["description"]
    own = canvas.QuizMarker(bank.id, "ur", quiz.fingerprint, quiz.digest)
    forged = "<p>[moe:ep-demo@vi:0123456789abcdef:0123456789abcdef]</p>"
    assert canvas.read_quiz_marker(forged + description) == own
    assert canvas.read_quiz_marker(description.replace("</p>", "</p>\n", 1)) == own  # whitespace Canvas may add
    assert canvas.read_quiz_marker(forged) is None  # not in the form moe-lms appends
    assert canvas.read_quiz_marker(description + "<p>more text after it</p>") is None  # not at the end
    name = quiz.questions[0].body["question"]["question_name"]
    assert canvas.read_question_marker(name) is not None
    assert canvas.read_question_marker(f"Renamed {name}") is None
    assert canvas.read_question_marker(name.replace("q0001 ", "q0002 ", 1)) is None  # the name and the key disagree


# --- the per-shape layouts against the thorough build (tests/canvas_reference.py: the bodies dict by dict) --------


@settings(max_examples=60, deadline=None)
@given(banks(texts=mixed_texts), st.booleans())
def test_the_export_is_byte_for_byte_the_document_built_dict_by_dict(bank: Bank, include_drafts: bool) -> None:
    options = formats.ExportOptions.for_bank(bank, include_drafts=include_drafts)
    assert formats.get("canvas").dump(bank, options) == canvas_reference.document(bank, options)


@settings(max_examples=60, deadline=None)
@given(banks(texts=mixed_texts), st.sampled_from(canvas.ENGINES))
def test_a_push_sends_the_bodies_built_dict_by_dict_keys_in_the_same_order(bank: Bank, engine: canvas.Engine) -> None:
    for locale in bank.locales:
        quiz = canvas.desired_quiz(bank, locale, engine, image_url=image_ref)
        expected = canvas_reference.bodies(bank, locale, engine)
        assert [d.fingerprint for d in quiz.questions] == [fp for fp, _ in expected]
        assert [json.dumps(d.body) for d in quiz.questions] == [json.dumps(body) for _, body in expected]


def test_the_shipped_banks_export_and_push_as_built_dict_by_dict() -> None:
    for bank_dir in sorted(Path(__file__).resolve().parents[1].glob("question_bank/*/")):
        bank = loader.load_bank(bank_dir)  # (moe-serving-arithmetic: math, images, code, links, right-to-left)
        options = formats.ExportOptions.for_bank(bank)
        bank = formats.concrete(bank, options, quizzes=False)[0]  # (its variants, as the writer and push get them)
        assert formats.get("canvas").dump(bank, options) == canvas_reference.document(bank, options), bank_dir.name
        for engine in canvas.ENGINES:
            # (every question in bank order: New Quizzes cannot draw a variant, and the bodies are the same)
            quiz = canvas.desired_quiz(bank, "ur", engine, image_url=image_ref, quiz=flat_quiz(bank))
            expected = canvas_reference.bodies(bank, "ur", engine)
            assert [(d.fingerprint, json.dumps(d.body)) for d in quiz.questions] == [
                (fp, json.dumps(body)) for fp, body in expected
            ]


@settings(max_examples=300, deadline=None)
@given(
    bank_id=st.text(max_size=12),
    locale=st.text(max_size=6),
    question_id=st.text(max_size=12),
    choice_ids=st.lists(st.text(max_size=12), min_size=1, max_size=5),
)
def test_choice_uuids_are_uuid5_of_the_stable_ids(
    bank_id: str, locale: str, question_id: str, choice_ids: list[str]
) -> None:
    bank = SimpleNamespace(id=bank_id)
    question = SimpleNamespace(id=question_id, choices=[SimpleNamespace(id=c) for c in choice_ids])
    names = [f"{bank_id}/{locale}/{question_id}/{c}" for c in choice_ids]
    try:
        expected = [str(uuid.uuid5(canvas.NAMESPACE, name)) for name in names]
    except UnicodeEncodeError:  # (a lone surrogate: no stable id holds one)
        return
    assert canvas._choice_uuids(bank, locale, question) == expected  # type: ignore[arg-type]
