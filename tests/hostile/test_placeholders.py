"""The renderer marks where its own markup goes with private-use characters (U+E000-U+E003). Text that holds them
would put math inside attributes, index past the renderer's list, or split the HTML page at its question marker;
so they are refused in text, by check and by every export alike, and a writer handed such text directly says so
instead of raising IndexError."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from moe_lms import formats, richtext
from moe_lms.cli import main
from moe_lms.formats import ExportOptions

from .corpus import bank_saying, bank_with_stem

STEMS = {
    "a hole marker and index": "Math $x$ then \ue0000\ue001 and \ue0009\ue001.",
    "a hole marker past the list": "See \ue00099\ue001.",
    "a skeleton slot marker": "Slot \ue0000\ue002 here.",
    "the page's question marker": "Split \ue003 here.",
}


@pytest.mark.parametrize("stem", STEMS.values(), ids=STEMS.keys())
def test_check_and_export_both_refuse_a_renderer_placeholder_in_text(tmp_path: Path, stem: str) -> None:
    bank = bank_with_stem(tmp_path / "bank", stem)
    checked = CliRunner().invoke(main, ["check", str(bank)])
    assert checked.exit_code == 1 and "U+E00" in checked.output, checked.output
    for fmt in ("html", "moodle", "qti21"):
        exported = CliRunner().invoke(main, ["export", "--format", fmt, str(bank), "-o", str(tmp_path / f"out.{fmt}")])
        assert exported.exit_code == 1 and "U+E00" in exported.output, (fmt, exported.output)


@pytest.mark.parametrize("stem", STEMS.values(), ids=STEMS.keys())
def test_a_writer_handed_a_placeholder_directly_refuses_it_by_name_or_writes_it_as_text(stem: str) -> None:
    """What a writer meets when called without check: never an IndexError, never its own markup where the text
    stood, never a page cut at its question marker."""
    bank = bank_saying(Path(tempfile.mkdtemp()), stem)
    for name in formats.names():
        try:
            data = formats.get(name).dump(bank, ExportOptions(locales=bank.locales))
        except IndexError as exc:  # (the failure this test is for)
            pytest.fail(f"{name}: IndexError {exc}")
        except Exception as exc:  # (ValueError, ProblemsFound: either must name the character)
            assert "U+E00" in str(exc), (name, exc)
            continue
        if name == "html":
            assert data.count(b"<html") == 1 and data.rstrip().endswith(b"</html>")


def test_the_renderer_refuses_a_placeholder_rather_than_substituting_its_own_markup() -> None:
    with pytest.raises(ValueError, match="U\\+E000"):
        richtext.render_inline("$x$ and \ue0000\ue001")
