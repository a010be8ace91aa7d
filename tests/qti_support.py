"""Test material for the QTI 2.1 tests: a bank that uses every feature, package helpers, and a minimal QTI
response-processing evaluator (no Python QTI 2.1 engine is on PyPI) for exactly the constructs items use."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable, Mapping
from typing import Any

from lxml import etree

from moe_lms.formats import ExportOptions, get
from moe_lms.model import Bank, Translation, strings

QTI = "http://www.imsglobal.org/xsd/imsqti_v2p1"
NS = {"q": QTI}


def rich_bank(*, translate_all: bool = False) -> Bank:
    """Markdown, all three kinds, fractional points, an intro, tags, an RTL locale with one string missing
    (it falls back to English), a draft, and text that needs escaping."""
    bank = Bank.model_validate(
        {
            "id": "rich-bank",
            "title": "Rich *bank* & friends",
            "intro": "Read each question.\n\nThen answer **once**.",
            "source_locale": "en",
            "target_locales": ["ur", "vi"],
            "tags": ["demo", "qti"],
            "questions": [
                {
                    "id": "single-md",
                    "points": 2.5,
                    "shuffle": False,
                    "tags": ["markdown"],
                    "stem": "Which call uses `all_to_all`?\n\n- one\n- two",
                    "explanation": "See the [docs](https://example.org/a?b=1&c=2) and *this* note.",
                    "choices": [
                        {
                            "id": "a",
                            "text": "The `dispatch` step",
                            "correct": True,
                            "explanation": "Yes: **dispatch**.",
                        },
                        {"id": "b", "text": "A <script>alert(1)</script> step", "explanation": "No <b>bold</b> claim."},
                        {"id": "c", "text": "5 * 3 > 2 & 1 < 4", "explanation": "Arithmetic: 5 \\* 3."},
                    ],
                },
                {
                    "id": "multi",
                    "kind": "multiple",
                    "points": 3,
                    "stem": "Pick the collectives used by expert parallelism.",
                    "explanation": "Dispatch and combine are both all-to-all exchanges.",
                    "choices": [
                        {
                            "id": "dispatch",
                            "text": "All-to-all dispatch",
                            "correct": True,
                            "explanation": "Sends tokens.",
                        },
                        {
                            "id": "combine",
                            "text": "All-to-all combine",
                            "correct": True,
                            "explanation": "Returns outputs.",
                        },
                        {"id": "broadcast", "text": "Broadcast", "explanation": "Same data to everyone."},
                        {"id": "reduce", "text": "Reduce", "explanation": "Sums into one rank."},
                    ],
                },
                {
                    "id": "tf",
                    "kind": "true-false",
                    "stem": "Experts are sharded across GPUs.",
                    "explanation": "That is what expert parallelism means.",
                    "choices": [
                        {"id": "true", "text": "True", "correct": True, "explanation": "Correct."},
                        {"id": "false", "text": "False", "explanation": "They are sharded."},
                    ],
                },
            ],
        }
    )
    translations: dict[str, dict[str, Translation]] = {"ur": {}, "vi": {}}
    for path, source in strings(bank):
        if path.startswith("feedback/"):
            continue
        if translate_all or path != "single-md/choices/b/explanation":
            translations["ur"][path] = Translation(text=f"اردو: {source}", source=source)
        translations["vi"][path] = Translation(text=f"Tiếng Việt: {source}", source=source, draft=path == "tf/stem")
    return bank.model_copy(update={"translations": translations})


def export(bank: Bank, locales: Iterable[str] = (), *, include_drafts: bool = False) -> bytes:
    options = ExportOptions.for_bank(bank, tuple(locales), include_drafts=include_drafts)
    return get("qti21").dump(bank, options)


def members(package: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(package)) as z:
        return {name: z.read(name) for name in z.namelist()}


def rezip(files: Mapping[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue()


def item_root(package: bytes, question_id: str, locale: str) -> etree._Element:
    return etree.fromstring(members(package)[f"items/{question_id}-{locale}.xml"])


# --- a minimal QTI 2.1 response-processing evaluator --------------------------------------------------------


class Unsupported(Exception):
    """The item uses a construct this evaluator does not know: extend it rather than guess."""


def _local(element: etree._Element) -> str:
    return etree.QName(element).localname


def _typed(base_type: str, text: str) -> Any:
    if base_type == "float":
        return float(text)
    if base_type == "identifier":
        return text.strip()
    raise Unsupported(f"baseType {base_type}")


class Evaluator:
    """Runs an item's responseProcessing for one response, as a QTI 2.1 engine would for these constructs:
    responseCondition/If/ElseIf/Else, setOutcomeValue, isNull, match, member, correct, variable, baseValue,
    multiple and mapResponse (with its bounds)."""

    def __init__(self, item: etree._Element) -> None:
        self.item = item
        self.declarations = {d.get("identifier"): d for d in item.iterfind("q:responseDeclaration", NS)}
        self.declarations |= {d.get("identifier"): d for d in item.iterfind("q:outcomeDeclaration", NS)}

    def _default(self, identifier: str) -> Any:
        declaration = self.declarations[identifier]
        values = [
            _typed(declaration.get("baseType", ""), v.text or "")
            for v in declaration.iterfind("q:defaultValue/q:value", NS)
        ]
        return self._container(declaration, values)

    @staticmethod
    def _container(declaration: etree._Element, values: list[Any]) -> Any:
        if declaration.get("cardinality") == "single":
            return values[0] if values else None
        return frozenset(values) if values else None

    def run(self, response: str | frozenset[str] | None) -> dict[str, Any]:
        self.variables: dict[str, Any] = {i: self._default(i) for i in self.declarations if i != "RESPONSE"}
        self.variables["RESPONSE"] = response if response != frozenset() else None
        processing = self.item.find("q:responseProcessing", NS)
        if processing is None or processing.get("template"):
            raise Unsupported("templates")
        self._rules(processing)
        return self.variables

    def _rules(self, parent: etree._Element) -> None:
        for rule in parent:
            self._rule(rule)

    def _rule(self, rule: etree._Element) -> None:
        name = _local(rule)
        if name == "setOutcomeValue":
            (expression,) = list(rule)
            self.variables[rule.get("identifier", "")] = self._value(expression)
        elif name == "responseCondition":
            for branch in rule:
                if _local(branch) == "responseElse":
                    self._rules(branch)
                    return
                condition, *body = list(branch)
                if self._value(condition) is True:
                    for nested in body:
                        self._rule(nested)
                    return
        else:
            raise Unsupported(name)

    def _value(self, e: etree._Element) -> Any:
        name = _local(e)
        args = list(e)
        if name == "variable":
            return self.variables.get(e.get("identifier", ""))
        if name == "baseValue":
            return _typed(e.get("baseType", ""), e.text or "")
        if name == "correct":
            declaration = self.declarations[e.get("identifier", "")]
            values = [(v.text or "").strip() for v in declaration.iterfind("q:correctResponse/q:value", NS)]
            return self._container(declaration, values)
        if name == "isNull":
            value = self._value(args[0])
            return value is None or value == frozenset()
        if name == "match":
            a, b = (self._value(x) for x in args)
            return None if a is None or b is None else a == b
        if name == "member":
            a, b = (self._value(x) for x in args)
            return None if a is None or b is None else a in b
        if name == "multiple":
            items: set[Any] = set()
            for arg in args:
                value = self._value(arg)
                if isinstance(value, frozenset):
                    items |= value
                elif value is not None:
                    items.add(value)
            return frozenset(items) if items else None
        if name == "mapResponse":
            declaration = self.declarations[e.get("identifier", "")]
            mapping = declaration.find("q:mapping", NS)
            assert mapping is not None
            table = {m.get("mapKey"): float(m.get("mappedValue", "0")) for m in mapping.iterfind("q:mapEntry", NS)}
            response = self.variables[e.get("identifier", "")]
            chosen = response if isinstance(response, frozenset) else {response}
            total = sum(table.get(k, float(mapping.get("defaultValue", "0"))) for k in chosen)
            if mapping.get("lowerBound") is not None:
                total = max(total, float(mapping.get("lowerBound", "0")))
            if mapping.get("upperBound") is not None:
                total = min(total, float(mapping.get("upperBound", "0")))
            return total
        raise Unsupported(name)

    def shown_feedback(self) -> list[str]:
        """Identifiers of the modalFeedback a candidate sees after this response, in document order."""
        shown = []
        for feedback in self.item.iterfind("q:modalFeedback", NS):
            value = self.variables.get(feedback.get("outcomeIdentifier", ""))
            hit = (
                feedback.get("identifier") in value
                if isinstance(value, frozenset)
                else feedback.get("identifier") == value
            )
            if hit == (feedback.get("showHide") == "show"):
                shown.append(feedback.get("identifier", ""))
        return shown
