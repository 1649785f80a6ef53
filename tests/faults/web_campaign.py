"""The web fault campaign: ``python -m tests.faults.web_campaign --processes 4 --kills 50``.

``--processes`` web processes (:mod:`apps.web_worker`) share one PostgreSQL database
(``--database-url``, an empty one, or a fresh database on a throwaway server) behind a
round-robin balancer with no sticky sessions (:mod:`apps.balancer`).  ``--games`` games (one
human seat, the rest AI, rematched as they end) are dealt round-robin over the processes.  Each
game's human is a page (a WebSocket client through the balancer) that plays its first legal
action whenever it is to act, logs each action the server acknowledged (``result`` ``ok``) to
an ack log (:mod:`tests.faults.acklog`), and connects again, through the balancer, whenever
its socket closes.  Every ``--min-delay`` to ``--max-delay`` seconds a random web process
(of those serving: one always does) is killed with SIGKILL and started again
``--restart-delay`` seconds later, ``--kills`` times; its pages move to the others, its games'
timers and AI turns are taken over.

After the last kill and ``--settle`` seconds, the processes stop and the database is checked
against the ack log (:mod:`tests.faults.checker`: 0 acknowledged actions lost, 0 duplicated, no
game or series corrupted).  A game is *stuck* when its page saw no new table for
:data:`STUCK_AFTER` seconds while the game was not over.  Prints the figures; exit status 1 if
anything was lost, duplicated, corrupted or stuck, 2 if the campaign could not run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from apps.balancer import Balancer
from apps.web_scale_bench import Worker, free_port, fresh_database
from apps.web_worker import HUMAN_ID
from web.tokens import Signer

from .acklog import AckLog
from .checker import check_database

__all__ = ["main", "web_campaign"]

#: Seconds without a new table (the game not over) after which a game is stuck.
STUCK_AFTER = 30.0
#: Frames a page sends per second at most (the server allows 5).
PACE = 4.0
#: Channel (and server) ids of the campaign's games start here.
FIRST_CHANNEL = 20_000


@dataclass
class Player:
    """One game's human page: plays, logs what was acknowledged, connects again."""

    channel: int
    token: str
    url: str
    origin: str
    log: AckLog
    last_progress: float = field(default_factory=time.monotonic)
    worst_gap: float = 0.0
    stuck: bool = False
    #: When the game was first found stuck (``time.monotonic()``).
    stuck_at: float | None = None
    over: bool = False
    connects: int = 0
    acked: int = 0
    #: What the page saw last: ``(game, version, seat to act)`` and ``(game, version, seat,
    #: legal actions)`` of its hand (said of a stuck game).
    table_seen: tuple[Any, ...] = ()
    hand_seen: tuple[Any, ...] = ()
    _seen: tuple[int, int] | None = None

    def progressed(self, key: tuple[int, int], over: bool) -> None:
        now = time.monotonic()
        if self._seen is None or key > self._seen:
            self.worst_gap = max(self.worst_gap, now - self.last_progress)
            self._seen, self.last_progress = key, now
        self.over = over

    def check_stuck(self, now: float) -> None:
        if not self.over and now - self.last_progress > STUCK_AFTER:
            self.stuck = True
            if self.stuck_at is None:
                self.stuck_at = now

    async def run(self, http: aiohttp.ClientSession, stop: asyncio.Event) -> None:
        acted: set[tuple[int, int]] = set()
        while not stop.is_set():
            self.connects += 1
            with contextlib.suppress(aiohttp.ClientError, OSError, TimeoutError):
                async with http.ws_connect(self.url, headers={"Origin": self.origin}) as ws:
                    await ws.send_str(json.dumps({"t": "hello", "token": self.token}))
                    await self._play(ws, acted, stop)
            await asyncio.sleep(random.uniform(0.1, 0.4))  # as a page waits to connect again

    async def _play(
        self, ws: aiohttp.ClientWebSocketResponse, acted: set[tuple[int, int]], stop: asyncio.Event
    ) -> None:
        """Play on one socket until it closes.  A position is acted on once, unless the act
        was refused (a busy database, a stale copy: the page shows the table again and the
        player presses again) or its answer never came (the socket closed first)."""
        pending: dict[int, tuple[tuple[int, int], str]] = {}
        try:
            await self._frames(ws, acted, pending, stop)
        finally:
            for key, _ in pending.values():
                acted.discard(key)

    async def _frames(
        self,
        ws: aiohttp.ClientWebSocketResponse,
        acted: set[tuple[int, int]],
        pending: dict[int, tuple[tuple[int, int], str]],
        stop: asyncio.Event,
    ) -> None:
        table: dict[str, Any] | None = None
        hand: dict[str, Any] | None = None
        seq = 0
        last_send = 0.0
        async for msg in ws:
            if stop.is_set() or msg.type is not aiohttp.WSMsgType.TEXT:
                return
            frame = json.loads(msg.data)
            kind = frame.get("t")
            if kind == "table":
                table = frame["table"]
                self.table_seen = (table["game"], table["version"], table["to_act"])
                self.progressed((table["game"], table["version"]), table["over_text"] is not None)
            elif kind == "hand":
                hand = frame["hand"]
                self.hand_seen = (hand["game"], hand["version"], hand["seat"], len(hand["legal"]))
            elif kind == "result":
                done = pending.pop(frame["seq"], None)
                if done is not None and frame.get("ok"):
                    (game, version), action = done
                    # the action is the (version + 1)-th of the game's log
                    self.log.write(k="act", ch=self.channel, game=game, v=version + 1, a=action)
                    self.acked += 1
                elif done is not None:
                    acted.discard(done[0])
            if table is None or hand is None or table["over_text"] is not None:
                continue
            key = (table["game"], table["version"])
            mine = table["to_act"] == hand["seat"] and hand["version"] == table["version"]
            if not mine or not hand["legal"] or key in acted or hand["game"] != table["game"]:
                continue
            acted.add(key)
            wait = last_send + 1 / PACE - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            last_send = time.monotonic()
            seq += 1
            text = hand["legal"][0]["text"]
            pending[seq] = (key, f"{hand['seat']} {text}")
            await ws.send_str(
                json.dumps(
                    {"t": "act", "seq": seq, "action": text, "game": key[0], "version": key[1]}
                )
            )


