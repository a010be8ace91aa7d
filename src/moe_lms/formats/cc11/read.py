"""Reading an IMS Common Cartridge (ours, Canvas's course exports, others') into a bank.

The question bank and the assessments are read (``imsqti_xmlv1p2/imscc_xmlv1p*/assessment`` and ``question-bank``
resources); Canvas's course exports add a Canvas-flavoured copy of each quiz (``non_cc_assessments/*.xml.qti``),
which is read too: items met twice (same ident) are kept once. Bank id, titles per language, source language and
tags come from the manifest's LOM when moe-lms wrote it.
"""

from __future__ import annotations

from lxml import etree

from ...locales import from_language_tag
from ...model import Bank
from ...problems import Problem, ProblemsFound
from ...zipsafe import resolve_href
from ..imported import slug
from ..qti12.read import MANIFEST, Found, build_bank, open_package, read_qti_file
from .write import CP, LOM_CATALOG, LOM_MANIFEST

QTI_TYPE_PREFIX = "imsqti_xmlv1p2"
CANVAS_QTI_SUFFIX = ".xml.qti"


def _manifest_metadata(manifest: etree._Element, found: Found) -> None:
    general = manifest.find(f"{{{CP}}}metadata/{{{LOM_MANIFEST}}}lom/{{{LOM_MANIFEST}}}general")
    if general is None:
        return
    lom = f"{{{LOM_MANIFEST}}}"
    for identifier in general.iterfind(f"{lom}identifier"):
        if identifier.findtext(f"{lom}catalog") == LOM_CATALOG:
            found.bank_id = identifier.findtext(f"{lom}entry")
    for string in general.iterfind(f"{lom}title/{lom}string"):
        found.titles.append((string.get("language") or "", string.text or ""))
    found.language = general.findtext(f"{lom}language")
    words = (k.findtext(f"{lom}string") or "" for k in general.iterfind(f"{lom}keyword"))
    found.tags = tuple(dict.fromkeys(slug(w) for w in words if w.strip()))


def qti_files(manifest: etree._Element) -> list[str]:
    """The QTI files a cartridge's manifest names, in manifest order (package paths, never outside it)."""
    paths: list[str] = []
    for resource in manifest.iterfind(f"{{{CP}}}resources/{{{CP}}}resource"):
        kind = resource.get("type", "")
        hrefs = [f.get("href", "") for f in resource.iterfind(f"{{{CP}}}file")]
        if resource.get("href"):
            hrefs.insert(0, resource.get("href", ""))
        for href in hrefs:
            path = resolve_href(MANIFEST, href)
            if path is None:
                continue
            if (kind.startswith(QTI_TYPE_PREFIX) and path.endswith(".xml")) or path.endswith(CANVAS_QTI_SUFFIX):
                paths.append(path)
    # Canvas course exports carry each quiz twice: as CC (no points) and as Canvas's own QTI (``*.xml.qti``, with
    # points and every setting; lib/cc/qti/qti_generator.rb generate_quiz). The Canvas copy is read first and kept.
    return sorted(dict.fromkeys(paths), key=lambda path: not path.endswith(CANVAS_QTI_SUFFIX))


def read_package(data: bytes, *, name: str = "cartridge.imscc") -> tuple[Bank, list[Problem]]:
    """A bank from a Common Cartridge; raises ProblemsFound with every error, else returns it with warnings."""
    package, manifest = open_package(data, name)
    if manifest is None:
        raise ProblemsFound([Problem(name, None, f"no {MANIFEST} at the root of the cartridge")])
    if manifest.tag != f"{{{CP}}}manifest":
        message = f"the root element is {etree.QName(manifest).text}, not a Common Cartridge 1.1 manifest ({CP})"
        raise ProblemsFound([Problem(f"{name}!/{MANIFEST}", manifest.sourceline, message)])
    found = Found()
    _manifest_metadata(manifest, found)
    default = (from_language_tag(found.language) if found.language else None) or "en"
    paths = qti_files(manifest)
    for path in paths:
        if path not in package.infos:
            found.problems.append(
                Problem(f"{name}!/{MANIFEST}", None, f"the manifest names {path!r}, which is not in the zip")
            )
            continue
        read_qti_file(package, path, name, default, found)
    return build_bank(found, name, package)


def load(data: bytes, *, name: str = "cartridge.imscc") -> Bank:
    return read_package(data, name=name)[0]
