"""Images a bank carries: found in its text, read from its folder once, checked, and handed to every writer.

A question shows an image with Markdown, ``![alt text](media/diagram.svg)``, the path relative to the bank
folder. Loading reads each file once into a :class:`~moe_lms.model.MediaItem` (bank-relative path, bytes, media
type, SHA-256), kept in ``Bank.media``; writers embed it (Moodle), package it (QTI, Common Cartridge), inline it
(the HTML page) or, later, upload it (Canvas) by its SHA-256. A translation may point at its own localised image
(``media/ur/diagram.svg``); it is loaded and checked like the source's.

Refused, each with the file, line and question: a missing file, a path outside the bank folder (``../``, an
absolute path, a symbolic link that leads out), a type that is not PNG, JPEG, GIF, WebP or SVG or whose bytes say
another type than its name, a file over the size limit (``media_max_kib`` in bank.yaml, 1 MiB by default), an image
without alt text, and an SVG with a script, an event attribute, a ``foreignObject``, an external reference or a
DOCTYPE (parsed with :mod:`moe_lms.xmlsafe`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from lxml import etree

from .model import Bank, MediaItem, Question
from .problems import Problem

if TYPE_CHECKING:
    from .locales import LocalizedView
from .xmlsafe import UnsafeXmlError, parse_untrusted

# Markdown image syntax as bank text uses it: ![alt](path) or ![alt](path "title"). (The renderer parses it
# properly; this finds the references to load and check without rendering every string.)
IMAGE_REFERENCE = re.compile(r"!\[((?:[^\]\\]|\\.)*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")

MEDIA_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".svg": "image/svg+xml",
}
SVG = "image/svg+xml"
# Elements an image has no business with: they run code, embed other documents or pull in outside content.
_SVG_REFUSED_ELEMENTS = frozenset({"script", "foreignObject", "iframe", "embed", "object", "audio", "video", "use"})


class MediaError(ValueError):
    """An image reference or file that cannot be used; the message says why."""


@dataclass(frozen=True)
class ImageReference:
    alt: str
    path: str


def image_references(markdown: str) -> Iterator[ImageReference]:
    """Every ``![alt](path)`` in a Markdown text, in order (quick test first: most text has none)."""
    if "![" not in markdown:
        return
    for match in IMAGE_REFERENCE.finditer(markdown):
        yield ImageReference(match.group(1), match.group(2))


def is_remote(path: str) -> bool:
    return bool(re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", path)) or path.startswith("//")


def sniff(data: bytes) -> str | None:
    """The media type the bytes themselves say (magic numbers), or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"<") and b"<svg" in data[:4096]:
        return SVG
    return None


def bank_relative(path: str) -> str:
    """The normalised bank-relative path of a reference, or MediaError for one that leaves the bank folder."""
    if not path:
        raise MediaError("the image has no path")
    if is_remote(path):
        raise MediaError(f"image {path!r} is remote: put the file in the bank's media/ folder and link it there")
    if path.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", path):
        raise MediaError(f"image path {path!r} is absolute: write it relative to the bank folder (media/…)")
    parts = PurePosixPath(path.replace("\\", "/")).parts
    if ".." in parts:
        raise MediaError(f"image path {path!r} leaves the bank folder ('..')")
    return "/".join(part for part in parts if part != ".")


def read_media(directory: Path, path: str, max_bytes: int) -> MediaItem:
    """Read and check one image of the bank at ``directory``; MediaError says what is wrong with it."""
    relative = bank_relative(path)
    suffix = PurePosixPath(relative).suffix.lower()
    declared = MEDIA_TYPES.get(suffix)
    if declared is None:
        kinds = ", ".join(sorted({s.lstrip(".") for s in MEDIA_TYPES}))
        raise MediaError(f"image {relative!r} has an unsupported type ({suffix or 'no extension'}); use one of {kinds}")
    root = directory.resolve()
    full = directory / relative
    try:
        real = full.resolve(strict=True)
    except (FileNotFoundError, RuntimeError):
        raise MediaError(f"image file {relative!r} does not exist in the bank folder") from None
    if not real.is_relative_to(root):
        raise MediaError(f"image {relative!r} is a symbolic link that leads out of the bank folder")
    if not real.is_file():
        raise MediaError(f"image {relative!r} is not a file")
    size = real.stat().st_size
    if size > max_bytes:
        raise MediaError(
            f"image {relative!r} is {_kib(size)}; the limit is {_kib(max_bytes)} (media_max_kib in bank.yaml)"
        )
    with open(real, "rb") as stream:  # (the size again: the file may have grown since the stat)
        data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise MediaError(f"image {relative!r} is over the limit of {_kib(max_bytes)} (media_max_kib in bank.yaml)")
    actual = sniff(data)
    if actual is None:
        raise MediaError(f"image {relative!r} is not a PNG, JPEG, GIF, WebP or SVG file (its bytes say none of them)")
    if actual != declared:
        raise MediaError(f"image {relative!r} is named as {declared} but its bytes are {actual}")
    if actual == SVG:
        check_svg(data, relative)
    return MediaItem(relative, data, actual, hashlib.sha256(data).hexdigest())


