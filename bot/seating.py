"""Who sits where: a lobby's (and a series') seats, the options a lobby is opened with, and the
id of a player who asked to be forgotten.

Plain frozen values that the storage reads and writes and the service and its views carry
(below both: :mod:`bot.storage` and :mod:`bot.views` import them from here).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FORMER_PLAYER_ID", "LobbyOptions", "LobbySeat"]

#: The user id stored in place of a player's who asked to be forgotten (``/durak forget-me``):
#: their past seats keep their place at the table but name nobody.  No Discord id is 0, and
#: no command accepts it (ids are checked to be from 1).
FORMER_PLAYER_ID = 0


@dataclass(frozen=True, slots=True)
class LobbyOptions:
    """Options of ``/durak new``.  ``None`` rule options keep the profile's value.

    ``seats`` is the table size (2–6): the lobby is full at that many seats.
    ``turn_timeout`` (15–600 s) ``None`` means the service default (``TURN_TIMEOUT``).
    The table options (RULES.md §10): ``deck`` (24, 36 or 52), ``show_trump`` (transfer by
    showing a trump) and ``teams`` (``none``, ``2x2`` or ``3x3``); ``None`` keeps the default.
    """

    rules: str = "podkidnoy"
    transfer: bool | None = None
    throw_in: str | None = None
    first_round_limit: int | None = None
    turn_timeout: int | None = None
    seats: int = 6
    deck: int | None = None
    show_trump: bool | None = None
    teams: str | None = None

    @property
    def team_game(self) -> bool:
        """Whether the lobby is played in two teams."""
        return self.teams not in (None, "none")


@dataclass(frozen=True, slots=True)
class LobbySeat:
    """A seat in a lobby: a human (``user_id``) or an AI (``ai_level``, ``user_id`` None).
    ``team`` is 0 or 1 in a lobby played in teams (``None`` otherwise, and in a series, where
    a seat's team is its parity)."""

    user_id: int | None
    name: str
    ai_level: str | None = None
    team: int | None = None

    @property
    def is_ai(self) -> bool:
        return self.ai_level is not None

    @property
    def former(self) -> bool:
        """The seat of a player who asked to be forgotten (see :data:`FORMER_PLAYER_ID`)."""
        return self.user_id == FORMER_PLAYER_ID
