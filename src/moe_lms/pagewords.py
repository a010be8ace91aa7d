"""The take-the-quiz page's own words (buttons, labels, "Choose one answer.", the choice letters) as gettext catalogs.

moe-lms ships one PO file per language in ``moe_lms/page_words/<locale>.po`` (msgctxt: which word, msgid: the
English, msgstr: the language's). A bank may add its own, ``<bank>/locales/page/<locale>.po`` in the same form, which
extends the shipped words (a language moe-lms does not ship) or overrides some of them. As for a bank's texts, an
entry marked ``#, fuzzy`` is a draft: a page uses it only with ``--include-drafts``. A shipped draft carries a
``# draft:`` comment until an independent reviewer back-translates it, deletes the fuzzy mark and records
``# reviewed: …`` (the comments of a PO file are its review record).
"""

from __future__ import annotations

import difflib
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

from .problems import Problem, Severity

# Each word of the page: its key (the msgctxt), its English (the msgid) and where it shows (the catalogs' "#."
# comment, for the translator).
WORDS: dict[str, tuple[str, str]] = {
    "question_of": ("Question {n} of {total}", "each question's heading; {n} its number, {total} how many"),
    "choose_one": ("Choose one answer.", "under a question with one right answer"),
    "choose_all": ("Choose every answer that applies.", "under a question with several right answers"),
    "check": ("Check", "the button that grades one question"),
    "choose_first": ("Choose an answer first.", "said when Check is pressed with nothing chosen"),
    "your_choice": ("Your choice", "the label of the learner's choice in the feedback"),
    "key": ("Answers and explanations", "the fold under each question that holds every answer"),
    "right_answer": ("Right answer", "the label of a right choice"),
    "wrong_answer": ("Wrong answer", "the label of a wrong choice"),
    "general": ("Explanation", "the heading of a question's general explanation"),
    "progress": ("{done} of {total} checked", "the progress line; {done} questions checked of {total}"),
    "finished": ("Quiz finished", "the heading of the score, once every question is checked"),
    "score": ("Your score: {score} of {total} points ({percent})", "the score; {percent} is written as 88%"),
    "start_over": ("Start over", "the button that clears every answer"),
    "score_rule": ("Each question counts with its first check.", "under the score"),
    "languages": ("Languages", "the name of the language switcher (read by screen readers)"),
    "noscript": (
        "JavaScript is off: choose your answers, then open “Answers and explanations” under each question to check "
        "them.",
        "shown when JavaScript is off; quote the words of 'key'",
    ),
    "untranslated": ("Not translated yet", "the tooltip of a text shown in the source language"),
    "fallback_note": (
        "{count} texts on this page have no reviewed translation yet; they are shown in {language}.",
        "the page's footnote; {language} is the source language's name in this language (CLDR)",
    ),
    "new_attempt": ("New attempt", "a quiz page's button that draws new questions"),
    "attempts": ("Your attempts", "the heading of a quiz page's list of attempts"),
    "attempt_score": ("Attempt {n}: {score} of {total} points ({percent})", "one attempt in that list"),
    "type_number": ("Type a number.", "under a numerical question, whose answer is typed"),
    "answer_label": ("Your answer", "the label of a numerical question's answer box, and of the typed answer"),
    "not_a_number": ("Type a number, such as {example}.", "said when the typed answer is no number; {example}: 468.75"),
}
LETTERS = "letters"  # the msgctxt of the choice letters: one msgstr, the letters in order, separated by spaces
ENGLISH_LETTERS = " ".join(string.ascii_uppercase)
LOWERCASE_HEADER = "X-Language-Names-Mid-Sentence"  # "lowercase": language names mid-sentence ("tiếng Anh")
SHIPPED_DIR = "page_words"
BANK_DIR = "page"  # under the bank's locales/


@dataclass(frozen=True)
class Catalog:
    """One PO file of page words: the reviewed and the draft words by key."""

    locale: str
    reviewed: dict[str, str] = field(default_factory=dict)
    drafts: dict[str, str] = field(default_factory=dict)
    lowercase_language_names: bool = False

    def words(self, include_drafts: bool) -> dict[str, str]:
        return {**self.reviewed, **self.drafts} if include_drafts else dict(self.reviewed)


