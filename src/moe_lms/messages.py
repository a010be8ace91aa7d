"""Problems said in the author's words: what YAML or pydantic saw, in terms of what the author wrote, and the fix.

The loader finds the problem and its place; this module only words it. Each function returns None when it has
nothing better to say than the loader's general wording.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

# A line that starts with a key (maybe as a list item's first key): its indentation, dash, key and the column the
# key starts at are what an indentation message compares.
_KEY_LINE = re.compile(r"^( *)(- +)?([^\s#:'\"][^:#]*?):(?:[ \t]|$)")


def _keys(lines: Sequence[str], before: int) -> list[tuple[int, int, str]]:
    """The keys a line at ``before`` (0-based) can line up with, nearest first: for each level of indentation above
    it, (column, 0-based line, what starts there: ``key:`` or ``- ``), each less indented than the one before."""
    found: list[tuple[int, int, str]] = []
    limit = 1 << 30
    for number in range(before - 1, -1, -1):
        line = lines[number]
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _KEY_LINE.match(line)
        indent = len(line) - len(line.lstrip(" "))
        if match is None:
            if indent < limit:  # a continued text: not a level, but nothing above it can be nearer
                limit = min(limit, indent + 1)
            continue
        key_column = indent + len(match.group(2) or "")
        if key_column < limit:
            found.append((key_column, number, f"{match.group(3)}:"))
            limit = key_column
        if match.group(2) and indent < limit:
            found.append((indent, number, "- "))
            limit = indent
        if limit == 0:
            break
    return found


def yaml_syntax_message(text: str, line: int, column: int, parser_says: str) -> str | None:
    """A YAML syntax error caused by indentation, said as such: which key is indented how, and what to line it up
    with. ``line`` and ``column`` are 1-based, as the parser gives them."""
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return None
    here = lines[line - 1]
    match = _KEY_LINE.match(here)
    if match is None:
        return None
    indent = len(match.group(1)) + len(match.group(2) or "")
    key = f"{match.group(3)}:"
    levels = _keys(lines, line - 1)
    if not levels:
        return None
    if "mapping values are not allowed" in parser_says:
        # The colon YAML stopped at is this line's first key's: the line is a key, indented so far that YAML read
        # it as more of the text above.
        if column != indent + len(match.group(3)) + 1:
            return None
        above = levels[0]
        if above[0] >= indent or above[2] == "- ":
            return None
        return (
            f"`{key}` on line {line} is indented more ({indent} spaces) than `{above[2]}` on line {above[1] + 1} "
            f"({above[0]} spaces), so YAML read it as part of the value of `{above[2]}`: indent `{key}` by "
            f"{above[0]} spaces, as `{above[2]}` is"
        )
    if "did not find expected" in parser_says:
        if any(level == indent for level, _, _ in levels):
            return None
        deeper = [level for level in levels if level[0] > indent]
        shallower = [level for level in levels if level[0] < indent]
        if not deeper:
            return None
        near = deeper[-1]
        said = f"`{key}` on line {line} is indented {indent} spaces, which lines up with no key above it"
        options = [f"{near[0]} spaces, as `{near[2]}` on line {near[1] + 1} (a key of the same part)"]
        if shallower:
            outer = shallower[0]
            what = "a new `- ` item, as on" if outer[2] == "- " else f"a key beside `{outer[2]}` on"
            options.append(f"{outer[0]} for {what} line {outer[1] + 1}")
        return f"{said}: indent it {' or '.join(options)}"
    return None


def _yaml_spelling(value: Any, written: str | None) -> str:
    if written is not None:
        return written
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _kind_of(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if value is None:
        return "nothing"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return None


# pydantic's range errors ("Input should be less than or equal to 10080"), in the author's words.
_BOUNDS = {
    "less_than_equal": ("le", "more than the most it may be, {}: write {} or less"),
    "less_than": ("lt", "too large: write a number below {}"),
    "greater_than": ("gt", "too small: write a number above {}"),
    "greater_than_equal": ("ge", "less than the least it may be, {}: write {} or more"),
}


def validation_message(
    err: Mapping[str, Any], name: str, *, written: str | None = None, question: Mapping[str, Any] | None = None
) -> str | None:
    """One pydantic error in the author's words. ``written`` is the value as bank.yaml spells it (for quoting);
    ``question`` the raw question the error is in, when it is in one."""
    kind = err["type"]
    value = err.get("input")
    if kind == "string_type":
        seen = _kind_of(value)
        if seen is None:
            return None
        if value is None:
            return f"{name}: there is no text after `{name}:`: write the text on the same line, or indented below"
        spelled = _yaml_spelling(value, written)
        if isinstance(value, list | dict):
            return (
                f"{name}: YAML read {seen} here, not a text (a text that begins with [ or {{ is read so): put the "
                f'text in quotes: {name}: "…"'
            )
        return f'{name}: YAML read {spelled} as {seen}, not a text: put it in quotes: {name}: "{spelled}"'
    if kind == "bool_type":
        spelled = _yaml_spelling(value, written)
        return f"{name}: {spelled!r} is not true or false: write {name}: true or {name}: false"
    if kind == "true_false_shorthand":
        return str(err["msg"])
    bounds = err.get("ctx") or {}
    if kind in _BOUNDS and isinstance(value, int | float) and not isinstance(value, bool):
        key, words = _BOUNDS[kind]
        limit = bounds.get(key)
        return f"{name}: {value} is {words.format(limit, limit)}"
    if kind == "missing" and name == "choices" and question is not None and question.get("kind") == "true-false":
        return (
            "missing required key 'choices': a true-false question needs its two choices (True and False), or "
            "instead, without choices, correct: true or false with true_explanation and false_explanation"
        )
    return None


# Which keys each part of a bank takes, to say where a key in the wrong place belongs.
_PARTS = ("the bank", "a question", "a choice", "the feedback")


def misplaced_key(name: str, here: str, keys_of: Mapping[str, Sequence[str]]) -> str | None:
    """For a key that is unknown where it is but known elsewhere (``correct`` on a question): where it belongs.
    ``here`` is the part it was found in; ``keys_of`` the keys of each part of :data:`_PARTS`."""
    if name == "correct" and here == "a question":
        return (
            "'correct' is a key of a choice, not of a question: write correct: true on the right choice (a "
            "true-false question may instead leave out its choices and say correct: true or false, with "
            "true_explanation and false_explanation)"
        )
    if name in ("true_explanation", "false_explanation") and here == "a question":
        return (
            f"{name!r} belongs to the true-false short form: a question with kind: true-false, correct: true or "
            "false, and no choices"
        )
    homes = [part for part in _PARTS if part != here and name in keys_of.get(part, ())]
    if not homes:
        return None
    return f"{name!r} is a key of {' and of '.join(homes)}, not of {here}: check its indentation"


def locale_not_targeted(locale: str) -> str:
    """A PO file for a locale the bank does not list."""
    return (
        f"locale {locale!r} is not in the bank's target_locales: to translate into it, add {locale} to "
        f"target_locales: in bank.yaml and run `moe-lms translations update` (or delete this file)"
    )


def catalog_missing(locale: str, po_file: str) -> str:
    """A target locale with no PO file yet."""
    return (
        f"locale {locale!r} is in target_locales but has no {po_file} yet: run `moe-lms translations update` to "
        "make it, with every string to translate"
    )
