"""The official XML Schemas (QTI 2.1, IMS CP, LOM, Common Cartridge 1.1), found on disk and compiled once.

moe-lms never ships the XSDs (they are IMS's and W3C's files, not ours): they are looked up in a folder laid out
like ``shared/schemas`` (see its README), or in the user cache that ``moe-lms schemas fetch`` fills from their
published copies, each checked against the SHA-256 pinned in :data:`FILES`. When none is found, callers report XSD
validation as *not done*, never as passed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lxml import etree

from .problems import MoeLmsError

ENV_VAR = "MOE_LMS_SCHEMAS"
# Where ``schemas fetch`` downloads from: the IMS and W3C schemas as oat-sa/qti-sdk publishes them, with their
# imports made relative so the folder validates offline (shared/schemas/README.md), at a pinned commit.
PUBLISHED_URL = (
    "https://raw.githubusercontent.com/oat-sa/qti-sdk/634a9b89f3c58e37722be0906898d3da2459a2df/"
    "src/qtism/data/storage/xml/schemes/"
)
# The IMS Common Cartridge 1.1 schemas as Moodle 4.5 ships them for its own cartridge importer
# (backup/cc/schemas11/ in moodle/moodle; shared/schemas/cc11/README.md), at the release tag.
CC_PUBLISHED_URL = "https://raw.githubusercontent.com/moodle/moodle/v4.5.0/backup/cc/schemas11/"


@dataclass(frozen=True)
class SchemaFile:
    path: str  # in a folder laid out like shared/schemas
    sha256: str  # of the bytes validate was tested with (shared/schemas)

    @property
    def published(self) -> str:
        """Where the file is under PUBLISHED_URL (qti-sdk keeps QTI in qtiv2p1/ and IMS CP at the top), or, for
        the Common Cartridge files, ``cc11/<name>`` (under CC_PUBLISHED_URL: ``<name>``)."""
        if self.path.startswith("qti21/"):
            return "qtiv2p1/" + self.path.removeprefix("qti21/")
        if self.path.startswith("cc11/"):
            return self.path
        return self.path.removeprefix("imscp/")

    def url(self, mirror: str | None = None) -> str:
        """The file's published URL, or its place in a mirror laid out as :attr:`published` says."""
        if mirror is not None:
            return mirror + self.published
        if self.path.startswith("cc11/"):
            return CC_PUBLISHED_URL + self.path.removeprefix("cc11/")
        return PUBLISHED_URL + self.published


