"""The benchmarks' measures (:mod:`apps.measure`): a blocked event loop shows as lag."""

from __future__ import annotations

import asyncio
import time

from apps.measure import LoopLag, percentile


def test_percentiles_of_sorted_samples() -> None:
    samples = [float(n) for n in range(1, 101)]
    assert percentile(samples, 0.5) == 51.0
    assert percentile(samples, 0.99) == 100.0
    assert percentile([], 0.99) == 0.0


async def test_a_blocked_loop_wakes_late_and_the_watcher_notes_it() -> None:
    lag = LoopLag()
    lag.start()
    while len(lag.samples) < 3:  # a few wake-ups on time first
        await asyncio.sleep(0)
    time.sleep(0.08)  # blocks the event loop: the watcher's sleep under way wakes late
    seen = len(lag.samples)
    while len(lag.samples) == seen:
        await asyncio.sleep(0)
    await lag.stop()
    assert lag.max_ms() >= 60
    assert lag.samples[seen] * 1000 >= 60
