"""Formats: each one module or package that owns everything about its format; they meet the rest only at the model.

A format is a package (or one module) that declares a :class:`Format` named ``FORMAT`` and one line in
``_REGISTERED``. The :class:`Format` carries both directions and everything the rest needs to know: ``write``,
``read`` (where an importer exists), ``check`` (``validate``) and ``sniff`` (auto-detection), its label, its part of
the shelf and its README (:class:`ShelfEntry`), the export options it accepts and whether it carries quizzes. The
CLI (``export``, ``import <name>``, ``validate``) and the shelf iterate this registry, and no code outside a
format's package names that format. Readers and checkers are given as ``"module:function"`` through :func:`lazy`,
so listing the registry imports none of them. What several formats share has a module of its own
(``qti_item.py``, ``qti12/``, ``imported.py``); this package must not know the CLI, files or the network.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from ..model import WHOLE_BANK, Bank
from ..problems import OptionError

if TYPE_CHECKING:
    from ..problems import Problem
    from ..schemas import Schemas


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
            raise OptionError(
                f"bank {bank.id!r} has no locale {', '.join(unknown)} (it has {', '.join(bank.locales)}); to add one, "
                "put it in target_locales: in bank.yaml and run `moe-lms translations update`"
            )
        if quiz is not None:
            try:
                bank.quiz(quiz)
            except KeyError as exc:
                raise OptionError(exc.args[0]) from None
        return cls(locales=locales or bank.locales, quiz=quiz, **kwargs)


Writer = Callable[[Bank, ExportOptions, BinaryIO], None]


@dataclass(frozen=True)
class Imported:
    """What a reader made of the files it was given: the bank, its warnings (errors raise ProblemsFound), and
    one line for each thing in the files that the bank cannot hold (a question of another type, say)."""

    bank: Bank
    warnings: list[Problem]
    skipped: tuple[str, ...] = ()


class Reader(Protocol):
    """One signature for every importer: the files as (name, bytes), the source locale when the user names one
    (``read_options`` has ``"locale"``), and the largest file the user allows."""

    def __call__(self, files: Sequence[tuple[str, bytes]], /, *, locale: str | None, max_bytes: int) -> Imported: ...


class Checker(Protocol):
    """One signature for every validator: the file, the XSDs (None when not found or not needed), its name."""

    def __call__(self, data: bytes, schemas: Schemas | None, /, *, name: str) -> list[Problem]: ...


# How sure a sniffer is that a file is of its format: NO, the FALLBACK for its container (any zip is tried as
# QTI 2.1 when nothing recognises it), or YES (its content says so). validate takes the surest, never the first.
NO, FALLBACK, YES = 0, 1, 2
Sniffer = Callable[[bytes, str], int]  # (data, file name) -> NO, FALLBACK or YES


@dataclass(frozen=True)
class Held:
    """What a whole shelf holds, for the README's import guide."""

    quizzes: bool  # a quiz of a bank, drawing from its sections
    every_locale: bool  # a file carrying every locale (Moodle's multilang)


@dataclass(frozen=True)
class Offer:
    """One "which platform takes which file" entry: ``platform`` (Markdown) takes ``file``; offers of one platform
    share a line, in ``rank`` order, and the lines are in the order of their first offer's rank."""

    rank: int
    platform: str
    file: str


@dataclass(frozen=True)
class Guide:
    """A part of the README's import guide under ``heading``: parts of one heading are one section, in ``rank``
    order, and sections are in the order of their first part's rank. ``lines(held, first)`` are the part's
    Markdown lines; ``first`` says whether it opens its section (it may then word itself differently)."""

    rank: int
    heading: str
    lines: Callable[[Held, bool], list[str]]


@dataclass(frozen=True)
class AllLocales:
    """A shelf file carrying every locale (``<bank>.<name><suffix>``), made with the ExportOptions flags in
    ``options`` set, unless ``refusal(bank)`` names a text it cannot hold."""

    name: str
    options: tuple[str, ...]
    refusal: Callable[[Bank], str | None]
    present: str  # README sentence; {link} is the file
    absent: str  # README sentence when refused
    refused: str  # what check says of the text refusal names


@dataclass(frozen=True)
class ShelfEntry:
    """A format's place on the ready-to-import shelf (``moe-lms build``) and in its README."""

    label: str  # column heading in the README
    offers: tuple[Offer, ...] = ()
    guide: tuple[Guide, ...] = ()
    siblings: bool = False  # a file of one locale carries the others too (the HTML page links them)
    without_images: str = ""  # why the shelf's file leaves a bank's images out (drop_images); "" when it keeps them
    all_locales: AllLocales | None = None


