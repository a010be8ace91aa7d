"""A small trilingual bank and simulated learners with known item difficulties, for the stats tests.

The response model is two-parameter logistic: a learner of ability theta ~ N(0, 1) answers question q right with
probability 1 / (1 + exp(-A (theta - b_q))); a wrong answer picks a distractor by fixed weights. Question
``dif-item`` is ``URDU_SHIFT`` harder in Urdu only (differential item functioning by construction), and distractor
``d`` of ``dead-distractor`` has weight 0: nobody picks it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from moe_lms.model import Bank, Choice, Question, Translation, strings
from moe_lms.stats.results import Attempt, Response

A = 1.7  # discrimination of every question (logistic scale)
URDU_SHIFT = 0.9  # how much harder dif-item is in Urdu (logits / A)
LOCALES = ("en", "ur", "vi")

# id -> (kind, difficulty b, distractor weights by choice id; the key is "a" (multiple: "a" and "b"))
ITEMS: dict[str, tuple[str, float, dict[str, float]]] = {
    "warm-up": ("single", -1.0, {"b": 1, "c": 1, "d": 1}),
    "routing": ("single", -0.5, {"b": 2, "c": 1, "d": 1}),
    "dif-item": ("single", 0.0, {"b": 1, "c": 1, "d": 1}),
    "dead-distractor": ("single", -0.3, {"b": 1, "c": 1, "d": 0}),
    "capacity": ("single", 0.3, {"b": 1, "c": 2, "d": 1}),
    "all-to-all": ("multiple", 0.2, {"c": 1, "d": 1}),
    "router-true": ("true-false", -0.6, {"f": 1}),
    "balance": ("single", 0.6, {"b": 1, "c": 1, "d": 1}),
}

_WORDS = {
    "en": ("Question", "which statement about", "is right", "Answer", "Because"),
    "ur": ("سوال", "کے بارے میں کون سا بیان", "درست ہے", "جواب", "کیونکہ"),
    "vi": ("Câu hỏi", "phát biểu nào về", "là đúng", "Đáp án", "Vì"),
}
_TF = {"en": ("True", "False"), "ur": ("درست", "غلط"), "vi": ("Đúng", "Sai")}


def _texts(locale: str, qid: str, number: int, kind: str) -> tuple[str, dict[str, str]]:
    question, about, right, answer, _ = _WORDS[locale]
    stem = f"{question} {number}: {about} **{qid}** {right}?"
    if kind == "true-false":
        return stem, {"t": _TF[locale][0], "f": _TF[locale][1]}
    return stem, {c: f"{answer} {c.upper()}{number} — {qid}" for c in "abcd"}


def _question(qid: str, number: int) -> Question:
    kind, _, _ = ITEMS[qid]
    stem, texts = _texts("en", qid, number, kind)
    keys = {"a", "b"} if kind == "multiple" else {"a", "t"}
    return Question.model_validate(
        {
            "id": qid,
            "kind": kind,
            "stem": stem,
            "explanation": f"Because of {qid}.",
            "choices": [
                Choice(id=c, text=t, correct=c in keys, explanation=f"Choice {c} of {qid}.") for c, t in texts.items()
            ],
        }
    )


def stats_bank() -> Bank:
    """Eight questions (single, multiple, true-false) in en, with every learner-visible text translated to ur, vi."""
    base = Bank(
        id="stats-bank",
        title="Item analysis test bank",
        target_locales=("ur", "vi"),
        questions=tuple(_question(qid, n) for n, qid in enumerate(ITEMS, 1)),
    )
    source = dict(strings(base))
    translations: dict[str, dict[str, Translation]] = {}
    for locale in ("ur", "vi"):
        catalog = {}
        for n, (qid, (kind, _, _)) in enumerate(ITEMS.items(), 1):
            stem, texts = _texts(locale, qid, n, kind)
            catalog[f"{qid}/stem"] = Translation(stem, source[f"{qid}/stem"])
            for c, text in texts.items():
                path = f"{qid}/choices/{c}/text"
                catalog[path] = Translation(text, source[path])
        translations[locale] = catalog
    return base.model_copy(update={"translations": translations})


@dataclass(frozen=True)
class Learner:
    name: str
    locale: str
    theta: float
    answers: dict[str, tuple[str, ...]]  # question -> chosen choice ids


def difficulty(qid: str, locale: str) -> float:
    b = ITEMS[qid][1]
    return b + URDU_SHIFT if qid == "dif-item" and locale == "ur" else b


def p_right(qid: str, locale: str, theta: float | np.ndarray) -> float | np.ndarray:  # type: ignore[type-arg]
    return 1 / (1 + np.exp(-A * (theta - difficulty(qid, locale))))


def expected_facility(qid: str, locales: tuple[str, ...] = LOCALES) -> float:
    """The model's facility of ``qid`` over N(0, 1) abilities, learners evenly split over ``locales``."""
    grid = np.linspace(-6, 6, 2401)
    weight = np.exp(-(grid**2) / 2)
    weight /= weight.sum()
    return float(np.mean([(p_right(qid, loc, grid) * weight).sum() for loc in locales]))


def simulate(per_locale: int, seed: int = 32) -> list[Learner]:
    """``per_locale`` learners in each of en, ur, vi, answering every question by the model."""
    rng = np.random.default_rng(seed)
    learners = []
    for locale in LOCALES:
        for k in range(per_locale):
            theta = float(rng.normal())
            answers: dict[str, tuple[str, ...]] = {}
            for qid, (kind, _, weights) in ITEMS.items():
                right = rng.random() < p_right(qid, locale, theta)
                if kind == "multiple":
                    if right:
                        answers[qid] = ("a", "b")
                    else:
                        wrong = str(rng.choice(["c", "d"]))
                        answers[qid] = tuple(sorted({str(rng.choice(["a", "b"])), wrong}))
                    continue
                key = "t" if kind == "true-false" else "a"
                if right:
                    answers[qid] = (key,)
                else:
                    options = [c for c, w in weights.items() if w > 0]
                    p = np.array([weights[c] for c in options], dtype=float)
                    answers[qid] = (str(rng.choice(options, p=p / p.sum())),)
            learners.append(Learner(f"{locale}-{k:04d}", locale, theta, answers))
    return learners


def attempts_of(learners: list[Learner]) -> list[Attempt]:
    return [
        Attempt(
            lr.name,
            "1",
            lr.locale,
            "simulated",
            {q: Response(q, frozenset(c)) for q, c in lr.answers.items()},
        )
        for lr in learners
    ]


def plain_csv(learners: list[Learner]) -> bytes:
    """The learners' responses as moe-lms's plain results CSV."""
    lines = ["learner,attempt,locale,question,answer"]
    for lr in learners:
        lines += [f"{lr.name},1,{lr.locale},{q},{'|'.join(c)}" for q, c in lr.answers.items()]
    return ("\n".join(lines) + "\n").encode()


def observed_facility(learners: list[Learner], qid: str) -> float:
    """The facility of the simulated answers themselves (what a reader must reproduce exactly)."""
    key = {"multiple": ("a", "b"), "true-false": ("t",)}.get(ITEMS[qid][0], ("a",))
    return sum(lr.answers[qid] == key for lr in learners) / len(learners)
