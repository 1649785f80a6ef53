"""Several web processes on one PostgreSQL database: ``python -m apps.web_scale_bench
--processes 2 --games 200 --pages 4 --seconds 30``.

``--processes`` web processes (:mod:`apps.web_worker`, each its own service, connections,
listening connection and web server) share a database: ``--database-url`` (an empty one), or a
fresh database on a throwaway PostgreSQL server started for the run.  The games (AI-only,
``--players`` seats, rematched as they end) are spread round-robin over the processes: the
process that deals a game owns it (runs its AI turns: every action of it is written there).
Its ``--pages`` pages (watchers: real WebSocket clients in a process of their own, so their
work is not counted) are spread round-robin over the *other* processes where there are any, so
every action reaches its pages through PostgreSQL's notifications.  The last line is one
``key=value`` line::

    processes=… games=… pages=… seconds=… actions=… actions_per_s=… p50_ms=… p99_ms=…
    loop_lag_p99_ms=… (the worst process) loop_lag_p99_each=… cpu_ms_per_action=…
    load_avg=… cores=…

- ``p50_ms``/``p99_ms``: from an action stored (its table published in the process that wrote
  it) to its table received by every page of its game, over every action of the run;
- ``actions_per_s``: actions stored per second over every game (with ``--ai-delay 0`` the
  AI plays as fast as the processes and the database allow: the throughput);
- ``loop_lag_*``: how late a 10 ms sleep wakes on each process's event loop;
- ``cpu_ms_per_action``: every web process's CPU time per action (not the AI workers', the
  database's or the pages').
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import IO, Any

from apps.measure import add_table_arguments, percentile
from apps.web_bench import PagesProcess, arrivals
from bot.storage.throwaway_pg import throwaway_database
from web.tokens import Signer

__all__ = ["Worker", "fresh_database", "main", "spread"]

#: Channel (and server) ids of the bench's games start here.
FIRST_CHANNEL = 10_000
#: Seconds a web process may take to restore its service and listen.
READY_TIMEOUT = 120.0


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def spread(owner: int, page: int, processes: int) -> int:
    """The process page ``page`` of a game owned by ``owner`` opens on: round-robin over
    the other processes (the owner itself when it is the only one)."""
    if processes == 1:
        return 0
    return (owner + 1 + page % (processes - 1)) % processes


class Worker:
    """One :mod:`apps.web_worker` process: started, asked, stopped or killed."""

    def __init__(self, config: dict[str, Any], stderr: Path) -> None:
        self.config = config
        self.port = int(config["port"])
        self.stderr_path = stderr
        self.proc: subprocess.Popen[str] | None = None
        self._lock = asyncio.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        """Start the process and wait until it serves."""
        with open(self.stderr_path, "a") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "apps.web_worker", json.dumps(self.config)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
            )
        ready = await asyncio.wait_for(self._read(), READY_TIMEOUT)
        if "ready" not in ready:
            raise RuntimeError(f"web process on {self.port} did not start: {ready}")

    async def _read(self) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdout is not None
        out: IO[str] = self.proc.stdout
        line = await asyncio.get_running_loop().run_in_executor(None, out.readline)
        if not line:
            tail = self.stderr_path.read_text()[-2000:]
            raise RuntimeError(f"web process on {self.port} exited: {tail}")
        data: dict[str, Any] = json.loads(line)
        return data

    async def ask(self, cmd: dict[str, Any], timeout: float = 600.0) -> dict[str, Any]:
        """Send one command and read its answer."""
        async with self._lock:
            assert self.proc is not None and self.proc.stdin is not None
            self.proc.stdin.write(json.dumps(cmd) + "\n")
            self.proc.stdin.flush()
            return await asyncio.wait_for(self._read(), timeout)

    def kill(self) -> None:
        """SIGKILL, no goodbye."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    async def stop(self) -> None:
        """Close its service (gracefully) and wait for it to exit."""
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(Exception):
            await self.ask({"cmd": "stop"}, 60)
        try:
            await asyncio.to_thread(self.proc.wait, 30)
        except subprocess.TimeoutExpired:
            self.kill()


@contextlib.asynccontextmanager
async def fresh_database(workdir: Path, url: str | None) -> AsyncIterator[str]:
    """``url`` itself, or a fresh database on a throwaway PostgreSQL server started under
    ``workdir`` (stopped afterwards)."""
    if url is not None:
        yield url
        return
    async with throwaway_database(workdir / "pg", "durak_scale") as fresh:
        yield fresh


