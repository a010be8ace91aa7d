"""Checking a QTI 3.0 content package before a platform sees it.

XSD: ``imsmanifest.xml`` against the QTI 3 content-package schema, items and tests against the QTI 3 ASI schema
(the SBAC profile stands in for the full one: shared/schemas/qti3/README.md). Then what XSD cannot say: files the
manifest names are in the zip and the other way round, dependencies resolve, identifiers are unique, and per
choice item: choice identifiers unique, the correct response names choices, SCORE is set by the item's own
response processing (a template by URL would have to be fetched), outcomes it sets are declared, and each choice
has its feedback; tests' item references resolve.
"""

from __future__ import annotations

from lxml import etree

from ...problems import Problem, ProblemsFound, Severity
from ...schemas import Schemas
from ...xmlsafe import UnsafeXmlError
from ...zipsafe import SafeZip, UnsafePackage, resolve_href
from ..ims.cp import open_package
from .read import MAX_ITEM_ELEMENTS, local, q
from .write import CP, ITEM_TYPE, MANIFEST, TEST_TYPE

XSD_ERRORS_SHOWN = 20
_BUILT_IN = frozenset({"completionStatus", "duration", "numAttempts"})


def holds_qti3(data: bytes) -> bool:
    """Whether a zip is a QTI 3.0 package (its manifest in the QTI 3 CP namespace)."""
    try:
        manifest = SafeZip(data).xml(MANIFEST)
    except (UnsafePackage, UnsafeXmlError, KeyError):
        return False
    return manifest.tag == f"{{{CP}}}manifest"


def _xsd(schema: etree.XMLSchema, root: etree._Element, file: str, problems: list[Problem]) -> None:
    if schema.validate(root):
        return
    errors = list(schema.error_log)
    for error in errors[:XSD_ERRORS_SHOWN]:
        problems.append(Problem(file, error.line, f"XSD: {error.message}"))
    if len(errors) > XSD_ERRORS_SHOWN:
        problems.append(Problem(file, None, f"XSD: … and {len(errors) - XSD_ERRORS_SHOWN} more error(s)"))


def check_item(root: etree._Element, file: str, problems: list[Problem]) -> None:
    where = f"item {root.get('identifier', '')!r}"

    def add(element: etree._Element, message: str, severity: Severity = Severity.ERROR) -> None:
        problems.append(Problem(file, element.sourceline, message, where, severity=severity))

    if root.tag != q("qti-assessment-item"):
        add(root, f"expected a qti-assessment-item, found {etree.QName(root).text}")
        return
    declared = {
        d.get("identifier", "") for d in root if local(d) in ("qti-response-declaration", "qti-outcome-declaration")
    }
    processing = root.find(q("qti-response-processing"))
    if processing is None:
        add(root, "no qti-response-processing: the item is never scored")
    elif processing.get("template") or processing.get("template-location"):
        add(
            processing,
            "response processing by template: a player must fetch it; moe-lms writes it inline",
            Severity.WARNING,
        )
    else:
        set_ids = {s.get("identifier", "") for s in processing.iter(q("qti-set-outcome-value"))}
        if "SCORE" not in set_ids:
            add(processing, "the response processing never sets SCORE")
        for identifier in sorted(set_ids - declared):
            add(processing, f"the response processing sets {identifier!r}, which is not declared")
        for variable in processing.iter(q("qti-variable")):
            if variable.get("identifier", "") not in declared | _BUILT_IN:
                add(variable, f"qti-variable names {variable.get('identifier')!r}, which is not declared")
    for interaction in root.iter(q("qti-choice-interaction")):
        choices: dict[str, etree._Element] = {}
        for choice in interaction.iter(q("qti-simple-choice")):
            identifier = choice.get("identifier", "")
            if identifier in choices:
                add(choice, f"choice identifier {identifier!r} is used twice")
            choices.setdefault(identifier, choice)
        response_id = interaction.get("response-identifier", "")
        response = next(
            (d for d in root.iterfind(q("qti-response-declaration")) if d.get("identifier") == response_id), None
        )
        if response is None:
            add(interaction, f"the interaction's response {response_id!r} is not declared")
            continue
        values = list(response.iterfind(f"{q('qti-correct-response')}/{q('qti-value')}"))
        if not values:
            add(response, "no qti-correct-response: the item has no answer key")
        for value in values:
            if (value.text or "").strip() not in choices:
                add(value, f"the correct response names {value.text!r}, which is not a choice of the item")
        shown = [*root.iterfind(q("qti-modal-feedback")), *root.iter(q("qti-feedback-block"))]
        feedback = {m.get("identifier", "") for m in shown if m.get("show-hide", "show") == "show"}
        for identifier, choice in choices.items():
            if identifier not in feedback:
                add(choice, f"choice {identifier!r} shows no feedback of its own", Severity.WARNING)


