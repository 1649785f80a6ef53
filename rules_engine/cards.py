"""Cards of the 36-card Durak deck (RULES.md §1): frozen values, parsing, canonical text.

Internally every card is an index 0..35 (``rank_index * 4 + suit``, rank-major so that the four
cards of a rank are four adjacent bits) and a set of cards is an ``int`` bitmask with bit
``index`` set.  The public :class:`Card` value wraps such an index.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import IntEnum

from rules_engine.errors import InvalidNotationError

__all__ = [
    "ALL_CARDS",
    "CARD_TEXT",
    "FULL_DECK_MASK",
    "RANK_MASK",
    "RANK_OF",
    "RANK_SETS",
    "SUIT_MASK",
    "SUIT_OF",
    "Card",
    "Rank",
    "Suit",
    "beaters_table",
    "card_index",
    "cards_from_mask",
    "mask_text",
    "parse_card",
    "parse_suit",
    "submasks",
]


class Suit(IntEnum):
    """The four suits in the project's canonical order."""

    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3

    @property
    def symbol(self) -> str:
        return SUIT_SYMBOLS[self]

    def __str__(self) -> str:
        return self.symbol


class Rank(IntEnum):
    """Ranks 6..A, valued so that comparison is the game's order."""

    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def symbol(self) -> str:
        return RANK_SYMBOLS[self - 6]

    def __str__(self) -> str:
        return self.symbol


SUIT_SYMBOLS = ("♠", "♥", "♦", "♣")
RANK_SYMBOLS = ("6", "7", "8", "9", "10", "J", "Q", "K", "A")
_SUIT_BY_TEXT = {
    "♠": 0,
    "♥": 1,
    "♦": 2,
    "♣": 3,
    "S": 0,
    "H": 1,
    "D": 2,
    "C": 3,
    "♤": 0,
    "♡": 1,
    "♢": 2,
    "♧": 3,
}
_RANK_BY_TEXT = {sym: i for i, sym in enumerate(RANK_SYMBOLS)} | {"T": 4}

FULL_DECK_MASK = (1 << 36) - 1
#: Rank index (0..8) and suit (0..3) of each card index.
RANK_OF: tuple[int, ...] = tuple(i >> 2 for i in range(36))
SUIT_OF: tuple[int, ...] = tuple(i & 3 for i in range(36))
#: Bitmask of the four cards of each rank index, and of the nine cards of each suit.
RANK_MASK: tuple[int, ...] = tuple(0xF << (4 * r) for r in range(9))
SUIT_MASK: tuple[int, ...] = tuple(sum(1 << (4 * r + s) for r in range(9)) for s in range(4))
#: Every non-empty set of cards of one rank as a bitmask: 15 per rank, rank by rank.
RANK_SETS: tuple[int, ...] = tuple(p << (4 * r) for r in range(9) for p in range(1, 16))
CARD_TEXT: tuple[str, ...] = tuple(RANK_SYMBOLS[i >> 2] + SUIT_SYMBOLS[i & 3] for i in range(36))


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card, ordered by rank then suit (the canonical order, not the game's beating order)."""

    index: int

    def __post_init__(self) -> None:
        if not 0 <= self.index < 36:
            raise InvalidNotationError(f"card index {self.index!r} is not in 0..35")

    @property
    def rank(self) -> Rank:
        return Rank((self.index >> 2) + 6)

    @property
    def suit(self) -> Suit:
        return Suit(self.index & 3)

    @property
    def mask(self) -> int:
        return 1 << self.index

    @classmethod
    def of(cls, rank: int, suit: int) -> Card:
        """The card of ``rank`` (6..14) and ``suit`` (0..3)."""
        return ALL_CARDS[(int(rank) - 6) * 4 + int(suit)]

    @classmethod
    def parse(cls, text: str) -> Card:
        return ALL_CARDS[card_index(text)]

    def beats(self, other: Card, trump: int) -> bool:
        """Whether this card beats ``other`` with ``trump`` as the trump suit (RULES.md §1)."""
        return bool(beaters_table(trump)[other.index] >> self.index & 1)

    def __str__(self) -> str:
        return CARD_TEXT[self.index]

    def __repr__(self) -> str:
        return f"Card({CARD_TEXT[self.index]!r})"


ALL_CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(36))


def require_text(value: object, what: str, example: str) -> str:
    """``value`` itself when it is a string; otherwise :class:`InvalidNotationError` saying
    that ``what`` must be text like ``example`` (parsers also meet JSON numbers and None)."""
    if not isinstance(value, str):
        raise InvalidNotationError(f"{what} must be text like {example!r}, not {value!r}")
    return value


def card_index(text: str) -> int:
    """Parse card text (``10♦``, ``TD``, ``js``, ``Q♣``) into its index."""
    t = require_text(text, "a card", "10♦").strip()
    if len(t) < 2:
        raise InvalidNotationError(f"unknown card {text!r}: expected rank then suit, like '10♦'")
    suit = _SUIT_BY_TEXT.get(t[-1].upper())
    rank = _RANK_BY_TEXT.get(t[:-1].upper())
    if suit is None or rank is None:
        raise InvalidNotationError(
            f"unknown card {text!r}: ranks are 6 7 8 9 10 J Q K A (or T), "
            "suits ♠ ♥ ♦ ♣ (or S H D C)"
        )
    return rank * 4 + suit


def parse_card(text: str) -> Card:
    """Parse card text into a :class:`Card`."""
    return ALL_CARDS[card_index(text)]


def parse_suit(text: str) -> Suit:
    """Parse a suit symbol or letter."""
    suit = _SUIT_BY_TEXT.get(text.strip().upper()) if isinstance(text, str) else None
    if suit is None:
        raise InvalidNotationError(f"unknown suit {text!r}: expected ♠ ♥ ♦ ♣ or S H D C")
    return Suit(suit)


def iter_bits(mask: int) -> Iterator[int]:
    """Card indices set in ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def submasks(mask: int) -> tuple[int, ...]:
    """Every non-empty subset of ``mask``, fewest cards first, then by value."""
    subsets = []
    sub = mask
    while sub:
        subsets.append(sub)
        sub = (sub - 1) & mask
    return tuple(sorted(subsets, key=lambda m: (m.bit_count(), m)))


def cards_from_mask(mask: int) -> list[Card]:
    """The cards of a bitmask in canonical order."""
    return [ALL_CARDS[i] for i in iter_bits(mask)]


def mask_text(mask: int) -> list[str]:
    """Canonical texts of the cards in ``mask``."""
    return [CARD_TEXT[i] for i in iter_bits(mask)]


def _build_beaters(trump: int) -> tuple[int, ...]:
    table = []
    for a in range(36):
        beat = 0
        for d in range(36):
            same_suit_higher = SUIT_OF[d] == SUIT_OF[a] and RANK_OF[d] > RANK_OF[a]
            trump_on_plain = SUIT_OF[d] == trump and SUIT_OF[a] != trump
            if same_suit_higher or trump_on_plain:
                beat |= 1 << d
        table.append(beat)
    return tuple(table)


_BEATERS: tuple[tuple[int, ...], ...] = tuple(_build_beaters(t) for t in range(4))


def beaters_table(trump: int) -> tuple[int, ...]:
    """For each card index, the bitmask of cards that beat it when ``trump`` is trump."""
    return _BEATERS[trump]
