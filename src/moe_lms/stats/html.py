"""The HTML report: per question its numbers, flags and an option curve per locale, on one self-contained page.

Everything in it that came from a results file or the bank is text in lxml elements, so it is escaped; the plots
are matplotlib SVGs shown as ``<img>`` (an SVG in an image runs nothing), and the page's content security policy
allows no script at all. Readable on a phone: one column, tables that scroll in their own box.
"""

from __future__ import annotations

import base64
import io
from typing import TYPE_CHECKING, Any

from lxml import etree
from lxml.html import builder as E

from ..locales import locale_info, resolve
from ..model import Bank
from ..richtext import plain_text
from .compute import Analysis, GroupStats, QuestionStats
from .table import LEGEND, flag_text

if TYPE_CHECKING:
    from matplotlib.figure import Figure

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
STYLE = """
body{font-family:system-ui,"Noto Sans","Noto Naskh Arabic",sans-serif;margin:0 auto;max-width:60rem;padding:0 .75rem;
line-height:1.45}
h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem;overflow-wrap:anywhere}
.scroll{overflow-x:auto}table{border-collapse:collapse;font-variant-numeric:tabular-nums}
td,th{padding:.2rem .5rem;white-space:nowrap;border-bottom:1px solid #ddd;text-align:end}
th:first-child,td:first-child{text-align:start}
.flag{color:#9a1c00}caption{text-align:start;font-size:.85rem;caption-side:bottom}.stem{color:#333;overflow-wrap:anywhere}
.curves{display:flex;flex-wrap:wrap;gap:.5rem}.curves figure{margin:0;flex:1 1 18rem;max-width:26rem}
.curves img{width:100%;height:auto}figcaption{font-size:.85rem}
"""
COLORS = ("#1b6ac9", "#d1410c", "#2e8540", "#7b3294", "#b8860b", "#555555", "#c51b7d", "#01665e")


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _svg(figure: Figure) -> str:
    """The figure as a data: URI, deterministic (no date, fixed ids)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _curve_figure(g: GroupStats) -> Figure:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(4.2, 2.8), dpi=100)
    axes = figure.add_subplot()
    assert g.curve is not None
    for j, c in enumerate(g.choices):
        ys = [shares[j] for shares in g.curve.shares]
        style = "-" if c.correct else "--"
        axes.plot(
            g.curve.scores,
            ys,
            style,
            marker="o",
            color=COLORS[j % len(COLORS)],
            label=c.id + ("*" if c.correct else ""),
        )
    axes.set_ylim(-0.02, 1.02)
    axes.set_xlim(0, 1)
    axes.set_xlabel("mean score of the group")
    axes.set_ylabel("share choosing")
    # Above the plot, so no line hides behind it (the caption under the image names the question and locale).
    axes.legend(fontsize=8, ncols=min(5, len(g.choices)), loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    figure.subplots_adjust(left=0.14, right=0.98, top=0.88, bottom=0.17)  # (tight_layout: twice the time)
    return figure


def _numbers(q: QuestionStats) -> Any:
    rows = []
    for name, g in [("all", q.overall), *q.locales.items()]:
        rows.append(
            E.TR(
                E.TD(name),
                E.TD(str(g.n)),
                E.TD(_number(g.facility)),
                E.TD(_number(g.discrimination)),
                E.TD(_number(g.upper_lower)),
                *(E.TD(f"{c.share:.2f} / {_number(c.mean_score)}") for c in g.choices),
            )
        )
    head = E.TR(
        E.TH("locale"),
        E.TH("n"),
        E.TH("facility"),
        E.TH("r"),
        E.TH("D27"),
        *(E.TH(c.id + (" (key)" if c.correct else "")) for c in q.overall.choices),
    )
    caption = E.CAPTION("per choice: share choosing it / mean score of those who did")
    return E.DIV(E.CLASS("scroll"), E.TABLE(caption, E.THEAD(head), E.TBODY(*rows)))


def _dif_table(q: QuestionStats) -> Any | None:
    rows = [
        E.TR(
            E.TD(f"{d.focal} vs {d.reference}"),
            E.TD(f"{d.n_focal} / {d.n_reference}"),
            E.TD("too few" if d.delta is None else f"{d.delta:.2f}"),
            E.TD(_number(d.se)),
            E.TD("–" if d.p is None else f"{d.p:.3f}"),
            E.TD(d.ets_class or "–"),
        )
        for d in q.dif
    ]
    if not rows:
        return None
    head = E.TR(E.TH("DIF"), E.TH("n"), E.TH("MH D-DIF"), E.TH("SE"), E.TH("p"), E.TH("ETS"))
    return E.DIV(E.CLASS("scroll"), E.TABLE(E.THEAD(head), E.TBODY(*rows)))


def report(bank: Bank, analysis: Analysis) -> bytes:
    """The whole page, as bytes (UTF-8)."""
    import matplotlib

    # The same ids in every SVG on every run; text kept as text. Only while the report is drawn: a library user's
    # own matplotlib settings are left as they were.
    with matplotlib.rc_context({"svg.hashsalt": "moe-lms-stats", "svg.fonttype": "none"}):
        return _page(bank, analysis)


def _page(bank: Bank, analysis: Analysis) -> bytes:
    questions = {q.id: q for q in bank.questions}
    views = {locale: resolve(bank, locale) for locale in analysis.locales}
    body = [
        E.H1(f"Item analysis: {analysis.bank}"),
        E.P(
            f"{analysis.attempts} attempts; Cronbach's α {_number(analysis.alpha)}; "
            + ", ".join(f"{loc}: {n} attempts (α {_number(a)})" for loc, (n, a) in analysis.locales.items())
        ),
        E.P(LEGEND),
    ]
    for q in analysis.questions:
        section = [E.H2(q.id), E.P(E.CLASS("stem"), plain_text(questions[q.id].stem))]
        flags = [E.LI(E.CLASS("flag"), flag_text(f)) for f in q.flags]
        if flags:
            section.append(E.UL(*flags))
        section.append(_numbers(q))
        dif = _dif_table(q)
        if dif is not None:
            section.append(dif)
        figures = []
        for locale, g in q.locales.items():
            if g.curve is None:
                continue
            name = locale_info(locale).english_name
            alt = f"Option curve of {q.id} in {name}: share choosing each choice by score group"
            info = locale_info(locale)
            stem = plain_text(views[locale].stem(questions[q.id]).text)
            figures.append(
                E.FIGURE(
                    E.IMG(src=_svg(_curve_figure(g)), alt=alt, width="420", height="280"),
                    E.FIGCAPTION(
                        f"{name} ({locale}), n = {g.n}; dashed: distractors",
                        E.BR(),
                        E.SPAN(E.CLASS("stem"), stem, lang=info.lang, dir=info.direction),
                    ),
                )
            )
        if figures:
            section.append(E.DIV(E.CLASS("curves"), *figures))
        body.append(E.SECTION(*section))
    page = E.HTML(
        E.HEAD(
            E.META(charset="utf-8"),
            E.META(**{"http-equiv": "Content-Security-Policy", "content": CSP}),
            E.META(name="viewport", content="width=device-width, initial-scale=1"),
            E.TITLE(f"Item analysis: {analysis.bank}"),
            E.STYLE(STYLE),
        ),
        E.BODY(*body),
        lang="en",
    )
    return b"<!DOCTYPE html>\n" + etree.tostring(page, method="html", encoding="utf-8")
