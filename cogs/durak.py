"""The ``/durak`` extension: loads the cog (:mod:`cogs.durak_commands`) and registers the
buttons (:mod:`cogs.components`); the Discord presenter is :mod:`cogs.presenter`.

How a request flows
-------------------
Every interaction is acknowledged first (``defer``), then the service is called:

- slash commands defer *ephemerally* ("thinking…", visible to the caller only).  A refusal
  replaces that with a private explanation; a success that changes a public message (lobby,
  table) deletes it, since the public message is the answer; ``hand``, ``rules``, ``series``,
  ``stats`` and ``leaderboard`` answer privately in it.
- buttons on a public message (lobby, table, game over) defer as an update (type 6): the
  presenter edits the public message; a refusal is a private followup.  "Show my hand" defers
  ephemerally and that new private message becomes the player's hand.
- buttons on a hand (ephemeral) defer as an update (type 6) of that hand: the press becomes the
  player's latest interaction, through which the presenter edits the hand from then on.
"""

from __future__ import annotations

from discord.ext import commands

from bot.service import GameService
from cogs.components import GameComponent, HistoryComponent, LobbyComponent, ReplayComponent
from cogs.durak_commands import DurakCog
from cogs.presenter import DiscordPresenter, message_kwargs

__all__ = [
    "DiscordPresenter",
    "DurakCog",
    "GameComponent",
    "HistoryComponent",
    "LobbyComponent",
    "ReplayComponent",
    "message_kwargs",
    "setup",
    "teardown",
]


async def setup(bot: commands.Bot) -> None:
    """Load the cog (it needs ``bot.service``) and register the buttons."""
    service = getattr(bot, "service", None)
    if not isinstance(service, GameService):
        raise RuntimeError("cogs.durak needs bot.service (build the bot with create_bot)")
    await bot.add_cog(DurakCog(bot, service))
    bot.add_dynamic_items(GameComponent, LobbyComponent, ReplayComponent, HistoryComponent)


async def teardown(bot: commands.Bot) -> None:
    """Unregister the buttons (the cog unloads with the extension)."""
    bot.remove_dynamic_items(GameComponent, LobbyComponent, ReplayComponent, HistoryComponent)
