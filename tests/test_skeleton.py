"""Skeletons write exactly the bytes lxml writes for the same tree, for every character XML can carry, and refuse
what XML cannot carry as lxml does."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from moe_lms.skeleton import Skeleton, cdata, escape_attribute, escape_text, inner, raw, serialise, slot, xml_compatible

XML_CHARS = "".join(
    chr(c)
    for c in range(0x110000)
    if c in (0x9, 0xA, 0xD) or 0x20 <= c <= 0xD7FF or 0xE000 <= c <= 0xFFFD or c >= 0x10000
)


def test_every_character_xml_can_carry_is_escaped_as_libxml2_escapes_it_in_text_and_in_attributes() -> None:
    element = etree.Element("a", b=XML_CHARS)
    element.text = XML_CHARS
    assert serialise(element) == f'<a b="{escape_attribute(XML_CHARS)}">{escape_text(XML_CHARS)}</a>'


@pytest.mark.parametrize("bad", ["\x00", "\x01", "\x0b", "\x0c", "\x1f", "\ufffe", "\uffff", "\ud800"])
def test_a_character_xml_cannot_carry_is_refused_in_text_and_in_attributes(bad: str) -> None:
    skeleton = Skeleton.of(etree.Element("a", b=slot(0)))
    with pytest.raises(ValueError):
        skeleton.fill([f"x{bad}y"])
    holder = etree.Element("a")
    holder.text = slot(0)
    with pytest.raises(ValueError):
        Skeleton.of(holder).fill([f"x{bad}y"])


def _tree(values: list[str], fragment: str | None = None) -> etree._Element:
    """Values in every place a skeleton fills: attributes, text, tails, the same value twice; then ``fragment``
    as text where an element would go, or (None) that element itself."""
    root = etree.Element("root", {"first": values[0], "second": values[1]}, nsmap={None: "urn:x"})
    root.text = values[2]
    child = etree.SubElement(root, "{urn:x}child", {"again": values[0]})
    child.text = values[1]
    child.tail = values[2] + "\n"
    empty = etree.SubElement(root, "{urn:x}empty")
    if fragment is None:
        empty.tail = "\n"
        etree.SubElement(root, "{urn:x}inside", {"a": values[0]}).text = values[1]
        root[-1].tail = "\n"
    else:
        empty.tail = "\n" + fragment + "\n"
    return root


texts = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]) | st.sampled_from("&<>\"'\r\n\t]]>"))


@given(st.lists(texts, min_size=3, max_size=3))
def test_a_filled_skeleton_is_what_lxml_writes_for_the_tree_with_those_values(values: list[str]) -> None:
    holder = etree.Element("{urn:x}holder", nsmap={None: "urn:x"})
    etree.SubElement(holder, "{urn:x}inside", {"a": values[0]}).text = values[1]
    skeleton = Skeleton.of(_tree([slot(0), slot(1), slot(2)], raw(3)), declaration=True)
    assert skeleton.fill([*values, inner(holder)]) == serialise(_tree(values), declaration=True)


def test_verbatim_values_are_inserted_as_they_are() -> None:
    skeleton = Skeleton.of(_tree([slot(0), slot(1), slot(2)], ""), verbatim={0})
    assert skeleton.fill(["id-1", "a&b", "c<d"]) == serialise(_tree(["id-1", "a&b", "c<d"], ""))
    assert Skeleton.of(etree.Element("a", b=slot(0)), verbatim={0}).fill(["x&y"]) == '<a b="x&y"/>'


def test_around_gives_the_document_before_and_after_a_streamed_middle() -> None:
    root = etree.Element("list", name=slot(0))
    root.text = "\n" + raw(1)
    before, after = Skeleton.of(root).around(["a&b", ""], 1)
    assert (before, after) == ('<list name="a&amp;b">\n', "</list>")


def test_a_raw_marker_in_an_attribute_is_a_mistake() -> None:
    with pytest.raises(ValueError):
        Skeleton.of(etree.Element("a", b=raw(0)))


def test_inner_serialises_what_a_holder_holds_without_repeating_its_namespaces() -> None:
    holder = etree.Element("{urn:x}holder", nsmap={None: "urn:x", "p": "urn:p"})
    etree.SubElement(holder, "{urn:p}item").text = "a"
    assert inner(holder) == "<p:item>a</p:item>"
    assert inner(etree.Element("{urn:x}holder", nsmap={None: "urn:x"})) == ""


@given(st.lists(texts, min_size=3, max_size=3))
def test_filled_as_bytes_is_the_filled_text_in_utf_8(values: list[str]) -> None:
    skeleton = Skeleton.of(_tree([slot(0), slot(1), slot(2)], raw(3)), declaration=True)
    filled = [*values, "<inside/>"]
    assert skeleton.fill_bytes(filled) == skeleton.fill(filled).encode("utf-8")


@pytest.mark.parametrize("allowed", ["\x7f", "\x85", "\x9f"])
def test_what_xml_allows_and_the_bank_refuses_is_still_written_as_lxml_writes_it(allowed: str) -> None:
    element = etree.Element("a", b=f"&{allowed}")
    element.text = f"<{allowed}"
    skeleton = Skeleton.of(etree.Element("a", b=slot(0)))
    holder = etree.Element("a", b=slot(0))
    holder.text = slot(1)
    assert Skeleton.of(holder).fill([f"&{allowed}", f"<{allowed}"]) == serialise(element)
    assert skeleton.fill(["x"]) == '<a b="x"/>'


def test_cdata_is_written_as_libxml2_writes_a_cdata_section_of_every_character_xml_can_carry() -> None:
    element = etree.Element("a")
    element.text = etree.CDATA(XML_CHARS)
    assert serialise(element) == f"<a>{cdata(XML_CHARS)}</a>"


@given(texts)
def test_cdata_splits_every_cdata_terminator_as_lxml_does(value: str) -> None:
    element = etree.Element("a")
    element.text = etree.CDATA(value)
    assert serialise(element) == f"<a>{cdata(value)}</a>"


@pytest.mark.parametrize("bad", ["\x00", "\x01", "\x0b", "\x1f", "\ufffe", "\uffff", "\ud800"])
def test_cdata_refuses_what_xml_cannot_carry_as_lxml_does(bad: str) -> None:
    with pytest.raises(ValueError):
        etree.CDATA(f"<{bad}")
    with pytest.raises(ValueError):
        cdata(f"<{bad}")
    assert not xml_compatible(f"a{bad}") and xml_compatible("a\t\n\r\x7f\x85\U0001f600")


def _nested(values: list[str]) -> etree._Element:
    """Elements holding elements (which lxml indents) and elements holding text (which it leaves alone)."""
    root = etree.Element("root")
    etree.SubElement(root, "a", b=values[0]).text = values[1]
    etree.SubElement(etree.SubElement(root, "b"), "c").text = values[2]
    etree.SubElement(root, "empty")
    return root


@given(st.lists(texts, min_size=3, max_size=3))
def test_an_indented_skeleton_is_what_lxml_writes_indented_for_the_tree_with_those_values(values: list[str]) -> None:
    skeleton = Skeleton.of(_nested([slot(0), slot(1), slot(2)]), pretty_print=True)
    assert skeleton.fill(values) == serialise(_nested(values), pretty_print=True)
    assert serialise(_nested(["", "", ""]), pretty_print=True) == (
        '<root>\n  <a b=""></a>\n  <b>\n    <c></c>\n  </b>\n  <empty/>\n</root>\n'
    )
