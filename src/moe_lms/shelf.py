"""The ready-to-import shelf (``exporters/``): every delivery file of a bank, for instructors who never run Python.

What goes on the shelf is a plan over the format registry: per locale a Moodle XML file, a Common Cartridge, a
Canvas QTI package, a QTI 2.1 and a QTI 3.0 package, an Open edX course, the Canvas payload, a GIFT file and the
take-the-quiz page, plus one Moodle
file carrying every locale and a README that says which file to take for which platform and how to import it. A
format this moe-lms does not have yet is left out and named, so the shelf fills as formats land. Everything here is
pure: files as functions that stream them; the CLI writes and compares them.

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
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import BinaryIO

from . import formats
from .formats import ExportOptions
from .locales import Status, coverage, locale_info, translation_status
from .model import Bank, quiz_strings, resolve_quiz, strings

README = "README.md"
MANIFEST = ".moe-lms-shelf.json"
TITLE = "# Ready-to-import quiz files"  # how every shelf README moe-lms wrote begins


@dataclass(frozen=True)
class Kind:
    """One kind of file on the shelf."""

    format_name: str
    label: str  # column heading in the README


SHELF = (
    Kind("moodle", "Moodle XML"),
    Kind("cc11", "Common Cartridge"),
    Kind("canvas-qti", "Canvas QTI"),
    Kind("qti21", "QTI 2.1 package"),
    Kind("qti3", "QTI 3.0 package"),
    Kind("olx", "Open edX course"),
    Kind("canvas", "Canvas payload"),
    Kind("gift", "GIFT"),
    Kind("html", "Take the quiz (HTML)"),
)
MULTILANG = "multilang"


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
    skipped: tuple[str, ...]  # shelf formats this moe-lms does not have yet
    source: str  # the bank's folder as the README names it (see source_name)

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
    available = formats.names() if available is None else available
    items: list[Item] = []
    skipped = tuple(kind.format_name for kind in SHELF if kind.format_name not in available)
    for locale in bank.locales:
        for kind in SHELF:
            if kind.format_name in skipped:
                continue
            fmt = formats.get(kind.format_name)
            # The page of one locale lists every locale, so it links its siblings (see formats.html).
            others = tuple(loc for loc in bank.locales if loc != locale) if kind.format_name == "html" else ()
            # A GIFT file cannot carry images: the shelf's leaves them out (the other files carry them).
            drop = kind.format_name == "gift" and bool(bank.media)
            options = ExportOptions((locale, *others), include_drafts=include_drafts, drop_images=drop)
            items.append(Item(filename(bank, locale, fmt.suffix), kind.format_name, options, locale))
    # A multilang span holds only inline text (formats.moodle refuses blocks in it): a bank with a list, a table, a
    # quote or a code block gets its per-locale Moodle files only.
    if "moodle" not in skipped and len(bank.locales) > 1 and multilang_refusal(bank) is None:
        moodle = formats.get("moodle")
        options = ExportOptions(bank.locales, include_drafts=include_drafts, multilang=True)
        items.append(Item(filename(bank, MULTILANG, moodle.suffix), "moodle", options, None))
    for quiz in bank.quizzes:  # each quiz of the bank in every format that carries one: <bank>.<quiz>.<locale>…
        for locale in bank.locales:
            for kind in SHELF:
                if kind.format_name in skipped or not formats.get(kind.format_name).quizzes:
                    continue
                fmt = formats.get(kind.format_name)
                others = tuple(loc for loc in bank.locales if loc != locale) if kind.format_name == "html" else ()
                drop = kind.format_name == "gift" and bool(bank.media)
                options = ExportOptions(
                    (locale, *others), include_drafts=include_drafts, drop_images=drop, quiz=quiz.id
                )
                name = f"{bank.id}.{quiz.id}.{locale}{fmt.suffix}"
                items.append(Item(name, kind.format_name, options, locale, quiz.id))
    return Plan(bank, tuple(items), skipped, source or f"question_bank/{bank.id}/")


def multilang_refusal(bank: Bank) -> str | None:
    """The path of the first text (source or translation) that a Moodle multilang span cannot hold, or None.

    ``export --format moodle --multilang`` refuses a bank with one, so ``check`` names it and :func:`plan` leaves
    the all-languages file out. Only a text that is not one paragraph is rendered to see (most are one)."""
    from .formats.moodle.shape import _simple_blocks
    from .richtext import render_block
    from .text import one_paragraph

    def refused(path: str, text: str) -> bool:
        inline = path == "title" or path.endswith("/text")
        return not inline and not one_paragraph(text) and _simple_blocks(render_block(text)) is None

    for path, source in strings(bank):
        if refused(path, source):
            return path
    for catalog in bank.translations.values():
        for path, translation in catalog.items():
            if translation.text and refused(path, translation.text):
                return path
    return None


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
    kinds = [kind for kind in SHELF if kind.format_name not in shelf.skipped]
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
        "| Language | Translation | " + " | ".join(kind.label for kind in kinds) + " |",
        "| --- | --- | " + " | ".join("---" for _ in kinds) + " |",
    ]
    for locale in bank.locales:
        info = locale_info(locale)
        names = info.name if info.name == info.english_name else f"{info.name} ({info.english_name})"
        cells = [f"{names}, `{locale}`", _translation_note(bank, locale, include_drafts)]
        cells += [_link(shelf.file(kind.format_name, locale)) for kind in kinds]
        lines.append("| " + " | ".join(cells) + " |")
    multilang = shelf.file("moodle", None)
    lines.append("")
    if multilang:
        lines += [
            f"All languages in one Moodle file: {_link(multilang)}. Each learner then sees the question in their own "
            "Moodle language; it needs Moodle's *Multi-language content* filter (see below).",
            "",
        ]
    elif len(bank.locales) > 1 and "moodle" not in shelf.skipped:
        lines += [
            "No all-languages Moodle file for this bank: its code blocks cannot go inside Moodle's multi-language "
            "spans, which hold only inline text. Import the Moodle file of each language instead.",
            "",
        ]
    lacking = [item for item in shelf.items if item.options.drop_images]
    if lacking:  # (a GIFT file cannot carry images: each shows its alt text, [in brackets], in its place)
        images = sorted(bank.media)
        lines += [
            "Without images: "
            + ", ".join(_link(item.filename) for item in lacking)
            + f" (GIFT cannot carry them). Each shows the alt text of {', '.join(f'`{i}`' for i in images)} in "
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
    if shelf.skipped:
        lines += [
            "Not on this shelf yet (this version of moe-lms cannot write them): "
            + ", ".join(f"`{name}`" for name in shelf.skipped)
            + ".",
            "",
        ]
    return lines


def _quiz_sections(shelf: Plan, kinds: list[Kind], *, several: bool) -> list[str]:
    """What the README says of each quiz of the bank: its draws, and which file of it to take in each language."""
    bank = shelf.bank
    lines: list[str] = []
    for quiz in bank.quizzes:
        carried = [kind for kind in kinds if shelf.file(kind.format_name, bank.source_locale, quiz.id)]
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
            "| Language | The quiz's own texts | " + " | ".join(kind.label for kind in carried) + " |",
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
            cells += [_link(shelf.file(k.format_name, locale, quiz.id)) for k in carried]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
        for kind in kinds:
            if kind in carried:
                continue
            lines.append(f"- {kind.label}: not for a quiz: {formats.get(kind.format_name).quiz_refusal}.")
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
    held = _Held.of(shelf, others.values())
    lines += _which_platform(held)
    lines += _instructions(held)
    return "\n".join(lines).rstrip() + "\n"


@dataclass(frozen=True)
class _Held:
    """What the whole shelf holds, whichever bank is being built: its guide speaks of every file on it."""

    formats: frozenset[str]
    multilang: bool  # a Moodle file with every language
    quizzes: bool = False  # a quiz of a bank, drawing from its sections

    @classmethod
    def of(cls, shelf: Plan, others: Iterable[Record]) -> _Held:
        present = {item.format_name for item in shelf.items}
        multilang = shelf.file("moodle", None) is not None
        quizzes = bool(shelf.bank.quizzes) or any("## Quiz `" in r.readme or "### Quiz `" in r.readme for r in others)
        kinds = [kind.format_name for kind in SHELF if kind.format_name not in shelf.skipped]
        suffixes = {name: formats.get(name).suffix for name in kinds}
        for name in (f for r in others for f in r.files):
            present.update(kind for kind, suffix in suffixes.items() if name.endswith(suffix))
            multilang = multilang or name.endswith(f".{MULTILANG}{suffixes.get('moodle', '.moodle.xml')}")
        return cls(frozenset(present), multilang, quizzes)


def _which_platform(held: _Held) -> list[str]:
    present = held.formats
    lines = ["## Which platform takes which file", ""]
    if "cc11" in present:
        lines.append(
            "- **Blackboard Learn, D2L Brightspace, Sakai, Schoology** (or any platform that imports IMS Common "
            "Cartridge): the `.imscc` cartridge."
        )
    canvas = [
        "`moe-lms push canvas` (keeps the quiz in sync)",
        *(["the `.canvas-qti.zip` package"] if "canvas-qti" in present else []),
        *(["the `.imscc` cartridge (its quiz keeps the title but not the intro)"] if "cc11" in present else []),
    ]
    lines.append(f"- **Canvas**: {', or '.join(canvas)}.")
    if "moodle" in present:
        lines.append("- **Moodle**: the `.moodle.xml` file (not the cartridge: see below).")
    if "qti21" in present:
        lines.append("- **TAO, Inspera, OpenOLAT, ONYX** and other QTI 2.1 platforms: the `.qti21.zip` package.")
    if "qti3" in present:
        lines.append("- **TAO, Amp-up, Citolab** and other QTI 3.0 platforms: the `.qti3.zip` package.")
    if "olx" in present:
        lines.append("- **Open edX** (edX, and the MOOC platforms of many universities): the `.olx.tar.gz` course.")
    return [*lines, ""]


def _instructions(held: _Held) -> list[str]:
    present = held.formats
    lines: list[str] = []
    if "moodle" in present or "gift" in present:
        lines += [
            "## Moodle",
            "",
            "1. Open your course and go to **More → Question bank** (Moodle 4.x; in Moodle 3.x: "
            "**Course administration → Question bank**).",
            "2. Choose **Import** (in Moodle 4.x it is in the drop-down at the top of the question bank page).",
            "3. Under **File format** choose **Moodle XML format** for a `.moodle.xml` file, or **GIFT format** for a "
            "`.gift.txt` file.",
            "4. Under **General**, pick the question category to import into.",
            "5. Under **Import questions from file**, drop the file of your language and click **Import**; "
            "Moodle lists the questions it read. Click **Continue**.",
            "6. To use them in a quiz: open the quiz, **Questions → Add → from question bank**, and pick the category.",
            "",
            "Importing again never updates questions: Moodle adds every question of the file as a new one beside the "
            "old ones, and drops the idnumber of each whose idnumber the category already has. To bring in a changed "
            "bank, import it into a new, empty category (or first delete the old questions, once no quiz uses them).",
            "",
            "GIFT keeps the texts, per-choice feedback, the explanation, the grades, and each question's idnumber and "
            "tags (Moodle 3.6 and later read them from the `// [id:…] [tag:…]` line). It has no place for the overall "
            "feedback messages (correct, partially correct, incorrect), which Moodle leaves blank"
            + ("; Moodle XML keeps them." if "moodle" in present else "."),
            "",
        ]
        if held.quizzes:
            lines += [
                "A quiz's Moodle XML and GIFT files hold each section's questions in a category of its own, "
                "*<bank>/<language>/<quiz>/<section>*: Moodle draws from exactly that pool. To build the quiz:",
                "",
                "1. Import the quiz's file as above (keep **Get category from file** ticked).",
                "2. Create the quiz (**Add an activity or resource → Quiz**), and set its **Timing** (time limit) and "
                "**Grade → Attempts allowed** as the quiz's part of this README says.",
                "3. Open **Questions**. For each section that draws: **Add → a random question**, choose the section's "
                "category, set **Number of random questions** to the section's draw, and **Add random question**. For "
                "each section that does not: **Add → from question bank**, its category, select all, **Add selected "
                "questions to the quiz**.",
                "4. Set each question's mark to the section's points (the pencil beside **Maximum grade** of each "
                "slot), and tick **Shuffle** when the quiz shuffles its questions.",
                "",
            ]
        if held.multilang:
            lines += [
                "For the all-languages file, first switch on the filter once: **Site administration → Plugins → "
                "Filters → Manage filters → Multi-language content: On**, applied to *Content and headings*.",
                "",
            ]
    if "cc11" in present:
        lines += [
            "## Blackboard, Brightspace, Sakai, Schoology: the Common Cartridge",
            "",
            "Moodle and Canvas users: take the Moodle XML file or the Canvas package instead. Moodle's cartridge "
            "restore gives the quiz a fixed sum of marks (4) and maximum grade (10) whatever the questions are worth, "
            "shows learners no feedback (review options off), and gives every wrong choice of a multiple-answer "
            "question 0 instead of a penalty; Canvas's keeps the quiz title but not its introduction. These are the "
            "platforms' importers, not the file (see docs/how-to/import-into-lms.md).",
            "",
            "A `.imscc` file is an IMS Common Cartridge 1.1: the questions as a question bank, and the quiz of its "
            "language with each choice's explanation as feedback and the general explanation.",
            "",
            "Use the course's import tool for Common Cartridge (IMS CC) packages and choose the file of your "
            "language: in Blackboard Learn *Packages and Utilities → Import Package*, in Brightspace *Course Admin → "
            "Import/Export/Copy Components*, in Sakai *Site Info → Import from File*, in Schoology the course's "
            "*Import* option. Canvas (*Settings → Import Course Content → Common Cartridge 1.x Package*) and "
            "Moodle (course *Restore*) read it too, though each has a better file of its own (see its section).",
            "",
        ]
    if "qti21" in present or "canvas" in present or "canvas-qti" in present:
        lines += ["## Canvas", ""]
        if "canvas-qti" in present:
            lines += [
                "Upload the Canvas QTI package (Canvas's own quiz format: each answer's explanation becomes its "
                "comment):",
                "",
                "1. In your course go to **Settings → Import Course Content**.",
                "2. **Content Type: QTI .zip file**; choose the `.canvas-qti.zip` of your language.",
                "3. **Import**, and wait until **Current Jobs** says *Completed*; the quiz is then under **Quizzes**.",
                "",
            ]
        if "qti21" in present:
            lines += [
                "Or upload the QTI 2.1 package the same way:" if "canvas-qti" in present else "Upload the QTI package:",
                "",
                "1. In your course go to **Settings → Import Course Content**.",
                "2. **Content Type: QTI .zip file**; choose the `.qti21.zip` of your language.",
                "3. Leave **Default Question bank** as it is (or pick one), then **Import**.",
                "4. Wait until **Current Jobs** says *Completed*; the quiz is then under **Quizzes**.",
                "",
            ]
        lines += [
            "Or send the bank straight into a course with moe-lms (needs Python and a Canvas API token, see the "
            "project's README): `moe-lms push canvas`.",
            "",
        ]
        if "canvas" in present:
            lines += [
                "The `.canvas.json` files are exactly what `moe-lms push canvas` sends (quiz settings and questions) "
                "— for review, or for your own scripts against the Canvas API.",
                "",
            ]
    if "qti21" in present:
        lines += [
            "## Any other QTI 2.1 platform",
            "",
            "The `.qti21.zip` files are IMS Content Packages holding QTI 2.1 items and a test. Import them where your "
            "platform takes *QTI 2.1* or *IMS Content Package* files; the menu is usually called *Import* in the "
            "question bank or item bank. Each item keeps its per-choice feedback and the general explanation.",
            "",
        ]
    if "qti3" in present:
        lines += [
            "## QTI 3.0 platforms",
            "",
            "The `.qti3.zip` files are QTI 3.0 content packages: an item per question with each choice's explanation "
            "as its feedback and the general explanation, and a test. In TAO, choose *Import* in *Items* (or *Tests*) "
            "and its QTI content package format, then the file of your language; other QTI 3 platforms take them "
            "where they import *QTI 3* or *IMS Content Package* files.",
            "",
        ]
    if "olx" in present:
        lines += [
            "## Open edX",
            "",
            "A `.olx.tar.gz` file is an Open edX course in one language: one section holding the quiz, a unit per "
            "question, each a multiple-choice (or checkboxes) problem whose every choice shows its explanation when "
            "chosen, with the general explanation under *Show answer*.",
            "",
            "1. In Studio, create a course (or open an empty one) and go to **Content → Import** (older Studio: "
            "**Tools → Import**).",
            "2. Choose the `.olx.tar.gz` of your language and **Replace my course with the one above**.",
            "3. Wait for *Success*, then **View updated outline**; the quiz is the course's first section.",
            "",
            "Import replaces the course's content: import into a new course, or export the old one first.",
            "",
            *(
                [
                    "A quiz's `.olx.tar.gz` has a unit per section instead; a section that draws is a *problem bank* "
                    "showing each learner as many of its problems as the quiz draws (it needs an Open edX with the "
                    "problem bank block, `itembank`).",
                    "",
                ]
                if held.quizzes
                else []
            ),
        ]
    if "html" in present:
        lines += [
            "## Take the quiz in a browser",
            "",
            "Open a `.html` file: double-click it, or drag it into a browser window. It works offline and needs "
            "nothing else; the links at the top switch language while the pages stay side by side in one folder. "
            "Choose an answer and press **Check** (or Enter) to see whether it is right and why; after the last "
            "question you get your score. With JavaScript off, each question's answers and explanations are under "
            "*Answers and explanations*.",
            "",
        ]
    lines += [
        "## Rebuilding",
        "",
        "After changing the bank or its translations: `moe-lms build` (rewrites this folder), then commit it. "
        "`moe-lms build --check` tells whether the folder is up to date.",
    ]
    return lines
