"""Rooms over several processes on one PostgreSQL database (issue 31): a room created through
the balancer on one process, joined on another, played to its end by two guests whose pages
are on different processes and an AI seat; the notification path when a process's listening
connection is dropped.

Each "process" is a game service with its own storage (its own connections, its own process
number and listening connection) and its own web server, in this test's event loop: what they
share is the database, as separate processes do.  Their resync runs never (``resync_interval``
0), so every change a page sees from another process came through PostgreSQL's notifications
(without them, these tests time out).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import asyncpg
import pytest

from apps.balancer import Balancer
from bot.ai_pool import ThreadAI
from bot.service import GameService
from bot.storage import create_storage
from web.app import WebConfig, WebServer
from web.http_server import ServerLimits
from web.rooms import RoomLimits
from web.tokens import Signer

from .conftest import SECRET, Page

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")

#: Seconds a page waits for a frame another process caused (a notification takes ms).
WAIT = 10.0
#: Actions a page sends per second at most (a page may send 5 frames a second).
PACE = 4.0


@dataclass(eq=False)
class Process:
    """One web process: its service and server on 127.0.0.1."""

    service: GameService
    server: WebServer

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"


@dataclass(eq=False)
class Cluster:
    """Web processes on one database, a balancer in front, and an HTTP client."""

    url: str
    processes: list[Process]
    balancer: Balancer
    http: aiohttp.ClientSession
    ai: ThreadAI
    pages: list[Sock] = field(default_factory=list)
    #: The processes' resync interval (0: notifications only).
    resync: float = 0

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.balancer.port}"

    async def start_process(self) -> Process:
        service = GameService(
            create_storage(self.url),
            ai=self.ai,
            ai_delay=0.0,
            turn_timeout=600,
            resync_interval=self.resync,
            include_guild=lambda guild: True,
        )
        await service.restore()
        config = WebConfig(
            public_url="http://127.0.0.1:1",  # replaced below: the balancer's address
            host="127.0.0.1",
            port=0,
            access_log=False,
            extra_origins=frozenset({self.origin}),
            room_limits=RoomLimits(sockets_per_address=100),
            server_limits=ServerLimits(connections_per_address=200),
        )
        server = WebServer(service, Signer(SECRET), config)
        await server.start()
        process = Process(service, server)
        self.processes.append(process)
        return process

    async def post(
        self, path: str, body: dict[str, Any], process: Process | None = None
    ) -> dict[str, Any]:
        """POST to ``process`` (``None``: through the balancer, the next process in turn)."""
        base = self.origin if process is None else process.url
        async with self.http.post(
            f"{base}{path}", json=body, headers={"Origin": self.origin}
        ) as resp:
            data: dict[str, Any] = await resp.json()
            assert resp.status in (200, 201), data
            return data

    async def page(self, process: Process | None, path: str, token: str) -> Sock:
        """A page's socket on ``process`` (``None``: through the balancer)."""
        base = self.origin if process is None else process.url
        ws = await self.http.ws_connect(
            base.replace("http", "ws", 1) + path, headers={"Origin": self.origin}
        )
        sock = Sock(ws)
        sock.start()
        await ws.send_str(json.dumps({"t": "hello", "token": token, "lang": "en"}))
        self.pages.append(sock)
        return sock


class Closed(AssertionError):
    """The page's socket closed while it waited."""


class Sock(Page):
    """A page's socket and every frame it got, read as the processes' games go on."""

    async def until(self, test: Any, timeout: float = WAIT) -> dict[str, Any]:
        """The first frame (from the start) that ``test`` accepts."""
        async with asyncio.timeout(timeout):
            while True:
                for frame in self.frames:
                    if test(frame):
                        return frame
                if self.ws.closed:
                    raise AssertionError(f"closed ({self.ws.close_code}): {self.frames[-3:]}")
                self.arrived.clear()
                await self.arrived.wait()

    async def more(self, seen: int, timeout: float = WAIT) -> None:
        """Wait until the page got more than ``seen`` frames."""
        async with asyncio.timeout(timeout):
            while len(self.frames) <= seen:
                if self.ws.closed:
                    raise Closed(f"closed ({self.ws.close_code})")
                self.arrived.clear()
                await self.arrived.wait()

    def last(self, kind: str) -> dict[str, Any] | None:
        return next((f for f in reversed(self.frames) if f.get("t") == kind), None)


@pytest.fixture
async def cluster(postgres_url: str) -> AsyncIterator[Cluster]:
    ai = ThreadAI()
    http = aiohttp.ClientSession()
    balancer = Balancer(["http://127.0.0.1:9"])  # backends set once the processes listen
    await balancer.start()
    c = Cluster(postgres_url, [], balancer, http, ai)
    try:
        yield c
    finally:
        # bounded: a test that failed half-way must not leave the suite waiting on a teardown
        async with asyncio.timeout(60):
            for sock in c.pages:
                with contextlib.suppress(Exception):
                    await sock.ws.close()
            await balancer.stop()
            for p in c.processes:
                await p.server.stop()
                await p.service.close()
            await http.close()
            await ai.close()


