"""The page sockets' protocol (docs/WEB.md), shared by the table's ``/ws`` (:mod:`web.sockets`)
and the room's ``/ws/room`` (:mod:`web.rooms.socket`).

:class:`PageSocket` is one page's WebSocket under the protocol's rules: an allowed ``Origin``
(else :data:`CLOSE_ORIGIN`), a ``hello`` first, within :data:`HELLO_TIMEOUT` seconds (else
:data:`CLOSE_AUTH`), every frame at most :data:`MAX_FRAME` bytes (else :data:`CLOSE_TOO_BIG`)
and counted against a token bucket (:data:`BURST` at once, :data:`RATE` per second; else
:data:`CLOSE_RATE`).  A frame is read as a :class:`Frame`: its fields are checked where they
are used (a whole-number ``seq``, ``game``, ``version``, ``seat``; a text of bounded length),
and a bad one is refused with :exc:`BadFrame`.

Every refusal is a sentence in the reader's language: an ``error`` frame before a close
(:meth:`PageSocket.refuse`), or a ``result`` with ``ok: false`` (:func:`refused`) that changes
nothing and keeps the socket open.  The reader's language is the token's (a Discord locale),
else the ``hello``'s ``lang`` (the browser's), else the request's ``Accept-Language``
(:func:`reader_catalog`).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeGuard, TypeVar

from aiohttp import WSMsgType, web

from present.catalog import Catalog, pick_locale
from rules_engine.messages import Message
from web.wording import catalog

if TYPE_CHECKING:
    from web.connection import Connection

__all__ = [
    "BAD_FRAME",
    "BURST",
    "CLOSE_AUTH",
    "CLOSE_GONE",
    "CLOSE_IDLE",
    "CLOSE_ORIGIN",
    "CLOSE_RATE",
    "CLOSE_SLOW",
    "CLOSE_SOCKETS",
    "CLOSE_TOO_BIG",
    "HELLO_TIMEOUT",
    "MAX_FRAME",
    "RATE",
    "BadFrame",
    "Closed",
    "Frame",
    "PageSocket",
    "TokenBucket",
    "browser_language",
    "error_frame",
    "is_whole",
    "reader_catalog",
    "refused",
    "sentence",
    "serve",
]

#: Close codes, each after an ``error`` frame that says why (docs/WEB.md): a bad, expired or
#: missing token, or no hello; a bad ``Origin``; no game (a table) or a closed room; too many
#: frames; a frame too big; a room closed for being idle; too many sockets from one address.
CLOSE_AUTH, CLOSE_ORIGIN, CLOSE_GONE = 4001, 4003, 4004
CLOSE_RATE, CLOSE_TOO_BIG, CLOSE_IDLE, CLOSE_SOCKETS = 4008, 4009, 4010, 4029
#: The close code of a page that does not read its frames (no ``error`` frame: try again).
CLOSE_SLOW = 1013
#: The largest frame a page may send, in bytes (UTF-8).
MAX_FRAME = 4096
#: Seconds a page has to send ``hello``.
HELLO_TIMEOUT = 10.0
#: Frames a page may send at once, and per second after that.
BURST, RATE = 20, 5.0

BAD_FRAME = Message("the page sent a request the server does not understand")
BAD_ORIGIN = Message("this page may not open the table from where it was loaded")
NO_HELLO = Message("the page did not say who it is in time: reload it")
TOO_BIG = Message("the page sent a message that is too big")
TOO_FAST = Message("the page sent too many messages: reload it")


class TokenBucket:
    """``burst`` frames at once, refilled at ``rate`` per second."""

    __slots__ = ("_burst", "_last", "_now", "_rate", "_tokens")

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


# -- words -------------------------------------------------------------------------
def sentence(cat: Catalog, message: Message, names: Sequence[str] = ()) -> str:
    """``message`` in ``cat``'s language as a sentence (capitalised); ``names`` name its
    ``Seat`` parameters."""
    text = cat.render(message, names)
    return text[:1].upper() + text[1:]


def error_frame(cat: Catalog, message: Message, code: int) -> dict[str, Any]:
    """The ``error`` frame sent before closing with ``code``."""
    return {"t": "error", "reason": sentence(cat, message), "code": code}


def refused(
    seq: int | None, cat: Catalog, message: Message, names: Sequence[str] = (), **extra: Any
) -> dict[str, Any]:
    """A refused command's ``result`` (``extra``: more fields, as ``stale``)."""
    reason = sentence(cat, message, names)
    return {"t": "result", "seq": seq, "ok": False, "reason": reason, **extra}


