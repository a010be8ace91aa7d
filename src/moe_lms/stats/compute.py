"""Classical item analysis and DIF from plain data: attempts in, numbers and flags out. No file, no format, no HTTP.

Every question's score is 0 to 1 (``results.score_of``); a learner's score is the mean of the scores of the
questions their attempt presented (a quiz that draws questions presents different ones), so totals compare across
attempts. Thresholds, with where each comes from, are in :class:`Thresholds` and docs/reference/stats.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import numpy.typing as npt

from ..model import Bank, Kind, Question
from .results import Attempt, Response, score_of

Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]
Ints = npt.NDArray[np.int64]

UPPER_LOWER = 0.27  # Kelley (1939): the upper and lower 27 % of learners by total score
CURVE_GROUPS = 5  # score groups of the option curves (quintiles)
Z_95_ONE_SIDED = 1.6448536269514722  # the one-sided 5 % point of the normal: "significantly greater than 1"


@dataclass(frozen=True)
class Thresholds:
    """Where a number becomes a flag. Sources: docs/reference/stats.md#thresholds."""

    too_easy: float = 0.90  # facility above
    too_hard: float = 0.20  # facility below
    low_discrimination: float = 0.20  # corrected point-biserial below (Ebel & Frisbie: under .20 is poor)
    negative_discrimination: float = 0.0  # corrected point-biserial below
    non_functioning: float = 0.05  # a distractor chosen by fewer (Haladyna & Downing 1993)
    attracts_strong: float = 0.0  # a distractor's upper-27 % share minus its lower-27 % share above
    min_n: int = 30  # fewer responses to a question (or in a locale): "too few", no flag
    dif_min_n: int = 100  # fewer in either locale of a DIF comparison: "too few"
    dif_b: float = 1.0  # |MH D-DIF| at least, and significant: ETS class B
    dif_c: float = 1.5  # |MH D-DIF| at least, and significantly above dif_b: ETS class C
    dif_significance: float = 0.05  # the MH chi-square's level


@dataclass(frozen=True)
class ChoiceStats:
    id: str
    correct: bool
    share: float  # of the responses that record a choice, those that picked it
    mean_score: float | None  # the mean total score (0 to 1) of the learners who picked it
    upper: float  # share picking it among the upper 27 % by total score
    lower: float  # ... among the lower 27 %


@dataclass(frozen=True)
class Curve:
    """The option curve: for each score group (lowest first), its mean total score and the share picking each
    choice."""

    scores: tuple[float, ...]
    shares: tuple[tuple[float, ...], ...]  # [group][choice]


@dataclass(frozen=True)
class GroupStats:
    n: int
    facility: float | None
    discrimination: float | None  # corrected point-biserial: the item against the rest of the test
    upper_lower: float | None  # facility in the upper 27 % minus in the lower 27 %
    choices: tuple[ChoiceStats, ...]
    curve: Curve | None

    @property
    def too_few(self) -> bool:
        return self.discrimination is None


@dataclass(frozen=True)
class Dif:
    """Mantel-Haenszel DIF of a question between two locales, ``focal`` against ``reference``; a negative
    ``delta`` (MH D-DIF) is harder for ``focal`` at equal matching score."""

    reference: str
    focal: str
    n_reference: int
    n_focal: int
    delta: float | None = None  # None: too few
    se: float | None = None
    chi_square: float | None = None
    p: float | None = None
    ets_class: str | None = None  # "A", "B", "C"
    stage: int = 2  # 2: against the purified matching score


@dataclass(frozen=True)
class Flag:
    kind: str
    value: float
    threshold: float
    locale: str | None = None
    choice: str | None = None
    reference: str | None = None  # dif: the locale it is compared with
    ets_class: str | None = None  # dif: "B" or "C"


@dataclass(frozen=True)
class QuestionStats:
    id: str
    kind: str
    overall: GroupStats
    locales: dict[str, GroupStats]
    dif: tuple[Dif, ...]
    flags: tuple[Flag, ...]


@dataclass(frozen=True)
class Analysis:
    bank: str
    attempts: int
    alpha: float | None  # Cronbach's alpha over the attempts that saw every question
    locales: dict[str, tuple[int, float | None]]  # locale -> (attempts, alpha)
    questions: tuple[QuestionStats, ...]
    thresholds: Thresholds = field(default_factory=Thresholds)


