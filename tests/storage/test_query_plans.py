"""SQLite answers the stats and leaderboard aggregates from indexes, never by scanning every
player row (the statements as :class:`bot.storage.sql_store.SqlStore` runs them)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.storage import SqliteStorage, statements

G = 10


async def test_aggregates_use_indexes(tmp_path: Path) -> None:
    path = tmp_path / "durak.sqlite3"
    storage = SqliteStorage(path)
    await storage.open()  # the schema of every migration
    await storage.close()
    con = sqlite3.connect(path)
    try:
        for sql, params in (
            (statements.BOARD_PROFILE, (G, "podkidnoy", G, "podkidnoy", 1, 10, 0)),
            (
                "SELECT profile, COUNT(*), SUM(lost), SUM(draw) FROM game_players "
                "WHERE guild_id = ? AND user_id = ? GROUP BY profile",
                (G, 1),
            ),
        ):
            plan = " | ".join(row[-1] for row in con.execute(f"EXPLAIN QUERY PLAN {sql}", params))
            assert "INDEX game_players_" in plan, plan
            assert "SCAN game_players " not in plan + " ", plan
    finally:
        con.close()