# Every file validation loads, as ``sha256sum`` prints them (computed from shared/schemas): the QTI 2.1 item
# and metadata schemas and what they import (APIP, MathML 2, XInclude, xml.xsd), IMS Content Packaging 1.1 and
# the IMS metadata and LOM it carries, and the Common Cartridge 1.1 folder (cartridges and Canvas QTI packages).
_PINS = """
4a22e1b2088631e9a664705b7ff3ce34c645eb9c90314171b021141357eb2c2d  cc11/cc11libxml2validator.xsd
d9129dad9f48168e6be1d279aeac59b6812c9c3cb71134b9a847fee89891c7c4  cc11/ccv1p1_imsccauth_v1p1.xsd
81fccedfd241e0eb75aa856d817d2f260cc0a23bac36562f14f5cdc6ed0b4d17  cc11/ccv1p1_imscp_v1p2_v1p0.xsd
189edff3b30899044735be7386d7a4d85190f244d31f66aeea0857b165e6b5b7  cc11/ccv1p1_imsdt_v1p1.xsd
50bb2dd86577030d018bfd9e88d6a02dcfe82acc09434b36306bcef054689244  cc11/ccv1p1_imswl_v1p1.xsd
7618b1ca1ad3b5858ac69835a66b4307396c121e8ab9e87dd533479f682bea0f  cc11/ccv1p1_lommanifest_v1p0.xsd
7d9250e5e6fc8e9bbb174005413f403c906d61aa3cf8bba65b80dc3450797ccd  cc11/ccv1p1_lomresource_v1p0.xsd
052384f220a2122910c7fa3268e3ffee45a71bb4012d16018fdabf7b0bc2f938  cc11/ccv1p1_qtiasiv1p2p1_v1p0.xsd
f77a7cf0f590b921d4a04c1241c16f16da53943896cb7d6255a3eac34a962b7d  cc11/imsbasiclti_v1p0p1.xsd
99cd398e610ae5f0530a87364dcc98295b1919b0c2173deae7d27253b12dcf69  cc11/imslticc_v1p0p1.xsd
d0072e310861eacb2799fd7d432c623399a8facad9404d768431f4973e0e2931  cc11/imslticm_v1p0.xsd
bf08080f5850ff40ae5bf2860b74e293783aeebb7a0b4e32cef47704744d0109  cc11/imslticp_v1p0.xsd
ed597c15005f3635f9668ec52e15ebfc4f422d905e8c16368af7b34f515b2027  cc11/xml.xsd
c88ff7f5a3231f8c13994a20ffc8388bb1ece4a9e2671151cffe6bb262245055  apipv1p0/apipv1p0_qtiextv2p1_v1p0.xsd
9a0db675116a23323c69ad60f425b71dea43ba271a4292ab255c9649611afa21  imscp/imscp_v1p1.xsd
1ae9e77aba63b6789574631213c97fd00a3d43aeffb58050ac7befb665fba9f6  imscp/imsmd_loose_v1p3p2.xsd
172d5b0ea50304b7226c18a4ab865f01881c6c2f24e576e4fc7a6bc11181572b  imscp/imsmd_v1p2p4.xsd
2b1aa1043b7872b59ad17272fbb9efaa812efb230fe3fb95ecbc03e037902823  imscp/w3/xml.xsd
3a7cb71d7c3ab96a44c974dc75282a63374f3bfe25e24304d9b16c6124eedcc0  qti21/imsqti_metadata_v2p1.xsd
6e55a930a69e7fe1c928e042a42cf56da46092e20be82ad08bd8acacd0cc1ac3  qti21/imsqti_v2p1.xsd
00b4e96bfc51cfa38763511edea6c8c513cc0cdf8439515b731921d7f48a9733  w3/XInclude.xsd
4d5de0a3e1be3b0848f7b9cde6474dde4e91c19f691d3c3b989fff37e5544c12  w3/mathml2/common/common-attribs.xsd
8b5c502d74c3df7f4008dea98d4e876841721a69e492e0a2909ccc324c0c3739  w3/mathml2/common/math.xsd
08c9410c87a16bb9e3623f74d818277ec92308c85e61fda1b3857c778b787ecc  w3/mathml2/common/xlink-href.xsd
b203e803db7010550cd76474f81c4a9316b7588d7567263921ce5e206b334541  w3/mathml2/content/arith.xsd
839003dc4f19234aae570f351bd5217acdbf30ac2f05a55db32c86208a61be66  w3/mathml2/content/calculus.xsd
1d1698b91f2d425d522dbdd06b0735a81924e0fda8180902ee01ba5950fe3f8d  w3/mathml2/content/common-attrib.xsd
2c9535bd0b0e4f4221dbc64e00fcc6df760711a8fbef405d308a8f839126ba16  w3/mathml2/content/constants.xsd
ea5143cc2e219692fce6536721d565e2e22e1c24cb86d8824feb6fe8a3221f59  w3/mathml2/content/constructs.xsd
f21e5cf7bf5a4233f6207e8b7d600da428a4acb96c10c42122c8930e38bc2ea3  w3/mathml2/content/elementary-functions.xsd
1fab2b4008fd9ec111620649aea7155608a87566a7e82ce83982714f1eaae8c7  w3/mathml2/content/functions.xsd
944dc4cbfd7a2de204e994e06dcdf3e078a5dd92d11dc941814b10484ab675e1  w3/mathml2/content/linear-algebra.xsd
704c70b9fcdb3ed2cdf8e42da7b759c1d88882bf170cda08449590da7fdd0184  w3/mathml2/content/logic.xsd
32c1d030ff75ea3a01731ce5069ad834d9b637a5fdbcab69a7e95af648c85a9e  w3/mathml2/content/relations.xsd
6e4f7c1aa901f31f09039cc9a8bee0de04dfbb0e6769c696ed4c4ee5605edb25  w3/mathml2/content/semantics.xsd
2bc963ad8455308046c8c5ff4201a8f730a7c3f50345d3083948cd16b8715d0c  w3/mathml2/content/sets.xsd
e48517a6b60bd07a9699a62f47dc08eea1ef2573da3ef5dbabb5f368d5c5d2a1  w3/mathml2/content/statistics.xsd
33a36e2df4af73a6401359efa4f325894217f0448cf91f78f5fb7991798d145d  w3/mathml2/content/tokens.xsd
ca678f3018432009f111c78df09be7627652d5f89b40f5095ad9ee710436866b  w3/mathml2/content/vector-calculus.xsd
ec7caf6358de24b2011aa7144a1ab4e6e9d00a25ed163a13a03c6dfbb6b80f3e  w3/mathml2/mathml2.xsd
9e1dfc3d0f9368f2247ef2346cd060e897954da86408a0aa780da302cacec54e  w3/mathml2/presentation/action.xsd
ab3cdba7c60668ed538f5091d66b29ffbceb61c47611f8bdcc8b56a2bfbe56b3  w3/mathml2/presentation/characters.xsd
1620530c7d2c69c02b03d2caaad55abe70f9e9cc96a735871a81e5aaca799c3d  w3/mathml2/presentation/common-attribs.xsd
35038ae8d324d7fb012925a8bc9717dd3a9d62c90d93bcaf36f31ee1c917a719  w3/mathml2/presentation/common-types.xsd
f90f2bc05f50d295c82a2b08dc85d382c42a88a5a61ba9c14613f952fb0de200  w3/mathml2/presentation/error.xsd
533693d7b1758904f88518bbf612ad165dd8a9b39eced28c74f71dd476f62bcf  w3/mathml2/presentation/layout.xsd
b4a4b3a1671393b16085898a10c81cdfc853cb7ba6ad465f9f7a537780fd4d28  w3/mathml2/presentation/scripts.xsd
3fa2b55a75e9b2721dd25ae372e1cd0027b15f029d76dc080feca3b7a3ad6aec  w3/mathml2/presentation/space.xsd
76ad5dc2f60304b5d80e7a2028bede255e5cf3b84f01095dd39e897d26276e7a  w3/mathml2/presentation/style.xsd
c2d3d5c92e4e2ed9af7c4ed29d86a83c4c01f1c6d5ec167483b5f4d5f8aa7982  w3/mathml2/presentation/table.xsd
e61ddae3b2e16d7fcb5906798ed71891782fe176b284b3d0f2a5cc9db0829ca3  w3/mathml2/presentation/tokens.xsd
2b1aa1043b7872b59ad17272fbb9efaa812efb230fe3fb95ecbc03e037902823  w3/xml.xsd
"""
FILES: tuple[SchemaFile, ...] = tuple(
    SchemaFile(path, sha256) for sha256, path in (line.split("  ") for line in _PINS.strip().splitlines())
)


