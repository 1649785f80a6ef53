"""Seeded games played to the end by a simple deterministic policy, for the fair-play tests."""

from __future__ import annotations

import random
from dataclasses import dataclass

from rules_engine import PROFILES, Deal, Game, Rules, deal_from_seed


@dataclass(frozen=True)
class Played:
    """A finished live game, its inputs, and the round in which each seat went out (live)."""

    rules: Rules
    deal: Deal
    game: Game
    actions: list[str]
    exit_rounds: tuple[int | None, ...]


def play(players: int, seed: int, profile: str | Rules = "podkidnoy", greed: float = 0.8) -> Played:
    """Play a seeded deal: the first legal action, or with probability ``1 - greed`` a random
    one (seeded, so the game is the same every run).  ``profile``: a profile's name or rules."""
    rules = profile if isinstance(profile, Rules) else PROFILES[profile]
    deal = deal_from_seed(players, seed)
    game = Game(rules, deal)
    rng = random.Random(seed)
    exits: list[int | None] = [None] * players
    while not game.finished:
        assert len(game.history) < 3000, "the policy looped"
        legal = list(game.legal_actions())
        action = legal[0] if rng.random() < greed else rng.choice(legal)
        played_in = game.round
        game.apply(action)
        for seat in game.state_dict()["out"]:  # type: ignore[attr-defined]
            if exits[seat] is None:
                exits[seat] = played_in
    return Played(rules, deal, game, game.history_text(), tuple(exits))
