"""The engine's privacy boundary: outside ``rules_engine/game.py`` nothing reads or writes a
private attribute of :class:`Game` or imports a private name of ``rules_engine.game``; the AI
and the service go through the public API (``Game.from_position``, ``Game.phase``, the
read-only properties)."""

from __future__ import annotations

import ast
from pathlib import Path

import rules_engine.game as game_module
from rules_engine.game import Game

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("rules_engine", "bot", "cogs")
GAME_FILE = Path("rules_engine") / "game.py"

#: Game's private names: its private slots and its private methods and class attributes.
GAME_PRIVATE = frozenset(
    name
    for name in (*Game.__slots__, *vars(Game))
    if name.startswith("_") and not name.startswith("__")
)
#: Private module-level names of rules_engine/game.py (memos, tables, helpers).
MODULE_PRIVATE = frozenset(
    name for name in vars(game_module) if name.startswith("_") and not name.startswith("__")
)
_ATTR_FUNCTIONS = frozenset({"getattr", "setattr", "delattr", "hasattr"})


class _Finder(ast.NodeVisitor):
    """Collects ``line: what`` for every use of a Game private in one module."""

    def __init__(self) -> None:
        self.found: list[tuple[int, str]] = []
        # True while inside a class that is not a Game subclass: there ``self._x`` is that
        # class's own attribute (the AI's tracker has its own ``_uncovered``, for instance).
        self._own_class: list[bool] = []

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        subclasses_game = any(
            (isinstance(b, ast.Name) and b.id == "Game")
            or (isinstance(b, ast.Attribute) and b.attr == "Game")
            for b in node.bases
        )
        self._own_class.append(not subclasses_game)
        self.generic_visit(node)
        self._own_class.pop()

    def _own(self, target: ast.expr) -> bool:
        return (
            bool(self._own_class)
            and self._own_class[-1]
            and isinstance(target, ast.Name)
            and target.id in ("self", "cls")
        )

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in GAME_PRIVATE and not self._own(node.value):
            self.found.append((node.lineno, f".{node.attr}"))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if (
            isinstance(func, ast.Name)
            and func.id in _ATTR_FUNCTIONS
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in GAME_PRIVATE
            and not self._own(node.args[0])
        ):
            self.found.append((node.lineno, f"{func.id}(..., {node.args[1].value!r})"))
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module == "rules_engine.game" or (node.level and node.module == "game"):
            for alias in node.names:
                if alias.name in MODULE_PRIVATE or alias.name.startswith("_"):
                    self.found.append((node.lineno, f"import {alias.name}"))
        self.generic_visit(node)


def private_uses(source: str) -> list[tuple[int, str]]:
    """Uses of Game's private names in ``source`` (one module outside game.py)."""
    finder = _Finder()
    finder.visit(ast.parse(source))
    return finder.found


def violations(root: Path = ROOT) -> list[str]:
    """``path:line: name`` for every use of a Game private outside game.py under ``root``."""
    out = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root)
            if rel == GAME_FILE:
                continue
            for line, what in private_uses(path.read_text(encoding="utf-8")):
                out.append(f"{rel}:{line}: {what}")
    return out


def test_the_checker_sees_reads_writes_imports_and_string_access() -> None:
    assert {"_uncovered", "_passed", "_legal", "_set_attackers", "_rule_to_act"} <= GAME_PRIVATE
    source = """
from rules_engine.game import _NEXT_ACTIVE, Game
def f(g):
    g._legal = None
    return g._uncovered, getattr(g, "_passed"), g._set_attackers()
class Tracker:
    def m(self):
        return self._uncovered + self._passed
class Sneaky(Game):
    def m(self):
        return self._uncovered
"""
    found = private_uses(source)
    assert [what for _, what in found] == [
        "import _NEXT_ACTIVE",
        "._legal",
        "._uncovered",
        "getattr(..., '_passed')",
        "._set_attackers",
        "._uncovered",
    ]


def test_no_game_private_is_used_outside_game_py() -> None:
    assert violations() == []
