"""STAND-IN until the rich-content branch lands: Canvas request bodies that show images, built from a bank whose
text has ``![alt](media/<file>)``. The renderer of today keeps such an image as ``<img src="media/<file>">``; this
rewrites each src to ``moe-file:<sha256>`` (what ``formats.canvas_media.image_ref`` gives the renderer's hook) and
recomputes the fingerprints and markers the format would have computed. Delete it once the format does this itself.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import replace
from typing import Any

from moe_lms.formats.canvas import DesiredQuestion, DesiredQuiz, fingerprint
from moe_lms.formats.canvas_media import image_ref, resolve
from moe_lms.lms.canvas_files import ImageFile

_SRC = re.compile(r'src="(media/[^"]+)"')


def png(seed: int, size: int = 64) -> bytes:
    """A small real PNG (one grey row), different per seed."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")

    header = size.to_bytes(4, "big") + (1).to_bytes(4, "big") + bytes([8, 0, 0, 0, 0])
    row = b"\x00" + bytes([seed % 256]) * size
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(row)) + chunk(b"IEND", b"")


def _rewrite(value: Any, files: dict[str, ImageFile]) -> Any:
    def sub(m: re.Match[str]) -> str:
        return f'src="{image_ref(files[m[1]])}"'

    if isinstance(value, str):
        return _SRC.sub(sub, value)
    if isinstance(value, dict):
        return {k: _rewrite(v, files) for k, v in value.items()}
    if isinstance(value, list):
        return [_rewrite(v, files) for v in value]
    return value


def _question(quiz: DesiredQuiz, q: DesiredQuestion, files: dict[str, ImageFile]) -> DesiredQuestion:
    if quiz.engine == "classic":
        fields = _rewrite({k: v for k, v in q.body["question"].items() if k != "question_name"}, files)
        fp = fingerprint("classic", fields)
        return DesiredQuestion(
            q.key, fp, {"question": {"question_name": f"{q.key} [moe:{quiz.bank_id}/{q.key}:{fp}]", **fields}}
        )
    item = _rewrite(q.body["item"], files)
    position = item.pop("position")
    del item["entry"]["title"]
    fp = fingerprint("new-quizzes", item)
    item["entry"]["title"] = f"{q.key} [moe:{quiz.bank_id}/{q.key}:{fp}]"
    return DesiredQuestion(q.key, fp, {"item": {**item, "position": position}})


def with_images(quiz: DesiredQuiz, files: dict[str, ImageFile]) -> DesiredQuiz:
    """``quiz`` as the format will build it once images are first-class (``files``: bank path -> image)."""
    questions = tuple(_question(quiz, q, files) for q in quiz.questions)
    digest = fingerprint(quiz.engine, [(q.key, q.fingerprint) for q in questions])
    return replace(quiz, questions=questions, digest=digest)


def shown_urls(html: str) -> list[str]:
    return re.findall(r'<img src="([^"]+)"', html)


__all__ = ["png", "resolve", "shown_urls", "with_images"]
