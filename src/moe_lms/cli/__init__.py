"""The ``moe-lms`` command: files, stdout and exit codes live here and nowhere else.

Each command group is its own module, imported only when that command runs, so ``moe-lms check`` does not
pay for loading the QTI, Canvas and HTTP code. Exit codes scripts can rely on: 0 ok, 1 problems found,
2 usage error.
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Any

import click

from .. import __version__
from ..files import OutputError, remove_temporary_files_on_signals

# command name -> "module:attribute" in this package
_COMMANDS = {
    "check": "bank:check",
    "schema": "bank:schema",
    "translations": "bank:translations",
    "export": "export:export",
    "build": "export:build",
    "validate": "interchange:validate",
    "import": "interchange:import_",
    "push": "canvas:push",
    "schemas": "schemas:schemas_group",
}


class _LazyGroup(click.Group):
    """A group that imports a command's module only when the command is used (or help lists it)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in _COMMANDS:
            return None
        module, attribute = _COMMANDS[cmd_name].split(":")
        command = getattr(import_module(f"{__name__}.{module}"), attribute)
        assert isinstance(command, click.Command)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; a file it cannot write is one line on stderr and exit 1, never a traceback."""
        remove_temporary_files_on_signals()
        try:
            return super().invoke(ctx)
        except OutputError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(1)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="moe-lms")
def main() -> None:
    """Multiple-choice question banks as code, delivered to Moodle, QTI 2.1 platforms and Canvas.

    BANK_DIR defaults to the current folder when it holds bank.yaml, else to the shipped bank,
    question_bank/moe-expert-parallelism; each command says which bank it used.
    """
