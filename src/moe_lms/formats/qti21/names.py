"""The names of a QTI 2.1 package: namespaces and schema locations, resource types, the paths of items, tests and
the stylesheet inside the package, the limits on what parsing one member may build, and the helpers that make
structural QTI 2.1 elements (:func:`qti_sub`).

This module must not know a question or a bank's text beyond their ids.
"""

from __future__ import annotations

from lxml import etree

from ...locales import locale_info
from ...model import Bank, Quiz
from ...zipsafe import MAX_FILES
from ..qti_item import item_identifier

QTI = "http://www.imsglobal.org/xsd/imsqti_v2p1"
QTI_XSD_URL = "http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1.xsd"
CP = "http://www.imsglobal.org/xsd/imscp_v1p1"
CP_XSD_URL = "http://www.imsglobal.org/xsd/imscp_v1p1.xsd"
LOM = "http://ltsc.ieee.org/xsd/LOM"
LOM_XSD_URL = "http://www.imsglobal.org/xsd/imsmd_loose_v1p3p2.xsd"
QTI_MD = "http://www.imsglobal.org/xsd/imsqti_metadata_v2p1"
QTI_MD_XSD_URL = "http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_metadata_v2p1.xsd"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
SCHEMA_LOCATION = f"{{{XSI}}}schemaLocation"

# Canvas treats a package as QTI 2 only if the manifest root declares a QTI 2 namespace (imsqti_v2p1 …), and
# reads items only from resources whose type starts with imsqti_item_xmlv2p (canvas-lms qti/converter.rb).
MANIFEST_NSMAP = {None: CP, "imsmd": LOM, "imsqti": QTI_MD, "qti": QTI, "xsi": XSI}
ITEM_TYPE = "imsqti_item_xmlv2p1"
TEST_TYPE = "imsqti_test_xmlv2p1"
ITEM_TYPE_PREFIX = "imsqti_item_xmlv2p"
TEST_TYPE_PREFIX = "imsqti_test_xmlv2p"

MANIFEST = "imsmanifest.xml"
STYLESHEET = "style/moe-lms.css"
ITEM_STYLESHEET_HREF = f"../{STYLESHEET}"  # items/ and tests/ are both one folder down
STYLE_ID = "STYLE"
TOOL_NAME = "moe-lms"
LOM_CATALOG = "moe-lms"
TRUE_FALSE_CLASS = "moe-true-false"
# What parsing one member may build, whatever its bytes (a 40 KB package of two million <p/> in one item took
# 4.2 GB and five minutes to import); zipsafe bounds the whole package. A moe-lms item has about 100 elements,
# a rich one a few thousand; a test has one per item.
MAX_ITEM_ELEMENTS = 5_000
MAX_TEST_ELEMENTS = MAX_FILES + 1_000

STYLESHEET_CSS = b"""\
/* moe-lms: text direction by language. QTI 2.1 has no dir attribute (it arrived in 2.2), so every item
   body, feedback and rubric carries a class naming its direction, and xml:lang naming its language. */
.moe-rtl { direction: rtl; unicode-bidi: isolate; text-align: start; }
.moe-ltr { direction: ltr; unicode-bidi: isolate; text-align: start; }
.moe-u { text-decoration: underline; }
.moe-s { text-decoration: line-through; }
/* A phone's width: an image shrinks to fit (width and height keep its shape), code and display math scroll in
   their own box; QTI 2.1's XHTML has no style attribute. */
/* Urdu is read in Nastaliq, which few systems' default fonts have, on lines tall enough for its cascading words
   in a narrow column; Latin words in Latin faces without Arabic script (richtext.URDU_FONTS). Code keeps a code
   block's line height. */
.moe-rtl:lang(ur) { font-family: "Noto Nastaliq Urdu", "Jameel Noori Nastaleeq", "Noto Naskh Arabic",
  "Noto Sans Arabic", Roboto, "Helvetica Neue", "Noto Sans", "Liberation Sans", "DejaVu Sans", serif;
  line-height: 2.7; }
img { max-width: 100%; height: auto; }
pre { overflow-x: auto; line-height: 1.45; }
/* A short isolate (a quantity, a short formula) stays on one line: in right-to-left text its halves would land at
   opposite ends of two lines. */
.moe-nowrap { white-space: nowrap; }
/* Display math scrolls in its own box and fades out at its end, so a formula wider than a phone is seen to go on
   (a phone's scrollbars are hidden until touched). */
math[display="block"] { display: block; overflow-x: auto; max-width: 100%; padding-inline-end: 2em;
  -webkit-mask-image: linear-gradient(to left, transparent, #000 2em);
  mask-image: linear-gradient(to left, transparent, #000 2em); }
"""


def qname(tag: str) -> str:
    return f"{{{QTI}}}{tag}"


def qti_sub(
    parent: etree._Element, tag: str, attrib: dict[str, str] | None = None, text: str | None = None
) -> etree._Element:
    """A structural QTI element on a line of its own, for people reading the XML. Text from Markdown never
    goes through here (see :func:`append_html`), so it is left exactly as rendered."""
    if parent.text is None and not len(parent):
        parent.text = "\n"
    element = etree.SubElement(parent, qname(tag), attrib)
    element.tail = "\n"
    if text is not None:
        element.text = text
    return element


def tag_name(element: etree._Element) -> str:
    return etree.QName(element).text


def item_path(question_id: str, locale: str) -> str:
    return f"items/{item_identifier(question_id, locale)}.xml"


def test_path(bank: Bank, locale: str, quiz: Quiz | None = None) -> str:
    """``tests/<bank>-<locale>.xml``; a quiz's ``tests/<bank>-<quiz>-<locale>.xml``."""
    return f"tests/{bank.id}-{locale}.xml" if quiz is None else f"tests/{bank.id}-{quiz.id}-{locale}.xml"


def direction_of(lang: str) -> str:
    return locale_info(lang.replace("-", "_")).direction
