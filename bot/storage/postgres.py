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
they survive the pool's ``RESET ALL``; startup (:meth:`SqlStore.unhurried`: opening,
migrating, restoring) lifts both.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Sequence
from functools import lru_cache
from typing import Any

import asyncpg

from bot.storage.base import DEFAULT_DATABASE_TIMEOUT, DatabaseBusy, DatabaseUnavailable
from bot.storage.migrations import POSTGRES_MIGRATIONS, Migration
from bot.storage.sql_store import Row, SqlConnection, SqlStore
from bot.storage.url import redact_url

__all__ = ["PostgresStorage", "numbered"]

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

    # -------------------------------------------------------------- lifecycle
    async def open(self) -> None:
        if self._pool is not None:
            return
        limit_ms = max(1, round(self.timeout * 1000))
        try:
            pool = await asyncpg.create_pool(
                self.dsn,
                min_size=self._min,
                max_size=self._max,
                timeout=max(_CONNECT_TIMEOUT, self.timeout),
                server_settings={
                    "statement_timeout": str(limit_ms),
                    "idle_in_transaction_session_timeout": str(2 * limit_ms),
                },
            )
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise DatabaseUnavailable(
                f"database {self.target} cannot be reached: {exc or type(exc).__name__}"
            ) from exc
        self._pool = pool
        try:
            async with self.unhurried():
                await self._migrate_once()
                await self.probe_write()
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

    @property
    def pool(self) -> asyncpg.Pool:
        """The open pool (``RuntimeError`` before :meth:`open`)."""
        return self.opened(self._pool)

    async def _migrate_once(self) -> None:
        # A session-level advisory lock: processes starting together migrate one at a time;
        # each migration is its own transaction on this session, as on SQLite.
        async with self.pool.acquire() as con:
            await con.execute(_UNLIMITED)  # a migration (and the wait for one) takes its time
            await con.execute("SELECT pg_advisory_lock($1)", _MIGRATION_LOCK)
            try:
                await con.execute(_SCHEMA_VERSION_TABLE)
                await self.migrate(lambda: _transaction(con))
            finally:
                await con.execute("SELECT pg_advisory_unlock($1)", _MIGRATION_LOCK)

    # -------------------------------------------------------------- one request
    @contextlib.asynccontextmanager
    async def _request(self) -> AsyncIterator[Any]:
        """A pooled connection for one request, given up after :attr:`timeout` seconds from
        now (see the module docstring): :class:`DatabaseBusy`."""
        if self.patient():
            async with self.pool.acquire() as con:
                await con.execute(_UNLIMITED)
                yield con
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
            # Releasing resets the session (one more round trip): still under the deadline,
            # and a failure there is not the request's (what it did is committed or not).
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

    def for_update(self, table: str | None = None) -> str:
        return " FOR UPDATE" if table is None else f" FOR UPDATE OF {table}"


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
