"""The head of a table or of a replay frame: the trump, the stock, the discard and the round."""

from __future__ import annotations

from cogs.render.text import card_md, suit_md
from present.catalog import Catalog
from present.teams import pack_text
from rules_engine.cards import Card

__all__ = ["deck_lines"]


def deck_lines(
    trump: str,
    trump_card: Card | None,
    stock: int,
    discard: int,
    round: int,
    t: Catalog,
    deck: int | None = None,
) -> list[str]:
    """The trump (and the card under the stock while it lies there), then the pack's size
    (``deck``, when given), the stock, discard and round: the head of a table or of a replay
    frame."""
    if trump_card is not None:
        head = t.fill(
            "Trump: **{suit}** — {card} lies under the stock",
            suit=suit_md(trump),
            card=card_md(trump_card),
        )
    else:
        head = t.fill("Trump: **{suit}**", suit=suit_md(trump))
    counts = t.fill(
        "Stock: {stock} · Discard: {discard} · Round {round}",
        stock=stock,
        discard=discard,
        round=round,
    )
    if deck is not None:
        counts = pack_text(deck, t) + " · " + counts
    return [head, counts]
