"""Semantic checks of any QTI 2.1 package (:func:`check_package`): what the XSDs cannot say (identifiers declared
once and every reference declared, each choice with feedback bound to it, correct responses and mappings naming
choices, feedback bound to an outcome response processing sets, references that stay in the package), then the
XSDs when given.

This module reads untrusted bytes through :mod:`moe_lms.zipsafe` and :mod:`moe_lms.xmlsafe`; it must not know the
bank model or how the export writes an item.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from ...problems import Problem, ProblemsFound, Severity
from ...schemas import Schemas
from ...xmlsafe import UnsafeXmlError
from ...zipsafe import SafeZip, UnsafePackage, resolve_href
from ..ims.cp import Resource, open_package
from .manifest import PACKAGING
from .names import (
    ITEM_TYPE_PREFIX,
    MANIFEST,
    MAX_ITEM_ELEMENTS,
    MAX_TEST_ELEMENTS,
    QTI,
    TEST_TYPE_PREFIX,
    qname,
    tag_name,
)

_BUILT_IN_VARIABLES = frozenset({"completionStatus", "duration", "numAttempts"})
_TEMPLATES_SETTING_SCORE = ("match_correct", "map_response", "map_response_point")
FEEDBACK_TAGS = tuple(qname(t) for t in ("modalFeedback", "feedbackInline", "feedbackBlock"))


@dataclass
class Report:
    file: str
    where: str | None = None
    problems: list[Problem] = field(default_factory=list)

    def add(self, element: etree._Element | None, message: str, severity: Severity = Severity.ERROR) -> None:
        line = element.sourceline if element is not None else None
        self.problems.append(Problem(self.file, line, message, self.where, severity=severity))

    def refused(self, exc: UnsafeXmlError | UnsafePackage) -> None:
        """A member that could not be read, with the line the parser stopped at."""
        if isinstance(exc, UnsafeXmlError):
            self.problems.append(Problem(self.file, exc.line, exc.message, self.where))
        else:
            self.add(None, str(exc))


def _check_item(root: etree._Element, report: Report) -> None:
    declared: dict[str, str] = {}
    for kind in ("responseDeclaration", "outcomeDeclaration", "templateDeclaration"):
        for declaration in root.iterfind(qname(kind)):
            identifier = declaration.get("identifier", "")
            if identifier in declared:
                report.add(declaration, f"identifier {identifier!r} is declared twice")
            declared.setdefault(identifier, kind)
    responses = {i for i, k in declared.items() if k == "responseDeclaration"}
    outcomes = {i for i, k in declared.items() if k == "outcomeDeclaration"}

    def need(element: etree._Element, identifier: str | None, pool: set[str], what: str) -> None:
        if identifier and identifier not in pool and identifier not in _BUILT_IN_VARIABLES:
            report.add(
                element, f"{etree.QName(element).localname} refers to {what} {identifier!r}, which is not declared"
            )

    everything = set(declared)
    for element in root.iter(qname("variable"), qname("default")):
        need(element, element.get("identifier"), everything, "variable")
    for element in root.iter(qname("correct"), qname("mapResponse"), qname("mapResponsePoint")):
        need(element, element.get("identifier"), responses, "response")
    for element in root.iter(qname("setOutcomeValue"), qname("lookupOutcomeValue")):
        need(element, element.get("identifier"), outcomes, "outcome")
    for element in root.iter(*FEEDBACK_TAGS):
        need(element, element.get("outcomeIdentifier"), outcomes, "outcome")
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag.endswith("Interaction"):
            need(element, element.get("responseIdentifier"), responses, "response")

    feedback = {f.get("identifier") for f in root.iter(*FEEDBACK_TAGS)}
    for interaction in root.iter(qname("choiceInteraction")):
        choices: dict[str, etree._Element] = {}
        for choice in interaction.iterfind(qname("simpleChoice")):
            identifier = choice.get("identifier", "")
            if identifier in choices:
                report.add(choice, f"choice identifier {identifier!r} is used twice")
            choices.setdefault(identifier, choice)
            if identifier not in feedback:
                report.add(
                    choice,
                    f"choice {identifier!r} has no feedback bound to it"
                    f" (modalFeedback or feedbackInline with identifier {identifier!r})",
                )
        response_id = interaction.get("responseIdentifier")
        for declaration in root.iterfind(qname("responseDeclaration")):
            if declaration.get("identifier") != response_id:
                continue
            for value in declaration.iterfind(f"{qname('correctResponse')}/{qname('value')}"):
                if (value.text or "").strip() not in choices:
                    report.add(value, f"correctResponse names {value.text!r}, which is not a choice of the interaction")
            for entry in declaration.iterfind(f"{qname('mapping')}/{qname('mapEntry')}"):
                if entry.get("mapKey") not in choices:
                    report.add(
                        entry, f"mapping names {entry.get('mapKey')!r}, which is not a choice of the interaction"
                    )

    processing = root.find(qname("responseProcessing"))
    set_outcomes = {e.get("identifier") for e in root.iter(qname("setOutcomeValue"))}
    if processing is not None and any(t in (processing.get("template") or "") for t in _TEMPLATES_SETTING_SCORE):
        set_outcomes.add("SCORE")
    for element in root.iter(*FEEDBACK_TAGS):
        outcome = element.get("outcomeIdentifier")
        if outcome in outcomes and outcome not in set_outcomes:
            report.add(
                element,
                f"feedback is bound to outcome {outcome!r}, which responseProcessing never sets, so it never shows"
                " (the match_correct template sets only SCORE)",
            )


def _check_references(root: etree._Element, path: str, package: SafeZip, report: Report) -> None:
    """Every image an item or test shows (``img src``, ``object data``) is a file of the package."""
    for element in root.iter(qname("img"), qname("object")):
        href = element.get("src") if element.tag == qname("img") else element.get("data")
        if not href or href.startswith("data:"):
            continue
        target = resolve_href(path, href)
        if target is None:
            report.add(element, f"{href!r} is not a file of the package (remote or leaving it)", Severity.WARNING)
        elif target not in package.infos:
            report.add(element, f"{href!r} refers to {target!r}, which is not in the package")


def _check_test(root: etree._Element, path: str, items: set[str], report: Report) -> None:
    seen: set[str] = set()
    for element in root.iter(qname("testPart"), qname("assessmentSection"), qname("assessmentItemRef")):
        identifier = element.get("identifier", "")
        if identifier in seen:
            report.add(element, f"identifier {identifier!r} is used twice in the test")
        seen.add(identifier)
    for ref in root.iter(qname("assessmentItemRef")):
        target = resolve_href(path, ref.get("href", ""))
        if target is None or target not in items:
            report.add(ref, f"assessmentItemRef href {ref.get('href')!r} does not name an item of the package")
    outcomes = {d.get("identifier") for d in root.iterfind(qname("outcomeDeclaration"))}
    for element in root.iter(qname("setOutcomeValue")):
        if element.get("identifier") not in outcomes:
            report.add(
                element, f"setOutcomeValue refers to outcome {element.get('identifier')!r}, which is not declared"
            )


def _xsd(schema: etree.XMLSchema, root: etree._Element, report: Report, limit: int = 20) -> None:
    if schema.validate(root):
        return
    errors = list(schema.error_log)
    for error in errors[:limit]:
        report.problems.append(Problem(report.file, error.line, f"XSD: {error.message}", report.where))
    if len(errors) > limit:
        report.problems.append(
            Problem(report.file, None, f"XSD: … and {len(errors) - limit} more error(s)", report.where)
        )


def check_package(data: bytes, schemas: Schemas | None, *, name: str = "package") -> list[Problem]:
    """Every check on a QTI 2.1 package: zip safety, XSD (when ``schemas`` is given), and what XSD cannot check —
    identifiers unique, referenced outcomes declared, correctResponse names a choice, every choice has its
    feedback, the manifest and the zip agree, Canvas's QTI 2 detection."""
    try:
        package, manifest = open_package(data, name)
    except ProblemsFound as exc:
        return exc.problems
    place = f"{name}!/"
    manifest_report = Report(place + MANIFEST)
    problems = manifest_report.problems
    if manifest.tag != PACKAGING.cp_tag("manifest"):
        manifest_report.add(manifest, f"the root element is {tag_name(manifest)}, not an IMS CP 1.1 manifest")
        return problems
    if schemas is not None:
        _xsd(schemas.manifest(), manifest, manifest_report)
    if not any(ns and ns.startswith(QTI.rsplit("/", 1)[0] + "/imsqti_v2p") for ns in manifest.nsmap.values()):
        manifest_report.add(
            manifest, f"the manifest does not declare the QTI 2.1 namespace {QTI}; Canvas will not read it as QTI 2"
        )

    resources = PACKAGING.resources(manifest)
    by_id: dict[str, Resource] = {}
    listed: set[str] = {MANIFEST}
    for res in resources:
        if res.identifier in by_id:
            manifest_report.add(res.element, f"resource identifier {res.identifier!r} is used twice")
        by_id[res.identifier] = res
        for f, element in zip(res.files, res.element.iterfind(PACKAGING.cp_tag("file")), strict=True):
            if f is None:
                manifest_report.add(element, f"file href {element.get('href')!r} leaves the package or is not a path")
            elif f not in package.infos:
                manifest_report.add(element, f"the manifest lists {f!r}, which is not in the zip")
            else:
                listed.add(f)
        if res.path is not None and res.path not in res.files:
            manifest_report.add(res.element, f"resource {res.identifier!r} href {res.path!r} is not among its files")
    for res in resources:
        for dependency in res.dependencies:
            if dependency not in by_id:
                manifest_report.add(
                    res.element, f"resource {res.identifier!r} depends on {dependency!r}, which is not a resource"
                )
    for member in package.names:
        if member not in listed:
            problems.append(Problem(place + member, None, "the zip holds this file but the manifest does not list it"))

    items = {r.path for r in resources if r.path and r.kind.startswith(ITEM_TYPE_PREFIX) and r.path in package.infos}
    tests = {r.path for r in resources if r.path and r.kind.startswith(TEST_TYPE_PREFIX) and r.path in package.infos}
    item_identifiers: dict[str, str] = {}
    for path in sorted(items | tests):
        report = Report(place + path)
        try:
            root = package.xml(path, max_elements=MAX_TEST_ELEMENTS if path in tests else MAX_ITEM_ELEMENTS)
        except (UnsafeXmlError, UnsafePackage) as exc:
            report.refused(exc)
            problems.extend(report.problems)
            continue
        if schemas is not None:
            _xsd(schemas.qti(), root, report)
        _check_references(root, path, package, report)
        if root.tag == qname("assessmentItem"):
            identifier = root.get("identifier", "")
            report.where = f"item {identifier!r}"
            if identifier in item_identifiers:
                report.add(root, f"item identifier {identifier!r} is also used by {item_identifiers[identifier]}")
            item_identifiers.setdefault(identifier, path)
            _check_item(root, report)
        elif root.tag == qname("assessmentTest"):
            report.where = f"test {root.get('identifier', '')!r}"
            _check_test(root, path, items, report)
        else:
            report.add(root, f"expected a QTI 2.1 assessmentItem or assessmentTest, found {tag_name(root)}")
        problems.extend(report.problems)
    return problems
