"""IMS Content Packaging manifests (``imsmanifest.xml``) and their LOM metadata, both directions, for every IMS
format: QTI 2.1 and QTI 3 packages, Common Cartridge. Each passes its own namespaces (the versions differ there and
nowhere else in what is shared here).

This module must not know what a resource holds: items, tests and files are the formats'.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lxml import etree

from ...problems import Problem, ProblemsFound
from ...xmlsafe import UnsafeXmlError
from ...zipsafe import SafeZip, UnsafePackage, resolve_href

MANIFEST = "imsmanifest.xml"


@dataclass(frozen=True)
class Packaging:
    """One package version's vocabulary: ``cp`` the namespace of its manifest elements, ``lom`` its metadata's."""

    cp: str
    lom: str

    def cp_tag(self, tag: str) -> str:
        return f"{{{self.cp}}}{tag}"

    def lom_tag(self, tag: str) -> str:
        return f"{{{self.lom}}}{tag}"

    def sub(
        self, parent: etree._Element, tag: str, attrib: dict[str, str] | None = None, text: str | None = None
    ) -> etree._Element:
        """A manifest (CP) element under ``parent``; text ``""`` keeps its end tag."""
        element = etree.SubElement(parent, f"{{{self.cp}}}{tag}", attrib)
        if text is not None:
            element.text = text
        return element

    def lom_sub(self, parent: etree._Element, tag: str, text: str | None = None, **attrib: str) -> etree._Element:
        """A LOM element under ``parent``; text ``""`` keeps its end tag."""
        element = etree.SubElement(parent, f"{{{self.lom}}}{tag}", attrib)
        if text is not None:
            element.text = text
        return element

    def lom_general(
        self, parent: etree._Element, catalog: str, entry: str, titles: Iterable[tuple[str, str]]
    ) -> etree._Element:
        """``lom/general`` under ``parent`` with the identifier (``catalog``, ``entry``) and a title string per
        (language, text); returned for the caller to add languages and keywords, which the versions place
        differently."""
        general = self.lom_sub(self.lom_sub(parent, "lom"), "general")
        identifier = self.lom_sub(general, "identifier")
        self.lom_sub(identifier, "catalog", catalog)
        self.lom_sub(identifier, "entry", entry)
        title = self.lom_sub(general, "title")
        for language, text in titles:
            self.lom_sub(title, "string", text, language=language)
        return general

    def lom_string(self, parent: etree._Element, tag: str, language: str, text: str) -> None:
        """A LOM ``tag`` holding one ``string`` in ``language`` (a keyword)."""
        self.lom_sub(self.lom_sub(parent, tag), "string", text, language=language)

    def metadata_general(self, manifest: etree._Element) -> etree._Element | None:
        """The manifest's own ``metadata/lom/general`` (a reader's view of :meth:`lom_general`)."""
        return manifest.find(f"{self.cp_tag('metadata')}/{self.lom_tag('lom')}/{self.lom_tag('general')}")

    def resources(self, manifest: etree._Element) -> list[Resource]:
        """Every ``resources/resource`` of a manifest, in order, with its main file, files and dependencies."""
        found = []
        for res in manifest.iterfind(f"{self.cp_tag('resources')}/{self.cp_tag('resource')}"):
            files = tuple(resolve_href(MANIFEST, f.get("href", "")) for f in res.iterfind(self.cp_tag("file")))
            href = res.get("href")
            path = resolve_href(MANIFEST, href) if href else (files[0] if files else None)
            deps = tuple(d.get("identifierref", "") for d in res.iterfind(self.cp_tag("dependency")))
            found.append(Resource(res.get("identifier", ""), res.get("type", ""), path, files, deps, res))
        return found


@dataclass(frozen=True)
class Resource:
    """A manifest resource as a reader sees it: ``path`` is its main file (its href, else its first file)."""

    identifier: str
    kind: str
    path: str | None
    files: tuple[str | None, ...]
    dependencies: tuple[str, ...]
    element: etree._Element


def open_package(data: bytes, name: str) -> tuple[SafeZip, etree._Element]:
    """The package's zip and its parsed manifest; ProblemsFound with one problem for an unsafe zip or a missing
    manifest (naming ``name``) or an unsafe manifest (naming it, with its line). What the manifest's root must be
    is the caller's to check."""
    try:
        package = SafeZip(data)
    except UnsafePackage as exc:
        raise ProblemsFound([Problem(name, None, str(exc))]) from None
    if MANIFEST not in package.infos:
        raise ProblemsFound([Problem(name, None, f"no {MANIFEST} at the root of the package")])
    try:
        return package, package.xml(MANIFEST)
    except (UnsafePackage, UnsafeXmlError) as exc:
        raise ProblemsFound([Problem(f"{name}!/{MANIFEST}", getattr(exc, "line", None), str(exc))]) from None
