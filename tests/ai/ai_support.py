"""Shared helpers of the AI tests."""

from __future__ import annotations

import random

from rules_engine import PROFILES, Game, deal_from_seed

#: Small, deterministic search budgets (no wall-clock limits) for the tests.
FAST: dict[str, dict[str, object]] = {
    "expert": {"iterations": 4, "exact_node_cap": 20_000},
    "counter": {"node_cap": 3000, "time_cap_s": 30.0},
    "ismcts": {"iterations": 20},
}


def random_positions(count: int, seed: int) -> list[Game]:
    """Positions reached by random play, sampled along random games."""
    rng = random.Random(seed)
    games = []
    while len(games) < count:
        players = rng.randint(2, 6)
        rules = PROFILES[rng.choice(sorted(PROFILES))]
        game = Game(rules, deal_from_seed(players, rng.randrange(10**9)))
        stop = rng.randrange(200)
        steps = 0
        while not game.finished and steps < stop:
            legal = game.legal_codes()
            game.apply_code(legal[rng.randrange(len(legal))])
            steps += 1
        if not game.finished:
            games.append(game)
    return games
