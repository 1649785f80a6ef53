"""The terminal's plain English lines for the service's views (``durak-bot play``)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from bot.views import HandView, LobbyView, Role, SeriesView, TableView
from rules_engine.cards import Card

__all__ = [
    "render_hand",
    "render_lobby",
    "render_opening",
    "render_round_end",
    "render_series",
    "render_table",
    "render_throw_in",
]


def render_lobby(view: LobbyView) -> str:
    seats = ", ".join(f"{s.name}" + (f" [{s.ai_level}]" if s.ai_level else "") for s in view.seats)
    return (
        f"Lobby ({view.status}) — {view.rules.name}, {view.turn_timeout}s per turn, "
        f"host {view.host_name}\n  seats {len(view.seats)}/{view.max_seats}: {seats}"
    )


def render_series(view: SeriesView) -> str:
    rows = ", ".join(f"{e.name} {e.losses}" for e in view.standings)
    draws = f", {view.draws} draw(s)" if view.draws else ""
    return f"Series after {view.games} game(s){draws} — losses: {rows}"


def render_table(view: TableView, *, now: float | None = None) -> str:
    lines = []
    trump = f"trump {view.trump}" + (
        f" ({view.trump_card} under the stock)" if view.trump_card else ""
    )
    lines.append(
        f"— {view.rules.name}, round {view.round}: {trump}, stock {view.stock}, "
        f"discard {view.discard} —"
    )
    for s in view.seats:
        marks: list[str] = []
        if s.role is not None:
            marks.append(s.role.value)
        if s.autopilot:
            marks.append("autopilot")
        if s.to_act:
            marks.append("to act")
        mark = f" ({', '.join(marks)})" if marks else ""
        lines.append(f"  {s.seat}: {s.name}: {s.cards} card(s){mark}")
    if view.pairs:
        pairs = "  ".join(
            f"{p.attack}/{p.defence}" if p.defence else f"{p.attack}/—" for p in view.pairs
        )
        lines.append(f"  table: {pairs}" + ("  [take declared]" if view.taking else ""))
    if view.deadline is not None:
        left = view.deadline - (time.time() if now is None else now)
        lines.append(f"  to act: {view.seats[view.to_act or 0].name}, {max(0, int(left))} s left")
    if view.finished:
        if view.draw:
            lines.append("  Game over: a draw.")
        elif view.loser is not None:
            lines.append(f"  Game over: {view.seats[view.loser].name} is the durak.")
    elif view.aborted:
        lines.append("  The game was stopped.")
    return "\n".join(lines)


def render_hand(view: HandView) -> str:
    cards = " ".join(c.text if c.playable else f"({c.text})" for c in view.cards)
    lines = [f"Your hand (trump {view.trump}): {cards or '—'}"]
    for i, a in enumerate(view.legal, 1):
        lines.append(f"  {i:2}. {a.text}")
    return "\n".join(lines)


def render_opening(view: TableView) -> str | None:
    """Who leads the game's first round and why, with the cards shown at the deal; ``None``
    once the first round is over (the leader is no longer on the table).

    The deal records the cards it showed (``view.shown``): the lowest trump, whose holder
    leads in the first game of a series, and, with six players, the dealer's last card,
    which names the trump.  No lowest trump shown means the dealer's rule: the dealer's left
    neighbour leads (later games of a series, or no hand holds a trump; RULES.md §4)."""
    if view.round != 1:
        return None
    leader = next((s.seat for s in view.seats if s.role is Role.LEADER), None)
    if leader is None:
        return None
    names = [s.name for s in view.seats]
    lowest = view.shown[0] if view.shown else None
    lines = []
    if len(view.seats) == 6 and view.shown and view.dealer is not None:
        # six players: the dealer's last card is shown and names the trump; it is also the
        # lowest trump when the dealer leads (alone on the list, since it is shown once)
        dealer_card = view.shown[-1]
        lines.append(
            f"Shown at the deal: {dealer_card}, the last card dealt to {names[view.dealer]} "
            "(the dealer), names the trump."
        )
        if len(view.shown) == 1 and leader != view.dealer:
            lowest = None
    if lowest is not None:
        lines.append(f"The lowest trump, {lowest}, is {names[leader]}'s: {names[leader]} leads.")
    elif view.dealer is not None:
        lines.append(f"{names[view.dealer]} deals; {names[leader]}, on the dealer's left, leads.")
    else:
        lines.append(f"{names[leader]} leads.")
    return "\n".join(lines)


def render_throw_in(thrower: str, cards: Sequence[Card], taker: str) -> str:
    """Cards added to a take: they go to the taker with the others, they attack no one."""
    return f"{thrower} throws in {' '.join(map(str, cards))} for {taker} to take"


def render_round_end(round_number: int, taker: str | None) -> str:
    """The end of a round: beaten off (to the discard) or taken by ``taker``."""
    if taker is None:
        return f"Round {round_number} over: beaten off."
    return f"Round {round_number} over: {taker} took the cards."
