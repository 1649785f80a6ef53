"""``GET /ws``: one WebSocket per open page (the protocol is docs/WEB.md).

The socket follows the pages' protocol (:mod:`web.protocol`: origin, hello, frame size and
rate, refusals, close codes, language).  After its ``hello`` with a token, a page is a player
or a watcher of one channel's table (:class:`~web.connection.Connection`, registered with the
:class:`~web.presenter.WebPresenter`).  It gets ``welcome``, the table and (a player) its
hand, then every change as it is stored.

``act``, ``rematch`` and ``end_series`` are the service's commands for the player's seat, the
same calls the Discord buttons make, under the same lock; each is answered by a ``result``.
A refusal carries the service's reason in the reader's language, changes nothing, and is
followed by the current table and hand (a stale page catches up at once).

``review`` (a player's token only) asks the coach's review of that player's own decisions in
the table's ended game ``game``: ``review_progress`` frames follow while it is made, then the
``review`` frame (:mod:`web.review`), or a refusal ``result``.  It runs beside the page's
other commands (a review can take seconds; the page keeps playing meanwhile).

The socket closes when its token expires.  The player's seat is checked on every command (the
token itself stays valid): a player who
forfeited (left or was kicked) is refused with the reason and becomes a watcher.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from aiohttp import web

from bot.errors import Forfeited, NotSeated, ServiceError, StaleAction
from bot.service import GameService
from bot.views import TableView
from rules_engine.messages import Message
from web.connection import Connection
from web.presenter import WebPresenter
from web.protocol import (
    BAD_FRAME,
    CLOSE_AUTH,
    CLOSE_GONE,
    BadFrame,
    Frame,
    PageSocket,
    reader_catalog,
    refused,
    serve,
)
from web.review import progress_json, review_json
from web.serialize import welcome_json
from web.tokens import Claims, Signer

__all__ = ["MAX_ACTION", "SocketHandler"]

log = logging.getLogger(__name__)

#: The longest action text accepted (``defend 10♥ 10♠`` is 15 characters).
MAX_ACTION = 64

_WATCHER = Message("you are watching this table: only its players can play")
_OLD_SERIES = Message("this link is for an earlier series: open the table again from the game")
_EXPIRED = Message("this link has expired: open the table again from the game")
_NOT_A_PLAYER = Message("only the game's players can ask for its review, each their own")


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
        #: Reviews being made for pages (kept referenced until they end).
        self._reviews: set[asyncio.Task[None]] = set()

    def handle(self, request: web.Request) -> Awaitable[web.StreamResponse]:
        """``GET /ws``."""
        return serve(request, self.origins, self._hello, self._command, self._closed)

    async def _closed(self, conn: Connection) -> None:
        self.presenter.remove(conn)
        await conn.stop()

    # -- hello -------------------------------------------------------------------
    async def _hello(self, page: PageSocket) -> Connection:
        frame, claims = await page.hello_claims(self.signer)
        page.cat = cat = reader_catalog(frame.get("lang"), page.cat, claims.locale)
        try:
            table = await self.service.table(claims.channel_id)
        except ServiceError as exc:
            await page.refuse(exc.message, CLOSE_GONE)
        if claims.kind == "player" and claims.series_id != table.series_id:
            await page.refuse(_OLD_SERIES, CLOSE_AUTH)
        seat = _seat_of(claims, table)
        conn = Connection(
            page.ws,
            claims.channel_id,
            "watcher" if seat is None else "player",
            cat,
            claims,
            user_id=claims.user_id,
            seat=seat,
            on_sent=self.on_sent,
        )
        page.attach(conn, _EXPIRED)
        conn.send(welcome_json(conn.role, seat, conn.user_id, conn.channel_id, cat))
        self.presenter.add(conn, table)
        self.service.sync.catch_up(conn.channel_id)  # a change heard while it was read
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

    # -- commands ----------------------------------------------------------------
    async def _command(self, page: PageSocket, conn: Connection, frame: Frame) -> None:
        kind, seq = frame.kind, frame.seq
        if kind == "review" and seq is not None:
            await self._review(page, conn, frame, seq)
            return
        if kind not in ("act", "rematch", "end_series") or seq is None:
            conn.send(refused(seq, conn.cat, BAD_FRAME, stale=False))
            return
        if conn.claims.expires <= time.time():
            await page.refuse(_EXPIRED, CLOSE_AUTH)
        if conn.role != "player" or conn.user_id is None:
            conn.send(refused(seq, conn.cat, _WATCHER, stale=False))
            return
        channel, user = conn.channel_id, conn.user_id
        try:
            await self.service.load(channel)  # a copy dropped here is read again first
            if self.service.seat_of(channel, user) != conn.seat:
                raise NotSeated()
            if kind == "act":
                action = frame.text("action", MAX_ACTION)
                game, version = frame.whole("game"), frame.whole("version")
                await self.service.act(channel, user, action, version, game_id=game)
            elif kind == "rematch":
                await self.service.rematch(channel, user)
            else:
                await self.service.end_series(channel, user)
        except BadFrame:
            conn.send(refused(seq, conn.cat, BAD_FRAME, stale=False))
            return
        except ServiceError as exc:
            names = self.presenter.names(channel, conn.cat)
            conn.send(
                refused(seq, conn.cat, exc.message, names, stale=isinstance(exc, StaleAction))
            )
            if isinstance(exc, Forfeited | NotSeated):
                self.presenter.demote(conn)
            await self.refresh(conn)
            return
        conn.send({"t": "result", "seq": seq, "ok": True})

    async def _review(self, page: PageSocket, conn: Connection, frame: Frame, seq: int) -> None:
        """Start the review of the token's player in game ``game`` of this table's server."""
        if conn.claims.expires <= time.time():
            await page.refuse(_EXPIRED, CLOSE_AUTH)
        user = conn.claims.user_id if conn.claims.kind == "player" else None
        try:
            game = frame.whole("game")
        except BadFrame:
            conn.send(refused(seq, conn.cat, BAD_FRAME, stale=False))
            return
        if user is None:
            conn.send(refused(seq, conn.cat, _NOT_A_PLAYER, stale=False))
            return
        task = asyncio.ensure_future(self._run_review(conn, user, game, seq))
        self._reviews.add(task)
        task.add_done_callback(self._reviews.discard)

    async def _run_review(self, conn: Connection, user: int, game: int, seq: int) -> None:
        try:
            table = await self.service.table(conn.channel_id)
            view = await self.service.review(
                table.guild_id,
                user,
                game,
                progress=lambda done, total: conn.send(progress_json(seq, done, total)),
            )
        except ServiceError as exc:
            conn.send(refused(seq, conn.cat, exc.message, stale=False))
            return
        conn.send(review_json(view, seq, conn.cat))


def _seat_of(claims: Claims, table: TableView) -> int | None:
    """The seat a player token may play now: its user's, unless they forfeited it."""
    if claims.kind != "player" or claims.user_id is None:
        return None
    for s in table.seats:
        if s.user_id == claims.user_id:
            return None if s.forfeited else s.seat
    return None
