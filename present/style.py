"""How an adapter writes what goes into a phrase: the seam between this layer and the adapters.

A phrase (a status line, an outcome, a move…) is made once, in the reader's language, by the
modules of :mod:`present`.  An adapter does not keep a second copy of it with its own markup:
it gives a :class:`Style` saying how to write the phrase's *parameters* (a display name made
safe for its markup, a seat's name inside a sentence, a card) and adds its own decoration
*around* the phrase (an emoji, bold, a prefix).  The default, :data:`PLAIN`, writes plain text:
the web table and the terminal use it; Discord gives markdown (``cogs.render.text``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rules_engine.cards import Card

__all__ = ["PLAIN", "Style", "same"]


def same(text: str) -> str:
    """``text`` as it is (the plain style of a name)."""
    return text


@dataclass(frozen=True, slots=True)
class Style:
    """How an adapter writes a phrase's parameters (plain text unless told otherwise).

    - ``escape``: a display name made safe for the adapter's markup, applied once when the
      seats' names are made (:func:`present.names.seat_names`);
    - ``name``: a seat's (already escaped) name where a phrase shows it (Discord: bold);
    - ``card``: a card (Discord: red suits with the emoji selector).
    """

    escape: Callable[[str], str] = same
    name: Callable[[str], str] = same
    card: Callable[[Card], str] = str

    def cards(self, cards: tuple[Card, ...]) -> str:
        """Cards separated by spaces, each written by :attr:`card`."""
        return " ".join(self.card(c) for c in cards)


#: Plain text: names as they are, cards as ``10♦``.
PLAIN = Style()
