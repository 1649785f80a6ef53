"""``durak-bot backup FILE`` (issue 22, item 16): a consistent copy of the SQLite database taken
while the bot plays holds every action acknowledged before it began; the refusals are one line
and write nothing.  ``FILE``'s directory is made when missing, and the line it prints counts the
games in words (issue 29, item 13)."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
from pathlib import Path

import pytest

import apps.cli as cli
from bot.clock import ManualClock
from bot.service import GameService
from bot.storage import SqliteStorage
from bot.storage.migrations import SQLITE_MIGRATIONS
from tests import storage_helpers as stored
from tests.service.support import GUILD, Services

ROOT = Path(__file__).resolve().parents[2]
#: Three channels, two humans in each.
TABLES = {200: (11, 12), 201: (21, 22), 202: (31, 32)}


async def _play(svc: GameService, channel: int, acked: dict[int, int], stop: asyncio.Event) -> None:
    """Play the channel's series move after move (a rematch after each game) until ``stop``;
    ``acked[game_id]``: the action count of each game once ``act`` returned (stored)."""
    host, guest = TABLES[channel]
    await svc.open_lobby(channel, GUILD, host, f"user{host}")
    await svc.join(channel, guest, f"user{guest}")
    table = await svc.start(channel, host)
    while not stop.is_set():
        if table.finished:
            table = await svc.rematch(channel, host)
        acked[table.game_id] = table.version
        assert table.to_act is not None
        user = table.seats[table.to_act].user_id
        assert user is not None
        hand = await svc.hand(channel, user)
        table = await svc.act(channel, user, hand.legal[-1].text, hand.version)
        acked[table.game_id] = table.version
        await asyncio.sleep(0)


async def _backup(db: Path, target: Path) -> tuple[int, str, str]:
    """Run ``durak-bot backup target`` on ``db`` in another process; exit code, out, err."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(DATABASE_PATH=str(db), PYTHONPATH=str(ROOT))
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "apps",
        "backup",
        str(target),
        cwd=target.parent,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_a_backup_taken_during_play_holds_every_acknowledged_action(tmp_path: Path) -> None:
    db, copy = tmp_path / "durak.sqlite3", tmp_path / "backup.sqlite3"
    services = Services()
    svc = await services.make(SqliteStorage(db), clock=ManualClock(), turn_timeout=60)
    acked: dict[int, int] = {}
    stop = asyncio.Event()
    players = [asyncio.create_task(_play(svc, ch, acked, stop)) for ch in TABLES]
    try:
        while len(acked) < 2 * len(TABLES):  # games ended, rematches under way
            await asyncio.sleep(0.01)
        before = dict(acked)  # acknowledged before the backup starts
        code, out, err = await _backup(db, copy)
        during = sum(acked.values()) - sum(before.values())
    finally:
        stop.set()
        await asyncio.gather(*players)
        await services.close()
    assert code == 0, err
    assert out.startswith(f"backed up {db} to {copy} (schema version ") and err == ""
    assert during > 0, "the bot played on while the backup ran"

    async with stored.opened(copy) as restored:  # the copy, opened as the bot's database
        for game_id, count in before.items():
            assert await stored.stored_actions(restored, game_id) >= count, game_id
        # a table may be between a finished game and its rematch at the moment of the copy
        assert {g.channel_id for g in await stored.live_games(restored)} <= set(TABLES)


async def test_a_backup_is_a_plain_file_that_changes_nothing(tmp_path: Path) -> None:
    db, copy = tmp_path / "durak.sqlite3", tmp_path / "backup.sqlite3"
    storage = SqliteStorage(db)
    await storage.open()  # held, as by a running bot
    try:
        code, out, err = await _backup(db, copy)
        assert code == 0 and "(schema version" in out, err
        await storage.schema_version()  # the bot's storage still works
    finally:
        await storage.close()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("backup")) == [
        "backup.sqlite3"
    ]  # no journal, no half-written file beside it
    con = sqlite3.connect(copy)
    try:
        assert con.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        con.close()


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """``durak-bot *argv`` exits with 2 and one line on stderr; that line."""
    assert cli.main(list(argv)) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    return line


