"""The storage contract runs against every backend: ``backend`` is parametrised over SQLite
(a file per test) and PostgreSQL (a fresh database per test on one throwaway server that the
session starts itself, see :mod:`bot.storage.throwaway_pg`).

The server is ``postgres_server`` of ``tests/conftest.py`` (shared with the end-to-end tests).
If no PostgreSQL server can be started, the PostgreSQL half fails when ``CI`` is set (``.ci/run``
sets it) and is skipped, with the reason, otherwise."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.seating import LobbyOptions, LobbySeat
from bot.storage import (
    POSTGRES_MIGRATIONS,
    SQLITE_MIGRATIONS,
    NewGame,
    SeriesRecord,
    Storage,
    create_storage,
    parse_database_url,
    sqlite_url,
)
from bot.storage.migrations import Migration
from bot.storage.postgres import PostgresStorage, numbered
from bot.storage.sqlite import SqliteStorage
from bot.storage.throwaway_pg import ThrowawayPostgres
from tests import storage_helpers as stored


@dataclass
class Backend:
    """One backend under test: ``url`` of a fresh database and raw SQL access to it."""

    name: str
    url: str

    def storage(self, migrations: tuple[Migration, ...] | None = None) -> Storage:
        """A new (unopened) storage on this database."""
        if migrations is None:
            return create_storage(self.url)
        location = parse_database_url(self.url).location
        if self.name == "sqlite":
            return SqliteStorage(location, migrations=migrations)
        return PostgresStorage(location, migrations=migrations)

    async def sql(self, statement: str, *params: Any) -> list[tuple[Any, ...]]:
        """Run one statement (``?`` placeholders) outside any storage, as another client."""
        location = parse_database_url(self.url).location
        if self.name == "sqlite":
            con = sqlite3.connect(location)
            try:
                with con:
                    return [tuple(r) for r in con.execute(statement, params).fetchall()]
            finally:
                con.close()
        pg = await asyncpg.connect(location)
        try:
            return [tuple(r) for r in await pg.fetch(numbered(statement), *params)]
        finally:
            await pg.close()


async def _fresh_postgres_database(server: ThrowawayPostgres) -> AsyncIterator[Backend]:
    async with stored.fresh_database(server) as url:
        yield Backend("postgresql", url)


@pytest.fixture(params=["sqlite", "postgresql"])
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    """A fresh, empty database of each backend."""
    if request.param == "sqlite":
        yield Backend("sqlite", sqlite_url(str(tmp_path / "durak.sqlite3")))
        return
    async for fresh in _fresh_postgres_database(request.getfixturevalue("postgres_server")):
        yield fresh


@pytest.fixture
async def postgres_backend(postgres_server: ThrowawayPostgres) -> AsyncIterator[Backend]:
    """A fresh, empty PostgreSQL database (for what only a shared server can show)."""
    async for fresh in _fresh_postgres_database(postgres_server):
        yield fresh


async def upgraded_across(backend: Backend, number: int, table: str) -> Storage:
    """Make ``backend``'s database at the schema before migration ``number`` (``table`` does
    not exist yet), then open it with every migration: the opened storage is returned (the
    caller closes it), at a schema version of at least ``number``."""
    migrations = SQLITE_MIGRATIONS if backend.name == "sqlite" else POSTGRES_MIGRATIONS
    old = backend.storage(tuple(m for m in migrations if m.number < number))
    await old.open()
    await old.close()
    with pytest.raises(Exception, match=r"(?i)no such table|does not exist"):
        await backend.sql(f"SELECT * FROM {table}")
    new = backend.storage()
    await new.open()
    assert await new.schema_version() >= number
    return new


@pytest.fixture
async def storage(backend: Backend) -> AsyncIterator[Storage]:
    """An opened storage on a fresh database (closed at teardown)."""
    st = backend.storage()
    await st.open()
    yield st
    await st.close()


# ------------------------------------------------------------------------------ records
GUILD = 10


def series_record(channel_id: int = 100, guild_id: int = GUILD, seats: int = 2) -> SeriesRecord:
    """A new two-human series (``id`` None: :meth:`Storage.start_game` creates it)."""
    people = [LobbySeat(1000 + i, f"user{i}") for i in range(seats)]
    return SeriesRecord(
        id=None,
        channel_id=channel_id,
        guild_id=guild_id,
        host_id=1000,
        host_name="user0",
        options=LobbyOptions(),
        rules={"profile": "podkidnoy"},
        profile="podkidnoy",
        seats=people,
        losses=[0] * seats,
        created_at=1.0,
    )


def new_game(series: SeriesRecord, *, seed: int = 7, started_at: float = 2.0) -> NewGame:
    """A game of ``series`` with a recognisable snapshot and meta."""
    return NewGame(
        channel_id=series.channel_id,
        guild_id=series.guild_id,
        profile=series.profile,
        rules=series.rules,
        seats=list(series.seats),
        seed=seed,
        deal={"seed": seed},
        started_at=started_at,
        snapshot=json.dumps({"actions": []}),
        meta=json.dumps({"seed": seed}),
    )
