"""moe-lms stats, computing: simulated learners with known item difficulties (tests/stats_support.py) go in, the
facilities, the Urdu-only DIF and the dead distractor come out; the numbers agree with independent formulas
(statsmodels' Mantel-Haenszel, Cronbach's alpha by definition); the plain CSV reader names every row it refuses."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from moe_lms.problems import ProblemsFound
from moe_lms.stats.compute import Thresholds, analyse
from moe_lms.stats.json_out import document
from moe_lms.stats.plain import read_plain
from moe_lms.stats.results import Attempt, Response

from .stats_support import (
    ITEMS,
    Learner,
    attempts_of,
    expected_facility,
    observed_facility,
    plain_csv,
    simulate,
    stats_bank,
)


@pytest.fixture(scope="module")
def learners() -> list[Learner]:
    return simulate(200)


@pytest.fixture(scope="module")
def doc(learners: list[Learner]) -> dict[str, Any]:
    bank = stats_bank()
    return document(analyse(bank, read_plain(plain_csv(learners), "results.csv", bank)))


def by_id(doc: dict[str, Any], qid: str) -> dict[str, Any]:
    return next(q for q in doc["questions"] if q["id"] == qid)


def test_facilities_are_recovered_within_005_of_the_model(doc: dict[str, Any], learners: list[Learner]) -> None:
    for qid in ITEMS:
        q = by_id(doc, qid)
        assert q["n"] == 600
        assert q["facility"] == pytest.approx(observed_facility(learners, qid), abs=1e-4)
        assert abs(q["facility"] - expected_facility(qid)) < 0.05, qid


def test_the_urdu_item_is_dif_class_c_in_urdu_and_nothing_else_is_class_c(doc: dict[str, Any]) -> None:
    dif = [
        (q["id"], f["locale"], f["reference"], f["class"])
        for q in doc["questions"]
        for f in q["flags"]
        if f["kind"] == "dif"
    ]
    assert ("dif-item", "ur", "en", "C") in dif and ("dif-item", "ur", "vi", "C") in dif
    assert [d for d in dif if d[3] == "C" and d[0] != "dif-item"] == []
    vs_en = by_id(doc, "dif-item")["locales"]["ur"]["dif"][0]
    assert vs_en["reference"] == "en" and vs_en["delta"] < -1.5 and vs_en["p"] < 0.05


def test_the_dead_distractor_is_flagged_and_only_it(doc: dict[str, Any]) -> None:
    found = [
        (q["id"], f["choice"], f["value"])
        for q in doc["questions"]
        for f in q["flags"]
        if f["kind"] == "non-functioning-distractor"
    ]
    assert found == [("dead-distractor", "d", 0.0)]


def test_no_other_flag_on_well_behaved_questions(doc: dict[str, Any]) -> None:
    kinds = {(q["id"], f["kind"]) for q in doc["questions"] for f in q["flags"]}
    assert kinds == {("dif-item", "dif"), ("dead-distractor", "non-functioning-distractor")}


def test_the_json_shape_is_the_interface(doc: dict[str, Any]) -> None:
    q = by_id(doc, "dead-distractor")
    assert {"id", "n", "facility", "discrimination", "choices", "locales", "flags"} <= q.keys()
    assert {"id", "share", "mean_score"} <= q["choices"][0].keys()
    assert set(q["locales"]) == {"en", "ur", "vi"}
    assert {"n", "facility", "discrimination", "choices", "dif"} <= q["locales"]["ur"].keys()
    assert {"kind", "choice", "value", "threshold"} <= q["flags"][0].keys()
    assert json.loads(json.dumps(doc)) == doc


def test_discrimination_is_the_corrected_point_biserial(learners: list[Learner]) -> None:
    bank = stats_bank()
    attempts = attempts_of(learners)
    doc = document(analyse(bank, attempts))
    key = {"multiple": ("a", "b"), "true-false": ("t",)}
    scores = np.array([[lr.answers[q] == key.get(ITEMS[q][0], ("a",)) for q in ITEMS] for lr in learners], float)
    for i, qid in enumerate(ITEMS):
        rest = scores.sum(axis=1) - scores[:, i]
        assert by_id(doc, qid)["discrimination"] == pytest.approx(np.corrcoef(scores[:, i], rest)[0, 1], abs=1e-4)
    k = len(ITEMS)
    alpha = k / (k - 1) * (1 - scores.var(axis=0, ddof=1).sum() / scores.sum(axis=1).var(ddof=1))
    assert doc["alpha"] == pytest.approx(alpha, abs=1e-4)


def test_mantel_haenszel_agrees_with_statsmodels(learners: list[Learner]) -> None:
    """The first stage (matching on the whole number-correct score) is statsmodels' StratifiedTable exactly."""
    from statsmodels.stats.contingency_tables import StratifiedTable

    bank = stats_bank()
    pair = [lr for lr in learners if lr.locale in ("en", "ur")]
    key = {"multiple": ("a", "b"), "true-false": ("t",)}
    right = {lr.name: {q: lr.answers[q] == key.get(ITEMS[q][0], ("a",)) for q in ITEMS} for lr in pair}
    total = {name: sum(r.values()) for name, r in right.items()}
    tables = []
    for s in sorted(set(total.values())):
        group = [lr for lr in pair if total[lr.name] == s]
        ref = [right[lr.name]["dif-item"] for lr in group if lr.locale == "en"]
        foc = [right[lr.name]["dif-item"] for lr in group if lr.locale == "ur"]
        if ref and foc:
            tables.append(np.array([[sum(ref), len(ref) - sum(ref)], [sum(foc), len(foc) - sum(foc)]], float))
    st = StratifiedTable(tables)
    wanted = -2.35 * np.log(st.oddsratio_pooled)
    # No question is purified out when dif-item alone is studied against en only: compare the first stage.
    t = Thresholds(dif_b=99, dif_c=99)  # nothing classed B or C: stage two is stage one
    doc = document(analyse(bank, attempts_of(pair), t))
    got = by_id(doc, "dif-item")["locales"]["ur"]["dif"][0]
    assert got["delta"] == pytest.approx(wanted, abs=1e-3)
    assert got["se"] == pytest.approx(2.35 * st.logodds_pooled_se, abs=1e-3)
    assert got["chi_square"] == pytest.approx(st.test_null_odds(correction=True).statistic, abs=1e-3)


