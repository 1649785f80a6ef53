"""Every level only ever plays legal actions, over random positions of every profile and
2-6 players (tiny search budgets keep this fast)."""

from __future__ import annotations

import pytest

from rules_engine import PROFILES, Game, deal_from_seed, observation
from rules_engine.ai import LEVELS, make_agent

from .ai_support import FAST, play_to_end, random_positions


@pytest.mark.parametrize("level", ["beginner", "casual", "counter", "expert"])
def test_levels_registered(level: str) -> None:
    assert level in LEVELS


@pytest.mark.parametrize("level", LEVELS)
def test_only_legal_actions_on_random_positions(level: str) -> None:
    count = 40 if level == "expert" else 300
    for i, game in enumerate(random_positions(count, seed=list(LEVELS).index(level))):
        agent = make_agent(level, seed=i, **FAST.get(level, {}))
        seat = game.to_act
        assert seat is not None
        obs = observation(game, seat)
        choice = agent.choose(obs)
        assert choice in obs["legal"], (level, choice, obs)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("rules", sorted(PROFILES))
def test_whole_games_stay_legal(level: str, rules: str) -> None:
    """Every seat played by ``level`` from the deal to the end, 2-6 players."""
    players_list = [2, 3] if level == "expert" else [2, 3, 4, 5, 6]
    for players in players_list:
        play_to_end(Game(PROFILES[rules], deal_from_seed(players, 1000 + players)), level, 2000)


def test_long_games_stop_transferring_and_vary_leads() -> None:
    """Deterministic play can circle for ever; from round 60 the policy breaks circles."""
    from rules_engine.ai.policy import LONG_GAME_ROUNDS, casual_code

    transfers_seen = leads = 0
    for game in random_positions(400, seed=31):
        legal = game.legal_codes()
        if any(c & 7 == 2 for c in legal):
            game.round = LONG_GAME_ROUNDS + 1
            assert casual_code(game, legal) & 7 != 2
            transfers_seen += 1
        elif not game.table_attacks and len(legal) > 2:
            choices = set()
            for r in range(LONG_GAME_ROUNDS + 1, LONG_GAME_ROUNDS + 40):
                game.round = r
                choices.add(casual_code(game, legal))
            assert len(choices) > 1
            leads += 1
    assert transfers_seen > 3 and leads > 3