@dataclass
class _Matrix:
    """The attempts as arrays: attempts x questions, and per question attempts x choices."""

    questions: list[Question]
    locales: list[str]
    locale: Ints  # per attempt, an index into locales
    presented: Bools
    score: Floats
    known: Bools  # the response records its choices
    chosen: list[Bools]
    prop: Floats  # per attempt: its mean question score
    count: Ints  # per attempt: questions presented


def _matrix(bank: Bank, attempts: list[Attempt]) -> _Matrix:
    seen = {qid for a in attempts for qid in a.responses}
    questions = [q for q in bank.questions if q.id in seen]
    index = {q.id: i for i, q in enumerate(questions)}
    choice_index = [{c.id: j for j, c in enumerate(q.choices)} for q in questions]
    locales = [loc for loc in bank.locales if any(a.locale == loc for a in attempts)]
    locale_index = {loc: k for k, loc in enumerate(locales)}
    n, m = len(attempts), len(questions)
    presented = np.zeros((n, m), dtype=bool)
    score = np.zeros((n, m))
    known = np.zeros((n, m), dtype=bool)
    chosen = [np.zeros((n, len(q.choices)), dtype=bool) for q in questions]
    locale = np.zeros(n, dtype=np.int64)
    # Per distinct response (readers share equal ones): its question's index, score and choices' indexes.
    seen_responses: dict[Response, tuple[int, float, tuple[int, ...] | None]] = {}
    for a, attempt in enumerate(attempts):
        locale[a] = locale_index[attempt.locale]
        for response in attempt.responses.values():
            known_response = seen_responses.get(response)
            if known_response is None:
                i = index[response.question]
                picked = None if response.choices is None else tuple(choice_index[i][c] for c in response.choices)
                known_response = seen_responses[response] = (i, score_of(questions[i], response), picked)
            i, value, picked = known_response
            presented[a, i] = True
            score[a, i] = value
            if picked is not None:
                known[a, i] = True
                for j in picked:
                    chosen[i][a, j] = True
    count = presented.sum(axis=1).astype(np.int64)
    prop = score.sum(axis=1) / np.maximum(count, 1)
    return _Matrix(questions, locales, locale, presented, score, known, chosen, prop, count)


def analyse(bank: Bank, attempts: list[Attempt], thresholds: Thresholds | None = None) -> Analysis:
    """Item statistics of every question the attempts saw, overall and per locale, DIF between locales, flags."""
    t = thresholds or Thresholds()
    x = _matrix(bank, attempts)
    everyone = np.ones(len(attempts), dtype=bool)
    in_locale = {loc: x.locale == k for k, loc in enumerate(x.locales)}
    difs = _dif_all(x, t)
    questions = []
    for i, q in enumerate(x.questions):
        overall = _group(x, i, everyone, t)
        per_locale = {loc: _group(x, i, mask, t) for loc, mask in in_locale.items() if (mask & x.presented[:, i]).any()}
        flags = _flags(q, overall, t) + _dif_flags(difs[i], t)
        questions.append(QuestionStats(q.id, q.kind.value, overall, per_locale, tuple(difs[i]), tuple(flags)))
    return Analysis(
        bank.id,
        len(attempts),
        _alpha(x, everyone),
        {loc: (int(mask.sum()), _alpha(x, mask)) for loc, mask in in_locale.items()},
        tuple(questions),
        t,
    )


def _alpha(x: _Matrix, mask: Bools) -> float | None:
    """Cronbach's alpha over the attempts in ``mask`` that were presented every question."""
    complete = mask & x.presented.all(axis=1)
    k = x.score.shape[1]
    if k < 2 or complete.sum() < 2:
        return None
    s = x.score[complete]
    total_var = s.sum(axis=1).var(ddof=1)
    if total_var == 0:
        return None
    return float(k / (k - 1) * (1 - s.var(axis=0, ddof=1).sum() / total_var))


def _mean(values: Floats) -> float | None:
    return float(values.mean()) if values.size else None