@dataclass(frozen=True)
class PageWords:
    """A page's words in one language (``locale``), English where that language has none (``missing``)."""

    locale: str
    words: dict[str, str]
    letters: tuple[str, ...]
    lowercase_language_names: bool
    missing: tuple[str, ...]


def _parse(text: str, locale: str, file: str) -> tuple[Catalog, list[Problem]]:
    """A catalog from PO text, with a problem for each entry that cannot be used (unknown key, placeholders that
    differ from the English, letters that repeat)."""
    from . import po  # (the PO reader: only when a page needs words other than the English)

    problems: list[Problem] = []
    try:
        parsed = po.read_po(text)
    except po.PoSyntaxError as exc:
        return Catalog(locale), [Problem(file, exc.line, f"PO syntax error: {exc.message}")]
    catalog = Catalog(locale, lowercase_language_names=parsed.header.get(LOWERCASE_HEADER, "") == "lowercase")
    known = [*WORDS, LETTERS]
    for entry in parsed.entries:
        if entry.obsolete or not entry.msgstr:
            continue
        key = entry.context or ""
        if key not in known:
            hint = difflib.get_close_matches(key, known, n=1)
            said = f" (did you mean {hint[0]!r}?)" if hint else ""
            message = f"msgctxt {key!r} is no word of the page{said}: the page's words are {', '.join(known)}"
            problems.append(Problem(file, entry.line, message))
            continue
        wrong = _entry_problem(key, entry.msgstr)
        if wrong is not None:
            problems.append(Problem(file, entry.line, f"{key!r}: {wrong}"))
            continue
        (catalog.drafts if entry.fuzzy else catalog.reviewed)[key] = entry.msgstr
    return catalog, problems


_FIELD = re.compile(r"\{([a-z_]*)\}")


def _entry_problem(key: str, text: str) -> str | None:
    if key == LETTERS:
        letters = text.split()
        if len(letters) < 4:
            return f"give at least 4 letters, separated by spaces (found {len(letters)})"
        if len(set(letters)) != len(letters):
            return "a letter appears twice: each choice needs its own"
        return None
    wanted = sorted(_FIELD.findall(WORDS[key][0]))
    found = sorted(_FIELD.findall(text))
    if found != wanted:
        named = ", ".join("{" + name + "}" for name in wanted) or "none"
        return f"the placeholders must be those of the English ({named}), found {', '.join(found) or 'none'}"
    try:
        text.format(**{name: "" for name in wanted})
    except (ValueError, IndexError, KeyError):
        return "a brace that is no placeholder: write {{ or }} for a literal brace"
    return None


@cache
def shipped(locale: str) -> Catalog | None:
    """The catalog moe-lms ships for ``locale`` (exactly that tag), or None."""
    path = resources.files(__package__) / SHIPPED_DIR / f"{locale}.po"
    if not path.is_file():
        return None
    catalog, problems = _parse(path.read_text(encoding="utf-8"), locale, f"moe_lms/{SHIPPED_DIR}/{locale}.po")
    if problems:  # (the tests keep the shipped catalogs clean)
        raise ValueError("; ".join(map(str, problems)))
    return catalog


@cache
def shipped_locales() -> tuple[str, ...]:
    """Every locale moe-lms ships page words for."""
    folder = resources.files(__package__) / SHIPPED_DIR
    return tuple(sorted(p.name.removesuffix(".po") for p in folder.iterdir() if p.name.endswith(".po")))


def read_bank_catalogs(directory: Path, display: str) -> tuple[dict[str, Catalog], list[Problem]]:
    """The bank's own page words, ``locales/page/<locale>.po``, by locale (``display``: how to name that folder)."""
    folder = directory / "locales" / BANK_DIR
    catalogs: dict[str, Catalog] = {}
    problems: list[Problem] = []
    for path in sorted(folder.glob("*.po")) if folder.is_dir() else []:
        file = f"{display}/{path.name}"
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(Problem(file, None, f"cannot read: {exc}"))
            continue
        catalog, found = _parse(text, path.stem, file)
        catalogs[path.stem] = catalog
        problems += found
    return catalogs, problems


