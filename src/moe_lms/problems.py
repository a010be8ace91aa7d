"""Errors are values with a place: commands collect them and report them all at once."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .errors import MoeLmsError, OptionError

__all__ = ["MoeLmsError", "OptionError", "Problem", "ProblemsFound", "Severity"]


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"  # said for the record: not a problem (a known issue already accepted, say)


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None
    message: str
    where: str | None = None  # "question 'ep-distributes', choice 'c'"
    column: int | None = None
    severity: Severity = Severity.ERROR

    def __str__(self) -> str:
        place = self.file
        if self.line is not None:
            place += f":{self.line}"
            if self.column is not None:
                place += f":{self.column}"
        where = f" {self.where}:" if self.where else ""
        return f"{place}: {self.severity}:{where} {self.message}"


class ProblemsFound(MoeLmsError):
    """Raised when input cannot be used; carries every problem found, not just the first."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(map(str, problems)))
        self.problems = problems
