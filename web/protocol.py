"""The page sockets' protocol (docs/WEB.md), shared by the table's ``/ws`` (:mod:`web.sockets`)
and the room's ``/ws/room`` (:mod:`web.rooms.socket`).

:class:`PageSocket` is one page's WebSocket under the protocol's rules: an allowed
``Origin`` (else HTTP 403 before the socket opens), a ``hello`` first, within
:data:`HELLO_TIMEOUT` seconds, carrying a valid token (else :data:`CLOSE_AUTH`), every frame
at most :data:`MAX_FRAME` bytes (else :data:`CLOSE_TOO_BIG`) and counted against a token
bucket (:data:`BURST` at once, :data:`RATE` per second), protocol pings included.  A frame
past that rate is not read: a command gets a ``result`` refusing it (:data:`SLOW_DOWN`: a
player who taps faster than the rate is told to wait, and loses nothing to a closed page), a
ping is not answered; past :data:`GRACE` such frames (one more each second) the page is
closed (:data:`CLOSE_RATE`).  A frame is read as a :class:`Frame`: its fields are checked
where they are used (a whole-number ``seq``, ``game``, ``version``, ``seat``; a text of
bounded length), and a bad one is refused with :exc:`BadFrame`; a frame that is not JSON, or
is nested too deep to read, is one too.

Every refusal is a sentence in the reader's language: an ``error`` frame before a close
(:meth:`PageSocket.refuse`), or a ``result`` with ``ok: false`` (:func:`refused`) that changes
nothing and keeps the socket open.  The reader's language is the token's (a Discord locale),
else the ``hello``'s ``lang`` (the browser's), else the request's ``Accept-Language``
(:func:`reader_catalog`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeGuard, TypeVar

from aiohttp import WSMsgType, web

from present.catalog import Catalog, pick_locale
from rules_engine.messages import Message
from web.close_codes import (
    CLOSE_AUTH,
    CLOSE_GONE,
    CLOSE_IDLE,
    CLOSE_RATE,
    CLOSE_SLOW,
    CLOSE_SOCKETS,
    CLOSE_TOO_BIG,
)
from web.tokens import Claims, Signer, TokenError
from web.wording import catalog

if TYPE_CHECKING:
    from web.connection import Connection

__all__ = [
    "BAD_FRAME",
    "BURST",
    "CLOSE_AUTH",
    "CLOSE_GONE",
    "CLOSE_IDLE",
    "CLOSE_RATE",
    "CLOSE_SLOW",
    "CLOSE_SOCKETS",
    "CLOSE_TOO_BIG",
    "GRACE",
    "HELLO_TIMEOUT",
    "MAX_FRAME",
    "RATE",
    "BadFrame",
    "Closed",
    "Frame",
    "MalformedLog",
    "PageSocket",
    "TokenBucket",
    "bad_origin",
    "browser_language",
    "error_frame",
    "is_whole",
    "parse_json",
    "reader_catalog",
    "refused",
    "sentence",
    "serve",
]

#: The largest frame a page may send, in bytes (UTF-8).
MAX_FRAME = 4096
#: Seconds a page has to send ``hello``.
HELLO_TIMEOUT = 10.0
#: Seconds a page has to answer the server's close before its connection is dropped.
CLOSE_WAIT = 1.0
#: Frames a page may send at once, and per second after that.
BURST, RATE = 20, 5.0
#: Frames past that rate a page may send (each refused) before it is closed, and how many
#: more it may each second.
GRACE, GRACE_RATE = 20, 1.0

BAD_FRAME = Message("the page sent a request the server does not understand")
BAD_ORIGIN = Message("this page may not open the table from where it was loaded")


def bad_origin(address: str) -> Message:
    """:data:`BAD_ORIGIN`, naming the address to open instead."""
    return Message(
        "this page may not open the table from where it was loaded: open {address}",
        address=address,
    )


NO_HELLO = Message("the page did not say who it is in time: reload it")
TOO_BIG = Message("the page sent a message that is too big")
TOO_FAST = Message("the page sent too many messages: reload it")
SLOW_DOWN = Message("that was too fast: wait a moment and try again")


class TokenBucket:
    """``burst`` frames at once, refilled at ``rate`` per second."""

    __slots__ = ("_burst", "_last", "_now", "_rate", "_tokens")

    def __init__(self, burst: int, rate: float, now: Callable[[], float] = time.monotonic) -> None:
        self._burst, self._rate, self._now = float(burst), rate, now
        self._tokens = float(burst)
        self._last = now()

    def _refill(self) -> None:
        now = self._now()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now

    def full(self) -> bool:
        """Whether no token is spent (the bucket says nothing: it may be forgotten)."""
        self._refill()
        return self._tokens >= self._burst

    def take(self) -> bool:
        """Spend one token; False if there is none."""
        self._refill()
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


# -- malformed input -----------------------------------------------------------------
class MalformedLog:
    """One log line at most every ``every`` seconds about malformed input (bodies and
    frames that are not JSON, or nested too deep to read), however much of it comes; the
    lines left out are counted in the next one."""

    def __init__(
        self,
        logger: logging.Logger,
        every: float = 10.0,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger, self.every, self.now = logger, every, now
        self._next = 0.0
        self._quiet = 0

    def note(self, what: str) -> None:
        """Malformed input of the kind ``what`` arrived."""
        now = self.now()
        if now < self._next:
            self._quiet += 1
            return
        more = f" (and {self._quiet} more since the last line)" if self._quiet else ""
        self.logger.info("refused malformed input: %s%s", what, more)
        self._next, self._quiet = now + self.every, 0


#: Malformed input to every route of the web server.
MALFORMED = MalformedLog(logging.getLogger("web.malformed"))


def parse_json(text: str | bytes, what: str) -> object:
    """``text`` as JSON; :exc:`ValueError` if it is not JSON or is nested too deep to read
    (noted in :data:`MALFORMED` as ``what``)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        MALFORMED.note(what)
        raise ValueError(f"{what} is not JSON that can be read") from None


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
            data = parse_json(text, "a socket frame")
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


