"""The AI worker pool: legal decisions, kept agent state, failures, fairness, clean shutdown."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.ai_pool import (
    AI_WORKERS_ENV,
    MAX_AI_ONLY_TABLES_PER_SERVER,
    AIPool,
    AIPoolClosed,
    ThreadAI,
    ai_only_table_refusal,
    default_workers,
    hard_limit,
)
from bot.clock import ManualClock
from rules_engine import Game, observation
from rules_engine.ai import AUTOPILOT_LEVEL, LEVELS, make_agent
from tests.ai.ai_support import random_positions
from tests.aipool.helpers import TEST_LEVELS

PoolFactory = Callable[..., Awaitable[AIPool]]


def positions(count: int, seed: int) -> list[Game]:
    """Unfinished positions of 2–4 players reached by random play."""
    return random_positions(count, seed, players=(2, 4), max_moves=60)


def obs_of(game: Game, **extra: Any) -> dict[str, Any]:
    assert game.to_act is not None
    return {**observation(game, game.to_act), **extra}


def casual_move(obs: dict[str, Any], seed: int) -> str:
    return make_agent("casual", seed=seed).choose(obs)


def alive(pid: int | None) -> bool:
    """Whether process ``pid`` runs (a zombie does not count)."""
    if pid is None:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc here
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


async def reaped(pid: int | None) -> bool:
    """Whether process ``pid`` is gone, waiting up to 5 s for it (a hang guard, not a
    measurement)."""
    for _ in range(100):
        if not alive(pid):
            return True
        await asyncio.sleep(0.05)
    return not alive(pid)


async def move_started(path: Path) -> None:
    """Wait until a ``test-sleep`` move given ``test_started_file=path`` runs in a worker:
    the worker creates the file as the move starts (looked for every 10 ms, at most 10 s:
    a hang guard, not a measurement)."""
    for _ in range(1000):
        if path.exists():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the move never started ({path} was not created)")


@pytest.fixture(autouse=True)
def no_leaked_workers() -> Iterator[None]:
    """Every test leaves no worker process behind (pools are closed even on failure)."""
    yield
    left = [p for p in multiprocessing.active_children() if p.name == "durak-ai-worker"]
    for p in left:
        p.kill()
    assert not left, f"worker processes left running: {left}"


class BoundedPool(AIPool):
    """A pool whose decisions fail after 10 s instead of hanging the test run."""

    async def decide(self, *args: Any, **kwargs: Any) -> str:
        return await asyncio.wait_for(super().decide(*args, **kwargs), 10)


@pytest.fixture
async def make_pool() -> AsyncIterator[PoolFactory]:
    pools: list[AIPool] = []

    async def make(workers: int = 1, **kwargs: Any) -> AIPool:
        kwargs.setdefault("levels", TEST_LEVELS)
        pool = BoundedPool(workers, **kwargs)
        pools.append(pool)
        await pool.start(wait=True)
        return pool

    try:
        yield make
    finally:
        for pool in pools:
            await pool.close()


# ------------------------------------------------------------------------ decisions
async def test_decisions_are_legal_for_every_level(make_pool: PoolFactory) -> None:
    pool = await make_pool(2)
    games = positions(5, seed=11)
    jobs = []
    for i, game in enumerate(games):
        for level in ("beginner", "casual", "counter"):
            jobs.append(
                (
                    game,
                    level,
                    pool.decide(100 + i, f"g{i}", game.to_act or 0, level, i, obs_of(game)),
                )
            )
    # two expert moves (each may think up to 0.9 s), in two channels at once
    for i, game in enumerate(games[:2]):
        jobs.append(
            (
                game,
                "expert",
                pool.decide(200 + i, f"g{i}", game.to_act or 0, "expert", i, obs_of(game)),
            )
        )
    texts = await asyncio.gather(*(job for _, _, job in jobs))
    for (game, level, _), text in zip(jobs, texts, strict=True):
        assert text in game.legal_text(), (level, text)


async def test_agent_state_is_kept_per_game_seat_and_forgotten(make_pool: PoolFactory) -> None:
    pool = await make_pool(2)
    obs = obs_of(positions(1, seed=3)[0])
    first = await pool.decide(1, "game-a", 0, "test-pid", 5, obs)
    second = await pool.decide(1, "game-a", 0, "test-pid", 5, obs)
    other_seat = await pool.decide(1, "game-a", 1, "test-pid", 5, obs)
    pid = first.split()[1]
    assert first == f"pid {pid} moves 1"
    assert second == f"pid {pid} moves 2"  # the same agent, in the same worker
    assert other_seat.endswith("moves 1")
    pool.forget("game-a")
    again = await pool.decide(1, "game-a", 0, "test-pid", 5, obs)
    assert again.endswith("moves 1")  # a forgotten game starts with new agents
    new_seed = await pool.decide(1, "game-a", 0, "test-pid", 6, obs)
    assert new_seed.endswith("moves 1")  # another seed (or level) makes another agent


# ------------------------------------------------------------------------ failures
@pytest.mark.parametrize("level", ["test-crash", "test-raise"])
async def test_a_failed_move_plays_the_fallback(
    make_pool: PoolFactory, caplog: pytest.LogCaptureFixture, level: str
) -> None:
    """A worker that dies mid-move is replaced; an agent that raises is dropped and its worker
    stays.  Either way the fallback agent's move is played, and the failure is logged with
    channel and level."""
    pool = await make_pool(1)
    before = pool.worker_pids()[0]
    obs = obs_of(positions(1, seed=9)[0])
    with caplog.at_level(logging.WARNING, logger="bot.ai_pool"):
        text = await pool.decide(4242, "g", obs["seat"], level, 9, obs)
    assert text == casual_move(obs, 9)
    assert any("4242" in r.getMessage() and level in r.getMessage() for r in caplog.records), (
        caplog.text
    )
    if level == "test-raise":
        assert "RuntimeError: test agent failure" in caplog.text
        assert pool.worker_pids()[0] == before
        return
    # the dead worker is reaped and a new one serves the next move
    after = await pool.decide(4242, "g", 0, "test-pid", 1, obs)
    assert after.startswith("pid ") and int(after.split()[1]) != before
    assert await reaped(before)


async def test_worker_killed_from_outside_is_replaced(
    make_pool: PoolFactory, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """The death is noticed on the worker's pipe: the pool's clock never reaches the hard
    limit here, so the move can only be answered that way."""
    pool = await make_pool(1, clock=ManualClock())
    game = positions(1, seed=6)[0]
    started = tmp_path / "started"
    obs = obs_of(game, test_sleep_s=5.0, test_started_file=str(started))
    with caplog.at_level(logging.WARNING, logger="bot.ai_pool"):
        task = asyncio.ensure_future(
            pool.decide(7, "g", game.to_act or 0, "test-sleep", 2, obs, hard_limit_s=1.0)
        )
        await move_started(started)
        pid = pool.worker_pids()[0]
        assert pid is not None
        os.kill(pid, 9)
        text = await task
    assert text == casual_move(obs, 2)
    assert "it exited" in caplog.text and "hard limit" not in caplog.text
    assert (await pool.decide(7, "g", 0, "casual", 2, obs)) in game.legal_text()


async def test_unknown_level_plays_the_fallback(make_pool: PoolFactory) -> None:
    pool = await make_pool(1)
    game = positions(1, seed=8)[0]
    obs = obs_of(game)
    assert await pool.decide(1, "g", game.to_act or 0, "grandmaster", 4, obs) == casual_move(obs, 4)


async def test_move_past_the_hard_limit_is_killed_and_casual(
    make_pool: PoolFactory, caplog: pytest.LogCaptureFixture
) -> None:
    clock = ManualClock()
    pool = await make_pool(1, margin_s=0.2, clock=clock)
    game = positions(1, seed=9)[0]
    obs = obs_of(game, test_sleep_s=30.0)
    pid = pool.worker_pids()[0]
    with caplog.at_level(logging.WARNING, logger="bot.ai_pool"):
        task = asyncio.ensure_future(
            pool.decide(5, "g", game.to_act or 0, "test-sleep", 3, obs, hard_limit_s=0.3)
        )
        await clock.advance(0.49)  # within hard limit + margin: the move goes on
        assert not task.done() and pool.worker_pids()[0] == pid
        await clock.advance(0.02)
        text = await task
    assert text == casual_move(obs, 3)
    assert "ran past the hard limit of 0.30 s + 0.20 s" in caplog.text
    assert await reaped(pid)
    await pool.start(wait=True)
    assert pool.worker_pids()[0] not in (None, pid)


async def test_worker_that_cannot_start_is_down_and_casual_plays(
    make_pool: PoolFactory,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR, logger="bot.ai_pool"):
        pool = await make_pool(1, worker_init="tests.aipool.helpers:no_such_function")
        game = positions(1, seed=10)[0]
        obs = obs_of(game)
        assert await pool.decide(1, "g", game.to_act or 0, "expert", 1, obs) == casual_move(obs, 1)
    assert "failed to start 3 times in a row" in caplog.text
    health = pool.health()
    assert (health.down, health.ready) == (1, 0)
    assert health.failed_starts >= 3 and health.fallback_moves == 1


class FlakyPool(BoundedPool):
    """A one-slot pool whose first ``failures`` worker starts fail (then they succeed)."""

    def __init__(self, failures: int, **kwargs: Any) -> None:
        super().__init__(1, levels=TEST_LEVELS, **kwargs)
        self.failures_left = failures

    def _spawn(self) -> Any:
        if self.failures_left > 0:
            self.failures_left -= 1
            raise OSError("no process can be started (test)")
        return super()._spawn()

    async def admin_done(self) -> None:
        """Wait until the admin thread has done what it was given before (a start runs
        there, and its failure is handled as it ends): a no-op through its one-thread
        queue, answered after them."""
        await asyncio.get_running_loop().run_in_executor(self._admin, lambda: None)


async def test_a_slot_that_fails_to_start_is_retried_until_it_serves_and_logs_rarely(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Eight failed starts: three at once, then retries 1, 2, 4, 8, 16 s apart (on the
    pool's clock); the ninth start, 32 s later, serves.  Meanwhile the fallback plays, and
    each problem is logged once in that minute however often it happened."""
    clock = ManualClock()
    pool = FlakyPool(8, clock=clock)
    game = positions(1, seed=11)[0]
    obs = obs_of(game)
    try:
        with caplog.at_level(logging.INFO, logger="bot.ai_pool"):
            await pool.start(wait=True)
            assert pool.health().down == 1
            for seed in range(50):
                move = await pool.decide(1, "g", game.to_act or 0, "expert", seed, obs)
                assert move == casual_move(obs, seed)
            for _ in range(62):  # 62 s of the pool's clock, in steps
                await clock.advance(1)
                await pool.admin_done()  # a start due now has failed
            assert pool.failures_left == 0 and pool.health().down == 1
            await clock.advance(1)  # the ninth start
            for _ in range(500):  # the real start (a hang guard, not a measurement)
                if pool.health().ready:
                    break
                await asyncio.sleep(0.02)
            health = pool.health()
            assert (health.ready, health.down, health.failed_starts) == (1, 0, 8)
            assert health.fallback_moves == 50
            answer = await pool.decide(1, "g", 0, "test-pid", 1, obs)
            assert answer.startswith("pid ")  # a worker answered, not the fallback
    finally:
        await pool.close()
    texts = [r.getMessage() for r in caplog.records]
    assert len([t for t in texts if t.startswith("could not start AI worker 0")]) == 1
    assert len([t for t in texts if "failed to start" in t]) == 1
    assert len([t for t in texts if "playing the casual move" in t]) == 1
    assert any("started after 8 failed starts" in t for t in texts)


