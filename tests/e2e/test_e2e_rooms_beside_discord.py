"""Rooms in the Discord bot's own web server: with ``PUBLIC_URL`` set the bot serves rooms too,
and a room's events must never reach the Discord presenter (which would try to post the room's
lobby to Discord, be refused, close the lobby and pause the room's games), while a Discord
game goes on beside it.

The room is created and played over HTTP and the room's and table's sockets of the bot's own
web server, as a browser would; the Discord game with the fake Discord's buttons."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import pytest

from bot.service import ChannelPhase

from .durak_e2e import Harness, MakeHarness, buttons, poll, prefer

pytestmark = pytest.mark.e2e

PUBLIC = "https://durak.example"
WEB = {"public_url": PUBLIC, "web_host": "127.0.0.1", "web_port": 0}
ORIGIN = {"Origin": PUBLIC}


@dataclass(eq=False)
class Socket:
    """A page's socket and every frame it was sent."""

    ws: aiohttp.ClientWebSocketResponse
    frames: list[dict[str, Any]] = field(default_factory=list)
    reader: asyncio.Task[None] | None = None

    async def read(self) -> None:
        async for msg in self.ws:
            if msg.type is aiohttp.WSMsgType.TEXT:
                self.frames.append(json.loads(msg.data))

    async def send(self, frame: dict[str, Any]) -> None:
        await self.ws.send_str(json.dumps(frame))

    def last(self, kind: str) -> dict[str, Any] | None:
        return next((f for f in reversed(self.frames) if f.get("t") == kind), None)

    async def result(self, seq: int) -> dict[str, Any]:
        found: dict[str, Any] = await poll(
            lambda: next(
                (f for f in self.frames if f.get("t") == "result" and f.get("seq") == seq), None
            ),
            what=f"the result of request {seq}",
        )
        return found


@asynccontextmanager
async def socket(http: aiohttp.ClientSession, url: str, token: str) -> AsyncIterator[Socket]:
    async with http.ws_connect(url, headers=ORIGIN) as ws:
        page = Socket(ws)
        page.reader = asyncio.create_task(page.read())
        await page.send({"t": "hello", "token": token, "lang": "en"})
        try:
            yield page
        finally:
            await ws.close()
            await page.reader


def requests_for(h: Harness, channel: int) -> list[str]:
    """The fake Discord's REST requests that name ``channel`` in their path."""
    return [str(r) for r in h.fake.requests if str(channel) in r.path.split("/")]


async def room_phase(page: Socket, phase: str) -> dict[str, Any]:
    room: dict[str, Any] = await poll(
        lambda: next(
            (
                f["room"]
                for f in reversed(page.frames)
                if f.get("t") == "room" and f["room"]["phase"] == phase
            ),
            None,
        ),
        what=f"the room in phase {phase}",
    )
    return room


#: Moves a page makes before it is opened again (the table socket's rate limit, 20 frames at
#: once, is for a person's pace, not a test's).
MOVES_PER_PAGE = 15


async def play_room(
    h: Harness, room: int, http: aiohttp.ClientSession, url: str, tokens: list[str]
) -> list[Socket]:
    """Play the room's game to its end, every move on the page of the player to act (the
    first legal action of their hand); the room's timers never pause.  Returns every page
    that was opened."""
    opened: list[Socket] = []
    async with contextlib.AsyncExitStack() as stack:
        pages: dict[int, Socket] = {}
        moves: dict[int, int] = {}
        seq = 10
        for _ in range(500):
            await h.idle()
            assert not h.service.timers_paused(room)
            view = await h.service.table(room)
            if view.finished:
                return opened
            seat = view.to_act
            assert seat is not None
            if seat not in pages or moves[seat] >= MOVES_PER_PAGE:
                pages[seat] = await stack.enter_async_context(socket(http, url, tokens[seat]))
                opened.append(pages[seat])
                moves[seat] = 0
            page = pages[seat]
            hand = await poll(
                lambda p=page, v=view.version: next(
                    (
                        f["hand"]
                        for f in reversed(p.frames)
                        if f.get("t") == "hand" and f["hand"]["version"] == v and f["hand"]["legal"]
                    ),
                    None,
                ),
                what="the hand of the player to act, on their page",
            )
            seq += 1
            moves[seat] += 1
            await page.send(
                {
                    "t": "act",
                    "seq": seq,
                    "game": hand["game"],
                    "version": hand["version"],
                    "action": hand["legal"][0]["text"],
                }
            )
            assert (await page.result(seq))["ok"]
    raise AssertionError("the room's game did not end")