#: Sockets being closed from a timer (kept until they are closed).
_CLOSING: set[asyncio.Task[None]] = set()


class _WebSocket(web.WebSocketResponse):
    """aiohttp's server WebSocket, whose heartbeat stays stopped once the socket closes.

    aiohttp (3.14) restarts a socket's heartbeat timer whenever data arrives, also after the
    socket closed (the page's own close frame arrives after ours): the timer then keeps the
    closed socket, its request and buffers, about 11 KiB, for one heartbeat and one pong
    timeout (45 s).  A flood of refused sockets held that much each; here a closed socket's
    heartbeat is not restarted, so it is freed as soon as it closes."""

    def _reset_heartbeat(self) -> None:
        if self.closed or getattr(self, "_closing", False):
            return
        super()._reset_heartbeat()


class PageSocket:
    """One page's WebSocket under the protocol (see the module docstring).

    Refusals go straight to the socket until :meth:`attach` gives it the page's
    :class:`~web.connection.Connection`; from then on every frame, refusals included, is
    queued behind the frames already waiting.  Every frame the page sends counts against its
    rate: text frames and WebSocket protocol pings and pongs alike."""

    __slots__ = ("_bucket", "_expiry", "_grace", "cat", "conn", "request", "ws")

    def __init__(
        self, ws: web.WebSocketResponse, cat: Catalog, request: web.Request | None = None
    ) -> None:
        self.ws = ws
        #: The reader's catalogue (the browser's language until the hello says more).
        self.cat = cat
        self.conn: Connection | None = None
        #: The request that opened the socket (its address, for the limits).
        self.request = request
        self._bucket = TokenBucket(BURST, RATE)
        self._grace = TokenBucket(GRACE, GRACE_RATE)
        self._expiry: asyncio.TimerHandle | None = None

    @classmethod
    async def accept(cls, request: web.Request) -> PageSocket:
        """Open the page's socket."""
        # No permessage-deflate: a page gets about one 2 KB frame a second, and each socket's
        # compressor would cost it some 110 KB of memory (the benchmark's kb_per_page).
        # Pings are answered here (autoping off), so that they count against the rate.  A
        # page has CLOSE_WAIT seconds to answer our close (a page that floods instead of
        # reading is dropped then, not read from for aiohttp's 10 s).
        ws = _WebSocket(
            max_msg_size=4 * MAX_FRAME,
            heartbeat=30.0,
            compress=False,
            autoping=False,
            timeout=CLOSE_WAIT,
        )
        await ws.prepare(request)
        return cls(ws, catalog(browser_language(request)), request)

    def attach(self, conn: Connection, expired: Message) -> None:
        """Start ``conn`` and send through it from now on (its reader's catalogue too); when
        the token it was opened with expires, close the page saying ``expired``."""
        conn.start()
        self.conn = conn
        self.cat = conn.cat
        self.expire_at(conn.claims.expires, expired)

    def expire_at(self, when: float, message: Message) -> None:
        """Close the socket (:data:`CLOSE_AUTH`, saying ``message``) at ``when`` (seconds
        since the epoch): when the token it was opened with expires."""
        delay = max(0.0, when - time.time())
        self._expiry = asyncio.get_running_loop().call_later(delay, self._expire, message)

    def _expire(self, message: Message) -> None:
        self._expiry = None
        task = asyncio.get_running_loop().create_task(self._refuse_quietly(message, CLOSE_AUTH))
        _CLOSING.add(task)
        task.add_done_callback(_CLOSING.discard)

    async def _refuse_quietly(self, message: Message, code: int) -> None:
        with contextlib.suppress(Closed):
            await self.refuse(message, code)

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
        deadline = time.monotonic() + HELLO_TIMEOUT
        try:
            frame = await self.next_frame(deadline, answer_pings=False)
        except TimeoutError:
            await self.refuse(NO_HELLO, CLOSE_AUTH)
        self.cat = reader_catalog(frame.get("lang"), self.cat)
        if frame.kind != "hello":
            await self.refuse(NO_HELLO, CLOSE_AUTH)
        return frame

    async def hello_claims(self, signer: Signer) -> tuple[Frame, Claims]:
        """The page's ``hello`` (:meth:`hello`) and the claims of the token it carries, checked
        by ``signer``; a token that is not valid is refused (:data:`CLOSE_AUTH`, saying why)."""
        frame = await self.hello()
        try:
            claims = signer.verify(frame.get("token"))
        except TokenError as exc:
            await self.refuse(exc.message, CLOSE_AUTH)
        return frame, claims

    async def close(self) -> None:
        """Close the socket if it is still open (the end of every handler)."""
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = None
        if not self.ws.closed:
            await self.ws.close()

    def send(self, frame: dict[str, Any]) -> None:
        """Queue ``frame`` to the page (after :meth:`attach`)."""
        assert self.conn is not None, "a frame before the page said hello"
        self.conn.send(frame)

    async def next_frame(
        self, deadline: float | None = None, *, answer_pings: bool = True
    ) -> Frame:
        """The page's next text frame, after the size and rate limits (:exc:`Closed` once the
        page is gone, :exc:`TimeoutError` past ``deadline``).  Protocol pings are counted and
        answered, pongs counted; with ``answer_pings`` (after the hello) a ``ping`` frame is
        answered here too.  One loop, not a method awaiting another: a page waits in it for
        as long as it is open, and each coroutine waiting costs every page its memory."""
        while True:
            timeout = None if deadline is None else deadline - time.monotonic()
            if timeout is not None and timeout <= 0:
                raise TimeoutError()
            msg = await self.ws.receive(timeout=timeout)
            if msg.type in (WSMsgType.PING, WSMsgType.PONG):
                if await self._within_rate() and msg.type is WSMsgType.PING:
                    with contextlib.suppress(ConnectionError, RuntimeError):
                        await self.ws.pong(msg.data)
                continue
            frame = await self._read(msg)
            if frame is None:
                continue
            if not answer_pings or frame.kind != "ping":
                return frame
            self.send({"t": "pong"})

    async def _within_rate(self) -> bool:
        """Whether one more frame is within the page's rate; a frame past it is not read
        while the page's grace lasts, then the page is closed (see the module docstring)."""
        if self._bucket.take():
            return True
        if not self._grace.take():
            await self.refuse(TOO_FAST, CLOSE_RATE)
        return False

    async def _read(self, msg: Any) -> Frame | None:
        """A received message as a frame, after the size and rate limits (``None``: past the
        rate, refused if it was a command)."""
        if msg.type is WSMsgType.BINARY:
            await self.refuse(BAD_FRAME, CLOSE_AUTH)
        if msg.type is not WSMsgType.TEXT:
            # closed, closing, or an error (a frame over the socket's hard limit ends here)
            raise Closed()
        data: str = msg.data
        if len(data) > MAX_FRAME or len(data.encode("utf-8")) > MAX_FRAME:
            await self.refuse(TOO_BIG, CLOSE_TOO_BIG)
        if not await self._within_rate():
            seq = Frame.parse(data).seq if self.conn is not None else None
            if seq is not None:
                self.send(refused(seq, self.cat, SLOW_DOWN))
            return None
        return Frame.parse(data)


Session = TypeVar("Session")


async def serve(
    request: web.Request,
    origins: frozenset[str],
    hello: Callable[[PageSocket], Awaitable[Session]],
    command: Callable[[PageSocket, Session, Frame], Awaitable[None]],
    closed: Callable[[Session], Awaitable[None]],
) -> web.WebSocketResponse:
    """A page's socket from its opening to its close: a request from another origin is
    refused before it becomes a WebSocket (HTTP 403: nothing is held for it), ``hello(page)``
    makes the page's session from its hello, each later frame goes to ``command``, and
    ``closed(session)`` is called once the page is gone."""
    if request.headers.get("Origin") not in origins:
        cat = catalog(browser_language(request))
        raise web.HTTPForbidden(text=sentence(cat, BAD_ORIGIN))
    page = await PageSocket.accept(request)
    session: Session | None = None
    try:
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
