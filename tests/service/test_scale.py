"""Issue 11 in the service: AI seats think through the AI runner (worker processes by default),
a server runs at most ``max_ai_only_tables`` AI-only games, and a process restores only the
servers on its shards."""

from __future__ import annotations

import os
from typing import Any

import pytest

from bot.ai_pool import MAX_AI_ONLY_TABLES_PER_SERVER, AIPool, ThreadAI
from bot.authority import MODERATOR
from bot.errors import AIOnlyLimit
from bot.service import GameService
from bot.shards import guild_filter, shard_of

from .conftest import ALICE, BOB, CH, GUILD, open_table, play_out, settle

OTHER_GUILD = GUILD + 1


class CountingAI(ThreadAI):
    """A :class:`ThreadAI` that remembers what the service asked of it."""

    def __init__(self) -> None:
        super().__init__()
        self.decided: list[tuple[int, Any, int, str]] = []
        self.forgotten: list[Any] = []

    async def decide(
        self, channel_id: int, game_key: Any, seat: int, level: str, *rest: Any
    ) -> str:
        self.decided.append((channel_id, game_key, seat, level))
        return await super().decide(channel_id, game_key, seat, level, *rest)

    def forget(self, game_key: Any) -> None:
        self.forgotten.append(game_key)
        super().forget(game_key)


async def test_ai_seats_decide_through_the_runner_and_are_forgotten(make_service):
    ai = CountingAI()
    try:
        svc = await make_service(ai=ai)
        table = await open_table(svc, ALICE, ais=("counter",))
        await play_out(svc)
        assert ai.decided, "the AI seat never asked the runner"
        assert {(c, g, s, lvl) for c, g, s, lvl in ai.decided} == {
            (CH, table.game_id, 1, "counter")
        }
        assert ai.forgotten == [table.game_id]  # the finished game's agents are dropped
        # a stopped game is forgotten too
        await svc.rematch(CH, ALICE)
        second = await svc.table(CH)
        await svc.stop(CH, ALICE)
        assert ai.forgotten == [table.game_id, second.game_id]
    finally:
        await ai.close()


async def test_the_default_runner_is_a_pool_of_worker_processes(make_service):
    pool = AIPool(1)
    try:
        svc = await make_service(ai=pool)
        await open_table(svc, ALICE, ais=("expert",))
        table = await play_out(svc)
        assert table.finished
        pids = pool.worker_pids()
        assert pids and all(p is not None and p != os.getpid() for p in pids)
        await svc.close()
    finally:
        await pool.close()
    # and a service made without one owns (and closes) an AIPool
    own = await make_service(ai=None)
    assert isinstance(own._ai, AIPool)
    await own.close()
    assert own._ai._closed


async def _ai_only_lobby(svc: GameService, channel: int, guild: int = GUILD) -> None:
    # Alice hosts a table of AIs without sitting at it
    await svc.open_lobby(channel, guild, ALICE, "Alice", seat_host=False)
    await svc.add_ai(channel, ALICE, "beginner")
    await svc.add_ai(channel, ALICE, "beginner")


async def test_a_server_runs_at_most_the_cap_of_ai_only_tables(make_service):
    # the AI waits 5 s of the manual clock before each move: the games stay running
    svc = await make_service(ai_delay=5.0)
    cap = MAX_AI_ONLY_TABLES_PER_SERVER
    for k in range(cap):
        await _ai_only_lobby(svc, CH + k)
        await svc.start(CH + k, ALICE)
    await _ai_only_lobby(svc, CH + cap)
    with pytest.raises(AIOnlyLimit) as info:
        await svc.start(CH + cap, ALICE)
    assert info.value.code == "ai_only_limit"
    assert dict(info.value.message.params) == {"running": cap, "cap": cap}
    assert svc.state(CH + cap) == "lobby"  # refused: nothing changed
    # another server has its own count; a table with a human seat is never refused
    await _ai_only_lobby(svc, CH + 50, OTHER_GUILD)
    await svc.start(CH + 50, ALICE)
    await open_table(svc, ALICE, ais=("beginner",), channel=CH + 60)
    # once one stops, the waiting lobby may start
    await svc.stop(CH, ALICE)
    await svc.start(CH + cap, ALICE)
    assert svc.state(CH + cap) == "playing"


async def test_a_rematch_of_an_ai_only_series_counts_too(make_service):
    svc = await make_service(ai_delay=0.0, max_ai_only_tables=1)
    await _ai_only_lobby(svc, CH)
    await svc.start(CH, ALICE)
    await settle(svc)
    assert svc.state(CH) == "finished"  # a finished AI-only series costs nothing
    await _ai_only_lobby(svc, CH + 1)
    svc.ai_delay = 5.0  # the second table's AI waits on the manual clock: it keeps running
    await svc.start(CH + 1, ALICE)
    with pytest.raises(AIOnlyLimit):
        await svc.rematch(CH, ALICE, MODERATOR)
    assert svc.state(CH) == "finished"
    await svc.stop(CH + 1, ALICE)
    await svc.rematch(CH, ALICE, MODERATOR)
    assert svc.state(CH) == "playing"


# ------------------------------------------------------------------------ shards
def _guild_on(shard: int, count: int, k: int = 1) -> int:
    """A guild id that Discord puts on ``shard`` of ``count``."""
    return ((k * count + shard) << 22) | 12345


def test_shard_of_follows_discord() -> None:
    assert shard_of(81384788765712384, 1) == 0
    # Discord's documented example: (guild_id >> 22) % num_shards
    assert shard_of(81384788765712384, 2) == (81384788765712384 >> 22) % 2
    for shard in range(4):
        assert shard_of(_guild_on(shard, 4, k=7), 4) == shard
    keep = guild_filter(4, (1, 3))
    assert [keep(_guild_on(s, 4)) for s in range(4)] == [False, True, False, True]


async def test_restore_keeps_only_the_servers_on_this_process_shards(make_service, db_path):
    g0, g1 = _guild_on(0, 2), _guild_on(1, 2)
    first = await make_service(ai_delay=5.0)
    await first.open_lobby(CH, g0, ALICE, "Alice")
    await first.join(CH, BOB, "Bob")
    await first.start(CH, ALICE)
    await first.open_lobby(CH + 1, g1, ALICE, "Alice")
    await first.join(CH + 1, BOB, "Bob")
    await first.start(CH + 1, ALICE)
    await first.open_lobby(CH + 2, g1, BOB, "Bob")  # a lobby on shard 1
    await first.open_lobby(CH + 3, g1, ALICE, "Alice")  # a finished game on shard 1
    await first.join(CH + 3, BOB, "Bob")
    await first.start(CH + 3, ALICE)
    await play_out(first, CH + 3)
    await first.close()

    shard0 = await make_service(include_guild=guild_filter(2, (0,)))
    assert shard0.live_channels() == [CH]
    assert [shard0.state(c) for c in (CH + 1, CH + 2, CH + 3)] == ["none"] * 3
    # stats and leaderboards are database queries: any process answers for any server
    board = await shard0.leaderboard(g1, min_games=1)
    assert board.total_players == 2 and {r.user_id for r in board.rows} == {ALICE, BOB}
    assert (await shard0.stats(g1, BOB)).games == 1
    await shard0.close()

    shard1 = await make_service(include_guild=guild_filter(2, (1,)))
    assert shard1.live_channels() == [CH + 1]
    assert shard1.state(CH) == "none"
    assert [shard1.state(c) for c in (CH + 2, CH + 3)] == ["lobby", "finished"]
    await shard1.close()
