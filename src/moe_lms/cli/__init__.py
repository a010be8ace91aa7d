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
from ..bulk import settled, short_lived_process
from ..errors import MoeLmsError
from ..files import remove_temporary_files_on_signals

# command name -> ("module:attribute" in this package, the first paragraph of its help for the command list)
_COMMANDS = {
    "init": ("init:init", "Start a bank: bank.yaml with an example question of each kind, PO files and a glossary."),
    "check": ("bank:check", "Validate a bank and its translations; print translation coverage per locale."),
    "schema": ("bank:schema", "Print the JSON Schema of bank.yaml, for editors."),
    "translations": ("bank:translations", "Keep the PO files of a bank in step with its source text."),
    "export": ("export:export", "Export a bank to a file an LMS imports."),
    "build": (
        "export:build",
        "Write a bank's ready-to-import files into exporters/: per locale a file of each format on the shelf, the "
        "files carrying every locale, and a README saying which file to take and how to import it.",
    ),
    "validate": (
        "interchange:validate",
        "Check a package or file before an LMS sees it; its format is found from its content.",
    ),
    "import": ("interchange:import_", "Read a file from another tool or LMS into a bank directory."),
    "push": ("canvas:push", "Send a bank straight into an LMS."),
    "stats": (
        "stats:stats",
        "Item analysis of a bank from what learners did: facility, discrimination, each choice's share, Cronbach's "
        "α, and differential item functioning between locales (Mantel-Haenszel, ETS classes A/B/C), with flags.",
    ),
    "schemas": ("schemas:schemas_group", "The official XML Schemas validate checks QTI packages against."),
    "completion": ("completion:completion", "Print the shell code for tab completion of moe-lms: bash, zsh or fish."),
}


class _LazyGroup(click.Group):
    """A group that imports a command's module only when the command is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of --help, from the summaries above: importing every command (pydantic, lxml, rich,
        requests ...) only to list them cost several times what --help itself does."""
        # (short_help: click lists it whole, wrapped, where it cuts a help text at 45 characters with "...")
        commands = [click.Command(name, short_help=summary) for name, (_, summary) in _COMMANDS.items()]
        listed = click.Group(commands=commands)
        listed.format_commands(ctx, formatter)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in _COMMANDS:
            return None
        module, attribute = _COMMANDS[cmd_name][0].split(":")
        command = getattr(import_module(f"{__name__}.{module}"), attribute)
        assert isinstance(command, click.Command)
        command.short_help = _COMMANDS[cmd_name][1]  # (listed whole, as in format_commands)
        settled()  # the command's modules are imported
        return command

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command. The one place moe-lms's errors become exit codes: problems found are listed and exit 1;
        any other :class:`~moe_lms.problems.MoeLmsError` is one line on stderr and its ``exit_code`` (1 problems,
        2 usage), never a traceback. (A command may say more first, by catching its errors itself.)"""
        remove_temporary_files_on_signals()
        try:
            return super().invoke(ctx)
        except MoeLmsError as exc:
            from ..problems import ProblemsFound

            if isinstance(exc, ProblemsFound):
                from .common import fail

                fail(exc.problems)
            click.echo(f"error: {exc}", err=True)
            sys.exit(exc.exit_code)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="moe-lms")
def main() -> None:
    """Multiple-choice question banks as code, delivered to Moodle, Canvas, Open edX, Common Cartridge platforms
    and QTI 2.1 and 3.0 platforms.

    BANK_DIR defaults to the current folder when it holds bank.yaml (or bank.yml); inside the moe-lms checkout,
    to the shipped bank, question_bank/moe-expert-parallelism. Anywhere else a command without a bank stops, saying
    how to make one (moe-lms init). Each command says which bank it used.
    """


def run() -> None:
    """The ``moe-lms`` console script: :func:`main`, in a process that ends with its command (see
    bulk.short_lived_process). Tests and library users call :func:`main`, which changes nothing of the kind."""
    short_lived_process()
    main()
