"""What the service tells the outside world.  The Discord layer (or the terminal, or a test)
implements :class:`Presenter` and registers it with :meth:`GameService.add_presenter`.

A presenter says which realms it serves (:attr:`Presenter.realms`: Discord servers, rooms,
local games; :mod:`bot.realm`), and is given the events of those realms' channels only: the
Discord presenter never hears of a room, nor the rooms' of a Discord channel.

The service calls presenters *after* a change is stored, in tasks it does not wait on for
correctness: a slow or failing presenter is logged and never blocks or breaks a game.  Events
for one channel are started in order, but a presenter that awaits may see them overlap; every
view carries ``game_id``/``version`` so an adapter can drop a view older than one it already
rendered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from bot.realm import Realm
from bot.views import HandView, LobbyView, Player, TableView
from rules_engine.messages import Message

__all__ = ["Notice", "NoticeKind", "NullPresenter", "Presenter"]

#: ``timeout``: a turn timed out and the default action was played for a player;
#: ``autopilot_on`` / ``autopilot_off``: a player went on or came back from autopilot;
#: ``stopped``: the host stopped the lobby or game (an unfinished game records no loss);
#: ``series_ended``: the series was closed; ``restored``: the game resumed after a restart;
#: ``forfeit``: a player left a running game or was kicked from it (the AI plays on);
#: ``kicked``: a player was removed from a lobby; ``host``: the host role passed on;
#: ``stop_vote``: a stop vote opened, failed or lapsed (the game goes on);
#: ``error``: something went wrong on the service side (logged too).
NoticeKind = Literal[
    "timeout",
    "autopilot_on",
    "autopilot_off",
    "stopped",
    "series_ended",
    "restored",
    "forfeit",
    "kicked",
    "host",
    "stop_vote",
    "error",
]


@dataclass(frozen=True, slots=True)
class Notice:
    """A public one-line notice of a channel: ``message`` is translated by the adapter; its
    ``Seat`` parameters name ``players[seat]``; ``user_id`` is the player concerned, if any."""

    channel_id: int
    kind: NoticeKind
    message: Message
    user_id: int | None = None
    players: tuple[Player, ...] = ()


@runtime_checkable
class Presenter(Protocol):
    @property
    def realms(self) -> frozenset[Realm]:
        """The realms whose channels' events this presenter is given (read when it is
        registered)."""

    async def lobby_changed(self, view: LobbyView) -> None:
        """A lobby opened, changed seats, started (``status='started'``) or closed."""

    async def table_changed(self, view: TableView) -> None:
        """The public table changed (after every action, and once after a restart)."""

    async def hand_changed(self, channel_id: int, user_id: int, view: HandView) -> None:
        """``user_id``'s private hand view changed; show it to that user only."""

    async def notice(self, notice: Notice) -> None:
        """A public one-line notice of a channel (see :class:`Notice`)."""

    async def game_over(self, view: TableView) -> None:
        """The game ended: ``view.outcome`` and ``view.series`` standings are set.
        Offer Rematch and End series."""


class NullPresenter:
    """A presenter that ignores everything (base class for partial presenters, which say
    their :attr:`Presenter.realms` themselves)."""

    async def lobby_changed(self, view: LobbyView) -> None:
        return None

    async def table_changed(self, view: TableView) -> None:
        return None

    async def hand_changed(self, channel_id: int, user_id: int, view: HandView) -> None:
        return None

    async def notice(self, notice: Notice) -> None:
        return None

    async def game_over(self, view: TableView) -> None:
        return None
