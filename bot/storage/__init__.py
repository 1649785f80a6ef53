"""Persistence behind one interface, :class:`Storage`, with two backends.

- :class:`SqliteStorage` (``bot.storage.sqlite``): the embedded default, one process per file;
- ``PostgresStorage`` (``bot.storage.postgres``, asyncpg): several processes on one database.

:func:`create_storage` picks one from ``DATABASE_URL``.  Both run the same transactions
(:class:`bot.storage.sql_store.SqlStore`, its statements in :mod:`bot.storage.statements`),
evolve through the numbered migrations of :mod:`bot.storage.migrations`, and fence every write
of a live game by its row's revision (:class:`bot.errors.GameMoved` when another process moved
it on).
"""

from bot.storage.backends import create_storage, storage_problem
from bot.storage.base import (
    DEFAULT_DATABASE_TIMEOUT,
    DatabaseBusy,
    DatabaseUnavailable,
    GameMoved,
    GuildFilter,
    Storage,
    StorageError,
)
from bot.storage.migrations import POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS, Migration
from bot.storage.records import (
    FIRST_REVISION,
    FinishedGame,
    GameRecord,
    LiveRecord,
    LobbyRecord,
    NewGame,
    PlayerResult,
    ReviewRecord,
    SeriesRecord,
    StoredState,
)
from bot.storage.sqlite import SqliteStorage
from bot.storage.url import DEFAULT_DATABASE_URL, parse_database_url, sqlite_url

__all__ = [
    "DEFAULT_DATABASE_TIMEOUT",
    "DEFAULT_DATABASE_URL",
    "FIRST_REVISION",
    "POSTGRES_MIGRATIONS",
    "SQLITE_MIGRATIONS",
    "DatabaseBusy",
    "DatabaseUnavailable",
    "FinishedGame",
    "GameMoved",
    "GameRecord",
    "GuildFilter",
    "LiveRecord",
    "LobbyRecord",
    "Migration",
    "NewGame",
    "PlayerResult",
    "ReviewRecord",
    "SeriesRecord",
    "SqliteStorage",
    "Storage",
    "StorageError",
    "StoredState",
    "create_storage",
    "parse_database_url",
    "sqlite_url",
    "storage_problem",
]
