"""Persistence behind an interface: :class:`Storage`, implemented by :class:`SqliteStorage`.

Every write that must be atomic (starting a game, finishing one, stopping) is one transaction;
the per-action write of a live game is a single ``UPDATE`` (atomic by itself).  SQL is always
parameterised.  The schema evolves through numbered migrations recorded in ``schema_version``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiosqlite

from bot.views import LeaderboardRow, LobbyOptions, LobbySeat, ProfileStats

__all__ = [
    "MIGRATIONS",
    "FinishedGame",
    "LiveRecord",
    "LobbyRecord",
    "NewGame",
    "PlayerResult",
    "SeriesRecord",
    "SqliteStorage",
    "Storage",
    "StoredState",
]

log = logging.getLogger(__name__)


# ---------------------------------------------------------------------------------- records
@dataclass(slots=True)
class LobbyRecord:
    channel_id: int
    guild_id: int
    host_id: int
    host_name: str
    options: LobbyOptions
    seats: list[LobbySeat]
    created_at: float


@dataclass(slots=True)
class SeriesRecord:
    """A channel's series: same seats, loss counts per seat, who dealt and lost last."""

    id: int | None
    channel_id: int
    guild_id: int
    host_id: int
    host_name: str
    options: LobbyOptions
    rules: dict[str, Any]
    profile: str
    seats: list[LobbySeat]
    losses: list[int]
    games: int = 0
    draws: int = 0
    last_dealer: int | None = None
    last_loser: int | None = None
    last_game_id: int | None = None
    active: bool = True
    created_at: float = 0.0


@dataclass(slots=True)
class NewGame:
    channel_id: int
    guild_id: int
    profile: str
    rules: dict[str, Any]
    seats: list[LobbySeat]
    seed: int
    deal: dict[str, Any]
    started_at: float
    snapshot: str  # JSON
    meta: str  # JSON


@dataclass(slots=True)
class LiveRecord:
    game_id: int
    channel_id: int
    series_id: int
    snapshot: dict[str, Any]
    meta: dict[str, Any]
    version: int


@dataclass(slots=True)
class PlayerResult:
    seat: int
    user_id: int
    name: str
    lost: bool
    draw: bool


@dataclass(slots=True)
class FinishedGame:
    game_id: int
    series_id: int
    guild_id: int
    profile: str
    result: str  # 'loss' | 'draw' | 'aborted'
    loser_seat: int | None
    actions: list[str]
    ended_at: float
    players: list[PlayerResult] = field(default_factory=list)


@dataclass(slots=True)
class StoredState:
    lobbies: list[LobbyRecord]
    series: list[SeriesRecord]
    live: list[LiveRecord]


@dataclass(slots=True)
class GameRecord:
    """A stored game (finished or not) as needed to rebuild its last position."""

    game_id: int
    rules: dict[str, Any]
    deal: dict[str, Any]
    actions: list[str]
    result: str


# ---------------------------------------------------------------------------------- interface
class Storage(ABC):
    """What the service needs from a database.  All methods are coroutines."""

    @abstractmethod
    async def open(self) -> None: ...

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def save_lobby(self, lobby: LobbyRecord) -> None:
        """Insert or replace the lobby of ``lobby.channel_id``."""

    @abstractmethod
    async def delete_lobby(self, channel_id: int) -> None: ...

    @abstractmethod
    async def start_game(self, series: SeriesRecord, game: NewGame) -> tuple[int, int]:
        """One transaction: drop the channel's lobby, create ``series`` if its ``id`` is None,
        insert the game and its live row.  Returns ``(series_id, game_id)``."""

    @abstractmethod
    async def save_live(self, game_id: int, snapshot: str, meta: str, version: int,
                        now: float) -> None:
        """Store a live game's state after an action (or a timer/autopilot change)."""

    @abstractmethod
    async def finish_game(self, game: FinishedGame, series: SeriesRecord | None,
                          end_series_at: float | None = None) -> None:
        """One transaction: record the result (or the abort), the per-player rows, the
        series' new counts (``series`` given) and drop the live row; optionally end the
        series."""

    @abstractmethod
    async def end_series(self, series_id: int, ended_at: float) -> None: ...

    @abstractmethod
    async def load_state(self) -> StoredState:
        """Open lobbies, active series and live games (for restart recovery)."""

    @abstractmethod
    async def load_game(self, game_id: int) -> GameRecord | None: ...

    @abstractmethod
    async def player_stats(self, guild_id: int, user_id: int, profile: str | None
                           ) -> tuple[str | None, list[ProfileStats]]:
        """The player's latest name and per-profile totals (restricted to ``profile``)."""

    @abstractmethod
    async def leaderboard(self, guild_id: int, profile: str | None, min_games: int,
                          limit: int, offset: int) -> tuple[int, list[LeaderboardRow]]:
        """``(number of ranked players, rows of the page)``; rows' ``rank`` is absolute."""


