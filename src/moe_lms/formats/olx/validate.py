"""Checking an Open edX course export (OLX ``.tar.gz``) before Studio sees it.

OLX has no schema; what is checked is what Open edX needs to import the course and grade its problems as meant:
the archive is safe to unpack, ``course.xml`` and every ``url_name`` it leads to are in it, and each choice
problem has a choice group, unique choice names, an answer key (exactly one correct choice for multiple choice,
at least one for checkboxes), a hint for each choice, and the images its HTML shows from ``/static/`` in the
archive's ``static/`` folder. Problems of other types are noted, not checked.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from lxml import etree

from ...problems import Problem, ProblemsFound, Severity
from ...xmlsafe import UnsafeXmlError
from ...zipsafe import UnsafePackage
from ..imported import number
from .read import SafeTar, open_course, tag_of
from .write import STATIC

_STATIC_SRC = re.compile(rf"^/{STATIC}/(.+)$")


def is_olx(data: bytes) -> bool:
    """Whether bytes look like a gzipped tar (an OLX export is one)."""
    return data[:2] == b"\x1f\x8b"


def _check_numerical(response: etree._Element, add: Callable[[etree._Element, str], None]) -> None:
    """A numericalresponse: a number as its answer and each additional answer, an input capa grades it from
    (capa's allowed_inputfields: formulaequationinput, textline), a tolerance capa can read."""
    for element in [response, *response.iterfind("additional_answer")]:
        if number(element.get("answer")) is None:
            add(element, f"answer {element.get('answer')!r} is not a number")
    if response.find("formulaequationinput") is None and response.find("textline") is None:
        add(response, "no formulaequationinput or textline: capa has nothing to read the answer from")
    for param in response.iterfind("responseparam[@type='tolerance']"):
        raw = (param.get("default") or "").strip()
        if number(raw.removesuffix("%")) is None:
            add(param, f"tolerance {raw!r} is not a number (or a percentage)")


def check_problem(problem: etree._Element, file: str, problems: list[Problem], tar: SafeTar, root: str) -> None:
    def add(element: etree._Element, message: str, severity: Severity = Severity.ERROR) -> None:
        problems.append(Problem(file, element.sourceline, message, severity=severity))

    numerical = [r for r in problem if r.tag == "numericalresponse"]
    if numerical:
        _check_numerical(numerical[0], add)
        return
    responses = [r for r in problem if r.tag in ("multiplechoiceresponse", "choiceresponse")]
    if not responses:
        add(problem, "not a choice problem; moe-lms does not check it", Severity.NOTE)
        return
    for response in responses:
        multiple = response.tag == "choiceresponse"
        group_tag = "checkboxgroup" if multiple else "choicegroup"
        groups = response.findall(group_tag)
        if len(groups) != 1:
            add(response, f"<{tag_of(response)}> needs exactly one <{group_tag}>, found {len(groups)}")
            continue
        choices = groups[0].findall("choice")
        if len(choices) < 2:
            add(groups[0], f"{len(choices)} choice(s); a question needs at least 2")
        names: set[str] = set()
        for choice in choices:
            name = choice.get("name")
            if name is not None:
                if name in names:
                    add(choice, f"choice name {name!r} is used twice")
                names.add(name)
            if (choice.get("correct") or "").lower() not in ("true", "false"):
                add(choice, f"correct={choice.get('correct')!r}; capa reads only true or false")
            hints = choice.findall("choicehint")
            if multiple and not any((h.get("selected") or "").lower() == "true" for h in hints):
                add(choice, 'no <choicehint selected="true">: choosing it shows no explanation', Severity.WARNING)
            elif not multiple and not hints:
                add(choice, "no <choicehint>: choosing it shows no explanation", Severity.WARNING)
        correct = sum((c.get("correct") or "").lower() == "true" for c in choices)
        if multiple and correct == 0:
            add(groups[0], "no correct choice: the problem has no answer key")
        elif not multiple and correct != 1:
            add(groups[0], f"a multiple choice problem needs exactly one correct choice, found {correct}")
    if problem.find("solution") is None:
        add(problem, "no <solution>: Show answer gives no explanation", Severity.WARNING)
    for image in problem.iter("img"):
        match = _STATIC_SRC.match(image.get("src") or "")
        if match is None:
            continue
        path = posixpath.join(root, STATIC, match.group(1)) if root else f"{STATIC}/{match.group(1)}"
        if path not in tar.files:
            add(image, f"an image refers to {image.get('src')!r}, which is not in the archive's {STATIC}/ folder")


def check_course(data: bytes, *, name: str = "course.tar.gz") -> list[Problem]:
    """Every check on one OLX course archive."""
    problems: list[Problem] = []
    try:
        tar, root, tree, _, course = open_course(data, name, problems)
        count = 0
        for block in tree.walk(course):
            if block.tag == "problem":
                count += 1
                file = f"{name}!/{tree.path('problem')}/{block.get('url_name', '?')}.xml"
                check_problem(block, file, problems, tar, root)
        if count == 0:
            problems.append(Problem(name, None, "the course has no problem"))
    except ProblemsFound as exc:
        return exc.problems
    except (UnsafePackage, UnsafeXmlError) as exc:
        return [*problems, Problem(name, getattr(exc, "line", None), str(exc))]
    return problems
