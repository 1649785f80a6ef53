"""What the bot stores about a player, and forgetting them: ``/durak privacy`` and
``/durak forget-me``.

A Discord user id is the same in every server, so both cover every server the database holds.
Forgetting is asked for, then confirmed by the same user within
:data:`FORGET_CONFIRM_SECONDS` (:meth:`Privacy.ask_forget`, then :meth:`Privacy.forget_me`).

It is refused while the player is in a lobby, or in a series or game that has not ended, in
any channel: their seat there still needs their id (a game counts its result for it, a lobby
starts a game with it).  The player leaves the lobby themselves (``/durak leave``) rather than
being taken out of it by the erasure, so that nothing changes at a table without a press
there; a game and its series end as they always do.  This process's channels are checked
first; the storage checks again in the erasure's own transaction, which also sees the lobbies
and games other bot processes serve (on PostgreSQL).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bot.clock import Clock
from bot.errors import ConfirmationExpired, NotYours, PlayerInPlay
from bot.player_records import PrivacyView
from bot.service.channels import Channels
from bot.service.commit import storage_errors
from bot.service.options import checked_ids
from bot.state import ChannelState
from bot.storage import Storage
from bot.views import ForgetRequest

__all__ = ["FORGET_CONFIRM_SECONDS", "Privacy", "holds"]

#: Seconds a ``/durak forget-me`` confirmation may be pressed after it was asked for.
FORGET_CONFIRM_SECONDS = 300


def holds(ch: ChannelState, user_id: int) -> bool:
    """Whether the channel's lobby, series or game has ``user_id`` as host or in a seat."""
    lobby, series = ch.lobby, ch.series
    if lobby is not None and (
        lobby.host_id == user_id or any(s.user_id == user_id for s in lobby.seats)
    ):
        return True
    return series is not None and (
        series.host_id == user_id or any(s.user_id == user_id for s in series.seats)
    )


@dataclass(eq=False)
class Privacy:
    """The privacy commands (see the module docstring)."""

    storage: Storage
    channels: Channels
    clock: Clock

    @checked_ids
    async def privacy(self, user_id: int) -> PrivacyView:
        """Everything stored about ``user_id``, in every server (show it to them only)."""
        with storage_errors():
            return await self.storage.player_data(user_id)

    @checked_ids
    async def ask_forget(self, user_id: int) -> ForgetRequest:
        """``/durak forget-me``: what would be erased, and until when the user may confirm
        it (:meth:`forget_me`).  Refused (:class:`PlayerInPlay`) while they are in a lobby,
        series or game that has not ended."""
        self._need_out_of_play(user_id)
        with storage_errors():
            stored = await self.storage.player_data(user_id)
        if stored.open_channels:
            raise PlayerInPlay.of(stored.open_channels)
        expires = math.floor(self.clock.now()) + FORGET_CONFIRM_SECONDS
        return ForgetRequest(user_id, expires, stored)

    @checked_ids
    async def forget_me(self, user_id: int, requester_id: int, *, expires_at: int) -> PrivacyView:
        """The confirmation of :meth:`ask_forget` (asked by ``user_id``, valid until
        ``expires_at``), pressed by ``requester_id``: erase ``user_id``'s name and id from
        every record of every server (:meth:`bot.storage.Storage.forget_player`).  Returns
        what was stored before.

        Refusals, each changing nothing: :class:`NotYours` (someone else's confirmation),
        :class:`ConfirmationExpired` (too late, or an expiry no confirmation was given),
        :class:`PlayerInPlay` (in a lobby, series or game that has not ended, here or in
        another process)."""
        self._need_asker(user_id, requester_id)
        now = self.clock.now()
        if not isinstance(expires_at, int) or not now <= expires_at <= now + FORGET_CONFIRM_SECONDS:
            raise ConfirmationExpired()
        self._need_out_of_play(user_id)
        with storage_errors():
            return await self.storage.forget_player(user_id)

    @checked_ids
    async def cancel_forget(self, user_id: int, requester_id: int) -> None:
        """The Cancel of :meth:`ask_forget`'s confirmation (asked by ``user_id``), pressed by
        ``requester_id``: nothing is erased.  :class:`NotYours` for someone else's."""
        self._need_asker(user_id, requester_id)

    @staticmethod
    def _need_asker(user_id: int, requester_id: int) -> None:
        if requester_id != user_id:
            raise NotYours()

    def _need_out_of_play(self, user_id: int) -> None:
        """:class:`PlayerInPlay` if a channel of this process holds the user."""
        channels = tuple(ch.channel_id for ch in self.channels if holds(ch, user_id))
        if channels:
            raise PlayerInPlay.of(channels)
