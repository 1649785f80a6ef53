"""The web presenter: the service's events, pushed to the open pages of their channel.

:class:`WebPresenter` is a :class:`bot.presenter.Presenter` registered with the game service
(the Discord presenter is another); it also holds the registry of open pages
(:class:`~web.connection.Connection`) by channel.  After an action is stored the service calls:

- ``table_changed``: the table goes to every page of the channel, in its reader's language
  (one encoding per language and seat, shared by the pages that read the same);
- ``hand_changed``: a hand goes to the pages of **that user** only, and only while they are a
  player of that seat: never to a watcher, never to another seat;
- ``notice``: a translated one-line notice to every page of the channel.

A player whose seat is no longer theirs (a forfeit: they left or were kicked; a new series in
the channel, which their link was not for) becomes a watcher: the page gets a new ``welcome``
with ``role: "watcher"`` and no hand from then on.

Nothing here waits on a page: frames are queued (:meth:`Connection.send`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from bot.presenter import Notice
from bot.realm import EVERY_REALM
from bot.views import HandView, LobbyView, TableView
from present.catalog import Catalog
from web.connection import Connection, encode
from web.serialize import hand_json, plain_names, table_json, welcome_json

__all__ = ["WebPresenter"]

log = logging.getLogger(__name__)


class WebPresenter:
    """Pushes the service's events to the open pages (see the module docstring).  It serves
    every realm that has table pages (Discord channels, rooms, a local ``play --web`` game):
    it is given every realm's events, and sends them to a channel's open pages only."""

    realms = EVERY_REALM
    #: Any process serves a table's pages, of any channel
    #: (:meth:`bot.service.channels.Channels.presenters_of`).
    any_process = True

    def __init__(self, now: Callable[[], float] = time.time) -> None:
        self._now = now
        self._pages: dict[int, set[Connection]] = {}
        #: The newest table of each channel with open pages.
        self._tables: dict[int, TableView] = {}

    # -- the registry --------------------------------------------------------
    def add(self, conn: Connection, table: TableView | None) -> None:
        """Register an authenticated page (``table``: the one it was just sent)."""
        self._pages.setdefault(conn.channel_id, set()).add(conn)
        if table is not None:
            self._remember(table)

    def remove(self, conn: Connection) -> None:
        """Forget a closed page (and its channel's table when it was the last)."""
        pages = self._pages.get(conn.channel_id)
        if pages is None:
            return
        pages.discard(conn)
        if not pages:
            del self._pages[conn.channel_id]
            self._tables.pop(conn.channel_id, None)

    def watches(self, channel_id: int) -> bool:
        """Whether a page of the channel is open here (so another process's change of it is
        read and pushed here: :mod:`bot.service.sync`)."""
        return channel_id in self._pages

    def pages(self, channel_id: int | None = None) -> list[Connection]:
        """The open pages (of one channel)."""
        if channel_id is not None:
            return list(self._pages.get(channel_id, ()))
        return [c for pages in self._pages.values() for c in pages]

    def _remember(self, view: TableView) -> bool:
        """Keep ``view`` as the channel's newest table; False if it is older than the one
        kept."""
        current = self._tables.get(view.channel_id)
        if current is not None and (view.game_id, view.version) < (
            current.game_id,
            current.version,
        ):
            return False
        self._tables[view.channel_id] = view
        return True

    def names(self, channel_id: int, t: Catalog) -> list[str]:
        """The seats' names in ``t``'s language (to name a message's ``Seat`` parameters)."""
        view = self._tables.get(channel_id)
        return [] if view is None else plain_names(view.seats, t)

    # -- frames ----------------------------------------------------------------
    def table_frame(self, view: TableView, conn: Connection) -> dict[str, Any]:
        """The ``table`` frame of ``view`` for ``conn``'s reader."""
        viewer = conn.seat if conn.role == "player" else None
        return {"t": "table", "table": table_json(view, conn.cat, viewer, now=self._now())}

    def hand_frame(self, view: HandView, conn: Connection) -> dict[str, Any]:
        """The ``hand`` frame of ``view`` for ``conn`` (its owner)."""
        names = self.names(conn.channel_id, conn.cat)
        return {"t": "hand", "hand": hand_json(view, conn.cat, names)}

    def demote(self, conn: Connection) -> None:
        """``conn`` is a watcher from now on: a new ``welcome`` says so."""
        conn.role = "watcher"
        conn.seat = None
        conn.hand_key = None
        conn.send(welcome_json("watcher", None, conn.user_id, conn.channel_id, conn.cat))

    def still_seated(self, conn: Connection, view: TableView) -> bool:
        """Whether ``conn``'s player still holds their seat in ``view``: same series as
        their link, seated there, not forfeited."""
        if conn.seat is None or conn.seat >= len(view.seats):
            return False
        s = view.seats[conn.seat]
        return (
            view.series_id == conn.claims.series_id
            and s.user_id == conn.user_id
            and not s.forfeited
        )

    # -- Presenter -------------------------------------------------------------
    async def lobby_changed(self, view: LobbyView) -> None:
        return None

    async def table_changed(self, view: TableView) -> None:
        pages = self._pages.get(view.channel_id)
        if not pages or not self._remember(view):
            return
        key = (view.game_id, view.version)
        encoded: dict[tuple[str, int | None], str] = {}
        for conn in list(pages):
            if conn.table_key is not None and key < conn.table_key:
                continue  # a newer one went (the same version may change: a forfeit, a vote)
            if conn.role == "player" and not self.still_seated(conn, view):
                self.demote(conn)
            viewer = conn.seat if conn.role == "player" else None
            which = (conn.cat.locale, viewer)
            text = encoded.get(which)
            if text is None:
                text = encoded[which] = encode(self.table_frame(view, conn))
            conn.table_key = key
            conn.send(text)

    async def hand_changed(self, channel_id: int, user_id: int, view: HandView) -> None:
        if view.user_id != user_id:  # never show a hand to anyone but its owner
            log.error("hand of user %d offered to user %d: dropped", view.user_id, user_id)
            return
        key = (view.game_id, view.version)
        for conn in self.pages(channel_id):
            if conn.role != "player" or conn.user_id != user_id or conn.seat != view.seat:
                continue
            if conn.hand_key is not None and key < conn.hand_key:
                continue
            conn.hand_key = key
            conn.send(self.hand_frame(view, conn))

    async def notice(self, notice: Notice) -> None:
        pages = self._pages.get(notice.channel_id)
        if not pages:
            return
        texts: dict[str, str] = {}
        for conn in list(pages):
            text = texts.get(conn.cat.locale)
            if text is None:
                names = (
                    plain_names(notice.players, conn.cat)
                    if notice.players
                    else self.names(notice.channel_id, conn.cat)
                )
                body = conn.cat.render(notice.message, names)
                text = texts[conn.cat.locale] = encode(
                    {"t": "notice", "kind": notice.kind, "text": body[:1].upper() + body[1:]}
                )
            conn.send(text)

    async def game_over(self, view: TableView) -> None:
        # the finished table (result, standings, can_rematch) came with table_changed, which
        # the service always publishes first
        return None