@dataclass
class Figures:
    processes: int
    games: int
    kills: int
    seconds: float
    acked: int
    lost: int
    duplicated: int
    corrupted: int
    stuck: int
    worst_gap_s: float
    connects: int
    finished_games: int
    problems: list[str]

    @property
    def clean(self) -> bool:
        return not (self.lost or self.duplicated or self.corrupted or self.stuck or self.problems)

    def lines(self) -> list[str]:
        out = [
            f"web processes {self.processes}, games {self.games}, kills (SIGKILL) {self.kills}, "
            f"{self.seconds:.0f} s",
            f"acknowledged actions {self.acked}: lost {self.lost}, duplicated {self.duplicated}",
            f"games finished {self.finished_games}, corrupted {self.corrupted}, "
            f"stuck {self.stuck} (longest wait for a move {self.worst_gap_s:.1f} s)",
            f"page connections {self.connects} (first ones and reconnections)",
        ]
        return out + self.problems[:20]


async def web_campaign(args: argparse.Namespace, workdir: Path) -> Figures:
    """Run the campaign (see the module) and check the database."""
    async with fresh_database(workdir, args.database_url) as url:
        return await _campaign(args, url, workdir)


async def _campaign(args: argparse.Namespace, url: str, workdir: Path) -> Figures:
    rng = random.Random(args.seed)
    secret = os.urandom(32)
    balancer = Balancer(["http://127.0.0.1:9"])
    await balancer.start()
    origin = f"http://127.0.0.1:{balancer.port}"
    workers = [
        Worker(
            {
                "url": url,
                "port": free_port(),
                "origin": origin,
                "secret": secret.hex(),
                "ai_delay": args.ai_delay,
                "ai_workers": 1,
                "max_pages": args.games * 2,
            },
            workdir / f"web-{i}.stderr",
        )
        for i in range(args.processes)
    ]
    balancer.backends = [w.url for w in workers]
    balancer.sent = [0] * len(workers)
    log = AckLog(workdir / "ack-web.jsonl")
    stop = asyncio.Event()
    started = time.monotonic()
    kills = 0
    players: list[Player] = []
    tasks: list[asyncio.Task[None]] = []
    http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    try:
        for w in workers:
            await w.start()
        channels = [FIRST_CHANNEL + k for k in range(args.games)]
        opened = await asyncio.gather(
            *(
                w.ask(
                    {
                        "cmd": "open",
                        "channels": channels[i :: len(workers)],
                        "players": args.players,
                        "humans": 1,
                        "level": args.level,
                    }
                )
                for i, w in enumerate(workers)
            )
        )
        signer = Signer(secret)
        ws_url = origin.replace("http", "ws", 1) + "/ws"
        for answer in opened:
            for ch, series in answer["series"].items():
                token = signer.player(int(ch), HUMAN_ID, series, ttl=24 * 3600)
                players.append(Player(int(ch), token, ws_url, origin, log))
        tasks = [asyncio.create_task(p.run(http, stop)) for p in players]

        async def watch() -> None:
            while not stop.is_set():
                await asyncio.sleep(1.0)
                now = time.monotonic()
                for p in players:
                    p.check_stuck(now)

        tasks.append(asyncio.create_task(watch()))
        restarting: set[Worker] = set()

        async def restart(victim: Worker) -> None:
            await asyncio.sleep(args.restart_delay)
            try:
                while True:
                    try:
                        await victim.start()
                        return
                    except Exception as exc:  # it could not start (a busy database): again
                        victim.kill()
                        print(f"restart on {victim.port} failed: {exc}", file=sys.stderr)
            finally:
                restarting.discard(victim)

        while kills < args.kills:
            await asyncio.sleep(rng.uniform(args.min_delay, args.max_delay))
            serving = [w for w in workers if w not in restarting]
            if len(serving) < 2:  # one process always serves: wait for a restart
                continue
            victim = rng.choice(serving)
            victim.kill()
            kills += 1
            at = time.monotonic() - started
            print(f"kill {kills} at {at:.0f} s: the process on {victim.port}", file=sys.stderr)
            restarting.add(victim)
            tasks.append(asyncio.create_task(restart(victim)))
        while restarting:
            await asyncio.sleep(0.5)
        await asyncio.sleep(args.settle)
        for p in players:
            p.check_stuck(time.monotonic())
    finally:
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await http.close()
        await balancer.stop()
        await asyncio.gather(*(w.stop() for w in workers))
        log.close()
    report = await check_database(url, [str(workdir / "ack-web.jsonl")])
    return Figures(
        processes=args.processes,
        games=args.games,
        kills=kills,
        seconds=time.monotonic() - started,
        acked=report.acked_actions,
        lost=len(report.lost_actions),
        duplicated=len(report.duplicated_actions),
        corrupted=len(report.corrupted_games) + len(report.series_mismatches),
        stuck=sum(p.stuck for p in players),
        worst_gap_s=max((p.worst_gap for p in players), default=0.0),
        connects=sum(p.connects for p in players),
        finished_games=report.finished_games,
        problems=report.problems()
        + [
            f"stuck: channel {p.channel} at {(p.stuck_at or started) - started:.0f} s, table "
            f"(game, version, to act) {p.table_seen} hand (game, version, seat, legal) "
            f"{p.hand_seen}"
            for p in players
            if p.stuck
        ],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.faults.web_campaign",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--games", type=int, default=40, help="games, one human seat each")
    parser.add_argument("--players", type=int, default=3, help="seats per game (one human)")
    parser.add_argument("--level", default="beginner", help="AI level of the AI seats")
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--min-delay", type=float, default=1.0, help="seconds between kills")
    parser.add_argument("--max-delay", type=float, default=3.0)
    parser.add_argument("--restart-delay", type=float, default=0.5)
    parser.add_argument("--settle", type=float, default=10.0, help="seconds after the last kill")
    parser.add_argument("--ai-delay", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--database-url", default=None, help="an empty PostgreSQL database")
    parser.add_argument("--workdir", type=Path, default=None, help="keeps stderr and ack logs")
    args = parser.parse_args(argv)
    if args.processes < 2:
        parser.error("--processes must be 2 or more (one is killed at a time)")
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
        figures = asyncio.run(web_campaign(args, args.workdir))
    else:
        with tempfile.TemporaryDirectory(prefix="durak-web-faults-") as tmp:
            figures = asyncio.run(web_campaign(args, Path(tmp)))
    print("\n".join(figures.lines()))
    return 0 if figures.clean else 1


if __name__ == "__main__":
    sys.exit(main())