def cache_dir() -> Path:
    """The user cache ``schemas fetch`` fills: ``$XDG_CACHE_HOME/moe-lms/schemas`` (``~/.cache/…``) on Linux,
    the platform's cache folder elsewhere."""
    from platformdirs import user_cache_path

    return user_cache_path("moe-lms", appauthor=False) / "schemas"


QTI_XSD = Path("qti21/imsqti_v2p1.xsd")
CP_XSD = Path("imscp/imscp_v1p1.xsd")
LOM_XSD = Path("imscp/imsmd_loose_v1p3p2.xsd")
QTI_METADATA_XSD = Path("qti21/imsqti_metadata_v2p1.xsd")
REQUIRED = (QTI_XSD, CP_XSD, LOM_XSD, QTI_METADATA_XSD)
# IMS Common Cartridge 1.1 (as Moodle ships them): the manifest wrapper imports every namespace a CC manifest uses.
CC_MANIFEST_XSD = Path("cc11/cc11libxml2validator.xsd")
CC_QTI_XSD = Path("cc11/ccv1p1_qtiasiv1p2p1_v1p0.xsd")
# QTI 3.0 (shared/schemas/qti3/README.md): the SBAC profile of the ASI schema stands in for the full one.
QTI3_XSD = Path("qti3/sbac-official-imports/imsqti_asiv3p0_sbacv1p0_v1p0.xsd")
QTI3_CP_XSD = Path("qti3/qtiv3p0/imsqtiv3p0_imscpv1p2_v1p0.xsd")
_OPTIONAL = (CC_MANIFEST_XSD, CC_QTI_XSD, QTI3_XSD, QTI3_CP_XSD)  # folders older schema folders lack
# Where to look when nothing names a folder: beside the current folder (relative, so read at call time), then
# beside the source tree (a development checkout next to shared/).
FALLBACKS: tuple[Path, ...] = (
    Path("..") / "shared" / "schemas",
    Path(__file__).resolve().parents[2].parent / "shared" / "schemas",
)

