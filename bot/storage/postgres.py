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

from bot.ratings import RatedGame, Rating, RatingKey
from bot.storage import sql
from bot.storage.base import DatabaseUnavailable, GameMoved, GuildFilter, Storage
from bot.storage.migrations import POSTGRES_MIGRATIONS, Migration, check_numbering
from bot.storage.records import (
    FIRST_REVISION,
    FinishedGame,
    GameRecord,
    HistoryRecord,
    LiveRecord,
    LobbyRecord,
    NewGame,
    SeriesRecord,
    StoredState,
    actions_of_snapshot,
    backfill_games,
    board_row,
    every_guild,
    game_record_from_row,
    history_from_row,
    lobby_from_json,
    lobby_json,
    options_json,
    rated_games_from_rows,
    rating_updates,
    seats_json,
    series_from_row,
)
from bot.storage.url import redact_url
from bot.views import AiLevelStats, LeaderboardRow, LobbySeat, ProfileStats
from bot.votes import Forfeit

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
                        if migration.backfill is not None:
                            await self._backfill(con, migration.backfill)
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

    async def _backfill(self, con: Any, step: str) -> None:
        """A migration's data step, inside its transaction (see :class:`Migration`)."""
        if step != "ratings":
            raise ValueError(f"unknown migration backfill {step!r}")
        rows = [tuple(r) for r in await con.fetch(_Q["BACKFILL_GAMES"])]
        games, broken = backfill_games(rows)
        for game in games:
            await self._rate(con, game)
        log.info(
            "database %s: rated %d finished games of %d (%d do not replay)",
            self.target,
            len(games),
            len(rows),
            broken,
        )

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
            if game.ai_levels:
                await con.executemany(
                    _Q["GAME_AI_LEVEL_INSERT"],
                    [(game.game_id, level) for level in sorted(set(game.ai_levels))],
                )
            if game.rated_places:
                await self._rate(con, game)
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

    async def record_forfeit(self, forfeit: Forfeit, guild_id: int, *, revision: int) -> int:
        async with self.pool.acquire() as con, con.transaction():
            status = await con.execute(
                _Q["LIVE_BUMP_FENCED"], forfeit.at, forfeit.game_id, revision
            )
            if status != "UPDATE 1":
                raise GameMoved(game_id=forfeit.game_id, revision=revision)
            await con.execute(
                _Q["FORFEIT_INSERT"],
                forfeit.game_id,
                forfeit.seat,
                guild_id,
                forfeit.user_id,
                forfeit.reason,
                forfeit.move,
                forfeit.at,
            )
        return revision + 1

    async def forfeits_of_game(self, game_id: int) -> list[Forfeit]:
        rows = await self.pool.fetch(_Q["FORFEITS_OF_GAME"], game_id)
        return [Forfeit(r[0], r[1], r[2], r[3], r[4], r[5]) for r in rows]

    @staticmethod
    async def _rate(con: Any, game: FinishedGame) -> None:
        """Inside :meth:`finish_game`'s transaction: rate ``game.rated_places``; each
        player's rating row is locked until the commit, so two games ending at once in
        two processes rate one after the other."""
        before: dict[int, tuple[Rating, int]] = {}
        for user_id, _ in game.rated_places:
            row = await con.fetchrow(
                _Q["RATING_OF"] + " FOR UPDATE", game.guild_id, game.profile, user_id
            )
            if row is not None:
                before[user_id] = (Rating(float(row[0]), float(row[1])), int(row[2]))
        updates = rating_updates(game, before)
        await con.executemany(
            _Q["RATING_HISTORY_INSERT"],
            [
                (
                    game.game_id,
                    game.guild_id,
                    game.profile,
                    u.user_id,
                    u.place,
                    u.before.mu,
                    u.before.sigma,
                    u.after.mu,
                    u.after.sigma,
                    game.ended_at,
                )
                for u in updates
            ],
        )
        await con.executemany(
            _Q["RATING_UPSERT"],
            [
                (
                    game.guild_id,
                    game.profile,
                    u.user_id,
                    u.after.mu,
                    u.after.sigma,
                    u.games,
                    game.ended_at,
                )
                for u in updates
            ],
        )

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
        return None if row is None else game_record_from_row(game_id, tuple(row))

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
                fetched = await con.fetch(_Q["STATS_ALL"], guild_id, user_id, guild_id, user_id)
            else:
                fetched = await con.fetch(
                    _Q["STATS_PROFILE"], guild_id, user_id, guild_id, user_id, profile
                )
            name = await con.fetchval(_Q["LATEST_NAME"], guild_id, user_id)
        rows = [
            ProfileStats(
                p,
                g,
                lo or 0,
                dr or 0,
                fo or 0,
                None if mu is None else Rating(mu, sigma),
                rated or 0,
            )
            for p, g, lo, dr, fo, mu, sigma, rated in fetched
        ]
        return name, rows

    async def ai_level_stats(
        self, guild_id: int, user_id: int, profile: str | None
    ) -> list[AiLevelStats]:
        if profile is None:
            fetched = await self.pool.fetch(_Q["STATS_AI_ALL"], guild_id, user_id)
        else:
            fetched = await self.pool.fetch(_Q["STATS_AI_PROFILE"], guild_id, user_id, profile)
        return [AiLevelStats(lv, g, lo or 0, dr or 0) for lv, g, lo, dr in fetched]

    async def leaderboard(
        self, guild_id: int, profile: str, min_games: int, limit: int, offset: int
    ) -> tuple[int, list[LeaderboardRow]]:
        async with (
            self.pool.acquire() as con,
            con.transaction(isolation="repeatable_read", readonly=True),
        ):
            total = await con.fetchval(_Q["COUNT_PROFILE"], guild_id, profile, min_games)
            fetched = await con.fetch(
                _Q["BOARD_PROFILE"], guild_id, profile, guild_id, profile, min_games, limit, offset
            )
        return int(total or 0), [board_row(offset + i + 1, tuple(r)) for i, r in enumerate(fetched)]

    async def ratings(self, guild_id: int | None = None) -> dict[RatingKey, Rating]:
        return {
            RatingKey(g, p, u): Rating(mu, sigma)
            for g, p, u, mu, sigma, _ in await self.pool.fetch(_Q["ALL_RATINGS"])
            if guild_id is None or g == guild_id
        }

    async def rated_games(self, guild_id: int | None = None) -> list[RatedGame]:
        rows = [tuple(r) for r in await self.pool.fetch(_Q["RATED_GAMES"])]
        return rated_games_from_rows([r for r in rows if guild_id is None or r[1] == guild_id])

    async def history(
        self, guild_id: int, user_id: int | None, limit: int, offset: int
    ) -> tuple[int, list[HistoryRecord]]:
        key: tuple[int, ...] = (guild_id,) if user_id is None else (guild_id, user_id)
        suffix = "GUILD" if user_id is None else "USER"
        async with (
            self.pool.acquire() as con,
            con.transaction(isolation="repeatable_read", readonly=True),
        ):
            total = await con.fetchval(_Q[f"HISTORY_{suffix}_COUNT"], *key)
            fetched = await con.fetch(_Q[f"HISTORY_{suffix}"], *key, limit, offset)
        return int(total or 0), [history_from_row(tuple(r)) for r in fetched]
