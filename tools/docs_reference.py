"""The generated parts of the documentation site, made from the code at build time so they cannot drift.

mkdocs.yml runs this module as a hook: a page line that is exactly ``<!-- generated: NAME -->`` is replaced by the
Markdown of ``NAME``:

- ``cli``: every command, its usage, help text and every option, from the click command tree (``moe_lms.cli.main``);
- ``bank-yaml``: every field of bank.yaml, from the JSON Schema ``moe-lms schema`` prints (the pydantic model);
- ``formats``: the format registry, and what each format does with a bank holding math, an image, a code block and
  a right-to-left locale, found by exporting such a bank through every format.

``python tools/docs_reference.py NAME`` prints one of them.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import click

MARKER = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.M)


def _cell(text: str) -> str:
    """Text safe inside one Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


# --- the command line ------------------------------------------------------------------------------------------------


def _commands(group: click.Group, ctx: click.Context) -> Iterator[tuple[click.Context, click.Command]]:
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        sub = click.Context(command, info_name=name, parent=ctx)
        yield sub, command
        if isinstance(command, click.Group):
            yield from _commands(command, sub)


def _option_row(param: click.Parameter, ctx: click.Context) -> str:
    record = param.get_help_record(ctx)
    names, help_text = record if record else (", ".join(param.opts), "")
    if isinstance(param, click.Option) and param.required and "[required]" not in help_text:
        help_text += " [required]"
    return f"| `{_cell(names)}` | {_cell(help_text)} |"


def cli() -> str:
    from moe_lms.cli import main

    root = click.Context(main, info_name="moe-lms", **main.context_settings)
    lines = [
        "Every command takes `-h`/`--help`, which prints the same text. Exit codes: **0** ok, **1** problems found, "
        "**2** usage error.",
        "",
        "```text",
        main.get_usage(root),
        "```",
        "",
    ]
    for ctx, command in _commands(main, root):
        lines += [f"## `{ctx.command_path}`", "", "```text", command.get_usage(ctx), "```", ""]
        if command.help:
            lines += [_plain(command.help), ""]
        options = [p for p in command.get_params(ctx) if isinstance(p, click.Option) and not p.hidden]
        if options:
            lines += ["| option | what it does |", "| --- | --- |"]
            lines += [_option_row(p, ctx) for p in options]
            lines.append("")
        if isinstance(command, click.Group):
            subs = ", ".join(f"`{ctx.command_path} {name}`" for name in command.list_commands(ctx))
            lines += [f"Commands: {subs}.", ""]
    return "\n".join(lines)


def _plain(help_text: str) -> str:
    """A click help text as Markdown paragraphs (click's ``\\b`` no-rewrap marker dropped, paragraphs kept)."""
    paragraphs = [p.replace("\b\n", "").strip() for p in inspect.cleandoc(help_text).split("\n\n")]
    return "\n\n".join(" ".join(p.split()) if "\n  " not in p else f"```text\n{p}\n```" for p in paragraphs if p)


# --- bank.yaml ---------------------------------------------------------------------------------------------------


def _type(spec: dict[str, Any]) -> str:
    if "$ref" in spec:
        name = spec["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "anyOf" in spec:
        return " or ".join(_type(s) for s in spec["anyOf"])
    if "enum" in spec:
        return " \\| ".join(f"`{v}`" for v in spec["enum"])
    kind = spec.get("type", "any")
    if kind == "array":
        return f"list of {_type(spec.get('items', {}))}"
    if kind == "object" and isinstance(spec.get("additionalProperties"), dict):
        return f"map to {_type(spec['additionalProperties'])}"
    return str(kind)


_LIMITS = (
    ("pattern", "matches"),
    ("maxLength", "at most"),
    ("minLength", "at least"),
    ("minimum", "≥"),
    ("exclusiveMinimum", ">"),
    ("maximum", "≤"),
    ("minItems", "items ≥"),
)


def _limits(spec: dict[str, Any]) -> str:
    found = []
    for key, label in _LIMITS:
        if key in spec:
            found.append(f"{label} `{spec[key]}`")
    for sub in spec.get("anyOf", []):
        found += [_limits(sub)] if _limits(sub) else []
    return ", ".join(found)


def _description(spec: dict[str, Any]) -> str:
    text = spec.get("description") or next((s["description"] for s in spec.get("anyOf", []) if "description" in s), "")
    return str(text)


def _object_table(schema: dict[str, Any]) -> list[str]:
    required = set(schema.get("required", []))
    lines = ["| key | type | required | default | what it holds |", "| --- | --- | --- | --- | --- |"]
    for key, spec in schema.get("properties", {}).items():
        default = f"`{json.dumps(spec['default'], ensure_ascii=False)}`" if "default" in spec else ""
        limits = _limits(spec)
        what = _description(spec) + (f" ({limits})" if limits else "")
        lines.append(
            f"| `{key}` | {_type(spec)} | {'yes' if key in required else 'no'} | {_cell(default)} | {_cell(what)} |"
        )
    extra = "no: an unknown key is an error" if schema.get("additionalProperties") is False else "yes"
    return [*lines, "", f"Other keys allowed: {extra}.", ""]


def bank_yaml() -> str:
    from moe_lms.model import Bank

    schema = Bank.model_json_schema(mode="validation")
    lines = ["## bank.yaml", "", *_object_table(schema)]
    for name, spec in schema.get("$defs", {}).items():
        lines += [f"## {name}", ""]
        if spec.get("description"):
            lines += [_plain(spec["description"]), ""]
        if "properties" in spec:
            lines += _object_table(spec)
        elif "enum" in spec:
            lines += ["One of: " + ", ".join(f"`{v}`" for v in spec["enum"]) + ".", ""]
    return "\n".join(lines)


# --- formats -----------------------------------------------------------------------------------------------------

_PROBE_BANK = """\
id: probe
title: A probe
source_locale: en
target_locales: [ur]
questions:
  - id: q1
    kind: single
    stem: |
      Which is $x^2$ at $x = 3$? ![A dot](media/dot.png)

      ```python
      print(3 ** 2)
      ```
    explanation: Squaring.
    choices:
      - {id: a, text: "9", correct: true, explanation: Right.}
      - {id: b, text: "6", correct: false, explanation: That is 2x.}
"""

# A 1x1 PNG.
_DOT = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005"
    "0001ff89993d1d0000000049454e44ae426082"
)


