"""A QTI 2.1 assessmentTest read as a delivery engine reads it (IMS QTI 2.1 Assessment Test, Section and Item
Information Model, sections 3.2-3.3): the manifest's test resource, its testPart, each assessmentSection with its
``selection`` and ``ordering``, each assessmentItemRef resolved against the test file to an item of the package,
and an attempt drawn from it the way the spec says (``select`` items of the section without replacement, in order
unless ``ordering shuffle``)."""

from __future__ import annotations

import io
import posixpath
import random
import zipfile
from dataclasses import dataclass

from lxml import etree

QTI = "{http://www.imsglobal.org/xsd/imsqti_v2p1}"
CP = "{http://www.imsglobal.org/xsd/imscp_v1p1}"


@dataclass(frozen=True)
class DeliveredSection:
    identifier: str
    title: str | None
    select: int | None
    shuffle: bool
    items: tuple[str, ...]  # the assessmentItem identifiers, in order


@dataclass(frozen=True)
class DeliveredTest:
    identifier: str
    title: str | None
    max_time: float | None  # seconds (timeLimits maxTime)
    max_attempts: int | None  # the testPart's itemSessionControl
    sections: tuple[DeliveredSection, ...]

    def attempt(self, rng: random.Random) -> list[str]:
        """One candidate's items: each section's selection, then its ordering."""
        chosen: list[str] = []
        for section in self.sections:
            items = list(section.items)
            if section.select is not None:
                picked = set(rng.sample(range(len(items)), section.select))
                items = [item for k, item in enumerate(items) if k in picked]
            if section.shuffle:
                rng.shuffle(items)
            chosen += items
        return chosen


def read_test(package: bytes, test_href: str | None = None) -> DeliveredTest:
    """The package's assessmentTest (the one at ``test_href``, or its only one); every item it refers to must be a
    file of the package whose root is that assessmentItem, and a resource of the manifest."""
    files = zipfile.ZipFile(io.BytesIO(package))
    manifest = etree.fromstring(files.read("imsmanifest.xml"))
    resources = {r.get("href", ""): r for r in manifest.iter(f"{CP}resource")}
    tests = [href for href, r in resources.items() if r.get("type") == "imsqti_test_xmlv2p1"]
    href = test_href or tests[0]
    assert href in tests, (href, tests)
    if test_href is None:
        assert len(tests) == 1, tests
    root = etree.fromstring(files.read(href))
    assert root.tag == f"{QTI}assessmentTest"
    limits = root.find(f"{QTI}timeLimits")
    (part,) = root.findall(f"{QTI}testPart")
    control = part.find(f"{QTI}itemSessionControl")
    sections = []
    for section in part.iter(f"{QTI}assessmentSection"):
        selection = section.find(f"{QTI}selection")
        ordering = section.find(f"{QTI}ordering")
        items = []
        for ref in section.findall(f"{QTI}assessmentItemRef"):
            path = posixpath.normpath(posixpath.join(posixpath.dirname(href), ref.get("href", "")))
            item = etree.fromstring(files.read(path))
            assert item.tag == f"{QTI}assessmentItem" and item.get("identifier") == ref.get("identifier"), path
            assert path in resources, f"{path} is not a resource of the manifest"
            items.append(item.get("identifier", ""))
        select = int(selection.get("select", "")) if selection is not None else None
        if selection is not None:
            assert selection.get("withReplacement", "false") == "false"
            assert select is not None and 0 < select <= len(items), (section.get("identifier"), select, len(items))
        sections.append(
            DeliveredSection(
                section.get("identifier", ""),
                section.get("title"),
                select,
                ordering is not None and ordering.get("shuffle") == "true",
                tuple(items),
            )
        )
    max_time = float(limits.get("maxTime", "")) if limits is not None and limits.get("maxTime") else None
    attempts = control.get("maxAttempts") if control is not None else None
    return DeliveredTest(
        root.get("identifier", ""),
        root.get("title"),
        max_time,
        int(attempts) if attempts is not None else None,
        tuple(sections),
    )
