"""The layers of docs/ARCHITECTURE.md, held against the code's imports.

Every import of every module (at the top or inside a function, ``TYPE_CHECKING`` blocks
included) is read from the source.  A module may import its own layer and the layers below it;
the adapters (Discord, web, terminal) stand side by side and never import one another; nothing
imports an entry point.  The test fails naming each import that breaks a rule.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Each top-level package and its floor (docs/ARCHITECTURE.md draws them in this order).
FLOORS = {
    "rules_engine": 1,
    "bot": 2,
    "present": 3,
    "cogs": 4,
    "web": 4,
    "terminal": 4,
    "apps": 5,
}
ADAPTERS = frozenset({"cogs", "web", "terminal"})


def _modules() -> Iterator[tuple[str, Path]]:
    for package in FLOORS:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield package, path


def _imported_packages(path: Path) -> Iterator[tuple[int, str]]:
    """``(line, top-level package)`` of every absolute import in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module.split(".")[0]


def _breaches() -> list[str]:
    found: list[str] = []
    for package, path in _modules():
        where = path.relative_to(ROOT)
        for line, target in _imported_packages(path):
            if target not in FLOORS or target == package:
                continue
            if FLOORS[target] > FLOORS[package]:
                found.append(f"{where}:{line} imports {target} (a higher layer)")
            elif package in ADAPTERS and target in ADAPTERS:
                found.append(f"{where}:{line} imports {target} (adapters never import each other)")
    return found


def test_every_import_points_down_and_no_adapter_imports_another() -> None:
    assert _breaches() == []


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    """The reader finds imports wherever they stand, not only at a module's top."""
    module = tmp_path / "m.py"
    module.write_text("def f() -> None:\n    from cogs.render import text\n    import web.app\n")
    assert list(_imported_packages(module)) == [(2, "cogs"), (3, "web")]


def test_every_package_of_the_project_has_a_floor() -> None:
    """A new top-level package must be placed on a floor here and in ARCHITECTURE.md."""
    packages = {
        p.name
        for p in ROOT.iterdir()
        if p.is_dir() and (p / "__init__.py").exists() and p.name != "tests"
    }
    assert packages == set(FLOORS)
