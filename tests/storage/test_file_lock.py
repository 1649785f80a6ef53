"""One process per SQLite file, whatever path names it: the same path, a symlink to the file, a
symlinked directory or a hard link (issue 22, item 1)."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bot.storage import DatabaseUnavailable, SqliteStorage
from bot.storage.file_lock import hold_database_file

ROOT = Path(__file__).resolve().parents[2]
IN_USE = "in use by another durak-bot process"


def _same(path: Path) -> Path:
    return path


def _symlink_to_file(path: Path) -> Path:
    alias = path.parent / "alias.sqlite3"
    alias.symlink_to(path)
    return alias


def _symlinked_directory(path: Path) -> Path:
    alias_dir = path.parent.parent / "linked-dir"
    alias_dir.symlink_to(path.parent, target_is_directory=True)
    return alias_dir / path.name


def _hard_link(path: Path) -> Path:
    other_dir = path.parent.parent / "elsewhere"
    other_dir.mkdir()
    alias = other_dir / "hard.sqlite3"
    os.link(path, alias)
    return alias


ALIASES: dict[str, Callable[[Path], Path]] = {
    "same path": _same,
    "symlink to the file": _symlink_to_file,
    "symlinked directory": _symlinked_directory,
    "hard link": _hard_link,
}


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    home = tmp_path / "data"
    home.mkdir()
    return home / "durak.sqlite3"


@contextmanager
def _held_by_another_process(path: Path) -> Iterator[int]:
    """Another Python process opens ``path`` with the bot's storage and holds it; its pid."""
    script = (
        "import asyncio, sys\n"
        "from bot.storage import SqliteStorage\n"
        "async def hold(path):\n"
        "    storage = SqliteStorage(path)\n"
        "    await storage.open()\n"
        "    print('held', flush=True)\n"
        "    sys.stdin.read()\n"
        "    await storage.close()\n"
        "asyncio.run(hold(sys.argv[1]))\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(path)],
        cwd=ROOT,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield proc.pid
    finally:
        proc.communicate("", timeout=30)


@pytest.mark.parametrize("alias", ALIASES.values(), ids=list(ALIASES))
async def test_a_second_storage_in_this_process_is_refused_by_any_name(
    db_file: Path, alias: Callable[[Path], Path]
) -> None:
    first = SqliteStorage(db_file)
    await first.open()
    try:
        other = alias(db_file)
        second = SqliteStorage(other)
        with pytest.raises(DatabaseUnavailable, match=IN_USE) as info:
            await second.open()
        message = str(info.value)
        assert str(other) in message and "\n" not in message
        await first.schema_version()  # the first one still works
    finally:
        await first.close()
    await second.open()  # then the file is free, by that name too
    await second.close()


@pytest.mark.parametrize("alias", ALIASES.values(), ids=list(ALIASES))
async def test_a_second_process_is_refused_by_any_name(
    db_file: Path, alias: Callable[[Path], Path]
) -> None:
    await (storage := SqliteStorage(db_file)).open()  # the file exists (for the hard link)
    await storage.close()
    other = alias(db_file)
    with _held_by_another_process(db_file) as pid:
        with pytest.raises(DatabaseUnavailable, match=IN_USE) as info:
            await SqliteStorage(other).open()
        message = str(info.value)
        assert str(other) in message and f"pid {pid}" in message and "\n" not in message
    with (  # and the other way round
        _held_by_another_process(other),
        pytest.raises(DatabaseUnavailable, match=IN_USE),
    ):
        await SqliteStorage(db_file).open()


def test_an_earlier_release_holding_the_old_lock_file_is_respected(db_file: Path) -> None:
    """Earlier releases locked ``<path>.lock``: that lock still keeps this release out."""
    with open(str(db_file) + ".lock", "a+", encoding="utf-8") as old:
        old.write("4242\n")
        old.flush()
        fcntl.flock(old, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(DatabaseUnavailable, match=r"in use .* \(pid 4242\)"):
            hold_database_file(str(db_file))
    hold_database_file(str(db_file)).release()