# ------------------------------------------------------------------------ fairness
async def test_a_channel_does_not_wait_behind_another_channels_backlog(
    make_pool: PoolFactory, tmp_path: Path
) -> None:
    pool = await make_pool(1)
    game = positions(1, seed=12)[0]
    started = tmp_path / "started"
    slow = obs_of(game, test_sleep_s=0.25, test_started_file=str(started))
    backlog = [
        asyncio.ensure_future(pool.decide(1, "flood", 0, "test-sleep", i, slow)) for i in range(8)
    ]  # 2 s of work in channel 1
    await move_started(started)  # the first of them is in the worker now
    text = await pool.decide(2, "human", game.to_act or 0, AUTOPILOT_LEVEL, 1, obs_of(game))
    assert text in game.legal_text()
    assert sum(t.done() for t in backlog) <= 2  # about one move, not the backlog of 8
    for t in backlog:
        t.cancel()


async def test_cheap_move_goes_before_many_expensive_tables(
    make_pool: PoolFactory, tmp_path: Path
) -> None:
    """The issue's fault: many AI-only tables each with a slow move queued (one per channel,
    as the service plays them) must not make a casual seat wait for all of them."""
    pool = await make_pool(1)
    game = positions(1, seed=13)[0]
    started = tmp_path / "started"
    slow = obs_of(game, test_sleep_s=0.2, test_started_file=str(started))

    played = 0  # slow moves answered so far
    answered = asyncio.Event()  # set at each of them

    async def table(channel: int) -> None:
        nonlocal played
        for move in range(20):
            await pool.decide(channel, f"ai{channel}", 0, "test-sleep", move, slow)
            played += 1
            answered.set()

    tables = [asyncio.ensure_future(table(c)) for c in range(10, 16)]  # 6 × 0.2 s a round
    try:
        await move_started(started)  # every table has queued a move, one of them is played
        waited_for = []
        for probe in range(2):
            if probe:  # the second comes once another slow move was answered
                answered.clear()
                await answered.wait()
            before = played
            await pool.decide(2, "human", game.to_act or 0, AUTOPILOT_LEVEL, 1, obs_of(game))
            waited_for.append(played - before)
        # the move in flight, not the other 5–6 tables' moves as in a FIFO
        assert max(waited_for) <= 2, waited_for
    finally:
        for t in tables:
            t.cancel()
        await asyncio.gather(*tables, return_exceptions=True)


