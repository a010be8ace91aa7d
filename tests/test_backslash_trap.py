"""The backslash trap (issue 34, B1, M3, M7): LaTeX typed where a backslash is an escape.

In a YAML text in "double quotes" and in a PO msgstr, ``\\t`` ``\\n`` ``\\r`` ``\\f`` ``\\b`` … are escapes, so
``$2 \\times 3$`` reaches the learner as "2imes3". Each such text is an error of ``check`` and of every export, at
its file and line, saying what happened and the fix; the safe forms (single quotes, a ``>-`` block) pass.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from moe_lms import init, loader
from moe_lms.cli import main
from moe_lms.escapes import find_trap
from moe_lms.locales import Status, coverage

HEAD = """\
id: trap
title: Backslashes
source_locale: en
target_locales: [{targets}]
questions:
"""

QUESTION = """\
  - id: {qid}
    stem: {stem}
    explanation: Because.
    choices:
      - id: a
        text: {text}
        correct: true
        explanation: Right.
      - id: b
        text: '5'
        explanation: Wrong.
"""


def write_bank(directory: Path, stem: str, text: str = "'6'", targets: str = "", extra: str = "") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    body = HEAD.format(targets=targets) + QUESTION.format(qid="q1", stem=stem, text=text) + extra
    (directory / "bank.yaml").write_text(body, encoding="utf-8")
    return directory


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize(
    ("stem", "typed", "became"),
    [
        (r'"Note: what is $2 \times 3$?"', r"\times", 'a tab followed by "imes"'),
        (r'"Find the angle $\theta$."', r"\theta", 'a tab followed by "heta"'),
        (r'"Frequency $\nu$ in hertz."', r"\nu", 'a line break followed by "u"'),
        (r'"Density $\rho$."', r"\rho", 'a carriage return followed by "ho"'),
        (r'"Compute $\frac{1}{2}$."', r"\frac", 'a form feed (U+000C) followed by "rac"'),
        (r'"The $\beta$ of a test."', r"\beta", 'a backspace (U+0008) followed by "eta"'),
        (r'"Is $a \vee b$ true?"', r"\vee", 'a vertical tab (U+000B) followed by "ee"'),
        (r'"Is $\alpha = 1$?"', r"\alpha", 'a bell character (U+0007) followed by "lpha"'),
        (r'"Is $x \equiv 1$?"', r"\equiv", 'an escape character (U+001B) followed by "quiv"'),
    ],
)
def test_latex_in_a_double_quoted_stem_is_an_error_of_check_and_export_naming_line_and_fix(
    tmp_path: Path, stem: str, typed: str, became: str
) -> None:
    bank = write_bank(tmp_path / "bank", stem)
    for command in (["check", "--strict"], ["export", "--format", "html", "-o", str(tmp_path / "page.html")]):
        result = invoke(*command, str(bank))
        assert result.exit_code == 1, result.output
        assert "bank.yaml:7:11: error: question 'q1': " in result.stderr
        assert f'a backslash inside "double quotes" is a YAML escape: {typed} became {became}' in result.stderr
        assert "Write the text in 'single quotes'" in result.stderr and "(>- or |-" in result.stderr
    assert not (tmp_path / "page.html").exists()


def test_the_trap_in_a_choice_is_named_at_the_choice_line(tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank", "'Six?'", text=r'"$6 \times 1$"')
    result = invoke("check", str(bank))
    assert result.exit_code == 1
    assert "bank.yaml:11:15: error: question 'q1', choice 'a': " in result.stderr
    assert r"\times became a tab" in result.stderr


@pytest.mark.parametrize(
    "stem",
    [
        r"'Note: what is $2 \times 3$ and $\frac{\theta}{\nu}$?'",
        ">-\n      Note: what is $2 \\times 3$ and $\\frac{\\theta}{\\nu}$?",
        "|-\n      Note: what is $2 \\times 3$?\n\n      $$\n      x = \\frac{\\theta}{\\nu}\n      $$",
        '"Note: what is $2 \\\\times 3$?"',  # (double quotes with each backslash doubled also work)
    ],
)
def test_the_safe_forms_pass_and_keep_the_latex(tmp_path: Path, stem: str) -> None:
    bank = write_bank(tmp_path / "bank", stem)
    result = invoke("check", "--strict", str(bank))
    assert result.exit_code == 0, result.output
    assert "\\times" in loader.load_bank(bank).questions[0].stem or "\\frac" in loader.load_bank(bank).questions[0].stem


@pytest.mark.parametrize(
    "text",
    [
        "First line\nsecond line\ne.g. a third, not a \\ne",  # line breaks before words are ordinary text
        "$$\nx = 2\n$$",  # display math over lines
        "```python\n\tprint(x)\n```",  # a tab-indented code block
        "a\ttab between words",
        "Note:\n$\\theta$ and then\nnothing",
    ],
)
def test_ordinary_line_breaks_and_tabs_are_no_trap(text: str) -> None:
    assert find_trap(text) is None


def test_an_unknown_escape_names_the_backslash_and_the_fix(tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank", r'"Area $\frac{4\pi r^2}{2}$"')
    result = invoke("check", str(bank))
    assert result.exit_code == 1
    # the column of the \p (the parser names the opening quote, column 11)
    assert (
        'bank.yaml:7:25: error: YAML syntax error: a backslash inside "double quotes" starts a YAML escape, and '
        "YAML knows no escape \\p" in result.stderr
    )
    assert "'single quotes'" in result.stderr


def test_a_po_msgstr_whose_escape_ate_a_backslash_is_an_error_and_not_reviewed(tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank", r"'Find $\theta$ when $\tan \theta = 1$.'", targets="fr")
    assert invoke("translations", "update", str(bank)).exit_code == 0
    po_file = bank / "locales" / "fr.po"
    text = po_file.read_text(encoding="utf-8")
    entry = 'msgctxt "q1/stem"\nmsgid "Find $\\\\theta$ when $\\\\tan \\\\theta = 1$."\nmsgstr ""'
    assert entry in text
    # A translator types ordinary LaTeX, one backslash, in a plain text editor:
    po_file.write_text(
        text.replace(entry, entry[: -len('""')] + '"Trouvez $\\theta$ quand $\\tan \\theta = 1$."'), encoding="utf-8"
    )
    line = text.splitlines().index('msgctxt "q1/stem"') + 1
    result = invoke("check", str(bank))
    assert result.exit_code == 1
    assert (
        f"fr.po:{line}: error: question 'q1': msgstr: in a PO file a backslash starts an escape: \\theta became "
        'a tab followed by "heta"' in result.stderr
    )
    assert "Write \\\\theta (each backslash doubled" in result.stderr
    assert "math $\\theta$ is missing" not in result.stderr
    exported = invoke("export", "--format", "html", "--locale", "fr", "-o", str(tmp_path / "p.html"), str(bank))
    assert exported.exit_code == 1
    # Not counted as reviewed: read on its own, the catalog holds no translation for the entry.
    yaml_bank, _ = loader.read_bank_yaml(bank / "bank.yaml")
    assert yaml_bank is not None
    catalog, problems = loader.read_catalog(po_file, yaml_bank, "fr")
    assert problems
    assert coverage(yaml_bank.model_copy(update={"translations": {"fr": catalog}}), "fr")[Status.REVIEWED] == 0


def test_the_starter_bank_shows_single_quotes_or_a_block_for_latex() -> None:
    template = init.BANK_TEMPLATE
    assert "single quotes" in template
    assert r"\times" in template  # the example of what double quotes would break
    assert 'stem: "Note: ..."' not in template
