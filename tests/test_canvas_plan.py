"""plan(desired, observed): pure, by stable id and fingerprint; what --dry-run prints and apply does."""

from __future__ import annotations

from moe_lms.formats import canvas
from moe_lms.formats.canvas import DesiredQuiz, QuestionMarker, QuizMarker
from moe_lms.lms.canvas import Action, RemoteQuestion, RemoteQuiz, plan
from tests.canvas_helpers import make_bank

BANK = make_bank(5)
LOCALES = BANK.locales


def desired(engine: canvas.Engine = "classic", bank=BANK, locale: str = "ur") -> DesiredQuiz:
    return canvas.desired_quiz(bank, locale, engine)


def remote(
    d: DesiredQuiz,
    *,
    published: bool = False,
    shown: str | None = None,
    quiz_id: str = "10",
    questions: list[RemoteQuestion] | None = None,
    fingerprint: str | None = None,
) -> RemoteQuiz:
    """The quiz as a complete earlier push left it (or as given)."""
    if questions is None:
        questions = [
            RemoteQuestion(str(100 + i), i, QuestionMarker(d.bank_id, q.key, q.fingerprint))
            for i, q in enumerate(d.questions, start=1)
        ]
    marker = QuizMarker(d.bank_id, d.locale, fingerprint or d.fingerprint, shown or d.digest)
    return RemoteQuiz(quiz_id, marker, published, tuple(questions))


def test_an_empty_course_gets_a_quiz_and_every_question_then_one_reorder() -> None:
    d = desired()
    p = plan([d], [], engine="classic", known_locales=LOCALES)
    (step,) = p.quizzes
    assert step.action is Action.CREATE and step.count(Action.CREATE) == 5
    assert step.reorder and step.final_write is None
    assert p.writes == 1 + 5 + 1


def test_a_course_that_already_matches_needs_no_write_for_either_engine() -> None:
    for engine in canvas.ENGINES:
        d = desired(engine)
        p = plan([d], [remote(d)], engine=engine, known_locales=LOCALES)
        assert p.writes == 0
        assert p.quizzes[0].count(Action.UNCHANGED) == 5


def test_only_the_edited_question_is_updated() -> None:
    d = desired()
    old = remote(d)
    q = BANK.questions[2]
    edited = BANK.model_copy(
        update={"questions": (*BANK.questions[:2], q.model_copy(update={"points": 5}), *BANK.questions[3:])}
    )
    p = plan([desired(bank=edited)], [old], engine="classic", known_locales=LOCALES)
    step = p.quizzes[0]
    assert [(s.action, s.key) for s in step.questions if s.action is not Action.UNCHANGED] == [(Action.UPDATE, q.id)]
    assert p.writes == 1  # the unpublished quiz itself needs no write


def test_questions_the_bank_dropped_are_deleted_only_with_prune() -> None:
    d = desired()
    extra = RemoteQuestion("999", 6, QuestionMarker(d.bank_id, "gone", "0" * 16))
    old = remote(d, questions=[*remote(d).questions, extra])
    kept = plan([d], [old], engine="classic", known_locales=LOCALES)
    assert [s.action for s in kept.quizzes[0].questions if s.key == "gone"] == [Action.KEEP]
    assert kept.writes == 0
    pruned = plan([d], [old], engine="classic", known_locales=LOCALES, prune=True)
    assert [s.action for s in pruned.quizzes[0].questions if s.key == "gone"] == [Action.DELETE]
    assert pruned.writes == 1


def test_a_duplicate_of_a_question_is_deleted_and_a_foreign_question_is_left_alone() -> None:
    d = desired()
    first = remote(d).questions
    duplicate = RemoteQuestion("555", 9, first[0].marker)
    foreign = RemoteQuestion("556", 10, None)
    p = plan([d], [remote(d, questions=[*first, duplicate, foreign])], engine="classic", known_locales=LOCALES)
    step = p.quizzes[0]
    assert {(s.action, s.remote_id) for s in step.questions if s.action is not Action.UNCHANGED} == {
        (Action.DELETE, "555"),
        (Action.KEEP, "556"),
    }
    assert step.order_tail == ("556",) and not step.reorder


