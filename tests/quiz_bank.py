"""A generated bank of 60 questions in three tagged pools of 20, and a quiz drawing 2 + 3 + a fixed 2 from it."""

from __future__ import annotations

from pathlib import Path

from moe_lms.loader import bank_yaml
from moe_lms.model import Bank, Choice, Question

POOLS = ("routing", "memory", "network")
PER_POOL = 20
FIXED = ("network-01", "network-02")
PER_ATTEMPT = 2 + 3 + len(FIXED)

MIDTERM = {
    "id": "midterm",
    "title": "Midterm: expert parallelism",
    "intro": "Twenty minutes, two attempts.",
    "shuffle_questions": True,
    "time_limit_minutes": 20,
    "attempts": 2,
    "sections": [
        {"id": "routing", "title": "Routing", "draw": 2, "from": {"tags": ["routing"]}},
        {"id": "memory", "title": "Memory", "draw": 3, "from": {"tags": ["memory"]}, "points": 2},
        {"id": "fixed", "title": "Always asked", "questions": list(FIXED)},
    ],
}


def _question(pool: str, number: int) -> Question:
    return Question(
        id=f"{pool}-{number:02d}",
        stem=f"Question {number} about {pool}: which choice is the right one?",
        explanation=f"The right choice of question {number} is the first.",
        choices=(
            Choice(id="a", text=f"Right answer {number}", correct=True, explanation="This one is right."),
            Choice(id="b", text=f"Wrong answer {number}", explanation="This one is wrong."),
            Choice(id="c", text=f"Other answer {number}", explanation="This one is wrong too."),
        ),
        tags=(pool,),
    )


def quiz_bank(quizzes: list[dict[str, object]] | None = None) -> Bank:
    """The 60-question bank with the midterm quiz (or the quizzes given; [] for none)."""
    questions = [_question(pool, n) for pool in POOLS for n in range(1, PER_POOL + 1)]
    return Bank.model_validate(
        {
            "id": "pools",
            "title": "Pools of questions",
            "questions": questions,
            "quizzes": [MIDTERM] if quizzes is None else quizzes,
        }
    )


def write_quiz_bank(directory: Path, quizzes: list[dict[str, object]] | None = None) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "bank.yaml").write_text(bank_yaml(quiz_bank(quizzes)), encoding="utf-8")
    return directory
