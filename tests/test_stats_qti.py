"""moe-lms stats on QTI 2.1 results made by a real QTI engine: qti-sdk (the engine of TAO) delivers moe-lms's
QTI 2.1 items of the stats bank to simulated learners in en, ur and vi, scores them, and writes each learner's
``assessmentResult`` with its own result builder (tests/qti/qti_results.php). The analysis of those files recovers
the facilities, flags the Urdu-only DIF and the dead distractor, and nothing else at class C."""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Any

import pytest

from moe_lms.problems import ProblemsFound
from moe_lms.stats.compute import analyse
from moe_lms.stats.json_out import document
from moe_lms.stats.qti import read_qti_results
from moe_lms.stats.results import merge

from .qti_support import export, members
from .stats_support import ITEMS, LOCALES, expected_facility, observed_facility, simulate, stats_bank
from .test_moodle_real import missing

DRIVER = Path(__file__).parent / "qti" / "qti_results.php"


@pytest.fixture(scope="module")
def qti_sdk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from .conftest import SHARED

    tarballs = sorted((SHARED / "qti-sdk").glob("qti-sdk-*.tar.xz"))
    if not tarballs:
        pytest.skip(f"qti-sdk not found in {SHARED / 'qti-sdk'} (../shared beside the checkout)")
    if shutil.which("php") is None:
        missing("PHP not found: apt-get install php8.2-cli php8.2-xml php8.2-mbstring")
    folder = tmp_path_factory.mktemp("qti-sdk")
    with tarfile.open(tarballs[-1]) as archive:
        archive.extractall(folder, filter="data")
    (src,) = folder.glob("*/src")
    return src


@pytest.fixture(scope="module")
def delivered(qti_sdk: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], list[Any], dict[str, Any]]:
    bank = stats_bank()
    files = members(export(bank, LOCALES))
    items = {f"{q}-{loc}": files[f"items/{q}-{loc}.xml"].decode() for q in ITEMS for loc in LOCALES}
    learners = simulate(200)
    payload = {
        "items": items,
        "learners": [
            {
                "name": lr.name,
                "session": f"s-{lr.name}",
                "items": [[f"{q}-{lr.locale}", list(c)] for q, c in lr.answers.items()],
            }
            for lr in learners
        ],
    }
    out = tmp_path_factory.mktemp("qti-results")
    done = subprocess.run(
        ["php", str(DRIVER), str(qti_sdk), str(out)], input=json.dumps(payload), capture_output=True, text=True,
        timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]
    result = json.loads(done.stdout)
    return [Path(p) for p in result["files"]], learners, result["scores"]


def test_qti_results_from_the_engine_give_the_known_truth(
    delivered: tuple[list[Path], list[Any], dict[str, Any]],
) -> None:
    paths, learners, scores = delivered
    bank = stats_bank()
    attempts = merge(read_qti_results(p.read_bytes(), p.name, bank, None) for p in paths)
    assert len(attempts) == 600 and {a.locale for a in attempts} == set(LOCALES)
    doc = document(analyse(bank, attempts))
    for q in doc["questions"]:
        assert q["facility"] == pytest.approx(observed_facility(learners, q["id"]), abs=1e-4)
        assert abs(q["facility"] - expected_facility(q["id"])) < 0.05
        # The engine's SCORE agrees with moe-lms's key, learner by learner.
        engine = sum(float(scores[lr.name][f"{q['id']}-{lr.locale}"]) >= 1 for lr in learners) / len(learners)
        assert engine == pytest.approx(q["facility"], abs=1e-4)
    flags = [
        (q["id"], f["kind"], f.get("locale"), f.get("choice"), f.get("class"))
        for q in doc["questions"]
        for f in q["flags"]
    ]
    assert ("dif-item", "dif", "ur", None, "C") in flags
    assert ("dead-distractor", "non-functioning-distractor", None, "d", None) in flags
    assert [f for f in flags if f[4] == "C" and f[0] != "dif-item"] == []


def test_a_result_for_an_item_not_in_the_bank_names_the_file_and_line(
    delivered: tuple[list[Path], list[Any], dict[str, Any]],
) -> None:
    data = delivered[0][0].read_bytes().replace(b'identifier="routing-', b'identifier="rerouting-', 1)
    with pytest.raises(ProblemsFound) as caught:
        read_qti_results(data, "r.xml", stats_bank(), None)
    (problem,) = caught.value.problems
    assert problem.file == "r.xml" and problem.line is not None
    assert "item 'rerouting-en' is not a question of bank stats-bank" in problem.message


def test_qti_results_refuse_entities_and_foreign_roots() -> None:
    with pytest.raises(ProblemsFound, match="DOCTYPE"):
        read_qti_results(b'<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>', "e.xml", stats_bank(), None)
    with pytest.raises(ProblemsFound, match=r"not a QTI 2\.1 <assessmentResult>"):
        read_qti_results(b"<assessmentResult/>", "n.xml", stats_bank(), None)
