"""Collect the msgids that the Discord modules pass to the catalogue (by reading their AST)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = (ROOT / "cogs" / "render.py", ROOT / "cogs" / "i18n.py")
_SINGLE = {"gettext", "format", "N_"}
_PLURAL = {"ngettext", "nformat"}


def _literal(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _calls(path: Path) -> Iterator[tuple[str | None, str, str | None, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name in _SINGLE:
            msgid = _literal(node.args[0])
            if msgid is not None:
                yield None, msgid, None, node.lineno
        elif name in _PLURAL and len(node.args) >= 2:
            s, p = _literal(node.args[0]), _literal(node.args[1])
            if s is not None and p is not None:
                yield None, s, p, node.lineno


def used_msgids() -> dict[tuple[str | None, str], str | None]:
    """(context, msgid) → msgid_plural for every literal msgid in the Discord modules."""
    out: dict[tuple[str | None, str], str | None] = {}
    for path in SOURCES:
        for ctx, msgid, plural, _line in _calls(path):
            out[(ctx, msgid)] = plural
    from cogs.i18n import command_strings

    for ctx, msgid in command_strings():
        out[(ctx, msgid)] = None
    return out
