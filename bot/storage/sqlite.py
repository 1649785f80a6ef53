"""SQLite backend: aiosqlite on one connection, WAL journal, one process per database file.

The file is held exclusively by the process that opened it (an ``flock`` on ``<db>.lock``), so
a second bot process on the same file is refused at start instead of silently overwriting the
first one's moves.  Transactions are serialised by an asyncio lock so that statements of
concurrent coroutines never interleave inside one transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import aiosqlite

from bot.ratings import RatedGame, Rating, RatingKey
from bot.storage import sql
from bot.storage.base import DatabaseUnavailable, GameMoved, GuildFilter, Storage
from bot.storage.migrations import SQLITE_MIGRATIONS, Migration, check_numbering
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
from bot.views import AiLevelStats, LeaderboardRow, LobbySeat, ProfileStats
from bot.votes import Forfeit

__all__ = ["SqliteStorage"]

log = logging.getLogger(__name__)


class SqliteStorage(Storage):
    """The embedded default backend.  ``path`` may be ``":memory:"`` (tests; no file lock)."""

    # The leaderboard statements, kept here for query-plan tests.
    _BOARD_PROFILE = sql.BOARD_PROFILE
    _COUNT_PROFILE = sql.COUNT_PROFILE

    def __init__(
        self,
        path: str | Path,
        *,
        synchronous: str = "NORMAL",
        migrations: tuple[Migration, ...] = SQLITE_MIGRATIONS,
    ) -> None:
        self.path = str(path)
        self.target = self.path
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"bad synchronous mode {synchronous!r}")
        check_numbering(migrations)
        self._synchronous = synchronous.upper()
        self._migrations = migrations
        self._db: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()
        self._lock_file: TextIO | None = None
        # Group commit of live-game saves: (params, future) waiting for the next flush.
        self._pending: list[tuple[tuple[Any, ...], asyncio.Future[int]]] = []
        self._flusher: asyncio.Task[None] | None = None

    @property
    def lock_path(self) -> Path:
        """The side file whose ``flock`` marks the database as held by one process."""
        return Path(self.path + ".lock")

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise RuntimeError("storage is not open: await storage.open() first")
        return self._db

    # -------------------------------------------------------------- lifecycle
    async def open(self) -> None:
        if self._db is not None:
            return
        if self.path != ":memory:":
            self._hold_file()
        try:
            db = await aiosqlite.connect(self.path, isolation_level=None)
        except sqlite3.Error as exc:
            self._release_file()
            raise DatabaseUnavailable(f"database {self.path} cannot be opened: {exc}") from exc
        self._db = db
        try:
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute(f"PRAGMA synchronous={self._synchronous}")  # checked above
            await db.execute("PRAGMA foreign_keys=ON")
            await db.execute("PRAGMA busy_timeout=5000")
            await self._migrate()
            await self._probe_write()
        except BaseException as exc:
            self._db = None
            await db.close()
            self._release_file()
            if isinstance(exc, sqlite3.OperationalError) and _is_read_only(exc):
                raise DatabaseUnavailable(
                    f"database {self.path} is read-only ({exc}): the bot must be able to write it"
                ) from exc
            raise

    def _hold_file(self) -> None:
        """Create the parent directory if needed and take the file's exclusive lock."""
        parent = Path(self.path).expanduser().absolute().parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DatabaseUnavailable(
                f"database {self.path}: cannot create its directory {parent} "
                f"({exc.strerror or exc})"
            ) from exc
        if not os.access(parent, os.W_OK | os.X_OK):
            raise DatabaseUnavailable(
                f"database {self.path}: its directory {parent} is not writable"
            )
        try:
            handle = open(self.lock_path, "a+", encoding="utf-8")  # noqa: SIM115 - held open
        except PermissionError:
            # Made by another user: a read-only handle locks as well (the pid is not noted).
            try:
                handle = open(self.lock_path, encoding="utf-8")  # noqa: SIM115 - held open
            except OSError as exc:
                raise DatabaseUnavailable(
                    f"database {self.path}: cannot open {self.lock_path} ({exc.strerror or exc})"
                ) from exc
        except OSError as exc:
            raise DatabaseUnavailable(
                f"database {self.path}: cannot create {self.lock_path} ({exc.strerror or exc})"
            ) from exc
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "?"
            handle.close()
            raise DatabaseUnavailable(
                f"database {self.path} is in use by another durak-bot process (pid {holder}): "
                "SQLite serves one process; stop the other one, or use PostgreSQL "
                "(DATABASE_URL=postgresql://…) for several"
            ) from None
        if handle.writable():
            handle.seek(0)
            handle.truncate()
            handle.write(f"{os.getpid()}\n")
            handle.flush()
        self._lock_file = handle

    def _release_file(self) -> None:
        handle, self._lock_file = self._lock_file, None
        if handle is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()

    async def _probe_write(self) -> None:
        """A write that is rolled back: a read-only file fails here, at start."""
        async with self._lock:
            await self.db.execute("BEGIN IMMEDIATE")
            try:
                await self.db.execute(
                    "INSERT INTO schema_version (version, applied_at) VALUES (-1, 'probe')"
                )
            finally:
                await self.db.execute("ROLLBACK")

    async def close(self) -> None:
        if self._flusher is not None and not self._flusher.done():
            await asyncio.wait([self._flusher])
        if self._db is not None:
            db, self._db = self._db, None
            await db.close()
        self._release_file()

    async def schema_version(self) -> int:
        async with self.db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version") as c:
            row = await c.fetchone()
        return int(row[0]) if row else 0

    async def _migrate(self) -> None:
        db = self.db
        await db.execute(
            "CREATE TABLE IF NOT EXISTS schema_version "
            "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)"
        )
        current = await self.schema_version()
        for migration in self._migrations:
            if migration.number <= current:
                continue
            async with self._lock:
                await db.execute("BEGIN IMMEDIATE")
                try:
                    for statement in migration.statements:
                        await db.execute(statement)
                    if migration.backfill is not None:
                        await self._backfill(db, migration.backfill)
                    await db.execute(
                        "INSERT INTO schema_version (version) VALUES (?)", (migration.number,)
                    )
                    await db.execute("COMMIT")
                except BaseException:
                    await db.execute("ROLLBACK")
                    raise
            log.info(
                "database %s migrated to schema version %d (%s)",
                self.path,
                migration.number,
                migration.why,
            )

    async def _backfill(self, db: aiosqlite.Connection, step: str) -> None:
        """A migration's data step, inside its transaction (see :class:`Migration`)."""
        if step != "ratings":
            raise ValueError(f"unknown migration backfill {step!r}")
        async with db.execute(sql.BACKFILL_GAMES) as cur:
            rows = list(await cur.fetchall())
        games, broken = backfill_games(rows)
        for game in games:
            await self._rate(db, game)
        log.info(
            "database %s: rated %d finished games of %d (%d do not replay)",
            self.path,
            len(games),
            len(rows),
            broken,
        )

    # -------------------------------------------------------------- transactions
    async def _write(self, statement: str, params: Sequence[Any]) -> None:
        async with self._lock:
            await self.db.execute(statement, params)

    @contextlib.asynccontextmanager
    async def _txn(self) -> Any:
        async with self._lock:
            await self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                await self.db.execute("ROLLBACK")
                raise
            await self.db.execute("COMMIT")

    # -------------------------------------------------------------- lobbies
    async def save_lobby(self, lobby: LobbyRecord) -> None:
        await self._write(
            sql.LOBBY_UPSERT,
            (lobby.channel_id, lobby.guild_id, lobby_json(lobby), lobby.created_at),
        )

    async def delete_lobby(self, channel_id: int) -> None:
        await self._write(sql.LOBBY_DELETE, (channel_id,))

    # -------------------------------------------------------------- games
    async def start_game(self, series: SeriesRecord, game: NewGame) -> tuple[int, int]:
        async with self._txn() as db:
            await db.execute(sql.LOBBY_DELETE, (game.channel_id,))
            series_id = series.id
            if series_id is None:
                cur = await db.execute(
                    "INSERT INTO series (guild_id, channel_id, host_id, host_name, profile, "
                    "rules, options, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        series.guild_id,
                        series.channel_id,
                        series.host_id,
                        series.host_name,
                        series.profile,
                        json.dumps(series.rules),
                        options_json(series.options),
                        series.created_at,
                    ),
                )
                series_id = cur.lastrowid
                assert series_id is not None
                await db.executemany(
                    sql.SERIES_PLAYER_INSERT,
                    [
                        (series_id, seat, s.user_id, s.name, s.ai_level)
                        for seat, s in enumerate(series.seats)
                    ],
                )
            cur = await db.execute(
                "INSERT INTO games (series_id, guild_id, channel_id, profile, rules, seats, seed, "
                "deal, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    series_id,
                    game.guild_id,
                    game.channel_id,
                    game.profile,
                    json.dumps(game.rules),
                    seats_json(game.seats),
                    game.seed,
                    json.dumps(game.deal, ensure_ascii=False),
                    game.started_at,
                ),
            )
            game_id = cur.lastrowid
            assert game_id is not None
            await db.execute(sql.SERIES_LAST_GAME, (game_id, series_id))
            await db.execute(
                sql.LIVE_INSERT,
                (
                    game_id,
                    game.channel_id,
                    series_id,
                    game.snapshot,
                    game.meta,
                    game.started_at,
                    FIRST_REVISION,
                ),
            )
        return series_id, game_id

    async def save_live(
        self, game_id: int, snapshot: str, meta: str, version: int, now: float, *, revision: int
    ) -> int:
        """Group commit: saves arriving while a flush runs are written together in the next
        transaction.  Returns once this save is committed; raises if it was refused (fenced
        out: :class:`GameMoved`) or its transaction failed."""
        self.db  # noqa: B018 - raise now if closed
        fut: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._pending.append(((snapshot, meta, version, now, game_id, revision), fut))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.ensure_future(self._flush())
        return await fut

    async def _flush(self) -> None:
        # One transaction per batch: every save in it is stored or refused on its own fence,
        # and if the transaction fails, every waiting save fails and its caller changes nothing.
        while self._pending:
            batch, self._pending = self._pending, []
            outcomes: list[int | None] = []
            try:
                async with self._txn() as db:
                    for params, _ in batch:
                        cur = await db.execute(sql.LIVE_SAVE, params)
                        outcomes.append(params[-1] + 1 if cur.rowcount == 1 else None)
            except Exception as exc:
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(exc)
                continue
            except BaseException:
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(RuntimeError("storage closed during a save"))
                raise
            for (params, fut), new_revision in zip(batch, outcomes, strict=True):
                if fut.done():
                    continue
                if new_revision is None:
                    fut.set_exception(GameMoved(game_id=params[4], revision=params[5]))
                else:
                    fut.set_result(new_revision)

    async def finish_game(
        self,
        game: FinishedGame,
        series: SeriesRecord | None,
        end_series_at: float | None = None,
        *,
        revision: int,
    ) -> None:
        async with self._txn() as db:
            cur = await db.execute(sql.LIVE_DELETE_FENCED, (game.game_id, revision))
            if cur.rowcount != 1:
                raise GameMoved(game_id=game.game_id, revision=revision)
            await db.execute(
                sql.GAME_FINISH,
                (
                    json.dumps(game.actions, ensure_ascii=False),
                    game.result,
                    game.loser_seat,
                    game.ended_at,
                    game.game_id,
                ),
            )
            if game.players:
                await db.executemany(
                    sql.GAME_PLAYER_INSERT,
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
                await db.executemany(
                    sql.GAME_AI_LEVEL_INSERT,
                    [(game.game_id, level) for level in sorted(set(game.ai_levels))],
                )
            if game.rated_places:
                await self._rate(db, game)
            if series is not None and series.id is not None:
                await db.execute(
                    sql.SERIES_COUNTS,
                    (series.games, series.draws, series.last_dealer, series.last_loser, series.id),
                )
                await db.executemany(
                    sql.SERIES_PLAYER_LOSSES,
                    [(n, series.id, seat) for seat, n in enumerate(series.losses)],
                )
            if end_series_at is not None:
                await db.execute(sql.SERIES_END, (end_series_at, game.series_id))

    async def record_forfeit(self, forfeit: Forfeit, guild_id: int, *, revision: int) -> int:
        async with self._txn() as db:
            cur = await db.execute(sql.LIVE_BUMP_FENCED, (forfeit.at, forfeit.game_id, revision))
            if cur.rowcount != 1:
                raise GameMoved(game_id=forfeit.game_id, revision=revision)
            await db.execute(
                sql.FORFEIT_INSERT,
                (
                    forfeit.game_id,
                    forfeit.seat,
                    guild_id,
                    forfeit.user_id,
                    forfeit.reason,
                    forfeit.move,
                    forfeit.at,
                ),
            )
        return revision + 1

    async def forfeits_of_game(self, game_id: int) -> list[Forfeit]:
        async with self._lock, self.db.execute(sql.FORFEITS_OF_GAME, (game_id,)) as cur:
            rows = await cur.fetchall()
        return [Forfeit(g, u, s, a, r, m) for g, u, s, a, r, m in rows]

    @staticmethod
    async def _rate(db: aiosqlite.Connection, game: FinishedGame) -> None:
        """Inside :meth:`finish_game`'s transaction: rate ``game.rated_places``."""
        before: dict[int, tuple[Rating, int]] = {}
        for user_id, _ in game.rated_places:
            async with db.execute(sql.RATING_OF, (game.guild_id, game.profile, user_id)) as cur:
                row = await cur.fetchone()
            if row is not None:
                before[user_id] = (Rating(float(row[0]), float(row[1])), int(row[2]))
        updates = rating_updates(game, before)
        await db.executemany(
            sql.RATING_HISTORY_INSERT,
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
        await db.executemany(
            sql.RATING_UPSERT,
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
        await self._write(sql.SERIES_END_ACTIVE, (ended_at, series_id))

    async def discard_orphans(self, ended_at: float) -> list[int]:
        async with self._txn() as db:
            async with db.execute(sql.ORPHAN_LIVE) as cur:
                orphans = list(await cur.fetchall())
            for game_id, snapshot in orphans:
                await db.execute(
                    sql.ORPHAN_ABORT, (actions_of_snapshot(snapshot), ended_at, game_id)
                )
                await db.execute(sql.ORPHAN_DELETE, (game_id,))
        return [int(game_id) for game_id, _ in orphans]

    # -------------------------------------------------------------- recovery
    async def load_state(self, include_guild: GuildFilter | None = None) -> StoredState:
        keep = include_guild or every_guild
        async with self._lock:  # no reading inside another's transaction
            db = self.db
            async with db.execute(sql.LOAD_LOBBIES) as cur:
                lobbies = [lobby_from_json(c, g, d) for c, g, d in await cur.fetchall() if keep(g)]
            series: dict[int, SeriesRecord] = {}
            async with db.execute(sql.LOAD_SERIES) as cur:
                for row in await cur.fetchall():
                    if keep(row[2]):
                        series[row[0]] = series_from_row(row)
            async with db.execute(sql.LOAD_SERIES_PLAYERS) as cur:
                for sid, user_id, name, level, losses in await cur.fetchall():
                    rec = series.get(sid)
                    if rec is not None:
                        rec.seats.append(LobbySeat(user_id, name, level))
                        rec.losses.append(losses)
            async with db.execute(sql.LOAD_LIVE) as cur:
                live = [
                    LiveRecord(
                        gid, ch, sid, json.loads(snap), json.loads(meta), version, guild, rev
                    )
                    for gid, ch, sid, snap, meta, version, guild, rev in await cur.fetchall()
                    if keep(guild)
                ]
            return StoredState(lobbies, list(series.values()), live)

    async def load_game(self, game_id: int) -> GameRecord | None:
        async with self._lock, self.db.execute(sql.LOAD_GAME, (game_id,)) as cur:
            row = await cur.fetchone()
        return None if row is None else game_record_from_row(game_id, row)

    # -------------------------------------------------------------- server settings
    async def load_server_config(self, guild_id: int) -> str | None:
        async with self._lock, self.db.execute(sql.SERVER_SETTINGS_LOAD, (guild_id,)) as cur:
            row = await cur.fetchone()
        return None if row is None else str(row[0])

    async def save_server_config(self, guild_id: int, settings_json: str, now: float) -> None:
        await self._write(sql.SERVER_SETTINGS_UPSERT, (guild_id, settings_json, now))

    # -------------------------------------------------------------- stats
    async def _fetch(self, query: str, params: Sequence[Any]) -> list[Any]:
        async with self._lock, self.db.execute(query, params) as cur:  # not inside a txn
            return list(await cur.fetchall())

    async def player_stats(
        self, guild_id: int, user_id: int, profile: str | None
    ) -> tuple[str | None, list[ProfileStats]]:
        params: tuple[Any, ...]
        if profile is None:
            query, params = sql.STATS_ALL, (guild_id, user_id, guild_id, user_id)
        else:
            query, params = sql.STATS_PROFILE, (guild_id, user_id, guild_id, user_id, profile)
        async with self._lock:  # no reading inside another's transaction
            async with self.db.execute(query, params) as cur:
                fetched = await cur.fetchall()
            async with self.db.execute(sql.LATEST_NAME, (guild_id, user_id)) as cur:
                row = await cur.fetchone()
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
        return (row[0] if row else None), rows

    async def ai_level_stats(
        self, guild_id: int, user_id: int, profile: str | None
    ) -> list[AiLevelStats]:
        if profile is None:
            fetched = await self._fetch(sql.STATS_AI_ALL, (guild_id, user_id))
        else:
            fetched = await self._fetch(sql.STATS_AI_PROFILE, (guild_id, user_id, profile))
        return [AiLevelStats(lv, g, lo or 0, dr or 0) for lv, g, lo, dr in fetched]

    async def leaderboard(
        self, guild_id: int, profile: str, min_games: int, limit: int, offset: int
    ) -> tuple[int, list[LeaderboardRow]]:
        async with self._lock:  # no reading inside another's transaction
            async with self.db.execute(sql.COUNT_PROFILE, (guild_id, profile, min_games)) as cur:
                row = await cur.fetchone()
            async with self.db.execute(
                sql.BOARD_PROFILE,
                (guild_id, profile, guild_id, profile, min_games, limit, offset),
            ) as cur:
                fetched = await cur.fetchall()
        total = int(row[0]) if row else 0
        return total, [board_row(offset + i + 1, r) for i, r in enumerate(fetched)]

    async def ratings(self, guild_id: int | None = None) -> dict[RatingKey, Rating]:
        return {
            RatingKey(g, p, u): Rating(mu, sigma)
            for g, p, u, mu, sigma, _ in await self._fetch(sql.ALL_RATINGS, ())
            if guild_id is None or g == guild_id
        }

    async def rated_games(self, guild_id: int | None = None) -> list[RatedGame]:
        rows = await self._fetch(sql.RATED_GAMES, ())
        return rated_games_from_rows([r for r in rows if guild_id is None or r[1] == guild_id])

    async def history(
        self, guild_id: int, user_id: int | None, limit: int, offset: int
    ) -> tuple[int, list[HistoryRecord]]:
        key: tuple[int, ...]
        if user_id is None:
            count_sql, query, key = sql.HISTORY_GUILD_COUNT, sql.HISTORY_GUILD, (guild_id,)
        else:
            count_sql, query, key = sql.HISTORY_USER_COUNT, sql.HISTORY_USER, (guild_id, user_id)
        async with self._lock:  # no reading inside another's transaction
            async with self.db.execute(count_sql, key) as cur:
                row = await cur.fetchone()
            async with self.db.execute(query, (*key, limit, offset)) as cur:
                fetched = await cur.fetchall()
        return (int(row[0]) if row else 0), [history_from_row(r) for r in fetched]


def _is_read_only(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "readonly" in text or "read-only" in text or "unable to open" in text
