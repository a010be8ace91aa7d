"""The terminal view: one row per question, its numbers and flags; the DIF that was found, one line each."""

from __future__ import annotations

from rich import box
from rich.table import Table

from .compute import Analysis, Flag

FLAG_WORDS = {
    "too-easy": "too easy",
    "too-hard": "too hard",
    "low-discrimination": "low discrimination",
    "negative-discrimination": "negative discrimination",
    "non-functioning-distractor": "dead distractor",
    "distractor-attracts-strong": "distractor attracts strong",
    "key-less-chosen": "key less chosen",
    "dif": "DIF",
}


def _number(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def flag_text(f: Flag) -> str:
    """One flag in words, with its number and threshold."""
    words = FLAG_WORDS.get(f.kind, f.kind)
    if f.kind == "dif":
        return f"DIF {f.ets_class} in {f.locale} vs {f.reference} (MH D-DIF {f.value:.2f})"
    choice = f" {f.choice}" if f.choice else ""
    return f"{words}{choice} ({f.value:.2f}; threshold {f.threshold:.2f})"


def table(analysis: Analysis) -> Table:
    alpha = _number(analysis.alpha)
    per_locale = ", ".join(f"{loc} {n} (α {_number(a)})" for loc, (n, a) in analysis.locales.items())
    t = Table(
        title=f"{analysis.bank}: {analysis.attempts} attempts, Cronbach's α {alpha}; {per_locale}",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1),
        collapse_padding=True,
        show_edge=False,
    )
    t.add_column("question", overflow="fold")
    t.add_column("n", justify="right", no_wrap=True)
    t.add_column("facility", justify="right", no_wrap=True)
    t.add_column("r", justify="right", no_wrap=True)
    t.add_column("D27", justify="right", no_wrap=True)
    t.add_column("shares (key*)", overflow="fold")
    t.add_column("flags", overflow="fold")
    for q in analysis.questions:
        g = q.overall
        shares = " ".join(f"{c.id}{'*' if c.correct else ''} {c.share:.2f}" for c in g.choices)
        flags = "; ".join(flag_text(f) for f in q.flags) or ("too few" if g.too_few else "")
        t.add_row(
            q.id,
            str(g.n),
            _number(g.facility),
            _number(g.discrimination),
            _number(g.upper_lower),
            shares,
            flags,
        )
    return t


LEGEND = (
    "facility: mean score (0–1); r: corrected point-biserial (the question against the rest of the test); D27: "
    "facility in the top 27 % minus the bottom 27 %; shares: of the learners, who picked each choice. DIF: "
    "Mantel-Haenszel D-DIF (ETS), negative = harder in that locale at equal score; class C is large."
)
