"""The bot's own values (``get_meta`` / ``set_meta``, migration 6), on SQLite and PostgreSQL."""

from __future__ import annotations

from bot.storage import Storage

from .conftest import Backend, upgraded_across


async def test_meta_values_round_trip_one_row_per_key(storage: Storage, backend: Backend) -> None:
    assert await storage.get_meta("commands_hash") is None  # never written
    await storage.set_meta("commands_hash", "a" * 64, 10.0)
    await storage.set_meta("other", "x", 11.0)
    assert await storage.get_meta("commands_hash") == "a" * 64
    # writing again replaces the value: one row per key, with the newer time
    await storage.set_meta("commands_hash", "b" * 64, 12.0)
    assert await storage.get_meta("commands_hash") == "b" * 64
    assert await storage.get_meta("other") == "x"
    rows = await backend.sql("SELECT key, updated_at FROM bot_meta ORDER BY key")
    assert [(k, float(t)) for k, t in rows] == [("commands_hash", 12.0), ("other", 11.0)]


async def test_bot_meta_table_comes_with_migration_6(backend: Backend) -> None:
    st = await upgraded_across(backend, 6, "bot_meta")  # a version 5 database, moved on
    assert await st.get_meta("commands_hash") is None  # the table exists and is empty
    await st.set_meta("commands_hash", "c", 1.0)
    assert await st.get_meta("commands_hash") == "c"
    await st.close()


async def test_the_first_value_written_once_wins(storage: Storage, backend: Backend) -> None:
    assert await storage.set_meta_once("web_secret", "first", 1.0) == "first"
    assert await storage.set_meta_once("web_secret", "second", 2.0) == "first"
    assert await storage.get_meta("web_secret") == "first"
