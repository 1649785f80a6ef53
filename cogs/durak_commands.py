"""The ``/durak`` cog: slash commands and the handlers of every button.

How a request flows
-------------------
Every interaction is acknowledged first (``defer``), then the service is called:

- slash commands defer *ephemerally* ("thinking…", visible to the caller only).  A refusal
  replaces that with a private explanation; a success that changes a public message (lobby,
  table) deletes it, since the public message is the answer; ``hand``, ``rules``, ``series``,
  ``stats``, ``leaderboard`` and ``history`` answer privately in it.
- a history's ◀ ▶ page buttons defer as an update of that (private) history and edit it;
  its **Replay** button defers ephemerally: the replay is a new private message; its
  ◀ ▶ ⏮ ⏭ buttons defer as an update of that message and edit it.
- buttons on a public message (lobby, table, game over) defer as an update (type 6): the
  presenter edits the public message; a refusal is a private followup.  "Show my hand" defers
  ephemerally and that new private message becomes the player's hand.
- buttons on a hand (ephemeral) defer as an update (type 6) of that hand: the press becomes the
  player's latest interaction, through which the presenter edits the hand from then on.
- ``/durak privacy`` and ``/durak forget-me`` answer privately; the Erase and Cancel buttons of
  forget-me's confirmation defer as an update of it and edit it (a press by anyone but the
  asker is refused in a private message of its own, the confirmation left as it was).

Refusals (:class:`bot.errors.ServiceError`, engine reasons) are always private messages in the
caller's language: slash-command errors through the tree's single error hook
(``bot.tree.error``), component errors through the same function.

The presenter is :class:`cogs.presenter.DiscordPresenter`; the buttons are the
``DynamicItem``s of :mod:`cogs.components`, which hand every press to
:meth:`DurakCog.on_component`: the table :data:`ROUTES` says how it is acknowledged and which
handler runs.  The commands and handlers live in feature modules over a shared core
(:mod:`cogs.cog_core`): :mod:`cogs.lobby_commands`, :mod:`cogs.play_commands`,
:mod:`cogs.fair_play_commands`, :mod:`cogs.records_commands`, :mod:`cogs.info_commands`,
:mod:`cogs.privacy_commands`;
this module puts them together and keeps what concerns the whole cog (loading, the error
hook, public messages Discord refuses to show).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from enum import Enum
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import StaleAction
from bot.service import GameService, Unshowable
from cogs.cog_core import durak
from cogs.components import COG_NAME
from cogs.custom_ids import (
    FORGET_ACTIONS,
    GAME_ACTIONS,
    HISTORY_NAVS,
    LOBBY_ACTIONS,
    REPLAY_NAVS,
    REVIEW_NAVS,
    AnyButton,
    route_of,
)
from cogs.fair_play_commands import FairPlayCommands
from cogs.info_commands import InfoCommands
from cogs.interactions import LatestInteractions
from cogs.links import TableLinks
from cogs.lobby_commands import LobbyCommands
from cogs.play_commands import PlayCommands
from cogs.presenter import DiscordPresenter, message_kwargs
from cogs.privacy_commands import PrivacyCommands
from cogs.records_commands import RecordsCommands
from cogs.render.notices import render_hidden

__all__ = ["ROUTES", "SUBCOMMAND_ORDER", "Defer", "DurakCog", "Route"]

log = logging.getLogger(__name__)

#: The signature of ``CommandTree.on_error``.
ErrorHandler = Callable[
    [discord.Interaction[Any], app_commands.AppCommandError], Coroutine[Any, Any, None]
]


# ================================================================== the table of actions
class Defer(Enum):
    """How a press is acknowledged before its handler runs."""

    PRIVATE = "private"  #: a new private answer ("thinking…")
    UPDATE = "update"  #: an update of the pressed message
    IN_PLACE = "in place"  #: an update of a private message; under a public one, PRIVATE


@dataclass(frozen=True, slots=True)
class Route:
    """What a press does: how it is acknowledged, then which handler runs."""

    defer: Defer
    run: Callable[[DurakCog, discord.Interaction[Any], Any], Awaitable[None]]


#: Every button and select, by :func:`~cogs.custom_ids.route_of` its press.
ROUTES: dict[tuple[str, str], Route] = {
    # the table; Leave's private confirmation; a finished game's table
    ("game", "hand"): Route(Defer.PRIVATE, PlayCommands.press_show_hand),
    ("game", "stop"): Route(Defer.UPDATE, FairPlayCommands.press_stop),
    ("game", "keep"): Route(Defer.UPDATE, FairPlayCommands.press_keep),
    ("game", "leave"): Route(Defer.PRIVATE, LobbyCommands.leave_or_confirm),
    ("game", "forfeit"): Route(Defer.UPDATE, FairPlayCommands.press_forfeit),
    ("game", "rematch"): Route(Defer.UPDATE, PlayCommands.press_game_over),
    ("game", "endseries"): Route(Defer.UPDATE, PlayCommands.press_game_over),
    # a hand
    **{("game", verb): Route(Defer.IN_PLACE, PlayCommands.press_act) for verb in GAME_ACTIONS},
    ("game", "pick"): Route(Defer.IN_PLACE, PlayCommands.press_pick),
    ("game", "page"): Route(Defer.IN_PLACE, PlayCommands.press_page),
    ("game", "why"): Route(Defer.IN_PLACE, PlayCommands.press_why),
    # the lobby
    **{
        ("lobby", action): Route(Defer.UPDATE, LobbyCommands.press_lobby)
        for action in LOBBY_ACTIONS
    },
    # a history and its replays (``open`` starts a new private replay)
    **{("replay", nav): Route(Defer.IN_PLACE, RecordsCommands.press_replay) for nav in REPLAY_NAVS},
    ("replay", "open"): Route(Defer.PRIVATE, RecordsCommands.press_replay),
    # the coach's review: "Review my game" opens a new private one, ◀ ▶ edit it
    **{("review", nav): Route(Defer.IN_PLACE, RecordsCommands.press_review) for nav in REVIEW_NAVS},
    ("review", "open"): Route(Defer.PRIVATE, RecordsCommands.press_review),
    **{
        ("history", nav): Route(Defer.IN_PLACE, RecordsCommands.press_history)
        for nav in HISTORY_NAVS
    },
    # the private confirmation of /durak forget-me, edited in place
    **{
        ("forget", action): Route(Defer.IN_PLACE, PrivacyCommands.press_forget)
        for action in FORGET_ACTIONS
    },
}


#: The order of the ``/durak`` subcommands as Discord is sent them (the feature modules add
#: them in their import order).
SUBCOMMAND_ORDER = (
    "new",
    "join",
    "leave",
    "kick",
    "addbot",
    "start",
    "stop",
    "hand",
    "table",
    "play",
    "help",
    "config",
    "rules",
    "series",
    "stats",
    "leaderboard",
    "history",
    "review",
    "privacy",
    "forget-me",
)


def _order_subcommands(group: app_commands.Group, names: tuple[str, ...]) -> None:
    """Re-add the group's subcommands in ``names`` order."""
    for name in names:
        command = group.get_command(name)
        if command is not None:
            group.remove_command(name)
            group.add_command(command)


