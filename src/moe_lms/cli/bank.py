"""Commands on a bank itself: check it, describe its schema, keep its translations in step."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import click
from rich import box
from rich.table import Table

from .. import loader, quality
from ..glossary import read_glossary
from ..locales import CharacterShare, Status, character_share, coverage, locale_info
from ..model import TEXT_ILLEGAL, Bank, strings
from ..problems import Problem, ProblemsFound, Severity
from . import translator
from .common import (
    bank_argument,
    bank_dir_or_default,
    fail,
    out,
    print_problems,
    progress,
    read_with_progress,
    shown,
)


def coverage_table(
    bank: Bank, shares: Mapping[str, CharacterShare] | None = None, locales: Sequence[str] | None = None
) -> Table:
    """Coverage per locale (``locales``: only those). Fits 80 columns with every header whole: no vertical rules,
    and a long language name wraps instead of the numbers being cut."""
    table = Table(
        title=f"Translations of {bank.id}",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1),
        collapse_padding=True,
        show_edge=False,
    )
    table.add_column("locale", no_wrap=True)
    table.add_column("language", overflow="fold")
    table.add_column("dir", no_wrap=True)
    for status in Status:
        table.add_column(status.value, justify="right", no_wrap=True, min_width=len(status.value))
    table.add_column("of", justify="right", no_wrap=True)
    table.add_column("chars", justify="right", no_wrap=True)
    for locale in bank.target_locales if locales is None else locales:
        cov = coverage(bank, locale)
        info = locale_info(locale)
        share = str(shares[locale] if shares is not None else character_share(bank, locale))
        table.add_row(locale, info.english_name, info.direction, *(str(cov[s]) for s in Status), str(cov.total), share)
    return table


COVERAGE_LEGEND = (
    "Exports use reviewed translations only: draft (PO 'fuzzy'), stale and missing strings fall back to the source "
    "text unless --include-drafts (which uses drafts and stale translations too). 'chars': the share of "
    "learner-visible characters an export serves in the locale's language, without --include-drafts."
)


@click.command()
@bank_argument
@click.option(
    "--strict",
    is_flag=True,
    help="Fail on any translation finding, and while a string is missing, stale or a draft (needs review).",
)
@click.option(
    "--locale",
    "only_locale",
    metavar="TAG",
    help="One target locale only (a translator's view): its PO file's problems, coverage and stale strings; "
    "bank.yaml is checked as always.",
)
@click.option(
    "--stats",
    "stats_file",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="A `moe-lms stats -o` file: warn on each question it flags (too easy, a dead distractor, DIF ...).",
)
def check(bank_dir: Path | None, strict: bool, only_locale: str | None, stats_file: Path | None) -> None:
    """Validate a bank and its translations; print translation coverage per locale.

    Translation findings (glossary, parity, untranslated, script) are warnings, errors under --strict. Each stale
    string (its source changed since it was translated) is listed at its PO line with the change and what to do.
    """
    directory = bank_dir_or_default(bank_dir)
    bank, problems = read_with_progress(directory)
    if bank is None:
        unchecked = (
            "not checked while bank.yaml has the errors above: that every text renders, the translations' "
            "parity, glossary and script, and what an export would refuse; run check again once they are fixed"
        )
        fail([*problems, Problem(shown(loader.bank_yaml_path(directory)), None, unchecked, severity=Severity.NOTE)])
    if only_locale is not None and only_locale.replace("-", "_") not in bank.target_locales:
        raise click.UsageError(
            f"--locale {only_locale}: {bank.id} does not translate into it (target_locales: "
            f"{', '.join(bank.target_locales) or 'none'}); to add it, put it in target_locales: in bank.yaml and run "
            "`moe-lms translations update`"
        )
    locales = bank.target_locales if only_locale is None else (only_locale.replace("-", "_"),)
    glossary, glossary_problems = read_glossary(directory, bank.target_locales)
    with progress("checking that every text renders and reading the translations"):
        # One pass over every string for the rendering check, the translation checks and the character share
        # (quality.survey); the separate checks when a catalog is not packed for this bank.
        survey = quality.survey(directory, bank, glossary)
        problems += survey.rendering if survey is not None else loader.rendering_problems(directory, bank)
        problems += loader.placeholder_problems(directory, bank, strict=strict)
        problems += glossary_problems
        findings = survey.findings if survey is not None else quality.translation_findings(bank, glossary)
        problems += quality.check_translations(directory, bank, glossary, strict=strict, findings=findings)
    # Stale strings are listed with their change below (strict's review would name them once more).
    problems = [p for p in problems if not p.message.startswith(f"{quality.Check.REVIEW}: {Status.STALE}:")]
    problems += translator.stale_problems(directory, bank, locales, strict=strict)
    problems += translator.missing_catalogs(directory, locales)
    problems += translator.page_word_problems(directory, bank, locales)
    problems = translator.of_other_locales(problems, directory, locales, bank.target_locales)
    out.print(
        f"{bank.id}: {len(bank.questions)} question{'' if len(bank.questions) == 1 else 's'}{_variants_said(bank)}, "
        f"source {bank.source_locale}, "
        f"targets {', '.join(bank.target_locales) or 'none'}",
        markup=False,
    )
    if bank.target_locales:
        out.print(coverage_table(bank, survey.shares if survey is not None else None, locales))
        out.print(COVERAGE_LEGEND, markup=False)
    if strict:
        for loc in locales:
            cov = coverage(bank, loc)
            unreviewed = cov[Status.MISSING] + cov[Status.STALE] + cov[Status.DRAFT]
            if unreviewed:
                limit = quality.REVIEW_LISTED
                listed = f" (the first {limit} are listed)" if unreviewed > limit else ""
                problems.append(
                    Problem(
                        shown(directory / loader.LOCALES_DIR / f"{loc}.po"),
                        None,
                        f"{cov[Status.MISSING]} missing, {cov[Status.STALE]} stale and {cov[Status.DRAFT]} draft "
                        f"translation(s): --strict needs every learner-visible string translated and reviewed{listed}",
                    )
                )
    problems += _export_refusals(directory, bank)
    if stats_file is not None:
        problems += _stats_flags(stats_file, bank)
    if any(p.severity is Severity.ERROR for p in problems):
        fail(problems)
    print_problems(problems)
    out.print("ok")


def _stats_flags(path: Path, bank: Bank) -> list[Problem]:
    """What the learners' results say about the bank's questions (``moe-lms stats -o FILE``), as warnings."""
    from ..stats.json_out import MAX_STATS_BYTES, flag_problems

    name = shown(path)
    try:
        with path.open("rb") as stream:
            raw = stream.read(MAX_STATS_BYTES + 1)
    except OSError as exc:
        return [Problem(name, None, f"cannot read: {exc.strerror or exc}")]
    if len(raw) > MAX_STATS_BYTES:
        return [Problem(name, None, f"larger than {MAX_STATS_BYTES:,} bytes: not a stats file")]
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        return [Problem(name, None, f"not JSON: {exc}")]
    return flag_problems(data, name, bank.id, {q.id for q in bank.questions})


def _export_refusals(directory: Path, bank: Bank) -> list[Problem]:
    """What an export refuses (or does differently) in a bank check otherwise passes: named here, so that what
    check passes every export accepts or check says which one will not."""
    from ..richtext import MAX_HIGHLIGHT, code_blocks
    from ..shelf import shelved

    found = []
    for fmt in shelved() if len(bank.locales) > 1 else ():  # a file carrying every locale the bank cannot fill
        every = fmt.shelf.all_locales if fmt.shelf else None
        path = every.refusal(bank) if every else None
        if every is not None and path is not None:
            message = f"{path}: {every.refused}"
            found.append(Problem(shown(directory / loader.BANK_FILE), None, message, severity=Severity.WARNING))
    # The file is named once, not per string: resolving a path per string took 80 % of check at 10,000 questions.
    bank_file = shown(directory / loader.BANK_FILE)
    po_files = {locale: shown(directory / loader.LOCALES_DIR / f"{locale}.po") for locale in bank.translations}
    # A generator, not a list: a list of every (path, text) took the peak at 100,000 questions to 1.98 GiB (now 0.82).
    texts = itertools.chain(
        ((path, text, bank_file) for path, text in strings(bank)),
        (
            (path, t.text, po_files[locale])
            for locale, catalog in bank.translations.items()
            for path, t in catalog.items()
            if t.text
        ),
    )
    for path, text, file in texts:
        if "&#" in text:
            for match in _CHARACTER_REFERENCE.finditer(text):
                code = int(match.group(1)[1:], 16) if match.group(1)[0] in "xX" else int(match.group(1))
                if code > 0x10FFFF or TEXT_ILLEGAL.match(chr(code)) or code == 0:
                    message = (
                        f"{path}: {match.group()} is U+{code:04X}, a character XML 1.0 cannot carry: every export "
                        "would write U+FFFD instead"
                    )
                    found.append(Problem(file, None, message))
                    break
        if ("```" in text or "~~~" in text) and any(len(c) > MAX_HIGHLIGHT for c in code_blocks(text)):
            message = (
                f"{path}: a code block longer than {MAX_HIGHLIGHT:,} characters is shown without highlighting "
                "(Pygments' time grows with the code)"
            )
            found.append(Problem(file, None, message, severity=Severity.WARNING))
    return found


_CHARACTER_REFERENCE = re.compile(r"&#(x[0-9a-fA-F]{1,8}|X[0-9a-fA-F]{1,8}|[0-9]{1,10});")


@click.command()
def schema() -> None:
    """Print the JSON Schema of bank.yaml, for editors."""
    from ..init import schema_document

    click.echo(json.dumps(schema_document(), indent=2, ensure_ascii=False, sort_keys=True))


@click.group()
def translations() -> None:
    """Keep the PO files of a bank in step with its source text."""


@translations.command("update")
@bank_argument
def translations_update(bank_dir: Path | None) -> None:
    """Re-sync every locale's PO file with bank.yaml, as msgmerge does.

    New strings are added empty, strings whose source changed keep their translation marked fuzzy (with the
    previous source shown to the translator), strings the bank no longer has become obsolete. Each entry whose
    source contains a glossary term gets a "#. glossary:" comment with the locale's rendering; translator
    comments (errata:, reviewed: ...) stay as they are.
    """
    directory = bank_dir_or_default(bank_dir)
    bank, problems = loader.read_bank_yaml(loader.bank_yaml_path(directory))
    if bank is None:
        fail(problems)
    glossary, problems = read_glossary(directory, bank.target_locales)
    if problems:
        fail(problems)
    try:
        report = loader.update_catalogs(directory, bank, glossary.comments if glossary else None)
    except ProblemsFound as exc:
        fail(exc.problems)
    if not bank.target_locales:
        out.print(
            f"{bank.id} has no target locales, so there is no PO file to update: to translate it, put a locale in "
            "target_locales: in bank.yaml (target_locales: [fr]) and run this again",
            markup=False,
        )
    for locale, counts in report.items():
        out.print(
            f"{locale}: {counts['added']} added, {counts['fuzzy']} marked fuzzy (source changed), "
            f"{counts['obsolete']} made obsolete",
            markup=False,
        )


@translations.command("page-words")
@click.argument("locale", metavar="TAG")
@bank_argument
def translations_page_words(locale: str, bank_dir: Path | None) -> None:
    """Write locales/page/TAG.po: the take-the-quiz page's own words (buttons, labels, choice letters) to translate.

    It starts from the words moe-lms ships for TAG (drafts and all), or from the English with every msgstr empty.
    The bank's file extends or overrides the shipped words; an existing file is never overwritten.
    """
    from .. import pagewords
    from ..files import write_atomic

    directory = bank_dir_or_default(bank_dir)
    tag = locale.replace("-", "_")
    target = directory / loader.LOCALES_DIR / pagewords.BANK_DIR / f"{tag}.po"
    if target.exists():
        fail([Problem(shown(target), None, "exists already: edit it (it is never overwritten)")])
    write_atomic(target, pagewords.catalog_text(tag).encode("utf-8"), within=directory, parents=True)
    shipped = "moe-lms's shipped words" if pagewords.shipped(tag) else "the English, every msgstr empty"
    out.print(f"wrote {shown(target)} (from {shipped}): translate it, then run `moe-lms check`", markup=False)


def _variants_said(bank: Bank) -> str:
    """ " (2 parameterised: 12 variants)" for a bank with parameterised questions (moe_lms.variants), else ""."""
    from .. import variants

    templates = [q for q in bank.questions if q.params is not None]
    if not templates:
        return ""
    count = 0
    for q in templates:
        drawn, _ = variants.draw(q, bank.source_locale)
        count += len(drawn.combinations) if drawn is not None else 0
    return f" ({len(templates)} parameterised: {count} variants)"
