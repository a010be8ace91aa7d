"""Quizzes in the bank: sections of fixed questions or tagged pools, a draw of N, and check's problems for them."""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

import pytest

from moe_lms.loader import bank_yaml, check_bank, load_bank, save_bank
from moe_lms.locales import resolve
from moe_lms.model import Bank, Translation, quiz_for, resolve_quiz, strings, whole_bank_quiz

from .quiz_bank import FIXED, MIDTERM, PER_ATTEMPT, quiz_bank, write_quiz_bank


def problems(directory: Path) -> list[str]:
    _bank, found = check_bank(directory)
    return [str(p) for p in found]


def midterm_with(**section_changes: dict[str, object]) -> list[dict[str, object]]:
    """The midterm with some of its sections changed (by section id; None removes a key)."""
    sections = []
    for section in MIDTERM["sections"]:  # type: ignore[attr-defined]
        changed = {**section, **section_changes.get(section["id"], {})}
        sections.append({k: v for k, v in changed.items() if v is not None})
    return [{**MIDTERM, "sections": sections}]


def test_a_quiz_resolves_into_its_sections_with_their_pools_and_draws() -> None:
    bank = quiz_bank()
    drawn = resolve_quiz(bank, bank.quiz("midterm"))
    assert [(s.id, len(s.questions), s.draw, s.draws) for s in drawn] == [
        ("routing", 20, 2, True),
        ("memory", 20, 3, True),
        ("fixed", 2, 2, False),
    ]
    assert [q.id for q in drawn[2].questions] == list(FIXED)
    assert sum(s.draw for s in drawn) == PER_ATTEMPT
    assert drawn[1].group_points == 2.0 and drawn[0].group_points == 1.0


def test_a_bank_without_quizzes_is_one_quiz_of_every_question_in_bank_order() -> None:
    bank = quiz_bank([])
    quiz = quiz_for(bank, None)
    assert quiz == whole_bank_quiz(bank)
    (section,) = resolve_quiz(bank, quiz)
    assert [q.id for q in section.questions] == [q.id for q in bank.questions]
    assert not section.draws
    assert "quizzes" not in bank_yaml(bank)


def test_quiz_titles_intros_and_section_titles_are_strings_to_translate() -> None:
    paths = [path for path, _ in strings(quiz_bank())]
    quiz_paths = [p for p in paths if p.startswith("quizzes/")]
    assert quiz_paths == [
        "quizzes/midterm/title",
        "quizzes/midterm/intro",
        "quizzes/midterm/sections/routing/title",
        "quizzes/midterm/sections/memory/title",
        "quizzes/midterm/sections/fixed/title",
    ]
    assert paths.index("quizzes/midterm/title") < paths.index("routing-01/stem")


def test_a_locale_shows_a_quiz_in_its_translation() -> None:
    bank = quiz_bank()
    bank = bank.model_copy(
        update={
            "target_locales": ("ur",),
            "translations": {"ur": {"quizzes/midterm/title": Translation("وسط مدتی امتحان", bank.quizzes[0].title)}},
        }
    )
    view = resolve(bank, "ur")
    assert view.quiz_title(bank.quizzes[0]).text == "وسط مدتی امتحان"
    assert view.section_title(bank.quizzes[0], bank.quizzes[0].sections[0]).fell_back  # type: ignore[union-attr]
    assert view.quiz_title(whole_bank_quiz(bank)).text == bank.title


def test_a_bank_with_a_quiz_loads_back_as_written(tmp_path: Path) -> None:
    bank = load_bank(write_quiz_bank(tmp_path))
    assert bank.quizzes == quiz_bank().quizzes
    assert "from:" in (tmp_path / "bank.yaml").read_text(encoding="utf-8")


def test_a_draw_larger_than_its_pool_names_file_line_and_quiz(tmp_path: Path) -> None:
    write_quiz_bank(tmp_path, midterm_with(routing={"draw": 21}))
    (found,) = problems(tmp_path)
    text = (tmp_path / "bank.yaml").read_text(encoding="utf-8").splitlines()
    line = int(found.split(":")[1])
    assert text[line - 1].strip() == "draw: 21"
    assert "quiz 'midterm'" in found
    assert "section 'routing' draws 21 of a pool of 20 question(s)" in found


