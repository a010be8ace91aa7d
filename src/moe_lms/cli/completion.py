"""``moe-lms completion SHELL``: the shell code that completes moe-lms's commands, options and paths."""

from __future__ import annotations

import click

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VAR = "_MOE_LMS_COMPLETE"  # click's variable for the console script moe-lms


@click.command()
@click.argument("shell", type=click.Choice(SHELLS))
def completion(shell: str) -> None:
    """Print the shell code for tab completion of moe-lms: bash, zsh or fish.

    The code makes SHELL complete moe-lms's commands, options, formats and file names:

    \b
    bash:  eval "$(moe-lms completion bash)"   (add it to ~/.bashrc)
    zsh:   eval "$(moe-lms completion zsh)"    (add it to ~/.zshrc)
    fish:  moe-lms completion fish > ~/.config/fish/completions/moe-lms.fish
    """
    from click.shell_completion import get_completion_class

    from . import main

    complete = get_completion_class(shell)
    assert complete is not None  # (every choice is one of click's shells)
    click.echo(complete(main, {}, "moe-lms", COMPLETE_VAR).source(), nl=False)