def browser_language(request: web.BaseRequest) -> str | None:
    """The first language of the request's ``Accept-Language``."""
    header = request.headers.get("Accept-Language", "")
    first = header.split(",", 1)[0].split(";", 1)[0].strip()
    return first or None


def reader_catalog(lang: object, fallback: Catalog, token_locale: str | None = None) -> Catalog:
    """The reader's catalogue: the token's locale, else ``lang`` (a ``hello``'s, if it is
    text), else ``fallback``'s (the browser's ``Accept-Language``), else English."""
    said = lang[:16] if isinstance(lang, str) else None
    return catalog(pick_locale(token_locale, said or fallback.locale))


# -- frames ------------------------------------------------------------------------
def is_whole(value: object) -> TypeGuard[int]:
    """Whether ``value`` is a whole number of JSON (``true`` is not one)."""
    return isinstance(value, int) and not isinstance(value, bool)


class BadFrame(Exception):
    """A frame the server does not understand: refused with :data:`BAD_FRAME`, nothing
    changes, the socket stays open."""


class Frame:
    """A page's frame (a JSON object; anything else reads as an empty one)."""

    __slots__ = ("data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    @classmethod
    def parse(cls, text: str) -> Frame:
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        return cls(data if isinstance(data, dict) else {})

    @property
    def kind(self) -> str | None:
        """Its type, ``t``."""
        kind = self.data.get("t")
        return kind if isinstance(kind, str) else None

    @property
    def seq(self) -> int | None:
        """Its ``seq``, if a whole number (a command's answer carries it back)."""
        seq = self.data.get("seq")
        return seq if is_whole(seq) else None

    def get(self, name: str) -> Any:
        return self.data.get(name)

    def whole(self, name: str) -> int:
        """The whole number ``name`` (:exc:`BadFrame` if it is not one)."""
        value = self.data.get(name)
        if not is_whole(value):
            raise BadFrame(name)
        return value

    def whole_or_none(self, name: str) -> int | None:
        """The whole number ``name``, or ``None`` when it is absent or not one."""
        value = self.data.get(name)
        return value if is_whole(value) else None

    def text(self, name: str, longest: int) -> str:
        """The text ``name`` of 1 to ``longest`` characters (:exc:`BadFrame` if not)."""
        value = self.data.get(name)
        if not isinstance(value, str) or not 0 < len(value) <= longest:
            raise BadFrame(name)
        return value


class Closed(Exception):
    """The socket was closed (after an ``error`` frame, or by the page): the handler ends."""


class PageSocket:
    """One page's WebSocket under the protocol (see the module docstring).

    Refusals go straight to the socket until :meth:`attach` gives it the page's
    :class:`~web.connection.Connection`; from then on every frame, refusals included, is
    queued behind the frames already waiting."""

    __slots__ = ("_bucket", "cat", "conn", "ws")

    def __init__(self, ws: web.WebSocketResponse, cat: Catalog) -> None:
        self.ws = ws
        #: The reader's catalogue (the browser's language until the hello says more).
        self.cat = cat
        self.conn: Connection | None = None
        self._bucket = TokenBucket(BURST, RATE)

    @classmethod
    async def accept(cls, request: web.Request) -> PageSocket:
        """Open the page's socket."""
        # No permessage-deflate: a page gets about one 2 KB frame a second, and each socket's
        # compressor would cost it some 110 KB of memory (the benchmark's kb_per_page).
        ws = web.WebSocketResponse(max_msg_size=4 * MAX_FRAME, heartbeat=30.0, compress=False)
        await ws.prepare(request)
        return cls(ws, catalog(browser_language(request)))

    async def require_origin(self, request: web.Request, origins: frozenset[str]) -> None:
        """Refuse (:data:`CLOSE_ORIGIN`) a page whose ``Origin`` is not one of ``origins``."""
        if request.headers.get("Origin") not in origins:
            await self.refuse(BAD_ORIGIN, CLOSE_ORIGIN)

    def attach(self, conn: Connection) -> None:
        """Send through ``conn`` from now on (its reader's catalogue too)."""
        self.conn = conn
        self.cat = conn.cat

    async def refuse(self, message: Message, code: int) -> NoReturn:
        """Send an ``error`` frame saying ``message``, close with ``code``, end the handler
        (:exc:`Closed`)."""
        frame = error_frame(self.cat, message, code)
        if self.conn is not None:
            await self.conn.flush_and_close(code, frame)
        else:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await self.ws.send_str(json.dumps(frame, ensure_ascii=False))
            await self.ws.close(code=code)
        raise Closed()

    async def hello(self) -> Frame:
        """The page's first frame, a ``hello`` (else refused: :data:`CLOSE_AUTH`); the
        reader's catalogue follows its ``lang``."""
        try:
            msg = await self.ws.receive(timeout=HELLO_TIMEOUT)
        except TimeoutError:
            await self.refuse(NO_HELLO, CLOSE_AUTH)
        frame = await self._read(msg)
        self.cat = reader_catalog(frame.get("lang"), self.cat)
        if frame.kind != "hello":
            await self.refuse(NO_HELLO, CLOSE_AUTH)
        return frame

    async def next_frame(self) -> Frame:
        """The page's next frame after the hello (:exc:`Closed` once the page is gone);
        ``ping`` is answered here."""
        while True:
            frame = await self._read(await self.ws.receive())
            if frame.kind != "ping":
                return frame
            self.send({"t": "pong"})

    async def close(self) -> None:
        """Close the socket if it is still open (the end of every handler)."""
        if not self.ws.closed:
            await self.ws.close()

    def send(self, frame: dict[str, Any]) -> None:
        """Queue ``frame`` to the page (after :meth:`attach`)."""
        assert self.conn is not None, "a frame before the page said hello"
        self.conn.send(frame)

    async def _read(self, msg: Any) -> Frame:
        """A received message as a frame, after the size and rate limits."""
        if msg.type is WSMsgType.BINARY:
            await self.refuse(BAD_FRAME, CLOSE_AUTH)
        if msg.type is not WSMsgType.TEXT:
            # closed, closing, or an error (a frame over the socket's hard limit ends here)
            raise Closed()
        data: str = msg.data
        if len(data) > MAX_FRAME or len(data.encode("utf-8")) > MAX_FRAME:
            await self.refuse(TOO_BIG, CLOSE_TOO_BIG)
        if not self._bucket.take():
            await self.refuse(TOO_FAST, CLOSE_RATE)
        return Frame.parse(data)


Session = TypeVar("Session")


async def serve(
    request: web.Request,
    origins: frozenset[str],
    hello: Callable[[PageSocket], Awaitable[Session]],
    command: Callable[[PageSocket, Session, Frame], Awaitable[None]],
    closed: Callable[[Session], Awaitable[None]],
) -> web.WebSocketResponse:
    """A page's socket from its opening to its close: the origin is checked, ``hello(page)``
    makes the page's session from its hello, each later frame goes to ``command``, and
    ``closed(session)`` is called once the page is gone."""
    page = await PageSocket.accept(request)
    session: Session | None = None
    try:
        await page.require_origin(request, origins)
        session = await hello(page)
        while True:  # until the page is gone (Closed)
            await command(page, session, await page.next_frame())
    except Closed:
        pass
    finally:
        if session is not None:
            await closed(session)
        await page.close()
    return page.ws