def test_an_unknown_question_id_is_named_at_its_line(tmp_path: Path) -> None:
    write_quiz_bank(tmp_path, midterm_with(fixed={"questions": ["network-01", "network-99"]}))
    (found,) = problems(tmp_path)
    line = int(found.split(":")[1])
    assert (tmp_path / "bank.yaml").read_text(encoding="utf-8").splitlines()[line - 1].strip() == "- network-99"
    assert "section 'fixed': no question 'network-99' in the bank" in found


def test_an_unknown_tag_is_named_with_the_nearest_tag_and_no_second_error_for_the_same_typo(tmp_path: Path) -> None:
    """Issue 34 (C6): the empty pool the typo leaves is not a second error."""
    write_quiz_bank(tmp_path, midterm_with(routing={"from": {"tags": ["routnig"]}}))
    (found,) = problems(tmp_path)
    assert "section 'routing': no question is tagged 'routnig' (did you mean 'routing'?)" in found
    assert "quiz 'midterm'" in found


def test_an_unknown_question_id_is_named_with_the_nearest_id(tmp_path: Path) -> None:
    write_quiz_bank(tmp_path, midterm_with(fixed={"questions": ["routng-01"]}))
    found = problems(tmp_path)
    assert any("no question 'routng-01' in the bank (did you mean 'routing-01'?)" in p for p in found), found


def test_a_question_in_two_sections_of_one_quiz_is_a_problem(tmp_path: Path) -> None:
    write_quiz_bank(tmp_path, midterm_with(fixed={"questions": ["routing-01", "network-01"]}))
    (found,) = problems(tmp_path)
    assert "question 'routing-01' is in sections 'routing' and 'fixed': a quiz asks a question once" in found


def test_a_draw_from_questions_worth_different_points_asks_for_one_value(tmp_path: Path) -> None:
    bank = quiz_bank()
    questions = list(bank.questions)
    questions[0] = questions[0].model_copy(update={"points": 3.0})
    data = bank.model_copy(update={"questions": tuple(questions)})
    (tmp_path / "bank.yaml").write_text(bank_yaml(data), encoding="utf-8")
    (found,) = problems(tmp_path)
    assert "section 'routing' draws from questions worth different points (1, 3)" in found
    assert "set points: on the section" in found
    # the memory section draws from the same kind of pool but gives each question its points: no problem there
    assert "'memory'" not in found


def test_a_section_needs_questions_or_a_pool_but_not_both(tmp_path: Path) -> None:
    write_quiz_bank(tmp_path, [])
    text = (tmp_path / "bank.yaml").read_text(encoding="utf-8").rstrip("\n") + "\n"
    text += textwrap.dedent(
        """\
        quizzes:
          - id: broken
            title: Broken
            sections:
              - id: both
                questions: [routing-01]
                from: {tags: [memory]}
        """
    )
    (tmp_path / "bank.yaml").write_text(text, encoding="utf-8")
    (found,) = problems(tmp_path)
    assert "either questions: (ids) or from: {tags: [...]}" in found
    assert "quiz 'broken'" in found


def test_a_mistyped_quiz_key_gets_a_hint(tmp_path: Path) -> None:
    text = (write_quiz_bank(tmp_path) / "bank.yaml").read_text(encoding="utf-8")
    (tmp_path / "bank.yaml").write_text(text.replace("time_limit_minutes:", "time_limit_minute:"), encoding="utf-8")
    found = problems(tmp_path)
    assert any("unknown key 'time_limit_minute' (did you mean 'time_limit_minutes'?)" in p for p in found)


def test_asking_for_a_quiz_the_bank_does_not_have_lists_the_ones_it_has() -> None:
    with pytest.raises(KeyError, match=r"no quiz 'final' .*its quizzes: midterm"):
        quiz_bank().quiz("final")


def test_a_quizs_strings_go_into_each_locales_po_file_like_every_learner_visible_string(tmp_path: Path) -> None:
    bank = quiz_bank().model_copy(update={"target_locales": ("ur",)})
    save_bank(bank, tmp_path)
    po_text = (tmp_path / "locales" / "ur.po").read_text(encoding="utf-8")
    assert 'msgctxt "quizzes/midterm/title"\nmsgid "Midterm: expert parallelism"' in po_text
    assert 'msgctxt "quizzes/midterm/sections/fixed/title"\nmsgid "Always asked"' in po_text
    loaded = load_bank(tmp_path)
    assert loaded.quizzes == bank.quizzes