def test_postgresql_is_refused_pointing_to_pg_dump(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://durak:secret@db.example/durak")
    line = _refused(capsys, "backup", str(tmp_path / "copy"))
    assert "pg_dump" in line and "secret" not in line
    assert list(tmp_path.iterdir()) == []


async def _bot_database(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A new, empty database in ``tmp_path``, the one the command line uses (DATABASE_PATH)."""
    db = tmp_path / "durak.sqlite3"
    async with stored.opened(db):
        pass
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("DATABASE_PATH", str(db))
    return db


async def test_an_existing_file_is_never_overwritten(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    await _bot_database(monkeypatch, tmp_path)
    existing = tmp_path / "old-backup"
    existing.write_text("keep me")
    line = _refused(capsys, "backup", str(existing))
    assert str(existing) in line and "exists" in line
    assert existing.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir() if "backup" in p.name) == ["old-backup"]


@pytest.mark.parametrize("content", [None, b"not a database at all, just some bytes" * 200])
def test_a_missing_or_foreign_database_is_refused(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    content: bytes | None,
) -> None:
    db = tmp_path / "durak.sqlite3"
    if content is not None:
        db.write_bytes(content)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("DATABASE_PATH", str(db))
    line = _refused(capsys, "backup", str(tmp_path / "copy"))
    assert str(db) in line
    assert not (tmp_path / "copy").exists()
    assert [p.name for p in tmp_path.iterdir()] == ([] if content is None else ["durak.sqlite3"])


async def _games_in(db: Path, games: int) -> None:
    """Store ``games`` started games, one per channel of :data:`TABLES`, in ``db``."""
    services = Services()
    svc = await services.make(SqliteStorage(db), clock=ManualClock(), turn_timeout=60)
    try:
        for channel in list(TABLES)[:games]:
            host, guest = TABLES[channel]
            await svc.open_lobby(channel, GUILD, host, f"user{host}")
            await svc.join(channel, guest, f"user{guest}")
            await svc.start(channel, host)
    finally:
        await services.close()


@pytest.mark.parametrize(("games", "said"), [(0, "0 games"), (1, "1 game"), (2, "2 games")])
async def test_the_line_names_the_schema_version_and_counts_the_games_in_words(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    games: int,
    said: str,
) -> None:
    await _games_in(tmp_path / "durak.sqlite3", games)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("DATABASE_PATH", "durak.sqlite3")
    assert cli.main(["backup", "copy.sqlite3"]) == 0
    version = SQLITE_MIGRATIONS[-1].number
    assert capsys.readouterr().out == (
        f"backed up durak.sqlite3 to copy.sqlite3 (schema version {version}, {said})\n"
    )


async def test_a_missing_directory_is_made_as_the_docs_example_needs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    async with stored.opened(tmp_path / "durak.sqlite3"):
        pass
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("DATABASE_PATH", "durak.sqlite3")
    target = "backups/daily/durak-2026-12-02.sqlite3"
    assert cli.main(["backup", target]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.startswith(f"backed up durak.sqlite3 to {target} (")
    assert [p.name for p in (tmp_path / "backups" / "daily").iterdir()] == [
        "durak-2026-12-02.sqlite3"
    ]
    async with stored.opened(tmp_path / target) as restored:
        assert await restored.schema_version() == SQLITE_MIGRATIONS[-1].number


def test_a_failed_backup_removes_the_directories_it_made(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "durak.sqlite3"
    db.write_bytes(b"not a database at all, just some bytes" * 200)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("DATABASE_PATH", str(db))
    line = _refused(capsys, "backup", str(tmp_path / "backups" / "daily" / "copy"))
    assert str(db) in line
    assert [p.name for p in tmp_path.iterdir()] == ["durak.sqlite3"]


async def test_a_directory_that_is_a_file_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    await _bot_database(monkeypatch, tmp_path)
    (tmp_path / "notes").write_text("keep me")
    line = _refused(capsys, "backup", str(tmp_path / "notes" / "more" / "copy"))
    assert line.endswith(f"{tmp_path / 'notes'} is not a directory")
    assert (tmp_path / "notes").read_text() == "keep me"
