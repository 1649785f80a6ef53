"""``GET /ws/room``: the room page's socket (docs/WEB.md, "Rooms").

The socket follows the pages' protocol (:mod:`web.protocol`: origin, hello, frame size and
rate, refusals, close codes, language).  Its ``hello`` carries a guest token of an open room;
the page then gets ``welcome`` (its words and the AI levels) and the room's state, pushed on
every change (:class:`~web.rooms.presenter.RoomPresenter`).  The host's and players' commands
are the service's (host checks, forfeits, votes, the host's hand-off are its own), each
answered by a ``result``; a refused one is followed by the room's state.

Only a command the service carried out counts as the room's activity (its idle clock): a
frame it refused, or did not understand, does not keep an idle room open.  Leaving counts
against the address's joins and leaves (:meth:`AddressCounts.may_change_seat`), and a guest
may change their stop vote :data:`VOTE_BURST` times at once, then once every
:data:`VOTE_EVERY` seconds (each change is a notice to every page of the room).  The socket
closes when its guest token expires.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

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
    TokenBucket,
    refused,
    serve,
)
from web.rooms.limits import AddressCounts, address_of
from web.rooms.presenter import RoomPage, RoomPresenter
from web.strings import room_strings
from web.tokens import Signer

__all__ = ["VOTE_BURST", "VOTE_EVERY", "RoomSocket"]

log = logging.getLogger(__name__)

#: The longest AI level name accepted.
MAX_LEVEL = 64

_NOT_GUEST = Message("this link is not valid: open the table again from the game")
_CLOSED = Message("this room is closed")
_EXPIRED = Message("this link has expired: ask the room's host for a new invitation")
_TOO_MANY_LEAVES = Message("you have left too many rooms just now: wait a minute and try again")
_VOTING_TOO_FAST = Message("you changed your vote too often: wait a few seconds")

#: Stop-vote changes a guest may make at once, and then one every this many seconds.
VOTE_BURST, VOTE_EVERY = 3, 10.0
#: Guests whose vote changes are remembered before the ones with nothing left are forgotten.
_FORGET_PAST = 10_000


@dataclass(eq=False)
class RoomSocket:
    """The ``/ws/room`` route (see the module docstring); ``touched(channel)`` is told of
    every command (the room's idle clock)."""

    service: GameService
    signer: Signer
    origins: frozenset[str]
    presenter: RoomPresenter
    touched: Callable[[int], None]
    counts: AddressCounts
    _votes: dict[tuple[int, int], TokenBucket] = field(default_factory=dict, init=False)

    def handle(self, request: web.Request) -> Awaitable[web.StreamResponse]:
        """``GET /ws/room``."""
        return serve(request, self.origins, self._hello, self._command, self._closed)

    async def _closed(self, room: RoomPage) -> None:
        self.presenter.remove(room)
        await room.conn.stop()

    async def _hello(self, page: PageSocket) -> RoomPage:
        _, claims = await page.hello_claims(self.signer)
        if claims.kind != "guest" or claims.user_id is None or not is_room(claims.channel_id):
            await page.refuse(_NOT_GUEST, CLOSE_AUTH)
        try:  # the room may be held by another process only: read it here
            phase = await self.service.load(claims.channel_id)
        except ServiceError as exc:
            await page.refuse(exc.message, CLOSE_GONE)
        if phase is ChannelPhase.NONE:
            await page.refuse(_CLOSED, CLOSE_GONE)
        cat = page.cat
        conn = Connection(page.ws, claims.channel_id, "player", cat, claims, user_id=claims.user_id)
        page.attach(conn, _EXPIRED)
        room = RoomPage(conn)
        self.presenter.add(room)
        self.service.sync.catch_up(claims.channel_id)  # a change heard while it was read
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
        try:
            if kind == "add_ai":
                await service.add_ai(channel, user, frame.text("level", MAX_LEVEL))
            elif kind == "remove":
                await service.remove_seat(channel, user, frame.whole("seat"))
            elif kind == "start":
                await service.start(channel, user)
            elif kind == "switch_team":
                # to the other team, or to ``team`` (0 or 1) when the page names one
                team = None if frame.get("team") is None else frame.whole("team")
                await service.switch_team(channel, user, team)
            elif kind == "leave":
                if not self._may_leave(socket):
                    conn.send(refused(seq, conn.cat, _TOO_MANY_LEAVES))
                    return
                await service.leave(channel, user)
            elif kind == "forfeit":
                await service.forfeit(channel, user, game_id=frame.whole_or_none("game"))
            elif kind in ("stop", "keep_playing"):
                if not self._may_vote(channel, user):
                    conn.send(refused(seq, conn.cat, _VOTING_TOO_FAST))
                    return
                if kind == "stop":
                    await service.stop(channel, user)
                else:
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
        self.touched(channel)
        conn.send({"t": "result", "seq": seq, "ok": True})

    def _may_leave(self, socket: PageSocket) -> bool:
        if socket.request is None:
            return True
        return self.counts.may_change_seat(address_of(socket.request, self.counts.limits))

    def _may_vote(self, channel: int, user: int) -> bool:
        bucket = self._votes.get((channel, user))
        if bucket is None:
            if len(self._votes) > _FORGET_PAST:
                self._votes = {k: b for k, b in self._votes.items() if not b.full()}
            bucket = self._votes[channel, user] = TokenBucket(VOTE_BURST, 1 / VOTE_EVERY)
        return bucket.take()
