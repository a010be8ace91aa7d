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

from .. import Format
from ..qti_item import GENERAL_FEEDBACK, item_identifier
from .names import ITEM_TYPE, MANIFEST, MAX_ITEM_ELEMENTS, QTI, STYLE_ID, STYLESHEET, TEST_TYPE, item_path, test_path
from .read import load, read_package
from .validate import check_package
from .write import build_item, build_test, package_profile, write

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

FORMAT = Format(
    name="qti21",
    description="QTI 2.1 content package (IMS CP zip: items, tests, manifest)",
    suffix=".qti21.zip",
    write=write,
    quizzes=True,
)