# -- apart: questions no attempt shows together (issue 33) -------------------------------------------------------


def attempts(bank: Bank, quiz_id: str) -> list[frozenset[str]]:
    """Every set of questions an attempt at the quiz can show: each section draws on its own, as every format's
    draw does (Moodle random questions, QTI selection, Canvas question groups, Open edX problem banks)."""
    found: list[frozenset[str]] = [frozenset()]
    for section in resolve_quiz(bank, bank.quiz(quiz_id)):
        ids = [q.id for q in section.questions]
        found = [a | set(pick) for a in found for pick in itertools.combinations(ids, section.draw)]
    return found


def test_a_set_kept_apart_in_one_section_that_draws_one_is_never_in_one_attempt(tmp_path: Path) -> None:
    quiz = {
        **MIDTERM,
        "sections": [*MIDTERM["sections"][:2], {"id": "pair", "questions": ["network-01", "network-02"], "draw": 1}],  # type: ignore[index]
        "apart": [["network-01", "network-02"]],
    }
    write_quiz_bank(tmp_path, [quiz])
    assert problems(tmp_path) == []
    bank = load_bank(tmp_path)
    assert bank.quizzes[0].apart == (("network-01", "network-02"),)
    assert all(not {"network-01", "network-02"} <= a for a in attempts(bank, "midterm"))


def test_a_set_kept_apart_that_a_draw_or_two_sections_can_bring_together_is_refused_with_the_reason(
    tmp_path: Path,
) -> None:
    # routing-01 and routing-02 share a section drawing 2; network-01 is fixed and routing-03 drawn beside it
    quiz = {**MIDTERM, "apart": [["routing-01", "routing-02"], ["network-01", "routing-03"]]}
    write_quiz_bank(tmp_path, [quiz])
    found = problems(tmp_path)
    assert len(found) == 2, found
    text = (tmp_path / "bank.yaml").read_text(encoding="utf-8").splitlines()
    assert text[int(found[0].split(":")[1]) - 1].strip().startswith("- - routing-01")
    assert "apart: one attempt can show 2 of 'routing-01', 'routing-02' (section 'routing' asks 2 of" in found[0]
    assert "section 'routing' asks 1 of 'routing-03'; section 'fixed' asks 1 of 'network-01'" in found[1]
    assert all("put the set in one section that draws 1" in p and "quiz 'midterm'" in p for p in found)
    bank = quiz_bank([quiz])
    with pytest.raises(ValueError, match="apart: one attempt can show 2"):  # (and no format is given it)
        resolve_quiz(bank, bank.quizzes[0])


def test_a_set_kept_apart_names_questions_the_quiz_does_not_ask(tmp_path: Path) -> None:
    quiz = {**MIDTERM, "apart": [["network-01", "network-99"], ["routing-01"]]}
    write_quiz_bank(tmp_path, [quiz])
    found = problems(tmp_path)
    assert any("apart: question 'network-99' is in none of the quiz's sections" in p for p in found)
    assert any("a set to keep apart needs two or more" in p for p in found)


def test_the_shipped_check_quiz_never_shows_a_cue_beside_its_target() -> None:
    # The lecturer's review: ep-communication's key gives away top2-dispatch-combine's, and
    # routing-load-imbalance and straggler-expert cue each other; every topic stays in every attempt.
    from .conftest import SHIPPED_BANK_DIR

    bank = load_bank(SHIPPED_BANK_DIR)
    quiz = bank.quiz("check")
    cued = [{"ep-communication", "top2-dispatch-combine"}, {"routing-load-imbalance", "straggler-expert"}]
    assert [set(s) for s in quiz.apart] == cued
    every = attempts(bank, "check")
    assert every and all(not pair <= a for a in every for pair in cued)
    assert {len(a) for a in every} == {6}
    assert all({"ep-distributes", "capacity-padding", "moe-sparse-compute", "hide-all-to-all"} <= a for a in every)
    assert all(a & pair for a in every for pair in cued)  # (each topic of a cued pair is asked once)