async def _two_processes(c: Cluster) -> tuple[Process, Process]:
    a = await c.start_process()
    b = await c.start_process()
    c.balancer.backends = [a.url, b.url]
    c.balancer.sent = [0, 0]
    return a, b


def _room(frame: dict[str, Any], phase: str, seats: int | None = None) -> bool:
    if frame.get("t") != "room" or frame["room"]["phase"] != phase:
        return False
    return seats is None or len(frame["room"]["seats"]) == seats


async def test_two_guests_on_two_processes_and_an_ai_play_a_room_to_its_end(
    cluster: Cluster,
) -> None:
    c = cluster
    a, b = await _two_processes(c)
    made = await c.post("/api/rooms", {"name": "Ann", "lang": "en", "options": {"seats": 3}})
    joined = await c.post("/api/rooms/join", {"room": made["room"], "name": "Bob", "lang": "en"})
    assert c.balancer.sent == [1, 1]  # the room was made on a, Bob sat down on b
    ann = await c.page(a, "/ws/room", made["token"])
    bob = await c.page(b, "/ws/room", joined["token"])
    await ann.until(lambda f: _room(f, "lobby", 2))  # Bob's join, made on b, seen on a
    await ann.send({"t": "add_ai", "seq": 1, "level": "beginner"})
    await bob.until(lambda f: _room(f, "lobby", 3))  # the AI, added on a, seen on b
    await ann.send({"t": "start", "seq": 2})
    tokens = []
    for sock in (ann, bob):
        frame = await sock.until(lambda f: _room(f, "playing"))
        tokens.append(frame["room"]["table_token"])
    channels = a.service.live_channels()
    assert len(channels) == 1  # the game started on a: a runs its timers and its AI seat
    assert a.service.owns(channels[0]) and not b.service.owns(channels[0])
    tables = [await c.page(a, "/ws", tokens[0]), await c.page(b, "/ws", tokens[1])]
    async with asyncio.timeout(120):
        ends = await asyncio.gather(*(_play(sock) for sock in tables))
    over = max(ends, key=lambda t: t["version"])
    # both pages end on the same final table, whichever process wrote the last move
    for sock in tables:
        final = await sock.until(
            lambda f: f.get("t") == "table" and f["table"]["over_text"] is not None
        )
        assert (final["table"]["game"], final["table"]["version"]) == (
            over["game"],
            over["version"],
        )
    results = await _sql(c.url, "SELECT result FROM games")
    assert results in ([("loss",)], [("draw",)])
    for sock in (ann, bob):
        await sock.until(lambda f: _room(f, "finished"))


async def test_a_dropped_listener_listens_again_and_reads_what_changed(
    cluster: Cluster,
) -> None:
    c = cluster
    a, b = await _two_processes(c)
    made = await c.post("/api/rooms", {"name": "Ann", "lang": "en", "options": {"seats": 4}}, a)
    watcher = await c.page(b, "/ws/room", made["token"])  # Ann's second page, on b
    await watcher.until(lambda f: _room(f, "lobby", 1))
    storage = b.service.storage
    old_pid = storage._own_pid  # type: ignore[attr-defined]
    await _sql(c.url, "SELECT pg_terminate_backend($1)", old_pid)
    # a change made on a while b is not listening (or listening again: either way)
    await c.post("/api/rooms/join", {"room": made["room"], "name": "Bob", "lang": "en"}, a)
    await watcher.until(lambda f: _room(f, "lobby", 2))
    assert storage._own_pid != old_pid  # type: ignore[attr-defined]
    # and b goes on hearing changes through its new connection
    await c.post("/api/rooms/join", {"room": made["room"], "name": "Cy", "lang": "en"}, a)
    await watcher.until(lambda f: _room(f, "lobby", 3))


