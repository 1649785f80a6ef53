"""The last moves, in words: each recorded action with its player, and why the service played
it when it did ("(time ran out)", "(autopilot)"); the terminal's log adds cards thrown in to a
take and the end of each round."""

from __future__ import annotations

from collections.abc import Sequence

from bot.views import ActionRecord, AutoKind
from present.catalog import Catalog
from present.style import PLAIN, Style
from rules_engine.cards import Card
from rules_engine.messages import N_

__all__ = ["AUTO_NOTES", "move_text", "round_end_text", "throw_in_text"]

#: Why an action was played by the service rather than pressed by its player.
AUTO_NOTES: dict[AutoKind, str] = {
    "timeout": N_("(time ran out)"),
    "autopilot": N_("(autopilot)"),
}


def move_text(record: ActionRecord, names: Sequence[str], t: Catalog, style: Style = PLAIN) -> str:
    """``record`` as a line of the last moves: "Alice covers 8♥ with 9♥" ("Carol for Alice
    covers …" when a partner played the seat), followed by why the service played it, if it
    did; ``names`` name the seats, each written by ``style.name``,
    cards by ``style.card``."""
    named = [style.name(name) for name in names]
    if record.by is not None and 0 <= record.by < len(names) and 0 <= record.seat < len(names):
        # a partner made the move for a seat they took over (teams): "Carol for Ann"
        named[record.seat] = t.fill(
            "{player} for {seat}", player=named[record.by], seat=named[record.seat]
        )
    text = t.render(record.message, named, card_text=style.card)
    note = AUTO_NOTES.get(record.auto)
    return text if note is None else f"{text} {t.gettext(note)}"


def throw_in_text(
    thrower: str, cards: Sequence[Card], taker: str, t: Catalog, style: Style = PLAIN
) -> str:
    """Cards added to a take: they go to the taker with the others, they attack no one."""
    return t.fill(
        "{name} throws in {cards} for {taker} to take",
        name=style.name(thrower),
        cards=style.cards(tuple(cards)),
        taker=style.name(taker),
    )


def round_end_text(round_number: int, taker: str | None, t: Catalog, style: Style = PLAIN) -> str:
    """The end of round ``round_number``: beaten off (to the discard) or taken by ``taker``."""
    if taker is None:
        return t.fill("Round {round} over: beaten off.", round=round_number)
    return t.fill(
        "Round {round} over: {name} took the cards.", round=round_number, name=style.name(taker)
    )
