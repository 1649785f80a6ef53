"""A database made before the storage package (schema version 1, by commit 0c53ca6) is
recognised and moved forward with nothing lost, and the service resumes its games."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

from bot.clock import ManualClock
from bot.outcome import Outcome
from bot.ratings import recompute
from bot.service import GameService
from bot.storage import SQLITE_MIGRATIONS, SqliteStorage

DUMP = Path(__file__).with_name("data") / "schema_v1_by_0c53ca6.sql"


def _restore_dump(path: Path) -> None:
    con = sqlite3.connect(path)
    con.executescript(DUMP.read_text(encoding="utf-8"))
    con.execute("PRAGMA journal_mode=WAL")  # as that code left it
    con.close()


def _schema(path: Path) -> list[tuple[str, str]]:
    con = sqlite3.connect(path)
    try:
        rows = con.execute(
            "SELECT name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' "
            "AND sql IS NOT NULL ORDER BY name"
        ).fetchall()
    finally:
        con.close()
    return [(name, " ".join(sql.split())) for name, sql in rows]


def _count(path: Path, table: str) -> int:
    con = sqlite3.connect(path)
    try:
        (row,) = con.execute(f"SELECT COUNT(*) FROM {table}").fetchall()
    finally:
        con.close()
    return int(row[0])


async def test_migration_1_is_the_schema_of_the_old_code(tmp_path: Path) -> None:
    old = tmp_path / "old.sqlite3"
    _restore_dump(old)
    new = tmp_path / "new.sqlite3"
    st = SqliteStorage(new, migrations=SQLITE_MIGRATIONS[:1])
    await st.open()
    await st.close()
    assert _schema(new) == _schema(old)


async def test_an_old_database_is_migrated_with_nothing_lost(tmp_path: Path) -> None:
    path = tmp_path / "durak.sqlite3"
    _restore_dump(path)
    con = sqlite3.connect(path)
    before = {
        table: con.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
        for table in ("series", "series_players", "games", "game_players", "lobbies")
    }
    (old_live,) = con.execute("SELECT * FROM live_games").fetchall()
    con.close()

    clock = ManualClock()
    seeds = itertools.count(50)
    svc = GameService(
        SqliteStorage(path), clock=clock, ai_delay=0.0, seed_source=lambda: next(seeds)
    )
    assert await svc.restore() == 1
    assert await svc.storage.schema_version() == len(SQLITE_MIGRATIONS)
    assert svc.state(100) == "finished" and svc.state(200) == "playing"
    assert svc.state(300) == "lobby"
    table = await svc.table(200)
    assert table.version == 5
    stats = await svc.stats(10, 1)
    assert stats.games == 1 and stats.name == "Alice"
    # migration 4: the old games are in the history and replay, and are rated by replaying
    # their logs (the old finished game: a draw of two people, so they share the place)
    history = await svc.history(10)
    assert [(e.game_id, e.outcome) for e in history.entries] == [(1, Outcome.draw())]
    assert [p.name for p in history.entries[0].players] == ["Alice", "Bob"]
    replay = await svc.replay(10, 1)
    assert replay.replay.total == 68 and replay.replay.frames[-1].outcome == Outcome.draw()
    (rated,) = await svc.storage.rated_games()
    assert (rated.game_id, rated.places) == (1, ((1, 1), (2, 1)))
    assert recompute([rated]) == await svc.storage.ratings()
    board = await svc.leaderboard(10, min_games=1)
    assert [(r.name, r.games, r.rated_games) for r in board.rows] == [
        ("Alice", 1, 1),
        ("Bob", 1, 1),
    ]
    assert board.rows[0].display == board.rows[1].display
    # the live game goes on from where the old code left it
    user = table.seats[table.to_act].user_id
    hand = await svc.hand(200, user)
    assert (await svc.act(200, user, hand.legal[0].text, hand.version)).version == 6
    await svc.close()

    con = sqlite3.connect(path)
    after = {table: con.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall() for table in before}
    (live,) = con.execute(
        "SELECT game_id, channel_id, series_id, version, revision FROM live_games"
    ).fetchall()
    con.close()
    assert after == before
    assert _count(path, "game_ai_levels") == 0  # the old games had no AI seat
    assert _count(path, "ratings") == 2 and _count(path, "rating_history") == 2
    assert live[:3] == old_live[:3] and live[3] == 6 and live[4] >= 1
