"""A small numerical bank (issue 30's shape): a question with a unit, a tolerance of its own on an anticipated
value, a question-wide tolerance, and ur/vi translations of the unit and explanations; plus one single-answer
question, so every format meets both kinds in one file."""

from __future__ import annotations

from pathlib import Path

from moe_lms.model import Bank, Question, Translation, strings

CAPACITY = {
    "id": "capacity-tokens",
    "kind": "numerical",
    "points": 1,
    "stem": "With $E = 128$ experts, top-$k = 8$, $T = 6000$ tokens and capacity factor 1.25, rounded up: how many "
    "tokens can each expert accept?",
    "explanation": "Capacity = ⌈1.25 × 6000 × 8 / 128⌉ = ⌈468.75⌉ = 469.",
    "unit": "tokens",
    "tolerance": 0,
    "choices": [
        {
            "id": "right",
            "value": 469,
            "correct": True,
            "explanation": "6000 × 8 / 128 = 375; × 1.25 = 468.75; up: 469.",
        },
        {"id": "truncated", "value": 468, "explanation": "This rounds 468.75 down; the capacity is rounded up."},
        {"id": "no-top-k", "value": 59, "tolerance": 0.5, "explanation": "You left top-k out: 1.25 × 6000 / 128."},
    ],
}
BYTES = {
    "id": "dispatch-kib",
    "kind": "numerical",
    "stem": "How many KiB does one token's dispatch and combine move, to one decimal?",
    "explanation": "2 × 8 × 7168 × 2 B = 229,376 B = 224 KiB.",
    "unit": "KiB",
    "tolerance": 0.05,
    "choices": [
        {"id": "both-ways", "value": 224, "correct": True, "explanation": "Dispatch and combine, 8 copies of 14 KiB."},
        {"id": "dispatch-only", "value": 112, "explanation": "That is the dispatch alone; the combine moves as much."},
        {"id": "bits", "value": 1792, "explanation": "Bits counted as bytes: bf16 is 2 bytes, not 16."},
        {"id": "fraction", "value": 0.5, "explanation": "A fraction of a KiB: you divided once too often."},
    ],
}
SINGLE = {
    "id": "ep-what",
    "stem": "What does expert parallelism distribute?",
    "explanation": "The experts.",
    "choices": [
        {"id": "a", "text": "Experts", "correct": True, "explanation": "Yes."},
        {"id": "b", "text": "Heads", "explanation": "That is tensor parallelism."},
    ],
}
URDU = {
    "capacity-tokens/stem": "ہر ماہر کتنے ٹوکن قبول کر سکتا ہے؟ ($E = 128$، top-$k = 8$، $T = 6000$، 1.25)",
    "capacity-tokens/explanation": "گنجائش = ⌈468.75⌉ = 469۔",
    "capacity-tokens/unit": "ٹوکن",
    "capacity-tokens/choices/right/explanation": "375 × 1.25 = 468.75؛ اوپر کی طرف: 469۔",
    "capacity-tokens/choices/truncated/explanation": "یہ 468.75 کو نیچے کی طرف گول کرتا ہے۔",
    "capacity-tokens/choices/no-top-k/explanation": "آپ نے top-k چھوڑ دیا۔",
}
VIETNAMESE = {
    "capacity-tokens/stem": "Mỗi chuyên gia nhận được bao nhiêu token? ($E = 128$, top-$k = 8$, $T = 6000$, 1,25)",
    "capacity-tokens/unit": "token",
    "capacity-tokens/choices/truncated/explanation": "Cách này làm tròn 468,75 xuống; dung lượng được làm tròn lên.",
    "dispatch-kib/unit": "KiB",
}


def numerical_bank() -> Bank:
    base = Bank.model_validate(
        {
            "id": "numerical-check",
            "title": "Serving arithmetic, typed",
            "target_locales": ["ur", "vi"],
            "questions": [CAPACITY, BYTES, SINGLE],
        }
    )
    source = dict(strings(base))

    def catalog(texts: dict[str, str]) -> dict[str, Translation]:
        return {path: Translation(text=text, source=source[path]) for path, text in texts.items()}

    return base.model_copy(update={"translations": {"ur": catalog(URDU), "vi": catalog(VIETNAMESE)}})


def capacity() -> Question:
    return numerical_bank().question("capacity-tokens")


def write_numerical_bank(directory: Path) -> Path:
    """The bank as a bank directory (bank.yaml and PO files), as an author writes it."""
    from moe_lms.loader import save_bank

    bank = numerical_bank()
    save_bank(bank, directory)
    return directory
