"""The bot's buttons and selects as ``discord.ui.DynamicItem``s.

:class:`GameComponent`, :class:`LobbyComponent`, :class:`ReplayComponent`, :class:`ReviewComponent`,
:class:`HistoryComponent` and :class:`ForgetComponent` match the custom ids of
:mod:`cogs.custom_ids`, so they keep working on messages sent before a restart.  Messages are
sent with views that are never stored by discord.py (they are stopped before sending): every
press is routed by the registered templates alone, to the loaded cog (a
:class:`ComponentHandler`), which looks the press up in its one table of actions.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Awaitable
from typing import Any, ClassVar, Protocol, Self, runtime_checkable

import discord
from discord.ext import commands

from bot.errors import ServiceError
from cogs.custom_ids import (
    FORGET_TEMPLATE,
    GAME_TEMPLATE,
    HISTORY_TEMPLATE,
    LOBBY_TEMPLATE,
    REPLAY_TEMPLATE,
    REVIEW_TEMPLATE,
    AnyButton,
    ForgetButton,
    GameButton,
    HistoryButton,
    LobbyButton,
    ReplayButton,
    ReviewButton,
)
from cogs.i18n import catalog, pick_locale
from cogs.presenter import message_kwargs
from cogs.render.notices import render_error

__all__ = [
    "COG_NAME",
    "ComponentHandler",
    "ForgetComponent",
    "GameComponent",
    "HistoryComponent",
    "LobbyComponent",
    "ReplayComponent",
    "ReviewComponent",
]

#: The name of the cog that handles the components.
COG_NAME = "Durak"


@runtime_checkable
class ComponentHandler(Protocol):
    """What the components need from the cog."""

    async def on_component(self, interaction: discord.Interaction[Any], button: AnyButton) -> None:
        """Handle a press on any of the bot's buttons or selects."""

    async def run_component(
        self, interaction: discord.Interaction[Any], work: Awaitable[None]
    ) -> None:
        """Run a handler; answer a refusal or failure privately."""


def _handler(interaction: discord.Interaction[Any]) -> ComponentHandler | None:
    client = interaction.client
    # AutoShardedBot (SHARD_COUNT) is not a commands.Bot: both derive from BotBase
    bot = isinstance(client, commands.Bot | commands.AutoShardedBot)
    cog = client.get_cog(COG_NAME) if bot else None
    return cog if isinstance(cog, ComponentHandler) else None


async def _unavailable(interaction: discord.Interaction[Any]) -> None:
    """The cog is not loaded (shutting down or reloading): say so privately."""
    t = catalog(
        pick_locale(
            str(interaction.locale.value),
            interaction.guild_locale.value if interaction.guild_locale else None,
        )
    )
    reply = render_error(ServiceError.default_message, t)
    with contextlib.suppress(discord.HTTPException):
        await interaction.response.send_message(ephemeral=True, **message_kwargs(reply))


class _Component(discord.ui.DynamicItem[discord.ui.Item[Any]], template=r"(?!)"):
    """What every component does: read its button from the custom id and hand the press to
    the cog.  Never registered itself (its template matches nothing): the subclasses are."""

    #: The button type of the custom ids the subclass's template matches.
    button_type: ClassVar[type[AnyButton]]

    def __init__(self, item: discord.ui.Item[Any], button: AnyButton) -> None:
        super().__init__(item)
        self.button = button

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Self:
        """The component of a pressed custom id."""
        return cls(item, cls.button_type.from_match(match))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Route the press to the cog."""
        handler = _handler(interaction)
        if handler is None:
            await _unavailable(interaction)
            return
        await handler.run_component(interaction, handler.on_component(interaction, self.button))


class GameComponent(_Component, template=GAME_TEMPLATE):
    """Every game button or select: ``durak:<game_id>:<version>:<action>``."""

    button_type = GameButton


class LobbyComponent(_Component, template=LOBBY_TEMPLATE):
    """Lobby buttons and the Add AI select: ``durak:lobby:<channel_id>:<action>``."""

    button_type = LobbyButton


class ReplayComponent(_Component, template=REPLAY_TEMPLATE):
    """Replay buttons: ``durak:replay:<game_id>:<frame>:<nav>``."""

    button_type = ReplayButton


class ReviewComponent(_Component, template=REVIEW_TEMPLATE):
    """Review buttons: ``durak:review:<game_id>:<page>:<open|prev|next>``."""

    button_type = ReviewButton


class HistoryComponent(_Component, template=HISTORY_TEMPLATE):
    """History paging buttons: ``durak:history:<user_id>:<page>:<prev|next>``."""

    button_type = HistoryButton


class ForgetComponent(_Component, template=FORGET_TEMPLATE):
    """The ``/durak forget-me`` confirmation's buttons:
    ``durak:forget:<user_id>:<expires_at>:<confirm|cancel>``."""

    button_type = ForgetButton
