"""The gateway: the bot's websocket sessions (IDENTIFY, RESUME, heartbeats), the events
dispatched to them, dropped connections, and the gateway's REST routes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

from aiohttp import WSMsgType, web

from .guilds import Guilds
from .models import NoBotConnectedError
from .rest import Req, route


@dataclass
class GatewayEvent:
    """An op the client sent us (direction 'recv') or a dispatch we sent ('send').  ``seq``:
    a dispatch's sequence number, or the last one a client's heartbeat acknowledges."""

    direction: str
    op: int
    name: str | None
    session_id: str | None
    seq: int | None = None


class GatewaySession:
    """A gateway session (IDENTIFY); survives websocket drops until RESUMEd."""

    def __init__(self, session_id: str, intents: int, shard: list[int] | None) -> None:
        self.id = session_id
        self.intents = intents
        self.shard = shard
        self.ws: web.WebSocketResponse | None = None
        self.seq = 0
        self.buffer: deque[dict[str, Any]] = deque(maxlen=5000)
        self.alive = True  # False once the client closed it cleanly (1000) or it was invalidated
        self.resumes = 0
        self.identified_at = time.monotonic()
        self.lock = asyncio.Lock()

    @property
    def connected(self) -> bool:
        return self.ws is not None and not self.ws.closed

    def __repr__(self) -> str:
        return (
            f"<GatewaySession {self.id[:8]} seq={self.seq} connected={self.connected} "
            f"alive={self.alive} resumes={self.resumes}>"
        )


class Gateway(Guilds):
    """Gateway sessions and dispatches (one gateway for every guild of the server)."""

    GATEWAY_PATH = "/gateway-ws/"

    @property
    def gateway_url(self) -> str:
        """Value for DiscordWebSocket.DEFAULT_GATEWAY (and READY's resume_gateway_url)."""
        return f"ws://{self.host}:{self.port}{self.GATEWAY_PATH}"

    async def _ws_handler(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        self._open_ws.add(ws)
        session: GatewaySession | None = None
        try:
            await ws.send_str(
                json.dumps(
                    {
                        "op": 10,
                        "s": None,
                        "t": None,
                        "d": {"heartbeat_interval": int(self.heartbeat_interval * 1000)},
                    }
                )
            )
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                op = frame.get("op")
                d = frame.get("d")
                names = {
                    1: "HEARTBEAT",
                    2: "IDENTIFY",
                    3: "PRESENCE_UPDATE",
                    4: "VOICE_STATE_UPDATE",
                    6: "RESUME",
                    8: "REQUEST_GUILD_MEMBERS",
                }
                heartbeat_seq = d if op == 1 and isinstance(d, int) else None  # the last seen
                self.gateway_log.append(
                    GatewayEvent(
                        "recv", op, names.get(op), session.id if session else None, heartbeat_seq
                    )
                )
                if op == 1:
                    await ws.send_str(json.dumps({"op": 11, "s": None, "t": None, "d": None}))
                elif op == 2:
                    session = await self._identify(ws, d)
                elif op == 6:
                    session = await self._resume(ws, d)
                elif op == 8 and session is not None:
                    await self._send_dispatch(
                        session,
                        "GUILD_MEMBERS_CHUNK",
                        {
                            "guild_id": str(self.guild_id),
                            "chunk_index": 0,
                            "chunk_count": 1,
                            "not_found": [],
                            "members": self.guild_payload()["members"],
                            "nonce": (d or {}).get("nonce"),
                        },
                    )
                self._notify()
        finally:
            self._open_ws.discard(ws)
            if session is not None and session.ws is ws:
                session.ws = None
                if ws.close_code == 1000 and ws not in self._dropped_ws:
                    session.alive = False  # the client closed its session on purpose
            self._dropped_ws.discard(ws)
            self._notify()
        return ws

    async def _identify(
        self, ws: web.WebSocketResponse, d: dict[str, Any]
    ) -> GatewaySession | None:
        if d.get("token") != self.token:
            await ws.close(code=4004, message=b"Authentication failed.")
            return None
        session = GatewaySession(secrets.token_hex(16), int(d.get("intents") or 0), d.get("shard"))
        session.ws = ws
        self.sessions.append(session)
        held = [g for g in self._guilds() if g._holds(session)]
        ready: dict[str, Any] = {
            "v": 10,
            "user": {
                **self.bot_user_payload(),
                "verified": True,
                "mfa_enabled": False,
                "flags": 0,
                "email": None,
                "locale": "en-US",
            },
            "guilds": [{"id": str(g.guild_id), "unavailable": True} for g in held],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": ["fake"],
            "user_settings": {},
            "_trace": ["fakediscord"],
        }
        if session.shard is not None:
            ready["shard"] = session.shard
        await self._send_dispatch(session, "READY", ready)
        for guild in held:
            await self._send_dispatch(session, "GUILD_CREATE", guild.guild_payload())
        return session

    async def _resume(self, ws: web.WebSocketResponse, d: dict[str, Any]) -> GatewaySession | None:
        session = next((s for s in self.sessions if s.id == d.get("session_id")), None)
        if session is None or not session.alive or d.get("token") != self.token:
            await ws.send_str(json.dumps({"op": 9, "s": None, "t": None, "d": False}))
            return None
        seq = int(d.get("seq") or 0)
        async with session.lock:
            session.ws = ws
            session.resumes += 1
            for frame in list(session.buffer):
                if frame["s"] > seq:
                    await ws.send_str(json.dumps(frame))
            session.seq += 1
            frame = {"op": 0, "t": "RESUMED", "s": session.seq, "d": {"_trace": ["fakediscord"]}}
            session.buffer.append(frame)
            await ws.send_str(json.dumps(frame))
        self.gateway_log.append(GatewayEvent("send", 0, "RESUMED", session.id, session.seq))
        return session

    async def _send_dispatch(self, session: GatewaySession, event: str, data: Any) -> int:
        async with session.lock:
            session.seq += 1
            frame = {"op": 0, "t": event, "s": session.seq, "d": data}
            session.buffer.append(frame)
            self.gateway_log.append(GatewayEvent("send", 0, event, session.id, session.seq))
            ws = session.ws
            if ws is not None and not ws.closed:
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await ws.send_str(json.dumps(frame))
            return session.seq

    def _live_sessions(self) -> list[GatewaySession]:
        return [s for s in self.sessions if s.alive]

    async def dispatch(self, event: str, payload: Any, *, intent: int | None = None) -> None:
        """Send a DISPATCH event to every live (or resumable) session."""
        for session in self._live_sessions():
            if (intent is None or session.intents & intent) and self._holds(session):
                await self._send_dispatch(session, event, payload)

    def _broadcast_soon(self, event: str, payload: Any, intent: int | None) -> None:
        if self._live_sessions():
            self._spawn(self.dispatch(event, payload, intent=intent))

    async def gateway_barrier(self, timeout: float = 10.0) -> None:
        """Wait until every connected bot has read every event dispatched to it so far.

        A barrier through the gateway itself: each connected session is asked for a
        heartbeat (op 1, as Discord may ask), after the events queued for it; the client
        answers at once from the loop that reads its socket, with the sequence number of
        the last dispatch it read.  When this returns, that number has reached the last one
        sent: the client parsed every earlier event into its state and scheduled its
        listeners (it need not have finished running them)."""
        for guild in self._guilds():  # events queued by add_user, add_channel, ...
            if guild._tasks:
                await asyncio.gather(*list(guild._tasks), return_exceptions=True)
        asked: list[tuple[GatewaySession, int, int]] = []
        for session in self.sessions:
            if not (session.alive and session.connected):
                continue
            async with session.lock:
                ws = session.ws
                assert ws is not None
                asked.append((session, session.seq, len(self.gateway_log)))
                await ws.send_str(json.dumps({"op": 1, "s": None, "t": None, "d": None}))
        if not asked:
            raise NoBotConnectedError("gateway_barrier: no connected session")

        def answered(session: GatewaySession, seq: int, start: int) -> bool:
            return any(
                e.direction == "recv" and e.op == 1 and e.session_id == session.id
                for e in self.gateway_log[start:]
                if (e.seq or 0) >= seq
            )

        await self.wait_until(
            lambda: all(answered(*a) for a in asked), timeout, "the heartbeat after the barrier"
        )

    def _interaction_session(self) -> GatewaySession:
        connected = [s for s in self.sessions if s.alive and s.connected and self._holds(s)]
        if connected:
            return max(connected, key=lambda s: s.identified_at)
        resumable = [s for s in self._live_sessions() if self._holds(s)]
        if resumable:
            return max(resumable, key=lambda s: s.identified_at)
        raise NoBotConnectedError("no bot is connected to the fake gateway")

    async def drop_gateway(
        self, *, code: int = 4000, wait_resume: bool = True, timeout: float = 10.0
    ) -> None:
        """Close every connected bot websocket (code 4000) so the client reconnects and RESUMEs."""
        targets = [s for s in self.sessions if s.connected]
        if not targets:
            raise NoBotConnectedError("drop_gateway: no connected session")
        before = {s.id: s.resumes for s in targets}
        for s in targets:
            ws = s.ws
            assert ws is not None
            self._dropped_ws.add(ws)
            await ws.close(code=code, message=b"dropped by fakediscord")
        if wait_resume:
            await self.wait_until(
                lambda: all(s.resumes > before[s.id] and s.connected for s in targets),
                timeout,
                "client did not RESUME after drop_gateway()",
            )

    @property
    def resume_count(self) -> int:
        return sum(1 for e in self.gateway_log if e.direction == "recv" and e.op == 6)

    @route("GET", "/gateway")
    async def h_gateway(self, req: Req) -> tuple[int, Any]:
        return 200, {"url": self.gateway_url.rstrip("/")}

    @route("GET", "/gateway/bot")
    async def h_gateway_bot(self, req: Req) -> tuple[int, Any]:
        return 200, {
            "url": self.gateway_url.rstrip("/"),
            "shards": 1,
            "session_start_limit": {
                "total": 1000,
                "remaining": 999,
                "reset_after": 0,
                "max_concurrency": 1,
            },
        }