# ---------------------------------------------------------------------------------- schema
MIGRATIONS: list[tuple[int, list[str]]] = [
    (
        1,
        [
            """CREATE TABLE series (
                id INTEGER PRIMARY KEY,
                guild_id INTEGER NOT NULL,
                channel_id INTEGER NOT NULL,
                host_id INTEGER NOT NULL,
                host_name TEXT NOT NULL,
                profile TEXT NOT NULL,
                rules TEXT NOT NULL,
                options TEXT NOT NULL,
                status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended')),
                games INTEGER NOT NULL DEFAULT 0,
                draws INTEGER NOT NULL DEFAULT 0,
                last_dealer INTEGER,
                last_loser INTEGER,
                last_game_id INTEGER,
                created_at REAL NOT NULL,
                ended_at REAL
            )""",
            "CREATE UNIQUE INDEX series_active_channel ON series(channel_id) "
            "WHERE status = 'active'",
            """CREATE TABLE series_players (
                series_id INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
                seat INTEGER NOT NULL,
                user_id INTEGER,
                name TEXT NOT NULL,
                ai_level TEXT,
                losses INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (series_id, seat)
            )""",
            """CREATE TABLE games (
                id INTEGER PRIMARY KEY,
                series_id INTEGER NOT NULL REFERENCES series(id),
                guild_id INTEGER NOT NULL,
                channel_id INTEGER NOT NULL,
                profile TEXT NOT NULL,
                rules TEXT NOT NULL,
                seats TEXT NOT NULL,
                seed INTEGER NOT NULL,
                deal TEXT NOT NULL,
                actions TEXT,
                result TEXT NOT NULL DEFAULT 'live'
                    CHECK (result IN ('live', 'loss', 'draw', 'aborted')),
                loser_seat INTEGER,
                started_at REAL NOT NULL,
                ended_at REAL
            )""",
            "CREATE INDEX games_series ON games(series_id)",
            "CREATE INDEX games_guild_ended ON games(guild_id, ended_at)",
            """CREATE TABLE game_players (
                game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
                seat INTEGER NOT NULL,
                guild_id INTEGER NOT NULL,
                user_id INTEGER NOT NULL,
                profile TEXT NOT NULL,
                name TEXT NOT NULL,
                lost INTEGER NOT NULL CHECK (lost IN (0, 1)),
                draw INTEGER NOT NULL CHECK (draw IN (0, 1)),
                ended_at REAL NOT NULL,
                PRIMARY KEY (game_id, seat)
            )""",
            # Leaderboard: group by user within a guild (and profile), covering the sums.
            "CREATE INDEX game_players_board ON game_players"
            "(guild_id, profile, user_id, lost, draw)",
            "CREATE INDEX game_players_board_all ON game_players(guild_id, user_id, lost, draw)",
            # Stats of one player, and their latest name.
            "CREATE INDEX game_players_user ON game_players(guild_id, user_id, ended_at)",
            """CREATE TABLE live_games (
                game_id INTEGER PRIMARY KEY REFERENCES games(id),
                channel_id INTEGER NOT NULL UNIQUE,
                series_id INTEGER NOT NULL REFERENCES series(id),
                snapshot TEXT NOT NULL,
                meta TEXT NOT NULL,
                version INTEGER NOT NULL,
                updated_at REAL NOT NULL
            )""",
            """CREATE TABLE lobbies (
                channel_id INTEGER PRIMARY KEY,
                guild_id INTEGER NOT NULL,
                data TEXT NOT NULL,
                updated_at REAL NOT NULL
            )""",
        ],
    ),
]


