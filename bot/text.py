"""Plain-text rendering of messages and views (terminal mode, logs, debugging).

:func:`render_message` is the one function that turns a
:class:`~rules_engine.messages.Message` into text: the terminal calls it with the English
identity catalogue, the Discord adapter (``cogs.i18n``) with the reader's catalogue.
"""

from __future__ import annotations

import gettext
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from bot.views import HandView, LobbyView, Role, SeriesView, TableView
from rules_engine.actions import ActionKind
from rules_engine.cards import Card
from rules_engine.messages import N_, Message, Param, Seat

__all__ = [
    "ENGLISH",
    "CardText",
    "Translations",
    "fill",
    "render_hand",
    "render_lobby",
    "render_message",
    "render_opening",
    "render_round_end",
    "render_series",
    "render_table",
    "render_throw_in",
]

#: How a card is written in a rendered message (Discord embeds add an emoji selector).
CardText = Callable[[Card], str]


class Translations(Protocol):
    """The part of a gettext catalogue that rendering needs."""

    def gettext(self, message: str, /) -> str:
        """The translation of ``message``."""
        ...

    def ngettext(self, msgid1: str, msgid2: str, n: int, /) -> str:
        """The translation of ``msgid1``/``msgid2`` for the number ``n``."""
        ...


#: The source language: every key is its own translation.
ENGLISH: Translations = gettext.NullTranslations()

#: The name of each action kind, for an ``ActionKind`` parameter.
_VERBS: dict[ActionKind, str] = {
    ActionKind.ATTACK: N_("attack"),
    ActionKind.DEFEND: N_("defend"),
    ActionKind.TRANSFER: N_("transfer"),
    ActionKind.TAKE: N_("take"),
    ActionKind.PASS: N_("pass"),
}


class _KeepUnknown(dict[str, str]):
    """Format parameters where an unknown ``{placeholder}`` stays as it is."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fill(template: str, params: dict[str, str]) -> str:
    """``template`` with its ``{placeholders}`` replaced by ``params``; an unknown placeholder
    stays as it is and a malformed translation never raises."""
    if "{" not in template:
        return template
    try:
        return template.format_map(_KeepUnknown(params))
    except (ValueError, IndexError, AttributeError):
        out = template
        for key, value in params.items():
            out = out.replace("{" + key + "}", value)
        return out


def render_message(
    message: Message,
    names: Sequence[str] = (),
    *,
    translations: Translations = ENGLISH,
    card_text: CardText = str,
) -> str:
    """``message`` as text: its key translated by ``translations``, each parameter rendered by
    its type: a ``Seat`` as ``names[seat]`` (the caller's display name for that seat), a card
    or cards with ``card_text``, an ``ActionKind`` as its translated name, a nested ``Message``
    recursively, numbers and literal strings as they are.  A message with a parameter ``n``
    is looked up as a plural entry first."""

    def param(value: Param) -> str:
        if isinstance(value, Message):
            return render_message(value, names, translations=translations, card_text=card_text)
        if isinstance(value, Seat):
            if 0 <= value.index < len(names):
                return names[value.index]
            return render_message(
                Message("player {number}", number=value.index + 1), translations=translations
            )
        if isinstance(value, ActionKind):
            return translations.gettext(_VERBS[value])
        if isinstance(value, Card):
            return card_text(value)
        if isinstance(value, tuple):
            return " ".join(card_text(card) for card in value)
        return str(value)

    params = {key: param(value) for key, value in message.items()}
    template = translations.gettext(message.key)
    count = message.get("n")
    if isinstance(count, int) and not isinstance(count, bool):
        plural = translations.ngettext(message.key, message.key, count)
        if plural != message.key:
            template = plural
    return fill(template, params)


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
