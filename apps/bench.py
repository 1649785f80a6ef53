"""Scale benchmark: ``python -m apps.bench --backend sqlite|postgres --processes N --games G``.

Starts ``--processes`` real OS processes (``python -m apps.bench`` in worker mode), each a
:class:`GameService` driving ``--games`` concurrent games of AI seats with zero AI delay and
persistence on, rematching each game as it ends so the number of live games stays constant.
Every AI decision goes through the service's :class:`~bot.ai_pool.AIPool` (``AI_WORKERS``
worker processes per bot process, default cores − 1).  Seats are ``beginner``; ``--ai LEVEL``
makes one seat per game that level.  Every game is in a server of its own (the AI-only cap is
per server), and each process serves only its own servers, as shards would.

Backends: ``sqlite`` is a temporary file (one process only: SQLite is held by one process);
``postgres`` starts a throwaway PostgreSQL server for the run (:mod:`bot.storage.throwaway_pg`),
or, with ``--database-url postgresql://…``, uses that database (the bench's rows stay there).
An exported ``DATABASE_URL`` is never used: it is most likely the bot's own database.
The processes set their games up, then start together.  The last line is one ``key=value``
line per run::

    backend=… processes=… games=… ai=… seconds=… actions=… actions_per_s=… p50_ms=… p99_ms=…
    loop_lag_p99_ms=… loop_lag_max_ms=… peak_rss_mb=… kb_per_game=… cpu_s=…,… ai_cpu_s=…,…
    db_cpu_s=… p99_ms_each=…,…

- ``p50_ms``/``p99_ms``: act to stored (an action reaching the service until it is stored),
  of the worst process; ``p99_ms_each`` lists each process's p99;
- ``loop_lag_*``: how late a 10 ms sleep on each process's event loop wakes (worst process);
- ``peak_rss_mb``: the largest process (bot processes and their AI workers);
- ``cpu_s``: CPU seconds (user + system) of each bot process during the run; ``ai_cpu_s``: of
  its AI workers (their whole life, start included); ``db_cpu_s``: of the throwaway PostgreSQL
  server during the run (``embedded`` for SQLite, whose work is in ``cpu_s``; ``unknown`` for a
  ``--database-url`` server);
- ``kb_per_game``: resident memory of the live games over an idle service, per game (largest
  process);
- ``ai_p50_ms``/``ai_p99_ms``: the time of an AI move in the pool (asked to answered,
  queueing included), of the worst process.

``--reviews R`` keeps R coach's reviews running in each process's AI pool beside the games
(each of a seeded two-player game, at ``--review-deals`` sampled deals per choice, started
again as it ends): ``reviews_done`` counts the reviews finished, so a run with ``--reviews 0``
beside one with reviews shows what they cost the live games (docs/AI.md, "The review").
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import glob
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from apps.measure import LoopLag, percentile, rss_kb
from bot.ai_pool import AIPool
from bot.authority import SystemRule, system
from bot.presenter import NullPresenter
from bot.realm import EVERY_REALM
from bot.seating import LobbyOptions
from bot.service import GameService
from bot.storage import create_storage, sqlite_url
from bot.views import TableView
from rules_engine.ai import DEFAULT_AI_LEVEL, LEVELS

__all__ = ["main", "run_worker"]

HOST = 1
#: The benchmark deals, stops and rematches its tables as an operator (the system).
OPERATOR = system(SystemRule.OPERATOR)
#: Channel (and server) ids of process ``i`` are ``(i + 1) * ID_SPAN + k``.
ID_SPAN = 1_000_000


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


class _Rematcher(NullPresenter):
    """Deals the next game of a channel's series as soon as a game ends (in every realm: the
    benchmark's channels are all its own)."""

    realms = EVERY_REALM

    def __init__(self) -> None:
        self.service: GameService | None = None
        self.finished = 0
        self.running = True

    async def game_over(self, view: TableView) -> None:
        self.finished += 1
        if self.running and self.service is not None:
            await self.service.rematch(view.channel_id, HOST, OPERATOR)


