"""``GET /ws/room``: the room page's socket (docs/WEB.md, "Rooms").

The socket follows the pages' protocol (:mod:`web.protocol`: origin, hello, frame size and
rate, refusals, close codes, language).  Its ``hello`` carries a guest token of an open room;
the page then gets ``welcome`` (its words and the AI levels) and the room's state, pushed on
every change (:class:`~web.rooms.presenter.RoomPresenter`).  The host's and players' commands
are the service's (host checks, forfeits, votes, the host's hand-off are its own), each
answered by a ``result``; a refused one is followed by the room's state.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

from bot.errors import ConfirmForfeit, ServiceError
from bot.realm import is_room
from bot.service import ChannelPhase, GameService
from rules_engine.ai import OFFERED_LEVELS
from rules_engine.messages import Message
from web.connection import Connection
from web.protocol import (
    BAD_FRAME,
    CLOSE_AUTH,
    CLOSE_GONE,
    BadFrame,
    Frame,
    PageSocket,
    refused,
    serve,
)
from web.rooms.presenter import RoomPage, RoomPresenter
from web.strings import room_strings
from web.tokens import Signer, TokenError

__all__ = ["RoomSocket"]

log = logging.getLogger(__name__)

#: The longest AI level name accepted.
MAX_LEVEL = 64

_NOT_GUEST = Message("this link is not valid: open the table again from the game")
_CLOSED = Message("this room is closed")


class RoomSocket:
    """The ``/ws/room`` route (see the module docstring); ``touched(channel)`` is told of
    every command (the room's idle clock)."""

    def __init__(
        self,
        service: GameService,
        signer: Signer,
        origins: frozenset[str],
        presenter: RoomPresenter,
        touched: Callable[[int], None],
    ) -> None:
        self.service = service
        self.signer = signer
        self.origins = origins
        self.presenter = presenter
        self.touched = touched

    def handle(self, request: web.Request) -> Awaitable[web.StreamResponse]:
        """``GET /ws/room``."""
        return serve(request, self.origins, self._hello, self._command, self._closed)

    async def _closed(self, room: RoomPage) -> None:
        self.presenter.remove(room)
        await room.conn.stop()

    async def _hello(self, page: PageSocket) -> RoomPage:
        frame = await page.hello()
        try:
            claims = self.signer.verify(frame.get("token"))
        except TokenError as exc:
            await page.refuse(exc.message, CLOSE_AUTH)
        if claims.kind != "guest" or claims.user_id is None or not is_room(claims.channel_id):
            await page.refuse(_NOT_GUEST, CLOSE_AUTH)
        if self.service.state(claims.channel_id) is ChannelPhase.NONE:
            await page.refuse(_CLOSED, CLOSE_GONE)
        cat = page.cat
        conn = Connection(page.ws, claims.channel_id, "player", cat, claims, user_id=claims.user_id)
        conn.start()
        page.attach(conn)
        room = RoomPage(conn)
        self.presenter.add(room)
        conn.send(
            {
                "t": "welcome",
                "user_id": str(claims.user_id),
                "lang": cat.locale,
                "strings": room_strings(cat),
                "levels": list(OFFERED_LEVELS),
            }
        )
        await self.presenter.push(room)
        return room

    async def _command(self, socket: PageSocket, page: RoomPage, frame: Frame) -> None:
        conn, channel, user = page.conn, page.channel_id, page.user_id
        kind, seq = frame.kind, frame.seq
        if seq is None:
            conn.send(refused(None, conn.cat, BAD_FRAME))
            return
        service = self.service
        self.touched(channel)
        try:
            if kind == "add_ai":
                await service.add_ai(channel, user, frame.text("level", MAX_LEVEL))
            elif kind == "remove":
                await service.remove_seat(channel, user, frame.whole("seat"))
            elif kind == "start":
                await service.start(channel, user)
            elif kind == "leave":
                await service.leave(channel, user)
            elif kind == "forfeit":
                await service.forfeit(channel, user, game_id=frame.whole_or_none("game"))
            elif kind == "stop":
                await service.stop(channel, user)
            elif kind == "keep_playing":
                await service.keep_playing(channel, user)
            else:
                raise BadFrame(kind)
        except BadFrame:
            conn.send(refused(seq, conn.cat, BAD_FRAME))
            return
        except ConfirmForfeit as exc:
            game = exc.details.get("game_id")
            conn.send(refused(seq, conn.cat, exc.message, confirm="forfeit", game=game))
            return
        except ServiceError as exc:
            conn.send(refused(seq, conn.cat, exc.message))
            await self.presenter.push(page, force=True)
            return
        conn.send({"t": "result", "seq": seq, "ok": True})