_order_subcommands(durak, SUBCOMMAND_ORDER)


# ================================================================== the cog
class DurakCog(
    LobbyCommands,
    PlayCommands,
    FairPlayCommands,
    RecordsCommands,
    InfoCommands,
    PrivacyCommands,
    name=COG_NAME,
):
    """The ``/durak`` commands and the handlers of every button."""

    durak = durak

    def __init__(self, bot: commands.Bot, service: GameService) -> None:
        self.bot = bot
        self.service = service
        self.presenter = DiscordPresenter(bot)
        self.presenter.on_hidden = self.on_hidden
        self.presenter.on_visible = self.on_visible
        self.presenter.on_closed = self.latest_forget_channel
        self._previous_error_handler: ErrorHandler | None = None
        self.latest = LatestInteractions()

    async def cog_load(self) -> None:
        self.service.add_presenter(self.presenter)
        self._previous_error_handler = self.bot.tree.on_error
        self.bot.tree.error(self.on_tree_error)

    async def cog_unload(self) -> None:
        self.service.remove_presenter(self.presenter)
        if self._previous_error_handler is not None:
            self.bot.tree.on_error = self._previous_error_handler  # type: ignore[method-assign]

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        if interaction.guild_id is None or interaction.channel_id is None:
            raise app_commands.NoPrivateMessage()
        self.remember(interaction)
        return True

    def use_web(self, links: TableLinks, *, activity: bool) -> None:
        """The web table is on: hands and tables carry its links, and ``/durak play``
        launches the Activity (``activity``) or answers with a link."""
        self.presenter.links = links
        self.activity = activity

    def latest_forget_channel(self, channel_id: int) -> None:
        """The channel's lobby or series is over: its users' interactions are not needed."""
        self.latest.forget_channel(channel_id)

    async def on_component(self, interaction: discord.Interaction[Any], button: AnyButton) -> None:
        """A press on any button or select: acknowledged and handled as :data:`ROUTES` says."""
        route = ROUTES.get(route_of(button))
        if route is None:  # a custom id the templates accept but nothing handles
            raise StaleAction()
        self.remember(interaction)
        if route.defer is Defer.PRIVATE:
            await self.defer_private(interaction)
        elif route.defer is Defer.UPDATE:
            await self.defer_update(interaction)
            if not self.source_is_private(interaction):
                self.presenter.pressed(interaction)
        else:
            await self.defer_in_place(interaction)
        if not self.source_is_private(interaction):
            # a press on a public message (Start, Rematch, a vote) acknowledged as an update:
            # its token writes the table.  A press on a private hand lends none: whether a
            # followup of it would be public is not something the bot should rely on.
            self.presenter.lend(interaction)
        await route.run(self, interaction, button)

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """A public message was posted: the presenter keeps each channel's newest, so that a
        table still at the bottom of its channel is edited rather than posted again."""
        if message.guild is not None:
            self.presenter.saw_message(message.channel.id, message.id)

    # -- public messages that cannot be shown --------------------------------
    async def on_hidden(self, channel_id: int, what: str, error: discord.HTTPException) -> None:
        """A public message of the channel could not be posted or edited (``what``:
        ``lobby``, ``table`` or ``notice``).  Nothing may stay invisible:

        - a lobby that cannot be posted is closed (the channel is free again);
        - a running game's timers are paused (nobody times out on a table they cannot see)
          until ``/durak table`` posts it again (:meth:`on_visible`) or the game is stopped;
        - the host is told privately when this closed the lobby or paused the game (so once
          per episode, whatever else fails meanwhile), in their language: through a
          followup of their latest interaction in the channel when it is younger than
          Discord's 15 minutes, else by a direct message (which may be closed: then only
          the log knows, and the paused game waits for anyone's ``/durak table``)."""
        outcome = await self.service.table_unshowable(channel_id, lobby=what == "lobby")
        if outcome.done is Unshowable.NOTHING:
            log.warning("channel %d: a public %s could not be posted: %s", channel_id, what, error)
            return
        subject, host = outcome.done.value, outcome.host_id
        if host is None:
            return
        if isinstance(error, discord.Forbidden):
            problem = "permissions"
        elif isinstance(error, discord.NotFound):
            problem = "gone"
        else:
            problem = "refused"
        await self.tell_privately(channel_id, host, subject, problem)

    async def tell_privately(
        self, channel_id: int, user_id: int, subject: str, problem: str
    ) -> None:
        """Tell ``user_id`` that the ``subject`` of the channel cannot be shown (see
        :meth:`on_hidden`)."""
        interaction = self.latest.get(channel_id, user_id)
        if interaction is not None:
            reply = render_hidden(subject, channel_id, problem, self.cat(interaction))
            try:
                await interaction.followup.send(ephemeral=True, **message_kwargs(reply))
                return
            except discord.HTTPException as exc:
                log.info("could not tell user %d through an interaction: %s", user_id, exc)
            guild_id = interaction.guild_id
        else:
            guild = getattr(self.bot.get_channel(channel_id), "guild", None)
            guild_id = guild.id if isinstance(guild, discord.Guild) else None
        reply = render_hidden(subject, channel_id, problem, self.presenter.guild_catalog(guild_id))
        try:
            user = self.bot.get_user(user_id) or await self.bot.fetch_user(user_id)
            await user.send(**message_kwargs(reply))
        except discord.HTTPException as exc:
            log.warning(
                "could not tell user %d that channel %d is hidden: %s", user_id, channel_id, exc
            )

    async def on_visible(self, channel_id: int) -> None:
        """The channel's table could be posted again: resume a paused game."""
        await self.service.resume_timers(channel_id)
