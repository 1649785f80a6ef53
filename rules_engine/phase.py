"""The turn phase: which part of a round the game is in (RULES.md §6.2), written once.

:class:`Phase` names who acts and what they may do.  :meth:`Phase.of` is the rule itself, from
what is on the table; :attr:`rules_engine.game.Game.phase` applies it to a game, and the engine,
the hints, the AI and the service read that (or call :meth:`Phase.of` on an observation), so
no one writes the condition again.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Phase"]


class Phase(StrEnum):
    """The phase of the current round, valued as a short name."""

    #: Start of a round: the table is empty and the leader must attack (§6.2 rule 1).
    LEAD = "lead"
    #: An attack is uncovered and no take is declared: the defender beats an attack,
    #: transfers or takes, and keeps the turn until nothing is uncovered (§6.2 rule 2).
    DEFEND = "defend"
    #: Everything on the table is covered: the attackers may add cards or pass (§6.2 rule 3).
    ADD = "add"
    #: The defender has declared a take: the attackers may add cards before the defender picks
    #: up (§6.2 rule 3, §6.3).
    TAKING = "taking"
    #: The game is over: nobody acts.
    OVER = "over"

    @staticmethod
    def of(*, finished: bool, attacks: int, uncovered: int, taking: bool) -> Phase:
        """The phase of a position: ``attacks`` is the number of attack cards on the table,
        ``uncovered`` how many (or which, as a bitmask: only zero matters) are uncovered."""
        if finished:
            return Phase.OVER
        if not attacks:
            return Phase.LEAD
        if taking:
            return Phase.TAKING
        return Phase.DEFEND if uncovered else Phase.ADD

    @property
    def attackers_add(self) -> bool:
        """Whether attackers may add cards (or pass) in this phase."""
        return self is Phase.ADD or self is Phase.TAKING
