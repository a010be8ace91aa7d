"""The expressions of a parameterised question (``{1.25 * T * k / E}``, ``{ceil(x):.2f}``), evaluated safely.

Why a whitelist walk over Python's own parser rather than ``eval`` or a library: ``ast.parse(mode="eval")`` is a
maintained, exact parser of the arithmetic authors already write, and walking its tree with a whitelist (numbers,
the bank's params, ``+ - * / // % **``, and the functions in :data:`FUNCTIONS`) means nothing else can run: no
attribute access, no names but the params and those functions, no strings, no comprehensions, no lambdas. Nothing
is ever handed to ``eval`` or ``compile``. The libraries that do the same (simpleeval, asteval) either allow far more
than arithmetic (asteval is a Python interpreter) or are thin layers over this same walk with their own limits to
audit; a page of code whose every accepted node is listed here is easier to trust.

Every size is bounded before or while it is computed, so no expression takes long or much memory: the text's
length (:data:`MAX_LENGTH`, checked before parsing, so a 10,000-deep nesting is refused before the parser sees
it), the tree's depth (:data:`MAX_DEPTH`) and size (:data:`MAX_NODES`), each intermediate result's magnitude
(:data:`MAX_MAGNITUDE`: ``10**10**10`` is refused at its outer power, whose exponent is checked before the power
is taken) and the exponent of a power (:data:`MAX_EXPONENT`). Errors are :class:`ExpressionError` with words an
author can act on.

Rounding is half away from zero (``round(2.5)`` is 3, as taught in school), not Python's half-to-even.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

Number = int | float

MAX_LENGTH = 300  # characters of one expression
MAX_DEPTH = 24  # nesting of the parsed tree
MAX_NODES = 200  # nodes of the parsed tree
MAX_MAGNITUDE = 10**15  # the largest absolute value any step may produce
MAX_EXPONENT = 64  # the largest absolute exponent of a power
MAX_DIGITS = 10  # round(x, n) and format specs: at most this many decimals


class ExpressionError(ValueError):
    """An expression that cannot be parsed or evaluated; the message says why, in an author's words."""


def _round(value: Number, digits: Number = 0) -> Number:
    if not isinstance(digits, int) or not 0 <= digits <= MAX_DIGITS:
        raise ExpressionError(f"round(x, n) takes a whole number of decimals n from 0 to {MAX_DIGITS}")
    quantum = Decimal(1).scaleb(-digits)
    rounded = Decimal(repr(float(value)) if isinstance(value, float) else value).quantize(quantum, ROUND_HALF_UP)
    return int(rounded) if digits == 0 else float(rounded)


def _sqrt(value: Number) -> Number:
    if value < 0:
        raise ExpressionError(f"sqrt of a negative number ({value})")
    return math.sqrt(value)


def _log2(value: Number) -> Number:
    if value <= 0:
        raise ExpressionError(f"log2 of a number that is not positive ({value})")
    return math.log2(value)


def _least(*values: Number) -> Number:
    return min(values)


def _most(*values: Number) -> Number:
    return max(values)


# name: (function, fewest arguments, most arguments)
FUNCTIONS: dict[str, tuple[Callable[..., Number], int, int]] = {
    "ceil": (math.ceil, 1, 1),
    "floor": (math.floor, 1, 1),
    "round": (_round, 1, 2),
    "min": (_least, 1, 16),
    "max": (_most, 1, 16),
    "abs": (abs, 1, 1),
    "sqrt": (_sqrt, 1, 1),
    "log2": (_log2, 1, 1),
}

_OPERATORS: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
}


@dataclass(frozen=True)
class Expression:
    """A parsed, checked expression: evaluate it with :meth:`evaluate` for each combination of params."""

    source: str
    tree: ast.expr
    names: frozenset[str]  # the params it uses

    def evaluate(self, params: Mapping[str, Number]) -> Number:
        try:
            return _evaluate(self.tree, params)
        except ZeroDivisionError:
            raise ExpressionError("division by zero") from None
        except (OverflowError, InvalidOperation):
            raise ExpressionError(f"a result larger than {MAX_MAGNITUDE:.0e}") from None


def parse(source: str, params: frozenset[str] | set[str]) -> Expression:
    """``source`` parsed and checked against the whitelist, with ``params`` the only names it may use besides
    :data:`FUNCTIONS`; raises :class:`ExpressionError`."""
    if len(source) > MAX_LENGTH:
        raise ExpressionError(f"the expression is {len(source)} characters long; at most {MAX_LENGTH} are allowed")
    if not source.strip():
        raise ExpressionError("the braces hold no expression (write {{ and }} for literal braces)")
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        reason = exc.msg if isinstance(exc, SyntaxError) else "it cannot be parsed"
        raise ExpressionError(
            f"{source.strip()!r} is not an expression ({reason}); write {{{{ and }}}} for literal braces"
        ) from None
    names: set[str] = set()
    _check(tree.body, params, names, depth=1, count=[0])
    return Expression(source.strip(), tree.body, frozenset(names))


