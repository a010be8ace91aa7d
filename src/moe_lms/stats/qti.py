"""IMS QTI 2.1 results: an ``assessmentResult`` document (one candidate's session, as TAO and qti-sdk write it).

Each ``itemResult`` names its item; moe-lms's QTI exports name an item ``<question-id>-<locale>``
(``formats/qti_item.item_identifier``), so the question and the locale come from the identifier; an item named by
the question id alone takes ``--locale``. The ``RESPONSE`` variable's ``candidateResponse`` values are choice
identifiers, which are the bank's choice ids. The learner is the context's ``sourcedId`` (else the file), the attempt
its session identifier (else the test result's identifier, else 1).
"""

from __future__ import annotations

from lxml import etree

from ..model import Bank
from ..xmlsafe import Budget, UnsafeXmlError, parse_untrusted
from .results import Attempt, Collector, Response

NS = "http://www.imsglobal.org/xsd/imsqti_result_v2p1"
_BUDGET = Budget(max_elements=1_000_000, max_depth=16)  # one session: a few elements per item


def _q(tag: str) -> str:
    return f"{{{NS}}}{tag}"


def read_qti_results(data: bytes, file: str, bank: Bank, locale: str | None) -> list[Attempt]:
    problems = Collector(file)
    try:
        root = parse_untrusted(data, budget=_BUDGET)
    except UnsafeXmlError as exc:
        problems.add(exc.line, exc.message)
        problems.done()
        return []
    if root.tag != _q("assessmentResult"):
        name = etree.QName(root)
        problems.add(
            root.sourceline,
            f"the root is <{name.localname}> in {name.namespace or 'no namespace'}, not a QTI 2.1 "
            f"<assessmentResult> ({NS})",
        )
        problems.done()
    context = root.find(_q("context"))
    learner = (context.get("sourcedId") if context is not None else None) or file
    session = context.find(_q("sessionIdentifier")) if context is not None else None
    test = root.find(_q("testResult"))
    attempt_id = (
        (session.get("identifier") if session is not None else None)
        or (test.get("identifier") if test is not None else None)
        or "1"
    )
    questions = {q.id: q for q in bank.questions}
    attempt: Attempt | None = None
    for item in root.iterfind(_q("itemResult")):
        line = item.sourceline
        identifier = item.get("identifier") or ""
        found = _question_and_locale(identifier, bank, locale)
        if isinstance(found, str):
            problems.add(line, found)
            continue
        question_id, item_locale = found
        if item.get("sessionStatus") == "initial":
            continue  # presented to nobody: the item was never started
        if attempt is None:
            attempt = Attempt(learner, attempt_id, item_locale, f"{file}:{line}")
        elif attempt.locale != item_locale:
            problems.add(line, f"item {identifier!r} is in {item_locale}, the session's first item in {attempt.locale}")
            continue
        if question_id in attempt.responses:
            problems.add(line, f"a second result for question {question_id!r} in one session")
            continue
        chosen: list[str] = []
        for variable in item.iterfind(_q("responseVariable")):
            if variable.get("identifier") != "RESPONSE":
                continue
            candidate = variable.find(_q("candidateResponse"))
            if candidate is not None:
                chosen += [(v.text or "").strip() for v in candidate.iterfind(_q("value"))]
        ids = {c.id for c in questions[question_id].choices}
        unknown = [c for c in chosen if c not in ids]
        if unknown:
            problems.add(
                line, f"choice {unknown[0][:40]!r} is not one of {', '.join(sorted(ids))}", f"item {identifier!r}"
            )
            continue
        attempt.responses[question_id] = Response(question_id, frozenset(chosen))
    problems.done()
    return [attempt] if attempt is not None else []


def _question_and_locale(identifier: str, bank: Bank, locale: str | None) -> tuple[str, str] | str:
    """The question id and locale an item identifier names, or why it names none."""
    ids = {q.id for q in bank.questions}
    question, _, suffix = identifier.rpartition("-")
    tag = suffix.replace("-", "_")
    if question in ids and tag.lower() in {loc.lower() for loc in bank.locales}:
        return question, next(loc for loc in bank.locales if loc.lower() == tag.lower())
    for loc in bank.locales:  # a locale with a region: ep-costs-pt-BR
        if identifier.endswith("-" + loc.replace("_", "-")) and identifier[: -len(loc) - 1] in ids:
            return identifier[: -len(loc) - 1], loc
    if identifier in ids:
        if locale is None:
            return (
                f"item {identifier!r} does not say its locale (moe-lms names items <question>-<locale>): give --locale"
            )
        return identifier, locale
    return f"item {identifier[:80]!r} is not a question of bank {bank.id} (in any of {', '.join(bank.locales)})"
