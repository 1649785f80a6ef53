"""Event-loop lag while concurrent expert games think: the AI pool against today's threads.

Not a test (it runs for many seconds).  From the project root::

    python -m tests.aipool.lag_check --mode pool --games 20 --seconds 20
    python -m tests.aipool.lag_check --mode threads --games 20 --seconds 20

Each of ``--games`` games has an ``expert`` seat 0 and a ``casual`` seat 1 and plays on without
pause (``--ai-delay`` 0: the worst case; the service waits 1 s between AI moves), redealt as it
ends.  A probe channel (a human's game) asks for a ``casual`` move once a second and times it.
``threads`` is today's service path: ``agent.choose(observation(game, seat))`` in a
``ThreadPoolExecutor(AI_THREADS=2)``; ``pool`` builds the observation on the loop and asks
:class:`bot.ai_pool.AIPool`.  A ticker on the loop sleeps 10 ms at a time; its lateness is the
loop lag.  One ``key=value`` line is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bot.ai_pool import AIPool, hard_limit
from rules_engine import PROFILES, Game, deal_from_seed, observation, parse_action
from rules_engine.ai import make_agent
from rules_engine.ai.base import Agent

AI_THREADS = 2  # bot/service.py today


def _decide(agent: Agent, game: Game, seat: int) -> str:
    return agent.choose(observation(game, seat))


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(
    mode: str, games: int, seconds: float, workers: int | None, ai_delay: float
) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    stop = loop.time() + seconds
    lags: list[float] = []
    decide_s: list[float] = []
    probe_s: list[float] = []
    moves = 0
    pool: AIPool | None = None
    threads: ThreadPoolExecutor | None = None
    if mode == "pool":
        pool = AIPool(workers)
        await pool.start(wait=True)
    else:
        threads = ThreadPoolExecutor(max_workers=AI_THREADS, thread_name_prefix="durak-ai")

    async def ticker() -> None:
        while loop.time() < stop:
            t0 = loop.time()
            await asyncio.sleep(0.01)
            lags.append(max(0.0, loop.time() - t0 - 0.01))

    async def table(index: int) -> None:
        nonlocal moves
        deal_no = 0
        while loop.time() < stop:
            seed = index * 1000 + deal_no
            game = Game(PROFILES["podkidnoy"], deal_from_seed(2, seed))
            game_key = f"t{index}-{deal_no}"
            deal_no += 1
            agents: dict[int, Agent] = {}
            while not game.finished and loop.time() < stop:
                seat = game.to_act
                assert seat is not None
                level = "expert" if seat == 0 else "casual"
                agent_seed = (seed * 31 + seat) & 0x7FFFFFFF
                t0 = time.perf_counter()
                if pool is not None:
                    text = await pool.decide(
                        index,
                        game_key,
                        seat,
                        level,
                        agent_seed,
                        observation(game, seat),
                        hard_limit(level),
                    )
                else:
                    agent = agents.get(seat)
                    if agent is None:
                        agent = agents[seat] = make_agent(level, seed=agent_seed)
                    text = await loop.run_in_executor(threads, _decide, agent, game, seat)
                decide_s.append(time.perf_counter() - t0)
                game.apply(parse_action(text))  # in place: nothing else holds this game
                moves += 1
                if ai_delay:
                    await asyncio.sleep(ai_delay)
            if pool is not None:
                pool.forget(game_key)

    async def probe() -> None:
        """A human's game: a casual seat's move once a second, timed end to end."""
        game = Game(PROFILES["podkidnoy"], deal_from_seed(2, 424242))
        seat = game.to_act
        assert seat is not None
        agent = make_agent("casual", seed=1)
        while loop.time() + 1.0 < stop:
            await asyncio.sleep(1.0)
            t0 = time.perf_counter()
            if pool is not None:
                await pool.decide(10**6, "probe", seat, "casual", 1, observation(game, seat))
            else:
                await loop.run_in_executor(threads, _decide, agent, game, seat)
            probe_s.append(time.perf_counter() - t0)

    t_start = time.perf_counter()
    try:
        await asyncio.gather(ticker(), probe(), *(table(i) for i in range(games)))
    finally:
        if pool is not None:
            await pool.close()
        if threads is not None:
            threads.shutdown(wait=True)
    elapsed = time.perf_counter() - t_start
    return {
        "mode": mode,
        "games": games,
        "workers": pool.size if pool else AI_THREADS,
        "ai_delay": ai_delay,
        "moves": moves,
        "moves_per_s": round(moves / elapsed, 1),
        "decide_p50_ms": round(pct(decide_s, 0.5) * 1000, 1),
        "decide_p99_ms": round(pct(decide_s, 0.99) * 1000, 1),
        "casual_probe_p50_ms": round(pct(probe_s, 0.5) * 1000, 1),
        "casual_probe_max_ms": round(max(probe_s, default=0.0) * 1000, 1),
        "loop_lag_p50_ms": round(statistics.median(lags) * 1000, 1) if lags else 0.0,
        "loop_lag_p99_ms": round(pct(lags, 0.99) * 1000, 1),
        "loop_lag_max_ms": round(max(lags, default=0.0) * 1000, 1),
        # what an operator watches: worker starts that failed, moves the fallback played
        "failed_starts": pool.health().failed_starts if pool else 0,
        "fallback_moves": pool.health().fallback_moves if pool else 0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", choices=("pool", "threads"), default="pool")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=None, help="pool workers (AI_WORKERS)")
    parser.add_argument("--ai-delay", type=float, default=0.0)
    args = parser.parse_args()
    result = asyncio.run(run(args.mode, args.games, args.seconds, args.workers, args.ai_delay))
    print(" ".join(f"{k}={v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
