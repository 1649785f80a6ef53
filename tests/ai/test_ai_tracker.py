"""The public replay of the history finds every round boundary: its hand sizes, stock, discard
and known cards match the engine's."""

from __future__ import annotations

import random

import pytest

from rules_engine import PROFILES, Game, deal_from_seed, observation
from rules_engine.ai.policy import casual_code
from rules_engine.ai.tracker import Tracker
from rules_engine.ai.view import View
from rules_engine.cards import card_index


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
