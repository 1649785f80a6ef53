"""RULES.md §1: card notation and the beating relation."""

from __future__ import annotations

import itertools

import pytest

from rules_engine import ALL_CARDS, Card, InvalidNotationError, Rank, Suit, parse_card, parse_suit
from rules_engine.cards import (
    ALL_CARDS_MASK,
    CARD_TEXT,
    FULL_DECK_MASK,
    PACK_MASK,
    RANK_MASK,
    RANK_OF,
    RANK_SYMBOLS,
    card_index,
    cards_from_mask,
    iter_cards,
    lowest_card,
    mask_text,
)

RANKS = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]
LOW_RANKS = ["2", "3", "4", "5"]
ORDERED = LOW_RANKS + RANKS
SUITS = ["♠", "♥", "♦", "♣"]


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("10♦", "10♦"),
        ("TD", "10♦"),
        ("td", "10♦"),
        ("T♦", "10♦"),
        ("js", "J♠"),
        ("JS", "J♠"),
        ("Q♣", "Q♣"),
        ("qc", "Q♣"),
        ("6h", "6♥"),
        ("A♥", "A♥"),
        ("ah", "A♥"),
        ("10S", "10♠"),
        (" K♦ ", "K♦"),
    ],
)
def test_parse_accepts_symbols_letters_and_t(text: str, canonical: str) -> None:
    card = parse_card(text)
    assert str(card) == canonical
    assert Card.parse(text) == card


def test_every_card_round_trips_and_indices_are_rank_major() -> None:
    """The 36 cards keep the indices 0..35 (6♠ first); the 52-card pack's 2..5 come after."""
    assert len(ALL_CARDS) == 52
    for r, rank in enumerate(RANKS):
        for s, suit in enumerate(SUITS):
            card = parse_card(rank + suit)
            assert card.index == r * 4 + s
            assert card.rank == Rank(r + 6)
            assert card.suit == Suit(s)
            assert str(card) == rank + suit == CARD_TEXT[card.index]
            assert Card.of(r + 6, s) == card
    for r, rank in enumerate(LOW_RANKS):
        for s, suit in enumerate(SUITS):
            card = parse_card(rank + suit)
            assert card.index == 36 + r * 4 + s
            assert card.rank == Rank(r + 2)
            assert str(card) == rank + suit == CARD_TEXT[card.index]
            assert Card.of(r + 2, s) == card
    assert len({str(c) for c in ALL_CARDS}) == 52
    assert [str(c) for c in ALL_CARDS[:36]] == [r + s for r in RANKS for s in SUITS]


def test_cards_sort_by_rank_then_suit_in_every_pack() -> None:
    shuffled = sorted(ALL_CARDS, key=lambda c: (c.index * 7919) % 53)
    assert [str(c) for c in sorted(shuffled)] == [r + s for r in LOW_RANKS + RANKS for s in SUITS]
    assert parse_card("2♣") < parse_card("6♠") < parse_card("A♣")
    assert max(parse_card("5♦"), parse_card("6♠")) == parse_card("6♠")


def test_packs() -> None:
    def ranks(pack: int) -> list[str]:
        return sorted({CARD_TEXT[i][:-1] for i in range(52) if pack >> i & 1}, key=ORDERED.index)

    assert ranks(PACK_MASK[24]) == ["9", "10", "J", "Q", "K", "A"]
    assert ranks(PACK_MASK[36]) == RANKS
    assert ranks(PACK_MASK[52]) == ORDERED
    assert [PACK_MASK[n].bit_count() for n in (24, 36, 52)] == [24, 36, 52]
    assert PACK_MASK[36] == FULL_DECK_MASK
    assert PACK_MASK[52] == ALL_CARDS_MASK


