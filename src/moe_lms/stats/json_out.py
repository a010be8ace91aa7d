"""The ``--json`` document: an interface (docs/reference/stats.md), read by ``check --stats`` and by other tools.

Per question ``{id, n, facility, discrimination, choices: [{id, share, mean_score}], locales: {…}, flags: [{kind,
locale?, choice?, value, threshold}]}``; more keys may be added, none of these renamed or removed.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from ..problems import Problem, Severity
from .compute import Analysis, ChoiceStats, Dif, Flag, GroupStats

FORMAT = "moe-lms-stats"
VERSION = 1


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _choice(c: ChoiceStats) -> dict[str, Any]:
    return {
        "id": c.id,
        "correct": c.correct,
        "share": _round(c.share),
        "mean_score": _round(c.mean_score),
        "upper_share": _round(c.upper),
        "lower_share": _round(c.lower),
    }


def _group(g: GroupStats) -> dict[str, Any]:
    found: dict[str, Any] = {
        "n": g.n,
        "facility": _round(g.facility),
        "discrimination": _round(g.discrimination),
        "upper_lower": _round(g.upper_lower),
        "choices": [_choice(c) for c in g.choices],
    }
    if g.too_few:
        found["status"] = "too few"
    return found


def _dif(d: Dif) -> dict[str, Any]:
    if d.delta is None:
        return {"reference": d.reference, "n": d.n_focal, "n_reference": d.n_reference, "status": "too few"}
    return {
        "reference": d.reference,
        "n": d.n_focal,
        "n_reference": d.n_reference,
        "delta": _round(d.delta),
        "se": _round(d.se),
        "chi_square": _round(d.chi_square),
        "p": _round(d.p),
        "class": d.ets_class,
    }


def _flag(f: Flag) -> dict[str, Any]:
    found: dict[str, Any] = {"kind": f.kind}
    if f.locale is not None:
        found["locale"] = f.locale
    if f.choice is not None:
        found["choice"] = f.choice
    found["value"] = _round(f.value)
    found["threshold"] = _round(f.threshold)
    if f.reference is not None:
        found["reference"] = f.reference
    if f.ets_class is not None:
        found["class"] = f.ets_class
    return found


def document(analysis: Analysis) -> dict[str, Any]:
    """The analysis as JSON-ready data (numbers to 4 decimals)."""
    questions = []
    for q in analysis.questions:
        entry = {"id": q.id, "kind": q.kind, **_group(q.overall)}
        locales = {}
        for locale, g in q.locales.items():
            locales[locale] = _group(g)
            locales[locale]["dif"] = [_dif(d) for d in q.dif if d.focal == locale]
        entry["locales"] = locales
        entry["flags"] = [_flag(f) for f in q.flags]
        questions.append(entry)
    return {
        "format": FORMAT,
        "version": VERSION,
        "bank": analysis.bank,
        "attempts": analysis.attempts,
        "alpha": _round(analysis.alpha),
        "locales": {loc: {"attempts": n, "alpha": _round(a)} for loc, (n, a) in analysis.locales.items()},
        "thresholds": asdict(analysis.thresholds),
        "questions": questions,
    }


MAX_STATS_BYTES = 64 * 1024 * 1024

_FLAG_WORDS = {
    "too-easy": "too easy: facility {value} above {threshold}",
    "too-hard": "too hard: facility {value} below {threshold}",
    "low-discrimination": "discriminates little: r {value} below {threshold}",
    "negative-discrimination": "negative discrimination: r {value} (strong learners did worse): check the key",
    "non-functioning-distractor": "distractor {choice} is chosen by {value} of learners, below {threshold}",
    "distractor-attracts-strong": "distractor {choice} draws the strong learners more than the weak ({value})",
    "key-less-chosen": "the key is chosen by {value}, less than distractor {choice} ({threshold}): check the key",
    "dif": "DIF class {class} in {locale} against {reference} (MH D-DIF {value}): check the {locale} translation",
}


def flag_problems(data: object, file: str, bank_id: str, question_ids: set[str]) -> list[Problem]:
    """Warnings for ``check --stats``: one per flag of a stats document, naming the question; a document that is
    not one, or is of another bank, is one error."""
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("questions"), list):
        return [Problem(file, None, f"not a moe-lms stats document (format {FORMAT!r}, from `moe-lms stats -o`)")]
    if data.get("bank") != bank_id:
        return [Problem(file, None, f"the stats are of bank {data.get('bank')!r}, not {bank_id!r}")]
    found = []
    for q in data["questions"]:
        if not isinstance(q, dict) or not isinstance(q.get("id"), str):
            return [Problem(file, None, "a question entry without an id")]
        where = f"question {q['id']!r}"
        if q["id"] not in question_ids:
            found.append(Problem(file, None, "is not in the bank any more", where, severity=Severity.WARNING))
            continue
        for flag in q.get("flags") or []:
            if not isinstance(flag, dict):
                continue
            template = _FLAG_WORDS.get(str(flag.get("kind")), "{kind} ({value}; threshold {threshold})")
            values = {k: flag.get(k) for k in ("kind", "value", "threshold", "choice", "locale", "reference", "class")}
            message = f"stats: {template.format(**values)} (n = {q.get('n')})"
            found.append(Problem(file, None, message, where, severity=Severity.WARNING))
    return found
