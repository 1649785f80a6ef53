"""Rooms in the browser: the home page, invite links, guests and the room's live lobby.

The HTTP API and the room page's WebSocket over :class:`bot.rooms.RoomDirectory` (the realm,
its ids and its guest names) and the game service (every lobby, game, forfeit, stop vote and
host hand-off is the service's, as for a Discord channel; nothing of that is decided here).
The protocol is docs/WEB.md, "Rooms".

- ``GET /``: the home page; ``GET /room``: a room's page (its slug in the URL fragment:
  ``/room#<slug>``, the invite link);
- ``GET /api/rooms/setup?lang=fr``: the options a room may have (the same definitions as
  ``/durak new``: :mod:`bot.limits`, the offered AI levels) and the pages' strings;
- ``POST /api/rooms``: create a room (its host's name and options) → its slug, invite link
  and the host's guest token; ``POST /api/rooms/join``: a guest sits down → a guest token;
- ``GET /ws/room``: the room page's socket: ``hello`` with the guest token, then the room's
  state (``room`` frames, pushed on every change) and the host's and players' commands.

Limits (:mod:`web.room_limits`): rooms per address per hour, rooms open at once, sockets per
address (the table's ``/ws`` too), and the table's frame size and rate; an idle room closes
(:meth:`RoomHub.close_idle`) and its sockets are told why.  Every refusal is a sentence in the
reader's language.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from bot.authority import SystemRule
from bot.errors import ConfirmForfeit, ServiceError
from bot.limits import (
    DEFAULT_TIMEOUT,
    MAX_SEATS,
    MAX_TIMEOUT,
    MIN_SEATS,
    MIN_TIMEOUT,
    RULE_OPTIONS,
    RULE_PROFILES,
)
from bot.presenter import Notice, NullPresenter
from bot.realm import Realm, is_room
from bot.rooms import GUEST_NAME_MAX, NoRoom, RoomDirectory
from bot.service import ChannelPhase, GameService
from bot.views import LobbyView, TableView
from present.catalog import Catalog
from rules_engine.ai import OFFERED_LEVELS
from rules_engine.messages import Message
from web.connection import Connection
from web.room_limits import AddressCounts, RoomLimits, address_of
from web.room_strings import room_strings
from web.serialize import _rules_text, plain_names
from web.sockets import BURST, CLOSE_AUTH, CLOSE_GONE, MAX_FRAME, RATE, TokenBucket
from web.tokens import Signer, TokenError
from web.wording import catalog

__all__ = [
    "CLOSE_FULL",
    "CLOSE_IDLE",
    "CLOSE_SOCKETS",
    "RoomHub",
]

log = logging.getLogger(__name__)

#: Close codes of the room socket (with an ``error`` frame first), besides the table's: the
#: room closed for being idle; too many sockets from one address; (HTTP only) too many rooms.
CLOSE_IDLE, CLOSE_SOCKETS, CLOSE_FULL = 4010, 4029, 4030
#: How often idle rooms are looked for, in seconds.
SWEEP_EVERY = 60.0

_TOO_MANY_ROOMS = Message(
    "you have opened too many rooms in the last hour: wait a while before opening another"
)
_ALL_FULL = Message("too many rooms are open on this server right now: try again later")
_TOO_MANY_SOCKETS = Message("too many pages are open from your address: close some of them")
_BAD_REQUEST = Message("the page sent a request the server does not understand")
_FOREIGN = Message("this page may not open the table from where it was loaded")
_NOT_GUEST = Message("this link is not valid: open the table again from the game")
_CLOSED = Message("this room is closed")


def _idle_message(minutes: int) -> Message:
    return Message("this room closed after {minutes} minutes without a move", minutes=minutes)


def _sentence(cat: Catalog, message: Message, names: list[str] | None = None) -> str:
    text = cat.render(message, names or ())
    return text[:1].upper() + text[1:]


@dataclass(eq=False)
class RoomPage:
    """An open room page: its connection (frames are queued as for a table page), the
    guest it is, and the last room frame it was sent (a change only is sent again)."""

    conn: Connection
    address: str
    last: str = ""
    channel_id: int = field(init=False)
    user_id: int = field(init=False)

    def __post_init__(self) -> None:
        self.channel_id = self.conn.channel_id
        assert self.conn.user_id is not None
        self.user_id = self.conn.user_id


class RoomPresenter(NullPresenter):
    """The service's events of room channels, for the room pages (a presenter beside the
    table's and Discord's, given the rooms' events only)."""

    realms = frozenset({Realm.ROOMS})

    def __init__(self, hub: RoomHub) -> None:
        self.hub = hub

    async def lobby_changed(self, view: LobbyView) -> None:
        await self.hub.changed(view.channel_id)

    async def table_changed(self, view: TableView) -> None:
        key = (view.game_id, view.finished, view.stop_vote, *(s.forfeited for s in view.seats))
        await self.hub.changed(view.channel_id, key)

    async def game_over(self, view: TableView) -> None:
        await self.hub.changed(view.channel_id)

    async def notice(self, notice: Notice) -> None:
        for page in self.hub.pages(notice.channel_id):
            cat = page.conn.cat
            names = [p.name for p in notice.players]
            page.conn.send(
                {"t": "notice", "kind": notice.kind, "text": _sentence(cat, notice.message, names)}
            )
        await self.hub.changed(notice.channel_id)


