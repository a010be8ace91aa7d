"""A JSON layout writes, for any skeleton and any values, the bytes json.dumps writes of the filled skeleton."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from moe_lms.formats.jsonlayout import Layout, Slot, fill, token, tokens

# Strings as hostile as JSON meets: quotes, backslashes, control characters, braces and percent signs (the
# characters a template language would read), NULs and the text of a placeholder, any script; no lone surrogate
# (UTF-8 has none).
HOSTILE = st.lists(
    st.one_of(
        st.characters(exclude_categories=["Cs"]),
        st.sampled_from([*'"\\\x00\x01\x1f\n\r\t{}%/\u2028\x85', "\\u0000", "{x}", "%(x)s", '"\\u0000x\\u0000"']),
    ),
    max_size=8,
).map("".join)
SCALARS = st.one_of(
    HOSTILE, st.integers(), st.floats(), st.booleans(), st.none(), st.sampled_from([0.1, 1e100, -0.0, 1.0])
)
CONSTANTS = st.one_of(HOSTILE.filter(lambda s: "\0" not in s), st.integers(), st.floats(), st.booleans(), st.none())


@st.composite
def skeletons(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    """A skeleton of nested dicts and lists, constants and slots (slot keys too), and a value for every slot."""
    values: dict[str, Any] = {}

    def slot(value: Any) -> Slot:
        name = f"s{len(values):04d}"  # (in the order made: a dict with slot keys is filled in their names' order)
        values[name] = value
        return Slot(name)

    def node(depth: int) -> Any:
        kinds = ["slot", "constant"] + (["dict", "list", "keyed", "empty"] if depth < 4 else [])
        kind = draw(st.sampled_from(kinds))
        if kind == "slot":
            return slot(draw(SCALARS))
        if kind == "constant":
            return draw(CONSTANTS)
        if kind == "empty":
            return draw(st.sampled_from([{}, []]))
        if kind == "list":
            return [node(depth + 1) for _ in range(draw(st.integers(1, 3)))]
        keys = draw(st.lists(HOSTILE, min_size=1, max_size=4, unique=True))
        if kind == "dict":  # (a constant holds no NUL)
            return {key: node(depth + 1) for key in keys if "\0" not in key}
        return {slot(key): node(depth + 1) for key in sorted(keys)}  # keys given in json's sorted order

    return node(0), values


def expected(skeleton: Any, values: dict[str, Any], **options: Any) -> bytes:
    return json.dumps(fill(skeleton, values), ensure_ascii=False, sort_keys=True, **options).encode()


@settings(max_examples=400, deadline=None)
@given(skeletons(), st.integers(0, 3))
@example(({"a": Slot("x"), "b": [Slot("y"), {}]}, {"x": '"\\{}', "y": float("nan")}), 1)
def test_a_layout_writes_what_json_dumps_writes(made: tuple[Any, dict[str, Any]], level: int) -> None:
    skeleton, values = made
    layout = Layout(skeleton)
    indented = expected(skeleton, values, indent=2).replace(b"\n", b"\n" + b"  " * level)
    assert layout.template(indent=2, level=level).fill(tokens(values)) == indented
    assert layout.dumps(values, indent=2, level=level) == indented
    compact = expected(skeleton, values, separators=(",", ":"))
    assert layout.template(compact=True).fill(tokens(values)) == compact
    assert layout.template().fill(tokens(values)) == expected(skeleton, values)


@settings(max_examples=400, deadline=None)
@given(SCALARS)
def test_a_token_is_the_value_as_json_dumps_writes_it(value: Any) -> None:
    assert token(value) == json.dumps(value, ensure_ascii=False).encode()


def test_a_template_is_made_once_per_place() -> None:
    layout = Layout({"a": Slot("x")})
    assert layout.template(indent=2, level=1) is layout.template(indent=2, level=1)
    assert layout.template(indent=2, level=1) is not layout.template(indent=2, level=2)


def test_slot_keys_mixed_with_constant_keys_or_out_of_order_are_refused() -> None:
    with pytest.raises(ValueError, match="only slot keys"):
        Layout({Slot("k"): 1, "a": 2}).template()
    with pytest.raises(ValueError, match="in the order of their names"):
        Layout({Slot("k2"): 1, Slot("k1"): 2}).template()


def test_a_constant_holding_a_nul_or_a_slot_named_otherwise_than_an_identifier_is_refused() -> None:
    with pytest.raises(ValueError, match="NUL"):
        Layout({"a": "x\0y"}).template()
    with pytest.raises(ValueError, match="identifier"):
        Slot("a b")
