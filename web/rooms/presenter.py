"""The service's events of rooms, pushed to the rooms' open pages.

:class:`RoomPresenter` is a :class:`bot.presenter.Presenter` beside the table's and Discord's;
it also holds the open room pages (:class:`RoomPage`) by room.  For each room with pages it
keeps the newest lobby and table views the service gave, so a change makes one
:class:`~web.rooms.state.RoomSnapshot` from the view it came with (no read of the service;
one read when the view kept does not fit the room's phase, as right after a page opened),
shared by every page of the room; each page is sent its ``room`` frame only when it changed.

Nothing here waits on a page: frames are queued (:meth:`Connection.send`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.errors import ServiceError
from bot.presenter import Notice, NullPresenter
from bot.realm import Realm
from bot.service import GameService
from bot.views import LobbyView, TableView
from web.connection import Connection, encode
from web.protocol import sentence
from web.rooms.state import RoomSnapshot, phase_of, room_json
from web.tokens import Signer

__all__ = ["RoomPage", "RoomPresenter"]


@dataclass(eq=False)
class RoomPage:
    """An open room page: its connection (frames are queued as for a table page), the guest
    it is, and the last room frame it was sent (a change only is sent again)."""

    conn: Connection
    last: str = ""
    channel_id: int = field(init=False)
    user_id: int = field(init=False)

    def __post_init__(self) -> None:
        self.channel_id = self.conn.channel_id
        assert self.conn.user_id is not None
        self.user_id = self.conn.user_id


@dataclass(eq=False)
class _Room:
    """A room with open pages, and the newest views the service gave of it."""

    pages: set[RoomPage] = field(default_factory=set)
    lobby: LobbyView | None = None
    table: TableView | None = None
    #: What of the table the room page shows (who sits, which game, the vote): a table change
    #: that keeps it is not pushed.
    key: object = None
    #: Views taken from events so far (a read started before one is not kept over it).
    changes: int = 0

    def take_lobby(self, view: LobbyView) -> None:
        self.lobby = view if view.status == "open" else None
        self.changes += 1

    def take_table(self, view: TableView) -> bool:
        """Keep ``view`` unless a newer one is kept; whether the room page's part of it
        changed."""
        current = self.table
        if current is not None and (view.game_id, view.version) < (
            current.game_id,
            current.version,
        ):
            return False
        self.table = view
        self.changes += 1
        key = (view.game_id, view.outcome, view.stop_vote, *(s.forfeited for s in view.seats))
        if key == self.key:
            return False
        self.key = key
        return True


class RoomPresenter(NullPresenter):
    """Pushes the service's events of rooms to their pages (see the module docstring); it is
    given the rooms' events only.  ``touched(channel)`` is told of every change of a room (its
    idle clock)."""

    realms = frozenset({Realm.ROOMS})
    #: Any process serves a room's pages (:meth:`bot.service.channels.Channels.presenters_of`).
    any_process = True

    def __init__(
        self, service: GameService, signer: Signer, touched: Callable[[int], None]
    ) -> None:
        self.service = service
        self.signer = signer
        self.touched = touched
        self._rooms: dict[int, _Room] = {}

    # -- the pages ---------------------------------------------------------------
    def add(self, page: RoomPage) -> None:
        """Register a page that said hello."""
        self._rooms.setdefault(page.channel_id, _Room()).pages.add(page)

    def remove(self, page: RoomPage) -> None:
        """Forget a closed page (and its room's views when it was the last)."""
        room = self._rooms.get(page.channel_id)
        if room is None:
            return
        room.pages.discard(page)
        if not room.pages:
            del self._rooms[page.channel_id]

    def watches(self, channel_id: int) -> bool:
        """Whether a page of the room is open here (so another process's change of it is
        read and pushed here: :mod:`bot.service.sync`)."""
        return channel_id in self._rooms

    def pages(self, channel_id: int | None = None) -> list[RoomPage]:
        """The open pages (of one room)."""
        if channel_id is None:
            return [p for room in self._rooms.values() for p in room.pages]
        room = self._rooms.get(channel_id)
        return [] if room is None else list(room.pages)

    # -- the room's state ----------------------------------------------------------
    async def snapshot(self, channel_id: int) -> RoomSnapshot:
        """The room now: its phase and host, with the newest view kept when it fits the
        phase, else the view read once from the service."""
        phase = phase_of(self.service.state(channel_id))
        host = self.service.host_of(channel_id)
        room = self._rooms.get(channel_id) or _Room()
        lobby, table = room.lobby, room.table
        seen = room.changes
        try:
            if phase == "lobby" and lobby is None:
                lobby = await self.service.lobby(channel_id)
                if room.changes == seen:
                    room.lobby = lobby
            elif phase != "lobby" and phase != "closed" and not _fits(table, phase):
                table = await self.service.table(channel_id)
                if room.changes == seen:
                    room.table = table
        except ServiceError:  # it changed meanwhile: the next event brings the new state
            pass
        return RoomSnapshot(channel_id, phase, host, lobby, table)

    async def push(
        self, page: RoomPage, snap: RoomSnapshot | None = None, *, force: bool = False
    ) -> None:
        """Send ``page`` the room's state (``snap``, else the room now) when it changed since
        the last it got (``force``: even when not)."""
        if snap is None:
            snap = await self.snapshot(page.channel_id)
        cat = page.conn.cat
        frame = room_json(snap, page.user_id, cat)
        text = json.dumps(frame, sort_keys=True)
        if text == page.last and not force:
            return
        page.last = text
        if snap.has_game and frame["seat"] is not None:
            frame["table_token"] = self.signer.player(
                page.channel_id, page.user_id, frame["series_id"], cat.locale
            )
        elif snap.has_game:
            frame["table_token"] = self.signer.watcher(page.channel_id, cat.locale)
        page.conn.send({"t": "room", "room": frame})

    async def _changed(self, channel_id: int) -> None:
        """Push the room's state (one snapshot) to each of its pages."""
        room = self._rooms.get(channel_id)
        if room is None:
            return
        snap = await self.snapshot(channel_id)
        for page in list(room.pages):
            await self.push(page, snap)

    # -- Presenter ---------------------------------------------------------------
    async def lobby_changed(self, view: LobbyView) -> None:
        self.touched(view.channel_id)
        room = self._rooms.get(view.channel_id)
        if room is None:
            return
        room.take_lobby(view)
        if view.status != "started":  # a started lobby's table follows it: that is pushed
            await self._changed(view.channel_id)

    async def table_changed(self, view: TableView) -> None:
        self.touched(view.channel_id)
        room = self._rooms.get(view.channel_id)
        if room is not None and room.take_table(view):
            await self._changed(view.channel_id)

    async def game_over(self, view: TableView) -> None:
        self.touched(view.channel_id)
        room = self._rooms.get(view.channel_id)
        if room is not None:
            room.take_table(view)
            await self._changed(view.channel_id)

    async def notice(self, notice: Notice) -> None:
        self.touched(notice.channel_id)
        names = [p.name for p in notice.players]
        texts: dict[str, str] = {}
        for page in self.pages(notice.channel_id):
            cat = page.conn.cat
            text = texts.get(cat.locale)
            if text is None:
                said = sentence(cat, notice.message, names)
                text = texts[cat.locale] = encode(
                    {"t": "notice", "kind": notice.kind, "text": said}
                )
            page.conn.send(text)
        await self._changed(notice.channel_id)


def _fits(table: TableView | None, phase: str) -> bool:
    """Whether ``table`` shows a room in ``phase`` (a game running, or over)."""
    if table is None:
        return False
    over = table.outcome is not None
    return over if phase == "finished" else not over
