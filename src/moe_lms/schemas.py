"""The official XML Schemas (QTI 2.1, IMS CP, LOM, Common Cartridge 1.1), found on disk and compiled once.

moe-lms never ships or downloads the XSDs: they are looked up in a folder laid out like ``shared/schemas``
(see its README). When none is found, callers report XSD validation as *not done*, never as passed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

ENV_VAR = "MOE_LMS_SCHEMAS"
QTI_XSD = Path("qti21/imsqti_v2p1.xsd")
CP_XSD = Path("imscp/imscp_v1p1.xsd")
LOM_XSD = Path("imscp/imsmd_loose_v1p3p2.xsd")
QTI_METADATA_XSD = Path("qti21/imsqti_metadata_v2p1.xsd")
REQUIRED = (QTI_XSD, CP_XSD, LOM_XSD, QTI_METADATA_XSD)
# IMS Common Cartridge 1.1 (as Moodle ships them): the manifest wrapper imports every namespace a CC manifest uses.
CC_MANIFEST_XSD = Path("cc11/cc11libxml2validator.xsd")
CC_QTI_XSD = Path("cc11/ccv1p1_qtiasiv1p2p1_v1p0.xsd")
# Where to look when nothing names a folder: beside the current folder (relative, so read at call time), then
# beside the source tree (a development checkout next to shared/).
FALLBACKS: tuple[Path, ...] = (
    Path("..") / "shared" / "schemas",
    Path(__file__).resolve().parents[2].parent / "shared" / "schemas",
)

NS_CP = "http://www.imsglobal.org/xsd/imscp_v1p1"
NS_LOM = "http://ltsc.ieee.org/xsd/LOM"
NS_QTI_METADATA = "http://www.imsglobal.org/xsd/imsqti_metadata_v2p1"


class SchemaError(ValueError):
    """A schema folder was named but is unusable (missing files, or an XSD that does not compile)."""


def _missing(directory: Path) -> list[str]:
    return [str(p) for p in REQUIRED if not (directory / p).is_file()]


def locate(option: Path | None = None) -> Path | None:
    """The schema folder: ``--schemas``, else ``$MOE_LMS_SCHEMAS``, else ``../shared/schemas`` beside the current
    folder or the source tree; ``None`` when there is none. A folder named explicitly must be complete."""
    for named, source in ((option, "--schemas"), (os.environ.get(ENV_VAR) or None, ENV_VAR)):
        if named is not None:
            directory = Path(named)
            missing = _missing(directory)
            if missing:
                raise SchemaError(f"{source} names {directory}, which lacks {', '.join(missing)}")
            return directory
    for candidate in FALLBACKS:
        if candidate.is_dir() and not _missing(candidate):
            return candidate
    return None


@dataclass
class Schemas:
    """Compiled validators for one schema folder; each compiles on first use (QTI takes about half a second)."""

    directory: Path
    _cache: dict[str, etree.XMLSchema] = field(default_factory=dict, repr=False)

    def _compile(self, key: str, document: Callable[[], etree._Element | etree._ElementTree]) -> etree.XMLSchema:
        if key not in self._cache:
            try:
                self._cache[key] = etree.XMLSchema(document())
            except (etree.XMLSchemaParseError, etree.XMLSyntaxError) as exc:
                raise SchemaError(f"the schemas in {self.directory} do not compile: {exc}") from None
        return self._cache[key]

    def qti(self) -> etree.XMLSchema:
        """``assessmentItem`` and ``assessmentTest`` documents (QTI 2.1)."""
        return self._compile("qti", lambda: etree.parse(str(self.directory / QTI_XSD)))

    def manifest(self) -> etree.XMLSchema:
        """``imsmanifest.xml``, with its LOM and QTI metadata checked strictly, not skipped as unknown.

        One wrapper schema imports all three by absolute file URI, so no catalog and no network are needed.
        """
        return self._compile("manifest", self._manifest_wrapper)

    @property
    def has_cc(self) -> bool:
        """Whether the folder has the Common Cartridge 1.1 schemas (older folders lack them)."""
        return all((self.directory / p).is_file() for p in (CC_MANIFEST_XSD, CC_QTI_XSD))

    def cc_manifest(self) -> etree.XMLSchema:
        """``imsmanifest.xml`` of a Common Cartridge 1.1."""
        return self._compile("cc_manifest", lambda: etree.parse(str(self.directory / CC_MANIFEST_XSD)))

    def cc_qti(self) -> etree.XMLSchema:
        """An assessment or question bank of a Common Cartridge 1.1: the CC profile of QTI 1.2.1."""
        return self._compile("cc_qti", lambda: etree.parse(str(self.directory / CC_QTI_XSD)))

    def _manifest_wrapper(self) -> etree._Element:
        imports = ((NS_CP, CP_XSD), (NS_LOM, LOM_XSD), (NS_QTI_METADATA, QTI_METADATA_XSD))
        xs = "http://www.w3.org/2001/XMLSchema"
        wrapper = etree.Element(f"{{{xs}}}schema", nsmap={"xs": xs})
        for namespace, path in imports:
            location = (self.directory / path).resolve().as_uri()
            etree.SubElement(wrapper, f"{{{xs}}}import", namespace=namespace, schemaLocation=location)
        return wrapper


_loaded: dict[Path, Schemas] = {}


def load(directory: Path) -> Schemas:
    """Validators for ``directory``, shared by every caller in this process."""
    key = directory.resolve()
    missing = _missing(key)
    if missing:
        raise SchemaError(f"{directory} lacks {', '.join(missing)}")
    if key not in _loaded:
        _loaded[key] = Schemas(key)
    return _loaded[key]
