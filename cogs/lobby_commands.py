"""Lobby commands and buttons: ``/durak new``, ``join``, ``leave``, ``addbot``, ``start``,
``stop`` and the lobby message's buttons and Add AI select."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.app_commands import Choice

from bot.errors import ConfirmForfeit, StaleAction
from cogs.choices import (
    DEFAULT_LEVEL,
    RULE_PROFILES,
    TEAMS,
    THROW_IN,
    SeatCount,
    TurnTimeout,
    deck_choices,
    level_choices,
    named_choices,
)
from cogs.cog_core import CogCore, options, subcommand
from cogs.custom_ids import LobbyButton
from cogs.render.notices import render_confirm_forfeit, render_missing_permissions

__all__ = ["LobbyCommands"]


class LobbyCommands(CogCore):
    """Opening a lobby, taking and freeing seats, adding AI players, starting and closing."""

    @subcommand("new")
    @options(
        "rules",
        "transfer",
        "throw_in",
        "first_round_limit",
        "turn_timeout",
        "seats",
        "deck",
        "show_trump",
        "teams",
    )
    @app_commands.choices(  # type: ignore[misc]  # str and int choices
        rules=named_choices(RULE_PROFILES),
        throw_in=named_choices(THROW_IN),
        first_round_limit=[Choice(name="5", value=5), Choice(name="6", value=6)],
        deck=deck_choices(),
        teams=named_choices(TEAMS),
    )
    async def new(
        self,
        interaction: discord.Interaction[Any],
        rules: str | None = None,
        transfer: bool | None = None,
        throw_in: str | None = None,
        first_round_limit: int | None = None,
        turn_timeout: TurnTimeout | None = None,
        seats: SeatCount | None = None,
        deck: int | None = None,
        show_trump: bool | None = None,
        teams: str | None = None,
    ) -> None:
        """Open a lobby with the options given (the others: the server's); an invalid
        combination (teams with transfer, a show without transfer, too many seats for a
        24-card pack) is refused privately with the engine's sentence."""
        await self.defer_private(interaction)
        assert interaction.channel_id is not None and interaction.guild_id is not None
        missing = self.missing_permissions(interaction)
        if missing:  # the lobby would be invisible: open nothing, say what is missing
            t = self.cat(interaction)
            await self.answer(interaction, render_missing_permissions(missing, t))
            return
        options = {
            "rules": rules,
            "transfer": transfer,
            "throw_in": throw_in,
            "first_round_limit": first_round_limit,
            "turn_timeout": turn_timeout,
            # not given: 6, or the teams' seats (4 for 2x2) in a team game (the service's)
            "seats": seats,
            "deck": deck,
            "show_trump": show_trump,
            "teams": teams,
        }
        channel = interaction.channel
        parent = channel.parent_id if isinstance(channel, discord.Thread) else None
        self.presenter.clear_hidden(interaction.channel_id)
        await self.service.open_lobby(
            interaction.channel_id,
            interaction.guild_id,
            interaction.user.id,
            self.name(interaction),
            options,
            parent_id=parent,
        )
        await self.done(interaction)

    @subcommand("join")
    async def join(self, interaction: discord.Interaction[Any]) -> None:
        await self.lobby_command(interaction, "join")

    @subcommand("leave")
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        await self.defer_private(interaction)
        await self.leave_or_confirm(interaction)

    @subcommand("addbot")
    @options("level")
    @app_commands.choices(level=level_choices())
    async def addbot(
        self, interaction: discord.Interaction[Any], level: str = DEFAULT_LEVEL
    ) -> None:
        await self.lobby_command(interaction, "addai", level)

    @subcommand("start")
    async def start(self, interaction: discord.Interaction[Any]) -> None:
        await self.lobby_command(interaction, "start")

    @subcommand("stop")
    async def stop(self, interaction: discord.Interaction[Any]) -> None:
        await self.lobby_command(interaction, "stop")

    # -- shared by the commands and the buttons ----------------------------
    async def lobby_command(
        self, interaction: discord.Interaction[Any], action: str, level: str | None = None
    ) -> None:
        """A slash command doing a lobby ``action``: the lobby message is the answer."""
        await self.defer_private(interaction)
        await self.lobby_action(interaction, action, level)
        await self.done(interaction)

    async def leave_or_confirm(self, interaction: discord.Interaction[Any], *_: object) -> None:
        """Free the caller's lobby seat (the lobby message is the answer), or, in a running
        game, answer privately with the "Leave and forfeit" confirmation (the interaction is
        deferred privately).  Also the table's Leave button."""
        try:
            await self.lobby_action(interaction, "leave")
        except ConfirmForfeit as exc:
            game = int(exc.details["game_id"])
            reply = render_confirm_forfeit(game, exc.message, self.cat(interaction))
            await self.answer(interaction, reply)
            return
        await self.done(interaction)

    async def press_lobby(self, interaction: discord.Interaction[Any], button: LobbyButton) -> None:
        """A lobby button or the Add AI select (deferred as an update of the lobby).  Only an
        accepted press makes the message it was pressed on the lobby message (one sent before
        a restart): a refused one, e.g. on the message of a lobby closed meanwhile, leaves
        the presenter's lobby message as it was, so the next lobby is posted anew."""
        channel_id = interaction.channel_id
        assert channel_id is not None
        if button.channel_id != channel_id:
            raise StaleAction()
        await self.lobby_action(interaction, button.action)
        # (no await since the service answered: its lobby update is not published yet)
        if interaction.message is not None and not self.source_is_private(interaction):
            self.presenter.adopt_lobby_message(channel_id, interaction.message.id)

    async def lobby_action(
        self, interaction: discord.Interaction[Any], action: str, level: str | None = None
    ) -> None:
        """Do a lobby ``action`` (``join``, ``leave``, ``addai``, ``start``, ``stop``,
        ``switch``: to the other team) for the caller; ``addai`` without ``level`` takes the
        Add AI select's value."""
        svc = self.service
        channel_id = interaction.channel_id
        assert channel_id is not None
        user_id = interaction.user.id
        if action == "join":
            await svc.join(channel_id, user_id, self.name(interaction))
        elif action == "leave":
            await svc.leave(channel_id, user_id)
        elif action == "addai":
            if level is None:
                data: dict[str, Any] = dict(interaction.data or {})
                values = data.get("values") or []
                level = str(values[0]) if values else DEFAULT_LEVEL
            await svc.add_ai(channel_id, user_id, level, authority=self.authority(interaction))
        elif action == "start":
            await svc.start(channel_id, user_id, self.authority(interaction))
        elif action == "stop":
            await svc.stop(channel_id, user_id, self.authority(interaction))
        elif action == "switch":
            await svc.switch_team(channel_id, user_id)
