"""Who may open a channel's table through the Discord Activity: the check the sign-in
(:mod:`web.activity`) asks before it hands out a table token.

The web adapter defines the question; the Discord adapter answers it with the bot's token
(``cogs.activity_gate``), and the entry point (``apps.discord_bot``) hands that answer to the
web table.  A user may open the table of ``channel_id`` in ``guild_id`` when Discord says:

- the Activity instance the page runs in (the Embedded App SDK's ``instanceId``) lists the
  user among its users, and runs in that channel of that server;
- the user is a member of that server who can view that channel (their roles and the
  channel's overwrites; the server's owner and administrators can).
"""

from __future__ import annotations

from typing import Literal, Protocol

__all__ = ["REFUSALS", "ActivityGate", "GateAnswer"]

#: The gate's answer.  ``"admitted"``: the user may open the table; ``"not_in_instance"``: the
#: instance is unknown or the user is not among its users; ``"elsewhere"``: it runs in another
#: channel or server than the one asked for; ``"not_member"``: the user is not a member of the
#: server (or the bot is not in it); ``"cannot_view"``: the member cannot view the channel;
#: ``"unavailable"``: Discord could not be asked.  (Words, not a class: the Discord adapter
#: answers with them without importing this one.)
GateAnswer = Literal[
    "admitted", "not_in_instance", "elsewhere", "not_member", "cannot_view", "unavailable"
]
#: The answers that refuse a user (403).
REFUSALS: frozenset[GateAnswer] = frozenset(
    {"not_in_instance", "elsewhere", "not_member", "cannot_view"}
)


class ActivityGate(Protocol):
    """The check of a user's way into a channel's table through the Activity."""

    async def admit(
        self, instance_id: str, user_id: int, channel_id: int, guild_id: int
    ) -> GateAnswer:
        """Whether ``user_id`` may open the table of ``channel_id`` in ``guild_id`` from the
        Activity instance ``instance_id`` (see :data:`GateAnswer`)."""
        ...
