"""RULES.md §3–§4: seeded deals, who deals and who leads."""

from __future__ import annotations

import pytest

from rules_engine import Deal, InvalidPositionError, deal_from_seed, next_dealer_and_leader
from rules_engine.cards import CARD_TEXT, card_index
from rules_engine.deal import _shuffled_deck

# Seeds found by searching deal_from_seed: no hand holds a card of the trump suit, so the
# dealer's left neighbour leads (RULES.md §4 fallback).
NO_TRUMP_SEEDS = {2: 5, 3: 296}


def _suit(c: int) -> str:
    return CARD_TEXT[c][-1]


def _rank(c: int) -> int:
    return ["6", "7", "8", "9", "10", "J", "Q", "K", "A"].index(CARD_TEXT[c][:-1])


def _expected_deal(players: int, seed: int, dealer: int | None = None):
    """The deal rebuilt from the shuffled deck by reading RULES.md §3 literally: one card at a
    time, clockwise, starting at the dealer's left; then the next card face up under the stock."""
    drawn, deck = _shuffled_deck(seed, players)
    dealer = drawn if dealer is None else dealer
    hands: list[set[int]] = [set() for _ in range(players)]
    seat = dealer
    for card in deck[: 6 * players]:
        seat = (seat + 1) % players
        hands[seat].add(card)
    rest = deck[6 * players :]
    return dealer, hands, rest, deck


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("seed", [0, 1, 7, 12345, 2**40 + 3])
def test_deal_is_one_card_at_a_time_from_the_dealers_left(players: int, seed: int) -> None:
    deal = deal_from_seed(players, seed)
    dealer, hands, rest, deck = _expected_deal(players, seed)
    assert deal.dealer == dealer
    assert deal.seed == seed
    assert deal.players == players
    assert [h.bit_count() for h in deal.hands] == [6] * players
    for seat in range(players):
        assert {i for i in range(36) if deal.hands[seat] >> i & 1} == hands[seat]
    if players < 6:
        # the next card is turned up, goes under the stock, and is drawn last
        face_up = rest[0]
        assert deal.stock[-1] == face_up
        assert list(deal.stock) == [*rest[1:], face_up]
        assert deal.trump_card == face_up
        assert CARD_TEXT[face_up][-1] == "♠♥♦♣"[deal.trump]
        assert len(deal.stock) == 36 - 6 * players
    else:
        # six players: no stock; the dealer's last (sixth) card is shown and names the trump
        assert rest == []
        assert deal.stock == ()
        assert deal.trump_card is None
        last = deck[35]
        assert deal.hands[dealer] >> last & 1
        assert _suit(last) == "♠♥♦♣"[deal.trump]
        assert last in deal.shown
    # 36 cards, none twice
    all_cards = [i for h in deal.hands for i in range(36) if h >> i & 1] + list(deal.stock)
    assert sorted(all_cards) == list(range(36))


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("seed", range(30))
def test_lowest_trump_leads_and_is_shown(players: int, seed: int) -> None:
    deal = deal_from_seed(players, seed)
    trump = "♠♥♦♣"[deal.trump]
    held = [
        (_rank(c), seat, c)
        for seat, h in enumerate(deal.hands)
        for c in range(36)
        if h >> c & 1 and _suit(c) == trump
    ]
    assert deal.first_of_series
    if held:
        _, seat, card = min(held)
        assert deal.leader == seat
        assert card in deal.shown
    else:
        assert deal.leader == (deal.dealer + 1) % players
    # only the lowest trump and the six-player dealer's card are ever shown
    assert len(deal.shown) <= (2 if players == 6 else 1)


@pytest.mark.parametrize(("players", "seed"), sorted(NO_TRUMP_SEEDS.items()))
def test_no_trump_in_any_hand_dealers_left_leads(players: int, seed: int) -> None:
    deal = deal_from_seed(players, seed)
    trump = "♠♥♦♣"[deal.trump]
    assert not any(h >> c & 1 and _suit(c) == trump for h in deal.hands for c in range(36))
    assert deal.leader == (deal.dealer + 1) % players
    assert deal.shown == ()