def test_mask_helpers_are_canonical_order() -> None:
    m = (1 << card_index("A♣")) | (1 << card_index("6♥")) | (1 << card_index("10♠"))
    assert mask_text(m) == ["6♥", "10♠", "A♣"]
    assert [str(c) for c in cards_from_mask(m)] == ["6♥", "10♠", "A♣"]
    m |= (1 << card_index("2♦")) | (1 << card_index("5♠"))
    assert mask_text(m) == ["2♦", "5♠", "6♥", "10♠", "A♣"]
    assert [str(c) for c in cards_from_mask(m)] == mask_text(m)
    assert [CARD_TEXT[i] for i in iter_cards(m)] == mask_text(m)
    assert CARD_TEXT[lowest_card(m)] == "2♦"
    assert CARD_TEXT[lowest_card(m & PACK_MASK[36])] == "6♥"


def test_rank_tables_read_low_ranks_by_negative_index() -> None:
    for i in range(52):
        rank = ORDERED.index(CARD_TEXT[i][:-1]) + 2
        assert RANK_OF[i] == rank - 6
        assert RANK_SYMBOLS[RANK_OF[i]] == CARD_TEXT[i][:-1]
        assert RANK_MASK[RANK_OF[i]] >> i & 1
        assert RANK_MASK[RANK_OF[i]].bit_count() == 4


@pytest.mark.parametrize(
    "text", ["1♦", "11♠", "15♣", "10X", "B♥", "♦", "10", "", "J", "0♠", "10♦♦"]
)
def test_bad_card_text_raises_quoting_input(text: str) -> None:
    with pytest.raises(InvalidNotationError) as info:
        parse_card(text)
    assert repr(text) in str(info.value)


def test_non_text_card_raises() -> None:
    with pytest.raises(InvalidNotationError):
        card_index(10)  # type: ignore[arg-type]


def test_parse_suit() -> None:
    assert parse_suit("♠") == Suit.SPADES
    assert parse_suit("h") == Suit.HEARTS
    assert parse_suit("D") == Suit.DIAMONDS
    assert parse_suit("c") == Suit.CLUBS
    with pytest.raises(InvalidNotationError) as info:
        parse_suit("X")
    assert "'X'" in str(info.value)


def test_card_index_out_of_range() -> None:
    with pytest.raises(InvalidNotationError):
        Card(52)
    with pytest.raises(InvalidNotationError):
        Card(-1)


def _beats_by_rule(b: str, a: str, trump: str) -> bool:
    """RULES.md §1 written out independently of the engine's bit tables."""
    rank = {r: i for i, r in enumerate(ORDERED)}
    rb, sb, ra, sa = b[:-1], b[-1], a[:-1], a[-1]
    return (sb == sa and rank[rb] > rank[ra]) or (sb == trump and sa != trump)


@pytest.mark.parametrize(
    ("defence", "attack", "trump", "expected"),
    [
        ("9♥", "8♥", "♣", True),  # same suit, higher
        ("7♥", "8♥", "♣", False),  # same suit, lower
        ("8♥", "8♥", "♣", False),  # not higher
        ("A♦", "8♥", "♣", False),  # another plain suit
        ("6♣", "A♥", "♣", True),  # any trump beats any plain card
        ("7♣", "9♣", "♣", False),  # a trump only by a higher trump
        ("10♣", "9♣", "♣", True),
        ("A♥", "6♣", "♣", False),  # plain never beats a trump
        ("3♥", "2♥", "♣", True),  # the 52-card pack's low ranks
        ("6♥", "5♥", "♣", True),
        ("5♥", "6♥", "♣", False),
        ("2♣", "A♥", "♣", True),  # the lowest trump beats any plain card
        ("A♥", "2♣", "♣", False),
    ],
)
def test_beats_examples(defence: str, attack: str, trump: str, expected: bool) -> None:
    assert parse_card(defence).beats(parse_card(attack), parse_suit(trump)) is expected


def test_beats_matches_rule_for_every_pair() -> None:
    for trump in SUITS:
        for a, b in itertools.product(CARD_TEXT, repeat=2):
            got = parse_card(b).beats(parse_card(a), parse_suit(trump))
            assert got == _beats_by_rule(b, a, trump), (b, a, trump)
