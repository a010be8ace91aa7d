"""Checking any Moodle XML file (:func:`check_moodle_xml`) by the rules the export keeps: what Moodle's importer
would refuse, mangle or import unusable (fractions off the grade list, single-answer questions without one 100%
answer, fewer than two answers, duplicate idnumbers, multilang spans the filter mis-reads).

This module reads untrusted bytes (through :mod:`moe_lms.xmlsafe`) and reports problems; it must not know the
bank model or how the export writes a question.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from lxml import etree

from ...problems import Problem, Severity
from ...xmlsafe import UnsafeXmlError, parse_untrusted
from .files import missing_files
from .shape import GRADE_TOLERANCE, GRADES, multilang_problems, on_grade_list

if TYPE_CHECKING:
    from ...schemas import Schemas


def single_answer(element: etree._Element) -> bool:
    """Moodle's reading of <single>: absent means true; 'false', empty and '0' mean false."""
    value = element.findtext("single")
    return value is None or value.strip() not in ("false", "", "0")


def check_moodle_xml(data: bytes, *, file: str = "<moodle xml>") -> list[Problem]:
    """Problems Moodle's importer would have with a Moodle XML file, each with its line; empty when it is fine.

    Checks that the file is well-formed XML (parsed safely: no DTDs, no entities, size-limited) with a ``<quiz>``
    root, and the rules Moodle 4.5 enforces badly: every multichoice has at least two answers (else the import
    aborts half-done), fractions are on Moodle's grade list (else the whole import stops), a single-answer
    multichoice has a 100% answer (else it imports silently as a question nobody can get right), the positive
    fractions of a multiple-answer question add up to 100%, and no idnumber repeats within a category (Moodle
    silently drops the second one's idnumber). Multilang spans the filter would mis-read are reported as warnings.
    """
    try:
        root = parse_untrusted(data)
    except UnsafeXmlError as exc:
        return [Problem(file, exc.line, exc.message)]
    if root.tag != "quiz":
        return [Problem(file, root.sourceline, f"the root element is <{root.tag!s}>; Moodle XML needs <quiz>")]
    problems: list[Problem] = []
    category = ""  # questions before any category go to the one chosen on Moodle's import page
    first_use: dict[tuple[str, str], int | None] = {}
    for q in root.iterchildren("question"):
        qtype = q.get("type")
        name = (q.findtext("name/text") or "").strip()
        where = f"question {name!r}" if name else None

        def add(
            message: str,
            line: int | None = q.sourceline,
            severity: Severity = Severity.ERROR,
            where: str | None = where,
        ) -> None:
            problems.append(Problem(file, line, message, where, severity=severity))

        if qtype is None:
            add("<question> has no type attribute")
            continue
        if qtype == "category":
            path = (q.findtext("category/text") or "").strip()
            if not path:
                add("a category question needs <category><text>path</text></category>")
            else:
                category = path
        else:
            idnumber = (q.findtext("idnumber") or "").strip()
            if idnumber:
                key = (category, idnumber)
                if key in first_use:
                    add(
                        f"idnumber {idnumber!r} is already used in category {category or '(default)'!r} at line "
                        f"{first_use[key]}; Moodle silently drops the idnumber of the second"
                    )
                else:
                    first_use[key] = q.sourceline
            if qtype == "multichoice":
                for message, line in _multichoice_problems(q):
                    add(message, line)
        for text in q.iter("text"):
            for message in multilang_problems(text.text or ""):
                add(message, text.sourceline, Severity.WARNING)
            for message in missing_files(text):
                add(message, text.sourceline)
    return problems


def _multichoice_problems(q: etree._Element) -> Iterable[tuple[str, int | None]]:
    answers = q.findall("answer")
    if len(answers) < 2:
        yield f"a multichoice has {len(answers)} answer(s); Moodle aborts the import mid-file below 2", q.sourceline
    fractions: list[Decimal] = []
    for answer in answers:
        raw = answer.get("fraction", "0")
        try:
            value = Decimal(raw.strip())
        except InvalidOperation:
            yield f"fraction {raw!r} is not a number", answer.sourceline
            continue
        if not value.is_finite() or not on_grade_list(value):
            yield (
                f"fraction {raw} is not on Moodle's grade list ({', '.join(GRADES)}, 0 and their negatives); "
                "Moodle stops the whole import",
                answer.sourceline,
            )
            continue
        fractions.append(value)
    if not fractions:
        return
    if single_answer(q):
        if max(fractions) < 100 - GRADE_TOLERANCE:
            yield (
                "a single-answer multichoice without a 100% answer; Moodle imports it silently as a question "
                "nobody can get right",
                q.sourceline,
            )
    else:
        total = sum(f for f in fractions if f > 0)
        if round(total / 100, 2) != 1:
            yield f"the positive fractions add up to {total}%, not 100%", q.sourceline


def check(data: bytes, schemas: Schemas | None, /, *, name: str) -> list[Problem]:
    """:func:`check_moodle_xml` as the registry's :class:`~moe_lms.formats.Checker` (Moodle XML has no XSD)."""
    return check_moodle_xml(data, file=name)
