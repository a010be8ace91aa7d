"""The ready-to-import shelf (``exporters/``): every delivery file of a bank, for instructors who never run Python.

What goes on the shelf is a plan over the format registry: per locale a file of each format that has a
:class:`~moe_lms.formats.ShelfEntry`, in registry order, plus the files carrying every locale a format offers
(``AllLocales``, Moodle's multilang file) and a README that says which file to take for which platform and how to
import it. Each format's entry says its column label, its options on the shelf and its README prose; this module
names no format. Everything here is pure: files as functions that stream them; the CLI writes and compares them.

A shelf may hold several banks. Its manifest (``.moe-lms-shelf.json``) records which files ``build`` wrote for
each bank and each bank's part of the README, so the README lists every bank, and ``build`` never deletes or
overwrites a file it did not write.
"""

from __future__ import annotations

import hashlib
import json
import re
import stat
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO

from . import formats
from .formats import ExportOptions, Format, Held
from .locales import Status, coverage, locale_info, translation_status
from .model import Bank, quiz_strings, resolve_quiz

README = "README.md"
MANIFEST = ".moe-lms-shelf.json"
TITLE = "# Ready-to-import quiz files"  # how every shelf README moe-lms wrote begins


def shelved(available: Collection[str] | None = None) -> list[Format]:
    """The formats on the shelf, in registry order: those of ``available`` (default every registered one) that
    have a shelf entry."""
    names = formats.names() if available is None else [n for n in formats.names() if n in available]
    return [fmt for fmt in map(formats.get, names) if fmt.shelf is not None]


@dataclass(frozen=True)
class Item:
    """One file of the shelf and how to make it."""

    filename: str
    format_name: str
    options: ExportOptions
    locale: str | None  # None for the file carrying every locale
    quiz: str | None = None  # one of the bank's quizzes (None: the whole bank)


@dataclass(frozen=True)
class Plan:
    bank: Bank
    items: tuple[Item, ...]
    source: str  # the bank's folder as the README names it (see source_name)
    formats: tuple[str, ...] = ()  # the formats on the shelf, in its order

    @property
    def shelved(self) -> list[Format]:
        return [formats.get(name) for name in self.formats]

    @property
    def filenames(self) -> list[str]:
        return [item.filename for item in self.items] + [README]

    def file(self, kind: str, locale: str | None, quiz: str | None = None) -> str | None:
        for item in self.items:
            if item.format_name == kind and item.locale == locale and item.quiz == quiz:
                return item.filename
        return None


def filename(bank: Bank, locale: str, suffix: str) -> str:
    """``<bank-id>.<locale><suffix>``, e.g. ``moe-expert-parallelism.ur.moodle.xml``."""
    return f"{bank.id}.{locale}{suffix}"


def source_name(bank_dir: Path, shelf_dir: Path) -> str:
    """How a shelf's README names the folder of the bank it was built from: relative to the folder that holds the
    shelf when the bank is inside it (``question_bank/<bank>/`` for the checkout's ``exporters/``), else the bank
    folder's own name. Never an absolute path: the README is committed and must not depend on where it was built."""
    bank, base = bank_dir.resolve(), shelf_dir.resolve().parent
    if bank != base and bank.is_relative_to(base):
        return bank.relative_to(base).as_posix() + "/"
    return bank.name + "/"


def plan(
    bank: Bank, available: Collection[str] | None = None, *, include_drafts: bool = False, source: str | None = None
) -> Plan:
    """What the shelf of ``bank`` holds with the formats ``available`` (default: the registry's); ``source`` is the
    bank's folder as the README names it (default ``question_bank/<bank-id>/``, as in the checkout)."""
    shelf = shelved(available)
    items: list[Item] = []
    for locale in bank.locales:
        items += [_item(bank, fmt, locale, include_drafts) for fmt in shelf]
    for fmt in shelf:  # a file carrying every locale, where the format has one and the bank fits it
        every = _entry(fmt).all_locales
        if every is not None and len(bank.locales) > 1 and every.refusal(bank) is None:
            flags: dict[str, Any] = dict.fromkeys(every.options, True)
            options = replace(ExportOptions(bank.locales, include_drafts=include_drafts), **flags)
            items.append(Item(filename(bank, every.name, fmt.suffix), fmt.name, options, None))
    for quiz in bank.quizzes:  # each quiz of the bank in every format that carries one: <bank>.<quiz>.<locale>…
        for locale in bank.locales:
            for fmt in shelf:
                if fmt.quizzes:
                    item = _item(bank, fmt, locale, include_drafts, quiz.id)
                    items.append(replace(item, filename=f"{bank.id}.{quiz.id}.{locale}{fmt.suffix}"))
    return Plan(bank, tuple(items), source or f"question_bank/{bank.id}/", tuple(fmt.name for fmt in shelf))