def _group(x: _Matrix, i: int, mask: Bools, t: Thresholds) -> GroupStats:
    m = mask & x.presented[:, i]
    n = int(m.sum())
    s = x.score[m, i]
    prop = x.prop[m]
    facility = _mean(s)
    choices_known = x.known[m, i]
    chosen = x.chosen[i][m][choices_known]
    prop_known = prop[choices_known]
    order = np.argsort(prop, kind="stable")
    k = max(1, round(UPPER_LOWER * n))
    low, high = order[:k], order[-k:]
    known_low, known_high = choices_known[low], choices_known[high]
    chosen_all = x.chosen[i][m]
    q = x.questions[i]
    choices = []
    for j, c in enumerate(q.choices):
        picked = chosen[:, j]
        choices.append(
            ChoiceStats(
                c.id,
                c.correct,
                float(picked.mean()) if picked.size else 0.0,
                _mean(prop_known[picked]),
                float(chosen_all[high][known_high, j].mean()) if known_high.any() else 0.0,
                float(chosen_all[low][known_low, j].mean()) if known_low.any() else 0.0,
            )
        )
    if n < t.min_n:
        return GroupStats(n, facility, None, None, tuple(choices), None)
    several = x.count[m] > 1
    rest = np.where(several, (prop * x.count[m] - s) / np.maximum(x.count[m] - 1, 1), np.nan)
    discrimination = _correlation(s[several], rest[several])
    upper_lower = float(s[high].mean() - s[low].mean())
    return GroupStats(n, facility, discrimination, upper_lower, tuple(choices), _curve(chosen, prop_known))


def _correlation(a: Floats, b: Floats) -> float | None:
    if a.size < 3 or a.std() == 0 or b.std() == 0:
        return 0.0 if a.size >= 3 else None  # (a question everyone got right, or wrong, tells nothing apart)
    return float(np.corrcoef(a, b)[0, 1])


def _curve(chosen: Bools, prop: Floats) -> Curve | None:
    if not prop.size:
        return None
    groups = np.array_split(np.argsort(prop, kind="stable"), min(CURVE_GROUPS, prop.size))
    return Curve(
        tuple(float(prop[g].mean()) for g in groups),
        tuple(tuple(float(v) for v in chosen[g].mean(axis=0)) for g in groups),
    )


def _flags(q: Question, g: GroupStats, t: Thresholds) -> list[Flag]:
    if g.too_few or g.facility is None or g.discrimination is None:
        return []
    flags = []
    if g.facility > t.too_easy:
        flags.append(Flag("too-easy", g.facility, t.too_easy))
    if g.facility < t.too_hard:
        flags.append(Flag("too-hard", g.facility, t.too_hard))
    if g.discrimination < t.negative_discrimination:
        flags.append(Flag("negative-discrimination", g.discrimination, t.negative_discrimination))
    elif g.discrimination < t.low_discrimination:
        flags.append(Flag("low-discrimination", g.discrimination, t.low_discrimination))
    distractors = [c for c in g.choices if not c.correct]
    for c in distractors:
        if c.share < t.non_functioning:
            flags.append(Flag("non-functioning-distractor", c.share, t.non_functioning, choice=c.id))
        elif c.upper - c.lower > t.attracts_strong:
            flags.append(Flag("distractor-attracts-strong", c.upper - c.lower, t.attracts_strong, choice=c.id))
    if q.kind is not Kind.MULTIPLE and distractors:
        key = next(c for c in g.choices if c.correct)
        rival = max(distractors, key=lambda c: c.share)
        if key.share < rival.share:
            flags.append(Flag("key-less-chosen", key.share, rival.share, choice=rival.id))
    return flags


def _dif_flags(difs: list[Dif], t: Thresholds) -> list[Flag]:
    flags = []
    for d in difs:
        if d.ets_class in ("B", "C") and d.delta is not None:
            # The locale it is harder for, against the other: MH D-DIF is antisymmetric in the two groups.
            locale, reference = (d.focal, d.reference) if d.delta < 0 else (d.reference, d.focal)
            threshold = t.dif_c if d.ets_class == "C" else t.dif_b
            flags.append(Flag("dif", -abs(d.delta), -threshold, locale, None, reference, d.ets_class))
    return flags


# --- Mantel-Haenszel DIF --------------------------------------------------------------------------------------------


def _dif_all(x: _Matrix, t: Thresholds) -> list[list[Dif]]:
    """Per question, its DIF for each pair of locales (the bank's order: the source locale is the reference).

    Two stages, as ETS does (Holland & Thayer 1988; Zwick 2012): match on the number-correct score; then match again
    on it without the questions classed B or C in the first stage (the studied question always stays in)."""
    result: list[list[Dif]] = [[] for _ in x.questions]
    right = x.score >= 1 - 1e-9  # a partly right answer is not right
    right_count = (right & x.presented).sum(axis=1)
    for r, f in combinations(range(len(x.locales)), 2):
        pair = (x.locale == r) | (x.locale == f)
        first = [_mh(x, i, r, f, pair, right, right_count, t, stage=1) for i in range(len(x.questions))]
        flagged = [i for i, d in enumerate(first) if d.ets_class in ("B", "C")]
        for i in range(len(x.questions)):
            if not flagged:
                result[i].append(_restage(first[i]))
                continue
            others = [j for j in flagged if j != i]
            matching = right_count - (right[:, others] & x.presented[:, others]).sum(axis=1)
            result[i].append(_mh(x, i, r, f, pair, right, matching, t, stage=2))
    return result


