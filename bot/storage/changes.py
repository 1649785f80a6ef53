"""What one process hears of another's writes: :class:`ChannelChange`, the payload of the
PostgreSQL notification ``durak_channels`` (migration 10's triggers, sent on commit), and the
callbacks a storage calls while it listens (:meth:`bot.storage.Storage.listen`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

__all__ = ["NOTIFY_CHANNEL", "ChannelChange", "OnChange", "OnReconnect"]

#: The PostgreSQL notification channel of every channel change.
NOTIFY_CHANNEL = "durak_channels"


@dataclass(frozen=True, slots=True)
class ChannelChange:
    """A write of a channel was committed: its fence moved (``kind="fence"``: its lobby,
    series, a game's start or end) or its live game's row did (``kind="game"``: a move, a
    forfeit, a timer's state), to ``revision``.  ``writer``: the process number of the
    writer (:attr:`bot.storage.Storage.process`), ``None`` for a tool; ``game_id``: the live
    game's (0 for a fence)."""

    channel_id: int
    kind: Literal["fence", "game"]
    revision: int
    writer: int | None
    game_id: int = 0

    @classmethod
    def parse(cls, payload: str) -> ChannelChange | None:
        """The change of a notification's payload (``<channel> <f|g> <revision> <writer>
        <game>``); ``None`` if it is not one."""
        parts = payload.split(" ")
        if len(parts) != 5 or parts[1] not in ("f", "g"):
            return None
        channel, kind, revision, writer, game = parts
        try:
            return cls(
                int(channel),
                "fence" if kind == "f" else "game",
                int(revision),
                int(writer) if writer else None,
                int(game),
            )
        except ValueError:
            return None


#: Told of each change another process (or this one) committed.
OnChange = Callable[[ChannelChange], None]
#: Called once listening again after the connection was lost: what changed meanwhile was not
#: heard, and must be read again.
OnReconnect = Callable[[], Awaitable[None]]