# ------------------------------------------------------------------------ shutdown
async def test_close_stops_every_worker_and_refuses_later_moves(tmp_path: Path) -> None:
    pool = AIPool(2, levels=TEST_LEVELS)
    game = positions(1, seed=14)[0]
    started, finished = tmp_path / "started", tmp_path / "finished"
    try:
        await pool.start(wait=True)
        pids = pool.worker_pids()
        assert all(alive(p) for p in pids)
        busy = asyncio.ensure_future(
            pool.decide(
                1,
                "g",
                game.to_act or 0,
                "test-sleep",
                1,
                obs_of(
                    game,
                    test_sleep_s=0.3,
                    test_started_file=str(started),
                    test_done_file=str(finished),
                ),
                hard_limit_s=60.0,
            )
        )
        queued = asyncio.ensure_future(
            pool.decide(1, "g", game.to_act or 0, "casual", 1, obs_of(game))
        )
        await move_started(started)  # busy in a worker; the channel's next move queued
    finally:
        await pool.close()
    # a busy worker is killed, not left to finish its move (a polite stop would let the 0.3 s
    # move finish within the 1 s the pool waits for a stopping worker)
    assert not finished.exists()
    for fut in (busy, queued):
        with pytest.raises(AIPoolClosed):
            await fut
    assert not [p for p in multiprocessing.active_children() if p.name == "durak-ai-worker"]
    assert not any(alive(p) for p in pids)
    with pytest.raises(AIPoolClosed):
        await pool.decide(1, "g", 0, "casual", 1, obs_of(game))
    await pool.close()  # twice is fine


