"""Outside XML is parsed with entities, DTDs and network off, whole or a piece at a time."""

from collections.abc import Callable

import pytest

from moe_lms.xmlsafe import Budget, UnsafeXmlError, iterparse_untrusted, parse_untrusted

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<quiz>&lol2;</quiz>"""

EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE quiz [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<quiz>&secret;</quiz>"""

ENTITY_IN_A_QUESTION = b"""<?xml version="1.0"?>
<!DOCTYPE quiz [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<quiz><question><text>&secret;</text></question></quiz>"""


def whole(data: bytes, max_bytes: int = 1 << 20) -> list[str]:
    return [parse_untrusted(data, max_bytes=max_bytes).tag]


def streamed(data: bytes, max_bytes: int = 1 << 20) -> list[str]:
    return [element.tag for element in iterparse_untrusted(data, max_bytes=max_bytes)][:1]


PARSERS = pytest.mark.parametrize("parse", [whole, streamed], ids=["whole", "streamed"])


@PARSERS
def test_well_formed_xml_parses(parse: Callable[..., list[str]]) -> None:
    assert parse(b"<quiz><question/></quiz>") == ["quiz"]


@PARSERS
@pytest.mark.parametrize(
    "document", [BILLION_LAUGHS, EXTERNAL_ENTITY, ENTITY_IN_A_QUESTION], ids=["billion-laughs", "external", "nested"]
)
def test_documents_with_entities_are_refused(parse: Callable[..., list[str]], document: bytes) -> None:
    with pytest.raises(UnsafeXmlError, match=r"DOCTYPE|entity"):
        parse(document)


@PARSERS
def test_malformed_xml_names_the_line(parse: Callable[..., list[str]]) -> None:
    with pytest.raises(UnsafeXmlError) as info:
        parse(b"<quiz>\n<question>\n</quiz>")
    assert info.value.line == 3
    assert "not well-formed" in str(info.value)


@PARSERS
def test_size_limit(parse: Callable[..., list[str]]) -> None:
    with pytest.raises(UnsafeXmlError, match="limit"):
        parse(b"<a>" + b"x" * 100 + b"</a>", max_bytes=50)


def test_streaming_gives_the_root_then_each_complete_child_and_forgets_the_ones_read() -> None:
    elements = iterparse_untrusted(b"<quiz>\n<question n='1'><t>a</t></question>\n<question n='2'/></quiz>")
    root = next(elements)
    assert root.tag == "quiz"
    first = next(elements)
    assert (first.get("n"), first.findtext("t"), first.sourceline) == ("1", "a", 2)
    second = next(elements)
    assert (second.get("n"), len(first)) == ("2", 0)  # the first was emptied once the second was asked for
    assert list(elements) == []
    assert list(root) == [second]  # and dropped: the root holds no more than the last child read


def test_a_budget_refuses_the_first_element_too_many_or_too_deep_with_its_line() -> None:
    assert parse_untrusted(b"<a>\n<b/>\n<c>x</c>\n</a>", budget=Budget(3, 2)).tag == "a"
    with pytest.raises(UnsafeXmlError) as many:
        parse_untrusted(b"<a>\n<b/>\n<c/>\n<d/>\n</a>", budget=Budget(3, 2))
    assert (many.value.line, many.value.message) == (4, "more than 3 elements; refused")
    with pytest.raises(UnsafeXmlError) as deep:
        parse_untrusted(b"<a>\n<b>\n<c/>\n</b>\n</a>", budget=Budget(10, 2))
    assert (deep.value.line, deep.value.message) == (3, "elements nested more than 2 deep; refused")


def test_a_streaming_budget_bounds_each_child_of_the_root_not_the_whole_document() -> None:
    children = b"".join(b"<q><x/><x/></q>\n" for _ in range(100))
    assert len(list(iterparse_untrusted(b"<r>\n" + children + b"</r>", budget=Budget(3, 2)))) == 101
    with pytest.raises(UnsafeXmlError, match="<q> at line 2 has more than 3 elements; refused"):
        list(iterparse_untrusted(b"<r>\n<q><x/><x/><x/></q></r>", budget=Budget(3, 2)))