def _entry(fmt: Format) -> formats.ShelfEntry:
    assert fmt.shelf is not None
    return fmt.shelf


def _item(bank: Bank, fmt: Format, locale: str, include_drafts: bool, quiz: str | None = None) -> Item:
    """The file of ``fmt`` in ``locale`` (of ``quiz``), with the options the format's shelf entry asks for."""
    entry = _entry(fmt)
    others = tuple(loc for loc in bank.locales if loc != locale) if entry.siblings else ()
    drop = bool(entry.without_images) and bool(bank.media)
    options = ExportOptions((locale, *others), include_drafts=include_drafts, drop_images=drop, quiz=quiz)
    return Item(filename(bank, locale, fmt.suffix), fmt.name, options, locale, quiz)


def writers(
    shelf: Plan, others: Mapping[str, Record] | None = None
) -> Iterator[tuple[str, Callable[[BinaryIO], object]]]:
    """Every file of the shelf as (file name, a function that streams it into a binary file), in order.

    ``others`` are the other banks on the shelf (from its manifest): the README lists them too. The manifest
    itself is not among these files; see :func:`manifest_text`."""
    bank = shelf.bank
    for item in shelf.items:
        write = formats.get(item.format_name).write
        yield item.filename, partial(write, bank, item.options)
    text = readme(shelf, others).encode("utf-8")
    yield README, lambda out: out.write(text)


# --- the manifest: what build wrote, per bank -----------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    """What ``build`` wrote on a shelf for one bank: its files, and its part of a README listing several banks."""

    files: tuple[str, ...]
    readme: str
    # The SHA-256 of each file as build wrote it: the manifest is committed, so anyone can edit its list; build
    # deletes a file it no longer makes only when its bytes are still these (never the user's NOTES.md).
    sha256: Mapping[str, str] = field(default_factory=dict)


def record(shelf: Plan, digests: Mapping[str, str] | None = None) -> Record:
    """The record of a shelf's files, with the digests (``file_sha256``) of those known."""
    files = tuple(item.filename for item in shelf.items)
    known = {name: digests[name] for name in files if digests and digests.get(name)}
    return Record(files, "\n".join(_bank_section(shelf, several=True)), known)


def file_sha256(path: Path) -> str | None:
    """The SHA-256 of the regular file ``path`` (not through a link), read a chunk at a time; None for anything
    else (missing, a link, a pipe: never opened, as a pipe would hang)."""
    try:
        if not stat.S_ISREG(path.lstat().st_mode):
            return None
        digest = hashlib.sha256()
        with path.open("rb") as stream:
            while chunk := stream.read(1 << 20):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


_SHA256 = re.compile(r"[0-9a-f]{64}")


def read_manifest(text: str) -> dict[str, Record]:
    """The banks a manifest records; ValueError when it is not one moe-lms wrote."""
    document = json.loads(text)
    banks = document.get("banks") if isinstance(document, dict) else None
    if not isinstance(banks, dict):
        raise ValueError("it has no 'banks' object")
    records = {}
    for bank_id, entry in banks.items():
        files, section = (entry.get("files"), entry.get("readme")) if isinstance(entry, dict) else (None, None)
        if not (isinstance(files, list) and all(isinstance(f, str) for f in files) and isinstance(section, str)):
            raise ValueError(f"its entry for {bank_id!r} is not a list of files and a README section")
        if any(f in (README, MANIFEST) or "/" in f or "\\" in f or f.startswith(".") for f in files):
            raise ValueError(f"its entry for {bank_id!r} names a file outside the shelf")
        digests = entry.get("sha256", {})
        if not (
            isinstance(digests, dict)
            and all(name in files and isinstance(d, str) and _SHA256.fullmatch(d) for name, d in digests.items())
        ):
            raise ValueError(f"its entry for {bank_id!r} has a 'sha256' that is not a digest per file")
        records[bank_id] = Record(tuple(files), section, dict(digests))
    return records