async def test_a_killed_process_s_pages_and_ai_turns_go_on_on_the_other(
    cluster: Cluster,
) -> None:
    """The process that started a room's game (its owner: its AI seat's turns) dies in the
    middle of it; the pages connect again through the balancer, the other process takes the
    game over, and it is played to its end with nothing lost."""
    c = cluster
    a, b = await _two_processes(c)
    made = await c.post("/api/rooms", {"name": "Ann", "lang": "en", "options": {"seats": 3}}, a)
    joined = await c.post("/api/rooms/join", {"room": made["room"], "name": "Bob", "lang": "en"})
    ann = await c.page(a, "/ws/room", made["token"])
    await ann.until(lambda f: _room(f, "lobby", 2))
    await ann.send({"t": "add_ai", "seq": 1, "level": "beginner"})
    await ann.until(lambda f: _room(f, "lobby", 3))
    await ann.send({"t": "start", "seq": 2})
    tokens = [(await ann.until(lambda f: _room(f, "playing")))["room"]["table_token"]]
    bob = await c.page(b, "/ws/room", joined["token"])
    tokens.append((await bob.until(lambda f: _room(f, "playing")))["room"]["table_token"])
    (channel,) = a.service.live_channels()
    assert a.service.owns(channel)
    seen = asyncio.Event()
    players = [asyncio.create_task(_play_through(c, token, seen)) for token in tokens]
    async with asyncio.timeout(60):
        await seen.wait()
    # killed: nothing more is written, its database session ends, its pages lose their socket
    c.processes.remove(a)
    async with asyncio.timeout(30):
        await a.service.halt()
        await a.server.stop()
    async with asyncio.timeout(120):
        ends = await asyncio.gather(*players)
    assert b.service.owns(channel)  # taken over: its AI seat played on here
    assert len({(t["game"], t["version"]) for t in ends}) == 1
    ((result, actions),) = await _sql(c.url, "SELECT result, actions FROM games")
    assert result in ("loss", "draw")
    assert len(json.loads(actions)) == ends[0]["version"]  # every move stored, once


async def _play(
    sock: Sock,
    acted: set[tuple[int, int]] | None = None,
    sent: dict[int, tuple[int, int]] | None = None,
) -> dict[str, Any]:
    """Play the page's seat (its first legal action whenever its hand and the table agree
    that it is to act, once per position in ``acted``, again if it was refused: a player
    presses again) until the game is over; the final table.  :class:`Closed` if the socket
    closes first.  ``sent``: the positions of the acts not answered yet, by ``seq``."""
    acted = set() if acted is None else acted
    sent = {} if sent is None else sent
    seq = 100
    seen = 0
    while True:
        await sock.more(seen)
        for frame in sock.frames[seen:]:
            if frame.get("t") == "result" and frame["seq"] in sent:
                key = sent.pop(frame["seq"])
                if not frame["ok"]:
                    acted.discard(key)
        seen = len(sock.frames)
        table, hand = sock.last("table"), sock.last("hand")
        if table is None:
            continue
        t = table["table"]
        if t["over_text"] is not None:
            return dict(t)
        if hand is None:
            continue
        h = hand["hand"]
        key = (t["game"], t["version"])
        mine = t["to_act"] == h["seat"] and h["version"] == t["version"] and h["legal"]
        if mine and key not in acted:
            acted.add(key)
            seq += 1
            sent[seq] = key
            action = h["legal"][0]["text"]
            frame = {"t": "act", "seq": seq, "action": action}
            await sock.send({**frame, "game": t["game"], "version": t["version"]})
            await asyncio.sleep(1 / PACE)  # under the socket's frame rate (web.protocol.RATE)


async def _play_through(c: Cluster, token: str, seen: asyncio.Event) -> dict[str, Any]:
    """Play a table page through the balancer to the game's end, connecting again (through
    the balancer) whenever the socket closes; ``seen`` is set once a few moves were played."""
    acted: set[tuple[int, int]] = set()
    sent: dict[int, tuple[int, int]] = {}
    while True:
        for key in sent.values():  # never answered (the socket closed): pressed again
            acted.discard(key)
        sent.clear()
        try:
            sock = await c.page(None, "/ws", token)
        except aiohttp.ClientError:  # the balancer found no process for a moment
            continue
        watch = asyncio.create_task(_note_moves(sock, seen))
        try:
            return await _play(sock, acted, sent)
        except (Closed, aiohttp.ClientError):  # connect again, through the balancer
            continue
        except TimeoutError:
            raise AssertionError(f"no move for {WAIT} s: {_summary(sock)}") from None
        finally:
            watch.cancel()


def _summary(sock: Sock) -> str:
    """What a page saw (its frames but the welcome, shortly)."""
    out = []
    for f in sock.frames:
        if f["t"] == "table":
            t = f["table"]
            out.append(f"table g{t['game']} v{t['version']} to_act={t['to_act']}")
        elif f["t"] == "hand":
            h = f["hand"]
            legal = len(h["legal"])
            out.append(f"hand g{h['game']} v{h['version']} seat={h['seat']} legal={legal}")
        elif f["t"] != "welcome":
            out.append(json.dumps(f)[:200])
    return "; ".join(out[-12:])


async def _note_moves(sock: Sock, seen: asyncio.Event, moves: int = 6) -> None:
    with contextlib.suppress(Closed, AssertionError):
        await sock.until(lambda f: f.get("t") == "table" and f["table"]["version"] >= moves, 60)
        seen.set()


async def _sql(url: str, statement: str, *args: Any) -> list[tuple[Any, ...]]:
    con = await asyncpg.connect(url)
    try:
        return [tuple(r) for r in await con.fetch(statement, *args)]
    finally:
        await con.close()
