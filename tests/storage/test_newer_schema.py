"""A database written by a newer release (a schema version this code does not know) is refused
in one line naming both versions, and left as it was (issue 22, item 11)."""

from __future__ import annotations

import asyncio

import pytest

from bot.storage import POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS, DatabaseUnavailable, storage_problem

from .conftest import Backend

_TABLES = {
    "sqlite": "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
    "postgresql": "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
}


async def test_a_newer_schema_is_refused_naming_both_versions(backend: Backend) -> None:
    known = (SQLITE_MIGRATIONS if backend.name == "sqlite" else POSTGRES_MIGRATIONS)[-1].number
    first = backend.storage()
    await first.open()
    await first.close()
    newer = known + 1
    await backend.sql("INSERT INTO schema_version (version) VALUES (?)", newer)
    versions = await backend.sql("SELECT version FROM schema_version ORDER BY version")
    tables = await backend.sql(_TABLES[backend.name])

    with pytest.raises(DatabaseUnavailable) as info:
        await backend.storage().open()
    line = str(info.value)
    assert "\n" not in line
    assert f"schema version {newer}" in line and f"version {known} this durak-bot knows" in line
    assert "newer release" in line

    assert await backend.sql("SELECT version FROM schema_version ORDER BY version") == versions
    assert await backend.sql(_TABLES[backend.name]) == tables
    # what the bot prints at start, before it connects to Discord
    problem = await asyncio.to_thread(storage_problem, backend.url)
    assert problem == line


async def test_the_version_this_code_knows_still_opens(backend: Backend) -> None:
    first = backend.storage()
    await first.open()
    await first.close()
    again = backend.storage()
    await again.open()
    try:
        assert await again.schema_version() == len(SQLITE_MIGRATIONS)
    finally:
        await again.close()
