"""Images a bank carries: found in its text, read from its folder once, checked, and handed to every writer.

A question shows an image with Markdown, ``![alt text](media/diagram.svg)``, the path relative to the bank
folder. Loading reads each file once into a :class:`~moe_lms.model.MediaItem` (bank-relative path, bytes, media
type, SHA-256), kept in ``Bank.media``; writers embed it (Moodle), package it (QTI, Common Cartridge), inline it
(the HTML page) or, later, upload it (Canvas) by its SHA-256. A translation may point at its own localised image
(``media/ur/diagram.svg``); it is loaded and checked like the source's.

Refused, each with the file, line and question: a missing file, a path outside the bank folder (``../``, an
absolute path, a symbolic link that leads out), a type that is not PNG, JPEG, GIF, WebP or SVG or whose bytes say
another type than its name, a file over the size limit (``media_max_kib`` in bank.yaml, 1 MiB by default), an image
without alt text, and an SVG with anything outside the SVG allow-list (:data:`SVG_ELEMENTS`,
:data:`SVG_ATTRIBUTES`: no script, event attribute, ``foreignObject``, animated link, external reference in any
spelling, processing instruction or DOCTYPE; parsed with :mod:`moe_lms.xmlsafe`). Importers and every export apply
the same allow-list (:func:`packaged_media`, :func:`media_problems`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from lxml import etree

from .model import Bank, MediaItem, Question
from .problems import MoeLmsError, Problem

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


class MediaError(MoeLmsError, ValueError):
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


def _did_you_mean(directory: Path, relative: str) -> str:
    """``: did you mean 'media/cell-diagram.png'?`` for the nearest image file of the same folder, if any."""
    import difflib

    folder = (directory / relative).parent
    try:
        if not folder.resolve().is_relative_to(directory.resolve()) or not folder.is_dir():
            return ""
        names = [p.name for p in folder.iterdir() if p.suffix.lower() in MEDIA_TYPES and p.is_file()]
    except OSError:
        return ""
    near = difflib.get_close_matches(PurePosixPath(relative).name, names, n=1, cutoff=0.5)
    if not near:
        return ""
    return f" (did you mean {str(PurePosixPath(relative).parent / near[0])!r}?)"


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
        near = _did_you_mean(directory, relative)
        raise MediaError(f"image file {relative!r} does not exist in the bank folder{near}") from None
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


# The SVG allow-list: the elements and attributes of static SVG (shapes, text, gradients, patterns, markers,
# filters, and animation of presentation attributes), each in the SVG namespace. An SVG opened as a document
# runs script and follows links, so everything else is refused: script, foreignObject, iframe/embed/object,
# XHTML or any namespace that renders, event attributes, links other than to a #fragment of the file (an
# <image> may hold a PNG, JPEG, GIF or WebP data: URI), animation of href or of an event, style that refers
# outside the file however it is spelt, processing instructions (xml-stylesheet) and comments in a <style>.
SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
XML_NS = "http://www.w3.org/XML/1998/namespace"
# Editors' metadata (Inkscape, Sodipodi, RDF, Dublin Core, Creative Commons): no browser renders or runs it.
_SVG_INERT_NS = frozenset(
    {
        "http://www.inkscape.org/namespaces/inkscape",
        "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd",
        "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
        "http://purl.org/dc/elements/1.1/",
        "http://creativecommons.org/ns#",
        "http://web.resource.org/cc/",
    }
)
# fmt: off
SVG_ELEMENTS = frozenset({
    "svg", "g", "defs", "desc", "title", "metadata", "symbol", "use", "image", "switch", "style", "a", "view",
    "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text", "tspan", "textPath",
    "linearGradient", "radialGradient", "stop", "pattern", "clipPath", "mask", "marker",
    "filter", "feBlend", "feColorMatrix", "feComponentTransfer", "feComposite", "feConvolveMatrix",
    "feDiffuseLighting", "feDisplacementMap", "feDistantLight", "feDropShadow", "feFlood", "feFuncA", "feFuncB",
    "feFuncG", "feFuncR", "feGaussianBlur", "feImage", "feMerge", "feMergeNode", "feMorphology", "feOffset",
    "fePointLight", "feSpecularLighting", "feSpotLight", "feTile", "feTurbulence",
    "animate", "animateMotion", "animateTransform", "set", "mpath",
})
# Presentation attributes: what an animation may change too.
_SVG_PRESENTATION = frozenset({
    "alignment-baseline", "baseline-shift", "clip", "clip-path", "clip-rule", "color", "color-interpolation",
    "color-interpolation-filters", "color-rendering", "direction", "display", "dominant-baseline",
    "enable-background", "fill", "fill-opacity", "fill-rule", "filter", "flood-color", "flood-opacity", "font",
    "font-family", "font-size", "font-size-adjust", "font-stretch", "font-style", "font-variant", "font-weight",
    "glyph-orientation-horizontal", "glyph-orientation-vertical", "image-rendering", "kerning", "letter-spacing",
    "lighting-color", "marker", "marker-start", "marker-mid", "marker-end", "mask", "opacity", "overflow",
    "paint-order", "pointer-events", "shape-rendering", "stop-color", "stop-opacity", "stroke", "stroke-dasharray",
    "stroke-dashoffset", "stroke-linecap", "stroke-linejoin", "stroke-miterlimit", "stroke-opacity", "stroke-width",
    "text-anchor", "text-decoration", "text-rendering", "transform", "transform-origin", "unicode-bidi",
    "vector-effect", "visibility", "word-spacing", "writing-mode", "mix-blend-mode", "isolation",
    "font-kerning", "font-variant-caps", "font-variant-ligatures", "font-variant-numeric", "font-feature-settings",
    "text-orientation", "white-space", "line-height", "inline-size", "mask-type", "solid-color", "solid-opacity",
    "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "d", "points", "width", "height", "dx", "dy",
    "offset", "fx", "fy", "fr", "rotate", "startOffset", "stdDeviation", "viewBox",
})
SVG_ATTRIBUTES = _SVG_PRESENTATION | frozenset({
    "id", "class", "style", "lang", "role", "tabindex", "focusable", "aria-label", "aria-labelledby",
    "aria-describedby", "aria-hidden", "version", "baseProfile", "preserveAspectRatio", "zoomAndPan",
    "textLength", "lengthAdjust", "pathLength", "gradientTransform", "gradientUnits", "patternTransform",
    "patternUnits", "patternContentUnits", "clipPathUnits", "maskUnits", "maskContentUnits", "markerUnits",
    "markerWidth", "markerHeight", "refX", "refY", "orient", "spreadMethod", "href", "method", "spacing", "side",
    "in", "in2", "result", "mode", "type", "values", "tableValues", "slope", "intercept", "amplitude", "exponent",
    "k1", "k2", "k3", "k4", "operator", "order", "kernelMatrix", "divisor", "bias", "targetX", "targetY",
    "edgeMode", "kernelUnitLength", "preserveAlpha", "surfaceScale", "diffuseConstant", "specularConstant",
    "specularExponent", "limitingConeAngle", "pointsAtX", "pointsAtY", "pointsAtZ", "azimuth", "elevation", "z",
    "scale", "xChannelSelector", "yChannelSelector", "radius", "baseFrequency", "numOctaves", "seed",
    "stitchTiles", "filterUnits", "primitiveUnits", "filterRes", "media", "requiredFeatures",
    "requiredExtensions", "systemLanguage", "target", "attributeName", "attributeType", "begin", "dur", "end",
    "min", "max", "restart", "repeatCount", "repeatDur", "calcMode", "keyTimes", "keySplines", "from", "to", "by",
    "additive", "accumulate", "path", "keyPoints",
})
# fmt: on
_SVG_ANIMATION = frozenset({"animate", "animateMotion", "animateTransform", "set"})
_RASTER_DATA_URI = re.compile(r"data:image/(?:png|jpeg|gif|webp)[;,]", re.I)
_CSS_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})[ \t\r\n\f]?|(.))", re.S)
_CSS_COMMENT = re.compile(r"/\*.*?(?:\*/|$)", re.S)
_CSS_URL = re.compile(r"url\(\s*(['\"]?)([^'\")]*)")
# CSS that fetches, runs or loads something without url(…): at-rules and functions taking a bare string.
_CSS_FETCHING = re.compile(
    r"@import|@namespace|@font-face|image-set\(|image\(|src\(|expression\(|javascript:|-moz-binding|behavior\s*:"
)


def check_svg(data: bytes, name: str) -> None:
    """Refuse an SVG with anything outside the SVG allow-list (above): nothing in it can run code or fetch from
    outside the file once it is opened as a document. Parsed with :mod:`moe_lms.xmlsafe`'s safety (no DTD,
    entities or network) but keeping comments and processing instructions, which are checked too."""
    problem = svg_problem(data)
    if problem is not None:
        raise MediaError(f"SVG {name!r} is refused: {problem}")


@lru_cache(maxsize=256)  # (every export checks the bank's images again: the shelf's files check the same ones)
def svg_problem(data: bytes) -> str | None:
    """What the SVG allow-list refuses in an SVG file, or None."""
    try:
        root = parse_untrusted(data, keep_comments_and_pis=True)
    except UnsafeXmlError as exc:
        return str(exc)
    for sibling in (*root.itersiblings(preceding=True), *root.itersiblings()):
        if isinstance(sibling, etree._ProcessingInstruction):
            return f"it has a processing instruction <?{sibling.target}?> (line {sibling.sourceline})"
    if etree.QName(root).localname != "svg" or etree.QName(root).namespace != SVG_NS:
        return "its root element is not <svg> in the SVG namespace"
    for element in root.iter():
        problem = _svg_element_problem(element)
        if problem is not None:
            return f"{problem} (line {element.sourceline})"
    return None


def _svg_element_problem(element: etree._Element) -> str | None:
    if isinstance(element, etree._ProcessingInstruction):
        return f"it has a processing instruction <?{element.target}?>"
    if not isinstance(element.tag, str):  # a comment
        parent = element.getparent()
        if parent is not None and etree.QName(parent).localname == "style":
            return "a comment inside a <style>"
        return None
    qname = etree.QName(element)
    if qname.namespace in _SVG_INERT_NS:
        return None
    if qname.namespace != SVG_NS or qname.localname not in SVG_ELEMENTS:
        return f"it has a <{qname.localname}> element, which the SVG allow-list does not have"
    if qname.localname == "style" and _css_problem(element.text or ""):
        return f"a stylesheet {_css_problem(element.text or '')}"
    for attribute, value in element.attrib.items():
        problem = _svg_attribute_problem(qname.localname, etree.QName(attribute), value)
        if problem is not None:
            return problem
    if qname.localname in _SVG_ANIMATION:
        target = (element.get("attributeName") or "").strip()
        local = target.rsplit(":", 1)[-1]
        if qname.localname != "animateMotion" and (local not in _SVG_PRESENTATION or local == "href"):
            return f"<{qname.localname}> animates {target!r}; only presentation attributes may be animated"
    return None


def _svg_attribute_problem(element: str, attribute: etree.QName, value: str) -> str | None:
    local = attribute.localname
    if local.lower().startswith("on"):
        return f"event attribute {local!r}"
    if attribute.namespace in _SVG_INERT_NS or (attribute.namespace == XML_NS and local in ("space", "lang")):
        return None
    if attribute.namespace == XLINK_NS and local in ("href", "title"):
        pass
    elif attribute.namespace is not None or local not in SVG_ATTRIBUTES:
        return f"attribute {local!r}, which the SVG allow-list does not have"
    if local == "href":
        target = value.strip()
        if not (target.startswith("#") or (element == "image" and _RASTER_DATA_URI.match(target))):
            return f"it refers to {value[:60]!r} outside the file"
    css = _css_problem(value)
    return f"its {local!r} {css}" if css else None


def _css_problem(css: str) -> str | None:
    """Whether CSS (a stylesheet, a style or presentation attribute) refers outside the file, in any spelling:
    CSS escapes undone, comments removed, case folded."""
    text = _CSS_COMMENT.sub("", _CSS_ESCAPE.sub(_unescape_css, css)).casefold()
    if "url(" not in text and not _CSS_FETCHING.search(text):
        return None
    found = _CSS_FETCHING.search(text)
    if found:
        return f"uses {found.group()!r}, which may fetch or run something"
    for match in _CSS_URL.finditer(text):
        if not match.group(2).strip().startswith("#"):
            return f"refers to {match.group(2)[:60]!r} outside the file"
    return None


def _unescape_css(match: re.Match[str]) -> str:
    if match.group(1):
        code = int(match.group(1), 16)
        return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"
    return match.group(2)


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
        refused = svg_problem(data) if kind == SVG else None
        if refused is not None:  # (the importer once checked only the magic number: a script SVG got into the bank)
            message = f"an SVG the allow-list refuses: {refused}; not imported"
            problems.append(Problem(f"{name}!/{prefix}{relative}", None, message, severity=Severity.WARNING))
            continue
        media[relative] = MediaItem(relative, data, kind, hashlib.sha256(data).hexdigest())
    return media


def media_problems(bank: Bank) -> list[Problem]:
    """The images of a bank the checks of loading refuse (an SVG outside the allow-list): what every export runs
    first, so a bank made without the loader (an importer's, a program's) cannot carry one into a file."""
    problems = []
    for item in bank.media.values():
        refused = svg_problem(item.data) if item.media_type == SVG or sniff(item.data) == SVG else None
        if refused is not None:
            problems.append(Problem(item.path, None, f"SVG {item.path!r} is refused: {refused}"))
    return problems
