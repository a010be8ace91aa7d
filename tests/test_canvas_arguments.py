"""`push canvas` checks its arguments before any request: a page's address as --base-url, a course that is no id."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from click.testing import CliRunner, Result

from moe_lms.cli import main

from .canvas_server import TOKEN, Canvas, CanvasServer
from .conftest import SHIPPED_BANK_DIR


@pytest.fixture
def app() -> Iterator[Canvas]:
    canvas = Canvas()
    with CanvasServer(canvas):
        yield canvas


def push(base_url: str, course: str = "1") -> Result:
    argv = ["push", "canvas", "--base-url", base_url, "--course", course, "--dry-run", str(SHIPPED_BANK_DIR)]
    return CliRunner().invoke(main, argv, env={"CANVAS_TOKEN": TOKEN})


def test_a_course_page_as_base_url_is_refused_with_the_two_arguments_it_means(app: Canvas) -> None:
    result = push(f"{app.base_url}/courses/1234/quizzes")
    assert result.exit_code == 2
    assert (
        f"is the address of a page in Canvas (/courses/1234/quizzes), not of Canvas itself: give --base-url "
        f"{app.base_url} and --course 1234"
    ) in result.output
    assert app.log == []


def test_a_page_under_a_prefix_keeps_the_prefix(app: Canvas) -> None:
    result = push(f"{app.base_url}/canvas/api/v1")
    assert result.exit_code == 2
    assert f"give --base-url {app.base_url}/canvas" in result.output
    assert app.log == []


@pytest.mark.parametrize("course", ["abc", "12a", "", "1/quizzes", "-1"])
def test_a_course_that_is_no_course_id_is_refused_before_any_request(app: Canvas, course: str) -> None:
    result = push(app.base_url, course)
    assert result.exit_code == 2
    assert "is not a course id: give the number in the course's address" in result.output
    assert app.log == []


def test_a_numeric_course_still_reaches_canvas(app: Canvas) -> None:
    result = push(app.base_url, "1")
    assert result.exit_code == 0, result.output
    assert app.log != []
