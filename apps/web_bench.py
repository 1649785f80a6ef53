"""Web table benchmark: ``python -m apps.web_bench --games 200 --pages 4 --seconds 30``.

One bot process (this one) runs ``--games`` AI-only games (``--players`` AI seats each, a
server of their own, rematched as they end, AI seats thinking in the service's
:class:`~bot.ai_pool.AIPool`, ``--ai-delay`` seconds per AI move as the bot waits by default)
and the web table on 127.0.0.1.  A second process opens ``--pages`` pages per game (real
WebSocket clients that say hello with a watcher token and read every frame), so the clients'
work is not counted in the bot's figures.  The last line is one ``key=value`` line::

    games=… pages=… seconds=… actions=… frames=… p50_ms=… p95_ms=… p99_ms=… server_p99_ms=…
    loop_lag_p99_ms=… loop_lag_max_ms=… cpu_ms_per_action=… kb_per_page=… first_load_kb=…
    first_load_files=… load_avg=… cores=…

- ``p50_ms``/``p99_ms``: from an action stored (the service publishing its table) to its table
  received by *every* page of that game (the slowest of the game's pages), over every action;
- ``server_p99_ms``: the bot's part of it: from the action stored to its table written to the
  socket of every page of the game (measured in the bot process; what is left of ``p99_ms`` is
  the network and the pages' process);
- ``loop_lag_*``: how late a 10 ms sleep on the bot's event loop wakes, during the run;
- ``cpu_ms_per_action``: the bot process's CPU time during the run per action (storing it,
  the AI's turn bookkeeping, and sending its table to the game's pages; the AI's thinking is
  in its worker): unlike the latencies, it does not depend on how busy the machine is;
- ``kb_per_page``: the bot process's resident memory with every page open (and sent its first
  frames) minus before the pages opened, per page;
- ``first_load_kb``: what a browser downloads to open ``/table`` the first time, gzip-compressed
  as the server sends it: the page itself (in English) and every file of the pages' static
  folder (``--static-dir``) except the Discord SDK, which only the Activity loads
  (``--exclude``);
- ``load_avg``/``cores``: the machine's one-minute load average at the end, and its cores:
  the latencies include the pages' process being scheduled, so a busy machine shows in them.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import aiohttp

from apps.measure import LoopLag, add_table_arguments, percentile, rss_kb
from bot.ai_pool import AIPool
from bot.authority import SystemRule, system
from bot.presenter import NullPresenter
from bot.realm import EVERY_REALM
from bot.seating import LobbyOptions
from bot.service import GameService
from bot.storage import create_storage, sqlite_url
from bot.views import TableView
from web.app import WebConfig, WebServer
from web.http_server import ServerLimits
from web.pages import Pages
from web.rooms import RoomLimits
from web.static_files import STATIC_DIR, StaticFiles
from web.tokens import Signer
from web.wording import catalog

__all__ = ["main"]

HOST_ID = 1
#: The benchmark deals and rematches its tables as an operator (the system).
OPERATOR = system(SystemRule.OPERATOR)
#: Channel (and server) ids of the bench's games start here.
FIRST_CHANNEL = 10_000
#: Files of the static folder a browser outside Discord never loads (the Activity's SDK).
DEFAULT_EXCLUDE = ("vendor/",)


class _Stamps(NullPresenter):
    """Notes when each table was published (registered before the web table's presenter, so
    it runs first), and deals the next game of a series as soon as one ends (in every realm:
    the benchmark's channels are all its own)."""

    realms = EVERY_REALM

    def __init__(self) -> None:
        self.published: dict[tuple[int, int], float] = {}
        self.service: GameService | None = None
        self.running = True

    async def table_changed(self, view: TableView) -> None:
        self.published.setdefault((view.game_id, view.version), time.monotonic())

    async def game_over(self, view: TableView) -> None:
        if self.running and self.service is not None:
            await self.service.rematch(view.channel_id, HOST_ID, OPERATOR)


def table_key(text: str) -> tuple[int, int] | None:
    """``(game, version)`` of a ``table`` frame's text (``None`` for another frame), read from
    its head without parsing the whole frame: the server writes ``{"t":"table","table":
    {"game":…,"version":…`` first."""
    if not text.startswith('{"t":"table"'):
        return None
    head = json.loads(text[: text.index(',"profile"')] + "}}")
    return int(head["table"]["game"]), int(head["table"]["version"])


# ---------------------------------------------------------------------------------- pages
async def read_tables(
    ws: aiohttp.ClientWebSocketResponse,
    token: str,
    received: list[tuple[int, int, float]],
    opened: asyncio.Event,
) -> None:
    """Say hello with ``token``, then note ``(game, version, when)`` of every table frame
    (``opened`` is set at the first) until the socket closes."""
    await ws.send_str(json.dumps({"t": "hello", "token": token, "lang": "en"}))
    async for msg in ws:
        if msg.type is not aiohttp.WSMsgType.TEXT:
            break
        now = time.monotonic()
        key = table_key(msg.data)
        if key is not None:
            received.append((key[0], key[1], now))
            opened.set()


async def pages_client(
    pages: list[tuple[str, str]], origin: str, open_timeout: float, *, reopen: bool = False
) -> None:
    """Client mode: open every page (``(ws url, token)``; with ``reopen``, again whenever it
    closes), say ``open`` on stdout once each has its first table, read until stdin says
    stop, then print what each page received (JSON)."""
    received: list[list[tuple[int, int, float]]] = [[] for _ in pages]
    opened = [asyncio.Event() for _ in pages]
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        tasks = []
        for i, (url, token) in enumerate(pages):
            page = _page(http, url, origin, token, received[i], opened[i], reopen)
            tasks.append(asyncio.ensure_future(page))
            if i % 50 == 49:
                await asyncio.sleep(0.05)  # do not open 800 sockets in one burst
        await asyncio.wait_for(asyncio.gather(*(e.wait() for e in opened)), open_timeout)
        print("open", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps(received), flush=True)


async def _page(
    http: aiohttp.ClientSession,
    url: str,
    origin: str,
    token: str,
    received: list[tuple[int, int, float]],
    opened: asyncio.Event,
    reopen: bool,
) -> None:
    """One page; with ``reopen`` it is opened again half a second after it closes or fails
    to open (a hello refused by a busy database, at the start)."""
    while True:
        try:
            # compress=15: offer permessage-deflate, as browsers do
            async with http.ws_connect(
                url, headers={"Origin": origin}, max_msg_size=0, compress=15
            ) as ws:
                await read_tables(ws, token, received, opened)
        except (aiohttp.ClientError, OSError):
            if not reopen:
                raise
        if not reopen:
            return
        await asyncio.sleep(0.5)


async def _pages_main(cfg: dict[str, Any]) -> None:
    """The pages' process (see :class:`PagesProcess`)."""
    pages = [(url, token) for url, token in cfg["pages"]]
    await pages_client(pages, cfg["origin"], cfg["open_timeout"], reopen=cfg["reopen"])


def arrivals(
    received: list[list[list[float]]],
) -> tuple[dict[tuple[int, int], float], dict[tuple[int, int], int]]:
    """Of each table ``(game, version)`` the pages received (:meth:`PagesProcess.stop`): when
    the last page got it, and how many pages did."""
    last: dict[tuple[int, int], float] = {}
    got: dict[tuple[int, int], int] = defaultdict(int)
    for page in received:
        for game, version, when in page:
            key = (int(game), int(version))
            got[key] += 1
            last[key] = max(last.get(key, 0.0), when)
    return last, got


class PagesProcess:
    """The pages in a process of their own (``python -m apps.web_bench --pages-process``,
    running :func:`pages_client`), so that their work is not counted in the measured
    processes."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None

    async def open(
        self, pages: list[tuple[str, str]], origin: str, open_timeout: float, *, reopen: bool
    ) -> None:
        """Start it with ``pages`` (``(ws url, token)`` each) and wait until every page has
        its first table."""
        self._proc = proc = subprocess.Popen(
            [sys.executable, "-m", "apps.web_bench", "--pages-process"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdin is not None and proc.stdout is not None
        cfg = {"pages": pages, "origin": origin, "open_timeout": open_timeout, "reopen": reopen}
        proc.stdin.write(json.dumps(cfg) + "\n")
        proc.stdin.flush()
        line = await asyncio.get_running_loop().run_in_executor(None, proc.stdout.readline)
        if line.strip() != "open":
            raise RuntimeError(f"the pages did not open: {line!r}")

    async def stop(self) -> list[list[list[float]]]:
        """Close the pages and wait for the process to end: what each page received
        (``[game, version, when]`` per table frame)."""
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("stop\n")
        proc.stdin.flush()
        loop = asyncio.get_running_loop()
        raw = await loop.run_in_executor(None, proc.stdout.read)
        await loop.run_in_executor(None, proc.wait)
        received: list[list[list[float]]] = json.loads(raw)
        return received

    def kill(self) -> None:
        """End the process at once if it still runs (after a failure)."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()


# ---------------------------------------------------------------------------------- bot
async def run(args: argparse.Namespace) -> dict[str, Any]:
    """The bot side: games, the web table, the page process, the measurements."""
    tmp = tempfile.TemporaryDirectory(prefix="durak-web-bench-")
    stamps = _Stamps()
    pool = AIPool(args.ai_workers)
    service = GameService(
        create_storage(sqlite_url(os.path.join(tmp.name, "bench.sqlite3"))),
        presenters=[stamps],
        ai_delay=args.ai_delay,
        ai=pool,
        turn_timeout=600,
    )
    stamps.service = service
    await service.restore()
    signer = Signer(os.urandom(32))
    port = args.port
    origin = f"http://127.0.0.1:{port}"
    server = WebServer(
        service,
        signer,
        WebConfig(
            public_url=origin,
            host="127.0.0.1",
            port=port,
            access_log=False,
            # every simulated page connects from 127.0.0.1, where real pages come from many
            # addresses: the per-address cap would refuse all but the first few
            room_limits=RoomLimits(sockets_per_address=args.games * args.pages + 1),
            server_limits=ServerLimits(connections_per_address=args.games * args.pages + 16),
        ),
    )
    lag = LoopLag()
    written: dict[tuple[int, int], float] = {}

    def sent(text: str) -> None:
        key = table_key(text)
        if key is not None:
            written[key] = time.monotonic()

    server.parts.sockets.on_sent = sent
    pages = PagesProcess()
    try:
        await pool.start(wait=True)
        await server.start()
        channels = range(FIRST_CHANNEL, FIRST_CHANNEL + args.games)
        options = LobbyOptions(rules=args.rules, seats=args.players)
        for ch in channels:
            await service.open_lobby(ch, ch, HOST_ID, "host", options, seat_host=False)
            for _ in range(args.players):
                await service.add_ai(ch, HOST_ID, args.level)
            await service.start(ch, HOST_ID, OPERATOR)
        tokens = [signer.watcher(ch) for ch in channels for _ in range(args.pages)]
        await asyncio.sleep(1.0)
        gc.collect()
        before_kb = rss_kb()
        ws = f"{origin}/ws"
        await pages.open([(ws, token) for token in tokens], origin, 120, reopen=False)
        gc.collect()
        open_kb = rss_kb()
        lag.start()
        t0 = time.monotonic()
        cpu0 = time.process_time()
        await asyncio.sleep(args.seconds)
        elapsed = time.monotonic() - t0
        cpu = time.process_time() - cpu0
        await lag.stop()
        stamps.running = False
        received = await pages.stop()
    finally:
        pages.kill()
        await server.stop()
        await service.close()
        await pool.close()
        tmp.cleanup()
    # per action published during the run: when its last page got it
    last, got = arrivals(received)
    delays = sorted(
        last[key] - at
        for key, at in stamps.published.items()
        if t0 <= at <= t0 + elapsed - 1.0 and got.get(key) == args.pages
    )
    server_delays = sorted(
        written[key] - at
        for key, at in stamps.published.items()
        if t0 <= at <= t0 + elapsed - 1.0 and key in written
    )
    sizes = StaticFiles(args.static_dir).compressed_sizes(exclude=tuple(args.exclude))
    html = await Pages().page("table", catalog("en"))
    if html is not None:
        sizes["/table"] = len(html.gz if html.gz is not None else html.body)
    return {
        "games": args.games,
        "pages": args.games * args.pages,
        "seconds": round(elapsed, 1),
        "actions": len(delays),
        "frames": sum(len(p) for p in received),
        "p50_ms": round(percentile(delays, 0.5) * 1000, 1),
        "p95_ms": round(percentile(delays, 0.95) * 1000, 1),
        "p99_ms": round(percentile(delays, 0.99) * 1000, 1),
        "server_p99_ms": round(percentile(server_delays, 0.99) * 1000, 1),
        "loop_lag_p99_ms": round(lag.p99_ms(), 1),
        "loop_lag_max_ms": round(lag.max_ms(), 1),
        "cpu_ms_per_action": round(cpu * 1000 / max(1, len(stamps.published)), 2),
        "kb_per_page": round((open_kb - before_kb) / max(1, args.games * args.pages), 1),
        "first_load_kb": round(sum(sizes.values()) / 1024, 1),
        "first_load_files": len(sizes),
        "load_avg": round(os.getloadavg()[0], 1),
        "cores": os.cpu_count(),
    }


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m apps.web_bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_table_arguments(parser)
    parser.add_argument("--ai-workers", type=int, default=None, help="AI worker processes")
    parser.add_argument("--port", type=int, default=None, help="web port (default: a free one)")
    parser.add_argument("--static-dir", type=Path, default=STATIC_DIR, help="the page's files")
    parser.add_argument(
        "--exclude",
        action="append",
        default=None,
        help="static files a browser does not load for /table (prefix; default: vendor/)",
    )
    parser.add_argument("--pages-process", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.pages_process:
        asyncio.run(_pages_main(json.loads(sys.stdin.readline())))
        return 0
    if args.port is None:
        args.port = _free_port()
    if args.exclude is None:
        args.exclude = list(DEFAULT_EXCLUDE)
    result = asyncio.run(run(args))
    print(" ".join(f"{k}={v}" for k, v in result.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
