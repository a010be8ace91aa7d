"""What ``check`` tells a translator beyond the coverage table: which strings are stale, with the source change,
and which target locales have no PO file yet."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .. import loader, po
from ..locales import Status, coverage, translation_status
from ..messages import catalog_missing
from ..model import Bank, strings
from ..problems import Problem, Severity
from .common import shown

_SHOWN = 70  # characters of each side of a change: enough to see which sentence changed


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def stale_problems(directory: Path, bank: Bank, locales: Sequence[str], *, strict: bool) -> list[Problem]:
    """Each stale string of ``locales`` at its PO line: the source change (old → new msgid) and what to do, which
    depends on whether ``translations update`` has brought the new source into the file yet. A warning; an error
    under ``strict``."""
    severity = Severity.ERROR if strict else Severity.WARNING
    problems: list[Problem] = []
    for locale in locales:
        if not coverage(bank, locale)[Status.STALE]:
            continue  # (the common case: no string of the bank is looked at)
        catalog = bank.translations.get(locale, {})
        stale = {
            path: (catalog[path].source, source)
            for path, source in strings(bank)
            if translation_status(bank, locale, path, source) is Status.STALE
        }
        po_file = directory / loader.LOCALES_DIR / f"{locale}.po"
        entries: dict[str, po.PoEntry] = {}
        with po_file.open(encoding=loader.TEXT_ENCODING) as stream:
            for read in po.iter_po(stream):
                if read.context in stale and not read.obsolete:
                    entries.setdefault(read.context, read)
        for path, (old, new) in stale.items():
            entry = entries.get(path)
            if entry is not None and entry.msgid == new:
                todo = "re-translate it, then delete its `#, fuzzy` and `#| msgid` lines"
            else:
                todo = (
                    "run `moe-lms translations update` (it brings the new source into the file and keeps the "
                    "translation as a draft to start from), then re-translate it"
                )
            message = f"stale: the source changed since it was translated: {_short(old)!r} → {_short(new)!r}; {todo}"
            line = entry.line if entry is not None else None
            problems.append(Problem(shown(po_file), line, message, repr(path), severity=severity))
    return problems


def missing_catalogs(directory: Path, locales: Sequence[str]) -> list[Problem]:
    """A warning for each target locale with no PO file yet (every string falls back to the source)."""
    problems = []
    for locale in locales:
        po_file = directory / loader.LOCALES_DIR / f"{locale}.po"
        if not po_file.exists():
            where = shown(po_file)
            problems.append(Problem(where, None, catalog_missing(locale, where), severity=Severity.WARNING))
    return problems


def page_word_problems(directory: Path, bank: Bank, locales: Sequence[str]) -> list[Problem]:
    """A warning for each target locale whose take-the-quiz page would keep English words: none shipped or given by
    the bank, or some only as drafts (moe_lms.pagewords)."""
    from .. import pagewords

    problems = []
    for locale in locales:
        file = shown(directory / loader.LOCALES_DIR / pagewords.BANK_DIR / f"{locale}.po")
        problem = pagewords.coverage_problem(locale, bank.page_words, file)
        if problem is not None:
            problems.append(problem)
    return problems


def of_other_locales(
    problems: Sequence[Problem], directory: Path, locales: Sequence[str], targets: Sequence[str]
) -> list[Problem]:
    """``problems`` but those in the PO files of the other target locales (for ``check --locale``): only a target
    locale's file is set aside. A PO file of a locale the bank does not list is an error whatever ``--locale`` says
    (export and build refuse it), so its problem stays."""
    set_aside = {shown(directory / loader.LOCALES_DIR / f"{locale}.po") for locale in targets if locale not in locales}
    return [p for p in problems if p.file not in set_aside]
