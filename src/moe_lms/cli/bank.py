"""Commands on a bank itself: check it, describe its schema, keep its translations in step."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.table import Table

from .. import loader
from ..locales import Status, coverage, locale_info
from ..model import Bank
from ..problems import Problem, ProblemsFound, Severity
from .common import bank_argument, bank_dir_or_default, fail, out, print_problems, progress, shown


def coverage_table(bank: Bank) -> Table:
    table = Table(title=f"Translations of {bank.id}", title_justify="left")
    table.add_column("locale")
    table.add_column("language")
    table.add_column("dir")
    for status in Status:
        table.add_column(status.value, justify="right")
    table.add_column("of", justify="right")
    for locale in bank.target_locales:
        cov = coverage(bank, locale)
        info = locale_info(locale)
        table.add_row(locale, info.english_name, info.direction, *(str(cov[s]) for s in Status), str(cov.total))
    return table


@click.command()
@bank_argument
@click.option("--strict", is_flag=True, help="Also fail when a translation is missing or stale.")
def check(bank_dir: Path | None, strict: bool) -> None:
    """Validate a bank and its translations; print translation coverage per locale."""
    directory = bank_dir_or_default(bank_dir)
    with progress(f"reading the bank in {shown(directory)}"):
        bank, problems = loader.check_bank(directory)
    if bank is None:
        fail(problems)
    with progress("checking that every text renders"):
        problems += loader.rendering_problems(directory, bank)
        problems += loader.placeholder_problems(directory, bank, strict=strict)
    out.print(
        f"{bank.id}: {len(bank.questions)} questions, source {bank.source_locale}, "
        f"targets {', '.join(bank.target_locales) or 'none'}",
        markup=False,
    )
    if bank.target_locales:
        out.print(coverage_table(bank))
        out.print("drafts (PO 'fuzzy') need review; missing and stale strings fall back to the source text.")
    incomplete = [loc for loc in bank.target_locales if not coverage(bank, loc).complete]
    if strict:
        for loc in incomplete:
            cov = coverage(bank, loc)
            problems.append(
                Problem(
                    str(directory / loader.LOCALES_DIR / f"{loc}.po"),
                    None,
                    f"{cov[Status.MISSING]} missing and {cov[Status.STALE]} stale translation(s) (--strict)",
                )
            )
    if any(p.severity is Severity.ERROR for p in problems):
        fail(problems)
    print_problems(problems)
    out.print("ok")


@click.command()
def schema() -> None:
    """Print the JSON Schema of bank.yaml, for editors."""
    document = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **Bank.model_json_schema(mode="validation"),
    }
    document["title"] = "moe-lms bank.yaml"
    click.echo(json.dumps(document, indent=2, ensure_ascii=False, sort_keys=True))


@click.group()
def translations() -> None:
    """Keep the PO files of a bank in step with its source text."""


@translations.command("update")
@bank_argument
def translations_update(bank_dir: Path | None) -> None:
    """Re-sync every locale's PO file with bank.yaml, as msgmerge does.

    New strings are added empty, strings whose source changed keep their translation marked fuzzy (with the
    previous source shown to the translator), strings the bank no longer has become obsolete.
    """
    directory = bank_dir_or_default(bank_dir)
    bank, problems = loader.read_bank_yaml(directory / loader.BANK_FILE)
    if bank is None:
        fail(problems)
    try:
        report = loader.update_catalogs(directory, bank)
    except ProblemsFound as exc:
        fail(exc.problems)
    for locale, counts in report.items():
        out.print(
            f"{locale}: {counts['added']} added, {counts['fuzzy']} marked fuzzy (source changed), "
            f"{counts['obsolete']} made obsolete",
            markup=False,
        )
