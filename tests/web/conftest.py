"""Fixtures of the web table's tests: a game service with the web application on an aiohttp
test server, and pages (WebSocket clients) that record every frame they receive."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.ai_pool import ThreadAI
from bot.clock import ManualClock
from bot.service import GameService
from bot.storage import SqliteStorage
from bot.views import TableView
from web.activity import DiscordOAuth
from web.activity_gate import ActivityGate, GateAnswer
from web.app import PARTS, WebConfig, WebParts, create_app
from web.tokens import Signer

PUBLIC_URL = "https://durak.example"
ORIGIN = "https://durak.example"
GUILD, CH = 10, 100
ALICE, BOB, CAROL = 1, 2, 3
NAMES = {ALICE: "Alice", BOB: "Bob", CAROL: "Carol"}
SECRET = b"a test secret of enough bytes"


@dataclass(eq=False)
class Page:
    """A page's socket: every frame it received, in order (a reader task keeps up)."""

    ws: aiohttp.ClientWebSocketResponse
    frames: list[dict[str, Any]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    close_code: int | None = None
    _seen: int = 0
    #: Set whenever a frame arrives or the socket closes (a waiter clears it first).
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    _reader: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for msg in self.ws:
            if msg.type is aiohttp.WSMsgType.TEXT:
                self.texts.append(msg.data)
                self.frames.append(json.loads(msg.data))
                self.arrived.set()
        self.close_code = self.ws.close_code
        self.arrived.set()

    async def send(self, frame: dict[str, Any]) -> None:
        await self.ws.send_str(json.dumps(frame, ensure_ascii=False))

    async def next(self, kind: str | None = None, timeout: float = 5.0) -> dict[str, Any]:
        """The next frame not yet taken (of type ``kind``, skipping others)."""
        async with asyncio.timeout(timeout):
            while True:
                while self._seen < len(self.frames):
                    frame = self.frames[self._seen]
                    self._seen += 1
                    if kind is None or frame.get("t") == kind:
                        return frame
                if self.close_code is not None:
                    raise AssertionError(f"closed ({self.close_code}) before a {kind} frame")
                self.arrived.clear()
                await self.arrived.wait()

    async def closed(self, timeout: float = 5.0) -> int | None:
        """Wait until the server closed the socket; its close code."""
        async with asyncio.timeout(timeout):
            while self.close_code is None:
                self.arrived.clear()
                await self.arrived.wait()
        return self.close_code

    async def act(
        self, seq: int, hand: dict[str, Any], action: str, version: int | None = None
    ) -> None:
        """Send the ``act`` command ``action`` for ``hand`` (a hand frame's body), at the
        hand's version unless ``version`` says another."""
        await self.send(
            {
                "t": "act",
                "seq": seq,
                "game": hand["game"],
                "version": hand["version"] if version is None else version,
                "action": action,
            }
        )

    async def barrier(self, timeout: float = 5.0) -> None:
        """Wait until every frame the server queued for this page so far has arrived: a ping,
        whose pong the server queues after them (one queue, one socket, in order).  After
        ``service.wait_idle()`` that is every frame the service's events made for the page."""
        pongs = len(self.of("pong"))
        await self.send({"t": "ping"})
        async with asyncio.timeout(timeout):
            while len(self.of("pong")) == pongs:
                if self.close_code is not None:
                    raise AssertionError(f"closed ({self.close_code}) before the pong")
                self.arrived.clear()
                await self.arrived.wait()

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [f for f in self.frames if f.get("t") == kind]

    async def close(self) -> None:
        await self.ws.close()
        if self._reader is not None:
            await self._reader


@dataclass(eq=False)
class ScriptedGate:
    """An Activity gate that answers what the test set (``answers`` by (instance, user);
    else ``"admitted"``) and records what it was asked (the Discord side of the gate is
    tested against the fake Discord in tests/e2e)."""

    answers: dict[tuple[str, int], GateAnswer] = field(default_factory=dict)
    asked: list[tuple[str, int, int, int]] = field(default_factory=list)

    async def admit(
        self, instance_id: str, user_id: int, channel_id: int, guild_id: int
    ) -> GateAnswer:
        self.asked.append((instance_id, user_id, channel_id, guild_id))
        return self.answers.get((instance_id, user_id), "admitted")


@dataclass(eq=False)
class WebApp:
    """A restored game service and the web application on a started test server (made by
    :func:`serve`); :meth:`close` closes them and the service's AI runner."""

    service: GameService
    client: TestClient[Any, Any]
    parts: WebParts
    ai: ThreadAI

    async def close(self) -> None:
        await self.client.close()
        await self.service.close()
        await self.ai.close()


async def serve(
    db: Path,
    config: WebConfig,
    *,
    seed: int,
    clock: ManualClock | None = None,
    gate: ActivityGate | None = None,
) -> tuple[GameService, TestClient[Any, Any], WebParts, ThreadAI]:
    """A restored service on the SQLite file ``db`` (AI moves at once, deals from ``seed``
    on, 60 s turns) and the web application with ``config`` (and the Activity's ``gate``)
    on a started test server."""
    seeds = itertools.count(seed)
    ai = ThreadAI()
    service = GameService(
        SqliteStorage(db),
        clock=clock or ManualClock(),
        ai=ai,
        ai_delay=0.0,
        turn_timeout=60,
        seed_source=lambda: next(seeds),
    )
    await service.restore()
    app = create_app(service, Signer(SECRET), config, gate)
    client: TestClient[Any, Any] = TestClient(TestServer(app))
    await client.start_server()
    return service, client, app[PARTS], ai


@dataclass(eq=False)
class WebTable(WebApp):
    """The service, the web table on a test server, a client, and the pages it opened."""

    signer: Signer = field(default_factory=lambda: Signer(SECRET))
    pages: list[Page] = field(default_factory=list)

    async def connect(self, origin: str | None = ORIGIN) -> Page:
        headers = {} if origin is None else {"Origin": origin}
        ws = await self.client.ws_connect("/ws", headers=headers)
        page = Page(ws)
        page.start()
        self.pages.append(page)
        return page

    async def page(self, token: str, lang: str = "en", origin: str | None = ORIGIN) -> Page:
        """A page that said hello with ``token``."""
        page = await self.connect(origin)
        await page.send({"t": "hello", "token": token, "lang": lang})
        return page

    def player(self, user: int, series_id: int = 1, locale: str | None = None) -> str:
        return self.signer.player(CH, user, series_id, locale)

    def watcher(self, locale: str | None = None) -> str:
        return self.signer.watcher(CH, locale)

    async def game(self, *humans: int, ais: tuple[str, ...] = (), **options: Any) -> TableView:
        """Open, fill and start a game in :data:`CH` (first human hosts)."""
        svc = self.service
        host, *others = humans
        await svc.open_lobby(CH, GUILD, host, NAMES[host], options or None)
        for uid in others:
            await svc.join(CH, uid, NAMES[uid])
        for level in ais:
            await svc.add_ai(CH, host, level)
        return await svc.start(CH, host)

    async def step(self) -> TableView:
        """One move by the human to act (their first legal action), as the Discord buttons
        play it; AI seats play by themselves.  The table after it."""
        svc = self.service
        await svc.wait_idle()
        t = await svc.table(CH)
        if t.finished or t.to_act is None:
            return t
        seat = t.seats[t.to_act]
        if seat.user_id is not None and not seat.forfeited:
            hand = await svc.hand(CH, seat.user_id)
            await svc.act(CH, seat.user_id, hand.legal[0].text, hand.version, game_id=hand.game_id)
        await svc.wait_idle()
        return await svc.table(CH)

    async def play_out(self) -> TableView:
        """Play until the game ends."""
        for _ in range(3000):
            t = await self.step()
            if t.finished:
                return t
        raise AssertionError("the game did not end")

    async def close(self) -> None:
        for page in self.pages:
            if not page.ws.closed:
                await page.close()
        await super().close()


async def make_table(
    tmp_path: Path,
    *,
    seed: int = 1,
    oauth: DiscordOAuth | None = None,
    static_dir: Path | None = None,
    templates_dir: Path | None = None,
    clock: ManualClock | None = None,
    gate: ActivityGate | None = None,
) -> WebTable:
    """The web table of a new service in ``tmp_path`` (its :meth:`WebTable.close` ends all);
    with ``oauth``, the Activity's gate is ``gate`` (a :class:`ScriptedGate` unless given)."""
    if oauth is not None and gate is None:
        gate = ScriptedGate()
    config = WebConfig(
        public_url=PUBLIC_URL,
        oauth=oauth,
        **({"static_dir": static_dir} if static_dir is not None else {}),
        **({"templates_dir": templates_dir} if templates_dir is not None else {}),
    )
    return WebTable(
        *await serve(tmp_path / "durak.sqlite3", config, seed=seed, clock=clock, gate=gate)
    )


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[WebTable]:
    """A service with the web table; closed at the end."""
    t = await make_table(tmp_path)
    try:
        yield t
    finally:
        await t.close()