def _layers(locale: str, bank: Mapping[str, Catalog]) -> list[Catalog]:
    """The catalogs that give ``locale``'s words, weakest first: shipped then the bank's, language then locale."""
    tags = [locale.split("_")[0], locale] if "_" in locale else [locale]
    layers = [c for c in map(shipped, tags) if c is not None]
    layers += [bank[tag] for tag in tags if tag in bank]
    return layers


def page_words(locale: str, bank: Mapping[str, Catalog] | None = None, *, include_drafts: bool = False) -> PageWords:
    """The page's words for ``locale``: the shipped catalog's, then the bank's own over them; English for a key
    none gives (each is listed in ``missing``), and English throughout (``locale`` "en") for a language with none."""
    words: dict[str, str] = {}
    lowercase = False
    if locale == "en" and not bank:  # (English is the msgids: no catalog to read)
        return PageWords("en", {key: text for key, (text, _where) in WORDS.items()}, tuple(ENGLISH_LETTERS.split()),
                         False, ())  # fmt: skip
    for catalog in _layers(locale, bank or {}):
        words.update(catalog.words(include_drafts))
        lowercase = lowercase or catalog.lowercase_language_names
    if not words:
        english = {key: text for key, (text, _where) in WORDS.items()}
        return PageWords("en", english, tuple(ENGLISH_LETTERS.split()), False, ())
    missing = tuple(key for key in [*WORDS, LETTERS] if key not in words)
    letters = tuple(words.pop(LETTERS, ENGLISH_LETTERS).split())
    for key in missing:
        if key != LETTERS:
            words[key] = WORDS[key][0]
    return PageWords(locale, words, letters, lowercase, missing)


def coverage_problem(locale: str, bank: Mapping[str, Catalog], file: str) -> Problem | None:
    """What ``check`` says of a target locale's page words: none at all, or some that are drafts or missing (a page
    shows those in English, drafts unless --include-drafts)."""
    layers = _layers(locale, bank)
    reviewed = {key for catalog in layers for key in catalog.reviewed}
    drafts = {key for catalog in layers for key in catalog.drafts} - reviewed
    missing = [key for key in [*WORDS, LETTERS] if key not in reviewed | drafts]
    guide = 'docs/how-to/add-a-locale.md, "The page\'s own words"'
    if not reviewed and not drafts:
        message = (
            f"locale {locale!r} has no page words: its take-the-quiz page (export --format html) shows its buttons, "
            f"labels and choice letters in English; run `moe-lms translations page-words {locale}` and translate the "
            f"file it writes ({guide})"
        )
    elif drafts or missing:
        counts = [f"{len(drafts)} draft(s)"] if drafts else []
        counts += [f"{len(missing)} missing ({', '.join(missing)})"] if missing else []
        message = (
            f"{len(reviewed)} of the {len(WORDS) + 1} page words of {locale!r} are reviewed, {' and '.join(counts)}: "
            "the take-the-quiz page shows the others in English (drafts too, unless --include-drafts); review them "
            f"(delete the `#, fuzzy` line), or give your own in locales/page/{locale}.po ({guide})"
        )
    else:
        return None
    return Problem(file, None, message, severity=Severity.WARNING)


def catalog_text(locale: str) -> str:
    """A PO file of page words for ``locale`` to start from: the shipped one (drafts and all), or every word with
    an empty msgstr."""
    path = resources.files(__package__) / SHIPPED_DIR / f"{locale}.po"
    if path.is_file():
        return path.read_text(encoding="utf-8")
    lines = [
        f"# The take-the-quiz page's own words in {locale}, for moe-lms (docs/how-to/add-a-locale.md).",
        "# Translate each msgstr; keep the {placeholders}; letters: the choice letters in order, separated by spaces.",
        'msgid ""',
        'msgstr ""',
        '"Content-Type: text/plain; charset=UTF-8\\n"',
        f'"Language: {locale}\\n"',
        "",
    ]
    for key, (english, where) in [*WORDS.items(), (LETTERS, (ENGLISH_LETTERS, "the choice letters, in order"))]:
        lines += [f"#. {where}", f'msgctxt "{key}"', f"msgid {_quoted(english)}", 'msgstr ""', ""]
    return "\n".join(lines)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def locales_with_words(bank: Mapping[str, Catalog]) -> Sequence[str]:
    """Every locale a page can have words for: shipped or the bank's."""
    return sorted({*shipped_locales(), *bank})
