"""The Canvas request bodies and document built the thorough way: dict by dict, through the renderer, written
by ``json.dumps`` (the export before its per-shape layouts, kept as the specification the fast path must
match byte for byte)."""

from __future__ import annotations

import json
from typing import Any

from moe_lms.formats import ExportOptions
from moe_lms.formats.canvas import (
    _SECTIONS,
    PAYLOAD_VERSION,
    Engine,
    QuizStream,
    choice_uuid,
    fingerprint,
)
from moe_lms.formats.canvas_media import image_ref
from moe_lms.locales import LocalizedView, Resolved, locale_info
from moe_lms.model import Bank, Kind, Question, flat_quiz, variant_of
from moe_lms.numeric import number_text
from moe_lms.richtext import latin_isolated, plain_text, render_block, render_inline, rendering


def _dir(r: Resolved) -> str:
    return "rtl" if locale_info(r.lang.replace("-", "_")).rtl else "ltr"


def _in_direction(r: Resolved, rendered: str) -> str:
    """In a right-to-left text, a Latin-only one (the choice "64 KiB") is an LTR isolate (issue 26)."""
    return latin_isolated(rendered) if _dir(r) == "rtl" else rendered


def _block(r: Resolved) -> str:
    return f'<div lang="{r.lang}" dir="{_dir(r)}">{_in_direction(r, render_block(r.text))}</div>'


def _inline(r: Resolved) -> str:
    return f'<span lang="{r.lang}" dir="{_dir(r)}">{_in_direction(r, render_inline(r.text))}</span>'


def classic_question(view: LocalizedView, q: Question) -> tuple[str, dict[str, Any]]:
    """(fingerprint, body) of a classic question (limits are the writer's business, not checked here)."""
    answers = []
    for c in q.choices:
        text = view.choice_text(q, c)
        answers.append(
            {
                "answer_text": plain_text(text.text),
                "answer_html": _inline(text),
                "answer_weight": 100 if c.correct else 0,
                "answer_comment_html": _block(view.choice_explanation(q, c)),
                "comments": plain_text(view.choice_explanation(q, c).text),
            }
        )
    fields: dict[str, Any] = {
        "question_type": "multiple_answers_question" if q.kind is Kind.MULTIPLE else "multiple_choice_question",
        "question_text": _block(view.stem(q)),
        "points_possible": float(q.points),
        "neutral_comments_html": _block(view.explanation(q)),
        "correct_comments_html": _block(view.feedback("correct")),
        "incorrect_comments_html": _block(view.feedback("incorrect")),
        "neutral_comments": plain_text(view.explanation(q).text),
        "correct_comments": plain_text(view.feedback("correct").text),
        "incorrect_comments": plain_text(view.feedback("incorrect").text),
        "answers": answers,
    }
    fp = fingerprint("classic", fields)
    fields = {"question_name": f"{q.id} [moe:{view.bank.id}/{q.id}:{fp}]", **fields}
    return fp, {"question": fields}


def classic_numerical(view: LocalizedView, q: Question) -> tuple[str, dict[str, Any]]:
    """(fingerprint, body) of a classic numerical question, as canvas-lms reads one (answer_parsers/numerical.rb:
    every answer is correct, exact_answer with answer_exact and answer_error_margin): the correct values as answers,
    the anticipated values listed with their explanations in the incorrect comments."""
    answers = [
        {
            "numerical_answer_type": "exact_answer",
            "answer_exact": json.loads(number_text(q.value_of(c))),
            "answer_error_margin": json.loads(number_text(q.tolerance_of(c))),
            "answer_weight": 100,
            "answer_comment_html": _block(view.choice_explanation(q, c)),
            "comments": plain_text(view.choice_explanation(q, c).text),
        }
        for c in q.choices
        if c.correct
    ]
    listed = ""
    plain_listed = []
    for c in q.choices:
        if c.correct:
            continue
        tolerance = q.tolerance_of(c)
        shown = number_text(q.value_of(c)) + (f" ± {number_text(tolerance)}" if tolerance else "")
        classes = f"moe-choice-{c.id} moe-value-{number_text(q.value_of(c))} moe-tolerance-{number_text(tolerance)}"
        value = f'<span dir="ltr" style="white-space:nowrap">{shown}</span>'  # (a short isolate stays on one line)
        listed += f'<li class="{classes}">{value}: {_block(view.choice_explanation(q, c))}</li>'
        plain_listed.append(f"{shown}: {plain_text(view.choice_explanation(q, c).text)}")
    fields: dict[str, Any] = {
        "question_type": "numerical_question",
        "question_text": _block(view.stem(q)),
        "points_possible": float(q.points),
        "neutral_comments_html": _block(view.explanation(q)),
        "correct_comments_html": _block(view.feedback("correct")),
        "incorrect_comments_html": _block(view.feedback("incorrect")) + (f"<ul>{listed}</ul>" if listed else ""),
        "neutral_comments": plain_text(view.explanation(q).text),
        "correct_comments": plain_text(view.feedback("correct").text),
        "incorrect_comments": " ".join([plain_text(view.feedback("incorrect").text), *plain_listed]),
        "answers": answers,
    }
    fp = fingerprint("classic", fields)
    fields = {"question_name": f"{q.id} [moe:{view.bank.id}/{q.id}:{fp}]", **fields}
    return fp, {"question": fields}


