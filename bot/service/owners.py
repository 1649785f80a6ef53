"""Which channels' turn timers and AI turns this process runs.

On a database one process has to itself (SQLite) it runs every channel's.  On a shared one
(PostgreSQL) every process may hold a copy of any channel, to serve its pages, and may write
it (each write fenced), but only the channel's **owner** arms its timers and plays its AI
seats, so that no two processes both think for one AI turn.  The owner is stored with the
channel's fence (``channel_fences.owner``, a process number): a process claims a channel whose
owner is none, itself or a process that is gone (:meth:`bot.storage.Storage.claim_channel`:
one statement that two processes cannot both win), when it starts the channel's game, reads
its live game, restores it at startup, or finds it orphaned (:class:`~bot.service.sync.Sync`'s
takeover, every few seconds).  A process claims only channels of the servers it serves (its
gateway shards, the rooms).  A process that believes it owns a channel it lost (its connection
to the database was away long enough for another to take over) is fenced out at its next
write, like any stale copy, and stands down: it drops the copy and reads the owner again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.storage import Storage

__all__ = ["Owners"]

log = logging.getLogger(__name__)


class Owners:
    """The channels this process owns (see the module docstring).  ``serves(guild)``: whether
    this process serves that server (``None``: every server)."""

    def __init__(self, storage: Storage, serves: Callable[[int], bool] | None) -> None:
        self.storage = storage
        self.serves = serves
        #: One process on its database: it owns every channel.
        self.every = not storage.shared
        self._owned: set[int] = set()

    def runs(self, channel_id: int) -> bool:
        """Whether this process arms the channel's timers and plays its AI turns."""
        return self.every or channel_id in self._owned

    def may_own(self, guild_id: int) -> bool:
        """Whether this process may own a channel of ``guild_id`` (a server it serves)."""
        return self.serves is None or self.serves(guild_id)

    def owned(self) -> set[int]:
        """The channels this process owns (a copy)."""
        return set(self._owned)

    async def claim(self, channel_id: int, guild_id: int) -> bool:
        """Claim the channel (see the module docstring); whether this process owns it now.
        A claim the database could not answer is not made (the takeover tries again)."""
        if self.every:
            return True
        if not self.may_own(guild_id):
            self._owned.discard(channel_id)
            return False
        try:
            won = await self.storage.claim_channel(channel_id)
        except Exception as exc:
            log.warning("channel %d could not be claimed: %s", channel_id, exc)
            won = False
        self.note(channel_id, won)
        return won

    async def settle(self, channel_id: int, guild_id: int, stored: int | None) -> bool:
        """After reading a channel whose stored owner is ``stored``: this process owns it if
        it is the owner, or claims it if it has none; a channel owned by another process is
        left to it (or to the takeover, if that process is gone)."""
        if self.every:
            return True
        if stored == self.storage.process:
            self.note(channel_id, True)
            return True
        if stored is None:
            return await self.claim(channel_id, guild_id)
        self.note(channel_id, False)
        return False

    def note(self, channel_id: int, owned: bool) -> None:
        """Remember whether this process owns the channel."""
        if owned:
            self._owned.add(channel_id)
        else:
            self._owned.discard(channel_id)

    def forget(self) -> set[int]:
        """Own nothing any more (a graceful stop); returns what was owned."""
        owned, self._owned = self._owned, set()
        return owned
