"""Slash commands are published globally once after they changed (``cogs.admin``): a first
start publishes, a restart with the same commands sends nothing, an upgrade that changed the
command set publishes again; a publication Discord refuses never stops the bot, and is tried
again at the next start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from apps import discord_bot as discord_app
from apps.config import Settings
from apps.discord_bot import create_bot
from bot.storage import create_storage, sqlite_url
from cogs.admin import COMMANDS_HASH_KEY

from .durak_e2e import MakeHarness
from .fakediscord import FakeDiscord
from .fakediscord.models import ApiError
from .test_e2e_startup import _owner_message

pytestmark = pytest.mark.e2e


def _global_puts(fake: FakeDiscord) -> int:
    """Global bulk overwrites of the commands the fake received (``tree.sync()``)."""
    return len(fake.requests_to(rf"^/applications/{fake.application_id}/commands$", "PUT"))


async def _start_and_stop(fake: FakeDiscord, db: Path) -> None:
    """One run of the bot, as in production (no ``DEV_GUILD_ID``), on the SQLite file ``db``."""
    bot = create_bot(Settings(database_path=str(db), ai_delay=0.0), guild_ready_timeout=0.05)
    await fake.start_bot(bot)
    await fake.settle()
    await fake.stop_bot(bot)


async def _stored_hash(db: Path) -> str | None:
    storage = create_storage(sqlite_url(str(db)))
    await storage.open()
    try:
        return await storage.get_meta(COMMANDS_HASH_KEY)
    finally:
        await storage.close()


def _global_names(fake: FakeDiscord) -> set[str]:
    return {c["name"] for c in fake.commands if not c.get("guild_id")}


async def test_commands_are_published_once_per_changed_command_set(
    fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake, db = fake_discord, tmp_path / "durak.sqlite3"
    await _start_and_stop(fake, db)  # first start: nothing published yet
    assert _global_puts(fake) == 1
    assert _global_names(fake) == {"durak"}
    first = await _stored_hash(db)
    assert first is not None and len(first) == 64

    await _start_and_stop(fake, db)  # a restart with the same commands sends nothing
    await _start_and_stop(fake, db)
    assert _global_puts(fake) == 1
    assert await _stored_hash(db) == first

    # an upgrade that adds a command: published once, then quiet again
    monkeypatch.setattr(
        discord_app, "EXTENSIONS", (*discord_app.EXTENSIONS, "tests.e2e.extra_command")
    )
    await _start_and_stop(fake, db)
    assert _global_puts(fake) == 2
    assert _global_names(fake) == {"durak", "extra"}
    second = await _stored_hash(db)
    assert second not in (None, first)
    await _start_and_stop(fake, db)
    assert _global_puts(fake) == 2


async def test_a_refused_publication_does_not_stop_the_bot_and_is_retried(
    fake_discord: FakeDiscord,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake, db = fake_discord, tmp_path / "durak.sqlite3"

    async def refuse(req: Any) -> tuple[int, Any]:  # e.g. an app with an Activity Entry Point
        raise ApiError(400, 50240, "You cannot remove this app's Entry Point command")

    monkeypatch.setattr(fake, "h_commands_put", refuse)
    await _start_and_stop(fake, db)  # the bot started and served anyway
    assert _global_puts(fake) == 1 and _global_names(fake) == set()
    assert await _stored_hash(db) is None  # nothing stored: the next start tries again
    assert any(
        r.levelname == "ERROR" and "publishing the changed slash commands" in r.getMessage()
        for r in caplog.records
    )
    monkeypatch.undo()
    await _start_and_stop(fake, db)
    assert _global_puts(fake) == 2 and _global_names(fake) == {"durak"}
    assert await _stored_hash(db) is not None


async def test_a_dev_guild_start_leaves_the_global_commands_alone(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    settings = Settings(
        database_path=str(tmp_path / "durak.sqlite3"), dev_guild_id=fake.guild_id, ai_delay=0.0
    )
    bot = create_bot(settings, guild_ready_timeout=0.05)
    await fake.start_bot(bot)
    await fake.settle()
    await fake.stop_bot(bot)
    assert _global_puts(fake) == 0
    assert {c["name"] for c in fake.commands if c.get("guild_id")} == {"durak"}


async def test_the_owners_global_sync_counts_as_the_publication(harness: MakeHarness) -> None:
    """After ``@bot sync`` the next start (without ``DEV_GUILD_ID``) sends nothing more."""
    h = harness()
    await h.start()
    fake = h.fake
    assert await h.service.storage.get_meta(COMMANDS_HASH_KEY) is None
    await fake.dispatch("MESSAGE_CREATE", _owner_message(fake, f"<@{fake.bot_user_id}> sync"))
    await fake.wait_for_message(fake.channel_id, lambda m: "Synced" in m.content)
    assert _global_puts(fake) == 1
    assert await h.service.storage.get_meta(COMMANDS_HASH_KEY) is not None
    await fake.stop_bot(h.bot)
    await _start_and_stop(fake, h.db)  # production start: the commands are known published
    assert _global_puts(fake) == 1
