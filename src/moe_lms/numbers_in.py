"""Numbers read from outside (a package, an archive, a server's header): the one parser they all go through.

``str.isdigit()`` says yes to "²" and "٣", which ``int()`` then refuses with a traceback; ``int()`` refuses more
than 4,300 digits and ``float()`` turns 400 of them into infinity. So a number from outside is ASCII digits (and,
for a decimal, one point and an exponent), at most :data:`MAX_LENGTH` characters, within the range its reader
states; anything else is a :class:`BadNumber`, a :class:`ProblemsFound` naming the file, the line and what held
the number, which every command already prints as an error.
"""

from __future__ import annotations

import math
import re

from .problems import Problem, ProblemsFound

MAX_LENGTH = 40  # characters: far more than any count, limit or score a package holds
# The ranges readers give: attempts as a quiz allows them (model.Quiz.attempts), a time limit in minutes (a week).
MAX_ATTEMPTS = 1000
MAX_MINUTES = 10080
_DIGITS = re.compile(r"[0-9]+", re.ASCII)
_WHOLE = re.compile(r"[+-]?[0-9]+", re.ASCII)
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


class BadNumber(ProblemsFound):
    """A number from outside that is not one, or not in its range: one problem naming where it was."""


def whole_number(text: str | None, *, low: int, high: int, file: str, what: str, line: int | None = None) -> int | None:
    """The whole number ``text`` holds, from ``low`` to ``high``; None when it is missing or blank (the reader's
    default then applies). ``what`` names the element or attribute for the error (``<selection select>``)."""
    if text is None or not text.strip():
        return None
    raw = text.strip()
    if len(raw) <= MAX_LENGTH and _WHOLE.fullmatch(raw) and low <= (value := int(raw)) <= high:
        return value
    shown = raw if len(raw) <= MAX_LENGTH else f"{raw[:20]}… ({len(raw):,} characters)"
    message = f"{what} is {shown!r}, which is not a whole number from {low:,} to {high:,}"
    raise BadNumber([Problem(file, line, message)])


def ascii_digits(text: str) -> bool:
    """Whether ``text`` is a short run of ASCII digits, which ``int()`` reads (an id or a length from a server)."""
    return len(text) <= MAX_LENGTH and _DIGITS.fullmatch(text) is not None


def finite_number(text: str | None) -> float | int | None:
    """A finite decimal number (``2``, ``0.5``, ``1e3``) in ASCII, or None: for values a reader may do without
    (a score, a time limit it then leaves out), which it checks against its own range."""
    raw = (text or "").strip()
    if not raw or len(raw) > MAX_LENGTH or not _DECIMAL.fullmatch(raw):
        return None
    value = float(raw)
    if not math.isfinite(value):
        return None
    return int(value) if value.is_integer() else value
