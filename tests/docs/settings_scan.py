"""Which environment variables the code reads, found by parsing its source (no import, no run).

A setting is read in one of these ways, all found here:

- ``os.environ.get("NAME")``, ``os.environ["NAME"]``, ``"NAME" in os.environ``,
  ``os.getenv("NAME")``;
- the same on a mapping of settings passed around under a settings name (``env``, ``environ``,
  ``environment``, ``values``: ``Settings.values``, the environment over ``.env``, and what
  ``RoomLimits.from_env(env)`` receives);
- through a *reader*: a function whose first parameter is the key of such a read, or is
  handed on to another reader (``text(name)``, ``integer(name, …)`` in ``apps/config.py``,
  ``env_whole(name, …)`` and ``env_flag(name, …)`` in ``web/env.py``), called with the name,
  in its own module or in one that imports it.

The key may be a string or a module-level constant holding one (``AI_WORKERS_ENV``).  A read
whose key is neither is reported as *unresolved*, so that a new way of reading settings is not
missed silently.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["PACKAGES", "Scan", "scan_sources", "scan_tree"]

#: The packages of the product (not the tests).
PACKAGES = ("rules_engine", "bot", "present", "cogs", "web", "terminal", "apps")
#: The names under which a mapping of settings is read.
_MAPPING_NAMES = frozenset({"environ", "env", "environment", "values"})
#: What an environment variable's name looks like.
_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")


@dataclass
class Scan:
    """``names``: each variable read, with the places (``path:line``) that read it;
    ``unresolved``: reads whose key is not a string or a known constant."""

    names: dict[str, list[str]] = field(default_factory=dict)
    unresolved: list[str] = field(default_factory=list)


def _is_mapping(node: ast.expr) -> bool:
    """``os.environ``, ``env``, ``self.values``, ``settings.values``…"""
    if isinstance(node, ast.Name):
        return node.id in _MAPPING_NAMES
    if isinstance(node, ast.Attribute):
        return node.attr in _MAPPING_NAMES
    return False


def _is_getenv(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "getenv") or (
        isinstance(func, ast.Attribute) and func.attr == "getenv"
    )


def _keys(tree: ast.AST) -> Iterator[tuple[ast.expr, ast.AST]]:
    """Every expression used as the key of a direct read, with the node that reads it."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            if _is_getenv(func) or (
                isinstance(func, ast.Attribute)
                and func.attr in ("get", "pop", "setdefault")
                and _is_mapping(func.value)
            ):
                yield node.args[0], node
        elif isinstance(node, ast.Subscript) and _is_mapping(node.value):
            yield node.slice, node
        elif (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], ast.In | ast.NotIn)
            and _is_mapping(node.comparators[0])
        ):
            yield node.left, node


def _functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def _first_param(func: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    params = func.args.posonlyargs + func.args.args
    if params and params[0].arg in ("self", "cls"):
        params = params[1:]
    return params[0].arg if params else None


def _called_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    return None


def _readers(tree: ast.AST) -> set[str]:
    """The names of the functions of ``tree`` that read the setting named by their first
    parameter (directly, or through another reader), to a fixed point."""
    readers: set[str] = set()
    changed = True
    while changed:
        changed = False
        for func in _functions(tree):
            param = _first_param(func)
            if func.name in readers or param is None:
                continue
            keys = [k for k, _ in _keys(func)]
            keys += [
                c.args[0]
                for c in ast.walk(func)
                if isinstance(c, ast.Call) and c.args and _called_name(c) in readers
            ]
            if any(isinstance(k, ast.Name) and k.id == param for k in keys):
                readers.add(func.name)
                changed = True
    return readers


def _constants(trees: Iterable[ast.Module]) -> dict[str, str]:
    """Module-level ``NAME = "TEXT"`` assignments of every module (for keys named by one)."""
    found: dict[str, str] = {}
    for tree in trees:
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found[target.id] = node.value.value
    return found


def scan_sources(sources: dict[str, str]) -> Scan:
    """Scan ``{path: source}`` (see the module docstring)."""
    trees = {path: ast.parse(source, filename=path) for path, source in sources.items()}
    constants = _constants(trees.values())
    readers_of = {path: _readers(tree) for path, tree in trees.items()}
    every_reader = set().union(*readers_of.values())  # a reader may be imported elsewhere
    scan = Scan()
    for path, tree in trees.items():
        readers = readers_of[path]
        own_params = {(f.name, _first_param(f)) for f in _functions(tree) if f.name in readers}
        reads = list(_keys(tree))
        reads += [
            (c.args[0], c)
            for c in ast.walk(tree)
            if isinstance(c, ast.Call) and c.args and _called_name(c) in every_reader
        ]
        for key, node in reads:
            where = f"{path}:{getattr(node, 'lineno', '?')}"
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                value: str = key.value
            elif isinstance(key, ast.Constant):
                continue  # a number or None: a list or a select's values, not a setting
            elif isinstance(key, ast.Name) and key.id in constants:
                value = constants[key.id]
            elif isinstance(key, ast.Name) and any(key.id == p for _, p in own_params):
                continue  # a reader's own parameter: its callers name the setting
            else:
                scan.unresolved.append(f"{where}: {ast.unparse(key)}")
                continue
            if _NAME.fullmatch(value):
                scan.names.setdefault(value, []).append(where)
    return scan


def scan_tree(root: Path, packages: Iterable[str] = PACKAGES) -> Scan:
    """Scan every Python file of ``packages`` under ``root``."""
    sources = {
        str(path.relative_to(root)): path.read_text(encoding="utf-8")
        for package in packages
        for path in sorted((root / package).rglob("*.py"))
    }
    return scan_sources(sources)
