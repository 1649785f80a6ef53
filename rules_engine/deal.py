"""Starting positions: seeded deals (RULES.md §3–§4) and arbitrary positions for scenarios.

A :class:`Deal` is the chance player's whole contribution to a game: once it is fixed, the game
is a deterministic function of the players' actions.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass, field
from typing import Any

from rules_engine.cards import (
    ALL_CARDS_MASK,
    CARD_TEXT,
    N_CARDS,
    PACK_MASK,
    PACK_SIZES,
    RANK_OF,
    SUIT_MASK,
    SUIT_OF,
    card_index,
    iter_cards,
    lowest_card,
    parse_suit,
)
from rules_engine.errors import InvalidPositionError

__all__ = ["HAND_SIZE", "Deal", "deal_from_seed", "next_dealer_and_leader"]

HAND_SIZE = 6
MIN_PLAYERS, MAX_PLAYERS = 2, 6


@dataclass(frozen=True, slots=True)
class Deal:
    """A starting position.

    ``hands`` are card bitmasks per seat; ``stock`` lists card indices in drawing order, its
    last card being the face-up trump card; ``shown`` lists cards shown to everyone at the deal
    (the lowest trump that chose the leader, the dealer's trump when the whole pack is dealt).
    ``deck`` is the pack the cards come from (24, 36 or 52, RULES.md §10.1): every card must
    be in it, and a game's rules must name the same pack.
    """

    hands: tuple[int, ...]
    stock: tuple[int, ...]
    trump: int
    leader: int
    first_round: bool = True
    discard: int = 0
    dealer: int | None = None
    shown: tuple[int, ...] = ()
    seed: int | None = None
    first_of_series: bool = field(default=True)
    deck: int = 36

    def __post_init__(self) -> None:
        n = len(self.hands)
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise InvalidPositionError(f"a game has 2 to 6 seats, not {n}")
        if self.deck != 36 and (self.deck not in PACK_MASK or isinstance(self.deck, bool)):
            raise InvalidPositionError(f"deck must be 24, 36 or 52, not {self.deck!r}")
        if not self._cards_distinct():
            self._raise_duplicate()
        if not 0 <= self.trump < 4:
            raise InvalidPositionError(f"bad trump suit {self.trump!r}")
        if self.stock and SUIT_OF[self.stock[-1]] != self.trump:
            raise InvalidPositionError(
                f"the trump must be the suit of the last stock card {CARD_TEXT[self.stock[-1]]}"
            )
        if not 0 <= self.leader < n:
            raise InvalidPositionError(f"leader {self.leader!r} is not a seat (0..{n - 1})")
        if not self.hands[self.leader]:
            raise InvalidPositionError(f"the leader, seat {self.leader}, holds no cards")
        if self.stock:
            empty = [s for s, h in enumerate(self.hands) if not h]
            if empty:
                raise InvalidPositionError(
                    f"seat {empty[0]} holds no cards while the stock still has cards"
                )
        elif sum(1 for h in self.hands if h) < 2:
            raise InvalidPositionError("at least two seats must hold cards")
        if self.dealer is not None and not 0 <= self.dealer < n:
            raise InvalidPositionError(f"dealer {self.dealer!r} is not a seat")

    def _cards_distinct(self) -> bool:
        """Fast check: no card twice across hands, stock and discard, all in the pack."""
        union = self.discard
        count = self.discard.bit_count() + len(self.stock)
        for hand in self.hands:
            union |= hand
            count += hand.bit_count()
        stock_mask = sum(map(_BIT.__getitem__, self.stock)) if self.stock else 0
        union |= stock_mask
        return union.bit_count() == count and not union & ~PACK_MASK[self.deck]

    def _raise_duplicate(self) -> None:
        seen = 0
        pack = PACK_MASK[self.deck]
        for seat, hand in enumerate(self.hands):
            if hand < 0 or hand > ALL_CARDS_MASK:
                raise InvalidPositionError(f"bad card mask {hand!r} for seat {seat}")
            if seen & hand:
                dup = CARD_TEXT[(seen & hand).bit_length() - 1]
                raise InvalidPositionError(f"card {dup} appears twice (seat {seat})")
            seen |= hand
        for c in self.stock:
            if not isinstance(c, int) or not 0 <= c < N_CARDS:
                raise InvalidPositionError(f"bad card index {c!r} in the stock")
            if seen >> c & 1:
                raise InvalidPositionError(f"card {CARD_TEXT[c]} appears twice (stock)")
            seen |= 1 << c
        if self.discard < 0 or self.discard > ALL_CARDS_MASK:
            raise InvalidPositionError(f"bad discard mask {self.discard!r}")
        if seen & self.discard:
            dup = CARD_TEXT[(seen & self.discard).bit_length() - 1]
            raise InvalidPositionError(f"card {dup} appears twice (discard)")
        stray = (seen | self.discard) & ~pack
        if stray:
            raise InvalidPositionError(
                f"card {CARD_TEXT[lowest_card(stray)]} is not in the {self.deck}-card pack"
            )
        raise InvalidPositionError("bad cards in the deal")

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def trump_card(self) -> int | None:
        return self.stock[-1] if self.stock else None

    def to_dict(self) -> dict[str, object]:
        """A JSON-safe record; ``deck`` appears only for a pack other than 36 cards, so a
        36-card deal's record is what it always was."""
        record: dict[str, object] = {
            "hands": [[CARD_TEXT[c] for c in iter_cards(h)] for h in self.hands],
            "stock": [CARD_TEXT[c] for c in self.stock],
            "trump": "♠♥♦♣"[self.trump],
            "leader": self.leader,
            "first_round": self.first_round,
            "discard": [CARD_TEXT[c] for c in iter_cards(self.discard)],
            "dealer": self.dealer,
            "shown": [CARD_TEXT[c] for c in self.shown],
            "seed": self.seed,
            "first_of_series": self.first_of_series,
        }
        if self.deck != 36:
            record["deck"] = self.deck
        return record

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Deal:
        """Inverse of :meth:`to_dict`; raises :class:`InvalidPositionError` on bad data."""
        try:
            hands = tuple(_mask(h) for h in data["hands"])
            stock = tuple(card_index(c) for c in data.get("stock", []))
            trump = int(parse_suit(str(data["trump"])))
            discard = _mask(data.get("discard", []))
            dealer = data.get("dealer")
            seed = data.get("seed")
            return cls(
                hands=hands,
                stock=stock,
                trump=trump,
                leader=int(data["leader"]),
                first_round=bool(data.get("first_round", True)),
                discard=discard,
                dealer=None if dealer is None else int(dealer),
                shown=tuple(card_index(c) for c in data.get("shown", [])),
                seed=None if seed is None else int(seed),
                first_of_series=bool(data.get("first_of_series", True)),
                deck=data.get("deck", 36),
            )
        except (KeyError, TypeError) as exc:
            raise InvalidPositionError(f"bad deal record: {exc!r}") from None


def _mask(cards: object) -> int:
    if not isinstance(cards, list):
        raise InvalidPositionError(f"expected a list of cards, got {cards!r}")
    mask = 0
    for text in cards:
        idx = card_index(text)
        if mask >> idx & 1:
            raise InvalidPositionError(f"card {CARD_TEXT[idx]} appears twice")
        mask |= 1 << idx
    return mask


_WORDS = struct.Struct("<37Q")
#: The words of the 24- and 52-card shuffles: one for the dealer, one per Fisher-Yates step.
_PACK_WORDS = {size: struct.Struct(f"<{size + 1}Q") for size in PACK_SIZES}
_BIT: tuple[int, ...] = tuple(1 << c for c in range(N_CARDS))
#: Every pack's cards in canonical order (by rank from the lowest, then suit).
_PACK_CARDS = {size: tuple(iter_cards(mask)) for size, mask in PACK_MASK.items()}


def _shuffled_deck(seed: int, players: int) -> tuple[int, list[int]]:
    """The first dealer and a shuffled 36-card deck, both drawn from ``seed``.

    Randomness is SHAKE-256 of the seed's decimal text: 37 64-bit words, one for the dealer and
    one per Fisher-Yates step.  It is fast, and identical on every platform and Python version.
    """
    words = _WORDS.unpack(hashlib.shake_256(b"durak-deal:%d" % seed).digest(_WORDS.size))
    deck = list(range(36))
    for i in range(35, 0, -1):
        j = words[i] % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return words[0] % players, deck


def _shuffled_pack(seed: int, players: int, size: int) -> tuple[int, list[int]]:
    """The first dealer and a shuffled pack of ``size`` cards, drawn from ``seed``: the
    36-card pack exactly as :func:`_shuffled_deck`; the 24- and 52-card packs the same way
    from a stream of their own (the seed's text tagged with the pack size), shuffling the pack's
    cards from their canonical order."""
    if size == 36:
        return _shuffled_deck(seed, players)
    layout = _PACK_WORDS[size]
    words = layout.unpack(hashlib.shake_256(b"durak-deal-%d:%d" % (size, seed)).digest(layout.size))
    deck = list(_PACK_CARDS[size])
    for i in range(size - 1, 0, -1):
        j = words[i] % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return words[0] % players, deck


def deal_from_seed(
    players: int,
    seed: int,
    *,
    dealer: int | None = None,
    first_of_series: bool = True,
    deck: int = 36,
) -> Deal:
    """Shuffle a pack of ``deck`` cards (24, 36 or 52) from ``seed`` and deal as RULES.md §3–§4
    and §10.1 say.

    Without ``dealer`` the first dealer is drawn from the seed.  In the first game of a series
    the holder of the lowest trump leads (that card is shown); otherwise, and when no hand holds
    a trump, the dealer's left neighbour leads.  When the whole pack is dealt the dealer's last
    card names the trump and is shown.
    """
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise InvalidPositionError(f"a game has 2 to 6 players, not {players}")
    if deck == 36:
        drawn_dealer, cards = _shuffled_deck(seed, players)
    else:
        if deck not in PACK_MASK or isinstance(deck, bool):
            raise InvalidPositionError(f"deck must be 24, 36 or 52, not {deck!r}")
        if HAND_SIZE * players > deck:
            raise InvalidPositionError(
                f"a {deck}-card pack deals six cards to at most {deck // HAND_SIZE} players, "
                f"not {players}"
            )
        drawn_dealer, cards = _shuffled_pack(seed, players, deck)
    if dealer is None:
        dealer = drawn_dealer
    elif not 0 <= dealer < players:
        raise InvalidPositionError(f"dealer {dealer!r} is not a seat (0..{players - 1})")
    # One card at a time from the dealer's left: card j goes to seat (dealer + 1 + j) % players.
    pos = HAND_SIZE * players
    bits = [1 << c for c in cards[:pos]]
    hands = [sum(bits[(seat - dealer - 1) % players : pos : players]) for seat in range(players)]
    shown: list[int] = []
    if pos < deck:
        trump_card = cards[pos]
        stock = (*cards[pos + 1 :], trump_card)
    else:  # the whole pack is dealt: the dealer's last card is shown and names the trump
        trump_card = cards[pos - 1]
        stock = ()
        shown.append(trump_card)
    trump = SUIT_OF[trump_card]
    leader = (dealer + 1) % players
    if first_of_series:
        lowest: tuple[int, int] | None = None
        for seat, hand in enumerate(hands):
            trumps = hand & SUIT_MASK[trump]
            if trumps:
                low = (trumps & -trumps).bit_length() - 1 if deck != 52 else lowest_card(trumps)
                if lowest is None or RANK_OF[low] < RANK_OF[lowest[1]]:
                    lowest = (seat, low)
        if lowest is not None:
            leader = lowest[0]
            if lowest[1] not in shown:
                shown.insert(0, lowest[1])
    return Deal(
        hands=tuple(hands),
        stock=stock,
        trump=trump,
        leader=leader,
        dealer=dealer,
        shown=tuple(shown),
        seed=seed,
        first_of_series=first_of_series,
        deck=deck,
    )


def next_dealer_and_leader(
    players: int,
    previous_dealer: int,
    loser: int | None,
    *,
    losers: tuple[int, ...] | list[int] | None = None,
) -> tuple[int, int]:
    """Dealer and leader of the next game of a series (RULES.md §4, §10.4).

    After a loss the loser deals and the loser's left neighbour leads; after a draw
    (``loser is None`` and no ``losers``) the same dealer deals again and the dealer's left
    neighbour leads.  A team game passes its ``losers`` (``Game.losers``): the first of them
    clockwise after the previous dealer deals.
    """
    if losers:
        dealer = min(losers, key=lambda s: (s - previous_dealer - 1) % players)
    else:
        dealer = previous_dealer if loser is None else loser
    return dealer, (dealer + 1) % players
