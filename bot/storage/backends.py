"""The storage of a ``DATABASE_URL``: which backend class serves it, and a start-up check.

The backends are imported when first asked for, so a SQLite bot never loads asyncpg.
"""

from __future__ import annotations

import asyncio

from bot.storage.base import DEFAULT_DATABASE_TIMEOUT, DatabaseUnavailable, Storage
from bot.storage.url import parse_database_url

__all__ = ["create_storage", "storage_problem"]


def create_storage(url: str, *, timeout: float = DEFAULT_DATABASE_TIMEOUT) -> Storage:
    """The (not yet opened) storage of ``url``; ``timeout``: seconds a request may wait for
    the database (``DATABASE_TIMEOUT``)."""
    target = parse_database_url(url)
    if target.backend == "sqlite":
        from bot.storage.sqlite import SqliteStorage

        return SqliteStorage(target.location, timeout=timeout)
    from bot.storage.postgres import PostgresStorage

    return PostgresStorage(target.location, timeout=timeout)


async def _open_and_close(url: str) -> None:
    storage = create_storage(url)
    await storage.open()
    await storage.close()


def storage_problem(url: str) -> str | None:
    """Open the database of ``url`` once (migrating it and probing a write), then close it.
    Returns ``None`` if the bot can use it, else one line naming the database and why.  Call
    it before connecting to Discord (it runs its own event loop)."""
    try:
        asyncio.run(_open_and_close(url))
    except DatabaseUnavailable as exc:
        return str(exc)
    except ValueError as exc:
        return f"DATABASE_URL: {exc}"
    return None
