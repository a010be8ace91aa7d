"""Per-student variants in a real QTI 2.1 engine (issue 31): qti-sdk (oat-sa/qti-sdk, TAO's engine, from
../shared/qti-sdk) runs whole test sessions of the exported package; each session's route draws one variant of a
parameterised question from its section (``<selection select="1">``), and the engine scores the answer the variant's
own numbers make right."""

from __future__ import annotations

import io
import json
import math
import os
import posixpath
import re
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from moe_lms import formats
from moe_lms.loader import load_bank

from .variant_bank import write_bank

DRIVER = Path(__file__).parent / "qtisdk_test_session.php"
QTI = "{http://www.imsglobal.org/xsd/imsqti_v2p1}"
SESSIONS = 16


@pytest.fixture(scope="module")
def qti_sdk(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    tarballs = sorted((shared_dir / "qti-sdk").glob("qti-sdk-*.tar.xz"))
    if not tarballs or shutil.which("php") is None:
        message = "no QTI 2.1 engine: ../shared/qti-sdk/qti-sdk-*.tar.xz or php is missing"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    folder = tmp_path_factory.mktemp("qti-sdk")
    with tarfile.open(tarballs[-1]) as tar:
        tar.extractall(folder, filter="data")
    (src,) = folder.glob("*/src")
    return src


def text_of(element: etree._Element) -> str:
    """What a candidate reads, MathML by its TeX annotation (the numbers as written)."""
    for math_element in element.iter("{http://www.w3.org/1998/Math/MathML}math"):
        tex = math_element.find(".//{http://www.w3.org/1998/Math/MathML}annotation")
        tail = math_element.tail
        math_element.clear()
        math_element.text, math_element.tail = (tex.text if tex is not None else ""), tail
    return " ".join("".join(element.itertext()).split())


def answers_by_text(item: etree._Element) -> dict[str, list[list[str]]]:
    """For one item, the choices a candidate picks by reading it: the right one and a wrong one, found from the
    numbers its prompt shows (never from the package's key)."""
    prompt = text_of(item.find(f".//{QTI}prompt"))
    choices = {text_of(c): c.get("identifier", "") for c in item.iter(f"{QTI}simpleChoice")}
    found = re.search(r"T = ([\d{},]+) tokens, top-(\d+) routing over E = (\d+)", prompt)
    if found:
        tokens, k, experts = (int(re.sub(r"[{},]", "", g)) for g in found.groups())
        exact = 1.25 * tokens * k / experts
        return {"right": [[choices[f"{math.ceil(exact):,}"]]], "wrong": [[choices[f"{math.floor(exact):,}"]]]}
    found = re.search(r"at most 2\^\{(\d+)\}", prompt)
    if found:
        power = 2 ** int(found.group(1))
        return {
            "right": [[choices[str(power)], choices[str(power - 1)]]],
            "wrong": [[choices[str(power + 1)]]],
        }
    return {"right": [[choices["7"]]], "wrong": [[choices["9"]]]}


def test_qti_sdk_draws_one_variant_per_test_session_and_scores_it(qti_sdk: Path, tmp_path: Path) -> None:
    bank = load_bank(write_bank(tmp_path / "bank"))
    package = formats.get("qti21").dump(bank, formats.ExportOptions(locales=("en",)))
    files = zipfile.ZipFile(io.BytesIO(package))
    test_path = "tests/variant-demo-all-en.xml"
    test = files.read(test_path)
    items: dict[str, str] = {}
    answers: dict[str, list[list[str]]] = {}
    for ref in etree.fromstring(test).iter(f"{QTI}assessmentItemRef"):
        href = ref.get("href", "")
        data = files.read(posixpath.normpath(posixpath.join("tests", href)))
        items[href] = data.decode()
        picked = answers_by_text(etree.fromstring(data))
        answers[ref.get("identifier", "")] = [picked["right"][0], picked["wrong"][0]]
    done = subprocess.run(
        ["php", str(DRIVER), str(qti_sdk)],
        input=json.dumps({"test": test.decode(), "items": items, "sessions": SESSIONS, "answers": answers}),
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:] + done.stdout[-2000:]
    sessions = json.loads(done.stdout)
    assert len(sessions) == SESSIONS
    drawn_capacity = set()
    for n, session in enumerate(sessions):
        ids = [i["identifier"] for i in session["items"]]
        # one item of the plain section, one variant of each parameterised question's section
        assert len(ids) == 3 and ids[0] == "plain-en", ids
        assert ids[1].startswith("capacity_") and ids[2].startswith("powers_"), ids
        drawn_capacity.add(ids[1])
        right = n % 2 == 0
        assert [i["score"] for i in session["items"]] == ([1.0] * 3 if right else [0.0] * 3), session
        assert session["score"] == (3.0 if right else 0.0)
    assert len(drawn_capacity) >= 2, drawn_capacity  # (sixteen draws from six)
