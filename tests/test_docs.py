"""The documentation says what the code does: its commands exist, its examples run, its bank loads.

The pages are docs/**/*.md (the MkDocs site) and README.md. A shell block right after a line
``<!-- run: a copy of the shipped bank -->`` or ``<!-- run: an empty folder -->`` is run: a page's marked blocks in
order, as one bash script (``set -euo pipefail``), in a copy of the shipped bank or in an empty folder outside the
checkout. A line ``<!-- then: COMMAND -->`` after a block adds COMMAND to the script, to check what the page says
the block made.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from moe_lms.cli import main
from moe_lms.loader import load_bank

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SHIPPED = ROOT / "question_bank" / "moe-expert-parallelism"
PAGES = [*sorted(DOCS.rglob("*.md")), ROOT / "README.md"]

# Commands the docs already describe that another branch of the same issue adds; a page using one is not run
# until the command exists (its command lines are still checked once it does).
PENDING = {
    "init": "moe-lms init comes with issue 25's CLI branch",
    "completion": "moe-lms completion comes with issue 25's CLI branch",
}

FENCE = re.compile(r"^(`{3,})(\w*)[^\n]*\n(.*?)^\1[ \t]*$", re.M | re.S)
RUN = re.compile(
    r"<!-- run: (a copy of the shipped bank|an empty folder) -->[ \t]*\n(`{3,})sh\n(.*?)^\2[ \t]*$", re.M | re.S
)
THEN = re.compile(r"^<!-- then: (.+) -->$", re.M)


def shell_blocks(text: str) -> list[str]:
    return [m.group(3) for m in FENCE.finditer(text) if m.group(2) in ("sh", "bash", "console", "shell")]


def command_lines(text: str) -> list[str]:
    """Every ``moe-lms …`` command in the page's shell blocks, as written (comments and env assignments off)."""
    found = []
    for block in shell_blocks(text):
        lines = block.splitlines()
        if any(line.startswith("$ ") for line in lines):  # a session: commands after "$ ", the rest is output
            lines = [line[2:] for line in lines if line.startswith("$ ")]
        for line in lines:
            for part in re.split(r"&&|;|\|", line):
                part = re.sub(r"\s#\s.*$", "", part).strip()
                if "$(" in part:  # eval "$(moe-lms completion bash)"
                    part = part.split("$(", 1)[1].split(")", 1)[0]
                part = re.sub(r"^(\w+=\S*\s+)+", "", part)
                if part.startswith("moe-lms ") or part == "moe-lms":
                    found.append(part)
    return found


def unknown_parts(line: str) -> list[str]:
    """The command names and options of ``line`` that the click command tree does not have."""
    words = shlex.split(line.replace("…", "X"))[1:]
    command: click.Command = main
    ctx = click.Context(main, info_name="moe-lms")
    unknown = []
    while words and isinstance(command, click.Group) and not words[0].startswith("-"):
        sub = command.get_command(ctx, words[0])
        if sub is None:
            return [words[0]]
        ctx = click.Context(sub, info_name=words[0], parent=ctx)
        command, words = sub, words[1:]
    names = {"-h", "--help"} | {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
    for word in words:
        if word.startswith("-") and word != "-":
            name = word.split("=", 1)[0]
            if name not in names:
                unknown.append(name)
    return unknown


def pending(text: str) -> str | None:
    for line in command_lines(text):
        words = line.split()
        if len(words) > 1 and words[1] in PENDING and main.get_command(click.Context(main), words[1]) is None:
            return PENDING[words[1]]
    return None


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_documented_command_and_option_exists(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    missing = {}
    for line in command_lines(text):
        words = line.split()
        if len(words) > 1 and words[1] in PENDING and main.get_command(click.Context(main), words[1]) is None:
            continue
        bad = unknown_parts(line)
        if bad:
            missing[line] = bad
    assert not missing, f"{page.name} documents what moe-lms does not have: {missing}"


def runnable_pages() -> list[Path]:
    return [p for p in PAGES if RUN.search(p.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("page", runnable_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_pages_examples_run_as_written(page: Path, tmp_path: Path) -> None:
    text = page.read_text(encoding="utf-8")
    reason = pending(text)
    if reason:
        pytest.skip(reason)
    script = ["set -euo pipefail"]
    setups = set()
    for match in RUN.finditer(text):
        setups.add(match.group(1))
        script.append(match.group(3))
        after = text[match.end() :].lstrip("\n")
        while then := THEN.match(after):
            script.append(then.group(1))
            after = after[then.end() :].lstrip("\n")
    assert len(setups) == 1, f"{page.name}: one kind of folder per page, not {setups}"
    folder = tmp_path / "work"
    if setups == {"a copy of the shipped bank"}:
        shutil.copytree(SHIPPED, folder)
    else:
        folder.mkdir()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("BANK_DIR", None)
    done = subprocess.run(
        ["bash", "-c", "\n".join(script)], cwd=folder, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, f"{page.name}'s example failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"


def test_the_bank_yaml_example_of_the_reference_loads_as_a_bank(tmp_path: Path) -> None:
    text = (DOCS / "reference" / "bank-yaml.md").read_text(encoding="utf-8")
    example = next(m.group(3) for m in FENCE.finditer(text) if m.group(2) == "yaml")
    (tmp_path / "bank.yaml").write_text(example, encoding="utf-8")
    bank = load_bank(tmp_path)
    assert bank.id == "moe-expert-parallelism"
    assert [c.id for c in bank.questions[0].choices] == ["a", "c"]


def test_the_tutorials_question_is_a_question_a_bank_accepts(tmp_path: Path) -> None:
    text = (DOCS / "tutorial.md").read_text(encoding="utf-8")
    question = next(m.group(3) for m in FENCE.finditer(text) if m.group(2) == "yaml")
    (tmp_path / "bank.yaml").write_text("id: photosynthesis\ntitle: Photosynthesis\nquestions:\n" + question, "utf-8")
    assert [q.id for q in load_bank(tmp_path).questions] == ["light-reactions"]


def test_the_readme_fits_on_a_screen_or_two_and_its_links_resolve() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text) < 10_000
    targets = [t for t in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in t]
    assert targets
    broken = [t for t in targets if not (ROOT / t.split("#", 1)[0]).exists()]
    assert not broken


def test_the_generated_reference_lists_every_command_field_and_format() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import docs_reference
    finally:
        sys.path.pop(0)
    from moe_lms import formats
    from moe_lms.model import Bank

    cli = docs_reference.cli()
    for name in main.list_commands(click.Context(main)):
        assert f"## `moe-lms {name}`" in cli
    fields = docs_reference.bank_yaml()
    # every field a bank.yaml may hold (the model's others, its translations and images, come from other files)
    assert all(f"| `{key}` |" in fields for key, field in Bank.model_fields.items() if not field.exclude)
    table = docs_reference.formats()
    assert all(f"| `{name}` |" in table for name in formats.names())
    for page in PAGES:
        expanded = docs_reference.expand(page.read_text(encoding="utf-8"))
        assert not docs_reference.MARKER.search(expanded), page
