"""The ``/durak`` extension: loads the cog (:mod:`cogs.durak_commands`, which also says how a
request flows) and registers the buttons (:mod:`cogs.components`); the Discord presenter is
:mod:`cogs.presenter`."""

from __future__ import annotations

from discord.ext import commands

from bot.service import GameService
from cogs.components import (
    ForgetComponent,
    GameComponent,
    HistoryComponent,
    LobbyComponent,
    ReplayComponent,
    ReviewComponent,
)
from cogs.durak_commands import DurakCog

__all__ = ["COMPONENTS", "setup", "teardown"]

#: Every kind of button and select the bot sends (registered while the extension is loaded).
COMPONENTS = (
    GameComponent,
    LobbyComponent,
    ReplayComponent,
    ReviewComponent,
    HistoryComponent,
    ForgetComponent,
)


async def setup(bot: commands.Bot) -> None:
    """Load the cog (it needs ``bot.service``) and register the buttons."""
    service = getattr(bot, "service", None)
    if not isinstance(service, GameService):
        raise RuntimeError("cogs.durak needs bot.service (build the bot with create_bot)")
    await bot.add_cog(DurakCog(bot, service))
    bot.add_dynamic_items(*COMPONENTS)


async def teardown(bot: commands.Bot) -> None:
    """Unregister the buttons (the cog unloads with the extension)."""
    bot.remove_dynamic_items(*COMPONENTS)
