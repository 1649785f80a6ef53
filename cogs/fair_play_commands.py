"""Fair-play commands and buttons: ``/durak kick``, the table's stop vote (Stop, Keep
playing) and the "Leave and forfeit" confirmation.  ``/durak stop`` and the table's Leave
button share the lobby's code (:mod:`cogs.lobby_commands`)."""

from __future__ import annotations

from typing import Any

import discord

from cogs.choices import SeatNumber
from cogs.cog_core import CogCore, options, subcommand
from cogs.custom_ids import GameButton
from cogs.i18n import KICK_USER, OPTIONS
from cogs.render.notices import render_forfeited

__all__ = ["FairPlayCommands"]


class FairPlayCommands(CogCore):
    """Removing players, voting to stop a game, and leaving one for good."""

    @subcommand("kick")
    @options("user", "seat", texts={**OPTIONS, "user": KICK_USER})
    async def kick(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User | discord.Member | None = None,
        seat: SeatNumber | None = None,
    ) -> None:
        """Free a player's seat (``user``), or a seat by its number (``seat``: an AI seat)."""
        await self.defer_private(interaction)
        assert interaction.channel_id is not None
        await self.service.kick(
            interaction.channel_id,
            interaction.user.id,
            None if user is None else user.id,
            seat=None if seat is None else seat - 1,
            authority=self.authority(interaction),
        )
        await self.done(interaction)

    async def press_stop(self, interaction: discord.Interaction[Any], button: GameButton) -> None:
        """The table's Stop: open a stop vote, or agree to the open one."""
        assert interaction.channel_id is not None
        await self.service.stop(
            interaction.channel_id,
            interaction.user.id,
            self.authority(interaction),
            game_id=button.game_id,
        )

    async def press_keep(self, interaction: discord.Interaction[Any], button: GameButton) -> None:
        """Keep playing: a no to the open stop vote."""
        assert interaction.channel_id is not None
        await self.service.keep_playing(
            interaction.channel_id, interaction.user.id, game_id=button.game_id
        )

    async def press_forfeit(
        self, interaction: discord.Interaction[Any], button: GameButton
    ) -> None:
        """ "Leave and forfeit" on the private confirmation of the table's Leave button."""
        assert interaction.channel_id is not None
        await self.service.forfeit(
            interaction.channel_id, interaction.user.id, game_id=button.game_id
        )
        await self.answer(interaction, render_forfeited(self.cat(interaction)))