@dataclass(frozen=True)
class Format:
    name: str
    description: str
    suffix: str  # default output file is <bank-id><suffix>
    write: Writer  # streams the export into a binary file object
    label: str = ""  # short human name ("QTI 2.1 package"); default the name
    # True when a file holds one language (the first of ExportOptions.locales); export then takes one --locale.
    one_locale_per_file: bool = False
    # True when the writer carries one of the bank's quizzes (ExportOptions.quiz): its sections and draws.
    quizzes: bool = False
    quiz_refusal: str = "it cannot carry a quiz's sections and draws yet"  # why not, when it does not
    # ExportOptions fields of one format that this one accepts ("multilang", "drop_images")
    accepts: frozenset[str] = frozenset()
    # What an export with these options drops or degrades (warnings), or refuses (errors): printed by the CLI,
    # turned into errors by export --strict. None: nothing.
    warnings: Callable[[Bank, ExportOptions], list[Problem]] | None = None
    read: Reader | None = None  # import <name>; None: no importer
    read_help: str = ""  # the import command's help
    read_several: bool = False  # takes several files (one per language)
    read_options: frozenset[str] = frozenset()  # "locale" (--locale TAG), "max_size" (--max-size MiB)
    read_limit: int | None = None  # largest file read by default; None: zipsafe.MAX_PACKAGE_BYTES
    check: Checker | None = None  # validate; None: not checked
    check_what: str = ""  # what validate says it checked ("QTI 2.1 package")
    check_schemas: str | None = None  # folder of the XSDs under the schema folder; None: no XSD
    check_detail: str = ""  # without XSDs: what is checked ("structure, answer keys and hints")
    sniff: Sniffer | None = None
    shelf: ShelfEntry | None = None  # None: not on the shelf

    def dump(self, bank: Bank, options: ExportOptions) -> bytes:
        buf = io.BytesIO()
        self.write(bank, options, buf)
        return buf.getvalue()

    @property
    def title(self) -> str:
        return self.label or self.name


def lazy(target: str) -> Callable[..., Any]:
    """``"module:function"`` (module relative to this package, ``.cc11.read``) as a function that imports the
    module on its first call: the registry names every reader and checker without importing them (start-up time,
    bench/startup.py)."""
    module, _, attribute = target.partition(":")

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(import_module(module, __name__), attribute)(*args, **kwargs)

    call.__name__ = call.__qualname__ = attribute
    return call


def one_package(target: str) -> Reader:
    """A :class:`Reader` over ``read_package(data, *, name) -> (Bank, warnings)`` (``"module:function"``)."""
    read_package = lazy(target)

    def read(files: Sequence[tuple[str, bytes]], /, *, locale: str | None, max_bytes: int) -> Imported:
        ((name, data),) = files
        bank, warnings = read_package(data, name=name)
        return Imported(bank, warnings)

    return read


def checker(target: str, *, xsd: bool = True) -> Checker:
    """A :class:`Checker` over ``check(data, schemas, *, name) -> problems`` (``"module:function"``), or over
    ``check(data, *, name)`` when the format has no XSD (``xsd=False``)."""
    check = lazy(target)

    def run(data: bytes, schemas: Schemas | None, /, *, name: str) -> list[Problem]:
        result: list[Problem] = check(data, schemas, name=name) if xsd else check(data, name=name)
        return result

    return run


# format name -> module in this package that defines ``FORMAT``; imported only when that format is used. The order
# is the shelf's (its README's columns and files) and the CLI's.
_REGISTERED: dict[str, str] = {
    "moodle": "moodle",
    "cc11": "cc11",
    "canvas-qti": "canvas_qti",
    "qti21": "qti21",
    "qti3": "qti3",
    "olx": "olx",
    "canvas": "canvas",
    "gift": "gift",
    "html": "html",
}


def names() -> list[str]:
    return list(_REGISTERED)


def register(name: str, module: str) -> None:
    """Add a format (``module`` is absolute, or relative to this package with a leading dot); for plug-ins and
    tests. :func:`unregister` takes it away."""
    _REGISTERED[name] = module
    _format.cache_clear()


def unregister(name: str) -> None:
    del _REGISTERED[name]
    _format.cache_clear()


def get(name: str) -> Format:
    """The format ``name``; its ``write`` first refuses a bank whose images the loader's checks refuse (an SVG
    outside the allow-list), whoever made the bank."""
    return _format(name, _REGISTERED[name])


def every() -> list[Format]:
    """Every registered format, in registry order (imports each)."""
    return [get(name) for name in _REGISTERED]


@cache
def _format(name: str, module: str) -> Format:
    fmt = import_module(module if not module.startswith(".") and "." in module else f"{__name__}.{module.lstrip('.')}")
    found = fmt.FORMAT
    assert isinstance(found, Format) and found.name == name, f"{module} does not declare the format {name!r}"
    return _checked(found)


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