async def discord_move(h: Harness) -> None:
    """One move of the Discord game, pressed on the hand of the Discord player to act."""
    view = await h.table_view()
    for _ in range(3):  # a card's button may first show that card's actions
        found = await h.turn()
        assert found is not None
        player, msg = found
        offered = [b for b in buttons(msg) if b.is_game_action or b.verb == "pick"]
        choice = prefer("attack", "defend", "pass", "take")(player, offered, view)
        edits = len(msg.history)
        await h.press(player.user, msg, choice)
        if choice.verb != "pick":
            await poll(lambda: h._moved(view.version), what="the Discord move")
            return
        await poll(lambda m=msg, n=edits: len(m.history) > n, what="the picked card's actions")
    raise AssertionError("no Discord move was made")


async def test_a_room_plays_to_its_end_beside_a_discord_game(harness: MakeHarness) -> None:
    h = harness(settings_extra=WEB, seeds=[1, 2, 3])
    alice, bob = h.user("alice"), h.user("bob")
    await h.start_with_game(alice, join=[bob], seats=2)
    discord_game = (await h.table_view()).game_id
    base = f"http://127.0.0.1:{h.bot.web.port}"
    rooms = h.bot.web.parts.rooms
    async with aiohttp.ClientSession() as http:
        resp = await http.post(
            f"{base}/api/rooms",
            json={"name": "Ann", "lang": "en", "options": {"seats": 2}},
            headers=ORIGIN,
        )
        assert resp.status == 201, await resp.text()
        created = await resp.json()
        room = await rooms.directory.channel_of(created["room"])
        # every presenter has had the new lobby: it is still open
        await h.idle()
        assert h.service.state(room) is ChannelPhase.LOBBY
        resp = await http.post(
            f"{base}/api/rooms/join", json={"room": created["room"], "name": "Ben"}, headers=ORIGIN
        )
        assert resp.status == 200, await resp.text()
        joined = await resp.json()
        async with (
            socket(http, f"{base}/ws/room", created["token"]) as ann,
            socket(http, f"{base}/ws/room", joined["token"]) as ben,
        ):
            lobby = await room_phase(ben, "lobby")
            assert [s["name"] for s in lobby["seats"]] == ["Ann", "Ben"]
            await ann.send({"t": "start", "seq": 1})
            assert (await ann.result(1))["ok"]
            tokens = [(await room_phase(p, "playing"))["table_token"] for p in (ann, ben)]
            # a move in the Discord game while the room's game runs
            await discord_move(h)
            assert not h.service.timers_paused(room)
            tables = await play_room(h, room, http, f"{base}/ws", tokens)
            finished = await room_phase(ben, "finished")
            assert finished["standings"] is not None
            assert all(t.last("table") is not None for t in tables)
            await h.idle()
            assert h.service.state(room) is ChannelPhase.FINISHED
    # nothing of the room ever went to Discord
    assert requests_for(h, room) == []
    # the Discord game went on beside it, and plays to its end
    assert h.service.state(h.channel) is ChannelPhase.PLAYING
    assert (await h.table_view()).game_id == discord_game
    await h.play(prefer("attack", "defend", "pass", "take"))
    assert (await h.table_view()).finished
    assert requests_for(h, room) == []
    h.fake.assert_clean()
