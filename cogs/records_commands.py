"""Records: ``/durak series``, ``stats``, ``leaderboard``, ``history`` and ``review``, a
history's paging buttons, its replays, and the coach's reviews."""

from __future__ import annotations

import asyncio
from time import monotonic
from typing import Any

import discord
from discord import app_commands

from bot.errors import ServiceError
from cogs.choices import RULE_PROFILES, named_choices
from cogs.cog_core import CogCore, options, subcommand
from cogs.custom_ids import HistoryButton, ReplayButton, ReviewButton
from cogs.render.chart import chart_png
from cogs.render.records import (
    render_history,
    render_leaderboard,
    render_replay,
    render_series,
    render_stats,
)
from cogs.render.review import render_review, render_review_progress

#: A review's private message shows its progress at most this often (seconds).
PROGRESS_EVERY_S = 2.0

__all__ = ["RecordsCommands"]


class RecordsCommands(CogCore):
    """Loss counts, ratings, the server's finished games and their replays (all private)."""

    @subcommand("series")
    async def series(self, interaction: discord.Interaction[Any]) -> None:
        await self.defer_private(interaction)
        assert interaction.channel_id is not None
        view = await self.service.series(interaction.channel_id)
        await self.answer(interaction, render_series(view, self.cat(interaction)))

    @subcommand("stats")
    @options("user", "profile")
    @app_commands.choices(profile=named_choices(RULE_PROFILES))
    async def stats(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User | discord.Member | None = None,
        profile: str | None = None,
    ) -> None:
        await self.defer_private(interaction)
        assert interaction.guild_id is not None
        who = user or interaction.user
        # the member's display name names the answer, also when nothing is stored about them
        view = await self.service.stats(
            interaction.guild_id, who.id, profile, name=who.display_name
        )
        await self.answer(interaction, render_stats(view, self.cat(interaction)))

    @subcommand("leaderboard")
    @options("profile", "min_games", "page")
    @app_commands.choices(profile=named_choices(RULE_PROFILES))
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        profile: str | None = None,
        min_games: app_commands.Range[int, 1, 10_000] = 5,
        page: app_commands.Range[int, 1, 10_000] = 1,
    ) -> None:
        await self.defer_private(interaction)
        assert interaction.guild_id is not None
        view = await self.service.leaderboard(interaction.guild_id, profile, min_games, page)
        await self.answer(interaction, render_leaderboard(view, self.cat(interaction)))

    @subcommand("history")
    @options("user", "page")
    async def history(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User | discord.Member | None = None,
        page: app_commands.Range[int, 1, 10_000] = 1,
    ) -> None:
        await self.defer_private(interaction)
        assert interaction.guild_id is not None
        view = await self.service.history(
            interaction.guild_id, None if user is None else user.id, page
        )
        await self.answer(interaction, render_history(view, self.cat(interaction)))

    @subcommand("review")
    @options("game")
    async def review(
        self,
        interaction: discord.Interaction[Any],
        game: app_commands.Range[int, 1, 2**53] | None = None,
    ) -> None:
        await self.defer_private(interaction)
        await self._review(interaction, game, 0)

    async def press_review(
        self, interaction: discord.Interaction[Any], button: ReviewButton
    ) -> None:
        """The game-over message's "Review my game" (a new private review of the presser's
        own decisions) or a review's ◀ ▶ (that private message edited)."""
        opening = button.nav == "open" or not self.source_is_private(interaction)
        try:
            await self._review(interaction, button.game_id, button.page)
        except ServiceError:
            if opening:  # leave no "thinking…" behind the private refusal
                await self.done(interaction)
            raise

    async def _review(
        self, interaction: discord.Interaction[Any], game_id: int | None, page: int
    ) -> None:
        """The review of the user's decisions in ``game_id`` (default: their last game) at
        ``page``.  While it is made (a stored one is instant), the private message shows how
        many decisions are done, at most every :data:`PROGRESS_EVERY_S` seconds."""
        assert interaction.guild_id is not None
        t = self.cat(interaction)
        shown = -PROGRESS_EVERY_S
        edits: list[asyncio.Future[None]] = []

        def progress(done: int, total: int) -> None:
            nonlocal shown
            now = monotonic()
            if done < total and now - shown >= PROGRESS_EVERY_S:
                shown = now
                reply = render_review_progress(done, total, t)
                edits.append(asyncio.ensure_future(self.answer(interaction, reply)))

        try:
            view = await self.service.review(
                interaction.guild_id, interaction.user.id, game_id, progress=progress
            )
        finally:
            # the last progress edit lands before the answer, never over it
            await asyncio.gather(*edits, return_exceptions=True)
        chart = None
        if page == 0:  # the summary shows the chart (a PNG made off the event loop)
            chart = await asyncio.to_thread(chart_png, view.review)
        await self.answer(interaction, render_review(view, page, t, chart=chart))

    async def press_history(
        self, interaction: discord.Interaction[Any], button: HistoryButton
    ) -> None:
        """A history's ◀ ▶ page buttons: the private history message shows that page."""
        assert interaction.guild_id is not None
        view = await self.service.history(interaction.guild_id, button.user_id, button.page)
        await self.answer(interaction, render_history(view, self.cat(interaction)))

    async def press_replay(
        self, interaction: discord.Interaction[Any], button: ReplayButton
    ) -> None:
        """A history's Replay button (a new private replay) or a replay's navigation (the
        replay message edited in place).  Replays are rebuilt from the stored game at every
        press, so a press after a restart works the same."""
        opening = button.nav == "open" or not self.source_is_private(interaction)
        assert interaction.guild_id is not None
        try:
            view = await self.service.replay(interaction.guild_id, button.game_id)
        except ServiceError:
            if opening:  # leave no "thinking…" behind the private refusal
                await self.done(interaction)
            raise
        await self.answer(interaction, render_replay(view, button.frame, self.cat(interaction)))
