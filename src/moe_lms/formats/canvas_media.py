"""How a Canvas request body refers to an image before the image is in the course: ``moe-file:<sha256>``.

The question HTML a push sends must point at the course file (``/courses/:course_id/files/:id/preview``), whose
id Canvas gives only when the file is uploaded. So the bodies the format builds (and fingerprints) carry a
content-addressed reference instead, ``<img src="moe-file:<sha256>">``; ``moe_lms.lms.canvas_files`` uploads each
image once and the push puts the course file's URL in its place just before the request is sent. The fingerprint
is therefore a function of the image's bytes, not of Canvas's ids: it is the same on every push, and a changed
image (a new SHA-256) changes the fingerprint of every question that shows it.

This is the hook the rich-content renderer calls for Canvas (``Profile.image_url``): :func:`image_ref`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Protocol

PREFIX = "moe-file:"
FILE_REF = re.compile(r"moe-file:(?P<sha>[0-9a-f]{64})")


class HasSha256(Protocol):
    @property
    def sha256(self) -> str: ...


def image_ref(item: HasSha256) -> str:
    """The URL a Canvas body gives an image until the push resolves it: ``moe-file:<sha256>``."""
    sha = item.sha256.lower()
    if not re.fullmatch(r"[0-9a-f]{64}", sha):
        raise ValueError(f"not a SHA-256 in hex: {item.sha256!r}")
    return PREFIX + sha


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def refs(body: Any) -> set[str]:
    """The SHA-256 of every image a request body (or any JSON-like value) refers to."""
    return {m["sha"] for text in _strings(body) if PREFIX in text for m in FILE_REF.finditer(text)}


def resolve(body: Any, url: dict[str, str]) -> Any:
    """``body`` with every ``moe-file:<sha256>`` replaced by ``url[sha256]``; KeyError for an unknown image."""
    if isinstance(body, str):
        return FILE_REF.sub(lambda m: url[m["sha"]], body) if PREFIX in body else body
    if isinstance(body, dict):
        return {k: resolve(v, url) for k, v in body.items()}
    if isinstance(body, list | tuple):
        return [resolve(v, url) for v in body]
    return body