# ---------------------------------------------------------------------------------- worker
async def run_worker(
    cfg: dict[str, Any], ready: Callable[[], None], go: Callable[[], Any]
) -> dict[str, float]:
    """One bot process of the benchmark: set ``cfg["games"]`` games up, call ``ready()``,
    await ``go()``, play for ``cfg["seconds"]``, and return the measurements."""
    base = (int(cfg["index"]) + 1) * ID_SPAN
    games, players = int(cfg["games"]), int(cfg["players"])
    latencies: array[float] = array("d")
    lag = LoopLag()
    rematcher = _Rematcher()
    pool = AIPool()
    moves: array[float] = array("d")
    decide = pool.decide

    async def timed_decide(*args: Any, **kwargs: Any) -> str:
        started = time.perf_counter()
        try:
            return await decide(*args, **kwargs)
        finally:
            moves.append(time.perf_counter() - started)

    pool.decide = timed_decide  # type: ignore[method-assign]
    reviews_done = 0
    reviewing = True

    async def keep_reviewing(record: dict[str, Any]) -> None:
        nonlocal reviews_done
        while reviewing:
            await pool.review(record, 0, deals=int(cfg["review_deals"]))
            reviews_done += 1

    service = GameService(
        create_storage(cfg["url"]),
        presenters=[rematcher],
        ai_delay=0.0,
        latency_sink=latencies.append,
        ai=pool,
        include_guild=lambda g: base <= g < base + ID_SPAN,
    )
    rematcher.service = service
    await service.restore()
    try:
        await pool.start(wait=True)  # worker start-up is not part of the measurement
        gc.collect()
        idle_kb = rss_kb()
        options = LobbyOptions(rules=cfg["rules"], seats=players)
        for ch in range(base + 1, base + games + 1):
            # an AI-only table: the host opens it without taking a seat
            await service.open_lobby(ch, ch, HOST, "host", options, seat_host=False)
            levels = [cfg["ai"] or DEFAULT_AI_LEVEL] + [DEFAULT_AI_LEVEL] * (players - 1)
            for level in levels:
                await service.add_ai(ch, HOST, level)
        records = [_review_record(base + k) for k in range(int(cfg["reviews"]))]
        ready()
        await go()
        lag.start()
        reviewers = [asyncio.ensure_future(keep_reviewing(r)) for r in records]
        cpu0 = _cpu(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        for ch in range(base + 1, base + games + 1):
            await service.start(ch, HOST, OPERATOR)
        peak_kb = rss_kb()
        held = 0
        deadline = t0 + float(cfg["seconds"])
        while time.perf_counter() < deadline:
            await asyncio.sleep(0.25)
            held = max(held, len(service.live_channels()))
            peak_kb = max(peak_kb, rss_kb())
        elapsed = time.perf_counter() - t0
        cpu = _cpu(resource.RUSAGE_SELF) - cpu0
        await lag.stop()
        reviewing = False
        for task in reviewers:
            task.cancel()
        await asyncio.gather(*reviewers, return_exceptions=True)
        move_times = sorted(moves)
        rematcher.running = False
        actions = len(latencies)
        ordered = sorted(latencies)
        for ch in service.live_channels():
            await service.stop(ch, HOST, OPERATOR)
    finally:
        await service.close()
        await pool.close()
    return {
        "games": held,
        "finished": rematcher.finished,
        "actions": actions,
        "elapsed": elapsed,
        "p50_ms": percentile(ordered, 0.5) * 1000,
        "p99_ms": percentile(ordered, 0.99) * 1000,
        "lag_p99_ms": lag.p99_ms(),
        "lag_max_ms": lag.max_ms(),
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "ai_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
        "cpu_s": cpu,
        "ai_cpu_s": _cpu(resource.RUSAGE_CHILDREN),
        "kb_per_game": (peak_kb - idle_kb) / max(1, games),
        "ai_p50_ms": percentile(move_times, 0.5) * 1000 if move_times else 0.0,
        "ai_p99_ms": percentile(move_times, 0.99) * 1000 if move_times else 0.0,
        "reviews_done": reviews_done,
    }


def _review_record(seed: int) -> dict[str, Any]:
    """A finished two-player game of casual players (seeded), as the store keeps it."""
    from rules_engine import PROFILES
    from rules_engine.ai.review import GameRecord
    from rules_engine.deal import deal_from_seed
    from rules_engine.tournament import play_game

    rules = PROFILES["podkidnoy"]
    actions: list[str] = []
    play_game(rules, 2, seed, 0, "casual", "casual", actions=actions)
    return GameRecord(rules, deal_from_seed(2, seed), tuple(actions)).to_dict()


def _worker_main(raw: str) -> int:
    """Worker mode: ``ready`` on stdout, wait for a line on stdin, result JSON on stdout."""
    cfg = json.loads(raw)

    def ready() -> None:
        print("ready", flush=True)

    async def go() -> None:
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)

    result = asyncio.run(run_worker(cfg, ready, go))
    print(json.dumps(result), flush=True)
    return 0