def _seats_json(seats: Sequence[LobbySeat]) -> str:
    return json.dumps(
        [{"user_id": s.user_id, "name": s.name, "ai_level": s.ai_level} for s in seats],
        ensure_ascii=False,
    )


def _seats_from(data: list[dict[str, Any]]) -> list[LobbySeat]:
    return [LobbySeat(d.get("user_id"), str(d["name"]), d.get("ai_level")) for d in data]


def _options_json(o: LobbyOptions) -> str:
    return json.dumps(
        {
            "rules": o.rules,
            "transfer": o.transfer,
            "throw_in": o.throw_in,
            "first_round_limit": o.first_round_limit,
            "turn_timeout": o.turn_timeout,
            "seats": o.seats,
        }
    )


def _options_from(text: str) -> LobbyOptions:
    return LobbyOptions(**json.loads(text))


# ---------------------------------------------------------------------------------- sqlite
class SqliteStorage(Storage):
    """aiosqlite on one connection, WAL journal.  Transactions are serialised by a lock so
    that statements of concurrent coroutines never interleave inside one transaction."""

    def __init__(self, path: str | Path, *, synchronous: str = "NORMAL") -> None:
        self.path = str(path)
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"bad synchronous mode {synchronous!r}")
        self._synchronous = synchronous.upper()
        self._db: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()
        # Group commit of live-game saves: (params, future) waiting for the next flush.
        self._pending: list[tuple[tuple[Any, ...], asyncio.Future[None]]] = []
        self._flusher: asyncio.Task[None] | None = None

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise RuntimeError("storage is not open: await storage.open() first")
        return self._db

    async def open(self) -> None:
        if self._db is not None:
            return
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        db = await aiosqlite.connect(self.path, isolation_level=None)
        self._db = db
        try:
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute(f"PRAGMA synchronous={self._synchronous}")  # checked above
            await db.execute("PRAGMA foreign_keys=ON")
            await db.execute("PRAGMA busy_timeout=5000")
            await self._migrate()
        except BaseException:
            self._db = None
            await db.close()
            raise

    async def close(self) -> None:
        if self._flusher is not None and not self._flusher.done():
            await asyncio.wait([self._flusher])
        if self._db is not None:
            db, self._db = self._db, None
            await db.close()

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
        for number, statements in MIGRATIONS:
            if number <= current:
                continue
            async with self._lock:
                await db.execute("BEGIN IMMEDIATE")
                try:
                    for sql in statements:
                        await db.execute(sql)
                    await db.execute("INSERT INTO schema_version (version) VALUES (?)", (number,))
                    await db.execute("COMMIT")
                except BaseException:
                    await db.execute("ROLLBACK")
                    raise
            log.info("database %s migrated to schema version %d", self.path, number)

    # -------------------------------------------------------------- transactions
    async def _write(self, sql: str, params: Sequence[Any]) -> None:
        async with self._lock:
            await self.db.execute(sql, params)

    class _Txn:
        def __init__(self, storage: SqliteStorage) -> None:
            self.s = storage

        async def __aenter__(self) -> aiosqlite.Connection:
            await self.s._lock.acquire()
            try:
                await self.s.db.execute("BEGIN IMMEDIATE")
            except BaseException:
                self.s._lock.release()
                raise
            return self.s.db

        async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
            try:
                if exc_type is None:
                    await self.s.db.execute("COMMIT")
                else:
                    await self.s.db.execute("ROLLBACK")
            finally:
                self.s._lock.release()

    def _txn(self) -> SqliteStorage._Txn:
        return SqliteStorage._Txn(self)

    # -------------------------------------------------------------- lobbies
    async def save_lobby(self, lobby: LobbyRecord) -> None:
        data = json.dumps(
            {
                "host_id": lobby.host_id,
                "host_name": lobby.host_name,
                "options": json.loads(_options_json(lobby.options)),
                "seats": json.loads(_seats_json(lobby.seats)),
                "created_at": lobby.created_at,
            },
            ensure_ascii=False,
        )
        await self._write(
            "INSERT INTO lobbies (channel_id, guild_id, data, updated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(channel_id) DO UPDATE SET guild_id = excluded.guild_id, "
            "data = excluded.data, updated_at = excluded.updated_at",
            (lobby.channel_id, lobby.guild_id, data, lobby.created_at),
        )

    async def delete_lobby(self, channel_id: int) -> None:
        await self._write("DELETE FROM lobbies WHERE channel_id = ?", (channel_id,))

    # -------------------------------------------------------------- games
    async def start_game(self, series: SeriesRecord, game: NewGame) -> tuple[int, int]:
        async with self._txn() as db:
            await db.execute("DELETE FROM lobbies WHERE channel_id = ?", (game.channel_id,))
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
                        _options_json(series.options),
                        series.created_at,
                    ),
                )
                series_id = cur.lastrowid
                assert series_id is not None
                await db.executemany(
                    "INSERT INTO series_players (series_id, seat, user_id, name, ai_level) "
                    "VALUES (?, ?, ?, ?, ?)",
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
                    _seats_json(game.seats),
                    game.seed,
                    json.dumps(game.deal, ensure_ascii=False),
                    game.started_at,
                ),
            )
            game_id = cur.lastrowid
            assert game_id is not None
            await db.execute(
                "UPDATE series SET last_game_id = ? WHERE id = ?", (game_id, series_id)
            )
            await db.execute(
                "INSERT INTO live_games (game_id, channel_id, series_id, snapshot, meta, version, "
                "updated_at) VALUES (?, ?, ?, ?, ?, 0, ?)",
                (game_id, game.channel_id, series_id, game.snapshot, game.meta, game.started_at),
            )
        return series_id, game_id

    _SAVE_LIVE = (
        "UPDATE live_games SET snapshot = ?, meta = ?, version = ?, updated_at = ? "
        "WHERE game_id = ?"
    )

    async def save_live(self, game_id: int, snapshot: str, meta: str, version: int,
                        now: float) -> None:
        """Group commit: saves arriving while a flush runs are written together in the next
        transaction (one round trip to the database thread for many games).  Returns once
        this save is committed; raises if its transaction failed."""
        self.db  # noqa: B018 - raise now if closed
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append(((snapshot, meta, version, now, game_id), fut))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.ensure_future(self._flush())
        await fut

    async def _flush(self) -> None:
        # One transaction per batch: all of it is stored, or none (then every waiting save
        # fails and its caller changes nothing).
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                async with self._txn() as db:
                    await db.executemany(self._SAVE_LIVE, [p for p, _ in batch])
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
            for _, fut in batch:
                if not fut.done():
                    fut.set_result(None)

    async def finish_game(self, game: FinishedGame, series: SeriesRecord | None,
                          end_series_at: float | None = None) -> None:
        async with self._txn() as db:
            await db.execute(
                "UPDATE games SET actions = ?, result = ?, loser_seat = ?, ended_at = ? "
                "WHERE id = ?",
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
                    "INSERT INTO game_players (game_id, seat, guild_id, user_id, profile, name, "
                    "lost, draw, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                await db.execute(
                    "UPDATE series SET games = ?, draws = ?, last_dealer = ?, last_loser = ? "
                    "WHERE id = ?",
                    (series.games, series.draws, series.last_dealer, series.last_loser,
                     series.id),
                )
                await db.executemany(
                    "UPDATE series_players SET losses = ? WHERE series_id = ? AND seat = ?",
                    [(n, series.id, seat) for seat, n in enumerate(series.losses)],
                )
            await db.execute("DELETE FROM live_games WHERE game_id = ?", (game.game_id,))
            if end_series_at is not None:
                await db.execute(
                    "UPDATE series SET status = 'ended', ended_at = ? WHERE id = ?",
                    (end_series_at, game.series_id),
                )

    async def end_series(self, series_id: int, ended_at: float) -> None:
        await self._write(
            "UPDATE series SET status = 'ended', ended_at = ? WHERE id = ? AND status = 'active'",
            (ended_at, series_id),
        )

    # -------------------------------------------------------------- recovery
    async def load_state(self) -> StoredState:
        async with self._lock:  # no reading inside another's transaction
            db = self.db
            lobbies: list[LobbyRecord] = []
            async with db.execute("SELECT channel_id, guild_id, data FROM lobbies") as cur:
                async for channel_id, guild_id, data in cur:
                    d = json.loads(data)
                    lobbies.append(
                        LobbyRecord(
                            channel_id=channel_id,
                            guild_id=guild_id,
                            host_id=d["host_id"],
                            host_name=d["host_name"],
                            options=LobbyOptions(**d["options"]),
                            seats=_seats_from(d["seats"]),
                            created_at=d["created_at"],
                        )
                    )
            series: dict[int, SeriesRecord] = {}
            async with db.execute(
                "SELECT id, channel_id, guild_id, host_id, host_name, options, rules, profile, "
                "games, draws, last_dealer, last_loser, last_game_id, created_at "
                "FROM series WHERE status = 'active' ORDER BY id"
            ) as cur:
                async for row in cur:
                    series[row[0]] = SeriesRecord(
                        id=row[0],
                        channel_id=row[1],
                        guild_id=row[2],
                        host_id=row[3],
                        host_name=row[4],
                        options=_options_from(row[5]),
                        rules=json.loads(row[6]),
                        profile=row[7],
                        seats=[],
                        losses=[],
                        games=row[8],
                        draws=row[9],
                        last_dealer=row[10],
                        last_loser=row[11],
                        last_game_id=row[12],
                        created_at=row[13],
                    )
            async with db.execute(
                "SELECT sp.series_id, sp.user_id, sp.name, sp.ai_level, sp.losses "
                "FROM series_players sp JOIN series s ON s.id = sp.series_id "
                "WHERE s.status = 'active' ORDER BY sp.series_id, sp.seat"
            ) as cur:
                async for sid, user_id, name, level, losses in cur:
                    rec = series[sid]
                    rec.seats.append(LobbySeat(user_id, name, level))
                    rec.losses.append(losses)
            live: list[LiveRecord] = []
            async with db.execute(
                "SELECT game_id, channel_id, series_id, snapshot, meta, version FROM live_games "
                "ORDER BY game_id"
            ) as cur:
                async for game_id, channel_id, series_id, snap, meta, version in cur:
                    live.append(
                        LiveRecord(game_id, channel_id, series_id, json.loads(snap),
                                   json.loads(meta), version)
                    )
            return StoredState(lobbies, list(series.values()), live)

    async def load_game(self, game_id: int) -> GameRecord | None:
        async with self._lock:  # no reading inside another's transaction
            async with self.db.execute(
                "SELECT rules, deal, actions, result FROM games WHERE id = ?", (game_id,)
            ) as cur:
                row = await cur.fetchone()
            if row is None:
                return None
            return GameRecord(
                game_id, json.loads(row[0]), json.loads(row[1]), json.loads(row[2] or "[]"), row[3]
            )

    # -------------------------------------------------------------- stats
    async def player_stats(self, guild_id: int, user_id: int, profile: str | None
                           ) -> tuple[str | None, list[ProfileStats]]:
        async with self._lock:  # no reading inside another's transaction
            db = self.db
            if profile is None:
                sql = (
                    "SELECT profile, COUNT(*), SUM(lost), SUM(draw) FROM game_players "
                    "WHERE guild_id = ? AND user_id = ? GROUP BY profile ORDER BY profile"
                )
                params: tuple[Any, ...] = (guild_id, user_id)
            else:
                sql = (
                    "SELECT profile, COUNT(*), SUM(lost), SUM(draw) FROM game_players "
                    "WHERE guild_id = ? AND user_id = ? AND profile = ? GROUP BY profile"
                )
                params = (guild_id, user_id, profile)
            async with db.execute(sql, params) as cur:
                fetched = await cur.fetchall()
            rows = [ProfileStats(p, g, lo or 0, dr or 0) for p, g, lo, dr in fetched]
            async with db.execute(
                "SELECT name FROM game_players WHERE guild_id = ? AND user_id = ? "
                "ORDER BY ended_at DESC LIMIT 1",
                (guild_id, user_id),
            ) as cur:
                row = await cur.fetchone()
            return (row[0] if row else None), rows

    _BOARD_ALL = (
        "SELECT user_id, COUNT(*) AS games, SUM(lost) AS losses, SUM(draw) AS draws, "
        "CAST(SUM(lost) AS REAL) / COUNT(*) AS loss_rate, "
        "(SELECT name FROM game_players n WHERE n.guild_id = g.guild_id "
        " AND n.user_id = g.user_id ORDER BY n.ended_at DESC LIMIT 1) AS name "
        "FROM game_players g WHERE guild_id = ? "
        "GROUP BY user_id HAVING COUNT(*) >= ? "
        "ORDER BY loss_rate ASC, games DESC, user_id ASC LIMIT ? OFFSET ?"
    )
    _BOARD_PROFILE = (
        "SELECT user_id, COUNT(*) AS games, SUM(lost) AS losses, SUM(draw) AS draws, "
        "CAST(SUM(lost) AS REAL) / COUNT(*) AS loss_rate, "
        "(SELECT name FROM game_players n WHERE n.guild_id = g.guild_id "
        " AND n.user_id = g.user_id ORDER BY n.ended_at DESC LIMIT 1) AS name "
        "FROM game_players g WHERE guild_id = ? AND profile = ? "
        "GROUP BY user_id HAVING COUNT(*) >= ? "
        "ORDER BY loss_rate ASC, games DESC, user_id ASC LIMIT ? OFFSET ?"
    )
    _COUNT_ALL = (
        "SELECT COUNT(*) FROM (SELECT user_id FROM game_players WHERE guild_id = ? "
        "GROUP BY user_id HAVING COUNT(*) >= ?)"
    )
    _COUNT_PROFILE = (
        "SELECT COUNT(*) FROM (SELECT user_id FROM game_players WHERE guild_id = ? "
        "AND profile = ? GROUP BY user_id HAVING COUNT(*) >= ?)"
    )

    async def leaderboard(self, guild_id: int, profile: str | None, min_games: int,
                          limit: int, offset: int) -> tuple[int, list[LeaderboardRow]]:
        async with self._lock:  # no reading inside another's transaction
            db = self.db
            count_params: tuple[Any, ...]
            if profile is None:
                count_sql, count_params = self._COUNT_ALL, (guild_id, min_games)
                sql = self._BOARD_ALL
                params: tuple[Any, ...] = (guild_id, min_games, limit, offset)
            else:
                count_sql, count_params = self._COUNT_PROFILE, (guild_id, profile, min_games)
                sql = self._BOARD_PROFILE
                params = (guild_id, profile, min_games, limit, offset)
            async with db.execute(count_sql, count_params) as cur:
                row = await cur.fetchone()
            total = int(row[0]) if row else 0
            rows: list[LeaderboardRow] = []
            async with db.execute(sql, params) as cur:
                for i, (uid, games, losses, draws, rate, name) in enumerate(await cur.fetchall()):
                    rows.append(
                        LeaderboardRow(offset + i + 1, uid, name, games, losses, draws, rate)
                    )
            return total, rows
