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

    def __post_init__(self) -> None:
        object.__setattr__(self, "ending", Ending(self.ending))
        object.__setattr__(self, "losers", _seats(self.losers))
        object.__setattr__(self, "forfeits", _seats(self.forfeits))
        if (self.ending is Ending.DURAK) != bool(self.losers):
            raise ValueError(f"a {self.ending} ending with losers {self.losers!r}")

    @classmethod
    def durak(cls, *losers: int, forfeits: Iterable[int] = ()) -> Outcome:
        """Played to its end: ``losers`` lost (one seat, or several losing together)."""
        return cls(Ending.DURAK, losers, tuple(forfeits))

    @classmethod
    def draw(cls, forfeits: Iterable[int] = ()) -> Outcome:
        """Played to its end, and nobody lost (the last players went out together)."""
        return cls(Ending.DRAW, (), tuple(forfeits))

    @classmethod
    def stopped(cls, forfeits: Iterable[int] = ()) -> Outcome:
        """Stopped before its end: no loss is recorded, except the ``forfeits``."""
        return cls(Ending.STOPPED, (), tuple(forfeits))

    @classmethod
    def of_result(cls, result: str, loser: int | None, forfeits: Iterable[int] = ()) -> Outcome:
        """The outcome of a stored game: its ``result`` (``loss`` with its ``loser`` seat,
        ``draw``, anything else: stopped) and its forfeits."""
        if result == "loss" and loser is not None:
            return cls.durak(loser, forfeits=forfeits)
        if result == "draw":
            return cls.draw(forfeits)
        return cls.stopped(forfeits)

    @property
    def finished(self) -> bool:
        """Whether the game was played to its end (a durak or a draw, not stopped)."""
        return self.ending is not Ending.STOPPED