def _restage(d: Dif) -> Dif:
    """A first-stage result that is also the second (nothing was purified away)."""
    return Dif(d.reference, d.focal, d.n_reference, d.n_focal, d.delta, d.se, d.chi_square, d.p, d.ets_class, 2)


def _mh(
    x: _Matrix, i: int, r: int, f: int, pair: Bools, right: Bools, matching: Ints, t: Thresholds, *, stage: int
) -> Dif:
    m = pair & x.presented[:, i]
    ref = x.locale[m] == r
    n_ref, n_focal = int(ref.sum()), int((~ref).sum())
    reference, focal = x.locales[r], x.locales[f]
    if n_ref < t.dif_min_n or n_focal < t.dif_min_n:
        return Dif(reference, focal, n_ref, n_focal, stage=stage)
    strata = matching[m]
    y = right[m, i]
    k = int(strata.max()) + 1
    n_r = np.bincount(strata[ref], minlength=k).astype(float)
    n_f = np.bincount(strata[~ref], minlength=k).astype(float)
    a = np.bincount(strata[ref & y], minlength=k).astype(float)
    c = np.bincount(strata[~ref & y], minlength=k).astype(float)
    use = (n_r > 0) & (n_f > 0)
    n_r, n_f, a, c = n_r[use], n_f[use], a[use], c[use]
    b, d = n_r - a, n_f - c
    n = n_r + n_f
    if not n.size:
        return Dif(reference, focal, n_ref, n_focal, stage=stage)
    big_r, big_s = a * d / n, b * c / n
    if big_r.sum() == 0 or big_s.sum() == 0:
        # An empty cell sum makes the odds ratio 0 or infinite: the Haldane-Anscombe half added to every cell.
        a, b, c, d = a + 0.5, b + 0.5, c + 0.5, d + 0.5
        n = a + b + c + d
        big_r, big_s = a * d / n, b * c / n
    sum_r, sum_s = float(big_r.sum()), float(big_s.sum())
    delta = -2.35 * math.log(sum_r / sum_s)
    # Robins, Breslow and Greenland (1986): the variance of log alpha_MH.
    p_k, q_k = (a + d) / n, (b + c) / n
    variance = (
        float((p_k * big_r).sum()) / (2 * sum_r**2)
        + float((p_k * big_s + q_k * big_r).sum()) / (2 * sum_r * sum_s)
        + float((q_k * big_s).sum()) / (2 * sum_s**2)
    )
    se = 2.35 * math.sqrt(variance)
    # The MH chi-square, with the continuity correction (Holland & Thayer 1988).
    m1, m0 = a + c, b + d
    n_r2, n_f2 = a + b, c + d
    expected = n_r2 * m1 / n
    several = n > 1
    var_a = np.where(several, n_r2 * n_f2 * m1 * m0 / (n**2 * np.maximum(n - 1, 1)), 0.0)
    total_var = float(var_a.sum())
    chi_square = max(0.0, abs(float(a.sum() - expected.sum())) - 0.5) ** 2 / total_var if total_var > 0 else 0.0
    p = math.erfc(math.sqrt(chi_square / 2))  # the chi-square's tail with one degree of freedom
    return Dif(reference, focal, n_ref, n_focal, delta, se, chi_square, p, ets_class(delta, se, p, t), stage)


def ets_class(delta: float, se: float, p: float, t: Thresholds) -> str:
    """ETS's classes (Zieky 1993; Zwick 2012). A: |D| under 1, or the MH chi-square not significant at 5 %. C: |D| at
    least 1.5 and significantly above 1 (one-sided 5 %). B: the rest."""
    if abs(delta) < t.dif_b or p >= t.dif_significance:
        return "A"
    if abs(delta) >= t.dif_c and se > 0 and (abs(delta) - t.dif_b) / se > Z_95_ONE_SIDED:
        return "C"
    return "B"