def manifest_text(records: Mapping[str, Record]) -> str:
    """The manifest recording ``records``, deterministic bytes (banks and keys sorted)."""
    document = {
        "about": "Written by moe-lms build: the files it made for each bank. Do not edit.",
        "banks": {
            bank_id: {"files": list(r.files), "readme": r.readme, "sha256": dict(sorted(r.sha256.items()))}
            for bank_id, r in sorted(records.items())
        },
    }
    return json.dumps(document, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


# --- the README ---------------------------------------------------------------------------------------------------


def _link(name: str | None) -> str:
    return f"[`{name}`]({name})" if name else "—"


def _translation_note(bank: Bank, locale: str, include_drafts: bool) -> str:
    if locale == bank.source_locale:
        return "source"
    cov = coverage(bank, locale)
    used = cov[Status.REVIEWED] + (cov[Status.DRAFT] if include_drafts else 0)
    total = cov.total
    for quiz in bank.quizzes:  # the whole bank's files hold no quiz's texts (each quiz's part says its own)
        for path, source in quiz_strings(quiz):
            status = translation_status(bank, locale, path, source)
            used -= status is Status.REVIEWED or (include_drafts and status is Status.DRAFT)
            total -= 1
    note = f"{used} of {total} texts {'translated' if include_drafts else 'reviewed'}"
    if used < total:
        note += f"; the rest in {locale_info(bank.source_locale).english_name}"
    return note


def _bank_section(shelf: Plan, *, several: bool) -> list[str]:
    """What the README says of one bank: which file to take in each language."""
    bank = shelf.bank
    include_drafts = any(item.options.include_drafts for item in shelf.items)
    kinds = shelf.shelved
    source = locale_info(bank.source_locale)
    lines = [
        f"## {bank.title}" if several else f"{TITLE}: {bank.title}",
        "",
        f"The bank `{bank.id}` ({len(bank.questions)} questions) as files you can import into a learning platform or "
        "open in a browser, in every language it has. They are made by `moe-lms build` from "
        f"`{shelf.source}`; do not edit them by hand (CI runs `moe-lms build --check`, which fails when "
        "a file here differs from a fresh build).",
        "",
        "### Which file to take" if several else "## Which file to take",
        "",
        "| Language | Translation | " + " | ".join(_entry(kind).label for kind in kinds) + " |",
        "| --- | --- | " + " | ".join("---" for _ in kinds) + " |",
    ]
    for locale in bank.locales:
        info = locale_info(locale)
        names = info.name if info.name == info.english_name else f"{info.name} ({info.english_name})"
        cells = [f"{names}, `{locale}`", _translation_note(bank, locale, include_drafts)]
        cells += [_link(shelf.file(kind.name, locale)) for kind in kinds]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for kind in kinds:
        every = _entry(kind).all_locales
        if every is None:
            continue
        whole = shelf.file(kind.name, None)
        if whole:
            lines += [every.present.format(link=_link(whole)), ""]
        elif len(bank.locales) > 1:
            lines += [every.absent, ""]
    for kind in kinds:
        lacking = [item for item in shelf.items if item.format_name == kind.name and item.options.drop_images]
        if lacking:  # (each shows its alt text, [in brackets], in its place)
            images = sorted(bank.media)
            lines += [
                "Without images: "
                + ", ".join(_link(item.filename) for item in lacking)
                + f" ({_entry(kind).without_images}). Each shows the alt text of "
                + f"{', '.join(f'`{i}`' for i in images)} in "
                "brackets where the image would be; the other files carry the images.",
                "",
            ]
    drafts = "Draft translations are included." if include_drafts else "Only reviewed translations are used."
    lines += [
        f"{drafts} A text without one appears in {source.english_name}, marked as {source.english_name} "
        "(`lang`) so screen readers and fonts treat it as such.",
        "",
    ]
    lines += _quiz_sections(shelf, kinds, several=several)
    return lines


def _quiz_sections(shelf: Plan, kinds: list[Format], *, several: bool) -> list[str]:
    """What the README says of each quiz of the bank: its draws, and which file of it to take in each language."""
    bank = shelf.bank
    lines: list[str] = []
    for quiz in bank.quizzes:
        carried = [kind for kind in kinds if shelf.file(kind.name, bank.source_locale, quiz.id)]
        sections = resolve_quiz(bank, quiz)
        parts = ", ".join(
            f"{s.draw} of {len(s.questions)} ({s.id})" if s.draws else f"all {len(s.questions)} ({s.id})"
            for s in sections
        )
        settings = [f"Each attempt draws {sum(s.draw for s in sections)} questions anew: {parts}"]
        if quiz.shuffle_questions:
            settings.append("in shuffled order")
        if quiz.time_limit_minutes is not None:
            settings.append(f"{quiz.time_limit_minutes} minutes")
        if quiz.attempts is not None:
            settings.append(
                "unlimited attempts" if quiz.attempts == 0 else f"{quiz.attempts} attempt{'s' * (quiz.attempts > 1)}"
            )
        heading = "###" if several else "##"
        lines += [
            f"{heading} Quiz `{quiz.id}`: {quiz.title}",
            "",
            f"{'; '.join(settings)}.",
            "",
            "| Language | The quiz's own texts | " + " | ".join(_entry(kind).label for kind in carried) + " |",
            "| --- | --- | " + " | ".join("---" for _ in carried) + " |",
        ]
        include_drafts = any(item.options.include_drafts for item in shelf.items)
        texts = quiz_strings(quiz)
        for locale in bank.locales:
            info = locale_info(locale)
            if locale == bank.source_locale:
                own = "source"
            else:
                kept = (Status.REVIEWED, Status.DRAFT) if include_drafts else (Status.REVIEWED,)
                used = sum(translation_status(bank, locale, path, source) in kept for path, source in texts)
                own = f"{used} of {len(texts)} {'translated' if include_drafts else 'reviewed'}"
                if used < len(texts):
                    own += f"; the rest in {locale_info(bank.source_locale).english_name}"
            cells = [f"{info.name}, `{locale}`", own]
            cells += [_link(shelf.file(k.name, locale, quiz.id)) for k in carried]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
        for kind in kinds:
            if kind in carried:
                continue
            lines.append(f"- {_entry(kind).label}: not for a quiz: {kind.quiz_refusal}.")
        lines.append("")
    return lines


def readme(shelf: Plan, others: Mapping[str, Record] | None = None) -> str:
    """The shelf's README: ``shelf``'s bank, and every other bank the shelf holds (``others``, by bank id)."""
    others = {bank_id: r for bank_id, r in (others or {}).items() if bank_id != shelf.bank.id}
    if not others:
        lines = _bank_section(shelf, several=False)
    else:
        sections = {**{bank_id: r.readme for bank_id, r in others.items()}, shelf.bank.id: record(shelf).readme}
        lines = [
            TITLE,
            "",
            f"This folder holds {len(sections)} question banks: "
            + ", ".join(f"`{bank_id}`" for bank_id in sorted(sections))
            + ". Each has its own files below.",
            "",
        ]
        for bank_id in sorted(sections):
            lines += [sections[bank_id].rstrip("\n"), ""]
    present, held = _held(shelf, others.values())
    lines += _which_platform(present)
    lines += _instructions(present, held)
    return "\n".join(lines).rstrip() + "\n"


def _held(shelf: Plan, others: Iterable[Record]) -> tuple[list[Format], Held]:
    """What the whole shelf holds, whichever bank is being built: its guide speaks of every file on it."""
    names = {item.format_name for item in shelf.items}
    every_locale = any(item.locale is None for item in shelf.items)
    quizzes = bool(shelf.bank.quizzes) or any("## Quiz `" in r.readme or "### Quiz `" in r.readme for r in others)
    kinds = shelf.shelved
    for name in (f for r in others for f in r.files):
        names.update(kind.name for kind in kinds if name.endswith(kind.suffix))
        every_locale = every_locale or any(
            name.endswith(f".{every.name}{kind.suffix}")
            for kind in kinds
            if (every := _entry(kind).all_locales) is not None
        )
    return [kind for kind in kinds if kind.name in names], Held(quizzes=quizzes, every_locale=every_locale)


def _which_platform(present: list[Format]) -> list[str]:
    """A line per platform: the files it takes, from every format's offers (in rank order)."""
    offers = sorted((offer for kind in present for offer in _entry(kind).offers), key=lambda offer: offer.rank)
    platforms: dict[str, list[str]] = {}
    for offer in offers:
        platforms.setdefault(offer.platform, []).append(offer.file)
    lines = ["## Which platform takes which file", ""]
    lines += [f"- {platform}: {', or '.join(files)}." for platform, files in platforms.items()]
    return [*lines, ""]


def _instructions(present: list[Format], held: Held) -> list[str]:
    """A section per heading of the formats' guides: its parts in rank order."""
    parts = sorted((part for kind in present for part in _entry(kind).guide), key=lambda part: part.rank)
    sections: dict[str, list[str]] = {}
    for part in parts:
        section = sections.get(part.heading)
        if section is None:
            section = sections[part.heading] = [f"## {part.heading}", ""]
        section += part.lines(held, len(section) == 2)
    lines = [line for section in sections.values() for line in section]
    lines += [
        "## Rebuilding",
        "",
        "After changing the bank or its translations: `moe-lms build` (rewrites this folder), then commit it. "
        "`moe-lms build --check` tells whether the folder is up to date.",
    ]
    return lines
