"""A bot extension adding one global slash command: what an upgrade that adds a command does
to the command set (used by ``test_e2e_publish_commands``)."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands


@app_commands.command(name="extra", description="A command added by an upgrade")
async def extra(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("extra", ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    bot.tree.add_command(extra)
