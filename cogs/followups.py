"""Public messages written through an interaction's token (its webhook) instead of the bot token.

An interaction's token can post followup messages (public unless flagged ephemeral) and edit or
delete the messages it posted, for 15 minutes; Discord does not count these requests against the
bot token's 50 a second.  :class:`Lender` is an acknowledged press whose token the presenter
borrows for the channel's table.  Posts and edits take a :class:`cogs.latest.LatestBody` as
their only form part: discord.py's webhook client waits out a 429 and tries again, reading the
body afresh, so a retry sends the newest state.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, cast

import discord
from discord.webhook.async_ import async_context

from cogs.latest import LatestBody

__all__ = ["TOKEN_LIFE", "Lender", "is_update_ack"]

#: How long a press's token is used (Discord keeps an interaction's token 15 minutes).
TOKEN_LIFE = 14 * 60.0


def is_update_ack(interaction: discord.Interaction[Any]) -> bool:
    """Whether ``interaction`` was acknowledged as an update of the pressed message (so a
    followup of it is a new public message, not the answer to a "thinking…")."""
    return interaction.response.type in (
        discord.InteractionResponseType.deferred_message_update,
        discord.InteractionResponseType.message_update,
    )


@dataclass(eq=False)
class Lender:
    """An acknowledged press whose token writes public messages until :attr:`until` (event
    loop time)."""

    interaction: discord.Interaction[Any]
    until: float

    @classmethod
    def of(cls, interaction: discord.Interaction[Any]) -> Lender:
        return cls(interaction, asyncio.get_running_loop().time() + TOKEN_LIFE)

    @property
    def valid(self) -> bool:
        """The token is young enough to use."""
        return self.until > asyncio.get_running_loop().time()

    def _common(self) -> dict[str, Any]:
        i = self.interaction
        http = i._state.http
        return {"session": i._session, "proxy": http.proxy, "proxy_auth": http.proxy_auth}

    async def post(self, body: LatestBody[Any]) -> Any:
        """Post a followup message; returns it (JSON)."""
        i = self.interaction
        return await async_context.get().execute_webhook(
            i.application_id,
            i.token,
            multipart=cast(Any, [body]),
            wait=True,
            **self._common(),
        )

    async def edit(self, message_id: int, body: LatestBody[Any]) -> Any:
        """Edit a message this token posted; returns it (JSON)."""
        i = self.interaction
        return await async_context.get().edit_webhook_message(
            i.application_id, i.token, message_id, multipart=cast(Any, [body]), **self._common()
        )

    async def strip(self, message_id: int) -> None:
        """Remove the buttons of a message this token posted."""
        i = self.interaction
        await async_context.get().edit_webhook_message(
            i.application_id, i.token, message_id, payload={"components": []}, **self._common()
        )

    async def delete(self, message_id: int) -> None:
        """Delete a message this token posted."""
        i = self.interaction
        await async_context.get().delete_webhook_message(
            i.application_id, i.token, message_id, **self._common()
        )
