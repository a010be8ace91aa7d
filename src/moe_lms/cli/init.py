"""``moe-lms init``: start a bank from nothing."""

from __future__ import annotations

import re
from pathlib import Path

import click

from .. import loader
from ..files import inside, write_new
from ..init import in_the_way, planned_files
from ..locales import LOCALE_TAG, check_locale
from .common import EXIT_PROBLEMS, err, fail, shown


def _locales(value: str | None) -> tuple[str, ...]:
    """``ur,vi`` (or ``ur vi``) as locale tags, each one Babel knows; ``pt-BR`` is read as ``pt_BR``."""
    if not value:
        return ()
    tags = tuple(tag.strip().replace("-", "_") for tag in re.split(r"[,\s]+", value) if tag.strip())
    for tag in tags:
        try:
            if not LOCALE_TAG.fullmatch(tag):
                raise ValueError(tag)
            check_locale(tag)
        except ValueError:
            raise click.BadParameter(f"unknown locale {tag!r} (a locale tag such as ur, vi or pt_BR)") from None
    if len(set(tags)) != len(tags):
        raise click.BadParameter("a locale is listed twice")
    return tags


@click.command()
@click.argument("directory", required=False, type=click.Path(path_type=Path, file_okay=False), metavar="[DIR]")
@click.option(
    "--locales", "locales_text", metavar="TAGS", help="Target locales to translate into, comma-separated: ur,vi."
)
@click.option("--title", help="The bank's title, as learners see it (default: from the folder's name).")
@click.option("--source-locale", default="en", show_default=True, help="The language the questions are written in.")
def init(directory: Path | None, locales_text: str | None, title: str | None, source_locale: str) -> None:
    """Start a bank: bank.yaml with an example question of each kind, PO files and a glossary.

    In DIR (default: the current folder): bank.yaml with one example question of each kind and comments on what
    to write, its JSON Schema for editors (bank.schema.json), an empty PO file per target locale, an empty
    glossary and a .gitignore for exports. The bank passes `moe-lms check` and exports at once; nothing that
    exists is overwritten.
    """
    target_locales = _locales(locales_text)
    (source,) = _locales(source_locale) or ("",)
    if not source:
        raise click.BadParameter("give a source locale", param_hint="--source-locale")
    if source in target_locales:
        message = f"{source} is the source locale; target locales are the others"
        raise click.BadParameter(message, param_hint="--locales")
    folder = directory or Path(".")
    if title is not None and (half := re.search("[\ud800-\udfff]", title)) is not None:  # (bytes not UTF-8)
        message = (
            f"contains U+{ord(half.group()):04X}, half of a character (the shell passed bytes that are not UTF-8): "
            "type the title again in UTF-8"
        )
        raise click.BadParameter(message, param_hint="--title")
    if title is None:
        title = folder.resolve().name.replace("-", " ").replace("_", " ").strip().capitalize() or "Question bank"
    files = planned_files(folder, title=title, source_locale=source, target_locales=target_locales)
    taken = in_the_way(folder, files, target_locales)
    if taken:
        names = ", ".join(shown(path) for path in taken)
        verb = "exists" if len(taken) == 1 else "exist"
        err.print(
            f"error: {names} already {verb}: moe-lms init never overwrites a file. Start the bank in a new folder "
            "(moe-lms init DIR), or move those files away",
            markup=False,
        )
        raise SystemExit(EXIT_PROBLEMS)
    for locale in target_locales:  # (a locales/ that links out is refused before anything is written)
        inside(folder / loader.LOCALES_DIR / f"{locale}.po", folder)
    for path, data in files.items():
        write_new(path, data, within=folder)
    bank, problems = loader.read_bank_yaml(folder / loader.BANK_FILE)
    if bank is None:  # (a title the template cannot carry, say: the files stay for the author to fix)
        fail(problems)
    if target_locales:
        loader.update_catalogs(folder, bank)
    made = [*files, *(folder / loader.LOCALES_DIR / f"{locale}.po" for locale in target_locales)]
    for path in made:
        err.print(f"wrote {shown(path)}", markup=False)
    there = "" if directory is None else f"cd {shown(folder)} && "
    err.print(
        f"next: edit {loader.BANK_FILE} (its comments say what to write), then {there}moe-lms check, and "
        "moe-lms export --format moodle (or qti21, qti3, canvas-qti, cc11, olx, gift, html)",
        markup=False,
    )
