"""Formats: each one module or package that owns everything about its format; they meet the rest only at the model.

A format registers a :class:`Format` here; the CLI reads this registry and nothing else, so adding a format is
one module (or a package with ``write``, ``read`` and ``validate`` modules, as ``moodle/``, ``qti21/`` and
``cc11/`` are) plus one line in ``_REGISTERED``. What several formats share has a module of its own
(``qti_item.py``, ``qti12/``, ``imported.py``); this package must not know the CLI, files or the network.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from importlib import import_module
from typing import BinaryIO

from ..model import WHOLE_BANK, Bank


@dataclass(frozen=True)
class ExportOptions:
    locales: tuple[str, ...]  # which of the bank's locales to export, in this order
    include_drafts: bool = False
    multilang: bool = False  # Moodle: one question carrying every locale
    drop_images: bool = False  # GIFT: leave images out (a GIFT file cannot carry them) instead of refusing
    quiz: str | None = None  # the id of one of the bank's quizzes (model.Quiz); None: the whole bank as one quiz

    @classmethod
    def for_bank(
        cls, bank: Bank, locales: tuple[str, ...] = (), *, quiz: str | None = None, **kwargs: bool
    ) -> ExportOptions:
        unknown = [loc for loc in locales if loc not in bank.locales]
        if unknown:
            raise ValueError(
                f"bank {bank.id!r} has no locale {', '.join(unknown)} (it has {', '.join(bank.locales)}); to add one, "
                "put it in target_locales: in bank.yaml and run `moe-lms translations update`"
            )
        if quiz is not None:
            try:
                bank.quiz(quiz)
            except KeyError as exc:
                raise ValueError(exc.args[0]) from None
        return cls(locales=locales or bank.locales, quiz=quiz, **kwargs)


Writer = Callable[[Bank, ExportOptions, BinaryIO], None]


@dataclass(frozen=True)
class Format:
    name: str
    description: str
    suffix: str  # default output file is <bank-id><suffix>
    write: Writer  # streams the export into a binary file object
    # True when a file holds one language (the first of ExportOptions.locales); export then takes one --locale.
    one_locale_per_file: bool = False
    # True when the writer carries one of the bank's quizzes (ExportOptions.quiz): its sections and draws.
    quizzes: bool = False
    quiz_refusal: str = "it cannot carry a quiz's sections and draws yet"  # why not, when it does not

    def dump(self, bank: Bank, options: ExportOptions) -> bytes:
        buf = io.BytesIO()
        self.write(bank, options, buf)
        return buf.getvalue()


# format name -> module in this package that defines ``FORMAT``; imported only when that format is used.
_REGISTERED: dict[str, str] = {
    "canvas": "canvas",
    "canvas-qti": "canvas_qti",
    "cc11": "cc11",
    "gift": "gift",
    "html": "html",
    "moodle": "moodle",
    "olx": "olx",
    "qti21": "qti21",
    "qti3": "qti3",
}


def names() -> list[str]:
    return list(_REGISTERED)


def get(name: str) -> Format:
    """The format ``name``; its ``write`` first refuses a bank whose images the loader's checks refuse (an SVG
    outside the allow-list), whoever made the bank."""
    fmt = import_module(f"{__name__}.{_REGISTERED[name]}").FORMAT
    assert isinstance(fmt, Format)
    return _checked(fmt)


def concrete(bank: Bank, options: ExportOptions, *, quizzes: bool = True) -> tuple[Bank, ExportOptions]:
    """The bank as writers see it: each parameterised question expanded into its variants (moe_lms.variants), and
    a whole-bank export made the whole bank's quiz, whose sections draw one variant of each (when the format
    carries quizzes: ``quizzes``). A bank without parameterised questions comes back as it is."""
    from .. import variants

    if not variants.has_variants(bank):
        return bank, options
    try:
        expanded = variants.expand(bank)
    except variants.VariantsError as exc:
        from ..problems import Problem, ProblemsFound

        raise ProblemsFound([Problem("bank.yaml", None, str(exc))]) from None
    if options.quiz is None and quizzes:
        options = replace(options, quiz=WHOLE_BANK)
    return expanded, options


@cache
def _checked(fmt: Format) -> Format:
    def write(bank: Bank, options: ExportOptions, out: BinaryIO) -> None:
        bank, options = concrete(bank, options, quizzes=fmt.quizzes)
        if bank.media:
            from ..media import media_problems
            from ..problems import ProblemsFound

            problems = media_problems(bank)
            if problems:
                raise ProblemsFound(problems)
        fmt.write(bank, options, out)

    return replace(fmt, write=write)
