"""The deal's opening explanation: who leads the game's first round and why, with the cards
shown at the deal (RULES.md §4)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.views import Role, TableView
from present.catalog import Catalog
from present.style import PLAIN, Style

__all__ = ["opening_lines"]


def opening_lines(
    view: TableView, names: Sequence[str], t: Catalog, style: Style = PLAIN
) -> list[str] | None:
    """Who leads ``view``'s first round and why, one sentence a line; ``None`` once the first
    round is over (the leader is no longer on the table).  ``names`` name the seats, each
    written by ``style.name``; cards are written by ``style.card``.

    The deal records the cards it showed (``view.shown``): the lowest trump, whose holder
    leads in the first game of a series, and, with six players, the dealer's last card,
    which names the trump.  No lowest trump shown means the dealer's rule: the dealer's left
    neighbour leads (later games of a series, or no hand holds a trump)."""
    if view.round != 1:
        return None
    leader = next((s.seat for s in view.seats if s.role is Role.LEADER), None)
    if leader is None or leader >= len(names):
        return None
    lead = style.name(names[leader])
    dealer = None
    if view.dealer is not None and view.dealer < len(names):
        dealer = style.name(names[view.dealer])
    lowest = view.shown[0] if view.shown else None
    lines = []
    if len(view.seats) == 6 and view.shown and dealer is not None:
        # six players: the dealer's last card is shown and names the trump; it is also the
        # lowest trump when the dealer leads (alone on the list, since it is shown once)
        lines.append(
            t.fill(
                "Shown at the deal: {card}, the last card dealt to {name} (the dealer), "
                "names the trump.",
                card=style.card(view.shown[-1]),
                name=dealer,
            )
        )
        if len(view.shown) == 1 and leader != view.dealer:
            lowest = None
    if lowest is not None:
        lines.append(
            t.fill(
                "The lowest trump, {card}, is {name}'s: {name} leads.",
                card=style.card(lowest),
                name=lead,
            )
        )
    elif dealer is not None:
        lines.append(
            t.fill("{dealer} deals; {name}, on the dealer's left, leads.", dealer=dealer, name=lead)
        )
    else:
        lines.append(t.fill("{name} leads.", name=lead))
    return lines
