"""Outside XML is parsed with entities, DTDs and network off."""

import pytest

from moe_lms.xmlsafe import UnsafeXmlError, parse_untrusted

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<quiz>&lol2;</quiz>"""

EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE quiz [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<quiz>&secret;</quiz>"""


def test_well_formed_xml_parses() -> None:
    assert parse_untrusted(b"<quiz><question/></quiz>").tag == "quiz"


@pytest.mark.parametrize("document", [BILLION_LAUGHS, EXTERNAL_ENTITY], ids=["billion-laughs", "external-entity"])
def test_documents_with_entities_are_refused(document: bytes) -> None:
    with pytest.raises(UnsafeXmlError, match=r"DOCTYPE|entity"):
        parse_untrusted(document)


def test_malformed_xml_names_the_line() -> None:
    with pytest.raises(UnsafeXmlError) as info:
        parse_untrusted(b"<quiz>\n<question>\n</quiz>")
    assert info.value.line == 3
    assert "not well-formed" in str(info.value)


def test_size_limit() -> None:
    with pytest.raises(UnsafeXmlError, match="limit"):
        parse_untrusted(b"<a>" + b"x" * 100 + b"</a>", max_bytes=50)