# ---------------------------------------------------------------------------------- database
def _proc_cpu_s(pid: int, *, children: bool = False) -> float:
    """CPU seconds of a process from /proc (with ``children``: plus its reaped children)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12])  # utime, stime
    if children:
        ticks += int(fields[13]) + int(fields[14])  # cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def _server_cpu_s(postmaster: int) -> float:
    """CPU seconds of a PostgreSQL server: the postmaster, the backends it reaped, and the
    ones still running."""
    total = _proc_cpu_s(postmaster, children=True)
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == postmaster:
            total += _proc_cpu_s(int(Path(stat).parent.name))
    return total


def _postmaster_pid(root: Path) -> int | None:
    for pidfile in glob.glob(str(root / "**" / "postmaster.pid"), recursive=True):
        try:
            return int(Path(pidfile).read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return None


async def _migrate(url: str) -> None:
    """Open the storage once, so the workers do not race on the migrations."""
    storage = create_storage(url)
    await storage.open()
    await storage.close()


# ---------------------------------------------------------------------------------- parent
def _run(args: argparse.Namespace, url: str, postmaster: int | None) -> dict[str, Any]:
    asyncio.run(_migrate(url))
    procs: list[subprocess.Popen[str]] = []
    try:
        for i in range(args.processes):
            cfg = {
                "index": i,
                "url": url,
                "games": args.games,
                "seconds": args.seconds,
                "players": args.players,
                "rules": args.rules,
                "ai": args.ai,
                "reviews": args.reviews,
                "review_deals": args.review_deals,
            }
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "apps.bench", "--worker", json.dumps(cfg)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
        for p in procs:
            line = _stdout(p).readline().strip()
            if line != "ready":
                raise RuntimeError(f"a bench process failed to set up (exit {p.wait()})")
        db0 = _server_cpu_s(postmaster) if postmaster else 0.0
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        results = []
        for p in procs:
            out, _ = p.communicate()
            if p.returncode != 0:
                raise RuntimeError(f"a bench process failed (exit {p.returncode})")
            results.append(json.loads(out.strip().splitlines()[-1]))
        db_cpu: float | None = _server_cpu_s(postmaster) - db0 if postmaster else None
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return {"results": results, "db_cpu_s": db_cpu}


def _stdout(p: subprocess.Popen[str]) -> IO[str]:
    assert p.stdout is not None
    return p.stdout


def _line(args: argparse.Namespace, run: dict[str, Any], db: str) -> str:
    rs: list[dict[str, float]] = run["results"]
    elapsed = max(r["elapsed"] for r in rs)
    actions = sum(r["actions"] for r in rs)

    def each(key: str, fmt: str = "{:.1f}") -> str:
        return ",".join(fmt.format(r[key]) for r in rs)

    db_cpu = run["db_cpu_s"]
    return (
        f"backend={args.backend} processes={args.processes} games={args.games} "
        f"ai={args.ai or 'none'} players={args.players} rules={args.rules} "
        f"seconds={elapsed:.1f} actions={actions:.0f} "
        f"games_finished={sum(r['finished'] for r in rs):.0f} "
        f"actions_per_s={actions / elapsed:.0f} "
        f"p50_ms={max(r['p50_ms'] for r in rs):.2f} p99_ms={max(r['p99_ms'] for r in rs):.2f} "
        f"loop_lag_p99_ms={max(r['lag_p99_ms'] for r in rs):.2f} "
        f"loop_lag_max_ms={max(r['lag_max_ms'] for r in rs):.2f} "
        f"peak_rss_mb={max(max(r['rss_mb'], r['ai_rss_mb']) for r in rs):.1f} "
        f"kb_per_game={max(r['kb_per_game'] for r in rs):.1f} "
        f"cpu_s={each('cpu_s')} ai_cpu_s={each('ai_cpu_s')} "
        f"db_cpu_s={db if db_cpu is None else f'{db_cpu:.1f}'} "
        f"p99_ms_each={each('p99_ms', '{:.2f}')} "
        f"ai_p50_ms={max(r['ai_p50_ms'] for r in rs):.1f} "
        f"ai_p99_ms={max(r['ai_p99_ms'] for r in rs):.1f} "
        f"reviews={args.reviews} reviews_done={sum(r['reviews_done'] for r in rs)}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m apps.bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--processes", type=int, default=1, help="bot processes (OS processes)")
    parser.add_argument("--games", type=int, default=200, help="concurrent games per process")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument(
        "--ai", choices=list(LEVELS), default=None, help="one seat per game of LEVEL"
    )
    parser.add_argument("--players", type=int, default=3, help="AI seats per game (2–6)")
    parser.add_argument("--rules", default="podkidnoy")
    parser.add_argument(
        "--database-url",
        metavar="URL",
        default=None,
        help="with --backend postgres: a postgresql:// database to write the bench's games "
        "into (default: a throwaway server; an exported DATABASE_URL is not used)",
    )
    parser.add_argument(
        "--reviews", type=int, default=0, help="coach's reviews kept running beside the games"
    )
    parser.add_argument(
        "--review-deals", type=int, default=300, help="the reviews' sampled deals per choice"
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker is not None:
        return _worker_main(args.worker)
    if args.processes < 1 or args.games < 1 or args.seconds <= 0:
        parser.error("--processes and --games must be at least 1, --seconds above 0")
    given = (args.database_url or "").strip()
    if given and (
        args.backend != "postgres" or not given.startswith(("postgresql://", "postgres://"))
    ):
        parser.error("--database-url takes a postgresql:// URL, with --backend postgres")
    if args.backend == "sqlite" and args.processes > 1:
        print(
            "--backend sqlite runs one process (a SQLite file is held by one process): "
            "use --backend postgres for several",
            file=sys.stderr,
        )
        return 2
    with tempfile.TemporaryDirectory(prefix="durak-bench-") as d:
        if args.backend == "sqlite":
            run = _run(args, sqlite_url(os.path.join(d, "bench.sqlite3")), None)
            print(_line(args, run, "embedded"))
            return 0
        if given:  # only a URL given on the command line, never the environment's
            print(_line(args, _run(args, given, None), "unknown"))
            return 0
        from bot.storage.throwaway_pg import PostgresUnavailable, start_throwaway_postgres

        try:
            server = start_throwaway_postgres(Path(d) / "postgres")
        except PostgresUnavailable as exc:
            print(f"cannot start a throwaway PostgreSQL: {exc}", file=sys.stderr)
            return 2
        try:
            run = _run(args, server.url(), _postmaster_pid(Path(d) / "postgres"))
        finally:
            server.stop()
        print(_line(args, run, "unknown"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