def test_classic_questions_out_of_order_get_one_reorder_and_new_quizzes_items_get_their_position() -> None:
    for engine in canvas.ENGINES:
        d = desired(engine)
        questions = list(remote(d).questions)
        a, b = questions[0], questions[1]
        questions[0] = RemoteQuestion(a.id, b.position, a.marker)
        questions[1] = RemoteQuestion(b.id, a.position, b.marker)
        p = plan([d], [remote(d, questions=questions)], engine=engine, known_locales=LOCALES)
        step = p.quizzes[0]
        if engine == "classic":
            assert step.reorder and p.writes == 1
        else:
            assert not step.reorder
            assert [s.why for s in step.questions if s.action is Action.UPDATE] == [
                "moved to position 1",
                "moved to position 2",
            ]


def test_a_published_classic_quiz_with_changes_is_flagged_and_republished_only_with_publish() -> None:
    d = desired()
    stale = remote(d, published=True, shown="f" * 16)
    quiet = plan([d], [stale], engine="classic", known_locales=LOCALES)
    assert quiet.writes == 0 and "published" in quiet.all_warnings[0]
    loud = plan([d], [stale], engine="classic", known_locales=LOCALES, publish=True)
    step = loud.quizzes[0]
    assert step.final_write is not None and step.final_write["quiz"]["published"] is True
    assert canvas.read_quiz_marker(step.final_write["quiz"]["description"]).shown == d.digest
    fresh = plan([d], [remote(d, published=True)], engine="classic", known_locales=LOCALES, publish=True)
    assert fresh.writes == 0 and not fresh.all_warnings


def test_editing_a_published_quiz_without_publish_keeps_the_record_of_what_students_see() -> None:
    d = desired()
    old = remote(d, published=True, shown="f" * 16, fingerprint="0" * 16)
    step = plan([d], [old], engine="classic", known_locales=LOCALES).quizzes[0]
    assert step.final_write is not None and "published" not in step.final_write["quiz"]
    assert canvas.read_quiz_marker(step.final_write["quiz"]["description"]).shown == "f" * 16


def test_new_quizzes_publish_through_the_assignment_once() -> None:
    d = desired("new-quizzes")
    assert (
        plan([d], [remote(d)], engine="new-quizzes", known_locales=LOCALES, publish=True).quizzes[0].publish_assignment
    )
    done = plan([d], [remote(d, published=True)], engine="new-quizzes", known_locales=LOCALES, publish=True)
    assert done.writes == 0


def test_copies_of_a_quiz_and_quizzes_of_dropped_locales_are_reported_and_deleted_only_with_prune() -> None:
    d = desired()
    copy = remote(d, quiz_id="11")
    old_locale = RemoteQuiz("12", QuizMarker(BANK.id, "fr", "0" * 16, "0" * 16), False)
    kept = plan([d], [copy, remote(d), old_locale], engine="classic", known_locales=LOCALES)
    assert kept.quizzes[0].remote_id == "10" and kept.writes == 0 and len(kept.all_warnings) == 2
    pruned = plan([d], [copy, remote(d), old_locale], engine="classic", known_locales=LOCALES, prune=True)
    assert [q.id for q in pruned.delete_quizzes] == ["11", "12"]


def test_an_interrupted_first_push_is_completed_without_redoing_what_was_made() -> None:
    d = desired()
    half = list(remote(d).questions)[:2]
    step = plan([d], [remote(d, questions=half)], engine="classic", known_locales=LOCALES).quizzes[0]
    assert [s.action for s in step.questions] == [Action.UNCHANGED] * 2 + [Action.CREATE] * 3
    assert step.reorder
