"""PostgreSQL backend with asyncpg: a connection pool, several bot processes on one database.

Every game write is fenced by the live row's ``revision`` (``UPDATE … WHERE game_id = ? AND
revision = ?``), so two processes never both serve a game: the one whose write finds the row
moved on gets :class:`bot.errors.GameMoved`.  Its own, next to the shared
:class:`~bot.storage.sql_store.SqlStore`: the pool, the advisory lock under which processes
starting together migrate once, row locks (``FOR UPDATE``) where a write transaction reads
what it will change, and read transactions that see one snapshot.

A database that hangs (up, but not answering) must not hang the players' requests with it:
each request has :attr:`SqlStore.timeout` seconds, from waiting for a pooled connection to its
last statement's answer.  When they run out, the request's connection is terminated (anything
waiting on it fails at once; the server rolls back what was not committed) and the request
raises :class:`DatabaseBusy`; the pool opens a fresh connection for the next one.  asyncpg's
own ``command_timeout`` is not used: it limits each statement, not a request, and on expiry
it asks the server to cancel over a new connection, which hangs too, while the pool waits for
that cancellation before reusing (or dropping) the connection (measured: a 2-second
``command_timeout`` took 4 s to give up one statement on a frozen server).  The server limits
what it does for a connection that went away: ``statement_timeout`` (the request's timeout)
and ``idle_in_transaction_session_timeout`` (twice that), sent as startup parameters so that
they hold on every connection the pool opens; startup (:meth:`SqlStore.unhurried`: opening,
migrating, restoring) lifts both, and sets them back after.  The pool does not reset a session
when a connection comes back (asyncpg's default costs a round trip per request, for session
state this code never leaves behind: no ``SET`` but the one above, no ``LISTEN`` or advisory
lock on a pooled connection); a transaction left open is still rolled back.

**Several processes.**  Each storage, when it opens, takes a process number from the database
(the counter ``process``) and holds a session advisory lock on it on a connection of its own,
beside the pool: a process is alive exactly while that connection is (a ``kill -9`` closes it,
and the server lets the lock go at once).  The pool's connections carry the number as
``durak.process``, which migration 10's triggers put in the notification of every committed
change of a channel (``NOTIFY durak_channels``); the same connection ``LISTEN``s to them
(:meth:`PostgresStorage.listen`), is pinged every :data:`PING_EVERY` seconds, and when it is
lost it is opened again, locked and listening again, and the service told to read again what
changed meanwhile.  A channel's timers and AI turns are run by its owner
(``channel_fences.owner``): a process claims a channel whose owner is none, itself, or a
process whose lock is gone (:meth:`PostgresStorage.claim_channel`), in one ``UPDATE`` that
two processes cannot both win.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator, Iterable, Sequence
from functools import lru_cache
from typing import Any

import asyncpg

from bot.storage.base import DEFAULT_DATABASE_TIMEOUT, DatabaseBusy, DatabaseUnavailable
from bot.storage.changes import NOTIFY_CHANNEL, ChannelChange, OnChange, OnReconnect
from bot.storage.migrations import POSTGRES_MIGRATIONS, Migration
from bot.storage.sql_store import Row, SqlConnection, SqlStore
from bot.storage.url import redact_url

__all__ = ["PING_EVERY", "PostgresStorage", "numbered"]

log = logging.getLogger(__name__)

#: Key of the advisory lock that serialises migrations across processes ("durak" in ASCII).
_MIGRATION_LOCK = 0x647572616B
#: The table of applied migrations, made before the first one runs.
_SCHEMA_VERSION_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
    "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
)
_PLACEHOLDER = re.compile(r"\?")
#: Seconds to open a connection when the storage opens (later connections are opened within
#: the timeout of the request that needs one).
_CONNECT_TIMEOUT = 10.0
#: Lifts the server's limits for one session (startup; ``RESET ALL`` restores them).
_UNLIMITED = "SET statement_timeout = 0; SET idle_in_transaction_session_timeout = 0"
#: Back to the limits the pool's connections start with (their startup parameters).
_LIMITED = "RESET statement_timeout; RESET idle_in_transaction_session_timeout"
#: The migration that brings channel owners and notifications (before it, with an older list
#: of migrations given, as in upgrade tests, the storage takes no process number).
_OWNERS_MIGRATION = 10
#: The first key of every process's advisory lock ("dura"); the second is its number.
_PROCESS_LOCK = 0x64757261
#: Seconds between two pings of the listening connection (a connection lost without a word,
#: a half-open socket, is found out by the ping failing).
PING_EVERY = 2.0
#: Seconds between two attempts to open the listening connection again.
_RECONNECT_EVERY = 0.25
#: The numbers of the processes alive now on this database (their advisory locks are held;
#: advisory locks are per database, so another database on the server does not count).
_ALIVE = (
    "SELECT objid::bigint FROM pg_locks WHERE locktype = 'advisory' "
    f"AND classid = {_PROCESS_LOCK}::oid AND objsubid = 2 AND granted "
    "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
)
#: The channel's owner becomes this process (params: process, channel, process) unless a live
#: process owns it; alone (:meth:`PostgresStorage.claim_channel`) or in a game's start.
_CLAIM = (
    "UPDATE channel_fences SET owner = ? WHERE channel_id = ? AND "
    f"(owner IS NULL OR owner = ? OR owner NOT IN ({_ALIVE}))"
)
_ORPHANED = (
    "SELECT l.channel_id, g.guild_id FROM live_games l JOIN games g ON g.id = l.game_id "
    "JOIN channel_fences f ON f.channel_id = l.channel_id "
    f"WHERE f.owner IS NULL OR f.owner = $1 OR f.owner NOT IN ({_ALIVE})"
)
_RELEASE_ALL = "UPDATE channel_fences SET owner = NULL WHERE owner = $1"
_RELEASE = "UPDATE channel_fences SET owner = NULL WHERE owner = $1 AND channel_id = ANY($2)"
_TAKE_PROCESS = (
    "INSERT INTO numbers (name, taken) VALUES ('process', 0) ON CONFLICT (name) DO NOTHING",
    "UPDATE numbers SET taken = taken % 2147483646 + 1 WHERE name = 'process' RETURNING taken",
)


@lru_cache(maxsize=256)
def numbered(statement: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1, $2, …`` (no ``?`` occurs in our literals)."""
    counter = iter(range(1, statement.count("?") + 1))
    return _PLACEHOLDER.sub(lambda _m: f"${next(counter)}", statement)


