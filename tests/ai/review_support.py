"""Games to review in the tests: finished records of seeded games, and scenario files."""

from __future__ import annotations

from typing import Any

from rules_engine import PROFILES, Game, deal_from_seed, observation, parse_action
from rules_engine.ai import make_agent
from rules_engine.ai.review import GameRecord
from rules_engine.cards import CARD_TEXT, SUIT_SYMBOLS, iter_bits
from rules_engine.deal import Deal
from rules_engine.rules import Rules


def play_record(
    deal: Deal, rules: Rules, levels: tuple[str, ...], prefix: tuple[str, ...] = ()
) -> GameRecord:
    """The record of ``deal`` played from ``prefix`` to the end by agents of ``levels`` (one
    per seat, seeded by seat)."""
    game = Game(rules, deal)
    actions = list(prefix)
    for text in prefix:
        game.apply(parse_action(text))
    agents = [make_agent(level, seed=s) for s, level in enumerate(levels)]
    while not game.finished:
        seat = game.player_to_act  # a partner, for a seat handed over in a team game
        assert seat is not None
        text = agents[seat].choose(observation(game, seat))
        actions.append(text)
        game.apply(parse_action(text))
    return GameRecord(rules, deal, tuple(actions))


def seeded_record(
    seed: int,
    players: int = 2,
    profile: str = "podkidnoy",
    level: str = "beginner",
    rules: Rules | None = None,
) -> GameRecord:
    """A finished game of ``level`` players from ``deal_from_seed(players, seed)``, under
    ``rules`` (default: the ``profile``)."""
    rules = PROFILES[profile] if rules is None else rules
    return play_record(deal_from_seed(players, seed, deck=rules.deck), rules, (level,) * players)


def scenario_of(record: GameRecord, actions: int | None = None) -> dict[str, Any]:
    """The record as a scenario file (docs/SCENARIOS.md), with its first ``actions`` actions
    (all by default)."""
    deal = record.deal
    return {
        "rules": record.rules.to_dict(),
        "hands": [[CARD_TEXT[c] for c in iter_bits(h)] for h in deal.hands],
        "stock": [CARD_TEXT[c] for c in deal.stock],
        "trump": SUIT_SYMBOLS[deal.trump],
        "leader": deal.leader,
        "first_round": deal.first_round,
        "actions": list(record.actions[:actions]),
    }
