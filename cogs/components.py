"""The bot's buttons and selects as ``discord.ui.DynamicItem``s.

:class:`GameComponent`, :class:`LobbyComponent`, :class:`ReplayComponent` and
:class:`HistoryComponent` match the custom ids of
:mod:`cogs.custom_ids`, so they keep working on messages sent before a restart.  Messages are
sent with views that are never stored by discord.py (they are stopped before sending): every
press is routed by the registered templates alone, to the loaded cog (a
:class:`ComponentHandler`).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Awaitable
from typing import Any, Protocol, runtime_checkable

import discord
from discord.ext import commands

from bot.errors import ServiceError
from cogs.custom_ids import (
    GAME_TEMPLATE,
    HISTORY_TEMPLATE,
    LOBBY_TEMPLATE,
    REPLAY_TEMPLATE,
    GameButton,
    HistoryButton,
    LobbyButton,
    ReplayButton,
)
from cogs.i18n import catalog, pick_locale
from cogs.presenter import message_kwargs
from cogs.render.notices import render_error

__all__ = [
    "COG_NAME",
    "ComponentHandler",
    "GameComponent",
    "HistoryComponent",
    "LobbyComponent",
    "ReplayComponent",
]

#: The name of the cog that handles the components.
COG_NAME = "Durak"


@runtime_checkable
class ComponentHandler(Protocol):
    """What the components need from the cog."""

    async def on_game_component(
        self, interaction: discord.Interaction[Any], button: GameButton
    ) -> None:
        """Handle a press on a game button or select."""

    async def on_lobby_component(
        self, interaction: discord.Interaction[Any], button: LobbyButton
    ) -> None:
        """Handle a press on a lobby button or the Add AI select."""

    async def on_replay_component(
        self, interaction: discord.Interaction[Any], button: ReplayButton
    ) -> None:
        """Handle a press on a history's Replay button or a replay's navigation."""

    async def on_history_component(
        self, interaction: discord.Interaction[Any], button: HistoryButton
    ) -> None:
        """Handle a press on a history's paging buttons."""

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


class GameComponent(discord.ui.DynamicItem[discord.ui.Item[Any]], template=GAME_TEMPLATE):
    """Every game button or select: ``durak:<game_id>:<version>:<action>``."""

    def __init__(self, item: discord.ui.Item[Any], button: GameButton) -> None:
        super().__init__(item)
        self.button = button

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> GameComponent:
        """The component of a pressed custom id."""
        return cls(item, GameButton(int(match["game_id"]), int(match["version"]), match["action"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Route the press to the cog."""
        handler = _handler(interaction)
        if handler is None:
            await _unavailable(interaction)
            return
        await handler.run_component(
            interaction, handler.on_game_component(interaction, self.button)
        )


class LobbyComponent(discord.ui.DynamicItem[discord.ui.Item[Any]], template=LOBBY_TEMPLATE):
    """Lobby buttons and the Add AI select: ``durak:lobby:<channel_id>:<action>``."""

    def __init__(self, item: discord.ui.Item[Any], button: LobbyButton) -> None:
        super().__init__(item)
        self.button = button

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> LobbyComponent:
        """The component of a pressed custom id."""
        return cls(item, LobbyButton(int(match["channel_id"]), match["action"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Route the press to the cog."""
        handler = _handler(interaction)
        if handler is None:
            await _unavailable(interaction)
            return
        await handler.run_component(
            interaction, handler.on_lobby_component(interaction, self.button)
        )


class ReplayComponent(discord.ui.DynamicItem[discord.ui.Item[Any]], template=REPLAY_TEMPLATE):
    """Replay buttons: ``durak:replay:<game_id>:<frame>:<nav>``."""

    def __init__(self, item: discord.ui.Item[Any], button: ReplayButton) -> None:
        super().__init__(item)
        self.button = button

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ReplayComponent:
        """The component of a pressed custom id."""
        return cls(item, ReplayButton(int(match["game_id"]), int(match["frame"]), match["nav"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Route the press to the cog."""
        handler = _handler(interaction)
        if handler is None:
            await _unavailable(interaction)
            return
        await handler.run_component(
            interaction, handler.on_replay_component(interaction, self.button)
        )


class HistoryComponent(discord.ui.DynamicItem[discord.ui.Item[Any]], template=HISTORY_TEMPLATE):
    """History paging buttons: ``durak:history:<user_id>:<page>:<prev|next>``."""

    def __init__(self, item: discord.ui.Item[Any], button: HistoryButton) -> None:
        super().__init__(item)
        self.button = button

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> HistoryComponent:
        """The component of a pressed custom id."""
        user_id = int(match["user_id"]) or None
        return cls(item, HistoryButton(user_id, int(match["page"]), match["nav"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Route the press to the cog."""
        handler = _handler(interaction)
        if handler is None:
            await _unavailable(interaction)
            return
        await handler.run_component(
            interaction, handler.on_history_component(interaction, self.button)
        )
