"""The :class:`Storage` transactions, written once for every SQL backend.

:class:`SqlStore` holds what each :class:`Storage` method reads and writes, and in what
transaction.  A backend subclasses it and supplies only the driver seam:

- :meth:`SqlStore.read` and :meth:`SqlStore.write`: a read and a write transaction (async
  context managers) that yield a :class:`SqlConnection`: ``execute`` (rows changed),
  ``execute_many``, ``fetch`` (rows), ``fetch_one`` (a row or ``None``) and ``insert`` (the
  new row's id);
- :meth:`SqlStore.execute`: one write statement on its own (committed alone);
- :meth:`SqlStore.for_update`: the row-lock clause of a read inside a write transaction.

A backend gives up a request that waits longer than :attr:`SqlStore.timeout` with
:class:`~bot.storage.base.DatabaseBusy`, except inside :meth:`SqlStore.unhurried` (startup),
where :meth:`SqlStore.patient` is true.

The reads of stats, leaderboards and history are in :mod:`bot.storage.sql_reads`, those of
``/durak privacy`` and ``forget-me`` in :mod:`bot.storage.sql_privacy`; both build on the seam
of :mod:`bot.storage.sql_seam`.  Statements are written with ``?`` placeholders
(:mod:`bot.storage.statements`); rows are plain tuples.  Opening, migrating under a backend's
own lock and closing stay with the backend, which calls :meth:`SqlStore.migrate` and
:meth:`SqlStore.probe_write` from its ``open``.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
from abc import abstractmethod
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar

from bot.ratings import Rating
from bot.seating import LobbySeat
from bot.storage import records
from bot.storage import statements as sql
from bot.storage.base import (
    DEFAULT_DATABASE_TIMEOUT,
    ChannelMoved,
    DatabaseUnavailable,
    GameMoved,
    GuildFilter,
    Storage,
)
from bot.storage.migrations import Migration, check_numbering
from bot.storage.records import (
    FIRST_REVISION,
    FinishedGame,
    GameRecord,
    LiveRecord,
    LobbyRecord,
    NewGame,
    ReviewRecord,
    SeriesRecord,
    StoredState,
    actions_of_snapshot,
    backfill_games,
    every_guild,
    game_record_from_row,
    lobby_from_json,
    lobby_json,
    options_json,
    rating_updates,
    seats_json,
    series_from_row,
)
from bot.storage.sql_privacy import PrivacyQueries
from bot.storage.sql_reads import RecordQueries
from bot.storage.sql_seam import Row, SqlConnection, number
from bot.votes import Forfeit

__all__ = ["Row", "SqlConnection", "SqlStore", "Transaction"]

log = logging.getLogger(__name__)

#: A factory of transactions (as :meth:`SqlStore.write`), for :meth:`SqlStore.migrate`.
Transaction = Callable[[], AbstractAsyncContextManager[SqlConnection]]


_Handle = TypeVar("_Handle")


class _RolledBack(Exception):
    """Raised inside a write transaction to roll it back on purpose."""


#: Whether the current task is inside :meth:`SqlStore.unhurried` (of any store).
_UNHURRIED: contextvars.ContextVar[bool] = contextvars.ContextVar("unhurried", default=False)


class SqlStore(RecordQueries, PrivacyQueries, Storage):
    """:class:`Storage` on a SQL database, through the driver seam of its subclass.

    ``timeout``: seconds one request (a transaction, from waiting for a connection to its
    commit) may wait for the database before the backend gives it up with
    :class:`~bot.storage.base.DatabaseBusy` (``DATABASE_TIMEOUT``)."""

    def __init__(
        self,
        target: str,
        migrations: tuple[Migration, ...],
        timeout: float = DEFAULT_DATABASE_TIMEOUT,
    ) -> None:
        check_numbering(migrations)
        if not timeout > 0:
            raise ValueError(f"the database timeout must be positive, not {timeout!r}")
        self.target = target
        self.timeout = timeout
        self._migrations = migrations

    @contextlib.asynccontextmanager
    async def unhurried(self) -> AsyncIterator[None]:
        token = _UNHURRIED.set(True)
        try:
            yield
        finally:
            _UNHURRIED.reset(token)

    @staticmethod
    def patient() -> bool:
        """Whether the current request runs inside :meth:`unhurried` (no timeout)."""
        return _UNHURRIED.get()

    @staticmethod
    def opened(handle: _Handle | None) -> _Handle:
        """The backend's connection or pool ``handle``; ``RuntimeError`` if it is ``None``
        (the store is not open)."""
        if handle is None:
            raise RuntimeError("storage is not open: await storage.open() first")
        return handle

    # -------------------------------------------------------------- the driver seam
    # read(), write() and for_update() are declared by SqlSeam (bot/storage/sql_seam.py)
    @abstractmethod
    async def execute(self, statement: str, *params: Any) -> int:
        """One write statement, committed on its own; the number of rows it changed."""

    async def query(self, statement: str, *params: Any) -> list[Row]:
        """Every row of one query read on its own (a statement sees one snapshot)."""
        async with self.read() as con:
            return await con.fetch(statement, *params)

    async def read_one(self, statement: str, *params: Any) -> Row | None:
        """The first row one read statement finds (``None`` if none), read on its own."""
        rows = await self.query(statement, *params)
        return rows[0] if rows else None

    # -------------------------------------------------------------- schema
    async def migrate(self, transaction: Transaction) -> None:
        """Apply the migrations newer than the database's, each in its own ``transaction()``
        with its ``schema_version`` row.  The backend creates ``schema_version`` first.

        A database at a schema version newer than the last migration known here (written by a
        newer release) is refused with :class:`DatabaseUnavailable`, changing nothing: a
        rollback to older code must not write a schema it does not know."""
        async with transaction() as con:
            current = await number(con, sql.SCHEMA_VERSION)
        known = self._migrations[-1].number if self._migrations else 0
        if current > known:
            # Written by a newer release: old code must not run on a schema it does not know.
            raise DatabaseUnavailable(
                f"database {self.target} has schema version {current}, newer than the "
                f"version {known} this durak-bot knows: it was written by a newer release; "
                "run that release or a later one"
            )
        for migration in self._migrations:
            if migration.number <= current:
                continue
            async with transaction() as con:
                for statement in migration.statements:
                    await con.execute(statement)
                if migration.backfill is not None:
                    await self._backfill(con, migration.backfill)
                await con.execute(sql.SCHEMA_VERSION_INSERT, migration.number)
            log.info(
                "database %s migrated to schema version %d (%s)",
                self.target,
                migration.number,
                migration.why,
            )

    async def _backfill(self, con: SqlConnection, step: str) -> None:
        """A migration's data step, inside its transaction (see :class:`Migration`)."""
        if step != "ratings":
            raise ValueError(f"unknown migration backfill {step!r}")
        rows = await con.fetch(sql.BACKFILL_GAMES)
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

    async def probe_write(self) -> None:
        """A write that is rolled back: a database that refuses writes fails here, at start."""
        with contextlib.suppress(_RolledBack):
            async with self.write() as con:
                await con.execute(sql.SCHEMA_VERSION_INSERT, -1)
                raise _RolledBack

    async def schema_version(self) -> int:
        async with self.read() as con:
            return await number(con, sql.SCHEMA_VERSION)

    # -------------------------------------------------------------- channel fences
    async def _advance_fence(
        self, con: SqlConnection, channel_id: int | None, fence: int | None
    ) -> None:
        """Inside a write transaction: advance the channel's fence from ``fence`` (see
        :class:`Storage`), or raise :class:`ChannelMoved` so the transaction rolls back.
        ``fence=None``: an unfenced write (of a tool or test owning the database alone)."""
        if channel_id is None or fence is None:
            return
        if fence == 0:
            changed = await con.execute(sql.FENCE_CREATE, channel_id)
        else:
            changed = await con.execute(sql.FENCE_ADVANCE, channel_id, fence)
        if changed != 1:
            raise ChannelMoved(channel_id=channel_id, fence=fence)

    async def _claim_in(self, con: SqlConnection, channel_id: int) -> None:
        """:meth:`claim_channel` inside the write transaction ``con`` (nothing to claim where
        one process has the database)."""

    async def _channel_of(self, con: SqlConnection, query: str, key: int) -> int | None:
        row = await con.fetch_one(query, key)
        return None if row is None else int(row[0])

    # -------------------------------------------------------------- lobbies
    async def save_lobby(self, lobby: LobbyRecord, *, fence: int | None = None) -> None:
        async with self.write() as con:
            await self._advance_fence(con, lobby.channel_id, fence)
            await con.execute(sql.LOBBY_UPSERT, *_lobby_row(lobby))

    async def delete_lobby(self, channel_id: int, *, fence: int | None = None) -> None:
        async with self.write() as con:
            await self._advance_fence(con, channel_id, fence)
            await con.execute(sql.LOBBY_DELETE, channel_id)

    # -------------------------------------------------------------- games
    async def start_game(
        self,
        series: SeriesRecord,
        game: NewGame,
        *,
        fence: int | None = None,
        claim: bool = False,
    ) -> tuple[int, int]:
        async with self.write() as con:
            await self._advance_fence(con, game.channel_id, fence)
            if claim:
                await self._claim_in(con, game.channel_id)
            await con.execute(sql.LOBBY_DELETE, game.channel_id)
            series_id = series.id
            if series_id is None:
                series_id = await con.insert(
                    sql.SERIES_INSERT,
                    series.guild_id,
                    series.channel_id,
                    series.host_id,
                    series.host_name,
                    series.profile,
                    json.dumps(series.rules),
                    options_json(series.options),
                    series.created_at,
                )
                await con.execute_many(
                    sql.SERIES_PLAYER_INSERT,
                    [
                        (series_id, seat, s.user_id, s.name, s.ai_level)
                        for seat, s in enumerate(series.seats)
                    ],
                )
            game_id = await con.insert(
                sql.GAME_INSERT,
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
            await con.execute(sql.SERIES_LAST_GAME, game_id, series_id)
            await con.execute(
                sql.LIVE_INSERT,
                game_id,
                game.channel_id,
                series_id,
                game.snapshot,
                game.meta,
                game.started_at,
                FIRST_REVISION,
            )
        return series_id, game_id

    async def save_live(
        self, game_id: int, snapshot: str, meta: str, version: int, now: float, *, revision: int
    ) -> int:
        changed = await self.execute(sql.LIVE_SAVE, snapshot, meta, version, now, game_id, revision)
        if changed != 1:
            raise GameMoved(game_id=game_id, revision=revision)
        return revision + 1

    async def bump_live(self, game_id: int, now: float, *, revision: int) -> int:
        if await self.execute(sql.LIVE_BUMP_FENCED, now, game_id, revision) != 1:
            raise GameMoved(game_id=game_id, revision=revision)
        return revision + 1

    async def load_live(self, game_id: int) -> LiveRecord | None:
        row = await self.read_one(sql.LOAD_LIVE_ONE, game_id)
        return None if row is None else _live_record(row)

    async def finish_game(
        self,
        game: FinishedGame,
        series: SeriesRecord | None,
        end_series_at: float | None = None,
        *,
        revision: int,
        fence: int | None = None,
    ) -> None:
        async with self.write() as con:
            if await con.execute(sql.LIVE_DELETE_FENCED, game.game_id, revision) != 1:
                raise GameMoved(game_id=game.game_id, revision=revision)
            channel_id = await self._channel_of(con, sql.CHANNEL_OF_GAME, game.game_id)
            await self._advance_fence(con, channel_id, fence)
            await con.execute(
                sql.GAME_FINISH,
                json.dumps(game.actions, ensure_ascii=False),
                game.result,
                game.loser_seat,
                game.ended_at,
                game.game_id,
            )
            if game.players:
                await con.execute_many(
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
                await con.execute_many(
                    sql.GAME_AI_LEVEL_INSERT,
                    [(game.game_id, level) for level in sorted(set(game.ai_levels))],
                )
            if game.rated_places:
                await self._rate(con, game)
            if series is not None and series.id is not None:
                await con.execute(
                    sql.SERIES_COUNTS,
                    series.games,
                    series.draws,
                    series.last_dealer,
                    series.last_loser,
                    series.id,
                )
                await con.execute_many(
                    sql.SERIES_PLAYER_LOSSES,
                    [(n, series.id, seat) for seat, n in enumerate(series.losses)],
                )
            if end_series_at is not None:
                await con.execute(sql.SERIES_END, end_series_at, game.series_id)

    async def _rate(self, con: SqlConnection, game: FinishedGame) -> None:
        """Inside a write transaction: rate ``game.rated_places``.  Each player's rating row
        is read with :meth:`for_update`, so two games ending at once in two processes rate
        one after the other."""
        before: dict[int, tuple[Rating, int]] = {}
        for user_id, _ in game.rated_places:
            row = await con.fetch_one(
                sql.RATING_OF + self.for_update(), game.guild_id, game.profile, user_id
            )
            if row is not None:
                before[user_id] = (Rating(float(row[0]), float(row[1])), int(row[2]))
        updates = rating_updates(game, before)
        await con.execute_many(
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
        await con.execute_many(
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

    async def record_forfeit(self, forfeit: Forfeit, guild_id: int, *, revision: int) -> int:
        async with self.write() as con:
            if await con.execute(sql.LIVE_BUMP_FENCED, forfeit.at, forfeit.game_id, revision) != 1:
                raise GameMoved(game_id=forfeit.game_id, revision=revision)
            await con.execute(
                sql.FORFEIT_INSERT,
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
        async with self.read() as con:
            rows = await con.fetch(sql.FORFEITS_OF_GAME, game_id)
        return [Forfeit(g, u, s, a, r, m) for g, u, s, a, r, m in rows]

    async def load_live_game(self, game_id: int) -> tuple[LiveRecord, list[Forfeit]] | None:
        # one statement: the live row once per forfeit (or once, with none), in order
        rows = await self.query(sql.LOAD_LIVE_WITH_FORFEITS, game_id)
        if not rows:
            return None
        forfeits = [Forfeit(game_id, *f[-5:]) for f in rows if f[-5] is not None]
        return _live_record(rows[0][:-5]), forfeits

    async def end_series(
        self, series_id: int, ended_at: float, *, fence: int | None = None
    ) -> None:
        async with self.write() as con:
            channel_id = await self._channel_of(con, sql.CHANNEL_OF_SERIES, series_id)
            await self._advance_fence(con, channel_id, fence)
            await con.execute(sql.SERIES_END_ACTIVE, ended_at, series_id)

    async def end_series_and_save_lobby(
        self, series_id: int, ended_at: float, lobby: LobbyRecord, *, fence: int | None = None
    ) -> None:
        async with self.write() as con:
            await self._advance_fence(con, lobby.channel_id, fence)
            await con.execute(sql.SERIES_END_ACTIVE, ended_at, series_id)
            await con.execute(sql.LOBBY_UPSERT, *_lobby_row(lobby))

    async def discard_orphans(self, ended_at: float) -> list[int]:
        async with self.write() as con:
            orphans = await con.fetch(sql.ORPHAN_LIVE + self.for_update("l"))
            for game_id, snapshot in orphans:
                await con.execute(
                    sql.ORPHAN_ABORT, actions_of_snapshot(snapshot), ended_at, game_id
                )
                await con.execute(sql.ORPHAN_DELETE, game_id)
                # every copy of that channel is stale now: fence them all out
                channel_id = await self._channel_of(con, sql.CHANNEL_OF_GAME, game_id)
                if await con.execute(sql.FENCE_BUMP, channel_id) != 1:
                    await con.execute(sql.FENCE_CREATE, channel_id)
        return [int(game_id) for game_id, _ in orphans]

    # -------------------------------------------------------------- recovery
    async def load_state(self, include_guild: GuildFilter | None = None) -> StoredState:
        keep = include_guild or every_guild
        async with self.read() as con:
            state = _stored_state(
                await con.fetch(sql.LOAD_LOBBIES),
                await con.fetch(sql.LOAD_SERIES),
                await con.fetch(sql.LOAD_SERIES_PLAYERS),
                await con.fetch(sql.LOAD_LIVE),
                keep,
            )
            fences = await con.fetch(sql.LOAD_FENCES)
        held = {r.channel_id for r in state.lobbies} | {s.channel_id for s in state.series}
        state.fences = {int(c): int(r) for c, r, _ in fences if c in held}
        state.owners = {int(c): int(o) for c, _, o in fences if c in held and o is not None}
        return state

    async def load_channel(self, channel_id: int) -> StoredState:
        async with self.read() as con:
            state = _stored_state(
                await con.fetch(sql.LOAD_LOBBY_OF_CHANNEL, channel_id),
                await con.fetch(sql.LOAD_SERIES_OF_CHANNEL, channel_id),
                await con.fetch(sql.LOAD_SERIES_PLAYERS_OF_CHANNEL, channel_id),
                await con.fetch(sql.LOAD_LIVE_OF_CHANNEL, channel_id),
                every_guild,
            )
            row = await con.fetch_one(sql.FENCE_OF, channel_id)
        state.fences = {channel_id: int(row[0]) if row else 0}
        if row is not None and row[1] is not None:
            state.owners = {channel_id: int(row[1])}
        return state

    async def channel_fences(self) -> dict[int, tuple[int, int | None]]:
        async with self.read() as con:
            rows = await con.fetch(sql.CHANNEL_FENCES)
        return {int(c): (int(f), None if g is None else int(g)) for c, f, g in rows}

    async def live_revisions(self) -> dict[int, tuple[int, int]]:
        async with self.read() as con:
            rows = await con.fetch(sql.LIVE_REVISIONS)
        return {int(c): (int(g), int(r)) for c, g, r in rows}

    async def open_channels(self, guild_id: int) -> list[int]:
        async with self.read() as con:
            rows = await con.fetch(sql.OPEN_CHANNELS, guild_id, guild_id)
        return sorted(int(c) for (c,) in rows)

    async def load_game(self, game_id: int) -> GameRecord | None:
        row = await self.read_one(sql.LOAD_GAME, game_id)
        return None if row is None else game_record_from_row(game_id, row)

    async def game_seats(self, game_id: int) -> list[LobbySeat] | None:
        row = await self.read_one(sql.GAME_SEATS, game_id)
        return None if row is None else records.seats_from(json.loads(row[0]))

    async def load_review(self, game_id: int, user_id: int, deals: int, seed: int) -> str | None:
        row = await self.read_one(sql.REVIEW_GET, game_id, user_id, deals, seed)
        return None if row is None else str(row[2])

    async def save_review(self, review: ReviewRecord) -> None:
        await self.execute(
            sql.REVIEW_PUT,
            review.game_id,
            review.user_id,
            review.seat,
            review.deals,
            review.seed,
            review.accuracy,
            review.data,
            review.created_at,
        )

    async def review_accuracy(self, user_id: int) -> tuple[float | None, int]:
        row = await self.read_one(sql.REVIEW_ACCURACY, user_id)
        if row is None or not row[1]:
            return None, 0
        return float(row[0]), int(row[1])

    async def load_series(self, series_id: int) -> SeriesRecord | None:
        async with self.read() as con:
            row = await con.fetch_one(sql.SERIES_BY_ID, series_id)
            seats = await con.fetch(sql.SERIES_PLAYERS_OF, series_id)
        if row is None:
            return None
        series = series_from_row(row)
        series.active = row[14] == "active"
        for user_id, name, level, losses in seats:
            series.seats.append(LobbySeat(user_id, name, level))
            series.losses.append(losses)
        return series

    async def game_results(self, game_id: int) -> list[records.PlayerResult]:
        async with self.read() as con:
            rows = await con.fetch(sql.GAME_PLAYERS_OF, game_id)
        return [
            records.PlayerResult(s, u, n, bool(lost), bool(draw)) for s, u, n, lost, draw in rows
        ]

    # -------------------------------------------------------------- server settings
    async def load_server_config(self, guild_id: int) -> str | None:
        row = await self.read_one(sql.SERVER_SETTINGS_LOAD, guild_id)
        return None if row is None else str(row[0])

    async def save_server_config(self, guild_id: int, settings_json: str, now: float) -> None:
        await self.execute(sql.SERVER_SETTINGS_UPSERT, guild_id, settings_json, now)

    # -------------------------------------------------------------- the bot's own values
    async def get_meta(self, key: str) -> str | None:
        row = await self.read_one(sql.META_GET, key)
        return None if row is None else str(row[0])

    async def set_meta(self, key: str, value: str, now: float) -> None:
        await self.execute(sql.META_UPSERT, key, value, now)

    async def take_number(self, name: str) -> int:
        async with self.write() as con:
            await con.execute(sql.NUMBER_ENSURE, name)
            row = await con.fetch_one(sql.NUMBER_TAKE, name)
        assert row is not None
        return int(row[0])

    async def set_meta_once(self, key: str, value: str, now: float) -> str:
        async with self.write() as con:
            await con.execute(sql.META_INSERT_ONCE, key, value, now)
            row = await con.fetch_one(sql.META_GET, key)
        assert row is not None
        return str(row[0])


def _stored_state(
    lobby_rows: list[Row],
    series_rows: list[Row],
    seat_rows: list[Row],
    live_rows: list[Row],
    keep: GuildFilter,
) -> StoredState:
    """The lobbies, active series (with their seats) and live games of the rows read by
    :data:`~bot.storage.statements.LOAD_LOBBIES` and the like, of the guilds ``keep``
    accepts."""
    lobbies = [lobby_from_json(c, g, d) for c, g, d in lobby_rows if keep(g)]
    series: dict[int, SeriesRecord] = {}
    for row in series_rows:
        if keep(row[2]):
            series[row[0]] = series_from_row(row)
    for sid, user_id, name, level, losses in seat_rows:
        rec = series.get(sid)
        if rec is not None:
            rec.seats.append(LobbySeat(user_id, name, level))
            rec.losses.append(losses)
    live = [_live_record(row) for row in live_rows if keep(row[6])]
    return StoredState(lobbies, list(series.values()), live)


def _lobby_row(lobby: LobbyRecord) -> tuple[int, int, str, float]:
    """The parameters of :data:`bot.storage.statements.LOBBY_UPSERT` for ``lobby``."""
    return lobby.channel_id, lobby.guild_id, lobby_json(lobby), lobby.created_at


def _live_record(row: Row) -> LiveRecord:
    """A row of :data:`bot.storage.statements.LOAD_LIVE` as a :class:`LiveRecord`."""
    game_id, channel_id, series_id, snapshot, meta, version, guild_id, revision = row
    return LiveRecord(
        game_id,
        channel_id,
        series_id,
        _as_stored(snapshot),
        _as_stored(meta),
        version,
        guild_id,
        revision,
    )


def _as_stored(text: str) -> Any:
    """A stored JSON column, parsed; text that is not JSON is returned as it is, so that one
    damaged row reaches the service (which sets it aside) instead of stopping every row from
    loading."""
    try:
        return json.loads(text)
    except ValueError:
        return text
