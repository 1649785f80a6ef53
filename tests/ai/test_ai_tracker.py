"""The public replay of the history finds every round boundary: its hand sizes, stock, discard
and known cards match the engine's."""

from __future__ import annotations

import random

import pytest

from rules_engine import PROFILES, Game, deal_from_seed, observation
from rules_engine.actions import DEFEND, TAKE, TRANSFER
from rules_engine.ai.policy import casual_code
from rules_engine.ai.tracker import Tracker
from rules_engine.ai.view import View
from rules_engine.cards import RANK_MASK, RANK_OF, SUIT_MASK, SUIT_OF, card_index


@pytest.mark.parametrize("rules", sorted(PROFILES))
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_replay_matches_the_engine(rules: str, players: int) -> None:
    rng = random.Random(players)
    for seed in range(6):
        game = Game(PROFILES[rules], deal_from_seed(players, seed))
        trump_card = game.deal.stock[-1] if game.deal.stock else None
        while not game.finished:
            seat = game.to_act
            assert seat is not None
            obs = observation(game, seat)
            view = View(obs)
            view.known_given = False
            tracker = Tracker(view, trump_card=trump_card)
            assert tracker.ok, (seed, obs["history"])
            expected = [sum(1 << card_index(c) for c in k) for k in obs["known"]]
            if players == 6:  # the dealer's shown card: its holder is not public here
                shown = sum(1 << c for c in game.deal.shown)
                expected = [k & ~shown for k in expected]
                got = [k & ~shown for k in tracker.known]
            else:
                got = tracker.known
            assert got == expected
            legal = game.legal_codes()
            if rng.random() < 0.3:
                game.apply_code(legal[rng.randrange(len(legal))])
            else:
                game.apply_code(casual_code(game, legal))


@pytest.mark.parametrize("rules", sorted(PROFILES))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_declined_transfers_match_the_engine(rules: str, players: int) -> None:
    """A defender that defends or takes where the engine would take a transfer (nothing
    covered, room at the next seat: RULES.md §6.4), had it a card of the rank, is marked as
    probably lacking the plain cards of the attacks' rank, and only then."""
    rng = random.Random(100 + players)
    marked = 0
    for seed in range(8):
        game = Game(PROFILES[rules], deal_from_seed(players, seed))
        trump_card = game.deal.stock[-1] if game.deal.stock else None
        expected = [0] * players  # ever declined: fresh or stale
        while not game.finished:
            seat = game.to_act
            assert seat is not None
            legal = game.legal_codes()
            if rng.random() < 0.3:
                code = legal[rng.randrange(len(legal))]
            else:
                code = casual_code(game, legal)
            could = (
                seat == game.defender
                and game.rules.transfer
                and not game.covered_any
                and min(game.cap, game.hands[game.next_active(seat)].bit_count())
                > len(game.table_attacks)
            )
            if any(c & 7 == TRANSFER for c in legal):
                assert could
            if code & 7 in (DEFEND, TAKE) and could:
                rank = RANK_MASK[RANK_OF[game.table_attacks[0]]]
                expected[seat] |= rank & ~SUIT_MASK[game.trump]
                marked += 1
            game.apply_code(code)
            if game.finished:
                break
            view = View(observation(game, 0))
            view.known_given = False
            tracker = Tracker(view, trump_card=trump_card)
            assert tracker.ok
            got = [a | b for a, b in zip(tracker.declined, tracker.declined_stale, strict=True)]
            assert got == expected
    if PROFILES[rules].transfer:
        assert marked > 5
    else:
        assert marked == 0


@pytest.mark.parametrize("rules", sorted(PROFILES))
def test_trumped_plain_cards_match_the_engine(rules: str) -> None:
    """A seat that beats a plain card with a trump is marked as probably lacking that card's
    plain beaters, until it draws again."""
    rng = random.Random(7)
    marked = 0
    for seed in range(8):
        game = Game(PROFILES[rules], deal_from_seed(2, seed))
        trump_card = game.deal.stock[-1] if game.deal.stock else None
        expected = [0, 0]
        while not game.finished:
            seat = game.to_act
            assert seat is not None
            legal = game.legal_codes()
            if rng.random() < 0.5:
                code = legal[rng.randrange(len(legal))]
            else:
                code = casual_code(game, legal)
            stock = set(game.stock)
            if code & 7 == DEFEND:
                a, b = (code >> 3) & 63, code >> 9
                if SUIT_OF[b] == game.trump != SUIT_OF[a]:
                    expected[seat] |= SUIT_MASK[SUIT_OF[a]] & game.beaters[a]
                    marked += 1
            game.apply_code(code)
            if game.finished:
                break
            drawn = sum(1 << c for c in stock - set(game.stock))
            for s in range(2):  # whoever drew from the stock starts afresh
                if game.hands[s] & drawn:
                    expected[s] = 0
            view = View(observation(game, 0))
            view.known_given = False
            tracker = Tracker(view, trump_card=trump_card)
            assert tracker.ok
            assert tracker.trumped == expected
    assert marked > 10
