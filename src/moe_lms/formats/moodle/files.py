"""Images in Moodle XML: each embedded, base64, in the text element that shows it, as Moodle itself exports them.

Moodle's importer (question/format/xml/format.php, ``import_text_with_files`` and ``import_files_as_draft``)
reads the ``<file name=… path=… encoding="base64">`` children of the element whose ``<text>`` it imports (a
``questiontext``, ``generalfeedback``, ``answer``, ``feedback``, ``correctfeedback`` …) into a draft area, and
stores them in that text's file area when the question is saved; the HTML refers to them as
``@@PLUGINFILE@@/<path><name>``. So an image in a choice's explanation travels inside that ``<feedback>``.

A bank image ``media/dispatch.svg`` is file ``dispatch.svg`` at path ``/``; one in a sub-folder
(``media/vi/bar.png``, a localised copy) keeps the sub-folder (path ``/vi/``) so names never collide.
"""

from __future__ import annotations

import base64
import posixpath
import re
from collections.abc import Mapping

from lxml import etree

from ...model import MediaItem

PLUGINFILE = "@@PLUGINFILE@@/"
MEDIA_FOLDER = "media/"
_REFERENCE = re.compile(r"@@PLUGINFILE@@/([^\"'<>\s?#]+)")


def file_area_path(item: MediaItem) -> str:
    """Where an image sits in a Moodle file area, relative: ``dispatch.svg``, ``vi/bar.png``."""
    return item.path[len(MEDIA_FOLDER) :] if item.path.startswith(MEDIA_FOLDER) else item.path


def plugin_url(item: MediaItem) -> str:
    return PLUGINFILE + file_area_path(item)


def attach_files(element: etree._Element, media: Mapping[str, MediaItem]) -> None:
    """After each ``<text>`` under ``element`` that refers to ``@@PLUGINFILE@@/…``, a ``<file>`` per image."""
    if not media:
        return
    by_area = {file_area_path(item): item for item in media.values()}
    for text in list(element.iter("text")):
        body = text.text or ""
        if PLUGINFILE not in body:
            continue
        seen: set[str] = set()
        anchor = text
        for reference in _REFERENCE.findall(body):
            item = by_area.get(reference)
            if item is None or reference in seen:
                continue
            seen.add(reference)
            folder, name = posixpath.split(reference)
            file = etree.Element("file", name=name, path=f"/{folder}/" if folder else "/", encoding="base64")
            file.text = base64.b64encode(item.data).decode("ascii")
            anchor.addnext(file)
            anchor = file


def missing_files(text: etree._Element) -> list[str]:
    """What a ``<text>`` refers to as ``@@PLUGINFILE@@/…`` that no ``<file>`` beside it carries (Moodle would show
    a broken image)."""
    body = text.text or ""
    parent = text.getparent()
    if PLUGINFILE not in body or parent is None:
        return []
    carried = read_files(parent)
    return [
        f"the text shows {PLUGINFILE}{reference}, but no <file> in <{etree.QName(parent).localname}> carries it"
        for reference in dict.fromkeys(_REFERENCE.findall(body))
        if reference not in carried
    ]


def read_files(parent: etree._Element) -> dict[str, bytes]:
    """The ``<file>`` children of a text's element, by file-area path (``vi/bar.png``); bad base64 is skipped."""
    files: dict[str, bytes] = {}
    for file in parent.iterchildren("file"):
        name = file.get("name") or ""
        folder = (file.get("path") or "/").strip("/")
        if not name or "/" in name or ".." in folder.split("/") or name in ("..", "."):
            continue
        try:
            data = base64.b64decode((file.text or "").strip(), validate=False)
        except ValueError:
            continue
        files[f"{folder}/{name}" if folder else name] = data
    return files


_PLUGIN_SRC = re.compile(r'(<img\b[^>]*\bsrc=")@@PLUGINFILE@@/')


def bank_html(fragment: str) -> str:
    """Moodle HTML with its embedded images back at their media/ path (before it becomes Markdown)."""
    if PLUGINFILE in fragment:
        fragment = _PLUGIN_SRC.sub(lambda m: m.group(1) + MEDIA_FOLDER, fragment)
    return fragment