def _check(node: ast.AST, params: frozenset[str] | set[str], names: set[str], depth: int, count: list[int]) -> None:
    if depth > MAX_DEPTH:
        raise ExpressionError(f"the expression nests more than {MAX_DEPTH} deep")
    count[0] += 1
    if count[0] > MAX_NODES:
        raise ExpressionError(f"the expression has more than {MAX_NODES} parts")
    if isinstance(node, ast.Constant):
        if type(node.value) not in (int, float):
            raise ExpressionError(f"{node.value!r}: only numbers may be written in an expression")
        return
    if isinstance(node, ast.Name):
        if node.id in params:
            names.add(node.id)
            return
        if node.id in FUNCTIONS:
            raise ExpressionError(f"{node.id} is a function: call it, {node.id}(…)")
        known = ", ".join(sorted(params)) or "none"
        raise ExpressionError(
            f"unknown name {node.id!r} (the params are {known}; the functions {', '.join(FUNCTIONS)})"
        )
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        _check(node.left, params, names, depth + 1, count)
        _check(node.right, params, names, depth + 1, count)
        return
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        _check(node.operand, params, names, depth + 1, count)
        return
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            raise ExpressionError(f"only these functions may be called: {', '.join(FUNCTIONS)}")
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise ExpressionError(f"{node.func.id}() takes plain arguments only")
        _, fewest, most = FUNCTIONS[node.func.id]
        if not fewest <= len(node.args) <= most:
            wanted = str(fewest) if fewest == most else f"{fewest} to {most}"
            raise ExpressionError(f"{node.func.id}() takes {wanted} argument(s), not {len(node.args)}")
        for arg in node.args:
            _check(arg, params, names, depth + 1, count)
        return
    if isinstance(node, ast.Attribute):
        raise ExpressionError("attribute access (a dot after a name) is not allowed in an expression")
    what = type(node).__name__
    raise ExpressionError(
        f"{what} is not allowed: an expression is arithmetic on the params and the functions {', '.join(FUNCTIONS)}"
    )


def _bounded(value: Number) -> Number:
    if isinstance(value, float) and not math.isfinite(value):
        raise ExpressionError("the result is not a finite number")
    if abs(value) > MAX_MAGNITUDE:
        raise ExpressionError(f"a result larger than {MAX_MAGNITUDE:.0e} ({value:.3g})")
    return value


def _evaluate(node: ast.expr, params: Mapping[str, Number]) -> Number:
    if isinstance(node, ast.Constant):
        assert isinstance(node.value, (int, float))  # (_check let nothing else through)
        return _bounded(node.value)
    if isinstance(node, ast.Name):
        return params[node.id]
    if isinstance(node, ast.UnaryOp):
        operand = _evaluate(node.operand, params)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        function = FUNCTIONS[node.func.id][0]
        return _bounded(function(*(_evaluate(a, params) for a in node.args)))
    assert isinstance(node, ast.BinOp)
    left, right = _evaluate(node.left, params), _evaluate(node.right, params)
    op = node.op
    if isinstance(op, ast.Pow):
        if abs(right) > MAX_EXPONENT and abs(left) not in (0, 1):
            raise ExpressionError(f"an exponent larger than {MAX_EXPONENT} ({right:g})")
        if left == 0 and right < 0:
            raise ZeroDivisionError
        if left < 0 and isinstance(right, float) and not right.is_integer():
            raise ExpressionError("a negative number to a fractional power")
        result: Number = left**right
    elif isinstance(op, ast.Add):
        result = left + right
    elif isinstance(op, ast.Sub):
        result = left - right
    elif isinstance(op, ast.Mult):
        result = left * right
    elif isinstance(op, ast.Div):
        result = left / right
    elif isinstance(op, ast.FloorDiv):
        result = left // right
    else:
        result = left % right
    return _bounded(result)


# --- templates: text with {expression} and {expression:spec} -------------------------------------------------

SPEC = re.compile(r"^(?:\.(?P<fixed>\d{1,2})f|(?P<int>d)|\.(?P<sig>\d{1,2})g)$")


@dataclass(frozen=True)
class Placeholder:
    expression: Expression
    spec: str  # "" or one of SPEC's forms
    in_math: bool  # inside $…$ (a number there is written for LaTeX: {,} for a comma)
    start: int  # offset of the opening brace in the template text

    @property
    def text(self) -> str:
        """As written in the template, without braces (what a translation must keep)."""
        return self.expression.source + (f":{self.spec}" if self.spec else "")


Part = str | Placeholder


