"""The backslash trap: LaTeX typed where a backslash is an escape.

In a YAML text in "double quotes", and in a PO file's msgstr, ``\\t``, ``\\n``, ``\\r``, ``\\f``, ``\\b``, ``\\v``,
``\\a``, ``\\e`` and ``\\0`` are escapes. So ``$2 \\times 3$`` reaches moe-lms as ``$2 <tab>imes 3$`` and
``$\\theta$`` as ``$<tab>heta$``: the learner reads "2imes3", and nothing in the file looks wrong. The parsers cannot
tell; this module can, from what an escape leaves behind: a control character inside math, or one followed by the
rest of a LaTeX command's name. Every finding is an error (an export would show garbage), said with the fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Each control character an escape makes, with the escape's letter and a name for it.
ESCAPED: dict[str, tuple[str, str]] = {
    "\t": ("t", "a tab"),
    "\n": ("n", "a line break"),
    "\r": ("r", "a carriage return"),
    "\f": ("f", "a form feed (U+000C)"),
    "\b": ("b", "a backspace (U+0008)"),
    "\v": ("v", "a vertical tab (U+000B)"),
    "\a": ("a", "a bell character (U+0007)"),
    "\x1b": ("e", "an escape character (U+001B)"),
    "\x00": ("0", "a NUL character (U+0000)"),
}

# LaTeX commands that begin with t or n, the two escapes that leave ordinary whitespace behind: outside math, only
# one of these (the escape's letter + the letters after it) is taken as a sign of the trap, since a tab or a line
# break before a word is ordinary text.
_COMMANDS = {
    "t": {
        "tan", "tanh", "tau", "text", "textbf", "textit", "textrm", "textsf", "texttt", "textstyle", "tfrac", "theta",
        "therefore", "tilde", "times", "tiny", "to", "top", "triangle", "triangleleft", "triangleright", "tt",
    },
    "n": {
        "nabla", "natural", "ncong", "ne", "nearrow", "neg", "neq", "newline", "nexists", "ngeq", "ngtr", "ni",
        "nleftarrow", "nleq", "nless", "nmid", "normalsize", "not", "notin", "nparallel", "nrightarrow", "nsim",
        "nsubseteq", "nsupseteq", "nu", "nwarrow",
    },
}  # fmt: skip

# What may be a trap, found in one pass: a tab before a letter, a line break before the rest of a command whose
# name starts with n, any other escaped control character (a line break before an ordinary word is no candidate).
_CANDIDATE = re.compile(
    "\t(?=[A-Za-z])|\n(?:"
    + "|".join(sorted((c[1:] for c in _COMMANDS["n"]), key=len, reverse=True))
    + ")(?![A-Za-z])|[\r\f\b\v\a\x1b\x00]"
)
_LETTERS = re.compile("[A-Za-z]*")


@dataclass(frozen=True)
class Trap:
    """A control character an escape made: where, which, and the letters of the command it ate into."""

    position: int  # 0-based, in the text
    character: str
    letters: str  # the letters right after it ("imes" of \times)
    in_math: bool

    @property
    def command(self) -> str:
        """What the author typed, as far as it can be told: ``\\times``."""
        return "\\" + ESCAPED[self.character][0] + self.letters

    def became(self) -> str:
        """What happened, in words: ``\\times became a tab and "imes"``."""
        name = ESCAPED[self.character][1]
        rest = f' followed by "{self.letters}"' if self.letters else ""
        return f"{self.command} became {name}{rest}"


_DOLLAR = re.compile(r"(?<!\\)\$")  # a math delimiter (an escaped \$ is none)


def find_trap(text: str, start: int = 0) -> Trap | None:
    """The first control character of ``text`` (from ``start``) an escape most likely made, or None.

    A tab or a line break counts inside math when letters follow it, or anywhere when the escape's letter and the
    letters after it spell a LaTeX command (``\\theta``, ``\\nabla``; for a line break outside math, two letters
    at least: a line starting "e.g." is no ``\\ne``). A carriage return, form feed, backspace, vertical tab, bell,
    escape or NUL counts when letters follow it or inside math: no text holds one on purpose. Linear in the text:
    the dollars before each candidate are counted once."""
    if text.isprintable():
        return None  # (the common case: no control character at all)
    dollars, counted_to = 0, 0
    has_math = "$" in text
    for match in _CANDIDATE.finditer(text, start):
        character, position = match.group()[0], match.start()
        letters = _LETTERS.match(text, position + 1)
        assert letters is not None  # (the pattern matches the empty string)
        after = letters.group()
        if has_math:  # inside math: after an odd number of dollars
            dollars += len(_DOLLAR.findall(text, counted_to, position))
            counted_to = position
        in_math = dollars % 2 == 1
        escape = ESCAPED[character][0]
        if character in "\t\n":
            known = escape + after in _COMMANDS[escape]
            tab = character == "\t"
            found = (bool(after) and (in_math or known)) if tab else (known and (in_math or len(after) >= 2))
        else:
            found = bool(after) or in_math
        if found:
            return Trap(position, character, after, in_math)
    return None


def yaml_message(trap: Trap) -> str:
    """The trap in a bank.yaml text, and the fix."""
    return (
        f'a backslash inside "double quotes" is a YAML escape: {trap.became()} at character {trap.position + 1}, '
        "so the learner would not see the LaTeX you typed. Write the text in 'single quotes' (a ' inside is "
        "written '') or as a block (>- or |-, the text on the lines below, indented), where a backslash is just a "
        "backslash"
    )


def po_message(trap: Trap) -> str:
    """The trap in a PO file's msgstr, and the fix."""
    doubled = trap.command.replace("\\", "\\\\")
    return (
        f"msgstr: in a PO file a backslash starts an escape: {trap.became()} at character {trap.position + 1}. "
        f"Write {doubled} (each backslash doubled, as the msgid shows it; a PO editor does this for you). Until "
        "then the entry is not used"
    )


def illegal_character_hint(character: str) -> str:
    """For a control character XML cannot carry that an escape makes (``\\f``, ``\\b`` …): where it came from."""
    if character not in ESCAPED or character in "\t\n\r":
        return ""
    escape = ESCAPED[character][0]
    return (
        f'; in a YAML text in "double quotes" (or a PO msgstr) \\{escape} is an escape for it, so LaTeX such as '
        f"\\{escape}… lost its backslash: write the text in 'single quotes' or as a block (>- or |-); in a PO file "
        "double the backslash"
    )


def unknown_escape_column(line_text: str, column: int) -> int | None:
    """The 1-based column of the first backslash YAML cannot read as an escape in the double-quoted text that starts
    at ``column`` (1-based, the opening quote) of ``line_text``."""
    index = column  # (the character after the quote, 0-based)
    while index < len(line_text):
        char = line_text[index]
        if char == '"':
            return None
        if char == "\\":
            following = line_text[index + 1 : index + 2]
            if following and following not in '0abt\tnvfre "/\\N_LPxuU':
                return index + 1
            index += 2
            continue
        index += 1
    return None
