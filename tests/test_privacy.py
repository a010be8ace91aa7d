"""No module uses another module's private (underscore) names: what modules share is a public name, so a reader can
tell what is safe to change inside one module (code review 2026-12-05, smell 5; black has none such in 14.5k lines).

Counted over the AST of every module under src/moe_lms, function-level imports included: ``from X import _name``
and ``X._name`` where X is another moe_lms module. Dunder names (``__version__``) are not private.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "moe_lms"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def cross_module_private_uses(root: Path = PACKAGE) -> list[str]:
    """Each use of another moe_lms module's private name, as ``file:line: module.name``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        module = _module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        aliases: dict[str, str] = {}  # local name -> the moe_lms module it is bound to
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _resolve(module, path.name == "__init__.py", node)
                for alias in node.names:
                    if _private(alias.name) and source != module and source.startswith("moe_lms"):
                        found.append(f"{path.relative_to(SRC)}:{node.lineno}: {source}.{alias.name}")
                    if source.startswith("moe_lms"):
                        aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("moe_lms"):
                        aliases[alias.asname or alias.name] = alias.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and _private(node.attr)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and aliases[node.value.id] != module
                and _is_module(aliases[node.value.id])
            ):
                found.append(f"{path.relative_to(SRC)}:{node.lineno}: {aliases[node.value.id]}.{node.attr}")
    return found


def _is_module(dotted: str) -> bool:
    relative = Path(*dotted.split("."))
    return (SRC / relative).with_suffix(".py").is_file() or (SRC / relative / "__init__.py").is_file()


def test_no_module_uses_another_modules_private_names() -> None:
    assert cross_module_private_uses() == []


def test_the_check_sees_a_private_import_from_a_sibling(tmp_path: Path) -> None:
    package = tmp_path / "moe_lms"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "a.py").write_text("_hidden = 1\n")
    (package / "sub" / "b.py").write_text("from .a import _hidden\nfrom . import a\nx = a._hidden\n")
    global SRC
    saved, SRC = SRC, tmp_path
    try:
        assert cross_module_private_uses(package) == [
            "moe_lms/sub/b.py:1: moe_lms.sub.a._hidden",
            "moe_lms/sub/b.py:3: moe_lms.sub.a._hidden",
        ]
    finally:
        SRC = saved
