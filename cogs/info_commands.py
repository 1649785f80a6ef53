"""Reference commands: ``/durak help``, ``/durak rules`` and ``/durak config`` (the server's
settings)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.errors import NotManager, ServiceError
from cogs.choices import (
    DECKS,
    FIRST_ROUND_LIMIT,
    RULE_PROFILES,
    SWITCH,
    TEAMS,
    THROW_IN,
    named_choices,
)
from cogs.cog_core import CogCore, options, subcommand
from cogs.i18n import CONFIG_OPTIONS, OPTIONS
from cogs.render.info import render_config, render_help, render_rules
from rules_engine import PROFILES, Rules

__all__ = ["InfoCommands"]


class InfoCommands(CogCore):
    """How to play, the rules in force, and the server's settings."""

    @subcommand("help")
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        await self.defer_private(interaction)
        await self.answer(interaction, render_help(self.cat(interaction)))

    @subcommand("config")
    @options(
        "profile",
        "transfer",
        "throw_in",
        "first_round_limit",
        "turn_timeout",
        "deck",
        "show_trump",
        "teams",
        "add_channel",
        "remove_channel",
        "count_ai_games",
        texts={**OPTIONS, **CONFIG_OPTIONS},
    )
    @app_commands.choices(
        profile=named_choices(RULE_PROFILES),
        transfer=named_choices(SWITCH),
        throw_in=named_choices((*THROW_IN, "default")),
        first_round_limit=named_choices(FIRST_ROUND_LIMIT),
        deck=named_choices((*DECKS, "default")),
        show_trump=named_choices(SWITCH),
        teams=named_choices((*TEAMS, "default")),
    )
    async def config(
        self,
        interaction: discord.Interaction[Any],
        profile: str | None = None,
        transfer: str | None = None,
        throw_in: str | None = None,
        first_round_limit: str | None = None,
        turn_timeout: int | None = None,
        deck: str | None = None,
        show_trump: str | None = None,
        teams: str | None = None,
        add_channel: discord.TextChannel | None = None,
        remove_channel: discord.TextChannel | None = None,
        count_ai_games: bool | None = None,
    ) -> None:
        """Show the server's settings, or change them (both need Manage Server; every value
        is checked, a refused one changes nothing)."""
        await self.defer_private(interaction)
        assert interaction.guild_id is not None
        t = self.cat(interaction)
        manage_guild = bool(interaction.permissions.manage_guild)
        if not manage_guild:
            raise NotManager()
        changes: dict[str, object] = {
            "profile": profile,
            "transfer": transfer,
            "throw_in": throw_in,
            "first_round_limit": first_round_limit,
            "turn_timeout": turn_timeout,
            "deck": deck,
            "show_trump": show_trump,
            "teams": teams,
            "count_ai_games": count_ai_games,
            "add_channel": None if add_channel is None else add_channel.id,
            "remove_channel": None if remove_channel is None else remove_channel.id,
        }
        if all(v is None for v in changes.values()):
            config = await self.service.server_config(interaction.guild_id)
            await self.answer(interaction, render_config(config, t))
            return
        config = await self.service.set_server_config(
            interaction.guild_id,
            interaction.user.id,
            manage_guild=manage_guild,
            **{k: v for k, v in changes.items() if v is not None},
        )
        await self.answer(interaction, render_config(config, t, saved=True))

    @subcommand("rules")
    @options("profile")
    @app_commands.choices(profile=named_choices(RULE_PROFILES))
    async def rules(
        self, interaction: discord.Interaction[Any], profile: str | None = None
    ) -> None:
        await self.defer_private(interaction)
        assert interaction.channel_id is not None
        t = self.cat(interaction)
        name: str | None
        rules: dict[str, Any] | None
        if profile is not None:
            name, rules = profile, PROFILES[profile].to_dict()
        else:
            name, rules = await self._active_rules(interaction.channel_id)
        await self.answer(interaction, render_rules(name, rules, t))

    async def _active_rules(self, channel_id: int) -> tuple[str | None, dict[str, Any] | None]:
        """(profile name or None for custom options, options) of this channel's lobby or
        game; (None, None) when there is neither (the answer then lists the profiles)."""
        svc = self.service
        rules: Rules | None
        try:
            lobby = await svc.lobby(channel_id)
        except ServiceError:
            try:
                table = await svc.table(channel_id)
            except ServiceError:
                return None, None
            rules = table.rules
        else:
            rules = lobby.rules
        return rules.profile, rules.to_dict()
