"""Reading a Canvas QTI 1.2 package (ours, a Canvas quiz export, text2qti's) into a bank.

Every QTI file the manifest names (``imsqti_xmlv1p2`` resources, and Canvas's ``*.xml.qti`` copies in course
exports) is read; each quiz's ``assessment_meta.xml`` gives its title and description (the bank's intro), as
Canvas's own importer takes them (lib/cc/importer/canvas/quiz_metadata_converter.rb).
"""

from __future__ import annotations

from lxml import etree

from ...model import Bank
from ...problems import Problem, ProblemsFound
from ...xmlsafe import UnsafeXmlError
from ...zipsafe import SafeZip, UnsafePackage, resolve_href
from ..qti12 import html_text
from ..qti12.read import MANIFEST, Found, build_bank, open_package, read_qti_file
from .write import ASSESSMENT_META, CANVAS

QTI_TYPE_PREFIX = "imsqti_xmlv1p2"
CANVAS_QTI_SUFFIX = ".xml.qti"


def _files(manifest: etree._Element) -> tuple[list[str], list[str]]:
    """QTI files and assessment_meta.xml files the manifest names (package paths, never outside it)."""
    qti: list[str] = []
    metas: list[str] = []
    for resource in manifest.iter("{*}resource"):
        kind = resource.get("type", "")
        hrefs = [f.get("href", "") for f in resource.iterfind("{*}file")]
        for href in [resource.get("href", ""), *hrefs]:
            path = resolve_href(MANIFEST, href) if href else None
            if path is None:
                continue
            if path.endswith(ASSESSMENT_META):
                metas.append(path)
            elif (kind.startswith(QTI_TYPE_PREFIX) and path.endswith(".xml")) or path.endswith(CANVAS_QTI_SUFFIX):
                qti.append(path)
    return list(dict.fromkeys(qti)), list(dict.fromkeys(metas))


def _apply_meta(package: SafeZip, path: str, name: str, found: Found) -> None:
    """Title and description of the quiz whose folder holds this assessment_meta.xml."""
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    quiz = next((a for a in found.assessments if a.ident == folder), None)
    if quiz is None:
        return
    try:
        root = package.xml(path)
    except (UnsafePackage, UnsafeXmlError) as exc:
        found.problems.append(Problem(f"{name}!/{path}", getattr(exc, "line", None), str(exc)))
        return
    title = root.findtext(f"{{{CANVAS}}}title")
    if title and title.strip():
        quiz.title = title.strip()
    description = root.findtext(f"{{{CANVAS}}}description")
    if description and description.strip() and quiz.intro is None:
        quiz.intro = html_text(description, None, inline=False, inherited=quiz_lang(found, quiz.locale))


def quiz_lang(found: Found, locale: str | None) -> str | None:
    return locale.replace("_", "-") if locale else None


def read_package(data: bytes, *, name: str = "quiz.zip") -> tuple[Bank, list[Problem]]:
    """A bank from a Canvas QTI package; raises ProblemsFound with every error, else returns it with warnings."""
    package, manifest = open_package(data, name)
    if manifest is None:
        raise ProblemsFound([Problem(name, None, f"no {MANIFEST} at the root of the package")])
    if etree.QName(manifest).localname != "manifest":
        message = f"the root element is {etree.QName(manifest).text}, not an IMS content package manifest"
        raise ProblemsFound([Problem(f"{name}!/{MANIFEST}", manifest.sourceline, message)])
    found = Found()
    identifier = manifest.get("identifier", "")
    if identifier.startswith("MANIFEST-"):  # (ours: the bank's id, also when the package is one of its quizzes)
        found.bank_id = identifier.removeprefix("MANIFEST-")
    qti, metas = _files(manifest)
    for path in qti:
        if path not in package.infos:
            message = f"the manifest names {path!r}, which is not in the zip"
            found.problems.append(Problem(f"{name}!/{MANIFEST}", None, message))
            continue
        read_qti_file(package, path, name, "en", found)
    for path in metas:
        if path in package.infos:
            _apply_meta(package, path, name, found)
    return build_bank(found, name, package)


def load(data: bytes, *, name: str = "quiz.zip") -> Bank:
    return read_package(data, name=name)[0]
