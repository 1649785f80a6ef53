"""The users' latest interactions per channel, kept while Discord lets the bot answer them.

The cog answers a user privately through their latest interaction in a channel (see
:meth:`cogs.durak_commands.DurakCog.tell_privately`).  An interaction token lives 15 minutes:
an older one is dropped, so the map holds only the users seen in the last minutes (and at most
:data:`MAX_KEPT` of them), and a channel's entries are dropped when its lobby or series ends.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import discord

__all__ = ["MAX_KEPT", "TOKEN_LIFETIME", "LatestInteractions"]

#: Interaction tokens live 15 minutes; a followup through an older one would fail.
TOKEN_LIFETIME = 14 * 60.0
#: The most interactions kept, the oldest dropped first (a backstop for a crowd of users).
MAX_KEPT = 10_000


class LatestInteractions:
    """Each user's latest interaction per channel, while it can still be answered."""

    def __init__(
        self,
        *,
        lifetime: float = TOKEN_LIFETIME,
        limit: int = MAX_KEPT,
        now: Callable[[], datetime] = discord.utils.utcnow,
    ) -> None:
        self._lifetime = lifetime
        self._limit = limit
        self._now = now
        # in the order they were remembered: the oldest first
        self._by_key: dict[tuple[int, int], discord.Interaction[Any]] = {}

    def __len__(self) -> int:
        return len(self._by_key)

    def remember(self, interaction: discord.Interaction[Any]) -> None:
        """Keep ``interaction`` as its user's latest in its channel."""
        if interaction.channel_id is None:
            return
        key = (interaction.channel_id, interaction.user.id)
        self._by_key.pop(key, None)
        self._by_key[key] = interaction
        self._prune()

    def get(self, channel_id: int, user_id: int) -> discord.Interaction[Any] | None:
        """The user's latest interaction in the channel, if it can still be answered."""
        self._prune()
        interaction = self._by_key.get((channel_id, user_id))
        if interaction is None or not self._fresh(interaction):
            return None
        return interaction

    def forget_channel(self, channel_id: int) -> None:
        """The channel's lobby or series is over: drop its users' interactions."""
        for key in [k for k in self._by_key if k[0] == channel_id]:
            del self._by_key[key]

    def _fresh(self, interaction: discord.Interaction[Any]) -> bool:
        age = self._now() - interaction.created_at
        return age.total_seconds() < self._lifetime

    def _prune(self) -> None:
        """Drop the oldest entries while they are expired or too many."""
        while self._by_key:
            key, oldest = next(iter(self._by_key.items()))
            if len(self._by_key) <= self._limit and self._fresh(oldest):
                return
            del self._by_key[key]