def test_six_players_shown_card_can_be_the_lowest_trump() -> None:
    deal = deal_from_seed(6, 2)  # the dealer's shown card is also the lowest trump
    assert len(deal.shown) == 1
    assert deal.leader == deal.dealer


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_later_games_the_dealers_left_leads(players: int) -> None:
    for seed in range(10):
        for dealer in range(players):
            deal = deal_from_seed(players, seed, dealer=dealer, first_of_series=False)
            assert deal.dealer == dealer
            assert deal.leader == (dealer + 1) % players
            assert not deal.first_of_series
            # the dealer given replaces the drawn one in the dealing order
            _, hands, _, _ = _expected_deal(players, seed, dealer)
            for seat in range(players):
                assert {i for i in range(36) if deal.hands[seat] >> i & 1} == hands[seat]
            if players < 6:
                assert deal.shown == ()


def test_same_seed_same_deal_and_different_seeds_differ() -> None:
    assert deal_from_seed(4, 99) == deal_from_seed(4, 99)
    assert deal_from_seed(4, 99).to_dict() == deal_from_seed(4, 99).to_dict()
    deals = {deal_from_seed(4, s).hands for s in range(50)}
    assert len(deals) == 50


def test_first_dealer_is_drawn_from_the_seed() -> None:
    dealers = {deal_from_seed(5, s).dealer for s in range(200)}
    assert dealers == set(range(5))


def test_deal_from_seed_bad_arguments() -> None:
    for players in (1, 7):
        with pytest.raises(InvalidPositionError):
            deal_from_seed(players, 1)
    with pytest.raises(InvalidPositionError):
        deal_from_seed(3, 1, dealer=3)


def test_deal_dict_round_trip() -> None:
    for players in (2, 6):
        deal = deal_from_seed(players, 77)
        assert Deal.from_dict(deal.to_dict()) == deal


@pytest.mark.parametrize(
    ("players", "dealer", "loser", "expected"),
    [
        (3, 0, 2, (2, 0)),  # the loser deals, the loser's left neighbour leads
        (3, 1, 1, (1, 2)),
        (4, 2, 0, (0, 1)),
        (6, 5, 3, (3, 4)),
        (2, 0, 1, (1, 0)),
        (3, 2, None, (2, 0)),  # a draw: the same dealer deals again, its left neighbour leads
        (5, 1, None, (1, 2)),
        (2, 1, None, (1, 0)),
    ],
)
def test_next_dealer_and_leader(
    players: int, dealer: int, loser: int | None, expected: tuple[int, int]
) -> None:
    assert next_dealer_and_leader(players, dealer, loser) == expected


def _deal(**kw: object) -> Deal:
    from .helpers import mask

    args: dict[str, object] = {
        "hands": (mask("8♥ K♠"), mask("9♥ 6♣")),
        "stock": (),
        "trump": 2,
        "leader": 0,
    }
    args.update(kw)
    return Deal(**args)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kw", "words"),
    [
        ({"hands": (1,)}, "2 to 6 seats"),
        ({"hands": (1, 2, 4, 8, 16, 32, 64)}, "2 to 6 seats"),
        ({"hands": (1 | 2, 2)}, "appears twice"),
        ({"stock": (card_index("8♥"), card_index("8♦"))}, "appears twice"),  # 8♥ in seat 0
        ({"discard": 1 << card_index("8♥")}, "appears twice"),
        ({"stock": (card_index("A♦"), card_index("A♣"))}, "last stock card"),  # trump is ♦
        ({"leader": 2}, "not a seat"),
        ({"hands": (0, 3), "leader": 0}, "holds no cards"),
        ({"hands": (0, 3), "leader": 1, "stock": (card_index("A♣"),), "trump": 3}, "no cards"),
        ({"hands": (1, 0, 0), "leader": 0}, "at least two seats"),
        ({"trump": 4}, "bad trump"),
    ],
)
def test_invalid_positions(kw: dict[str, object], words: str) -> None:
    with pytest.raises(InvalidPositionError) as info:
        _deal(**kw)
    assert words in str(info.value)