def parse_template(text: str, params: frozenset[str] | set[str]) -> tuple[Part, ...]:
    """A text split into literal runs and placeholders; ``{{`` and ``}}`` are literal braces. Raises
    :class:`ExpressionError` naming the placeholder that is wrong."""
    parts: list[Part] = []
    literal: list[str] = []
    i, n = 0, len(text)
    dollars = 0
    while i < n:
        ch = text[i]
        if ch == "{" and text.startswith("{{", i):
            literal.append("{")
            i += 2
            continue
        if ch == "}" and text.startswith("}}", i):
            literal.append("}")
            i += 2
            continue
        if ch == "}":
            raise ExpressionError(
                f"a '}}' with no '{{' before it at character {i + 1} (write }}}} for a literal brace)"
            )
        if ch == "$" and (i == 0 or text[i - 1] != "\\"):
            dollars += 1
            run = 2 if text.startswith("$$", i) else 1  # $$ opens or closes display math: one toggle
            literal.append(text[i : i + run])
            i += run
            continue
        if ch != "{":
            literal.append(ch)
            i += 1
            continue
        end = text.find("}", i + 1)
        if end < 0:
            raise ExpressionError(f"a '{{' with no '}}' after it at character {i + 1} (write {{{{ for a literal brace)")
        inner = text[i + 1 : end]
        if "{" in inner:
            raise ExpressionError(
                f"'{{{inner}}}' holds a brace: an expression cannot (write {{{{ and }}}} for "
                "literal braces, as in LaTeX: \\frac{{{{a}}}}{{{{b}}}})"
            )
        source, colon, spec = inner.partition(":")
        if colon and not SPEC.match(spec):
            raise ExpressionError(
                f"'{{{inner}}}': unknown format {spec!r} (use .2f for two decimals, d for a whole "
                "number, .3g for three significant digits)"
            )
        try:
            expression = parse(source, params)
        except ExpressionError as exc:
            hint = " (for literal braces, as in LaTeX, write {{ and }})" if "unknown name" in str(exc) else ""
            raise ExpressionError(f"'{{{inner}}}': {exc}{hint}") from None
        if literal:
            parts.append("".join(literal))
            literal = []
        parts.append(Placeholder(expression, spec, dollars % 2 == 1, i))
        i = end + 1
    if literal:
        parts.append("".join(literal))
    return tuple(parts)


def placeholders(text: str) -> list[str]:
    """The placeholders of a text as written (``T``, ``x:.2f``), sorted; literal ``{{``/``}}`` are not ones.
    Never raises: what is not a well-formed placeholder is left out (the template's own check reports it)."""
    found = []
    for match in re.finditer(r"\{\{|\}\}|\{([^{}]*)\}", text):
        if match.group(1) is not None:
            found.append(match.group(1).strip())
    return sorted(found)


def has_placeholder(text: str) -> bool:
    return bool(placeholders(text))


def format_number(value: Number, spec: str, locale: str, *, in_math: bool = False) -> str:
    """``value`` written for ``locale`` (Babel: its decimal separator and grouping; vi ``468,75``), by ``spec``:
    ``.Nf`` N decimals, ``d`` a whole number, ``.Ng`` N significant digits; none: as computed, to 12 significant
    digits, trailing zeros dropped. Inside math a comma is written ``{,}`` (LaTeX would space it)."""
    from babel.numbers import format_decimal

    match = SPEC.match(spec) if spec else None
    if spec and match is None:
        raise ExpressionError(f"unknown format {spec!r}")
    if match is not None and match["int"]:
        if isinstance(value, float) and not value.is_integer():
            raise ExpressionError(f"{value!r} is not a whole number (format d)")
        text = format_decimal(int(value), locale=locale)
    elif match is not None and match["fixed"]:
        digits = int(match["fixed"])
        quantum = Decimal(1).scaleb(-digits)
        number = Decimal(repr(value) if isinstance(value, float) else value).quantize(quantum, ROUND_HALF_UP)
        pattern = "#,##0" + ("." + "0" * digits if digits else "")
        text = format_decimal(number, format=pattern, locale=locale, decimal_quantization=False)
    else:
        significant = int(match["sig"]) if match is not None else 12
        number = Decimal(format(value, f".{significant}g")) if isinstance(value, float) else Decimal(value)
        whole = number == number.to_integral_value()
        number = number.quantize(Decimal(1)) if whole else number.normalize()
        text = format_decimal(number, locale=locale, decimal_quantization=False)
    if in_math:
        text = text.replace(",", "{,}").replace("\u202f", "\\,").replace("\xa0", "\\,")
    return text


def render(parts: tuple[Part, ...], params: Mapping[str, Number], locale: str) -> str:
    """The template's text for one combination of params, its numbers written for ``locale``."""
    out = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        else:
            out.append(format_number(part.expression.evaluate(params), part.spec, locale, in_math=part.in_math))
    return "".join(out)
