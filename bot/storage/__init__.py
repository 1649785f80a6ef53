"""Persistence behind one interface, :class:`Storage`, with two backends.

- :class:`SqliteStorage` (``bot.storage.sqlite``): the embedded default, one process per file;
- ``PostgresStorage`` (``bot.storage.postgres``, asyncpg): several processes on one database.

:func:`create_storage` picks one from ``DATABASE_URL``.  Both evolve through the numbered
migrations of :mod:`bot.storage.migrations`, and fence every write of a live game by its row's
revision (:class:`bot.errors.GameMoved` when another process moved it on).
"""

from bot.storage.base import DatabaseUnavailable, GameMoved, GuildFilter, Storage, StorageError
from bot.storage.migrations import POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS, Migration
from bot.storage.records import (
    FIRST_REVISION,
    FinishedGame,
    GameRecord,
    LiveRecord,
    LobbyRecord,
    NewGame,
    PlayerResult,
    SeriesRecord,
    StoredState,
)
from bot.storage.sqlite import SqliteStorage
from bot.storage.url import (
    DEFAULT_DATABASE_URL,
    create_storage,
    parse_database_url,
    sqlite_url,
    storage_problem,
)

#: The SQLite migrations (the name older code and tests know).
MIGRATIONS = SQLITE_MIGRATIONS

__all__ = [
    "DEFAULT_DATABASE_URL",
    "FIRST_REVISION",
    "MIGRATIONS",
    "POSTGRES_MIGRATIONS",
    "SQLITE_MIGRATIONS",
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
