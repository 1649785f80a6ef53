"""Cards of the Durak packs (RULES.md §1, §10.1): frozen values, parsing, canonical text.

Internally every card is an index and a set of cards is an ``int`` bitmask with bit ``index``
set.  The 36 cards of the traditional pack (``6`` to ``A``) are the indices 0..35, rank-major
(``(rank - 6) * 4 + suit``), so the four cards of a rank are four adjacent bits and a 36-card
game's masks and action codes are those the engine has always used.  The ranks ``2``–``5`` of
the 52-card pack sit above them, 36..51 (``(rank - 6) * 4 + suit`` taken modulo 52): in rank
order a card comes at ``index`` for 0..35 and ``index - 52`` above (:data:`ORDER`), and
:data:`RANK_OF` is ``rank - 6``, from -4 (a ``2``) to 8 (an ``A``).  Tables indexed by a rank
(:data:`RANK_MASK`, :data:`RANK_SYMBOLS`) have 13 entries laid out 6..A then 2..5, so Python's
negative indices read the low ranks' entries: ``RANK_MASK[RANK_OF[c]]`` is right for every
card.  Bit order is rank order within the 36 cards only: :func:`lowest_card` and
:func:`iter_cards` give the rank order of any mask.  The public :class:`Card` value wraps an
index.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import IntEnum

from rules_engine.errors import InvalidNotationError

__all__ = [
    "ALL_CARDS",
    "ALL_CARDS_MASK",
    "CARD_TEXT",
    "FULL_DECK_MASK",
    "ORDER",
    "PACK_MASK",
    "PACK_SIZES",
    "RANKS_ASCENDING",
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
    "iter_cards",
    "lowest_card",
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
    """Ranks 2..A, valued so that comparison is the game's order (2..5: the 52-card pack)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
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
#: Rank symbols by rank index (``rank - 6``): 6..A at 0..8, then 2..5 at 9..12 (-4..-1).
RANK_SYMBOLS = ("6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "3", "4", "5")
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
#: Rank index (``rank - 6``) of each rank text.
_RANK_BY_TEXT = {sym: (i if i < 9 else i - 13) for i, sym in enumerate(RANK_SYMBOLS)} | {"T": 4}

#: Every card of the three packs: indices 0..51.
N_CARDS = 52
#: Rank index (``rank - 6``: -4 for a 2, 0 for a 6, 8 for an A) and suit (0..3) of each index.
ORDER: tuple[int, ...] = tuple(i if i < 36 else i - N_CARDS for i in range(N_CARDS))
RANK_OF: tuple[int, ...] = tuple(o >> 2 for o in ORDER)
SUIT_OF: tuple[int, ...] = tuple(i & 3 for i in range(N_CARDS))
#: The rank indices from the lowest rank (2) to the highest (A).
RANKS_ASCENDING: tuple[int, ...] = tuple(range(-4, 9))
#: Bitmask of the four cards of each rank index (13 entries: 6..A, then 2..5).
RANK_MASK: tuple[int, ...] = tuple(0xF << (4 * (r % 13)) for r in range(13))
#: Bitmask of the cards of each suit (all 13 ranks; intersect with a pack for its cards).
SUIT_MASK: tuple[int, ...] = tuple(sum(1 << i for i in range(s, N_CARDS, 4)) for s in range(4))
#: Every non-empty set of cards of one rank as a bitmask: 15 per rank, rank by rank.
RANK_SETS: tuple[int, ...] = tuple(p << (4 * r) for r in range(13) for p in range(1, 16))
CARD_TEXT: tuple[str, ...] = tuple(
    RANK_SYMBOLS[RANK_OF[i]] + SUIT_SYMBOLS[i & 3] for i in range(N_CARDS)
)
#: The pack sizes a game may use (RULES.md §10.1) and the cards of each.
PACK_SIZES: tuple[int, ...] = (24, 36, 52)
PACK_MASK: dict[int, int] = {
    24: sum(RANK_MASK[r] for r in range(3, 9)),
    36: (1 << 36) - 1,
    52: (1 << N_CARDS) - 1,
}
#: The 36-card pack, the default (kept under its historical name).
FULL_DECK_MASK = PACK_MASK[36]
#: Every card of every pack.
ALL_CARDS_MASK = PACK_MASK[52]
_LOW36 = FULL_DECK_MASK


@dataclass(frozen=True, slots=True)
class Card:
    """One card, ordered by rank then suit (the canonical order, not the game's beating order)."""

    index: int

    def __post_init__(self) -> None:
        if not 0 <= self.index < N_CARDS:
            raise InvalidNotationError(f"card index {self.index!r} is not in 0..{N_CARDS - 1}")

    @property
    def rank(self) -> Rank:
        return Rank(RANK_OF[self.index] + 6)

    @property
    def suit(self) -> Suit:
        return Suit(self.index & 3)

    @property
    def mask(self) -> int:
        return 1 << self.index

    @classmethod
    def of(cls, rank: int, suit: int) -> Card:
        """The card of ``rank`` (2..14) and ``suit`` (0..3)."""
        return ALL_CARDS[((int(rank) - 6) * 4 + int(suit)) % N_CARDS]

    @classmethod
    def parse(cls, text: str) -> Card:
        return ALL_CARDS[card_index(text)]

    def beats(self, other: Card, trump: int) -> bool:
        """Whether this card beats ``other`` with ``trump`` as the trump suit (RULES.md §1)."""
        return bool(beaters_table(trump)[other.index] >> self.index & 1)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return ORDER[self.index] < ORDER[other.index]

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return ORDER[self.index] <= ORDER[other.index]

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return ORDER[self.index] > ORDER[other.index]

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return ORDER[self.index] >= ORDER[other.index]

    def __str__(self) -> str:
        return CARD_TEXT[self.index]

    def __repr__(self) -> str:
        return f"Card({CARD_TEXT[self.index]!r})"


#: Every card by index: ``ALL_CARDS[:36]`` is the 36-card pack in canonical order.
ALL_CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(N_CARDS))


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
            f"unknown card {text!r}: ranks are 2 3 4 5 6 7 8 9 10 J Q K A (or T), "
            "suits ♠ ♥ ♦ ♣ (or S H D C)"
        )
    return (rank * 4 + suit) % N_CARDS


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
    """Card indices set in ``mask``, lowest index first (rank order within the 36 cards)."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def iter_cards(mask: int) -> Iterator[int]:
    """Card indices set in ``mask`` in canonical order: by rank (2 first), then suit."""
    high = mask >> 36
    while high:
        low = high & -high
        yield low.bit_length() + 35
        high ^= low
    yield from iter_bits(mask & _LOW36)


def lowest_card(mask: int) -> int:
    """The index of the lowest card of a non-empty ``mask`` in canonical order."""
    high = mask >> 36
    if high:
        return (high & -high).bit_length() + 35
    return (mask & -mask).bit_length() - 1


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
    return [ALL_CARDS[i] for i in (iter_bits(mask) if mask <= _LOW36 else iter_cards(mask))]


def mask_text(mask: int) -> list[str]:
    """Canonical texts of the cards in ``mask``, in canonical order."""
    return [CARD_TEXT[i] for i in (iter_bits(mask) if mask <= _LOW36 else iter_cards(mask))]


#: For each card index, the cards of its suit of a higher rank.
_HIGHER: tuple[int, ...] = tuple(
    sum(1 << d for d in range(s, N_CARDS, 4) if RANK_OF[d] > RANK_OF[a])
    for a in range(N_CARDS)
    for s in (a & 3,)
)


def _build_beaters(trump: int) -> tuple[int, ...]:
    """A card is beaten by a higher card of its suit, or by any trump if it is not one."""
    trumps = SUIT_MASK[trump]
    return tuple(_HIGHER[a] | (trumps if SUIT_OF[a] != trump else 0) for a in range(N_CARDS))


_BEATERS: tuple[tuple[int, ...], ...] = tuple(_build_beaters(t) for t in range(4))


def beaters_table(trump: int) -> tuple[int, ...]:
    """For each card index, the bitmask of cards that beat it when ``trump`` is trump."""
    return _BEATERS[trump]