async def test_close_before_any_use_and_while_starting() -> None:
    idle = AIPool(1)
    await idle.close()
    starting = AIPool(2, levels=TEST_LEVELS)
    await starting.start()  # workers are being spawned
    await starting.close()
    assert not [p for p in multiprocessing.active_children() if p.name == "durak-ai-worker"]


# ------------------------------------------------------------------------ helpers
def test_ai_only_table_cap() -> None:
    assert ai_only_table_refusal(0) is None
    assert ai_only_table_refusal(MAX_AI_ONLY_TABLES_PER_SERVER - 1) is None
    refusal = ai_only_table_refusal(MAX_AI_ONLY_TABLES_PER_SERVER)
    assert refusal is not None and str(MAX_AI_ONLY_TABLES_PER_SERVER) in str(refusal)
    assert dict(refusal.params) == {
        "running": MAX_AI_ONLY_TABLES_PER_SERVER,
        "cap": MAX_AI_ONLY_TABLES_PER_SERVER,
    }
    assert ai_only_table_refusal(5, cap=6) is None


def test_worker_count_and_hard_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(AI_WORKERS_ENV, raising=False)
    assert default_workers() == max(1, (os.cpu_count() or 2) - 1)
    monkeypatch.setenv(AI_WORKERS_ENV, "3")
    assert default_workers() == 3
    for bad in ("0", "many"):
        monkeypatch.setenv(AI_WORKERS_ENV, bad)
        with pytest.raises(ValueError, match=AI_WORKERS_ENV):
            default_workers()
    assert hard_limit("expert") == make_agent("expert").budget_s  # type: ignore[attr-defined]
    assert hard_limit("casual") == LEVELS["casual"].hard_limit_s > 0
    assert hard_limit("test-pid", TEST_LEVELS) == TEST_LEVELS["test-pid"].hard_limit_s
    with pytest.raises(ValueError):
        AIPool(0)
    with pytest.raises(ValueError):
        AIPool(1, start_method="fork")


