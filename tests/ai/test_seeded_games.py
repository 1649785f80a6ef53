"""Seeded self-play games of every level, pinned by a hash of their moves.

A refactoring must not change how the AI plays: these games (deal seed 0, agent seed = seat)
hash exactly as before.  A change meant to alter play updates the pins in the same commit,
and says in docs/AI.md what was measured to justify it.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from rules_engine import PROFILES, Game, deal_from_seed, observation, parse_action
from rules_engine.ai import make_agent

#: Options that keep the searching levels quick and deterministic for a unit test.
_OPTIONS: dict[str, dict[str, Any]] = {
    "expert": {"iterations": 12, "exact_node_cap": 20000},
    "ismcts": {"iterations": 30},
}

PINS = [
    ("beginner", "podkidnoy", 2, 52, "8066f111317ed3c3"),
    ("beginner", "perevodnoy", 2, 42, "867be5954eea33bb"),
    ("beginner", "podkidnoy", 3, 107, "c644dbc3fb44a173"),
    ("casual", "podkidnoy", 2, 46, "a2c87a604b4626be"),
    ("casual", "perevodnoy", 2, 42, "4aa18d8843466c82"),
    ("casual", "podkidnoy", 3, 55, "90da4b150f93a4a6"),
    ("counter", "podkidnoy", 2, 46, "208e981e3ca448cf"),
    ("counter", "perevodnoy", 2, 42, "4aa18d8843466c82"),
    ("counter", "podkidnoy", 3, 55, "fa458611b30e3d33"),
    ("ismcts", "podkidnoy", 2, 67, "a967ced71b5d1649"),
    ("ismcts", "perevodnoy", 2, 79, "9f354d181dbe99b8"),
    ("ismcts", "podkidnoy", 3, 115, "087a281a62497ebc"),
    ("expert", "podkidnoy", 2, 38, "b56cda042b49b722"),
    ("expert", "perevodnoy", 2, 45, "b9307077522d0112"),
    ("expert", "podkidnoy", 3, 98, "7428d153e87cf398"),
]


def _self_play(level: str, profile: str, players: int) -> list[str]:
    game = Game(PROFILES[profile], deal_from_seed(players, 0))
    agents = [make_agent(level, seed=s, **_OPTIONS.get(level, {})) for s in range(players)]
    moves: list[str] = []
    while not game.finished:
        move = agents[game.to_act].choose(observation(game, game.to_act))
        moves.append(move)
        game.apply(parse_action(move))
    return moves


@pytest.mark.parametrize(("level", "profile", "players", "count", "digest"), PINS)
def test_a_seeded_game_plays_as_pinned(
    level: str, profile: str, players: int, count: int, digest: str
) -> None:
    moves = _self_play(level, profile, players)
    assert len(moves) == count
    assert hashlib.sha256("\n".join(moves).encode()).hexdigest()[:16] == digest