def _kib(size: int) -> str:
    return f"{size / 1024:,.0f} KiB" if size < 1024 * 1024 else f"{size / 1024 / 1024:,.1f} MiB"


def check_svg(data: bytes, name: str) -> None:
    """Refuse an SVG that could run code or fetch anything: scripts, event attributes (onload …), foreignObject,
    references outside the file (href/xlink:href other than ``#fragment``, ``url(http…)`` in styles), and
    DOCTYPEs/entities (the safe parser refuses those)."""
    try:
        root = parse_untrusted(data)
    except UnsafeXmlError as exc:
        raise MediaError(f"SVG {name!r} is refused: {exc}") from None
    if etree.QName(root).localname != "svg":
        raise MediaError(f"SVG {name!r} is refused: its root element is not <svg>")
    for element in root.iter():
        if not isinstance(element.tag, str):
            if isinstance(element, etree._ProcessingInstruction):
                line = element.sourceline
                raise MediaError(f"SVG {name!r} is refused: it has a processing instruction (line {line})")
            continue
        local = etree.QName(element).localname
        line = element.sourceline
        if local in _SVG_REFUSED_ELEMENTS:
            raise MediaError(f"SVG {name!r} is refused: it has a <{local}> element (line {line})")
        for attribute, value in element.attrib.items():
            attr = etree.QName(attribute).localname
            if attr.lower().startswith("on"):
                raise MediaError(f"SVG {name!r} is refused: event attribute {attr!r} (line {line})")
            if attr == "href" and not value.strip().startswith("#") and not value.strip().startswith("data:image/"):
                raise MediaError(f"SVG {name!r} is refused: it refers to {value[:60]!r} outside the file (line {line})")
            if "url(" in value and _external_url(value):
                raise MediaError(f"SVG {name!r} is refused: a style refers outside the file (line {line})")
        if local == "style" and element.text and (_external_url(element.text) or "@import" in element.text):
            raise MediaError(f"SVG {name!r} is refused: a stylesheet refers outside the file (line {line})")


def _external_url(css: str) -> bool:
    return any(not target.strip(" '\"").startswith("#") for target in re.findall(r"url\(([^)]*)\)", css))


def media_of(bank: Bank, path: str) -> MediaItem | None:
    """The loaded image a reference in the bank's text points at (None for a reference loading did not keep)."""
    try:
        return bank.media.get(bank_relative(path))
    except MediaError:
        return None


def shown_media(views: Iterable[LocalizedView]) -> list[MediaItem]:
    """The images the text of these views shows (questions, intro), each once, by path: what a package carries."""
    found: dict[str, MediaItem] = {}
    for view in views:
        if not view.bank.media:  # (a bank without images: nothing to look for)
            continue
        texts = [resolved.text for q in view.bank.questions for resolved in view.question_texts(q)]
        if view.intro is not None:
            texts.append(view.intro.text)
        for text in texts:
            for reference in image_references(text):
                item = media_of(view.bank, reference.path)
                if item is not None:
                    found[item.path] = item
    return [found[path] for path in sorted(found)]


def bank_texts(questions: Iterable[Question]) -> Iterator[str]:
    for q in questions:
        yield q.stem
        yield q.explanation
        for c in q.choices:
            yield c.text
            yield c.explanation


def packaged_media(
    read: Callable[[str], bytes], prefix: str, texts: Iterable[str], name: str, problems: list[Problem]
) -> dict[str, MediaItem]:
    """For importers: the images imported text refers to (``media/…``), read from the package at ``prefix`` +
    path with ``read`` (a SafeZip's, with its limits) and checked by their bytes; a warning for each one missing
    or not an image as named."""
    from .problems import Severity

    wanted = dict.fromkeys(ref.path for text in texts for ref in image_references(text) if not is_remote(ref.path))
    media: dict[str, MediaItem] = {}
    for path in wanted:
        try:
            relative = bank_relative(path)
            data = read(prefix + relative)
        except (MediaError, KeyError, ValueError) as exc:
            message = f"image {path!r} is not in the package ({exc}); the text still refers to it"
            problems.append(Problem(name, None, message, severity=Severity.WARNING))
            continue
        kind = sniff(data)
        if kind is None or MEDIA_TYPES.get(PurePosixPath(relative).suffix.lower()) != kind:
            message = "not a PNG, JPEG, GIF, WebP or SVG image as its name says; not imported"
            problems.append(Problem(f"{name}!/{prefix}{relative}", None, message, severity=Severity.WARNING))
            continue
        media[relative] = MediaItem(relative, data, kind, hashlib.sha256(data).hexdigest())
    return media