# ---------------------------------------------------------------------------------- run
def _ws(worker: Worker) -> str:
    return worker.url.replace("http", "ws", 1) + "/ws"


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """Start the processes on a fresh database, open the games and pages, measure."""
    with tempfile.TemporaryDirectory(prefix="durak-scale-bench-") as tmp:
        async with fresh_database(Path(tmp), args.database_url) as url:
            return await _measure(args, url, Path(tmp))


async def _measure(args: argparse.Namespace, url: str, workdir: Path) -> dict[str, Any]:
    n = args.processes
    secret = os.urandom(32)
    ports = [free_port() for _ in range(n)]
    origin = f"http://127.0.0.1:{ports[0]}"
    workers = [
        Worker(
            {
                "url": url,
                "port": port,
                "origin": origin,
                "secret": secret.hex(),
                "ai_delay": args.ai_delay,
                "ai_workers": args.ai_workers,
                "max_pages": args.games * args.pages,
                "profile": f"{args.profile}.{i}" if args.profile else None,
            },
            workdir / f"web-{i}.stderr",
        )
        for i, port in enumerate(ports)
    ]
    pages = PagesProcess()
    try:
        for w in workers:  # one at a time: each migrates or waits for the migration
            await w.start()
        channels = [FIRST_CHANNEL + k for k in range(args.games)]
        owner = {ch: k % n for k, ch in enumerate(channels)}
        await asyncio.gather(
            *(
                w.ask(
                    {
                        "cmd": "open",
                        "channels": [ch for ch in channels if owner[ch] == i],
                        "players": args.players,
                        "level": args.level,
                        "rules": args.rules,
                    }
                )
                for i, w in enumerate(workers)
            )
        )
        signer = Signer(secret)
        page_list = [
            (_ws(workers[spread(owner[ch], j, n)]), signer.watcher(ch))
            for ch in channels
            for j in range(args.pages)
        ]
        # a hello refused (a busy database, at the start): the page opens again
        await pages.open(page_list, origin, 300, reopen=True)
        await asyncio.sleep(1.0)
        await asyncio.gather(*(w.ask({"cmd": "measure"}) for w in workers))
        t0 = time.monotonic()
        await asyncio.sleep(args.seconds)
        reports = await asyncio.gather(*(w.ask({"cmd": "report"}) for w in workers))
        elapsed = time.monotonic() - t0
        received = await pages.stop()
    finally:
        pages.kill()
        await asyncio.gather(*(w.stop() for w in workers))
    # an action's time stored: the first process that published its table (its writer)
    published: dict[tuple[int, int], float] = {}
    for report in reports:
        for game, version, at in report["published"]:
            key = (int(game), int(version))
            published[key] = min(published.get(key, at), at)
    last, got = arrivals(received)
    window = [k for k, at in published.items() if t0 <= at <= t0 + elapsed - 1.0]
    delays = sorted(last[k] - published[k] for k in window if got.get(k) == args.pages)
    lags = [float(r["lag_p99_ms"]) for r in reports]
    cpu = sum(float(r["cpu_s"]) for r in reports)
    return {
        "processes": n,
        "games": args.games,
        "pages": args.games * args.pages,
        "seconds": round(elapsed, 1),
        "actions": len(published),
        "actions_per_s": round(len(published) / elapsed, 1),
        "measured": len(delays),
        "missed": len(window) - len(delays),
        "p50_ms": round(percentile(delays, 0.5) * 1000, 1),
        "p95_ms": round(percentile(delays, 0.95) * 1000, 1),
        "p99_ms": round(percentile(delays, 0.99) * 1000, 1),
        "loop_lag_p99_ms": max(lags),
        "loop_lag_p99_each": ",".join(str(x) for x in lags),
        "loop_lag_max_ms": max(float(r["lag_max_ms"]) for r in reports),
        "cpu_ms_per_action": round(cpu * 1000 / max(1, len(published)), 2),
        "load_avg": round(os.getloadavg()[0], 1),
        "cores": os.cpu_count(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m apps.web_scale_bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--processes", type=int, default=2, help="web processes (default 2)")
    add_table_arguments(parser)
    parser.add_argument("--ai-workers", type=int, default=1, help="AI processes per web process")
    parser.add_argument("--database-url", default=None, help="an empty PostgreSQL database")
    parser.add_argument("--profile", default=None, help="cProfile each web process to PATH.N")
    args = parser.parse_args(argv)
    if args.processes < 1:
        parser.error("--processes must be 1 or more")
    result = asyncio.run(run(args))
    print(" ".join(f"{k}={v}" for k, v in result.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
