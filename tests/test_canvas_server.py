"""The test server follows the Canvas contract (shared/reference/canvas-api.md), traps included.

Spoken to with plain `requests`, as any client would: these pin down the behaviour the push is tested against.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from .canvas_server import TOKEN, Canvas, CanvasServer, Faults

AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def app() -> Iterator[Canvas]:
    canvas = Canvas()
    with CanvasServer(canvas):
        yield canvas


def quiz(app: Canvas) -> int:
    made = requests.post(f"{app.base_url}/api/v1/courses/1/quizzes", data={"quiz[title]": "Q"}, headers=AUTH)
    return int(made.json()["id"])


def questions_url(app: Canvas, quiz_id: int) -> str:
    return f"{app.base_url}/api/v1/courses/1/quizzes/{quiz_id}/questions"


def test_form_bodies_nest_like_rails_and_answer_comments_plural_is_dropped(app: Canvas) -> None:
    form = [
        ("question[question_type]", "multiple_choice_question"),
        ("question[answers][][answer_text]", "A"),
        ("question[answers][][answer_weight]", "100"),
        ("question[answers][][answer_comments]", "dropped"),
        ("question[answers][][answer_text]", "B"),
        ("question[answers][][answer_comment_html]", "<p>kept</p>"),
    ]
    made = requests.post(questions_url(app, quiz(app)), data=form, headers=AUTH)
    assert made.status_code == 200
    answers = made.json()["answers"]
    assert [(a["text"], a["weight"], a["comments"], a["comments_html"]) for a in answers] == [
        ("A", 100.0, "", ""),
        ("B", 0.0, "", "<p>kept</p>"),
    ]


def test_without_a_weight_of_100_the_first_answer_is_made_correct(app: Canvas) -> None:
    body: dict[str, Any] = {
        "question": {
            "question_type": "multiple_choice_question",
            "answers": [{"answer_text": "A"}, {"answer_text": "B", "answer_weight": 50}],
        }
    }
    made = requests.post(questions_url(app, quiz(app)), json=body, headers=AUTH).json()
    assert [a["weight"] for a in made["answers"]] == [100.0, 50]


def test_answers_keyed_from_1_are_a_500_and_a_misspelt_type_is_stored(app: Canvas) -> None:
    url = questions_url(app, quiz(app))
    form = {"question[question_type]": "multiple_choice_question", "question[answers][1][answer_text]": "A"}
    failed = requests.post(url, data=form, headers=AUTH)
    assert failed.status_code == 500 and failed.json()["errors"][0]["error_code"] == "internal_server_error"
    typo = requests.post(url, json={"question": {"question_type": "multiple_choice"}}, headers=AUTH)
    assert typo.status_code == 200 and typo.json()["question_type"] == "multiple_choice"


def test_classic_updates_are_put_only_and_new_quizzes_updates_are_patch_only(app: Canvas) -> None:
    quiz_id = quiz(app)
    assert (
        requests.patch(f"{app.base_url}/api/v1/courses/1/quizzes/{quiz_id}", json={}, headers=AUTH).status_code == 404
    )
    nq = requests.post(f"{app.base_url}/api/quiz/v1/courses/1/quizzes", json={"quiz": {"title": "N"}}, headers=AUTH)
    assert nq.json()["id"] == str(nq.json()["id"])  # the assignment id, as a string
    url = f"{app.base_url}/api/quiz/v1/courses/1/quizzes/{nq.json()['id']}"
    assert requests.put(url, json={"quiz": {"title": "M"}}, headers=AUTH).status_code == 404
    assert requests.patch(url, json={"quiz": {"title": "M"}}, headers=AUTH).json()["title"] == "M"


def test_auth_errors_have_canvas_s_shapes(app: Canvas) -> None:
    url = f"{app.base_url}/api/v1/courses/1/quizzes"
    invalid = requests.get(url, headers={"Authorization": "Bearer nope"})
    assert invalid.status_code == 401 and invalid.json() == {"errors": [{"message": "Invalid access token."}]}
    assert invalid.headers["WWW-Authenticate"] == 'Bearer realm="canvas-lms"'
    lowercase = requests.get(url, headers={"Authorization": f"bearer {TOKEN}"})  # the scheme is case-sensitive
    assert lowercase.status_code == 401 and lowercase.json()["status"] == "unauthenticated"
    assert requests.get(f"{app.base_url}/api/v1/courses/9/quizzes").status_code == 404


def test_lists_are_paged_through_link_headers(app: Canvas) -> None:
    for _ in range(12):
        quiz(app)
    first = requests.get(f"{app.base_url}/api/v1/courses/1/quizzes", headers=AUTH)
    assert len(first.json()) == 10  # the default page size
    assert [rel for rel in first.links] == ["current", "next", "first", "last"]
    second = requests.get(first.links["next"]["url"], headers=AUTH)
    assert len(second.json()) == 2 and "next" not in second.links


def test_throttling_answers_403_in_plain_text_with_only_the_remaining_budget(app: Canvas) -> None:
    app.faults = Faults(throttle_rate=1.0)
    throttled = requests.get(f"{app.base_url}/api/v1/courses/1/quizzes", headers=AUTH)
    assert (throttled.status_code, throttled.text) == (403, "403 Forbidden (Rate Limit Exceeded)\n")
    assert "X-Rate-Limit-Remaining" in throttled.headers and "X-Request-Cost" not in throttled.headers
    app.faults = Faults()
    ok = requests.get(f"{app.base_url}/api/v1/courses/1/quizzes", headers=AUTH)
    assert float(ok.headers["X-Request-Cost"]) > 0 and float(ok.headers["X-Rate-Limit-Remaining"]) <= 600


def test_json_escapes_angle_brackets_and_ampersands_like_rails(app: Canvas) -> None:
    made = requests.post(
        f"{app.base_url}/api/v1/courses/1/quizzes", json={"quiz": {"description": "<p>&</p>"}}, headers=AUTH
    )
    assert "\\u003cp\\u003e\\u0026" in made.text and made.json()["description"] == "<p>&</p>"


def test_positional_items_insert_at_their_position_and_shift_the_later_ones(app: Canvas) -> None:
    app.positional_items = True
    nq = requests.post(f"{app.base_url}/api/quiz/v1/courses/1/quizzes", json={"quiz": {"title": "N"}}, headers=AUTH)
    items = f"{app.base_url}/api/quiz/v1/courses/1/quizzes/{nq.json()['id']}/items"
    choice = str(uuid.uuid4())
    entry = {
        "item_body": "<p>?</p>",
        "interaction_type_slug": "choice",
        "interaction_data": {"choices": [{"id": choice, "position": 1, "item_body": "<p>a</p>"}]},
        "scoring_data": {"value": choice},
        "scoring_algorithm": "Equivalence",
    }

    def create(title: str, position: int) -> str:
        body = {"item": {"entry_type": "Item", "position": position, "entry": {**entry, "title": title}}}
        return str(requests.post(items, json=body, headers=AUTH).json()["id"])

    def titles() -> list[tuple[int, str]]:
        listed = requests.get(items, headers=AUTH).json()
        return [(i["position"], i["entry"]["title"]) for i in listed]

    create("c", 3)  # past the end: goes at the end
    create("a", 1)
    b = create("b", 2)
    assert titles() == [(1, "a"), (2, "b"), (3, "c")]
    requests.patch(f"{items}/{b}", json={"item": {"position": 3}}, headers=AUTH)
    assert titles() == [(1, "a"), (2, "c"), (3, "b")]
    requests.delete(f"{items}/{b}", headers=AUTH)
    assert titles() == [(1, "a"), (2, "c")]


def test_a_quiz_description_is_stored_with_its_styles_as_canvas_sanitizes_them() -> None:
    from tests.canvas_server import sanitize_styles

    assert sanitize_styles('<p style="display:none">x</p>') == '<p style="display: none;">x</p>'
    assert sanitize_styles('<p style="DISPLAY: none; behavior: url(x)">x</p>') == '<p style="display: none;">x</p>'
    assert sanitize_styles('<span style="font-weight: bold;color:red">x</span>') == (
        '<span style="font-weight: bold; color: red;">x</span>'
    )
