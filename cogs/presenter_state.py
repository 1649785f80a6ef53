"""What the Discord presenter keeps per message it writes: a channel's table and lobby, a
player's hand (:mod:`cogs.presenter`)."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.views import HandView, LobbyView, TableView
from cogs.coalescer import Coalescer
from cogs.followups import Lender
from cogs.i18n import Catalog
from cogs.latest import LatestBody
from cogs.render.message import Reply

__all__ = ["HandState", "LobbyState", "TableState", "hand_signature", "newer"]


def newer(a: tuple[int, int], b: tuple[int, int] | None) -> bool:
    """Whether the version ``a`` is at least ``b`` (``None``: none seen yet)."""
    return b is None or a >= b


@dataclass(eq=False)
class TableState:
    """A channel's public table message and what it last showed."""

    channel_id: int
    guild_id: int
    runner: Coalescer | None = None
    view: TableView | None = None
    message_id: int | None = None
    game_id: int | None = None
    round: int | None = None
    finished: bool = False
    repost: bool = False
    last: Reply | None = None  # the message last sent/edited
    written_at: float = -1e9  # event loop time of the last write
    #: The body of the edit in flight, updated to each newer view (see :mod:`cogs.latest`).
    editing: LatestBody[tuple[TableView, Reply]] | None = None
    #: The press whose token posted the table message (``None``: the bot token did).
    owner: Lender | None = None


@dataclass(eq=False)
class LobbyState:
    """A channel's lobby message and what it last showed."""

    channel_id: int
    runner: Coalescer | None = None
    view: LobbyView | None = None
    message_id: int | None = None
    last: Reply | None = None


@dataclass(eq=False)
class HandState:
    """A player's private hand: the interaction it is pushed through and what it showed."""

    channel_id: int
    user_id: int
    cat: Catalog
    runner: Coalescer | None = None
    interaction: discord.Interaction[Any] | None = None
    view: HandView | None = None
    page: int = 0
    selected: str | None = None
    last: tuple[int, Hashable] | None = None  # (interaction id, signature) last pushed
    key: tuple[int, int] | None = field(default=None)


def hand_signature(view: HandView, page: int, selected: str | None) -> Hashable:
    """What a hand shows, apart from the state version carried by its buttons."""
    return (
        view.game_id,
        tuple((c.text, c.reason is None) for c in view.cards),
        view.legal,
        view.your_turn,
        view.role,
        view.autopilot,
        view.finished,
        view.deadline,
        page,
        selected,
    )
