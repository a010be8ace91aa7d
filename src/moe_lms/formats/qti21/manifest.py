"""``imsmanifest.xml`` of a QTI 2.1 package, both directions: written with LOM and QTI metadata per resource (items
and tests per locale in bank order, then the stylesheet); :data:`PACKAGING` reads its resources back.

Canvas treats a package as QTI 2 only if the manifest root declares a QTI 2 namespace, and reads items only from
resources whose type starts with ``imsqti_item_xmlv2p`` (canvas-lms qti/converter.rb).

This module must not know what an item holds beyond its identifier, title, languages and keywords.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from lxml import etree

from ... import __version__
from ...locales import LocalizedView, locale_info
from ...media import image_references, media_of
from ...model import Bank, MediaItem, Question, Quiz
from ...skeleton import Skeleton, inner, raw, slot
from ...text import has_no_markdown_syntax
from ..ims.cp import Packaging
from ..qti_item import item_identifier, plain_title, shorten, stem_title
from .names import (
    CP,
    CP_XSD_URL,
    ITEM_TYPE,
    LOM,
    LOM_CATALOG,
    LOM_XSD_URL,
    MANIFEST_NSMAP,
    QTI_MD,
    QTI_MD_XSD_URL,
    SCHEMA_LOCATION,
    STYLE_ID,
    STYLESHEET,
    TEST_TYPE,
    TOOL_NAME,
    item_path,
    test_path,
)

PACKAGING = Packaging(CP, LOM)


def _leaf(parent: etree._Element, namespace: str, tag: str, text: str = "", **attrib: str) -> etree._Element:
    """A manifest element with text; an empty one keeps its end tag (``<file href="…"></file>``)."""
    element = etree.SubElement(parent, f"{{{namespace}}}{tag}", attrib)
    element.text = text
    return element


def _add_lom(
    parent: etree._Element,
    entry: str,
    titles: Iterable[tuple[str, str]],
    languages: Sequence[str],
    keywords: Iterable[str] = (),
    keyword_language: str = "",
) -> None:
    """LOM ``general``: identifier, title (one string per language), languages and keywords (tags, which are
    words of the bank's source language whatever the locale: ``keyword_language``)."""
    general = PACKAGING.lom_general(parent, LOM_CATALOG, entry, titles)
    for language in languages:
        _leaf(general, LOM, "language", language)
    for keyword in keywords:
        _leaf(etree.SubElement(general, f"{{{LOM}}}keyword"), LOM, "string", keyword, language=keyword_language)


def _resource(
    parent: etree._Element,
    identifier: str,
    kind: str,
    href: str,
    dependencies: Iterable[str],
    files: Iterable[str] = (),
) -> etree._Element:
    """A ``resource`` with its ``metadata`` element, returned for the caller to fill, then its file (and the images
    it shows, ``files``) and dependencies."""
    resource = etree.SubElement(parent, f"{{{CP}}}resource", {"identifier": identifier, "type": kind, "href": href})
    resource.tail = "\n"
    metadata = etree.SubElement(resource, f"{{{CP}}}metadata")
    _leaf(resource, CP, "file", href=href)
    for file in files:
        _leaf(resource, CP, "file", href=file)
    for dependency in dependencies:
        _leaf(resource, CP, "dependency", identifierref=dependency)
    return metadata


def interaction_type(q: Question) -> str:
    """The interaction of a question's item (the metadata's interactionType)."""
    return "textEntryInteraction" if q.numerical else "choiceInteraction"


def _qti_metadata(parent: etree._Element, interaction: str) -> None:
    metadata = etree.SubElement(parent, f"{{{QTI_MD}}}qtiMetadata")
    _leaf(metadata, QTI_MD, "timeDependent", "false")
    _leaf(metadata, QTI_MD, "interactionType", interaction)
    _leaf(metadata, QTI_MD, "feedbackType", "nonadaptive")
    _leaf(metadata, QTI_MD, "solutionAvailable", "true")
    _leaf(metadata, QTI_MD, "toolName", TOOL_NAME)
    _leaf(metadata, QTI_MD, "toolVersion", __version__)


class _Writable(Protocol):
    def write(self, data: bytes, /) -> int: ...


def _manifest_holder() -> etree._Element:
    return etree.Element(f"{{{CP}}}holder", nsmap=MANIFEST_NSMAP)


class _ManifestWriter:
    """Writes imsmanifest.xml incrementally, one resource at a time, so memory stays flat as banks grow; item
    resources from one skeleton per number of tags."""

    def __init__(self, stream: _Writable) -> None:
        self.stream = stream
        self._items: dict[tuple[int, str], Skeleton] = {}
        self._pending: list[str] = []
        self._size = 0

    def write(self, text: str) -> None:
        """Text of the manifest, written on in pieces of about 64 KiB (as deflated, the same bytes)."""
        self._pending.append(text)
        self._size += len(text)
        if self._size > 65536:
            self.flush()

    def flush(self) -> None:
        self.stream.write("".join(self._pending).encode("utf-8"))
        self._pending, self._size = [], 0

    def head_and_tail(self, bank: Bank, views: dict[str, LocalizedView]) -> tuple[str, str]:
        """The manifest around its resources; the package metadata says what the importer needs to rebuild the
        bank: its id, title per locale, source language and tags."""
        root = {
            "identifier": f"MANIFEST-{bank.id}",
            SCHEMA_LOCATION: f"{CP} {CP_XSD_URL} {LOM} {LOM_XSD_URL} {QTI_MD} {QTI_MD_XSD_URL}",
        }
        manifest = etree.Element(f"{{{CP}}}manifest", root, nsmap=MANIFEST_NSMAP)
        manifest.text = "\n"
        metadata = etree.SubElement(manifest, f"{{{CP}}}metadata")
        metadata.tail = "\n"
        _leaf(metadata, CP, "schema", "QTIv2.1 Package")
        _leaf(metadata, CP, "schemaversion", "1.0.0")
        titles = [(v.title.lang, plain_title(v.title.text, limit=1000)) for v in views.values()]
        # The bank's source language first (the importer reads it as the source), then each the package holds.
        source = locale_info(bank.source_locale).lang
        languages = list(dict.fromkeys([source, *(v.info.lang for v in views.values())]))
        _add_lom(metadata, bank.id, titles, languages, bank.tags, source)
        _leaf(manifest, CP, "organizations").tail = "\n"
        resources = _leaf(manifest, CP, "resources", "\n" + raw(0))
        resources.tail = "\n"
        return Skeleton.of(manifest, declaration=True).around([""], 0)

    def test(self, bank: Bank, view: LocalizedView, quiz: Quiz | None = None) -> None:
        holder = _manifest_holder()
        items = (_item_resource_id(q.id, view.locale) for q in bank.questions)
        path = test_path(bank, view.locale, quiz)
        metadata = _resource(holder, f"TEST-{view.locale}", TEST_TYPE, path, itertools.chain([STYLE_ID], items))
        title = view.title if quiz is None else view.quiz_title(quiz)
        ident = f"{bank.id}-{view.locale}" if quiz is None else f"{bank.id}-{quiz.id}-{view.locale}"
        _add_lom(metadata, ident, [(title.lang, plain_title(title.text, 1000))], [view.info.lang])
        self.write(inner(holder))

    # Item resources from skeletons, the only way they are written (issue 19, docs/design/speed.md): element by
    # element they cost ~0.25 s more per 2,000 questions (in-process, median of 5), which took the 10k bank's QTI 2.1
    # export from 3.36-4.03 s to 4.31-5.05 s of CPU against text2qti's ~39 s, 7.6-9.0x: not clear of the 8x floor.
    # tests/test_qti21_skeleton.py holds each to the resource built element by element.
    def _item_skeleton(self, tags: int, interaction: str) -> Skeleton:
        skeleton = self._items.get((tags, interaction))
        if skeleton is None:
            holder = _manifest_holder()
            metadata = _resource(holder, slot(0), ITEM_TYPE, slot(1), [STYLE_ID])
            keywords = [slot(7 + i) for i in range(tags)]
            _add_lom(metadata, slot(2), [(slot(3), slot(4))], [slot(5)], keywords, slot(6))
            _qti_metadata(metadata, interaction)
            # Ids, paths made of ids and language tags, but the title (4).
            skeleton = self._items[tags, interaction] = Skeleton.inside(holder, verbatim=set(range(7 + tags)) - {4})
        return skeleton

    def item(self, q: Question, view: LocalizedView) -> None:
        stem = view.stem(q)
        files = item_media(view, q)
        if files:  # (rare: an item showing images lists them as its files; built whole, not from the skeleton)
            holder = _manifest_holder()
            metadata = _resource(
                holder, _item_resource_id(q.id, view.locale), ITEM_TYPE, item_path(q.id, view.locale), [STYLE_ID], files
            )
            title = stem_title(stem.text)
            _add_lom(metadata, q.id, [(stem.lang, title)], [view.info.lang], q.tags, view.source_info.lang)
            _qti_metadata(metadata, interaction_type(q))
            self.write(inner(holder))
            return
        values = [
            _item_resource_id(q.id, view.locale),
            item_path(q.id, view.locale),
            q.id,
            stem.lang,
            shorten(stem.text, 80) if has_no_markdown_syntax(stem.text) else stem_title(stem.text),
            view.info.lang,
            view.source_info.lang,  # tags are words of the bank's source language
            *q.tags,
        ]
        self.write(self._item_skeleton(len(q.tags), interaction_type(q)).fill(values))

    def stylesheet(self) -> None:
        holder = _manifest_holder()
        resource = etree.SubElement(
            holder, f"{{{CP}}}resource", {"identifier": STYLE_ID, "type": "webcontent", "href": STYLESHEET}
        )
        resource.tail = "\n"
        _leaf(resource, CP, "file", href=STYLESHEET)
        self.write(inner(holder))


def item_media(view: LocalizedView, q: Question) -> list[str]:
    """The package paths of the images a question's item shows in this locale (its stem, choices, feedback)."""
    if not view.bank.media:  # (the common case: a bank without images)
        return []
    found: dict[str, None] = {}
    for resolved in view.question_texts(q):
        for reference in image_references(resolved.text):
            item = media_of(view.bank, reference.path)
            if item is not None:
                found[item.path] = None
    return sorted(found)


def package_url(item: MediaItem) -> str:
    """An image's URL from an item (items/ is one folder down from the package root, where media/ is)."""
    return f"../{item.path}"


_IMAGE_FROM_ITEM = re.compile(r'(<img\b[^>]*\bsrc=")\.\./')


def bank_paths(fragment: str) -> str:
    """An item's image URLs (``../media/x.png``) as the bank writes them (``media/x.png``)."""
    return _IMAGE_FROM_ITEM.sub(r"\1", fragment) if "../" in fragment else fragment


def _item_resource_id(question_id: str, locale: str) -> str:
    return f"ITEM-{item_identifier(question_id, locale)}"


def write_manifest(bank: Bank, views: dict[str, LocalizedView], stream: _Writable, quiz: Quiz | None = None) -> None:
    """Tests and items per locale in bank order, then the stylesheet; LOM and QTI metadata on each. (A quiz's
    package: ``bank`` holds the quiz's questions alone, and its test is the quiz's.)"""
    writer = _ManifestWriter(stream)
    head, tail = writer.head_and_tail(bank, views)
    writer.write(head)
    for view in views.values():
        writer.test(bank, view, quiz)
        for q in bank.questions:
            writer.item(q, view)
    writer.stylesheet()
    writer.write(tail)
    writer.flush()
