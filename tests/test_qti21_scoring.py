"""What a QTI 2.1 engine does with our responseProcessing: choosing an answer scores it and shows that
choice's explanation plus the general one. No QTI 2.1 engine is installable from PyPI, so
qti_support.Evaluator runs exactly the constructs the items use (and refuses any other)."""

from __future__ import annotations

import itertools

import pytest

from moe_lms.formats.qti21 import GENERAL_FEEDBACK as GENERAL
from moe_lms.model import Bank

from .qti_support import Evaluator, export, item_root, rich_bank


@pytest.fixture(scope="module")
def package() -> bytes:
    return export(rich_bank(), ["en"])


def test_choosing_each_choice_of_a_single_answer_item_scores_it_and_shows_its_feedback(package: bytes) -> None:
    item = Evaluator(item_root(package, "single-md", "en"))
    for choice, score in (("a", 2.5), ("b", 0.0), ("c", 0.0)):
        outcome = item.run(choice)
        assert outcome["SCORE"] == score
        assert outcome["FEEDBACK"] == frozenset({choice, GENERAL})
        assert item.shown_feedback() == [choice, GENERAL]


def test_true_false_items_score_like_single_answer_items(package: bytes) -> None:
    item = Evaluator(item_root(package, "tf", "en"))
    assert item.run("true")["SCORE"] == 1.0
    assert item.run("false")["SCORE"] == 0.0
    assert item.shown_feedback() == ["false", GENERAL]


def test_multiple_answer_items_give_full_marks_only_for_the_exact_key_and_partial_credit_otherwise(
    package: bytes,
) -> None:
    item = Evaluator(item_root(package, "multi", "en"))
    expected = {
        ("dispatch", "combine"): 3.0,
        ("dispatch",): 1.5,
        ("dispatch", "broadcast"): 0.0,
        ("dispatch", "combine", "reduce"): 1.5,
        ("broadcast", "reduce"): 0.0,  # the mapping's lower bound
        ("dispatch", "combine", "broadcast", "reduce"): 0.0,
    }
    for chosen, score in expected.items():
        outcome = item.run(frozenset(chosen))
        assert outcome["SCORE"] == pytest.approx(score), chosen
        assert outcome["FEEDBACK"] == frozenset({*chosen, GENERAL})
        shown = item.shown_feedback()
        assert set(shown) == {*chosen, GENERAL}


def test_every_subset_of_choices_shows_exactly_the_feedback_of_the_chosen_ones(package: bytes) -> None:
    item = Evaluator(item_root(package, "multi", "en"))
    choices = ["dispatch", "combine", "broadcast", "reduce"]
    for size in range(1, len(choices) + 1):
        for chosen in itertools.combinations(choices, size):
            item.run(frozenset(chosen))
            assert item.shown_feedback() == [c for c in choices if c in chosen] + [GENERAL]
            assert 0.0 <= item.variables["SCORE"] <= 3.0


def test_no_answer_scores_zero_and_shows_no_feedback(package: bytes) -> None:
    for question_id, empty in (("single-md", None), ("multi", frozenset())):
        item = Evaluator(item_root(package, question_id, "en"))
        outcome = item.run(empty)
        assert outcome["SCORE"] == 0.0
        assert outcome["FEEDBACK"] is None
        assert item.shown_feedback() == []


def test_the_correct_choice_of_every_shipped_question_earns_its_points_in_every_locale(shipped_bank: Bank) -> None:
    package = export(shipped_bank)
    for locale in shipped_bank.locales:
        for question in shipped_bank.questions:
            item = Evaluator(item_root(package, question.id, locale))
            for choice in question.choices:
                response = choice.id if question.kind.value != "multiple" else frozenset({choice.id})
                outcome = item.run(response)
                assert outcome["SCORE"] == (question.points if choice.correct else 0)
                assert item.shown_feedback() == [choice.id, GENERAL]