def test_below_the_minimum_n_it_says_too_few_and_flags_nothing() -> None:
    bank = stats_bank()
    few = simulate(8)
    doc = document(analyse(bank, attempts_of(few)))
    for q in doc["questions"]:
        assert q["status"] == "too few" and q["discrimination"] is None and q["flags"] == []
        assert all(d["status"] == "too few" for g in q["locales"].values() for d in g["dif"])


def test_a_score_only_answer_counts_in_facility_not_in_choices() -> None:
    bank = stats_bank()
    attempts = [Attempt(f"l{k}", "1", "en", "x", {"warm-up": Response("warm-up", None, 0.5)}) for k in range(3)]
    q = document(analyse(bank, attempts))["questions"][0]
    assert q["facility"] == 0.5 and all(c["share"] == 0 for c in q["choices"])


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("l1,1,en,no-such-question,a", "results.csv:3: error: question 'no-such-question' is not in bank stats-bank"),
        ("l1,1,fr,warm-up,a", "results.csv:3: error: locale 'fr' is not one of the bank's (en, ur, vi)"),
        ("l1,1,en,routing,z", "results.csv:3: error: question 'routing': choice 'z' is not one of a, b, c, d"),
        ("l1,1,en,routing,1.5", "results.csv:3: error: question 'routing': answer '1.5': a number is a score from 0"),
        ("l1,1,en,warm-up,b", "results.csv:3: error: attempt '1' of 'l1' answers 'warm-up' twice"),
        ("l1,1,ur,routing,b", "results.csv:3: error: attempt '1' of 'l1' is in en at results.csv:2, here ur"),
        ("l1,1", "results.csv:3: error: has 2 column(s), the header 5"),
    ],
)
def test_the_plain_csv_names_the_file_and_row_of_what_it_refuses(row: str, message: str) -> None:
    data = f"learner,attempt,locale,question,answer\nl1,1,en,warm-up,a\n{row}\n".encode()
    with pytest.raises(ProblemsFound) as caught:
        read_plain(data, "results.csv", stats_bank())
    assert str(caught.value.problems[0]).startswith(message)


