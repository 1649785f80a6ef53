"""Plain-text rendering of the views (terminal mode, logs, debugging)."""

from __future__ import annotations

import time

from bot.views import HandView, LobbyView, SeriesView, TableView

__all__ = ["render_hand", "render_lobby", "render_series", "render_table"]


def render_lobby(view: LobbyView) -> str:
    seats = ", ".join(
        f"{s.name}" + (f" [{s.ai_level}]" if s.ai_level else "") for s in view.seats
    )
    return (
        f"Lobby ({view.status}) — {view.rules_name}, {view.turn_timeout}s per turn, "
        f"host {view.host_name}\n  seats {len(view.seats)}/{view.max_seats}: {seats}"
    )


def render_series(view: SeriesView) -> str:
    rows = ", ".join(f"{e.name} {e.losses}" for e in view.standings)
    draws = f", {view.draws} draw(s)" if view.draws else ""
    return f"Series after {view.games} game(s){draws} — losses: {rows}"


def render_table(view: TableView, *, now: float | None = None) -> str:
    lines = []
    trump = f"trump {view.trump}" + (f" ({view.trump_card} under the stock)"
                                     if view.trump_card else "")
    lines.append(f"— {view.rules_name}, round {view.round}: {trump}, stock {view.stock}, "
                 f"discard {view.discard} —")
    for s in view.seats:
        marks: list[str] = []
        if s.role:
            marks.append(s.role)
        if s.autopilot:
            marks.append("autopilot")
        if s.to_act:
            marks.append("to act")
        mark = f" ({', '.join(marks)})" if marks else ""
        lines.append(f"  {s.seat}: {s.name}: {s.cards} card(s){mark}")
    if view.pairs:
        pairs = "  ".join(f"{p.attack}/{p.defence}" if p.defence else f"{p.attack}/—"
                          for p in view.pairs)
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
