"""Play commands and buttons: ``/durak hand``, ``/durak table``, a hand's card, action and
paging buttons, and the game-over buttons (Rematch, End series)."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import discord

from bot.errors import ServiceError, StaleAction
from bot.views import ActionChoice, HandView
from cogs.cog_core import CogCore, subcommand
from cogs.custom_ids import GameButton
from cogs.render.hand import render_why
from cogs.render.links import render_no_web_table, render_table_link
from cogs.render.notices import render_hidden, render_missing_permissions
from rules_engine import parse_action
from rules_engine.cards import Card, parse_card
from rules_engine.errors import DurakError
from rules_engine.messages import Message

__all__ = ["PlayCommands"]

log = logging.getLogger(__name__)


class PlayCommands(CogCore):
    """A player's hand and moves, the public table, and what follows a finished game."""

    @subcommand("hand")
    async def hand(self, interaction: discord.Interaction[Any]) -> None:
        await self.defer_private(interaction)
        await self.open_hand(interaction, page=0)

    @subcommand("table")
    async def table(self, interaction: discord.Interaction[Any]) -> None:
        await self.defer_private(interaction)
        assert interaction.channel_id is not None
        view = await self.service.table(interaction.channel_id)
        missing = self.missing_permissions(interaction)
        if missing:
            t = self.cat(interaction)
            await self.answer(interaction, render_missing_permissions(missing, t))
            return
        channel_id = interaction.channel_id
        await self.presenter.repost_table(view)
        if self.presenter.is_hidden(channel_id):  # Discord still refuses the table
            t = self.cat(interaction)
            await self.answer(interaction, render_hidden("table", channel_id, "refused", t))
            return
        # the table is posted: a game paused while it could not be shown goes on (the
        # presenter's on_visible did it already when it saw the channel come back)
        await self.service.resume_timers(channel_id)
        await self.done(interaction)

    @subcommand("play")
    async def play(self, interaction: discord.Interaction[Any]) -> None:
        """The channel's table as a Discord Activity (when the application has one and the
        channel has a game to show), else its web link, privately; without a web table, or
        without a game (a lobby alone or nothing), says so privately."""
        if self.activity and await self._has_table(interaction):
            try:
                await interaction.response.launch_activity()
                return
            except discord.HTTPException as exc:  # Activities not enabled for the application
                log.warning("launching the Activity failed (%s): answered with the link", exc)
        await self.defer_private(interaction)
        t = self.cat(interaction)
        links = self.presenter.links
        if links is None:
            await self.answer(interaction, render_no_web_table(t))
            return
        channel_id = interaction.channel_id
        assert channel_id is not None
        table = await self.service.table(channel_id)
        user_id = interaction.user.id
        seat = next((s for s in table.seats if s.user_id == user_id and not s.forfeited), None)
        if seat is not None:
            url = links.player(channel_id, user_id, table.series_id, t.locale)
        else:
            url = links.watcher(channel_id, t.locale)
        await self.answer(interaction, render_table_link(url, t, player=seat is not None))

    async def _has_table(self, interaction: discord.Interaction[Any]) -> bool:
        """Whether the interaction's channel has a game's table to show: an Activity
        launched without one could only fail."""
        assert interaction.channel_id is not None
        try:
            await self.service.table(interaction.channel_id)
        except ServiceError:
            return False
        return True

    # -- hands -------------------------------------------------------------
    async def open_hand(
        self,
        interaction: discord.Interaction[Any],
        *,
        page: int | None = None,
        selected: str | None = None,
    ) -> HandView:
        """Fetch the caller's hand and render it through ``interaction`` (acknowledged, with a
        private original response)."""
        assert interaction.channel_id is not None
        view = await self.service.hand(interaction.channel_id, interaction.user.id)
        await self.presenter.show_hand(
            interaction, view, self.cat(interaction), page=page, selected=selected
        )
        return view

    async def press_show_hand(
        self, interaction: discord.Interaction[Any], button: GameButton
    ) -> None:
        """The table's Show my hand: a new private message becomes the player's hand."""
        await self.open_hand(interaction, page=0)

    async def press_page(self, interaction: discord.Interaction[Any], button: GameButton) -> None:
        """A hand's paging buttons (and the Back of a selected card)."""
        await self.open_hand(interaction, page=int(button.argument or 0))

    async def press_pick(self, interaction: discord.Interaction[Any], button: GameButton) -> None:
        """A card with several possible actions: the hand shows that card's actions."""
        view = await self.open_hand(interaction, selected=button.argument)
        if view.version != button.version:
            await self.refuse(interaction, StaleAction.default_message)

    async def press_act(self, interaction: discord.Interaction[Any], button: GameButton) -> None:
        """An action button of a hand: play it; a refusal brings the current hand back."""
        channel_id = interaction.channel_id
        assert channel_id is not None
        user_id = interaction.user.id
        st = self.presenter.hand_state(channel_id, user_id, self.cat(interaction))
        st.interaction = interaction  # the pushed hand after this move lands on this press
        try:
            await self.service.act(
                channel_id, user_id, button.action, button.version, game_id=button.game_id
            )
        except ServiceError as exc:
            message = exc.message
            if isinstance(exc, StaleAction):
                with contextlib.suppress(ServiceError):
                    gone = await self._card_gone(channel_id, user_id, button)
                    if gone is not None:
                        message = Message("{card} is not in your hand", card=gone)
            await self.refuse(interaction, message)
            with contextlib.suppress(ServiceError):
                await self.open_hand(interaction)  # bring the current hand back
            return

    async def _card_gone(self, channel_id: int, user_id: int, button: GameButton) -> Card | None:
        """A card of the refused (stale) action that the player no longer holds, if any."""
        current = await self.service.hand(channel_id, user_id)
        if current.game_id != button.game_id:
            return None
        try:
            pressed = ActionChoice.of(parse_action(button.action, seat=current.seat))
        except DurakError:
            return None
        held = {c.card for c in current.cards}
        return next((card for card in pressed.uses if card not in held), None)

    async def press_why(self, interaction: discord.Interaction[Any], button: GameButton) -> None:
        """A card that cannot be played now: say why, privately."""
        t = self.cat(interaction)
        view = await self.open_hand(interaction)
        text = button.argument or ""
        found = next((c for c in view.cards if c.text == text), None)
        if found is None:
            try:
                card: Card | str = parse_card(text)
            except DurakError:
                card = text
            await self.refuse(interaction, Message("{card} is not in your hand", card=card))
        elif found.reason is not None:
            names = await self.seat_names(interaction.channel_id, t)
            await self.private(interaction, render_why(found.card, found.reason, t, names))
        # a card that became playable meanwhile: the refreshed hand is the answer

    # -- game over -----------------------------------------------------------
    async def press_game_over(
        self, interaction: discord.Interaction[Any], button: GameButton
    ) -> None:
        """A finished game's Rematch or End series button (while it is the channel's last
        game)."""
        channel_id = interaction.channel_id
        assert channel_id is not None
        table = await self.service.table(channel_id)
        if table.game_id != button.game_id:
            raise StaleAction()
        then = self.service.rematch if button.verb == "rematch" else self.service.end_series
        await then(channel_id, interaction.user.id, self.authority(interaction))
