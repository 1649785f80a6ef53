"""How a game ended, as one value: :class:`Outcome`.

A game played to its end has its losers (the durak; a tuple, so that seats losing together,
as a team would, are one outcome) or is a draw; a game stopped before its end records no loss,
except its forfeits.  Every ending carries the seats whose player forfeited the game (left or
was kicked: a loss for that player whatever happened after).

The views that show an ended game carry an ``Outcome`` (the table and the game-over event,
the history, the replay's last frame) and every adapter reads it; the words for it are made
by :mod:`present.outcome`.  Pure data: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Ending", "Outcome"]


class Ending(StrEnum):
    """The kind of an ending: ``durak`` (played to its end, someone lost), ``draw`` (played to
    its end, nobody lost) or ``stopped`` (ended before its end: no loss but the forfeits)."""

    DURAK = "durak"
    DRAW = "draw"
    STOPPED = "stopped"


def _seats(seats: Iterable[int]) -> tuple[int, ...]:
    out = tuple(sorted(set(seats)))
    if any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in out):
        raise ValueError(f"seats are whole numbers from 0: {out!r}")
    return out


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: its :class:`Ending`, the ``losers`` (seats, in order; only a
    ``durak`` ending has any, and it has at least one) and the ``forfeits`` (seats whose player
    forfeited, in order).  Make one with :meth:`durak`, :meth:`draw` or :meth:`stopped`."""

    ending: Ending
    losers: tuple[int, ...] = ()
    forfeits: tuple[int, ...] = ()
    #: The losers are a team that lost together (RULES.md §10.3), not one durak.
    team: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "ending", Ending(self.ending))
        object.__setattr__(self, "losers", _seats(self.losers))
        object.__setattr__(self, "forfeits", _seats(self.forfeits))
        if (self.ending is Ending.DURAK) != bool(self.losers):
            raise ValueError(f"a {self.ending} ending with losers {self.losers!r}")

    @classmethod
    def durak(cls, *losers: int, forfeits: Iterable[int] = (), team: bool = False) -> Outcome:
        """Played to its end: ``losers`` lost (one seat, or several losing together; ``team``:
        the seats of a team game's losing team)."""
        return cls(Ending.DURAK, losers, tuple(forfeits), team)

    @classmethod
    def of_game(cls, losers: Iterable[int], *, team: bool, forfeits: Iterable[int] = ()) -> Outcome:
        """The outcome of a game played to its end: the engine's ``losers`` (``game.losers``:
        the durak, a losing team, or none for a draw); ``team``: a team game."""
        seats = tuple(losers)
        if not seats:
            return cls.draw(forfeits)
        return cls.durak(*seats, forfeits=forfeits, team=team)

    @classmethod
    def draw(cls, forfeits: Iterable[int] = ()) -> Outcome:
        """Played to its end, and nobody lost (the last players went out together)."""
        return cls(Ending.DRAW, (), tuple(forfeits))

    @classmethod
    def stopped(cls, forfeits: Iterable[int] = ()) -> Outcome:
        """Stopped before its end: no loss is recorded, except the ``forfeits``."""
        return cls(Ending.STOPPED, (), tuple(forfeits))

    @classmethod
    def of_result(
        cls,
        result: str,
        loser: int | None,
        forfeits: Iterable[int] = (),
        *,
        teams: int = 0,
    ) -> Outcome:
        """The outcome of a stored game: its ``result`` (``loss`` with its ``loser`` seat,
        ``draw``, anything else: stopped) and its forfeits.  ``teams``: the number of seats of
        a team game (0 otherwise), whose stored ``loser`` is the lowest seat of the losing
        team: every seat of its parity lost."""
        if result == "loss" and loser is not None:
            if teams:
                return cls.durak(*range(loser % 2, teams, 2), forfeits=forfeits, team=True)
            return cls.durak(loser, forfeits=forfeits)
        if result == "draw":
            return cls.draw(forfeits)
        return cls.stopped(forfeits)

    @property
    def finished(self) -> bool:
        """Whether the game was played to its end (a durak or a draw, not stopped)."""
        return self.ending is not Ending.STOPPED
