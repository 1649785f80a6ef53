"""One web process of a several-process benchmark or fault campaign on one PostgreSQL database:
``python -m apps.web_worker`` (started by :mod:`apps.web_scale_bench` and
``tests.faults.web_campaign``, not by hand).

It runs a game service on ``url`` (its own connections, process number and listening
connection, as a ``durak-bot web`` process has) and the web server on ``port``, then answers
one JSON command per line on stdin with one JSON line on stdout:

- ``{"cmd": "open", "channels": [...], "players": 3, "humans": 0|1, "level": "..."}``: open a
  lobby in each channel (its own server), seat a human host (``humans: 1``, user
  :data:`HUMAN_ID`) or none, AI seats up to ``players``, and deal; answers each channel's
  series (``{"series": {channel: series_id}}``).  This process owns those games (it started
  them): it runs their AI turns and rematches them as they end;
- ``{"cmd": "measure"}``: from now on, note when each table is published here and how late
  the event loop wakes; ``{"cmd": "report"}`` answers what was seen since (``published``:
  ``[game, version, monotonic time]``, ``lag_p99_ms``, ``lag_max_ms``, ``cpu_s``, ``seconds``);
- ``{"cmd": "stop"}``: close the server and the service (its channels are given up), answer
  ``{"stopped": true}`` and exit.

The first line it writes is ``{"ready": port}`` once the server listens.  Timestamps are
``time.monotonic()``, one clock for every process of the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

from apps.measure import LoopLag
from bot.ai_pool import AIPool
from bot.authority import SystemRule, system
from bot.errors import ServiceError, StorageBusy
from bot.presenter import NullPresenter
from bot.realm import EVERY_REALM
from bot.seating import LobbyOptions
from bot.service import GameService
from bot.storage import create_storage
from bot.views import TableView
from web.app import WebConfig, WebServer
from web.http_server import ServerLimits
from web.rooms import RoomLimits
from web.tokens import Signer

__all__ = ["HUMAN_ID", "main"]

#: The human host of a channel with a human seat (each channel is a server of its own).
HUMAN_ID = 1
#: Tables are dealt and rematched as an operator (the system).
OPERATOR = system(SystemRule.OPERATOR)


class _Stamps(NullPresenter):
    """Notes when each table is first published here, and deals the next game of a series
    this process owns as soon as one ends."""

    realms = EVERY_REALM

    def __init__(self) -> None:
        self.published: dict[tuple[int, int], float] = {}
        self.service: GameService | None = None

    async def table_changed(self, view: TableView) -> None:
        self.published.setdefault((view.game_id, view.version), time.monotonic())

    async def game_over(self, view: TableView) -> None:
        svc = self.service
        for _ in range(10):  # a busy database refuses it: again, a second later
            if svc is None or not svc.owns(view.channel_id) or svc.closed:
                return
            try:
                await svc.rematch(view.channel_id, HUMAN_ID, OPERATOR)
                return
            except ServiceError as exc:  # another process dealt it, or the database is busy
                print(f"rematch of {view.channel_id}: {exc}", file=sys.stderr)
                if not isinstance(exc, StorageBusy):
                    return
                await asyncio.sleep(1.0)


async def _serve(cfg: dict[str, Any]) -> None:
    stamps = _Stamps()
    pool = AIPool(cfg.get("ai_workers", 1))
    service = GameService(
        create_storage(cfg["url"]),
        presenters=[stamps],
        ai_delay=cfg.get("ai_delay", 1.0),
        ai=pool,
        turn_timeout=600,
    )
    stamps.service = service
    pages = int(cfg.get("max_pages", 2000))
    server = WebServer(
        service,
        Signer(bytes.fromhex(cfg["secret"])),
        WebConfig(
            public_url=cfg["origin"],
            host="127.0.0.1",
            port=int(cfg["port"]),
            access_log=False,
            # every simulated page connects from 127.0.0.1
            room_limits=RoomLimits(sockets_per_address=pages + 1),
            server_limits=ServerLimits(connections_per_address=pages + 16),
        ),
    )
    lag = LoopLag()
    loop = asyncio.get_running_loop()
    await pool.start(wait=True)
    await service.restore()
    await server.start()
    _say({"ready": server.port})
    t0 = cpu0 = 0.0
    try:
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line:
                return
            cmd = json.loads(line)
            if cmd["cmd"] == "open":
                _say({"series": await _open(service, cmd)})
            elif cmd["cmd"] == "measure":
                stamps.published.clear()
                lag.start()
                t0, cpu0 = time.monotonic(), time.process_time()
                _say({"measuring": True})
            elif cmd["cmd"] == "report":
                await lag.stop()
                _say(
                    {
                        "published": [[g, v, t] for (g, v), t in stamps.published.items()],
                        "lag_p99_ms": round(lag.p99_ms(), 1),
                        "lag_max_ms": round(lag.max_ms(), 1),
                        "cpu_s": time.process_time() - cpu0,
                        "seconds": time.monotonic() - t0,
                    }
                )
            elif cmd["cmd"] == "stop":
                return
    finally:
        await server.stop()
        await service.close()
        await pool.close()
        _say({"stopped": True})


async def _open(service: GameService, cmd: dict[str, Any]) -> dict[str, int]:
    options = LobbyOptions(rules=cmd.get("rules", "podkidnoy"), seats=int(cmd["players"]))
    humans = int(cmd.get("humans", 0))
    series: dict[str, int] = {}
    for ch in cmd["channels"]:
        await service.open_lobby(ch, ch, HUMAN_ID, "host", options, seat_host=humans > 0)
        for _ in range(int(cmd["players"]) - humans):
            await service.add_ai(ch, HUMAN_ID, cmd["level"], authority=OPERATOR)
        table = await service.start(ch, HUMAN_ID, OPERATOR)
        series[str(ch)] = table.series_id
    return series


def _say(data: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(data) + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m apps.web_worker", description=__doc__)
    parser.add_argument("config", help="JSON: url, port, origin, secret (hex), ai_delay, …")
    args = parser.parse_args(argv)
    config = json.loads(args.config)
    profile = config.get("profile")
    if profile:  # where to write the process's cProfile statistics (a bench's --profile)
        import cProfile

        with cProfile.Profile() as prof:
            asyncio.run(_serve(config))
        prof.dump_stats(profile)
        return 0
    asyncio.run(_serve(config))
    return 0


if __name__ == "__main__":
    sys.exit(main())