class RoomHub:
    """The rooms' HTTP routes, their socket, their presenter and the idle sweep."""

    def __init__(
        self,
        service: GameService,
        signer: Signer,
        origins: frozenset[str],
        public_url: str,
        limits: RoomLimits | None = None,
        *,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.service = service
        self.signer = signer
        self.origins = origins
        self.public_url = public_url.rstrip("/")
        self.limits = limits or RoomLimits()
        self.directory = RoomDirectory(service)
        self.counts = AddressCounts(self.limits, now)
        self.presenter = RoomPresenter(self)
        self.now = now
        self._pages: dict[int, set[RoomPage]] = {}
        self._active: dict[int, float] = {}
        self._keys: dict[int, object] = {}
        #: The last standings of each room whose series ended (shown once it is over).
        self._final: dict[int, list[dict[str, Any]]] = {}
        self._sweeper: asyncio.Task[None] | None = None

    # -- wiring ------------------------------------------------------------------
    def add_routes(self, app: web.Application, page: Callable[[str], Any]) -> None:
        """Add the routes; ``page(name)`` makes the handler of a static HTML page."""
        app.router.add_get("/", page("home.html"))
        app.router.add_get("/room", page("room.html"))
        app.router.add_get("/api/rooms/setup", self.setup)
        app.router.add_post("/api/rooms", self.create)
        app.router.add_post("/api/rooms/join", self.join)
        app.router.add_get("/ws/room", self.limit_sockets(self.socket))
        self.service.add_presenter(self.presenter)
        app.on_startup.append(self._start)
        app.on_shutdown.append(self._stop)

    async def _start(self, app: web.Application) -> None:
        now = self.now()
        for channel in self.directory.open_rooms():
            self._active.setdefault(channel, now)
        self._sweeper = asyncio.create_task(self._sweep())

    async def _stop(self, app: web.Application) -> None:
        self.service.remove_presenter(self.presenter)
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        for page in [p for pages in self._pages.values() for p in pages]:
            await page.conn.ws.close(code=1001)

    def limit_sockets(
        self, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        """``handler`` (a socket route) counted against the sockets per address: one over
        the limit is accepted only to be told why and closed (:data:`CLOSE_SOCKETS`)."""

        async def limited(request: web.Request) -> web.StreamResponse:
            address = address_of(request, self.limits.forwarded_for)
            if not self.counts.open_socket(address):
                ws = web.WebSocketResponse()
                await ws.prepare(request)
                cat = catalog(_accept_language(request))
                frame = {
                    "t": "error",
                    "reason": _sentence(cat, _TOO_MANY_SOCKETS),
                    "code": CLOSE_SOCKETS,
                }
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await ws.send_str(json.dumps(frame, ensure_ascii=False))
                await ws.close(code=CLOSE_SOCKETS)
                return ws
            try:
                return await handler(request)
            finally:
                self.counts.close_socket(address)

        return limited

    # -- HTTP --------------------------------------------------------------------
    async def setup(self, request: web.Request) -> web.Response:
        """``GET /api/rooms/setup``: the options of a room and the pages' strings."""
        cat = catalog(request.query.get("lang") or _accept_language(request))
        return web.json_response(
            {
                "lang": cat.locale,
                "strings": room_strings(cat),
                "profiles": list(RULE_PROFILES),
                "options": {
                    name: list(values)
                    for name, values in RULE_OPTIONS.items()
                    if name in ("transfer", "throw_in", "first_round_limit")
                },
                "seats": {"min": MIN_SEATS, "max": MAX_SEATS, "default": MAX_SEATS},
                "turn_timeout": {
                    "min": MIN_TIMEOUT,
                    "max": MAX_TIMEOUT,
                    "default": DEFAULT_TIMEOUT,
                },
                "levels": list(OFFERED_LEVELS),
                "name_max": GUEST_NAME_MAX,
            }
        )

    async def _body(self, request: web.Request) -> tuple[dict[str, Any], Catalog]:
        cat = catalog(_accept_language(request))
        if request.headers.get("Origin") not in self.origins:
            raise _refusal(403, cat, _FOREIGN)
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            raise _refusal(400, cat, _BAD_REQUEST) from None
        if not isinstance(body, dict):
            raise _refusal(400, cat, _BAD_REQUEST)
        lang = body.get("lang")
        if isinstance(lang, str):
            cat = catalog(lang[:16])
        return body, cat

    async def create(self, request: web.Request) -> web.Response:
        """``POST /api/rooms`` ``{"name", "lang", "options": {rules, transfer, throw_in,
        first_round_limit, turn_timeout, seats}}`` → 201 ``{"room", "invite", "token"}``."""
        body, cat = await self._body(request)
        options = body.get("options", {})
        if not isinstance(options, dict):
            raise _refusal(400, cat, _BAD_REQUEST)
        if len(self.directory.open_rooms()) >= self.limits.max_open:
            raise _refusal(503, cat, _ALL_FULL)
        if not self.counts.may_open_room(address_of(request, self.limits.forwarded_for)):
            raise _refusal(429, cat, _TOO_MANY_ROOMS)
        try:
            room = await self.directory.create(body.get("name"), options)
        except ServiceError as exc:
            raise _refusal(400, cat, exc.message) from None
        self._active[room.channel_id] = self.now()
        log.info("room %d opened", room.channel_id)
        return web.json_response(
            {
                "room": room.slug,
                "invite": f"{self.public_url}/room#{room.slug}",
                "token": self.signer.guest(room.channel_id, room.user_id),
            },
            status=201,
        )

    async def join(self, request: web.Request) -> web.Response:
        """``POST /api/rooms/join`` ``{"room", "name", "lang"}`` → ``{"token"}``."""
        body, cat = await self._body(request)
        try:
            room = await self.directory.join(body.get("room"), body.get("name"))
        except NoRoom as exc:
            raise _refusal(404, cat, exc.message) from None
        except ServiceError as exc:
            raise _refusal(409 if exc.code != "bad_option" else 400, cat, exc.message) from None
        self._active[room.channel_id] = self.now()
        return web.json_response({"token": self.signer.guest(room.channel_id, room.user_id)})

    # -- the room socket ---------------------------------------------------------
    async def socket(self, request: web.Request) -> web.StreamResponse:
        """``GET /ws/room``."""
        ws = web.WebSocketResponse(max_msg_size=4 * MAX_FRAME, heartbeat=30.0)
        await ws.prepare(request)
        cat = catalog(_accept_language(request))
        if request.headers.get("Origin") not in self.origins:
            await _close(ws, cat, _FOREIGN, 4003)
            return ws
        bucket = TokenBucket(BURST, RATE)
        page: RoomPage | None = None
        try:
            page = await self._hello(
                ws, cat, bucket, address_of(request, self.limits.forwarded_for)
            )
            if page is not None:
                await self._serve(page, bucket)
        finally:
            if page is not None:
                self._pages.get(page.channel_id, set()).discard(page)
                if not self._pages.get(page.channel_id):
                    self._pages.pop(page.channel_id, None)
                await page.conn.stop()
            if not ws.closed:
                await ws.close()
        return ws

    async def _frame(
        self, ws: web.WebSocketResponse, cat: Catalog, data: str, bucket: TokenBucket
    ) -> dict[str, Any] | None:
        """A frame as a dict (``{}`` if not one), or ``None`` after closing for a limit."""
        if len(data.encode("utf-8")) > MAX_FRAME:
            await _close(ws, cat, Message("the page sent a message that is too big"), 4009)
            return None
        if not bucket.take():
            await _close(ws, cat, Message("the page sent too many messages: reload it"), 4008)
            return None
        try:
            frame = json.loads(data)
        except ValueError:
            return {}
        return frame if isinstance(frame, dict) else {}

    async def _hello(
        self, ws: web.WebSocketResponse, cat: Catalog, bucket: TokenBucket, address: str
    ) -> RoomPage | None:
        try:
            msg = await ws.receive(timeout=10.0)
        except TimeoutError:
            await _close(
                ws, cat, Message("the page did not say who it is in time: reload it"), 4001
            )
            return None
        if msg.type is not WSMsgType.TEXT:
            return None
        frame = await self._frame(ws, cat, msg.data, bucket)
        if frame is None:
            return None
        lang = frame.get("lang")
        cat = catalog(lang[:16] if isinstance(lang, str) else cat.locale)
        if frame.get("t") != "hello":
            await _close(ws, cat, _NOT_GUEST, CLOSE_AUTH)
            return None
        try:
            claims = self.signer.verify(frame.get("token"))
        except TokenError as exc:
            await _close(ws, cat, exc.message, CLOSE_AUTH)
            return None
        if claims.kind != "guest" or claims.user_id is None or not is_room(claims.channel_id):
            await _close(ws, cat, _NOT_GUEST, CLOSE_AUTH)
            return None
        if self.service.state(claims.channel_id) is ChannelPhase.NONE:
            await _close(ws, cat, _CLOSED, CLOSE_GONE)
            return None
        conn = Connection(ws, claims.channel_id, "player", cat, claims, user_id=claims.user_id)
        conn.start()
        page = RoomPage(conn, address)
        self._pages.setdefault(page.channel_id, set()).add(page)
        conn.send(
            {
                "t": "welcome",
                "user_id": str(claims.user_id),
                "lang": cat.locale,
                "strings": room_strings(cat),
                "levels": list(OFFERED_LEVELS),
            }
        )
        await self.push(page)
        return page

    async def _serve(self, page: RoomPage, bucket: TokenBucket) -> None:
        ws = page.conn.ws
        while True:
            msg = await ws.receive()
            if msg.type is not WSMsgType.TEXT:
                return
            frame = await self._frame(ws, page.conn.cat, msg.data, bucket)
            if frame is None:
                return
            if frame.get("t") == "ping":
                page.conn.send({"t": "pong"})
                continue
            await self._command(page, frame)

    async def _command(self, page: RoomPage, frame: dict[str, Any]) -> None:
        kind, seq = frame.get("t"), frame.get("seq")
        conn, channel, user = page.conn, page.channel_id, page.user_id
        if not _whole(seq):
            conn.send(_result(None, conn.cat, _BAD_REQUEST))
            return
        service = self.service
        self._active[channel] = self.now()
        try:
            if kind == "add_ai":
                await service.add_ai(channel, user, str(frame.get("level", "")))
            elif kind == "remove":
                await service.remove_seat(channel, user, frame.get("seat"))  # type: ignore[arg-type]
            elif kind == "start":
                await service.start(channel, user)
            elif kind == "leave":
                await service.leave(channel, user)
            elif kind == "forfeit":
                game = frame.get("game")
                await service.forfeit(channel, user, game_id=game if _whole(game) else None)
            elif kind == "stop":
                await service.stop(channel, user)
            elif kind == "keep_playing":
                await service.keep_playing(channel, user)
            else:
                conn.send(_result(seq, conn.cat, _BAD_REQUEST))
                return
        except ConfirmForfeit as exc:
            result = _result(seq, conn.cat, exc.message)
            result["confirm"] = "forfeit"
            result["game"] = exc.details.get("game_id")
            conn.send(result)
            return
        except ServiceError as exc:
            conn.send(_result(seq, conn.cat, exc.message))
            await self.push(page, force=True)
            return
        conn.send({"t": "result", "seq": seq, "ok": True})
        await self.push(page)

    # -- the room's state --------------------------------------------------------
    def pages(self, channel_id: int) -> list[RoomPage]:
        return list(self._pages.get(channel_id, ()))

    async def changed(self, channel_id: int, key: object = None) -> None:
        """The service changed the room: push its state to its pages (a table change only
        when ``key`` differs from the last: who sits, which game, the stop vote)."""
        self._active[channel_id] = self.now()
        if key is not None:
            if self._keys.get(channel_id) == key:
                return
            self._keys[channel_id] = key
        for page in self.pages(channel_id):
            await self.push(page)

    async def push(self, page: RoomPage, *, force: bool = False) -> None:
        """Send ``page`` the room's state when it changed since the last it got."""
        frame = await self.room_json(page.channel_id, page.user_id, page.conn.cat)
        text = json.dumps(frame, sort_keys=True)
        if text == page.last and not force:
            return
        page.last = text
        if frame["phase"] in ("playing", "finished") and frame["seat"] is not None:
            frame["table_token"] = self.signer.player(
                page.channel_id, page.user_id, frame["series_id"], page.conn.cat.locale
            )
        elif frame["phase"] in ("playing", "finished"):
            frame["table_token"] = self.signer.watcher(page.channel_id, page.conn.cat.locale)
        page.conn.send({"t": "room", "room": frame})

    async def room_json(self, channel_id: int, user_id: int, cat: Catalog) -> dict[str, Any]:
        """The room as the guest ``user_id`` sees it (docs/WEB.md, "ROOM")."""
        phase = self.service.state(channel_id)
        room: dict[str, Any] = {
            "phase": phase.value if phase is not ChannelPhase.NONE else "closed",
            "seats": [],
            "max_seats": None,
            "host": False,
            "seat": None,
            "can_start": False,
            "rules_text": None,
            "turn_timeout": None,
            "series_id": None,
            "game": None,
            "standings": self._final.get(channel_id),
            "games": None,
            "stop_vote": None,
        }
        host = self.service.host_of(channel_id)
        room["host"] = host == user_id
        try:
            if phase is ChannelPhase.LOBBY:
                lobby = await self.service.lobby(channel_id)
                names = plain_names(lobby.seats, cat)
                room["seats"] = [
                    {
                        "seat": i,
                        "name": names[i],
                        "ai_level": s.ai_level,
                        "you": s.user_id == user_id,
                        "host": s.user_id is not None and s.user_id == lobby.host_id,
                        "left": False,
                    }
                    for i, s in enumerate(lobby.seats)
                ]
                room["seat"] = next(
                    (i for i, s in enumerate(lobby.seats) if s.user_id == user_id), None
                )
                room.update(
                    max_seats=lobby.max_seats,
                    can_start=lobby.can_start,
                    rules_text=_rules_text(lobby.rules, cat),
                    turn_timeout=lobby.turn_timeout,
                )
            elif phase in (ChannelPhase.PLAYING, ChannelPhase.FINISHED):
                table = await self.service.table(channel_id)
                names = plain_names(table.seats, cat)
                room["seats"] = [
                    {
                        "seat": s.seat,
                        "name": names[s.seat],
                        "ai_level": s.ai_level,
                        "you": s.user_id == user_id,
                        "host": s.user_id is not None and s.user_id == host,
                        "left": s.forfeited,
                    }
                    for s in table.seats
                ]
                room["seat"] = next(
                    (s.seat for s in table.seats if s.user_id == user_id and not s.forfeited),
                    None,
                )
                standings = [{"name": names[s.seat], "losses": s.losses} for s in table.seats]
                self._final[channel_id] = standings
                room.update(
                    max_seats=len(table.seats),
                    rules_text=_rules_text(table.rules, cat),
                    turn_timeout=table.turn_timeout,
                    series_id=table.series_id,
                    game=table.game_id,
                    standings=standings,
                    games=table.series.games if table.series is not None else None,
                    stop_vote=list(table.stop_vote) if table.stop_vote else None,
                )
        except ServiceError:  # it changed meanwhile: the next event brings the new state
            pass
        return room

    # -- idle rooms --------------------------------------------------------------
    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY)
            try:
                await self.close_idle()
            except Exception:  # the sweep must go on
                log.exception("closing idle rooms failed")

    async def close_idle(self) -> list[int]:
        """Close every room idle for ``limits.idle_seconds``: the system stops its game or
        closes its lobby, and ends its series, by its idle rule; its pages are told why.
        Returns the rooms closed."""
        now = self.now()
        closed = []
        rooms = self.directory.open_rooms()
        for gone in set(self._active).union(self._keys, self._final).difference(rooms):
            # ended rooms: forget them (their standings once nobody shows them)
            self._active.pop(gone, None)
            self._keys.pop(gone, None)
            if gone not in self._pages:
                self._final.pop(gone, None)
        for channel in rooms:
            last = self._active.setdefault(channel, now)
            if now - last < self.limits.idle_seconds:
                continue
            # the system's idle rule: a lobby closes; a game stops and its series ends
            with contextlib.suppress(ServiceError):
                await self.service.system_stop(channel, SystemRule.IDLE)
            closed.append(channel)
            self._active.pop(channel, None)
            self._keys.pop(channel, None)
            minutes = max(1, round(self.limits.idle_seconds / 60))
            for page in self.pages(channel):
                frame = {
                    "t": "error",
                    "reason": _sentence(page.conn.cat, _idle_message(minutes)),
                    "code": CLOSE_IDLE,
                }
                await page.conn.flush_and_close(CLOSE_IDLE, frame)
            log.info("room %d closed: idle", channel)
        return closed


# -- helpers ---------------------------------------------------------------------
def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _result(seq: object, cat: Catalog, message: Message) -> dict[str, Any]:
    return {"t": "result", "seq": seq, "ok": False, "reason": _sentence(cat, message)}


def _refusal(status: int, cat: Catalog, message: Message) -> web.HTTPException:
    """An HTTP refusal with ``{"error": <the reason, translated>}``."""
    body = json.dumps({"error": _sentence(cat, message)}, ensure_ascii=False)
    return _STATUS[status](text=body, content_type="application/json")


_STATUS: dict[int, type[web.HTTPException]] = {
    400: web.HTTPBadRequest,
    403: web.HTTPForbidden,
    404: web.HTTPNotFound,
    409: web.HTTPConflict,
    429: web.HTTPTooManyRequests,
    503: web.HTTPServiceUnavailable,
}


async def _close(ws: web.WebSocketResponse, cat: Catalog, message: Message, code: int) -> None:
    frame = {"t": "error", "reason": _sentence(cat, message), "code": code}
    with contextlib.suppress(ConnectionError, RuntimeError):
        await ws.send_str(json.dumps(frame, ensure_ascii=False))
    await ws.close(code=code)


def _accept_language(request: web.Request) -> str | None:
    header = request.headers.get("Accept-Language", "")
    first = header.split(",", 1)[0].split(";", 1)[0].strip()
    return first or None
