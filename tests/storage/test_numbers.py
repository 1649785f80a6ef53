"""Counters any process advances (``take_number``, migration 8), on SQLite and PostgreSQL:
the rooms' channel and guest ids come from them (:mod:`bot.rooms`)."""

from __future__ import annotations

import asyncio

import pytest

from bot.storage import POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS, Storage

from .conftest import Backend, upgraded_across


async def test_numbers_count_from_one_per_name(storage: Storage) -> None:
    assert [await storage.take_number("a") for _ in range(3)] == [1, 2, 3]
    assert await storage.take_number("b") == 1
    assert await storage.take_number("a") == 4


async def test_two_processes_taking_numbers_at_once_never_get_the_same(
    backend: Backend,
) -> None:
    if backend.name == "sqlite":
        pytest.skip("SQLite serves one process (its file lock): several need PostgreSQL")
    one, two = backend.storage(), backend.storage()
    await one.open()
    await two.open()
    try:
        taken = await asyncio.gather(
            *(st.take_number("room_guest") for _ in range(40) for st in (one, two))
        )
    finally:
        await one.close()
        await two.close()
    assert sorted(taken) == list(range(1, 81))


async def test_migration_8_carries_the_counters_kept_in_bot_meta_on(backend: Backend) -> None:
    migrations = SQLITE_MIGRATIONS if backend.name == "sqlite" else POSTGRES_MIGRATIONS
    old = backend.storage(tuple(m for m in migrations if m.number < 8))
    await old.open()
    # what the rooms of version 7 kept: the next id of each range (2^21 = 2097152 first)
    await old.set_meta("rooms:next_channel", str(2**21 + 5), 1.0)
    await old.set_meta("rooms:next_guest", str(2**21 + 12), 1.0)
    await old.close()
    new = backend.storage()
    await new.open()
    try:
        assert await new.take_number("room_channel") == 6  # ids 2^21 .. 2^21+4 were taken
        assert await new.take_number("room_guest") == 13
        assert await new.get_meta("rooms:next_channel") is None
    finally:
        await new.close()


async def test_numbers_table_comes_with_migration_8(backend: Backend) -> None:
    st = await upgraded_across(backend, 8, "numbers")
    try:
        assert await st.take_number("room_channel") == 1
    finally:
        await st.close()
