"""The generated bank of 60 questions in three tagged pools, and its quiz drawing 2 + 3 + a fixed 2, in every format:
each either carries the quiz (every question of its pools, none other) or refuses it naming why."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from moe_lms import formats
from moe_lms.cli import main
from moe_lms.formats import ExportOptions

from .quiz_bank import POOLS, quiz_bank, write_quiz_bank

# Question ids of the quiz's pools: every routing and memory question, the two fixed network ones.
IN_QUIZ = [f"{pool}-{n:02d}" for pool in POOLS[:2] for n in range(1, 21)] + ["network-01", "network-02"]
NOT_IN_QUIZ = [f"network-{n:02d}" for n in range(3, 21)]


@pytest.mark.parametrize("name", formats.names())
def test_every_format_carries_the_quizs_pools_or_says_why_not(name: str, tmp_path: Path) -> None:
    fmt = formats.get(name)
    bank = quiz_bank()
    if not fmt.quizzes:
        result = CliRunner().invoke(
            main, ["export", "--format", name, "--quiz", "midterm", str(write_quiz_bank(tmp_path))]
        )
        assert result.exit_code == 2 and fmt.quiz_refusal in " ".join(result.output.split()), result.output
        return
    data = fmt.dump(bank, ExportOptions.for_bank(bank, ("en",), quiz="midterm"))
    text = _text_of(data)
    assert all(qid in text for qid in IN_QUIZ)
    assert not any(f"{qid}-en" in text or f'q-{qid}"' in text or f"question: {qid}\n" in text for qid in NOT_IN_QUIZ)


def _text_of(data: bytes) -> str:
    """A file's text, or every member's of a zip or a .tar.gz."""
    if data[:2] == b"\x1f\x8b":
        import io
        import tarfile

        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            return "\n".join(
                archive.extractfile(m).read().decode("utf-8", "replace")  # type: ignore[union-attr]
                for m in archive.getmembers()
                if m.isfile()
            )
    if data[:2] == b"PK":
        import io
        import zipfile

        files = zipfile.ZipFile(io.BytesIO(data))
        return "\n".join(files.read(n).decode("utf-8", "replace") for n in files.namelist())
    return data.decode("utf-8")
