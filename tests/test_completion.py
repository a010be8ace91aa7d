"""Tab completion: `moe-lms completion SHELL` prints code that completes commands and their choices."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from moe_lms.cli import main


def completions(*words: str) -> list[str]:
    env = {"_MOE_LMS_COMPLETE": "bash_complete", "COMP_WORDS": " ".join(words), "COMP_CWORD": str(len(words) - 1)}
    result = CliRunner().invoke(main, [], env=env, prog_name="moe-lms")
    return [line.split(",", 1)[1] for line in result.output.splitlines()]


def test_commands_and_format_names_complete() -> None:
    assert completions("moe-lms", "ch") == ["check"]
    assert "init" in completions("moe-lms", "")
    assert completions("moe-lms", "export", "--format", "mo") == ["moodle"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_the_shell_s_code_for_moe_lms(shell: str) -> None:
    result = CliRunner().invoke(main, ["completion", shell])
    assert result.exit_code == 0
    assert f"_MOE_LMS_COMPLETE={shell}_complete" in result.output.replace('"', "").replace("'", "")


def test_bash_completes_with_the_printed_code() -> None:
    script = Path(sys.executable).parent / "moe-lms"
    if shutil.which("bash") is None or not script.exists():
        pytest.skip("needs bash and the installed moe-lms console script")
    probe = (
        f'PATH="{script.parent}:$PATH"; eval "$(moe-lms completion bash)"; '
        'COMP_WORDS=(moe-lms tra); COMP_CWORD=1; _moe_lms_completion moe-lms; echo "${COMPREPLY[@]}"'
    )
    done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["translations"]