def _outcome(attempt: Callable[[], bytes]) -> str:
    from moe_lms.problems import ProblemsFound

    try:
        size = len(attempt())
    except ProblemsFound as exc:
        return "refused: " + _cell(exc.problems[0].message)
    except ValueError as exc:
        return "refused: " + _cell(str(exc))
    return f"written ({size:,} bytes)"


def formats() -> str:
    from moe_lms import formats as registry
    from moe_lms.formats import ExportOptions
    from moe_lms.loader import load_bank

    lines = [
        "| format | default file | one language per file | what it is | `import` | `validate` | on the shelf as |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name in registry.names():
        fmt = registry.get(name)
        if fmt.one_locale_per_file:
            per_locale, default = "yes", f"`<bank-id>.<locale>{fmt.suffix}`"
        else:
            per_locale = "no: every locale, or the `--locale`s named"
            default = f"`<bank-id>{fmt.suffix}`; one `--locale`: `<bank-id>.<locale>{fmt.suffix}`"
        imported = f"`import {name}`" if fmt.read else "—"
        checked = _cell(fmt.check_what) if fmt.check else "—"
        shelved = _cell(fmt.shelf.label) if fmt.shelf else "—"
        lines.append(
            f"| `{name}` | {default} | {per_locale} | {_cell(fmt.description)} | {imported} | {checked} | {shelved} |"
        )
    lines += [
        "",
        "What each format does with one question holding inline math, an image and a fenced code block, in a bank "
        "whose target locale `ur` is right-to-left (found at build time by exporting that bank):",
        "",
        "| format | `--locale ur` | every locale in one file |",
        "| --- | --- | --- |",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "bank.yaml").write_text(_PROBE_BANK, encoding="utf-8")
        (root / "media").mkdir()
        (root / "media" / "dot.png").write_bytes(_DOT)
        bank = load_bank(root)
        for name in registry.names():
            fmt = registry.get(name)
            one = _outcome(partial(fmt.dump, bank, ExportOptions.for_bank(bank, ("ur",))))
            every = (
                "— (one language per file)"
                if fmt.one_locale_per_file
                else _outcome(partial(fmt.dump, bank, ExportOptions.for_bank(bank)))
            )
            lines.append(f"| `{name}` | {one} | {every} |")
            for option in sorted(fmt.accepts):  # the export options of this format alone
                flag = f"`{name} --{option.replace('_', '-')}`"
                if fmt.one_locale_per_file:
                    given = ExportOptions.for_bank(bank, ("ur",), **{option: True})
                    lines.append(f"| {flag} | {_outcome(partial(fmt.dump, bank, given))} | — |")
                else:
                    given = ExportOptions.for_bank(bank, **{option: True})
                    lines.append(f"| {flag} | — | {_outcome(partial(fmt.dump, bank, given))} |")
    return "\n".join([*lines, ""])


GENERATORS: dict[str, Callable[[], str]] = {"cli": cli, "bank-yaml": bank_yaml, "formats": formats}


def expand(markdown: str) -> str:
    """``markdown`` with every ``<!-- generated: NAME -->`` line replaced by what ``NAME`` generates."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in GENERATORS:
            raise KeyError(f"no generator {name!r} (there are {', '.join(GENERATORS)})")
        return GENERATORS[name]()

    return MARKER.sub(replace, markdown)


def on_page_markdown(markdown: str, **_: Any) -> str:
    """The MkDocs hook."""
    return expand(markdown)


if __name__ == "__main__":
    print(GENERATORS[sys.argv[1]]())
