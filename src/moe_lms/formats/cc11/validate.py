"""Checking a Common Cartridge 1.1 (or a Canvas QTI 1.2 package) before an LMS sees it.

XSD: ``imsmanifest.xml`` against the CC 1.1 manifest schemas and every QTI file against the CC profile of QTI 1.2.1
(a Canvas package's manifest follows Canvas's conventions, not CC's, so only its QTI files are checked by XSD).
Then what XSD cannot say: files the manifest names are in the zip and the other way round, references resolve
(dependencies, organization items), at most one question bank (CC 1.1), and per item: choice idents unique, every
``varequal`` names a choice, every ``displayfeedback`` names an ``itemfeedback``, an answer key (a condition that
gives points), and feedback for each choice.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from copy import deepcopy

from lxml import etree

from ...numbers_in import ascii_digits, finite_number
from ...problems import Problem, ProblemsFound, Severity
from ...schemas import Schemas
from ...xmlsafe import UnsafeXmlError
from ...zipsafe import SafeZip, UnsafePackage, resolve_href
from ..imported import number
from ..ims.cp import open_package
from ..qti12 import (
    CC_FIB,
    KIND_OF_TYPE,
    NUMERICAL_TYPE,
    WEB_RESOURCES,
    feedback_idents,
    item_metadata,
    package_image_path,
    q,
)
from .write import BANK_TYPE, CP, MANIFEST

XSD_ERRORS_SHOWN = 20


def is_cartridge(manifest: etree._Element) -> bool:
    return manifest.tag == f"{{{CP}}}manifest" and (
        manifest.findtext(f"{{{CP}}}metadata/{{{CP}}}schema") or ""
    ).strip() == ("IMS Common Cartridge")


def _xsd(schema: etree.XMLSchema, root: etree._Element, file: str, problems: list[Problem]) -> None:
    if schema.validate(root):
        return
    errors = list(schema.error_log)
    for error in errors[:XSD_ERRORS_SHOWN]:
        problems.append(Problem(file, error.line, f"XSD: {error.message}"))
    if len(errors) > XSD_ERRORS_SHOWN:
        problems.append(Problem(file, None, f"XSD: … and {len(errors) - XSD_ERRORS_SHOWN} more error(s)"))


def holds_qti12(data: bytes) -> bool:
    """Whether a zip is a QTI 1.2 package (a cartridge, or Canvas's flavour) rather than a QTI 2.1 one."""
    try:
        manifest = SafeZip(data).xml(MANIFEST)
    except (UnsafePackage, UnsafeXmlError, KeyError):
        return False
    kinds = (r.get("type", "") for r in manifest.iter("{*}resource"))
    return is_cartridge(manifest) or any(kind.startswith("imsqti_xmlv1p2") for kind in kinds)


def check_item(item: etree._Element, file: str, problems: list[Problem], *, cartridge: bool) -> None:
    where = f"item {item.get('ident', '')!r}"

    def add(element: etree._Element, message: str, severity: Severity = Severity.ERROR) -> None:
        problems.append(Problem(file, element.sourceline, message, where, severity=severity))

    meta = item_metadata(item)
    declared = meta.get("cc_profile") if cartridge else meta.get("question_type")
    if declared in (NUMERICAL_TYPE, CC_FIB):
        _check_numerical(item, add)
        return
    if declared is None:
        wanted = "cc_profile" if cartridge else "question_type"
        add(item, f"the item has no {wanted} metadata; LMSs guess its type", Severity.WARNING)
    elif declared not in KIND_OF_TYPE:
        add(item, f"{declared!r} is not a choice question type moe-lms checks", Severity.WARNING)
        return
    labels: dict[str, etree._Element] = {}
    for label in item.iter(q("response_label")):
        ident = label.get("ident", "")
        if ident in labels:
            add(label, f"choice ident {ident!r} is used twice")
        labels.setdefault(ident, label)
    feedback = {f.get("ident", "") for f in item.iterfind(q("itemfeedback"))}
    for var in item.iter(q("varequal")):
        if (var.text or "").strip() not in labels:
            add(var, f"varequal names {var.text!r}, which is not a choice of the item")
    shown: set[str] = set()
    for display in item.iter(q("displayfeedback")):
        link = display.get("linkrefid", "")
        shown.add(link)
        if link not in feedback:
            add(display, f"displayfeedback names {link!r}, which is no itemfeedback of the item")
    keyed = any((number(s.text) or 0) > 0 for s in item.iter(q("setvar")) if (s.get("varname") or "SCORE") == "SCORE")
    if not keyed:
        add(item, "no response condition gives points: the item has no answer key")
    for fallback, (ident, label) in zip(feedback_idents(list(labels)), labels.items(), strict=True):
        if fallback not in shown and f"{ident}_fb" not in shown:
            add(label, f"choice {ident!r} shows no feedback of its own", Severity.WARNING)


def check_package(data: bytes, schemas: Schemas | None, *, name: str = "package") -> list[Problem]:
    """Every check on a cartridge or Canvas QTI package; XSD validation when ``schemas`` is given."""
    try:
        package, manifest = open_package(data, name)
    except ProblemsFound as exc:
        return exc.problems
    place = f"{name}!/"
    problems: list[Problem] = []
    cartridge = is_cartridge(manifest)
    if schemas is not None and cartridge:
        _xsd(schemas.cc_manifest(), manifest, place + MANIFEST, problems)

    listed = {MANIFEST}
    identifiers: dict[str, etree._Element] = {}
    qti_files: list[str] = []
    banks = 0
    for resource in manifest.iter("{*}resource"):
        identifier = resource.get("identifier", "")
        if identifier in identifiers:
            problems.append(
                Problem(place + MANIFEST, resource.sourceline, f"resource identifier {identifier!r} is used twice")
            )
        identifiers[identifier] = resource
        kind = resource.get("type", "")
        banks += kind == BANK_TYPE
        for entry in resource.iterfind("{*}file"):
            path = resolve_href(MANIFEST, entry.get("href", ""))
            if path is None:
                message = f"file href {entry.get('href')!r} leaves the package or is not a path"
                problems.append(Problem(place + MANIFEST, entry.sourceline, message))
            elif path not in package.infos:
                problems.append(
                    Problem(place + MANIFEST, entry.sourceline, f"the manifest lists {path!r}, which is not in the zip")
                )
            else:
                listed.add(path)
                if kind.startswith("imsqti_xmlv1p2") or path.endswith(".xml.qti"):
                    qti_files.append(path)
    for reference in [*manifest.iter("{*}dependency"), *manifest.iter("{*}item")]:
        target = reference.get("identifierref")
        if target is not None and target not in identifiers:
            problems.append(
                Problem(place + MANIFEST, reference.sourceline, f"{target!r} names no resource of the manifest")
            )
    if cartridge and banks > 1:
        problems.append(Problem(place + MANIFEST, None, f"{banks} question banks; a Common Cartridge 1.1 may hold one"))
    for member in package.names:
        if member not in listed:
            problems.append(Problem(place + member, None, "the zip holds this file but the manifest does not list it"))
    if not qti_files:
        problems.append(Problem(place + MANIFEST, None, "the manifest names no QTI 1.2 assessment or question bank"))

    for path in dict.fromkeys(qti_files):
        file = place + path
        try:
            root = package.xml(path)
        except (UnsafePackage, UnsafeXmlError) as exc:
            problems.append(Problem(file, getattr(exc, "line", None), str(exc)))
            continue
        if schemas is not None:
            # A Canvas quiz's question groups go beyond the CC profile (one section of items): the rest is checked
            # against it, and the groups as Canvas reads them (_check_groups).
            _xsd(schemas.cc_qti(), root if cartridge else _without_ranges(_without_groups(root)), file, problems)
        if not cartridge:
            _check_groups(root, file, problems)
        if root.tag != q("questestinterop"):
            problems.append(
                Problem(file, root.sourceline, f"expected a QTI 1.2 questestinterop, found {etree.QName(root).text}")
            )
            continue
        seen: set[str] = set()
        for item in root.iter(q("item")):
            ident = item.get("ident", "")
            if ident in seen:
                problems.append(Problem(file, item.sourceline, f"item ident {ident!r} is used twice in the file"))
            seen.add(ident)
            check_item(item, file, problems, cartridge=cartridge)
        _check_images(root, package, file, problems)
    return problems


def _check_numerical(item: etree._Element, add: Callable[[etree._Element, str], None]) -> None:
    """A numerical item (Canvas's numerical_question, a cartridge's cc.fib): a response_str, every value a number,
    every range ``and(vargte, varlte)`` around its ``varequal``, every feedback shown there."""
    if item.find(f"{q('presentation')}/{q('response_str')}") is None:
        add(item, "a numerical item has no response_str for the typed answer")
    for var in [*item.iter(q("varequal")), *item.iter(q("vargte")), *item.iter(q("varlte"))]:
        if number(var.text) is None:
            add(var, f"{etree.QName(var).localname} holds {var.text!r}, which is not a number")
    for either in item.iter(q("or")):
        exact = number(either.findtext(q("varequal")))
        low, high = (
            number(either.findtext(f"{q('and')}/{q('vargte')}")),
            number(either.findtext(f"{q('and')}/{q('varlte')}")),
        )
        if exact is not None and low is not None and high is not None and not low <= exact <= high:
            add(either, f"the range {low:g} to {high:g} does not hold its value {exact:g}")
    feedback = {f.get("ident", "") for f in item.iterfind(q("itemfeedback"))}
    for display in item.iter(q("displayfeedback")):
        if display.get("linkrefid", "") not in feedback:
            add(display, f"displayfeedback names {display.get('linkrefid')!r}, which is no itemfeedback of the item")


def _without_ranges(root: etree._Element) -> etree._Element:
    """A copy of a Canvas QTI file whose numerical conditions ``or(varequal, and(vargte, varlte))`` (Canvas's own
    shape, qti_items.rb numerical_resprocessing, beyond the CC profile) keep their varequal alone."""
    copy = deepcopy(root)
    for either in list(copy.iter(q("or"))):
        parent = either.getparent()
        exact = either.find(q("varequal"))
        if parent is not None and exact is not None:
            parent.replace(either, exact)
    return copy


def _without_groups(root: etree._Element) -> etree._Element:
    """A copy of a QTI file with each question group's items in its parent section instead, and no group."""
    copy = deepcopy(root)
    groups = [s for s in copy.iter(q("section")) if getattr(s.getparent(), "tag", None) == q("section")]
    for group in groups:
        parent = group.getparent()
        assert parent is not None
        position = parent.index(group)
        for item in group.findall(q("item")):
            parent.insert(position, item)
            position += 1
        parent.remove(group)
    return copy


def _check_groups(root: etree._Element, file: str, problems: list[Problem]) -> None:
    """Each question group (a section inside a section) draws a whole number of its items, each worth points, as
    Canvas's importer reads them (gems/plugins/qti_exporter/lib/qti/assessment_test_converter.rb)."""
    for group in root.iter(q("section")):
        parent = group.getparent()
        if parent is None or parent.tag != q("section"):
            continue
        items = len(group.findall(q("item")))
        selection = group.find(f"{q('selection_ordering')}/{q('selection')}")
        number = (selection.findtext(q("selection_number")) or "").strip() if selection is not None else ""
        if not ascii_digits(number) or not 0 < int(number) <= items:
            message = f"question group {group.get('ident')!r} draws {number or 'nothing'!r} of its {items} item(s)"
            problems.append(Problem(file, group.sourceline, message))
        points = (
            selection.findtext(f"{q('selection_extension')}/{q('points_per_item')}") if selection is not None else None
        )
        value = finite_number(points)
        valid = value is not None and value > 0
        if not valid:
            message = f"question group {group.get('ident')!r} gives its items no points_per_item (Canvas then gives 1)"
            problems.append(Problem(file, group.sourceline, message, severity=Severity.WARNING))


_IMAGE_SRC = re.compile(r'<img\b[^>]*\bsrc="([^"]+)"')


def _check_images(root: etree._Element, package: SafeZip, file: str, problems: list[Problem]) -> None:
    """Every image the HTML of a QTI file shows from the package (``$IMS-CC-FILEBASE$/…``,
    ``$IMS-CC-FILEBASE$../web_resources/…``, ``web_resources/…``) is in web_resources/."""
    for mattext in root.iter(q("mattext")):
        for src in _IMAGE_SRC.findall(mattext.text or ""):
            href = package_image_path(html.unescape(src))
            if href is None:
                continue
            path = resolve_href(f"{WEB_RESOURCES}/x", href)
            if path is None or path not in package.infos:
                message = f"an image refers to {href!r}, which is not in the package's {WEB_RESOURCES}/ folder"
                problems.append(Problem(file, mattext.sourceline, message))