def _rows_changed(status: str) -> int:
    """The row count of a command status such as ``"UPDATE 1"`` (0 if it has none)."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class PostgresStorage(SqlStore):
    """``dsn``: a ``postgresql://`` URL (asyncpg's forms, e.g. ``?host=/socket/dir``);
    ``timeout``: seconds a request may wait for the database (see the module docstring)."""

    shared = True  # several bot processes may serve one PostgreSQL database

    def __init__(
        self,
        dsn: str,
        *,
        min_connections: int = 1,
        max_connections: int = 10,
        migrations: tuple[Migration, ...] = POSTGRES_MIGRATIONS,
        timeout: float = DEFAULT_DATABASE_TIMEOUT,
    ) -> None:
        super().__init__(redact_url(dsn), migrations, timeout)
        self.dsn = dsn
        self._min = min_connections
        self._max = max_connections
        self._pool: asyncpg.Pool | None = None
        #: The process's own connection: its advisory lock, ``LISTEN`` (see the module).
        self._own: Any = None
        self._listening: tuple[OnChange, OnReconnect] | None = None
        self._watch: asyncio.Task[None] | None = None
        self._lost = asyncio.Event()
        self._own_pid: int | None = None

    # -------------------------------------------------------------- lifecycle
    async def open(self) -> None:
        if self._pool is not None:
            return
        limit_ms = max(1, round(self.timeout * 1000))
        unreachable = (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError)
        try:
            own = await asyncpg.connect(self.dsn, timeout=max(_CONNECT_TIMEOUT, self.timeout))
        except unreachable as exc:
            raise DatabaseUnavailable(
                f"database {self.target} cannot be reached: {exc or type(exc).__name__}"
            ) from exc
        pool: asyncpg.Pool | None = None
        try:
            await self._migrate_once(own)
            settings = {
                "statement_timeout": str(limit_ms),
                "idle_in_transaction_session_timeout": str(2 * limit_ms),
            }
            if self._migrations and self._migrations[-1].number >= _OWNERS_MIGRATION:
                self.process = await self._take_process(own)
                await own.execute("SELECT pg_advisory_lock($1, $2)", _PROCESS_LOCK, self.process)
                settings["durak.process"] = str(self.process)
            try:
                pool = await asyncpg.create_pool(
                    self.dsn,
                    min_size=self._min,
                    max_size=self._max,
                    timeout=max(_CONNECT_TIMEOUT, self.timeout),
                    server_settings=settings,
                    reset=_keep_session,
                )
            except unreachable as exc:
                raise DatabaseUnavailable(
                    f"database {self.target} cannot be reached: {exc or type(exc).__name__}"
                ) from exc
            self._pool = pool
            self._own = own
            async with self.unhurried():
                await self.probe_write()
        except BaseException as exc:
            self._pool = None
            self._own = None
            if pool is not None:
                await pool.close()
            with contextlib.suppress(Exception):
                await own.close()
            if isinstance(exc, asyncpg.ReadOnlySQLTransactionError):
                raise DatabaseUnavailable(
                    f"database {self.target} is read-only ({exc}): the bot must be able to write it"
                ) from exc
            if isinstance(exc, asyncpg.InsufficientPrivilegeError):
                raise DatabaseUnavailable(f"database {self.target} refuses writes ({exc})") from exc
            raise

    async def close(self) -> None:
        watch, self._watch = self._watch, None
        if watch is not None:
            watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watch
        self._listening = None
        own, self._own = self._own, None
        if own is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(own.close(), self.timeout)
            if not own.is_closed():
                own.terminate()
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()

    @property
    def pool(self) -> asyncpg.Pool:
        """The open pool (``RuntimeError`` before :meth:`open`)."""
        return self.opened(self._pool)

    async def _migrate_once(self, con: Any) -> None:
        # A session-level advisory lock: processes starting together migrate one at a time;
        # each migration is its own transaction on this session, as on SQLite.  The session
        # is the process's own (no time limit: a migration, and the wait for one, take time).
        await con.execute("SELECT pg_advisory_lock($1)", _MIGRATION_LOCK)
        try:
            await con.execute(_SCHEMA_VERSION_TABLE)
            await self.migrate(lambda: _transaction(con))
        finally:
            await con.execute("SELECT pg_advisory_unlock($1)", _MIGRATION_LOCK)

    @staticmethod
    async def _take_process(con: Any) -> int:
        """This process's number (1 to 2^31 - 2, going round): see the module docstring."""
        async with con.transaction():
            await con.execute(_TAKE_PROCESS[0])
            return int(await con.fetchval(_TAKE_PROCESS[1]))

    # -------------------------------------------------------------- several processes
    async def listen(self, on_change: OnChange, on_reconnect: OnReconnect) -> None:
        own = self.opened(self._own)
        self._listening = (on_change, on_reconnect)
        await self._hear(own)
        self._watch = asyncio.create_task(self._keep_listening())

    def _notified(self, con: Any, pid: int, channel: str, payload: str) -> None:
        change = ChannelChange.parse(payload)
        if change is not None and self._listening is not None:
            self._listening[0](change)

    async def _hear(self, own: Any) -> None:
        self._own_pid = own.get_server_pid()
        self._lost.clear()
        own.add_termination_listener(lambda con: self._lost.set())
        await own.add_listener(NOTIFY_CHANNEL, self._notified)

    async def _keep_listening(self) -> None:
        """Ping the process's own connection; when it is lost, open it again (see the module
        docstring)."""
        while self._listening is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._lost.wait(), PING_EVERY)
            own = self._own
            try:
                if own is None or own.is_closed() or self._lost.is_set():
                    raise ConnectionError("the listening connection was closed")
                await asyncio.wait_for(own.fetchval("SELECT 1"), self.timeout)
                continue
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("listening to the database stopped (%s): listening again", exc)
            if own is not None:
                own.terminate()
            await self._listen_again()

    async def _listen_again(self) -> None:
        """Open the process's connection again until it holds the process's lock and
        listens, then tell the service to read again what changed meanwhile."""
        old_pid = self._own_pid
        while self._listening is not None:
            own = None
            try:
                own = await asyncpg.connect(self.dsn, timeout=max(_CONNECT_TIMEOUT, self.timeout))
                if old_pid is not None:  # a half-open session of ours may hold the lock still
                    await own.execute("SELECT pg_terminate_backend($1)", old_pid)
                locked = await own.fetchval(
                    "SELECT pg_try_advisory_lock($1, $2)", _PROCESS_LOCK, self.process
                )
                if not locked:
                    raise ConnectionError("the process's lock is still held")
                await self._hear(own)
            except asyncio.CancelledError:
                if own is not None:
                    own.terminate()
                raise
            except Exception as exc:
                if own is not None:
                    own.terminate()
                log.warning("the database cannot be listened to yet: %s", exc)
                await asyncio.sleep(_RECONNECT_EVERY)
                continue
            self._own = own
            log.info("listening to the database again (process %d)", self.process)
            if self._listening is not None:
                try:
                    await self._listening[1]()
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("reading again after listening again failed")
            return

    async def claim_channel(self, channel_id: int) -> bool:
        return await self.execute(_CLAIM, self.process, channel_id, self.process) == 1

    async def _claim_in(self, con: SqlConnection, channel_id: int) -> None:
        await con.execute(_CLAIM, self.process, channel_id, self.process)

    async def orphaned_channels(self) -> list[tuple[int, int]]:
        async with self._request() as con:
            rows = await con.fetch(_ORPHANED, self.process)
        return [(int(c), int(g)) for c, g in rows]

    async def release_channels(self, channel_ids: Iterable[int] | None = None) -> None:
        if self._pool is None:
            return
        async with self._request() as con:
            if channel_ids is None:
                await con.execute(_RELEASE_ALL, self.process)
            else:
                await con.execute(_RELEASE, self.process, list(channel_ids))

    # -------------------------------------------------------------- one request
    @contextlib.asynccontextmanager
    async def _request(self) -> AsyncIterator[Any]:
        """A pooled connection for one request, given up after :attr:`timeout` seconds from
        now (see the module docstring): :class:`DatabaseBusy`."""
        if self.patient():
            async with self.pool.acquire() as con:
                await con.execute(_UNLIMITED)
                try:
                    yield con
                finally:
                    try:
                        await con.execute(_LIMITED)
                    except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
                        con.terminate()  # never back in the pool without its limits
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        try:
            con = await self.pool.acquire(timeout=self.timeout)
        except TimeoutError as exc:
            raise self._busy() from exc
        expired = False

        def expire() -> None:
            nonlocal expired
            expired = True
            # (a connection already on its way back to the pool is the pool's to reset)
            with contextlib.suppress(asyncpg.InterfaceError):
                con.terminate()

        timer = loop.call_at(deadline, expire)
        try:
            yield con
        except Exception as exc:
            # the request's time ran out, or the server's statement_timeout cancelled it
            if expired or isinstance(exc, asyncpg.QueryCanceledError):
                raise self._busy() from exc
            raise
        finally:
            # Releasing rolls back a transaction left open (none, normally): still under the
            # deadline, and a failure there is not the request's (what it did is committed
            # or not).
            with contextlib.suppress(Exception):
                await self.pool.release(con)
            timer.cancel()

    def _busy(self) -> DatabaseBusy:
        return DatabaseBusy(f"database {self.target} did not answer within {self.timeout:g} s")

    # -------------------------------------------------------------- the driver seam
    @contextlib.asynccontextmanager
    async def read(self) -> AsyncIterator[SqlConnection]:
        # One snapshot for every query of the block: a count and its page agree.
        async with (
            self._request() as con,
            _transaction(con, isolation="repeatable_read", readonly=True) as tx,
        ):
            yield tx

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[SqlConnection]:
        async with self._request() as con, _transaction(con) as tx:
            yield tx

    async def execute(self, statement: str, *params: Any) -> int:
        async with self._request() as con:
            return _rows_changed(await con.execute(numbered(statement), *params))

    async def query(self, statement: str, *params: Any) -> list[Row]:
        # no transaction around it: one statement reads one snapshot (one round trip)
        async with self._request() as con:
            return [tuple(r) for r in await con.fetch(numbered(statement), *params)]

    def for_update(self, table: str | None = None) -> str:
        return " FOR UPDATE" if table is None else f" FOR UPDATE OF {table}"


async def _keep_session(con: Any) -> None:
    """The pool's reset of a connection coming back: nothing (see the module docstring)."""


@contextlib.asynccontextmanager
async def _transaction(con: Any, **options: Any) -> AsyncIterator[SqlConnection]:
    """A transaction on ``con`` (asyncpg's options: ``isolation``, ``readonly``)."""
    async with con.transaction(**options):
        yield _Connection(con)


class _Connection:
    """The :class:`SqlConnection` of a pooled asyncpg connection (``?`` numbered here)."""

    def __init__(self, con: Any) -> None:
        self._con = con

    async def execute(self, statement: str, *params: Any) -> int:
        return _rows_changed(await self._con.execute(numbered(statement), *params))

    async def execute_many(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        await self._con.executemany(numbered(statement), rows)

    async def fetch(self, statement: str, *params: Any) -> list[Row]:
        return [tuple(r) for r in await self._con.fetch(numbered(statement), *params)]

    async def fetch_one(self, statement: str, *params: Any) -> Row | None:
        row = await self._con.fetchrow(numbered(statement), *params)
        return None if row is None else tuple(row)

    async def insert(self, statement: str, *params: Any) -> int:
        return int(await self._con.fetchval(numbered(statement + " RETURNING id"), *params))