def check_package(data: bytes, schemas: Schemas | None, *, name: str = "package") -> list[Problem]:
    """Every check on a QTI 3 package; XSD validation when ``schemas`` is given (and has the QTI 3 schemas)."""
    try:
        package, manifest = open_package(data, name)
    except ProblemsFound as exc:
        return exc.problems
    place = f"{name}!/"
    problems: list[Problem] = []
    if manifest.tag != f"{{{CP}}}manifest":
        return [Problem(place + MANIFEST, manifest.sourceline, f"not a QTI 3 package manifest ({CP})")]
    if schemas is not None:
        _xsd(schemas.qti3_manifest(), manifest, place + MANIFEST, problems)
    listed = {MANIFEST}
    identifiers: set[str] = set()
    documents: list[tuple[str, str]] = []
    for resource in manifest.iter(f"{{{CP}}}resource"):
        identifier = resource.get("identifier", "")
        if identifier in identifiers:
            problems.append(
                Problem(place + MANIFEST, resource.sourceline, f"resource identifier {identifier!r} is used twice")
            )
        identifiers.add(identifier)
        for entry in resource.iterfind(f"{{{CP}}}file"):
            path = resolve_href(MANIFEST, entry.get("href", ""))
            if path is None or path not in package.infos:
                problems.append(
                    Problem(
                        place + MANIFEST,
                        entry.sourceline,
                        f"the manifest lists {entry.get('href')!r}, which is not in the zip",
                    )
                )
                continue
            listed.add(path)
            if resource.get("type") in (ITEM_TYPE, TEST_TYPE) and path.endswith(".xml"):
                documents.append((resource.get("type", ""), path))
    for dependency in manifest.iter(f"{{{CP}}}dependency"):
        if dependency.get("identifierref") not in identifiers:
            problems.append(
                Problem(
                    place + MANIFEST,
                    dependency.sourceline,
                    f"{dependency.get('identifierref')!r} names no resource of the manifest",
                )
            )
    for member in package.names:
        if member not in listed:
            problems.append(
                Problem(
                    place + member,
                    None,
                    "the zip holds this file but the manifest does not list it",
                    severity=Severity.WARNING,
                )
            )
    if not any(kind == ITEM_TYPE for kind, _ in documents):
        problems.append(Problem(place + MANIFEST, None, "the manifest names no QTI 3 item"))
    items = {path for kind, path in documents if kind == ITEM_TYPE}
    for kind, path in documents:
        file = place + path
        try:
            root = package.xml(path, max_elements=MAX_ITEM_ELEMENTS if kind == ITEM_TYPE else 1_000_000)
        except (UnsafePackage, UnsafeXmlError) as exc:
            problems.append(Problem(file, getattr(exc, "line", None), str(exc)))
            continue
        if schemas is not None:
            _xsd(schemas.qti3(), root, file, problems)
        if kind == ITEM_TYPE:
            check_item(root, file, problems)
        else:
            for reference in root.iter(q("qti-assessment-item-ref")):
                target = resolve_href(path, reference.get("href", ""))
                if target not in items:
                    problems.append(
                        Problem(
                            file,
                            reference.sourceline,
                            f"the test refers to {reference.get('href')!r}, which is no item of the package",
                        )
                    )
    return problems
