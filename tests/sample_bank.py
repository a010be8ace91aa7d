"""A small trilingual bank built in Python: every question kind, Markdown, a fallback and a draft."""

from __future__ import annotations

from moe_lms.model import Bank, Choice, Question, Translation, strings


def _question(qid: str, kind: str, stem: str, explanation: str, choices: list[tuple[str, str, bool, str]]) -> Question:
    return Question.model_validate(
        {
            "id": qid,
            "kind": kind,
            "stem": stem,
            "explanation": explanation,
            "choices": [Choice(id=c, text=t, correct=ok, explanation=e) for c, t, ok, e in choices],
        }
    )


QUESTIONS = (
    _question(
        "ep-distributes",
        "single",
        "What does **expert parallelism** distribute across GPUs?",
        "Expert parallelism shards the experts of an MoE layer across GPUs.",
        [
            ("a", "Full copies of the model", False, "That is data parallelism, not expert parallelism."),
            ("b", "The feed-forward experts of an MoE layer", True, "Each GPU hosts a subset of the experts."),
            ("c", "Individual attention heads", False, "Splitting heads is tensor parallelism."),
        ],
    ),
    _question(
        "ep-costs",
        "multiple",
        "Which of these does expert parallelism add? Select all that apply.",
        "Tokens travel to their experts and back, and uneven routing leaves some GPUs idle.",
        [
            ("a", "All-to-all communication", True, "Tokens are dispatched to the GPUs of their experts."),
            ("b", "Load imbalance between GPUs", True, "Popular experts get more tokens than others."),
            ("c", "A larger attention window", False, "The attention window is a model setting, unrelated."),
        ],
    ),
    _question(
        "ep-router",
        "true-false",
        "The router picks experts per token.",
        "Routing is decided token by token.",
        [
            ("t", "True", True, "Yes: each token gets its own top-k experts."),
            ("f", "False", False, "Routing is per token, not per batch."),
        ],
    ),
)

URDU = {
    "title": "ایم او ای سروِنگ کے لیے ماہرین کی متوازیت",
    "intro": "جوابات اور وضاحتیں کوئز حل کرتے وقت نظر آتی ہیں۔",
    "ep-distributes/stem": "ماہرین کی متوازیت **جی پی یوز** میں کیا تقسیم کرتی ہے؟",
    "ep-distributes/explanation": "ماہرین کی متوازیت ایم او ای پرت کے ماہرین کو جی پی یوز میں بانٹتی ہے۔",
    "ep-distributes/choices/a/text": "ماڈل کی مکمل نقول",
    "ep-distributes/choices/a/explanation": "یہ ڈیٹا متوازیت ہے، ماہرین کی متوازیت نہیں۔",
    "ep-distributes/choices/b/text": "ایم او ای پرت کے فیڈ فارورڈ ماہرین",
    "ep-distributes/choices/b/explanation": "ہر جی پی یو ماہرین کا ایک حصہ رکھتا ہے۔",
    "ep-distributes/choices/c/text": "انفرادی توجہ کے سر",
    # ep-distributes/choices/c/explanation is missing: the English text stands in.
    "ep-router/stem": "راؤٹر ہر ٹوکن کے لیے ماہرین چنتا ہے۔",
    "ep-router/choices/t/text": "درست",
    "ep-router/choices/f/text": "غلط",
}
VIETNAMESE = {
    "title": "Song song chuyên gia khi phục vụ MoE",
    "ep-distributes/stem": "Song song chuyên gia phân chia gì trên các GPU?",
}


def _catalog(bank: Bank, texts: dict[str, str], draft: bool = False) -> dict[str, Translation]:
    source = dict(strings(bank))
    return {path: Translation(text=text, source=source[path], draft=draft) for path, text in texts.items()}


def sample_bank(**overrides: object) -> Bank:
    base = Bank(
        id="sample-quiz",
        title="Expert parallelism for MoE serving",
        intro="Answers and explanations appear when you take the quiz.",
        target_locales=("ur", "vi"),
        questions=QUESTIONS,
    )
    bank = base.model_copy(
        update={"translations": {"ur": _catalog(base, URDU), "vi": _catalog(base, VIETNAMESE, draft=True)}}
    )
    return bank.model_copy(update=overrides) if overrides else bank
