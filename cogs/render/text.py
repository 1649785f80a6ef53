"""Discord's formatting of the presentation layer's phrases: cards and suits in embed text,
names safe in markdown and bold in sentences (:data:`MARKDOWN`, the
:class:`~present.style.Style` the renderers give :mod:`present`), the mark of each ending,
relative times."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.outcome import Ending
from present.catalog import Catalog
from present.names import NAME_MAX, Seated, clip_name
from present.names import ai_label as level_name
from present.names import seat_names as present_seat_names
from present.style import Style
from rules_engine.cards import Card

__all__ = [
    "ENDING_EMOJI",
    "MARKDOWN",
    "RED_SUITS",
    "TEAM_MARKS",
    "ai_label",
    "bold",
    "card_md",
    "cards_md",
    "esc",
    "escape_md",
    "is_red",
    "seat_names",
    "suit_md",
    "when",
]


RED_SUITS = frozenset("♥♦")

#: The mark of each team (0, 1) beside its players' names: a team seen at a glance.
TEAM_MARKS = ("🟦", "🟧")


_MD_SPECIAL = "\\*_`~|>[]<@"


def escape_md(text: str) -> str:
    """``text`` with every markdown, link, mention and emoji-code character escaped."""
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in text)


def esc(name: str, limit: int = NAME_MAX) -> str:
    """A display name safe inside markdown (no formatting, links, mentions or emoji codes),
    on one line and cut to ``limit`` characters."""
    return escape_md(clip_name(name, limit))


def bold(text: str) -> str:
    """``text`` in bold (a seat's name in a sentence)."""
    return f"**{text}**"


def suit_md(symbol: str) -> str:
    """A suit symbol for embed text: red suits as (red) emoji, black suits as text."""
    return symbol + "\ufe0f" if symbol in RED_SUITS else symbol


def card_md(card: Card) -> str:
    """A card for embed text: red suits as (red) emoji, black suits as text: ``10♦️``, ``J♠``."""
    text = str(card)
    return text[:-1] + suit_md(text[-1])


def cards_md(cards: Iterable[Card]) -> str:
    """Cards for embed text, separated by spaces (see :func:`card_md`)."""
    return " ".join(card_md(c) for c in cards)


def is_red(card: Card) -> bool:
    """Whether ``card`` is a heart or a diamond."""
    return str(card)[-1:] in RED_SUITS


#: Discord's style of a phrase's parameters: names escaped for markdown and bold in a
#: sentence, red suits as emoji.
MARKDOWN = Style(escape=escape_md, name=bold, card=card_md)


#: The mark of each way a game ends, before its sentence (:mod:`present.outcome`).
ENDING_EMOJI = {Ending.DURAK: "🃏", Ending.DRAW: "🤝", Ending.STOPPED: "🛑"}


def seat_names(seats: Sequence[Seated], t: Catalog) -> list[str]:
    """The seats' names as the reader sees them, safe in markdown (also the names of ``Seat``
    parameters of messages): see :func:`present.names.seat_names`."""
    return present_seat_names(seats, t, MARKDOWN)


def ai_label(level: str, t: Catalog) -> str:
    """An AI level's name in the reader's language, safe in markdown."""
    return escape_md(level_name(level, t))


def when(deadline: float) -> str:
    """A Unix time as a Discord relative timestamp ("in 30 seconds")."""
    return f"<t:{int(deadline)}:R>"
