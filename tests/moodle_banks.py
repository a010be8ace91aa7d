"""Banks and helpers for the Moodle XML tests: small, trilingual, one of each kind of question."""

from __future__ import annotations

from typing import Any

from lxml import etree

from moe_lms.formats import ExportOptions, get
from moe_lms.model import Bank, Translation, strings

MOODLE = get("moodle")
UR = "\u0627\u0631\u062f\u0648"  # "اردو"


def trilingual_bank(**changes: Any) -> Bank:
    """en source, ur (right-to-left) and vi targets; every string translated except a few, one of them a draft."""
    data: dict[str, Any] = {
        "id": "ep-bank",
        "title": "Expert parallelism",
        "intro": "Answers appear when you take the quiz.",
        "target_locales": ["ur", "vi"],
        "tags": ["moe"],
        "questions": [
            {
                "id": "ep-distributes",
                "stem": "What does expert parallelism distribute across GPUs?",
                "explanation": "Experts are sharded across devices.",
                "tags": ["parallelism"],
                "choices": [
                    {"id": "a", "text": "Full model copies", "explanation": "That is data parallelism."},
                    {"id": "b", "text": "Attention heads", "explanation": "That is tensor parallelism."},
                    {"id": "c", "text": "The experts of an MoE layer", "correct": True, "explanation": "Yes."},
                    {"id": "d", "text": "Embedding rows", "explanation": "Unrelated to MoE."},
                ],
            },
            {
                "id": "ep-costs",
                "kind": "multiple",
                "points": 2,
                "shuffle": False,
                "stem": "Which of these does expert parallelism **cost**?",
                "explanation": "Tokens travel twice per layer.",
                "choices": [
                    {"id": "a", "text": "An all-to-all dispatch", "correct": True, "explanation": "Sent out."},
                    {"id": "b", "text": "More FLOPs per token", "explanation": "Compute per token stays low."},
                    {"id": "c", "text": "An all-to-all combine", "correct": True, "explanation": "Sent back."},
                    {"id": "d", "text": "A full replica", "explanation": "Nothing is replicated."},
                    {"id": "e", "text": "Load balancing", "correct": True, "explanation": "Routing is uneven."},
                ],
            },
            {
                "id": "ep-true",
                "kind": "true-false",
                "stem": "Each token runs every expert.",
                "explanation": "Only the top-k experts run.",
                "choices": [
                    {"id": "true", "text": "True", "explanation": "No: only the selected experts."},
                    {"id": "false", "text": "False", "correct": True, "explanation": "Right."},
                ],
            },
        ],
    }
    data.update(changes)
    bank = Bank.model_validate(data)
    missing = {"ur": {"ep-distributes/explanation"}, "vi": {"ep-true/stem"}}
    drafts = {"vi": {"ep-costs/explanation"}}
    translations: dict[str, dict[str, Translation]] = {}
    for locale in bank.target_locales:
        catalog = {}
        for path, source in strings(bank):
            if path in missing.get(locale, ()):
                continue
            text = f"{UR} {source}" if locale == "ur" else f"Tiếng Việt: {source}"
            catalog[path] = Translation(text, source, draft=path in drafts.get(locale, ()))
        translations[locale] = catalog
    return bank.model_copy(update={"translations": translations})


def export(bank: Bank, *locales: str, multilang: bool = False, include_drafts: bool = False) -> bytes:
    options = ExportOptions.for_bank(bank, tuple(locales), multilang=multilang, include_drafts=include_drafts)
    return MOODLE.dump(bank, options)


def parse(data: bytes) -> etree._Element:
    """Parse strictly, as a well-formedness check: lxml's default parser refuses anything broken."""
    return etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))


def questions(root: etree._Element, qtype: str = "multichoice") -> list[etree._Element]:
    return root.findall(f"question[@type='{qtype}']")


def text_of(question: etree._Element, path: str) -> str:
    return question.findtext(f"{path}/text") or ""