NS_CP = "http://www.imsglobal.org/xsd/imscp_v1p1"
NS_LOM = "http://ltsc.ieee.org/xsd/LOM"
NS_QTI_METADATA = "http://www.imsglobal.org/xsd/imsqti_metadata_v2p1"


class SchemaError(MoeLmsError, ValueError):
    """A schema folder was named but is unusable (missing files, or an XSD that does not compile): the folder
    the user gave is wrong, a usage error."""

    exit_code = 2


def _missing(directory: Path) -> list[str]:
    return [str(p) for p in REQUIRED if not (directory / p).is_file()]


def locate(option: Path | None = None) -> Path | None:
    """The schema folder: ``--schemas``, else ``$MOE_LMS_SCHEMAS``, else ``../shared/schemas`` beside the current
    folder or the source tree, else the user cache (``moe-lms schemas fetch``); ``None`` when there is none. A
    folder named explicitly must be complete."""
    for named, source in ((option, "--schemas"), (os.environ.get(ENV_VAR) or None, ENV_VAR)):
        if named is not None:
            directory = Path(named)
            missing = _missing(directory)
            if missing:
                raise SchemaError(f"{source} names {directory}, which lacks {', '.join(missing)}")
            return directory
    for candidate in (*FALLBACKS, cache_dir()):
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

    def has(self, folder: str) -> bool:
        """Whether the folder has every schema this moe-lms uses from ``folder`` (``qti3``, ``cc11``: older
        folders lack them); validate asks it for the folder a format's ``check_schemas`` names."""
        wanted = [p for p in (*REQUIRED, *_OPTIONAL) if p.parts[0] == folder]
        return bool(wanted) and all((self.directory / p).is_file() for p in wanted)

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

    @property
    def has_qti3(self) -> bool:
        """Whether the folder has the QTI 3.0 schemas."""
        return all((self.directory / p).is_file() for p in (QTI3_XSD, QTI3_CP_XSD))

    def qti3(self) -> etree.XMLSchema:
        """``qti-assessment-item`` and ``qti-assessment-test`` documents (QTI 3.0; about 10 s to compile)."""
        return self._compile("qti3", lambda: etree.parse(str(self.directory / QTI3_XSD), _offline_parser()))

    def qti3_manifest(self) -> etree.XMLSchema:
        """``imsmanifest.xml`` of a QTI 3.0 content package."""
        return self._compile("qti3_manifest", lambda: etree.parse(str(self.directory / QTI3_CP_XSD), _offline_parser()))

    def _manifest_wrapper(self) -> etree._Element:
        imports = ((NS_CP, CP_XSD), (NS_LOM, LOM_XSD), (NS_QTI_METADATA, QTI_METADATA_XSD))
        xs = "http://www.w3.org/2001/XMLSchema"
        wrapper = etree.Element(f"{{{xs}}}schema", nsmap={"xs": xs})
        for namespace, path in imports:
            location = (self.directory / path).resolve().as_uri()
            etree.SubElement(wrapper, f"{{{xs}}}import", namespace=namespace, schemaLocation=location)
        return wrapper


class _Offline(etree.Resolver):
    """Refuses every schema import by URL: the QTI 3 files import each other by relative path only."""

    def resolve(self, system_url: str | None, public_id: str | None, context: Any) -> None:
        if system_url and system_url.startswith(("http:", "https:", "ftp:")):
            raise SchemaError(f"a schema imports {system_url}, which is not in the schema folder")
        return None


def _offline_parser() -> etree.XMLParser:
    parser = etree.XMLParser(no_network=True)
    parser.resolvers.add(_Offline())
    return parser


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
