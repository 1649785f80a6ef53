"""PostgreSQL backend with asyncpg: a connection pool, several bot processes on one database.

Every game write is fenced by the live row's ``revision`` (``UPDATE … WHERE game_id = $n AND
revision = $m``), so two processes never both serve a game: the one whose write finds the row
moved on gets :class:`bot.errors.GameMoved`.  Migrations run under an advisory
lock, so processes starting together migrate once.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import asyncpg

from bot.storage import sql
from bot.storage.base import DatabaseUnavailable, GameMoved, GuildFilter, Storage
from bot.storage.migrations import POSTGRES_MIGRATIONS, Migration, check_numbering
from bot.storage.records import (
    FIRST_REVISION,
    FinishedGame,
    GameRecord,
    LiveRecord,
    LobbyRecord,
    NewGame,
    SeriesRecord,
    StoredState,
    actions_of_snapshot,
    every_guild,
    lobby_from_json,
    lobby_json,
    options_json,
    seats_json,
    series_from_row,
)
from bot.storage.url import redact_url
from bot.views import LeaderboardRow, LobbySeat, ProfileStats

__all__ = ["PostgresStorage"]

log = logging.getLogger(__name__)

#: Key of the advisory lock that serialises migrations across processes ("durak" in ASCII).
_MIGRATION_LOCK = 0x647572616B
_Q = {
    name: sql.numbered(value)
    for name, value in vars(sql).items()
    if name.isupper() and isinstance(value, str)
}


class PostgresStorage(Storage):
    """``dsn``: a ``postgresql://`` URL (asyncpg's forms, e.g. ``?host=/socket/dir``)."""

    def __init__(
        self,
        dsn: str,
        *,
        min_connections: int = 1,
        max_connections: int = 10,
        migrations: tuple[Migration, ...] = POSTGRES_MIGRATIONS,
    ) -> None:
        check_numbering(migrations)
        self.dsn = dsn
        self.target = redact_url(dsn)
        self._min = min_connections
        self._max = max_connections
        self._migrations = migrations
        self._pool: asyncpg.Pool | None = None

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise RuntimeError("storage is not open: await storage.open() first")
        return self._pool

    # -------------------------------------------------------------- lifecycle
    async def open(self) -> None:
        if self._pool is not None:
            return
        try:
            pool = await asyncpg.create_pool(self.dsn, min_size=self._min, max_size=self._max)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise DatabaseUnavailable(f"database {self.target} cannot be reached: {exc}") from exc
        self._pool = pool
        try:
            await self._migrate()
            await self._probe_write()
        except BaseException as exc:
            self._pool = None
            await pool.close()
            if isinstance(exc, asyncpg.ReadOnlySQLTransactionError):
                raise DatabaseUnavailable(
                    f"database {self.target} is read-only ({exc}): the bot must be able to write it"
                ) from exc
            if isinstance(exc, asyncpg.InsufficientPrivilegeError):
                raise DatabaseUnavailable(f"database {self.target} refuses writes ({exc})") from exc
            raise

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()

    async def _probe_write(self) -> None:
        """A write that is rolled back: a read-only database fails here, at start."""
        async with self.pool.acquire() as con:
            tx = con.transaction()
            await tx.start()
            try:
                await con.execute("INSERT INTO schema_version (version) VALUES (-1)")
            finally:
                await tx.rollback()

    async def schema_version(self) -> int:
        value = await self.pool.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version")
        return int(value)

    async def _migrate(self) -> None:
        # A session-level advisory lock: processes starting together migrate one at a time;
        # each migration is its own transaction, as on SQLite.
        async with self.pool.acquire() as con:
            await con.execute("SELECT pg_advisory_lock($1)", _MIGRATION_LOCK)
            try:
                await con.execute(
                    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
                    "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
                )
                current = await con.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version")
                for migration in self._migrations:
                    if migration.number <= current:
                        continue
                    async with con.transaction():
                        for statement in migration.statements:
                            await con.execute(statement)
                        await con.execute(
                            "INSERT INTO schema_version (version) VALUES ($1)", migration.number
                        )
                    log.info(
                        "database %s migrated to schema version %d (%s)",
                        self.target,
                        migration.number,
                        migration.why,
                    )
            finally:
                await con.execute("SELECT pg_advisory_unlock($1)", _MIGRATION_LOCK)

    # -------------------------------------------------------------- lobbies
    async def save_lobby(self, lobby: LobbyRecord) -> None:
        await self.pool.execute(
            _Q["LOBBY_UPSERT"],
            lobby.channel_id,
            lobby.guild_id,
            lobby_json(lobby),
            lobby.created_at,
        )

    async def delete_lobby(self, channel_id: int) -> None:
        await self.pool.execute(_Q["LOBBY_DELETE"], channel_id)

    # -------------------------------------------------------------- games
    async def start_game(self, series: SeriesRecord, game: NewGame) -> tuple[int, int]:
        async with self.pool.acquire() as con, con.transaction():
            await con.execute(_Q["LOBBY_DELETE"], game.channel_id)
            series_id = series.id
            if series_id is None:
                series_id = await con.fetchval(
                    "INSERT INTO series (guild_id, channel_id, host_id, host_name, profile, "
                    "rules, options, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
                    "RETURNING id",
                    series.guild_id,
                    series.channel_id,
                    series.host_id,
                    series.host_name,
                    series.profile,
                    json.dumps(series.rules),
                    options_json(series.options),
                    series.created_at,
                )
                await con.executemany(
                    _Q["SERIES_PLAYER_INSERT"],
                    [
                        (series_id, seat, s.user_id, s.name, s.ai_level)
                        for seat, s in enumerate(series.seats)
                    ],
                )
            game_id = await con.fetchval(
                "INSERT INTO games (series_id, guild_id, channel_id, profile, rules, seats, seed, "
                "deal, started_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
                series_id,
                game.guild_id,
                game.channel_id,
                game.profile,
                json.dumps(game.rules),
                seats_json(game.seats),
                game.seed,
                json.dumps(game.deal, ensure_ascii=False),
                game.started_at,
            )
            await con.execute(_Q["SERIES_LAST_GAME"], game_id, series_id)
            await con.execute(
                _Q["LIVE_INSERT"],
                game_id,
                game.channel_id,
                series_id,
                game.snapshot,
                game.meta,
                game.started_at,
                FIRST_REVISION,
            )
        return int(series_id), int(game_id)

    async def save_live(
        self, game_id: int, snapshot: str, meta: str, version: int, now: float, *, revision: int
    ) -> int:
        status = await self.pool.execute(
            _Q["LIVE_SAVE"], snapshot, meta, version, now, game_id, revision
        )
        if status != "UPDATE 1":
            raise GameMoved(game_id=game_id, revision=revision)
        return revision + 1

    async def finish_game(
        self,
        game: FinishedGame,
        series: SeriesRecord | None,
        end_series_at: float | None = None,
        *,
        revision: int,
    ) -> None:
        async with self.pool.acquire() as con, con.transaction():
            status = await con.execute(_Q["LIVE_DELETE_FENCED"], game.game_id, revision)
            if status != "DELETE 1":
                raise GameMoved(game_id=game.game_id, revision=revision)
            await con.execute(
                _Q["GAME_FINISH"],
                json.dumps(game.actions, ensure_ascii=False),
                game.result,
                game.loser_seat,
                game.ended_at,
                game.game_id,
            )
            if game.players:
                await con.executemany(
                    _Q["GAME_PLAYER_INSERT"],
                    [
                        (
                            game.game_id,
                            p.seat,
                            game.guild_id,
                            p.user_id,
                            game.profile,
                            p.name,
                            int(p.lost),
                            int(p.draw),
                            game.ended_at,
                        )
                        for p in game.players
                    ],
                )
            if series is not None and series.id is not None:
                await con.execute(
                    _Q["SERIES_COUNTS"],
                    series.games,
                    series.draws,
                    series.last_dealer,
                    series.last_loser,
                    series.id,
                )
                await con.executemany(
                    _Q["SERIES_PLAYER_LOSSES"],
                    [(n, series.id, seat) for seat, n in enumerate(series.losses)],
                )
            if end_series_at is not None:
                await con.execute(_Q["SERIES_END"], end_series_at, game.series_id)

    async def end_series(self, series_id: int, ended_at: float) -> None:
        await self.pool.execute(_Q["SERIES_END_ACTIVE"], ended_at, series_id)

    async def discard_orphans(self, ended_at: float) -> list[int]:
        async with self.pool.acquire() as con, con.transaction():
            orphans = await con.fetch(_Q["ORPHAN_LIVE"] + " FOR UPDATE OF l")
            for game_id, snapshot in orphans:
                await con.execute(
                    _Q["ORPHAN_ABORT"], actions_of_snapshot(snapshot), ended_at, game_id
                )
                await con.execute(_Q["ORPHAN_DELETE"], game_id)
        return [int(r[0]) for r in orphans]

    # -------------------------------------------------------------- recovery
    async def load_state(self, include_guild: GuildFilter | None = None) -> StoredState:
        keep = include_guild or every_guild
        async with (
            self.pool.acquire() as con,
            con.transaction(isolation="repeatable_read", readonly=True),
        ):
            lobbies = [
                lobby_from_json(r[0], r[1], r[2])
                for r in await con.fetch(_Q["LOAD_LOBBIES"])
                if keep(r[1])
            ]
            series: dict[int, SeriesRecord] = {}
            for row in await con.fetch(_Q["LOAD_SERIES"]):
                if keep(row[2]):
                    series[row[0]] = series_from_row(tuple(row))
            for sid, user_id, name, level, losses in await con.fetch(_Q["LOAD_SERIES_PLAYERS"]):
                rec = series.get(sid)
                if rec is not None:
                    rec.seats.append(LobbySeat(user_id, name, level))
                    rec.losses.append(losses)
            live = [
                LiveRecord(r[0], r[1], r[2], json.loads(r[3]), json.loads(r[4]), r[5], r[6], r[7])
                for r in await con.fetch(_Q["LOAD_LIVE"])
                if keep(r[6])
            ]
        return StoredState(lobbies, list(series.values()), live)

    async def load_game(self, game_id: int) -> GameRecord | None:
        row = await self.pool.fetchrow(_Q["LOAD_GAME"], game_id)
        if row is None:
            return None
        return GameRecord(
            game_id, json.loads(row[0]), json.loads(row[1]), json.loads(row[2] or "[]"), row[3]
        )

    # -------------------------------------------------------------- server settings
    async def load_server_config(self, guild_id: int) -> str | None:
        value = await self.pool.fetchval(_Q["SERVER_SETTINGS_LOAD"], guild_id)
        return None if value is None else str(value)

    async def save_server_config(self, guild_id: int, settings_json: str, now: float) -> None:
        await self.pool.execute(_Q["SERVER_SETTINGS_UPSERT"], guild_id, settings_json, now)

    # -------------------------------------------------------------- stats
    async def player_stats(
        self, guild_id: int, user_id: int, profile: str | None
    ) -> tuple[str | None, list[ProfileStats]]:
        async with self.pool.acquire() as con:
            if profile is None:
                fetched = await con.fetch(_Q["STATS_ALL"], guild_id, user_id)
            else:
                fetched = await con.fetch(_Q["STATS_PROFILE"], guild_id, user_id, profile)
            name = await con.fetchval(_Q["LATEST_NAME"], guild_id, user_id)
        rows = [ProfileStats(p, g, lo or 0, dr or 0) for p, g, lo, dr in fetched]
        return name, rows

    async def leaderboard(
        self, guild_id: int, profile: str | None, min_games: int, limit: int, offset: int
    ) -> tuple[int, list[LeaderboardRow]]:
        args: tuple[Any, ...]
        if profile is None:
            count_key, query_key, args = "COUNT_ALL", "BOARD_ALL", (guild_id,)
        else:
            count_key, query_key, args = "COUNT_PROFILE", "BOARD_PROFILE", (guild_id, profile)
        async with (
            self.pool.acquire() as con,
            con.transaction(isolation="repeatable_read", readonly=True),
        ):
            total = await con.fetchval(_Q[count_key], *args, min_games)
            fetched = await con.fetch(_Q[query_key], *args, min_games, limit, offset)
        return int(total or 0), [
            LeaderboardRow(offset + i + 1, r[0], r[5], r[1], r[2], r[3], r[4])
            for i, r in enumerate(fetched)
        ]
