"""``GET /ws``: one WebSocket per open page (the protocol is docs/WEB.md).

A page connects from an allowed ``Origin`` (else ``error`` + close 4003), sends ``hello`` with
its token within :data:`HELLO_TIMEOUT` seconds (else close 4001), and is then a player or a
watcher of one channel's table (:class:`~web.connection.Connection`, registered with the
:class:`~web.presenter.WebPresenter`).  It gets ``welcome``, the table and (a player) its
hand, then every change as it is stored.

Every frame a page sends is at most :data:`MAX_FRAME` bytes (else close 4009) and counted
against a token bucket (burst :data:`BURST`, :data:`RATE` per second; else close 4008).
``act``, ``rematch`` and ``end_series`` are the service's commands for the player's seat, the
same calls the Discord buttons make, under the same lock; each is answered by a ``result``.
A refusal carries the service's reason in the reader's language, changes nothing, and is
followed by the current table and hand (a stale page catches up at once).

The player's seat is checked on every command (the token itself stays valid): a player who
forfeited (left or was kicked) is refused with the reason and becomes a watcher.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Callable
from typing import Any

from aiohttp import WSMsgType, web

from bot.errors import Forfeited, NotSeated, ServiceError, StaleAction
from bot.service import GameService
from bot.views import TableView
from present.catalog import Catalog, pick_locale
from rules_engine.messages import Message
from web.connection import Connection
from web.presenter import WebPresenter
from web.serialize import welcome_json
from web.tokens import Claims, Signer, TokenError
from web.wording import catalog

__all__ = [
    "BURST",
    "CLOSE_AUTH",
    "CLOSE_GONE",
    "CLOSE_ORIGIN",
    "CLOSE_RATE",
    "CLOSE_TOO_BIG",
    "HELLO_TIMEOUT",
    "MAX_FRAME",
    "RATE",
    "SocketHandler",
    "TokenBucket",
]

log = logging.getLogger(__name__)

#: Close codes (with an ``error`` frame first): a bad, expired or missing token or no hello;
#: a bad Origin; no game in the channel; too many frames; a frame too big.
CLOSE_AUTH, CLOSE_ORIGIN, CLOSE_GONE, CLOSE_RATE, CLOSE_TOO_BIG = 4001, 4003, 4004, 4008, 4009
#: The largest frame a page may send, in bytes (UTF-8).
MAX_FRAME = 4096
#: Seconds a page has to send ``hello``.
HELLO_TIMEOUT = 10.0
#: Frames a page may send at once, and per second after that.
BURST, RATE = 20, 5.0
#: The longest action text accepted (``defend 10♥ 10♠`` is 15 characters).
MAX_ACTION = 64

_BAD_ORIGIN = Message("this page may not open the table from where it was loaded")
_NO_HELLO = Message("the page did not say who it is in time: reload it")
_TOO_BIG = Message("the page sent a message that is too big")
_TOO_FAST = Message("the page sent too many messages: reload it")
_BAD_FRAME = Message("the page sent a request the server does not understand")
_WATCHER = Message("you are watching this table: only its players can play")
_OLD_SERIES = Message("this link is for an earlier series: open the table again from the game")


class TokenBucket:
    """``burst`` frames at once, refilled at ``rate`` per second."""

    def __init__(self, burst: int, rate: float, now: Callable[[], float] = time.monotonic) -> None:
        self._burst, self._rate, self._now = float(burst), rate, now
        self._tokens = float(burst)
        self._last = now()

    def take(self) -> bool:
        """Spend one token; False if there is none."""
        now = self._now()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


class _Closed(Exception):
    """The socket was closed with an error frame (the handler returns)."""


class SocketHandler:
    """The ``/ws`` route (see the module docstring)."""

    def __init__(
        self,
        service: GameService,
        presenter: WebPresenter,
        signer: Signer,
        origins: frozenset[str],
    ) -> None:
        self.service = service
        self.presenter = presenter
        self.signer = signer
        self.origins = origins
        #: Given to every page's connection: told of each frame written (benchmark only).
        self.on_sent: Callable[[str], None] | None = None

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """``GET /ws``."""
        # No permessage-deflate: a page gets about one 2 KB frame a second, and each socket's
        # compressor would cost it some 110 KB of memory (the benchmark's kb_per_page).
        ws = web.WebSocketResponse(max_msg_size=4 * MAX_FRAME, heartbeat=30.0, compress=False)
        await ws.prepare(request)
        fallback = catalog(_browser_language(request))
        conn: Connection | None = None
        try:
            if request.headers.get("Origin") not in self.origins:
                log.info("a page from a foreign origin was refused")
                await _refuse(ws, fallback, _BAD_ORIGIN, CLOSE_ORIGIN)
                return ws
            bucket = TokenBucket(BURST, RATE)
            conn = await self._hello(ws, fallback, bucket)
            await self._serve(conn, bucket)
        except _Closed:
            pass
        finally:
            if conn is not None:
                self.presenter.remove(conn)
                await conn.stop()
            if not ws.closed:
                await ws.close()
        return ws

    # -- hello -------------------------------------------------------------------
    async def _hello(
        self, ws: web.WebSocketResponse, fallback: Catalog, bucket: TokenBucket
    ) -> Connection:
        try:
            msg = await ws.receive(timeout=HELLO_TIMEOUT)
        except TimeoutError:
            await _refuse(ws, fallback, _NO_HELLO, CLOSE_AUTH)
            raise _Closed() from None
        if msg.type is not WSMsgType.TEXT:
            if msg.type is WSMsgType.BINARY:
                await _refuse(ws, fallback, _BAD_FRAME, CLOSE_AUTH)
            raise _Closed()
        frame = await _frame(ws, fallback, msg.data, bucket)
        lang = frame.get("lang")
        cat = catalog(lang if isinstance(lang, str) else fallback.locale)
        if frame.get("t") != "hello":
            await _refuse(ws, cat, _NO_HELLO, CLOSE_AUTH)
            raise _Closed()
        try:
            claims = self.signer.verify(frame.get("token"))
        except TokenError as exc:
            await _refuse(ws, cat, exc.message, CLOSE_AUTH)
            raise _Closed() from None
        cat = catalog(pick_locale(claims.locale, lang if isinstance(lang, str) else None))
        try:
            table = await self.service.table(claims.channel_id)
        except ServiceError as exc:
            await _refuse(ws, cat, exc.message, CLOSE_GONE)
            raise _Closed() from None
        if claims.kind == "player" and claims.series_id != table.series_id:
            await _refuse(ws, cat, _OLD_SERIES, CLOSE_AUTH)
            raise _Closed()
        seat = _seat_of(claims, table)
        conn = Connection(
            ws,
            claims.channel_id,
            "watcher" if seat is None else "player",
            cat,
            claims,
            user_id=claims.user_id,
            seat=seat,
            on_sent=self.on_sent,
        )
        conn.start()
        conn.send(welcome_json(conn.role, seat, conn.user_id, conn.channel_id, cat))
        self.presenter.add(conn, table)
        await self.refresh(conn, table)
        log.debug("a page of channel %d opened as a %s", conn.channel_id, conn.role)
        return conn

    async def refresh(self, conn: Connection, table: TableView | None = None) -> None:
        """Send ``conn`` the current table and (a player) hand, unless newer ones went."""
        if table is None:
            try:
                table = await self.service.table(conn.channel_id)
            except ServiceError:
                return
        key = (table.game_id, table.version)
        if conn.table_key is None or key >= conn.table_key:
            conn.table_key = key
            conn.send(self.presenter.table_frame(table, conn))
        if conn.role != "player" or conn.user_id is None:
            return
        try:
            hand = await self.service.hand(conn.channel_id, conn.user_id)
        except Forfeited:
            self.presenter.demote(conn)
            return
        except ServiceError:
            return
        key = (hand.game_id, hand.version)
        if conn.role == "player" and (conn.hand_key is None or key >= conn.hand_key):
            conn.hand_key = key
            conn.send(self.presenter.hand_frame(hand, conn))

    # -- frames ------------------------------------------------------------------
    async def _serve(self, conn: Connection, bucket: TokenBucket) -> None:
        ws = conn.ws
        while True:
            msg = await ws.receive()
            if msg.type is WSMsgType.TEXT:
                frame = await _frame(ws, conn.cat, msg.data, bucket, conn)
                await self._command(conn, frame)
            elif msg.type is WSMsgType.BINARY:
                await _refuse(ws, conn.cat, _BAD_FRAME, CLOSE_AUTH, conn)
                return
            elif msg.type is WSMsgType.ERROR and ws.exception() is not None:
                # a frame over the socket's hard limit (4 × MAX_FRAME) ends here too
                return
            else:  # close, closing, closed
                return

    async def _command(self, conn: Connection, frame: dict[str, Any]) -> None:
        kind = frame.get("t")
        seq = frame.get("seq")
        if kind == "ping":
            conn.send({"t": "pong"})
            return
        if kind not in ("act", "rematch", "end_series") or not _is_int(seq):
            conn.send(_result(seq if _is_int(seq) else None, conn.cat, _BAD_FRAME))
            return
        if conn.claims.expires <= time.time():
            await self._expire(conn)
        if conn.role != "player" or conn.user_id is None:
            conn.send(_result(seq, conn.cat, _WATCHER))
            return
        channel, user = conn.channel_id, conn.user_id
        try:
            if self.service.seat_of(channel, user) != conn.seat:
                raise NotSeated()
            if kind == "act":
                action, game, version = frame.get("action"), frame.get("game"), frame.get("version")
                if not (
                    isinstance(action, str)
                    and 0 < len(action) <= MAX_ACTION
                    and _is_int(game)
                    and _is_int(version)
                ):
                    conn.send(_result(seq, conn.cat, _BAD_FRAME))
                    return
                await self.service.act(channel, user, action, version, game_id=game)
            elif kind == "rematch":
                await self.service.rematch(channel, user)
            else:
                await self.service.end_series(channel, user)
        except ServiceError as exc:
            names = self.presenter.names(channel, conn.cat)
            conn.send(
                _result(seq, conn.cat, exc.message, names, stale=isinstance(exc, StaleAction))
            )
            if isinstance(exc, Forfeited | NotSeated):
                self.presenter.demote(conn)
            await self.refresh(conn)
            return
        conn.send({"t": "result", "seq": seq, "ok": True})

    async def _expire(self, conn: Connection) -> None:
        message = Message("this link has expired: open the table again from the game")
        await _refuse(conn.ws, conn.cat, message, CLOSE_AUTH, conn)
        raise _Closed()


# -- helpers ---------------------------------------------------------------------
def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _sentence(cat: Catalog, message: Message, names: list[str] | None = None) -> str:
    text = cat.render(message, names or ())
    return text[:1].upper() + text[1:]


def _result(
    seq: int | None,
    cat: Catalog,
    message: Message,
    names: list[str] | None = None,
    *,
    stale: bool = False,
) -> dict[str, Any]:
    return {
        "t": "result",
        "seq": seq,
        "ok": False,
        "reason": _sentence(cat, message, names),
        "stale": stale,
    }


async def _refuse(
    ws: web.WebSocketResponse,
    cat: Catalog,
    message: Message,
    code: int,
    conn: Connection | None = None,
) -> None:
    """Send an ``error`` frame with ``message`` and close with ``code``."""
    frame = {"t": "error", "reason": _sentence(cat, message), "code": code}
    if conn is not None:
        await conn.flush_and_close(code, frame)
        return
    with contextlib.suppress(ConnectionError, RuntimeError):
        await ws.send_str(json.dumps(frame, ensure_ascii=False))
    await ws.close(code=code)


async def _frame(
    ws: web.WebSocketResponse,
    cat: Catalog,
    data: str,
    bucket: TokenBucket,
    conn: Connection | None = None,
) -> dict[str, Any]:
    """A page's frame as a dict, after the size and rate limits (a frame over a limit
    closes the socket: :class:`_Closed`)."""
    if len(data) > MAX_FRAME or len(data.encode("utf-8")) > MAX_FRAME:
        await _refuse(ws, cat, _TOO_BIG, CLOSE_TOO_BIG, conn)
        raise _Closed()
    if not bucket.take():
        await _refuse(ws, cat, _TOO_FAST, CLOSE_RATE, conn)
        raise _Closed()
    try:
        frame = json.loads(data)
    except ValueError:
        frame = None
    return frame if isinstance(frame, dict) else {}


def _seat_of(claims: Claims, table: TableView) -> int | None:
    """The seat a player token may play now: its user's, unless they forfeited it."""
    if claims.kind != "player" or claims.user_id is None:
        return None
    for s in table.seats:
        if s.user_id == claims.user_id:
            return None if s.forfeited else s.seat
    return None


def _browser_language(request: web.Request) -> str | None:
    """The first language of the request's ``Accept-Language`` (for errors before hello)."""
    header = request.headers.get("Accept-Language", "")
    first = header.split(",", 1)[0].split(";", 1)[0].strip()
    return first or None
