"""What service and end-to-end tests read from a database, or do to it behind the service.

Reads go through the storage interface (:class:`bot.storage.Storage`).  The few edits a test
makes to simulate what the service never writes itself (a series made a draw, copies of a
game, a game moved to another server, rows seeded for the statistics) go through the driver
seam of :class:`bot.storage.sql_store.SqlStore`: this module is the one place outside
``tests/storage`` where tests hold SQL.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncpg

from bot.storage import GameRecord, LiveRecord, SeriesRecord, SqliteStorage, Storage
from bot.storage.records import HistoryRecord
from bot.storage.sql_store import SqlStore
from bot.storage.throwaway_pg import ThrowawayPostgres

_database_numbers = itertools.count(1)


@asynccontextmanager
async def opened(path: Path) -> AsyncIterator[SqliteStorage]:
    """The SQLite database at ``path``, opened (its service must be closed: one process, one
    holder of the file)."""
    storage = SqliteStorage(path)
    await storage.open()
    try:
        yield storage
    finally:
        await storage.close()


@asynccontextmanager
async def fresh_database(server: ThrowawayPostgres) -> AsyncIterator[str]:
    """A new, empty database on the throwaway PostgreSQL ``server`` (its URL), dropped at the
    end even if a test left connections to it."""
    name = f"durak_test_{os.getpid()}_{next(_database_numbers)}"
    await _admin(server, f'CREATE DATABASE "{name}"')
    try:
        yield server.url(name)
    finally:
        await _admin(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def _admin(server: ThrowawayPostgres, statement: str) -> None:
    """Run one statement on the server's own database (CREATE DATABASE needs no transaction)."""
    admin = await asyncpg.connect(server.url())
    try:
        await admin.execute(statement)
    finally:
        await admin.close()


# ------------------------------------------------------------------------------ reads
async def live_games(storage: Storage) -> list[LiveRecord]:
    """Every live game's row."""
    return (await storage.load_state()).live


async def ended_games(storage: Storage, guild_id: int) -> list[HistoryRecord]:
    """Every ended game (finished or aborted) of the guild, oldest first."""
    total, page = await storage.history(guild_id, None, 10_000, 0)
    assert len(page) == total
    return page[::-1]


async def results(storage: Storage, guild_id: int) -> list[tuple[str, int | None]]:
    """``(result, loser seat)`` of every game of the guild: the ended ones oldest first, then
    one ``("live", None)`` per game still live."""
    ended = [(g.result, g.loser_seat) for g in await ended_games(storage, guild_id)]
    live = [("live", None) for g in await live_games(storage) if g.guild_id == guild_id]
    return ended + live


async def game(storage: Storage, game_id: int) -> GameRecord:
    """A stored game (it must exist)."""
    record = await storage.load_game(game_id)
    assert record is not None, f"no game {game_id}"
    return record


async def stored_actions(storage: Storage, game_id: int) -> int:
    """How many actions of a game are stored: a live game's version (its engine's action
    count), an ended game's action log (the game must exist)."""
    for live in await live_games(storage):
        if live.game_id == game_id:
            return live.version
    return len((await game(storage, game_id)).actions)


async def series(storage: Storage, series_id: int) -> SeriesRecord:
    """A stored series, active or ended (it must exist)."""
    record = await storage.load_series(series_id)
    assert record is not None, f"no series {series_id}"
    return record


# ------------------------------------------------------------------------------ edits
def _sql(storage: Storage) -> SqlStore:
    assert isinstance(storage, SqlStore), f"{storage!r} is not a SQL store"
    return storage


async def make_series_a_draw(storage: Storage, series_id: int) -> None:
    """Leave the series as a drawn last game leaves it: no last loser, one draw, no loss."""
    async with _sql(storage).write() as con:
        await con.execute("UPDATE series SET last_loser = NULL, draws = 1 WHERE id = ?", series_id)
        await con.execute("UPDATE series_players SET losses = 0 WHERE series_id = ?", series_id)


async def copy_game(storage: Storage, game_id: int, copies: int) -> None:
    """Store ``copies`` more ended games identical to ``game_id`` (its ``games`` row only)."""
    async with _sql(storage).write() as con:
        for _ in range(copies):
            await con.execute(
                "INSERT INTO games (series_id, guild_id, channel_id, profile, rules, seats, seed, "
                "deal, actions, result, loser_seat, started_at, ended_at) SELECT series_id, "
                "guild_id, channel_id, profile, rules, seats, seed, deal, actions, result, "
                "loser_seat, started_at, ended_at FROM games WHERE id = ?",
                game_id,
            )


async def move_game_to_next_guild(storage: Storage, game_id: int) -> None:
    """Make a stored game belong to the server whose id follows its own."""
    async with _sql(storage).write() as con:
        changed = await con.execute(
            "UPDATE games SET guild_id = guild_id + 1 WHERE id = ?", game_id
        )
    assert changed == 1


async def seed_stats(
    storage: Storage,
    games: Sequence[tuple[int, int, str, str, int, int]],
    ratings: Sequence[tuple[int, str, int, float, float, int]],
) -> None:
    """Store finished one-player games ``(guild, user, name, profile, lost, draw)`` (the
    i-th, from 1, has id i and ended at i + 0.5; all in series 1 of the first game's guild)
    and ratings ``(guild, profile, user, mu, sigma, rated games)``, as history left them."""
    rows: list[tuple[Any, ...]] = []
    async with _sql(storage).write() as con:
        await con.execute(
            "INSERT INTO series (id, guild_id, channel_id, host_id, host_name, profile, rules, "
            "options, created_at) VALUES (1, ?, 1, 1, 'Ann', 'podkidnoy', '{}', '{}', 0)",
            games[0][0],
        )
        for i, (guild, user, name, profile, lost, draw) in enumerate(games, 1):
            await con.execute(
                "INSERT INTO games (id, series_id, guild_id, channel_id, profile, rules, seats, "
                "seed, deal, actions, result, started_at, ended_at) "
                "VALUES (?, 1, ?, 1, ?, '{}', '[]', 0, '{}', '[]', ?, ?, ?)",
                i,
                guild,
                profile,
                "draw" if draw else "loss",
                float(i),
                i + 0.5,
            )
            rows.append((i, guild, user, profile, name, lost, draw, i + 0.5))
        await con.execute_many(
            "INSERT INTO game_players (game_id, seat, guild_id, user_id, profile, name, "
            "lost, draw, ended_at) VALUES (?, 0, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        await con.execute_many(
            "INSERT INTO ratings (guild_id, profile, user_id, mu, sigma, games, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, 0)",
            ratings,
        )


_OWN: Any = object()  # rewrite_live: keep the row's own value


class NotJson(str):
    """Text to store as it is, not as JSON (a damaged column): for :func:`rewrite_live`."""


def _column(value: Any) -> str:
    return value if isinstance(value, NotJson) else json.dumps(value)


async def rewrite_live(
    storage: Storage, live: LiveRecord, *, snapshot: Any = _OWN, meta: Any = _OWN
) -> None:
    """Store ``live`` again with another ``snapshot`` and/or ``meta`` (any JSON value, null
    included, or :class:`NotJson` text; by default its own), as a damaged or older row would
    read, through the storage interface."""
    await storage.save_live(
        live.game_id,
        _column(live.snapshot if snapshot is _OWN else snapshot),
        _column(live.meta if meta is _OWN else meta),
        live.version,
        0.0,
        revision=live.revision,
    )
