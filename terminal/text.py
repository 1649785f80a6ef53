"""The terminal's plain lines for the service's views (``durak-bot play``).

The words are the presentation layer's (:mod:`present`: seat names, the status line, the
outcome, the last moves, the deal's opening, the series' standings) read through the English
catalogue; this module lays them out as lines."""

from __future__ import annotations

from collections.abc import Sequence

from bot.outcome import Ending
from bot.views import ActionRecord, HandView, SeriesView, TableView
from present.catalog import catalog
from present.moves import AUTO_NOTES, move_text, round_end_text, throw_in_text
from present.names import ROLE_NAMES, Seated, seat_names
from present.opening import opening_lines
from present.outcome import outcome_text
from present.rules import rules_title
from present.standings import standings, standings_title
from present.status import status
from present.teams import pack_text, team_label
from rules_engine.rules import Rules
from terminal.wording import TERMINAL_WORDING

__all__ = [
    "EN",
    "names",
    "render_hand",
    "render_move",
    "render_opening",
    "render_round_end",
    "render_series",
    "render_table",
    "rules_text",
]

#: The terminal's language, in its wording of the service's terms.
EN = catalog("en", TERMINAL_WORDING)


def names(seats: Sequence[Seated]) -> list[str]:
    """The seats' names as the terminal shows them (:func:`present.names.seat_names`)."""
    return seat_names(seats, EN)


def render_series(view: SeriesView) -> str:
    """The series' standings on one line: its games and draws, then each seat's losses."""
    rows = ", ".join(f"{s.name}: {s.losses_text}" for s in standings(view, EN))
    return f"{standings_title(view, EN)} — {rows}"


def rules_text(rules: Rules, *, pack: bool = True) -> str:
    """The rules in a few words: the profile, the pack (``pack``: even a 36-card one), and
    the table options when on."""
    words = [rules_title(rules, EN)]
    if pack or rules.deck != 36:
        words.append(pack_text(rules.deck, EN))
    if rules.show_trump:
        words.append("show trump")
    if rules.team_game:
        words.append(f"teams {rules.teams}")
    return ", ".join(words)


def render_table(view: TableView, *, timing: str | None = None) -> str:
    """The table as lines: the deck, each seat, the pairs on the table, the status line (the
    turn followed by ``timing``, the time it has) or how the game ended."""
    seat_name = names(view.seats)
    trump = f"trump {view.trump}" + (
        f" ({view.trump_card} under the stock)" if view.trump_card else ""
    )
    lines = [
        f"— {rules_text(view.rules)}, round {view.round}: {trump}, stock {view.stock}, "
        f"discard {view.discard} —"
    ]
    teams = {s.team for s in view.seats} - {None}
    for team in sorted(t for t in teams if t is not None):
        members = " & ".join(seat_name[s.seat] for s in view.seats if s.team == team)
        lines.append(f"  {team_label(team, EN)}: {members}")
    for s in view.seats:
        marks: list[str] = []
        if s.role is not None:
            marks.append(EN.gettext(ROLE_NAMES[s.role]))
        if s.autopilot:
            marks.append("autopilot")
        if s.to_act:
            marks.append("to act")
        if s.team is not None:
            marks.append(team_label(s.team, EN))
            if s.played_by is not None and s.played_by != s.seat:
                marks.append(f"out, played by {seat_name[s.played_by]}")
        mark = f" ({', '.join(marks)})" if marks else ""
        lines.append(f"  {s.seat}: {seat_name[s.seat]}: {s.cards} card(s){mark}")
    if view.pairs:
        pairs = "  ".join(
            f"{p.attack}/{p.defence}" if p.defence else f"{p.attack}/—" for p in view.pairs
        )
        lines.append(f"  table: {pairs}")
    now = status(view, seat_name, EN)
    if now is not None:
        if now.taking is not None:
            lines.append(f"  {now.taking}")
        if now.shown is not None:
            lines.append(f"  {now.shown}")
        if now.turn is not None:
            lines.append(f"  {now.turn}" + ("" if timing is None else f", {timing}"))
        if now.stop_vote is not None:
            lines.append(f"  {now.stop_vote}")
    if view.outcome is not None:
        text = outcome_text(view.outcome, seat_name, EN)
        over = view.outcome.ending is not Ending.STOPPED
        lines.append(f"  Game over. {text}" if over else f"  {text}")
    return "\n".join(lines)


def render_hand(view: HandView) -> str:
    cards = " ".join(c.text if c.playable else f"({c.text})" for c in view.cards)
    lines = [f"Your hand (trump {view.trump}): {cards or '—'}"]
    if view.acting_seat is not None and view.acting_seat != view.seat:
        lines.append(f"  you play seat {view.acting_seat} for your partner, from your hand")
    for i, a in enumerate(view.legal, 1):
        lines.append(f"  {i:2}. {a.text}")
    return "\n".join(lines)


def render_opening(view: TableView) -> str | None:
    """Who leads the game's first round and why (:func:`present.opening.opening_lines`);
    ``None`` once the first round is over."""
    lines = opening_lines(view, names(view.seats), EN)
    return None if lines is None else "\n".join(lines)


def render_move(record: ActionRecord, seat_name: Sequence[str]) -> str:
    """A move of the log: cards added to a take go to the taker, they attack no one; any other
    move as the table's last moves show it."""
    played = record.played
    if played.throw_in and played.target is not None:
        text = throw_in_text(seat_name[played.seat], played.cards, seat_name[played.target], EN)
        note = AUTO_NOTES.get(record.auto)
        return text if note is None else f"{text} {EN.gettext(note)}"
    return move_text(record, seat_name, EN)


def render_round_end(round_number: int, taker: str | None) -> str:
    """The end of a round: beaten off (to the discard) or taken by ``taker``."""
    return round_end_text(round_number, taker, EN)