def test_the_plain_csv_needs_its_five_columns_and_bounds_what_it_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ProblemsFound, match=r"results.csv:1: error: the header has no locale column"):
        read_plain(b"learner,attempt,question,answer\n", "results.csv", stats_bank())
    monkeypatch.setattr("moe_lms.stats.results.MAX_BYTES", 10)
    with pytest.raises(ProblemsFound, match="a results file is read up to 10 bytes"):
        read_plain(b"learner,attempt,locale,question,answer\n", "results.csv", stats_bank())
    monkeypatch.undo()
    monkeypatch.setattr("moe_lms.stats.plain.MAX_ROWS", 1)
    with pytest.raises(ProblemsFound, match="more than 1 rows"):
        read_plain(
            b"learner,attempt,locale,question,answer\nl,1,en,warm-up,a\nl,2,en,warm-up,a\n", "r.csv", stats_bank()
        )


@pytest.mark.parametrize(
    ("delta", "se", "p", "wanted"),
    [
        (-0.9, 0.1, 0.0001, "A"),  # |D| under 1
        (-2.0, 0.3, 0.06, "A"),  # not significant
        (-1.2, 0.1, 0.001, "B"),  # 1 <= |D| < 1.5
        (-1.6, 0.5, 0.001, "B"),  # |D| >= 1.5 but not significantly above 1: 0.6 / 0.5 < 1.645
        (-1.6, 0.2, 0.0001, "C"),  # 0.6 / 0.2 = 3 > 1.645
        (1.6, 0.2, 0.0001, "C"),  # either direction
    ],
)
def test_ets_classes(delta: float, se: float, p: float, wanted: str) -> None:
    from moe_lms.stats.compute import ets_class

    assert ets_class(delta, se, p, Thresholds()) == wanted


def test_purification_takes_the_dif_items_out_of_the_matching_score(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three questions harder in Urdu: matched on the whole score, Urdu learners of a given total are stronger than
    their English peers, so every clean question looks easier in Urdu (spurious DIF). ETS's second stage matches
    without the flagged questions, and the clean questions come back near zero and never class C."""
    import tests.stats_support as support

    harder = {"dif-item", "capacity", "balance"}

    def difficulty(qid: str, locale: str) -> float:
        return ITEMS[qid][1] + (1.5 if qid in harder and locale == "ur" else 0.0)

    monkeypatch.setattr(support, "difficulty", difficulty)
    learners = [lr for lr in simulate(400) if lr.locale in ("en", "ur")]
    bank = stats_bank()
    one_stage = document(analyse(bank, attempts_of(learners), Thresholds(dif_b=99, dif_c=99)))  # nothing purified
    two_stages = document(analyse(bank, attempts_of(learners)))
    clean = [qid for qid in ITEMS if qid not in harder]

    def delta(doc: dict[str, Any], qid: str) -> float:
        return float(by_id(doc, qid)["locales"]["ur"]["dif"][0]["delta"])

    before = sum(abs(delta(one_stage, q)) for q in clean) / len(clean)
    after = sum(abs(delta(two_stages, q)) for q in clean) / len(clean)
    assert before > 1.0 and after < 0.6 * before
    assert all(by_id(two_stages, q)["locales"]["ur"]["dif"][0]["class"] != "C" for q in clean)
    assert all(delta(two_stages, q) < -1.5 for q in harder)


def test_a_quiz_that_draws_questions_counts_each_question_where_it_was_presented() -> None:
    """Each learner saw 6 of the 8 questions (a quiz section drawing): n is per question, totals are means over
    what each attempt presented, and alpha, which needs every question, has no complete attempt to use."""
    learners = simulate(200)
    attempts = attempts_of(learners)
    qids = list(ITEMS)
    for k, a in enumerate(attempts):
        for qid in (qids[k % 8], qids[(k + 3) % 8]):
            del a.responses[qid]
    doc = document(analyse(stats_bank(), attempts))
    assert doc["alpha"] is None
    assert sum(q["n"] for q in doc["questions"]) == 6 * len(attempts)
    for q in doc["questions"]:
        assert q["n"] == 450
        shown = [lr for k, lr in enumerate(learners) if q["id"] not in (qids[k % 8], qids[(k + 3) % 8])]
        assert q["facility"] == pytest.approx(observed_facility(shown, q["id"]), abs=1e-4)
        assert q["discrimination"] > 0.2
