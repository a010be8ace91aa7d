"""Numbers of numerical questions as text: how every format writes a value, and how a typed answer is read.

A value is written in the shortest form that reads back as the same float (``469``, ``468.75``, ``1e-06``): the
form every platform's parser (PHP's is_numeric, XML Schema's xs:double, Ruby's Float, JavaScript's Number)
accepts. What a learner types may instead use the locale's digits and decimal separator (vi ``468,75``, Urdu
``۴۶۸٫۷۵``): :func:`typed_number` reads it as the HTML page does (quiz.js mirrors it).
"""

from __future__ import annotations

import math
import re
import unicodedata

from babel import Locale, numbers


def number_text(value: float) -> str:
    """The shortest text that reads back as ``value`` (no trailing ``.0``)."""
    if value == 0:
        return "0"  # (never -0)
    text = repr(float(value))
    if text.endswith(".0"):
        text = text[:-2]
    return text


def decimal_separator(locale: str) -> str:
    """The locale's decimal separator as CLDR gives it (``,`` for vi, ``٫`` for ur in Arabic-Indic digits)."""
    return str(numbers.get_decimal_symbol(Locale.parse(locale)))


_SPACES = re.compile(r"[\s\u00a0\u202f\u2009_'\u066c]+")  # (U+066C: the Arabic thousands separator)
_PLAIN = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def typed_number(text: str, locale: str) -> float | None:
    """What a learner typed, as a number, or None when it is not one.

    Any Unicode decimal digits (Arabic-Indic, Extended Arabic-Indic as Urdu writes them, …) count as their values;
    ``.``, the Arabic decimal separator U+066B and the locale's own separator are decimal points; spaces and
    thin spaces between digit groups are ignored. A ``,`` is a decimal point only where the locale says so (vi, fr,
    de): elsewhere it is refused as ambiguous rather than read as a thousands separator.
    """
    cleaned = []
    for ch in unicodedata.normalize("NFKC", text.strip()):
        if ch.isdecimal():
            cleaned.append(str(unicodedata.decimal(ch)))
        elif ch in "\u2212\u2012\u2013":  # minus signs
            cleaned.append("-")
        else:
            cleaned.append(ch)
    joined = _SPACES.sub("", "".join(cleaned))
    separator = decimal_separator(locale)
    for point in {separator, "\u066b"} - {"."}:
        if point == "," and separator != ",":
            continue
        joined = joined.replace(point, ".")
    if not _PLAIN.fullmatch(joined):
        return None
    found = float(joined)
    return found if math.isfinite(found) else None
