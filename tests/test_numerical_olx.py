"""A numerical question in Open edX OLX (issue 30): a capa ``numericalresponse`` graded by capa itself (as
tests/test_olx.py runs it): the right value and a value inside the tolerance are correct with the right value's
explanation as capa's hint; capa has no hint for a wrong number, so each anticipated value's explanation is in the
solution, listed with its value; the unit is the box's trailing text."""

from __future__ import annotations

from typing import Any

import lxml.html
import pytest

from moe_lms.locales import resolve
from moe_lms.numeric import number_text
from moe_lms.richtext import plain_text

from .numerical_bank import numerical_bank
from .test_olx import answer_id, capa, export, hints, problem_xml  # noqa: F401  (capa: the fixture)


@pytest.mark.parametrize("locale", ["en", "ur", "vi"])
def test_capa_grades_typed_numbers_with_the_tolerance_and_hints_the_right_values_explanation(
    capa: Any,  # noqa: F811
    locale: str,
) -> None:
    bank = numerical_bank()
    view = resolve(bank, locale)
    archive = export(bank, locale)
    for q in (q for q in bank.questions if q.numerical):
        right = q.correct_choices[0]
        value, tolerance = q.value_of(right), q.tolerance_of(right)
        typed = {
            number_text(value): True,
            number_text(value + tolerance): True,  # the edge of the range
            **{number_text(q.value_of(c)): False for c in q.choices if not c.correct},
            "123456": False,
        }
        for answer, right_answer in typed.items():
            problem = capa(problem_xml(archive, q.id), q.id)
            key = answer_id(problem)
            grade = problem.grade_answers({key: answer})
            assert grade.get_correctness(key) == ("correct" if right_answer else "incorrect"), (q.id, answer)
            assert grade.get_npoints(key) == (q.points if right_answer else 0)
            shown = [plain_text(" ".join(h.itertext())) for h in hints(grade.get_msg(key))]
            if right_answer:
                assert len(shown) == 1 and plain_text(view.choice_explanation(q, right).text) in shown[0]
            else:
                assert shown == []
        page = lxml.html.fromstring(capa(problem_xml(archive, q.id), q.id, render=True).get_html())
        unit = view.unit(q)
        if unit is not None:
            assert unit.text in page.text_content()
        solution = problem_xml(archive, q.id)
        for c in q.choices:
            if not c.correct:
                assert f'data-value="{number_text(q.value_of(c))}"' in solution
                assert plain_text(view.choice_explanation(q, c).text) in plain_text(
                    lxml.html.fromstring(solution).text_content()
                )


def test_capa_grades_the_shipped_banks_numerical_questions_in_every_locale(capa: Any) -> None:  # noqa: F811
    from pathlib import Path

    from moe_lms.loader import load_bank

    bank = load_bank(Path(__file__).resolve().parents[1] / "question_bank" / "moe-serving-arithmetic")
    numerical = [q for q in bank.questions if q.numerical]
    assert len(numerical) >= 3
    for locale in bank.locales:
        archive = export(bank, locale)
        for q in numerical:
            for c in q.choices:
                problem = capa(problem_xml(archive, q.id), q.id)
                key = answer_id(problem)
                grade = problem.grade_answers({key: number_text(q.value_of(c))})
                assert grade.get_correctness(key) == ("correct" if c.correct else "incorrect"), (locale, q.id, c.id)
