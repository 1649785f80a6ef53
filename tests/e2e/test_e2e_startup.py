"""Startup: the token checks of ``durak-bot``, the sharded client, languages, and the
owner-only global sync."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import discord
import pytest
from discord.ext import commands

from bot.config import Settings
from bot.discord_app import ShardedDurakBot, create_bot, run
from cogs.i18n import COMMANDS, catalog

from .durak_e2e import Harness, buttons, is_hand
from .fakediscord import FakeDiscord

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("token", [None, "not-a-token-but-long-enough", "Bot a.b.c"])
def test_missing_or_malformed_token_is_one_clear_line(tmp_path: Path, token: str | None
                                                      ) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "DEV_GUILD_ID")}
    env["DATABASE_PATH"] = str(tmp_path / "durak.sqlite3")
    env["PYTHONPATH"] = str(ROOT)
    if token is not None:
        env["DISCORD_TOKEN"] = token
    proc = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert "DISCORD_TOKEN" in proc.stderr


async def test_a_token_discord_rejects_is_one_clear_line(fake_discord: FakeDiscord,
                                                         tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    settings = Settings(database_path=str(tmp_path / "durak.sqlite3"),
                        discord_token="AAAAAAAAAAAAAAAAAAAAAAAA.BBBBBB.CCCCCCCCCCCCCCCCCCCCCCCCCCC")
    code = await asyncio.to_thread(run, settings)  # the fake answers 401 to another token
    assert code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "DISCORD_TOKEN" in err


async def test_sharded_bot_plays(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    settings = Settings(database_path=str(tmp_path / "durak.sqlite3"),
                        dev_guild_id=fake.guild_id, shard_count=1, ai_delay=0.0)
    bot = create_bot(settings, guild_ready_timeout=0.05)
    assert isinstance(bot, ShardedDurakBot) and isinstance(bot, commands.AutoShardedBot)
    assert bot.shard_count == 1
    await fake.start_bot(bot)
    alice = fake.add_user("alice")
    rec = await alice.slash(fake.channel_id, "durak", subcommand="new", options={"seats": 2})
    assert (await rec.wait_response()).accepted
    lobby = await fake.wait_for_message(fake.channel_id,
                                        lambda m: any("lobby" in c for c in m.custom_ids))
    assert lobby.visible_to is None
    assert [e.name for e in fake.gateway_log if e.direction == "recv" and e.op == 2]
    await fake.settle()
    await fake.stop_bot(bot)


async def test_languages_user_then_server(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    h = Harness(fake, tmp_path / "durak.sqlite3", seeds=[2])
    alice, pierre = h.user("alice"), h.user("pierre", locale="fr")
    lucia = h.user("lucia", locale="es-ES")
    await h.start()
    # command names and descriptions are localised
    cmd = fake.command("durak")
    assert cmd is not None
    fr, es = catalog("fr"), catalog("es")
    desc = cmd.get("description_localizations") or {}
    assert desc.get("fr") == fr.pgettext("cmd", COMMANDS["durak"]) != COMMANDS["durak"]
    assert desc.get("es-ES") == es.pgettext("cmd", COMMANDS["durak"])

    await h.start_game(alice, join=[pierre], ai=["beginner"], seats=3)
    table = h.table_message()
    assert table is not None and "Show my hand" in table.text()  # the server's language
    hand = await h.show_hand(pierre)
    assert is_hand(hand.current) and hand.embeds[0]["title"].startswith("Votre main")
    rec = await h.slash(lucia, "hand")  # not seated: refused in Spanish
    await h.answered(rec)
    msg = rec.original_message
    assert msg is not None and msg.ephemeral
    assert "no tienes asiento" in msg.content.lower()
    assert buttons(hand)


async def test_owner_sync_command(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    h = Harness(fake, tmp_path / "durak.sqlite3")
    await h.start()
    assert all(c.get("guild_id") for c in fake.commands)  # never a global sync on start
    mention = f"<@{fake.bot_user_id}> sync"
    owner = {"id": str(fake.owner_id), "username": "owner", "discriminator": "0",
             "avatar": None, "global_name": "Owner", "public_flags": 0}
    payload = {
        "id": str(int(time.time() * 1000) << 22), "channel_id": str(fake.channel_id),
        "guild_id": str(fake.guild_id), "author": owner, "content": mention,
        "timestamp": "2025-01-01T00:00:00+00:00", "edited_timestamp": None, "tts": False,
        "mention_everyone": False, "mentions": [], "mention_roles": [], "attachments": [],
        "embeds": [], "components": [], "pinned": False, "type": 0, "flags": 0,
    }
    await fake.dispatch("MESSAGE_CREATE", payload)
    await fake.wait_until(lambda: any(not c.get("guild_id") for c in fake.commands), 5,
                          "a global sync")
    reply = await fake.wait_for_message(fake.channel_id, lambda m: "Synced" in m.content)
    assert reply.visible_to is None
    assert any(c["name"] == "durak" and not c.get("guild_id") for c in fake.commands)
    assert isinstance(h.bot.tree, discord.app_commands.CommandTree)