async def test_busy_cheap_channels_do_not_starve_an_expensive_one(
    make_pool: PoolFactory,
) -> None:
    """Four channels keep a cheap move always waiting; an expensive one still gets its turn."""
    pool = await make_pool(1)
    game = positions(1, seed=15)[0]
    obs = obs_of(game)
    done = 0
    flowing = asyncio.Event()  # the flood flows: each answer brings its channel's next move

    async def chatty(channel: int) -> None:
        nonlocal done
        for _ in range(5000):
            await pool.decide(channel, f"chatty{channel}", game.to_act or 0, "casual", 1, obs)
            done += 1
            if done >= 4:
                flowing.set()

    flood = [asyncio.ensure_future(chatty(c)) for c in range(1, 5)]
    try:
        await flowing.wait()
        slow = obs_of(game, test_sleep_s=0.1)
        await asyncio.wait_for(pool.decide(9, "slow", 0, "test-sleep", 1, slow), 5)
        assert done < 4 * 5000  # served while the flood still went on
    finally:
        for t in flood:
            t.cancel()
        await asyncio.gather(*flood, return_exceptions=True)


# ------------------------------------------------------------------------ thread runner
async def test_thread_runner_has_the_same_interface(caplog: pytest.LogCaptureFixture) -> None:
    clock = ManualClock()
    runner = ThreadAI(margin_s=0.1, levels=TEST_LEVELS, clock=clock)
    game = positions(1, seed=16)[0]
    obs = obs_of(game)
    try:
        assert (
            await runner.decide(1, "g", game.to_act or 0, "counter", 3, obs)
        ) in game.legal_text()
        assert await runner.decide(1, "g", 0, "test-pid", 3, obs) == f"pid {os.getpid()} moves 1"
        assert await runner.decide(1, "g", 0, "test-pid", 3, obs) == f"pid {os.getpid()} moves 2"
        runner.forget("g")
        assert await runner.decide(1, "g", 0, "test-pid", 3, obs) == f"pid {os.getpid()} moves 1"
        assert await runner.decide(1, "g", 0, "test-raise", 3, obs) == casual_move(obs, 3)
        slow = obs_of(game, test_sleep_s=2.0)
        with caplog.at_level(logging.WARNING, logger="bot.ai_pool"):
            task = asyncio.ensure_future(runner.decide(1, "g", 0, "test-sleep", 3, slow, 0.1))
            await clock.advance(0.19)  # within hard limit + margin
            assert not task.done()
            await clock.advance(0.02)
            assert await task == casual_move(obs, 3)
        # answered at the hard limit, not when the 2 s move ended (it ends with that move too)
        assert "AI test-sleep failed in channel 1 (TimeoutError())" in caplog.text
    finally:
        await runner.close()
    with pytest.raises(AIPoolClosed):
        await runner.decide(1, "g", 0, "casual", 3, obs)
    assert "test-pid" not in LEVELS  # the test levels were the runner's own
