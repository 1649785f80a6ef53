"""The status line of a running table: whose turn it is and what they must do (and who plays
the seat, when a partner took it over), a declared take, the trumps shown this round, and an
open stop vote, in the reader's language.

Each part is a phrase on its own (:class:`Status`): the web joins them on one line, Discord
puts each on a line of its own with its emoji and the turn's countdown, the terminal prints
them with the turn's time left.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.views import Role, TableView, WaitingFor
from present.catalog import Catalog
from present.names import seat_name
from present.style import PLAIN, Style
from present.teams import shown_texts
from rules_engine.messages import N_

__all__ = ["Status", "status"]

#: What the seat to act must do, by what the table waits for (``None``: play).
_TURN: dict[WaitingFor | None, str] = {
    "defend": N_("{name} to defend"),
    "lead": N_("{name} to lead the round"),
    "add": N_("{name} may add cards or pass"),
    None: N_("{name} to play"),
}


@dataclass(frozen=True, slots=True)
class Status:
    """The parts of a running table's status line, each ``None`` when it does not apply."""

    #: The defender declared a take: "{name} takes: the attackers may still add cards".
    taking: str | None = None
    #: Whose turn it is and what they must do: "{name} to defend".
    turn: str | None = None
    #: An open stop vote: "Stop? {yes}/{total}".
    stop_vote: str | None = None
    #: The trumps shown this round (RULES.md §10.2): "Ann showed 9♦, Bob showed 9♠".
    shown: str | None = None

    @property
    def parts(self) -> tuple[str, ...]:
        """The parts that apply, in order (taking, shown trumps, turn, stop vote)."""
        parts = (self.taking, self.shown, self.turn, self.stop_vote)
        return tuple(p for p in parts if p is not None)


def status(
    view: TableView, names: Sequence[str], t: Catalog, style: Style = PLAIN
) -> Status | None:
    """The status of ``view`` (``None`` once the game is over); ``names`` name its seats
    (:func:`present.names.seat_names`), each written by ``style.name`` in a phrase."""
    if view.outcome is not None:
        return None
    defender = next((s.seat for s in view.seats if s.role is Role.DEFENDER), None)
    taking = None
    if view.taking and defender is not None:
        taking = t.fill(
            "{name} takes: the attackers may still add cards",
            name=style.name(seat_name(names, defender, t)),
        )
    turn = None
    if view.to_act is not None:
        name = style.name(seat_name(names, view.to_act, t))
        player = view.seats[view.to_act].played_by
        if player is not None and player != view.to_act:  # a partner plays the seat (teams)
            name = t.fill(
                "{player} for {seat}", player=style.name(seat_name(names, player, t)), seat=name
            )
        turn = t.fill(_TURN.get(view.waiting_for, _TURN[None]), name=name)
    vote = None
    if view.stop_vote is not None:
        yes, total = view.stop_vote
        vote = t.fill("Stop? {yes}/{total}", yes=yes, total=total)
    shown = ", ".join(shown_texts(view, names, t, style)) or None
    return Status(taking, turn, vote, shown)
