"""Service benchmark: ``python -m bot.bench --games 200 --seconds 20``.

Runs that many concurrent games of ``beginner`` AI seats through :class:`GameService` with zero
AI delay and persistence on (a temporary SQLite file), rematching each game as it ends so the
number of live games stays constant.  The last line is::

    games=… actions_per_s=… p50_ms=… p99_ms=… peak_rss_mb=… kb_per_game=…

Latency is from an action reaching the service to its being stored (``act`` → persisted).
``kb_per_game`` is the resident memory of the live games over an idle service (same process,
storage open, before any game), at the peak, divided by the number of games.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import resource
import sys
import tempfile
import time
from array import array

from bot.presenter import NullPresenter
from bot.service import GameService
from bot.storage import SqliteStorage
from bot.views import LobbyOptions, TableView

__all__ = ["main", "run"]

GUILD = 1
HOST = 1


def rss_kb() -> int:
    """Current resident set size in KiB (Linux /proc; falls back to the peak)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") // 1024
    except (OSError, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


class _Rematcher(NullPresenter):
    """Deals the next game of a channel's series as soon as a game ends."""

    def __init__(self) -> None:
        self.service: GameService | None = None
        self.finished = 0
        self.running = True

    async def game_over(self, view: TableView) -> None:
        self.finished += 1
        if self.running and self.service is not None:
            await self.service.rematch(view.channel_id, HOST, manage_channel=True)


async def run(
    games: int, seconds: float, players: int, rules: str, db_dir: str
) -> dict[str, float]:
    latencies = array("d")
    rematcher = _Rematcher()
    service = GameService(
        SqliteStorage(os.path.join(db_dir, "bench.sqlite3")),
        presenters=[rematcher],
        ai_delay=0.0,
        latency_sink=latencies.append,
    )
    rematcher.service = service
    await service.restore()
    try:
        return await _measure(service, rematcher, latencies, games, seconds, players, rules)
    finally:
        await service.close()


async def _measure(
    service: GameService,
    rematcher: _Rematcher,
    latencies: array[float],
    games: int,
    seconds: float,
    players: int,
    rules: str,
) -> dict[str, float]:
    gc.collect()
    idle_kb = rss_kb()
    for ch in range(1, games + 1):
        await service.open_lobby(
            ch, GUILD, HOST, "host", LobbyOptions(rules=rules, seats=players), seat_host=False
        )
        for _ in range(players):
            await service.add_ai(ch, HOST, "beginner")
    t0 = time.perf_counter()
    for ch in range(1, games + 1):
        await service.start(ch, HOST, manage_channel=True)
    peak_kb = rss_kb()
    held = 0
    deadline = t0 + seconds
    while time.perf_counter() < deadline:
        await asyncio.sleep(0.25)
        held = max(held, len(service.live_channels()))
        peak_kb = max(peak_kb, rss_kb())
    elapsed = time.perf_counter() - t0
    rematcher.running = False
    actions = len(latencies)
    ordered = sorted(latencies)
    p50 = ordered[len(ordered) // 2] * 1000 if ordered else 0.0
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000 if ordered else 0.0
    for ch in service.live_channels():
        await service.stop(ch, HOST, manage_channel=True)
    return {
        "games": held,
        "finished": rematcher.finished,
        "actions": actions,
        "elapsed": elapsed,
        "actions_per_s": actions / elapsed,
        "p50_ms": p50,
        "p99_ms": p99,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "kb_per_game": (peak_kb - idle_kb) / max(1, games),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot.bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--games", type=int, default=200, help="concurrent games")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--players", type=int, default=3, help="AI seats per game (2–6)")
    parser.add_argument("--rules", default="podkidnoy")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="durak-bench-") as d:
        r = asyncio.run(run(args.games, args.seconds, args.players, args.rules, d))
    print(
        f"players={args.players} rules={args.rules} seconds={r['elapsed']:.1f} "
        f"actions={r['actions']:.0f} games_finished={r['finished']:.0f}"
    )
    print(
        f"games={r['games']:.0f} actions_per_s={r['actions_per_s']:.0f} "
        f"p50_ms={r['p50_ms']:.2f} p99_ms={r['p99_ms']:.2f} "
        f"peak_rss_mb={r['peak_rss_mb']:.1f} kb_per_game={r['kb_per_game']:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
