"""Running at scale, end to end: a game on PostgreSQL, and two bot processes (two bot
instances, each with its own game service, AI pool and database pool) holding the two shards
of a two-server fake Discord, each serving only its own server's game, with stats and the
leaderboard of either server answered by either process."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.shards import shard_of
from tests import storage_helpers as stored

from .durak_e2e import Harness, MakeHarness, prefer
from .fakediscord import FakeDiscord

pytestmark = pytest.mark.e2e

POLICY = prefer("defend", "attack", "pass", "take")
#: Two servers that Discord puts on different shards of two.
GUILD_0, GUILD_1 = (1000 << 22) | 17, (1001 << 22) | 17


async def test_a_game_on_postgresql(harness: MakeHarness, postgres_url: str) -> None:
    h = harness(seeds=[7], database_url=postgres_url)  # the SQLite file stays unused
    alice, bob = h.user("alice"), h.user("bob")
    await h.start_with_game(alice, join=[bob], ai=["beginner"], rules="podkidnoy", seats=3)
    assert await h.play(POLICY) > 0
    await h.idle()
    view = await h.table_view()
    assert view.finished
    assert not h.db.exists()  # everything went to PostgreSQL
    (game,) = await stored.ended_games(h.storage, h.fake.guild_id)
    assert game.game_id == view.game_id and game.result in ("loss", "draw")
    assert await stored.live_games(h.storage) == []
    stats = await h.service.stats(h.fake.guild_id, alice.id)
    assert stats.games == 1


async def test_two_processes_hold_different_shards(tmp_path: Path, postgres_url: str) -> None:
    assert (shard_of(GUILD_0, 2), shard_of(GUILD_1, 2)) == (0, 1)
    fake = FakeDiscord(guild_id=GUILD_0, guild_name="Shard Zero")
    await fake.start()
    try:
        other = fake.add_guild(guild_id=GUILD_1, guild_name="Shard One")
        db = tmp_path / "unused.sqlite3"
        one = dict(database_url=postgres_url, shard_count=2)
        h0 = Harness(fake, db, seeds=[7], shard_ids=(0,), **one)  # type: ignore[arg-type]
        h1 = Harness(other, db, seeds=[11], shard_ids=(1,), **one)  # type: ignore[arg-type]
        alice, bob = h0.user("alice"), h1.user("bob")
        await h0.start()
        await h1.start()
        # each process got only its own server from the gateway
        assert [g.id for g in h0.bot.guilds] == [GUILD_0]
        assert [g.id for g in h1.bot.guilds] == [GUILD_1]
        shards = sorted(tuple(s.shard) for s in fake.sessions if s.shard)
        assert shards == [(0, 2), (1, 2)]

        await h0.start_game(alice, ai=["beginner"], rules="podkidnoy", seats=2)
        await h1.start_game(bob, ai=["counter"], rules="podkidnoy", seats=2)
        await h0.show_hand(alice)
        await h1.show_hand(bob)
        # each game lives in the process of its server's shard only
        assert h0.service.live_channels() == [fake.channel_id]
        assert h1.service.live_channels() == [other.channel_id]
        presses = await asyncio.gather(h0.play(POLICY), h1.play(POLICY))
        assert all(p > 0 for p in presses)
        await h0.idle()
        await h1.idle()
        assert (await h0.table_view()).finished and (await h1.table_view()).finished
        for h in (h0, h1):  # one game per server, and either process reads both
            counts = [len(await stored.ended_games(h.storage, g)) for g in (GUILD_0, GUILD_1)]
            assert counts == [1, 1] and await stored.live_games(h.storage) == []

        # stats and leaderboards are global: either process answers for either server
        for h in (h0, h1):
            # (a game of one human against the AI is not rated: the history, stats and a
            # leaderboard that counts every player show it)
            history0 = await h.service.history(GUILD_0)
            history1 = await h.service.history(GUILD_1)
            assert [
                p.name.lower() for e in history0.entries for p in e.players if not p.ai_level
            ] == [alice.name.lower()]
            assert [
                p.name.lower() for e in history1.entries for p in e.players if not p.ai_level
            ] == [bob.name.lower()]
            assert (await h.service.stats(GUILD_1, bob.id)).games == 1
            assert (await h.service.stats(GUILD_0, alice.id)).games == 1
        boards = [await h.service.leaderboard(GUILD_0, min_games=1) for h in (h0, h1)]
        assert boards[0] == boards[1]

        # a restart of shard 1's process restores its server only (a rematch is waiting)
        await fake.stop_bot(h1.bot)
        await h1.start()
        assert h1.service.state(other.channel_id) == "finished"
        assert h1.service.state(fake.channel_id) == "none"
    finally:
        await fake.stop()
