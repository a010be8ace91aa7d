"""QTI 2.1 content packages (IMS CP 1.1 zip), both directions: export, semantic checks, import.

A package holds one ``assessmentItem`` per question per locale, one ``assessmentTest`` per locale and a
stylesheet that gives right-to-left languages their direction (QTI 2.1 has no ``dir`` attribute).

- :mod:`.write` (:func:`write`, :data:`FORMAT`, :func:`build_item`, :func:`build_test`): items and tests, streamed
  into a deterministic zip. What an item is (identifiers, shape, SCORE/FEEDBACK response processing, titles) is
  :mod:`moe_lms.formats.qti_item`, which the QTI 3 writer shares; this package only spells it in QTI 2.1.
- :mod:`.manifest`: ``imsmanifest.xml`` with LOM and QTI metadata, written and read.
- :mod:`.xhtml`: rendered HTML to and from QTI 2.1's XHTML subset.
- :mod:`.validate` (:func:`check_package`): what the XSDs cannot say, then the XSDs.
- :mod:`.read` (:func:`read_package`, :func:`load`): a package from outside back into a bank.
- :mod:`.names`: namespaces, resource types, paths inside a package.

Everything that comes in is read through :mod:`moe_lms.xmlsafe` and :mod:`moe_lms.zipsafe`.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .. import FALLBACK, NO, Format, Guide, Held, Offer, ShelfEntry, checker, lazy, one_package
from ..qti_item import GENERAL_FEEDBACK, item_identifier
from .names import ITEM_TYPE, MANIFEST, MAX_ITEM_ELEMENTS, QTI, STYLE_ID, STYLESHEET, TEST_TYPE, item_path, test_path
from .write import build_item, build_test, package_profile, write

if TYPE_CHECKING:
    from .read import load, read_package
    from .validate import check_package

# Reading and checking are imported on first use: listing the registry (check does) needs neither. (The writer
# stays a name of the package: ``qti21.write`` is the function, as callers have it.)
_LAZY = {"load": ".read", "read_package": ".read", "check_package": ".validate"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FORMAT",
    "GENERAL_FEEDBACK",
    "ITEM_TYPE",
    "MANIFEST",
    "MAX_ITEM_ELEMENTS",
    "QTI",
    "STYLESHEET",
    "STYLE_ID",
    "TEST_TYPE",
    "build_item",
    "build_test",
    "check_package",
    "item_identifier",
    "item_path",
    "load",
    "package_profile",
    "read_package",
    "test_path",
    "write",
]


def _sniff(data: bytes, name: str) -> int:
    """Any zip nothing else recognises is checked as QTI 2.1, whose checker says what it lacks."""
    return FALLBACK if data[:4] == b"PK\x03\x04" or name.lower().endswith(".zip") else NO


def _canvas(held: Held, first: bool) -> list[str]:
    return [
        "Upload the QTI package:" if first else "Or upload the QTI 2.1 package the same way:",
        "",
        "1. In your course go to **Settings → Import Course Content**.",
        "2. **Content Type: QTI .zip file**; choose the `.qti21.zip` of your language.",
        "3. Leave **Default Question bank** as it is (or pick one), then **Import**.",
        "4. Wait until **Current Jobs** says *Completed*; the quiz is then under **Quizzes**.",
        "",
    ]


def _others(held: Held, first: bool) -> list[str]:
    return [
        "The `.qti21.zip` files are IMS Content Packages holding QTI 2.1 items and a test. Import them where your "
        "platform takes *QTI 2.1* or *IMS Content Package* files; the menu is usually called *Import* in the "
        "question bank or item bank. Each item keeps its per-choice feedback and the general explanation.",
        "",
    ]


FORMAT = Format(
    name="qti21",
    warnings=lazy(".caveats:qti21"),  # what it cannot carry of a quiz, or what to do after importing it
    description="QTI 2.1 content package (IMS CP zip: items, tests, manifest)",
    suffix=".qti21.zip",
    write=write,
    quizzes=True,
    label="QTI 2.1 package",
    read=one_package(".qti21.read:read_package"),
    read_help="""Read the choice items of a QTI 2.1 package into a bank directory.

    Items of one question in several languages become one question with translations. Hostile packages
    (paths outside the package, entities, oversized or too many files) are refused with the reason.
    Into a folder that holds a bank, the import is merged: its questions update or add to the bank's by id,
    and the bank's other questions and translations (reviewed and draft) stay.
    """,
    check=checker(".qti21.validate:check_package"),
    check_what="QTI 2.1 package",
    check_schemas="qti21",
    sniff=_sniff,
    shelf=ShelfEntry(
        label="QTI 2.1 package",
        offers=(Offer(40, "**TAO, Inspera, OpenOLAT, ONYX** and other QTI 2.1 platforms", "the `.qti21.zip` package"),),
        guide=(Guide(32, "Canvas", _canvas), Guide(40, "Any other QTI 2.1 platform", _others)),
    ),
)
