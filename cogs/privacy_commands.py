"""Privacy: ``/durak privacy`` (what the bot stores about the caller) and ``/durak forget-me``
(erase it, after a private confirmation that only the caller may answer)."""

from __future__ import annotations

from typing import Any

import discord

from bot.errors import ConfirmationExpired, PlayerInPlay
from bot.player_records import PrivacyView
from cogs.cog_core import CogCore, subcommand
from cogs.custom_ids import ForgetButton
from cogs.render.notices import render_error
from cogs.render.privacy import (
    render_confirm_forget,
    render_forget_cancelled,
    render_forgotten,
    render_privacy,
)

__all__ = ["PrivacyCommands"]


class PrivacyCommands(CogCore):
    """What is stored about a player, and forgetting them (all private)."""

    @subcommand("privacy")
    async def privacy(self, interaction: discord.Interaction[Any]) -> None:
        await self.defer_private(interaction)
        view = await self.service.privacy(interaction.user.id)
        reply = render_privacy(view, self.cat(interaction), self._server_names(view))
        await self.answer(interaction, reply)

    @subcommand("forget-me")
    async def forget_me(self, interaction: discord.Interaction[Any]) -> None:
        await self.defer_private(interaction)
        request = await self.service.ask_forget(interaction.user.id)
        await self.answer(interaction, render_confirm_forget(request, self.cat(interaction)))

    async def press_forget(
        self, interaction: discord.Interaction[Any], button: ForgetButton
    ) -> None:
        """Erase or Cancel on the confirmation (deferred as an update of it).  Pressed by
        anyone but its asker, it is refused privately and left as it was; too late, or by a
        player who took a seat meanwhile, it becomes the refusal, without its buttons."""
        t = self.cat(interaction)
        if button.action == "cancel":
            await self.service.cancel_forget(button.user_id, interaction.user.id)
            await self.answer(interaction, render_forget_cancelled(t))
            return
        try:
            erased = await self.service.forget_me(
                button.user_id, interaction.user.id, expires_at=button.expires_at
            )
        except (ConfirmationExpired, PlayerInPlay) as refused:
            await self.answer(interaction, render_error(refused.message, t))
            return
        await self.answer(interaction, render_forgotten(erased, t))

    def _server_names(self, view: PrivacyView) -> dict[int, str]:
        """The names of the servers of ``view`` that the bot is in."""
        names = {}
        for server in view.servers:
            guild = self.bot.get_guild(server.guild_id)
            if guild is not None and guild.name:
                names[server.guild_id] = guild.name
        return names
