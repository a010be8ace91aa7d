"""The QTI 2.1 package is written from skeletons (moe_lms.skeleton) for speed; it holds exactly the bytes of the
items and manifest resources built element by element, whatever the text, its language and its markup."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from moe_lms.formats import qti21
from moe_lms.formats.qti21 import manifest
from moe_lms.formats.qti21.write import _Items
from moe_lms.formats.qti_item import stem_title
from moe_lms.locales import resolve
from moe_lms.model import Bank
from moe_lms.problems import ProblemsFound
from moe_lms.richtext import rendering
from moe_lms.skeleton import NOT_XML, inner

from .qti_support import export, members, rich_bank
from .strategies import banks


def element_by_element(bank: Bank, include_drafts: bool) -> dict[str, bytes]:
    """Every item of every locale, built element by element with qti21.build_item."""
    items = {}
    with rendering(qti21.package_profile(bank)):  # (as the package renders math and images)
        for locale in bank.locales:
            view = resolve(bank, locale, include_drafts=include_drafts)
            for q in bank.questions:
                data = etree.tostring(qti21.build_item(q, view), xml_declaration=True, encoding="UTF-8")
                items[qti21.item_path(q.id, locale)] = data
    return items


def assert_items_built_element_by_element(bank: Bank, include_drafts: bool) -> None:
    package = members(export(bank, include_drafts=include_drafts))
    expected = element_by_element(bank, include_drafts)
    assert {name: package[name] for name in expected} == expected


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(banks(max_questions=4), st.booleans())
def test_items_are_the_bytes_of_items_built_element_by_element(bank: Bank, include_drafts: bool) -> None:
    assert_items_built_element_by_element(bank, include_drafts)


def test_math_in_a_translation_is_the_bytes_of_the_item_built_element_by_element() -> None:
    # (hypothesis found it: a vi choice explanation "$0$", rendered as MathML in the package)
    bank = rich_bank(translate_all=True)
    path = next(p for p in bank.translations["vi"] if p.endswith("/explanation"))
    catalog = {**bank.translations["vi"], path: bank.translations["vi"][path]._replace(text="$0$")}
    assert_items_built_element_by_element(
        bank.model_copy(update={"translations": {**bank.translations, "vi": catalog}}), False
    )


@pytest.mark.parametrize("translate_all", [False, True])
@pytest.mark.parametrize("include_drafts", [False, True])
def test_items_with_markdown_fallbacks_and_right_to_left_text_are_unchanged(
    translate_all: bool, include_drafts: bool
) -> None:
    assert_items_built_element_by_element(rich_bank(translate_all=translate_all), include_drafts)


def test_items_of_a_bank_more_varied_than_the_skeletons_kept_are_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_Items, "LIMIT", 1)
    assert_items_built_element_by_element(rich_bank(), include_drafts=False)


def test_text_that_renders_to_nothing_gives_an_empty_element_as_before() -> None:
    bank = rich_bank()
    question = bank.questions[2].model_copy(update={"stem": "<!-- hidden -->"})
    bank = bank.model_copy(update={"questions": (*bank.questions[:2], question)})
    assert_items_built_element_by_element(bank, include_drafts=False)
    assert b"<prompt/>" in members(export(bank, ["en"]))["items/tf-en.xml"]


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(banks(max_questions=3))
def test_item_resources_of_the_manifest_are_the_bytes_of_resources_built_element_by_element(bank: Bank) -> None:
    writer = manifest._ManifestWriter(None)  # type: ignore[arg-type]
    for locale in bank.locales:
        view = resolve(bank, locale)
        for q in bank.questions:
            holder = manifest._manifest_holder()
            resource_id, path = manifest._item_resource_id(q.id, locale), qti21.item_path(q.id, locale)
            metadata = manifest._resource(holder, resource_id, qti21.ITEM_TYPE, path, [qti21.STYLE_ID])
            stem = view.stem(q)
            title = [(stem.lang, stem_title(stem.text))]
            manifest._add_lom(metadata, q.id, title, [view.info.lang], q.tags, view.source_info.lang)
            manifest._qti_metadata(metadata, manifest.interaction_type(q))
            written: list[str] = []
            writer.write = written.append  # type: ignore[method-assign]
            writer.item(q, view)
            assert written == [inner(holder)]


@pytest.mark.parametrize("bad", ["\x07", "\ufffe"])
def test_a_character_xml_cannot_carry_that_bypassed_the_model_is_refused_naming_its_item(bad: str) -> None:
    bank = rich_bank()
    question = bank.questions[2].model_copy(update={"explanation": f"bell {bad} rings"})  # (not validated)
    bank = bank.model_copy(update={"questions": (*bank.questions[:2], question)})
    with pytest.raises(ProblemsFound) as refused:
        export(bank, ["en"])
    (problem,) = refused.value.problems
    assert (problem.file, problem.message) == (qti21.item_path(question.id, "en"), NOT_XML)
