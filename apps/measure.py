"""What the benchmarks (:mod:`apps.bench`, :mod:`apps.web_bench`) measure with: how late the
event loop wakes (:class:`LoopLag`), percentiles of sorted samples, and resident memory."""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
from array import array

from bot.service.tasks import cancel_and_wait
from rules_engine.ai import DEFAULT_AI_LEVEL

__all__ = ["LAG_INTERVAL_S", "LoopLag", "percentile", "rss_kb"]

#: The sleep whose lateness :class:`LoopLag` measures, in seconds.
LAG_INTERVAL_S = 0.01


def percentile(ordered: list[float], q: float) -> float:
    """The ``q`` quantile (0–1) of ``ordered`` (sorted samples; 0.0 when there are none)."""
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def rss_kb() -> int:
    """Current resident set size in KiB (Linux /proc; falls back to the peak)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") // 1024
    except (OSError, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


class LoopLag:
    """Sleeps :data:`LAG_INTERVAL_S` again and again on the running event loop, between
    :meth:`start` and :meth:`stop`, and notes how late each wake-up is (in seconds): a loop
    kept busy by other work wakes late."""

    def __init__(self, interval: float = LAG_INTERVAL_S) -> None:
        self.interval = interval
        self.samples: array[float] = array("d")
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start sampling (on the running loop)."""
        self._task = asyncio.get_running_loop().create_task(self._watch())

    async def stop(self) -> None:
        """Stop sampling (the sleep under way is not counted)."""
        task, self._task = self._task, None
        await cancel_and_wait(task)

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            t = loop.time()
            await asyncio.sleep(self.interval)
            self.samples.append(max(0.0, loop.time() - t - self.interval))

    def p99_ms(self) -> float:
        """The 99th percentile of the lateness, in milliseconds."""
        return percentile(sorted(self.samples), 0.99) * 1000

    def max_ms(self) -> float:
        """The worst lateness, in milliseconds."""
        return max(self.samples, default=0.0) * 1000


def add_table_arguments(parser: argparse.ArgumentParser) -> None:
    """The web benches' options for the tables they run: games, pages per game, seconds,
    seats, rules, AI level and delay."""
    parser.add_argument("--games", type=int, default=200, help="live games (default 200)")
    parser.add_argument("--pages", type=int, default=4, help="open pages per game (default 4)")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured run (default 30)")
    parser.add_argument("--players", type=int, default=3, help="AI seats per game (2–6)")
    parser.add_argument("--rules", default="podkidnoy")
    parser.add_argument("--level", default=DEFAULT_AI_LEVEL, help="AI level of every seat")
    parser.add_argument(
        "--ai-delay", type=float, default=1.0, help="seconds per AI move (default 1.0, the bot's)"
    )
