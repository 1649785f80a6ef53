"""SQLite backend: aiosqlite on one connection, WAL journal, one process per database file.

The file is held exclusively by the process that opened it (an ``flock`` on the file itself,
:mod:`bot.storage.file_lock`), so a second bot process on the same file, whatever path names
it, is refused at start instead of silently overwriting the first one's moves.  Write
transactions are serialised by an asyncio lock so that statements of concurrent coroutines
never interleave inside one transaction.

Reads have a connection of their own (WAL lets a reader see the last commit while a write is
under way), so stats, leaderboards and history never wait behind a write, and a write that
waits for the database's lock (another program holding it, e.g. an open ``sqlite3`` shell
transaction) holds up only the writes.  That wait is SQLite's ``busy_timeout``: the storage's
timeout, after which the write fails with :class:`DatabaseBusy`, changing nothing.  An
in-memory database (tests) has one connection for both.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

import aiosqlite

from bot.storage import statements
from bot.storage.base import DEFAULT_DATABASE_TIMEOUT, DatabaseBusy, DatabaseUnavailable, GameMoved
from bot.storage.file_lock import HeldFile, hold_database_file
from bot.storage.migrations import SQLITE_MIGRATIONS, Migration
from bot.storage.sql_store import Row, SqlConnection, SqlStore

__all__ = ["SqliteStorage"]

#: The table of applied migrations, made before the first one runs.
_SCHEMA_VERSION_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_version "
    "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)"
)


class SqliteStorage(SqlStore):
    """The embedded default backend.  ``path`` may be ``":memory:"`` (tests; no file lock).

    Its own: the file lock, the pragmas, the reading connection, and the group commit of
    :meth:`save_live`.  ``timeout``: seconds a write waits for the database's lock."""

    def __init__(
        self,
        path: str | Path,
        *,
        synchronous: str = "NORMAL",
        migrations: tuple[Migration, ...] = SQLITE_MIGRATIONS,
        timeout: float = DEFAULT_DATABASE_TIMEOUT,
    ) -> None:
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"bad synchronous mode {synchronous!r}")
        super().__init__(str(path), migrations, timeout)
        self.path = str(path)
        self._synchronous = synchronous.upper()
        self._db: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()
        # The reading connection (None: reads use the writing one, as in memory).
        self._reader: aiosqlite.Connection | None = None
        self._read_lock = asyncio.Lock()
        self._held: HeldFile | None = None
        # Group commit of live-game saves: (params, future) waiting for the next flush.
        self._pending: list[tuple[tuple[Any, ...], asyncio.Future[int]]] = []
        self._flusher: asyncio.Task[None] | None = None

    @property
    def db(self) -> aiosqlite.Connection:
        """The open connection (``RuntimeError`` before :meth:`open`)."""
        return self.opened(self._db)

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
            await db.execute(f"PRAGMA busy_timeout={self._busy_ms}")
            await db.execute(_SCHEMA_VERSION_TABLE)
            await self.migrate(self.write)
            await self.probe_write()
            if self.path != ":memory:":
                self._reader = await aiosqlite.connect(self.path, isolation_level=None)
                await self._reader.execute("PRAGMA query_only=ON")
                await self._reader.execute(f"PRAGMA busy_timeout={self._busy_ms}")
        except BaseException as exc:
            self._db = None
            await db.close()
            await self._close_reader()
            self._release_file()
            if isinstance(exc, sqlite3.OperationalError) and _is_read_only(exc):
                raise DatabaseUnavailable(
                    f"database {self.path} is read-only ({exc}): the bot must be able to write it"
                ) from exc
            raise

    @property
    def _busy_ms(self) -> int:
        """SQLite's ``busy_timeout``: how long a statement waits for the database's lock."""
        return max(1, round(self.timeout * 1000))

    async def _close_reader(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None:
            await reader.close()

    def _hold_file(self) -> None:
        """Take the database file's exclusive lock (see :mod:`bot.storage.file_lock`)."""
        self._held = hold_database_file(self.path)

    def _release_file(self) -> None:
        # Only after the connection is closed: see HeldFile.release.
        held, self._held = self._held, None
        if held is not None:
            held.release()

    async def close(self) -> None:
        if self._flusher is not None and not self._flusher.done():
            await asyncio.wait([self._flusher])
        await self._close_reader()
        if self._db is not None:
            db, self._db = self._db, None
            await db.close()
        self._release_file()

    # -------------------------------------------------------------- the driver seam
    @contextlib.asynccontextmanager
    async def read(self) -> AsyncIterator[SqlConnection]:
        reader = self._reader
        if reader is None:
            # In memory: under the writers' lock, so never inside a write transaction; each
            # statement commits on its own, and nobody else writes the database.
            self.db  # noqa: B018 - raise now if closed
            async with self._lock:
                with _busy_as(self):
                    yield _Connection(self.db)
            return
        # One read transaction (one snapshot of the WAL) for every query of the block.
        async with self._read_lock:
            with _busy_as(self):
                await reader.execute("BEGIN")
                try:
                    yield _Connection(reader)
                finally:
                    await reader.execute("COMMIT")

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[SqlConnection]:
        async with self._lock:
            with _busy_as(self):
                await self.db.execute("BEGIN IMMEDIATE")
                try:
                    yield _Connection(self.db)
                except BaseException:
                    await self.db.execute("ROLLBACK")
                    raise
                await self.db.execute("COMMIT")

    async def execute(self, statement: str, *params: Any) -> int:
        async with self._lock:
            with _busy_as(self):
                cur = await self.db.execute(statement, params)
        return cur.rowcount

    # -------------------------------------------------------------- group commit
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
                async with self.write() as con:
                    for params, _ in batch:
                        changed = await con.execute(statements.LIVE_SAVE, *params)
                        outcomes.append(params[-1] + 1 if changed == 1 else None)
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


class _Connection:
    """The :class:`SqlConnection` of the one aiosqlite connection."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db

    async def execute(self, statement: str, *params: Any) -> int:
        cur = await self._db.execute(statement, params)
        return cur.rowcount

    async def execute_many(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        await self._db.executemany(statement, rows)

    async def fetch(self, statement: str, *params: Any) -> list[Row]:
        async with self._db.execute(statement, params) as cur:
            return [tuple(r) for r in await cur.fetchall()]

    async def fetch_one(self, statement: str, *params: Any) -> Row | None:
        async with self._db.execute(statement, params) as cur:
            row = await cur.fetchone()
        return None if row is None else tuple(row)

    async def insert(self, statement: str, *params: Any) -> int:
        cur = await self._db.execute(statement, params)
        assert cur.lastrowid is not None
        return cur.lastrowid


@contextlib.contextmanager
def _busy_as(storage: SqliteStorage) -> Iterator[None]:
    """SQLite's "database is locked" (its ``busy_timeout`` ran out) as :class:`DatabaseBusy`."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        if getattr(exc, "sqlite_errorcode", 0) & 0xFF not in (
            sqlite3.SQLITE_BUSY,
            sqlite3.SQLITE_LOCKED,
        ):
            raise
        raise DatabaseBusy(
            f"database {storage.path} stayed locked by another program for {storage.timeout:g} s"
        ) from exc


def _is_read_only(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "readonly" in text or "read-only" in text or "unable to open" in text