def new_quizzes_item(view: LocalizedView, q: Question, position: int) -> tuple[str, dict[str, Any]]:
    """(fingerprint, body) of a New Quizzes item."""
    ids = {c.id: choice_uuid(view.bank, view.locale, q, c.id) for c in q.choices}
    choices = [
        {"id": ids[c.id], "position": i, "item_body": _block(view.choice_text(q, c))}
        for i, c in enumerate(q.choices, start=1)
    ]
    explanation = _block(view.explanation(q))
    entry: dict[str, Any] = {
        "item_body": _block(view.stem(q)),
        "calculator_type": "none",
        "interaction_data": {"choices": choices},
        "properties": {"shuffle_rules": {"choices": {"shuffled": q.shuffle, "to_lock": []}}},
        "feedback": {
            "neutral": explanation,
            "correct": _block(view.feedback("correct")),
            "incorrect": _block(view.feedback("incorrect")),
        },
    }
    if q.kind is Kind.MULTIPLE:
        entry["interaction_type_slug"] = "multi-answer"
        entry["scoring_algorithm"] = "AllOrNothing"
        entry["scoring_data"] = {"value": [ids[c.id] for c in q.correct_choices]}
        listed = "".join(
            f"<li>{_inline(view.choice_text(q, c))}: {_block(view.choice_explanation(q, c))}</li>" for c in q.choices
        )
        entry["feedback"]["neutral"] = f"{explanation}<ul>{listed}</ul>"
    else:
        entry["interaction_type_slug"] = "choice"
        entry["scoring_algorithm"] = "Equivalence"
        entry["scoring_data"] = {"value": ids[q.correct_choices[0].id]}
        entry["properties"]["vary_points_by_answer"] = False
        entry["answer_feedback"] = {ids[c.id]: _block(view.choice_explanation(q, c)) for c in q.choices}
    item: dict[str, Any] = {"entry_type": "Item", "points_possible": float(q.points), "entry": entry}
    fp = fingerprint("new-quizzes", item)
    entry["title"] = f"{q.id} [moe:{view.bank.id}/{q.id}:{fp}]"
    return fp, {"item": {**item, "position": position}}


def bodies(bank: Bank, locale: str, engine: Engine, *, include_drafts: bool = False) -> list[tuple[str, Any]]:
    """Each question's (fingerprint, body), as a push with image references sends them (New Quizzes: the
    numerical questions left out)."""
    return [(fp, body) for _, fp, body in _made(bank, locale, engine, include_drafts=include_drafts)]


def _made(bank: Bank, locale: str, engine: Engine, *, include_drafts: bool) -> list[tuple[Question, str, Any]]:
    flat = flat_quiz(bank) if any(variant_of(q.id) for q in bank.questions) else None  # (see document)
    stream = QuizStream(bank, locale, engine, include_drafts=include_drafts, image_url=image_ref, quiz=flat)
    made = []
    kept = [q for q in bank.questions if engine == "classic" or not q.numerical]
    for position, q in enumerate(kept, start=1):
        with rendering(stream.profile):
            if engine == "classic":
                fp, body = classic_numerical(stream.view, q) if q.numerical else classic_question(stream.view, q)
            else:
                fp, body = new_quizzes_item(stream.view, q, position)
        made.append((q, fp, body))
    return made


def document(bank: Bank, options: ExportOptions) -> bytes:
    """The whole ``.canvas.json`` as one json.dumps (limits unchecked: for banks within them)."""
    locales = []
    for locale in options.locales:
        entry: dict[str, Any] = {"locale": locale}
        for engine, name, items, path, item_path in _SECTIONS:
            # (a bank with variants: every variant, in bank order, in both engines' quiz, as the writer does)
            flat = flat_quiz(bank) if any(variant_of(q.id) for q in bank.questions) else None
            stream = QuizStream(
                bank, locale, engine, include_drafts=options.include_drafts, image_url=image_ref, quiz=flat
            )
            made = _made(bank, locale, engine, include_drafts=options.include_drafts)
            stream._made = [(q.id, fp) for q, fp, _ in made]
            entry[name] = {
                items: [{"method": "POST", "path": item_path, "body": body} for _, _, body in made],
                "quiz": {"method": "POST", "path": path, "body": stream.quiz().body()},
            }
        locales.append(entry)
    frame: dict[str, Any] = {
        "bank": bank.id,
        "generator": f"moe-lms canvas payloads {PAYLOAD_VERSION}",
        "locales": locales,
    }
    if bank.media:
        frame["images"] = {
            image_ref(item): {"path": item.path, "media_type": item.media_type, "bytes": len(item.data)}
            for item in sorted(bank.media.values(), key=lambda item: item.path)
        }
    return (json.dumps(frame, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode()
