"""Shared helpers of the AI tests."""

from __future__ import annotations

import json
import random
import subprocess
import sys

from rules_engine import PROFILES, Game, deal_from_seed, observation, parse_action
from rules_engine.ai import make_agent

#: Small, deterministic search budgets (no wall-clock limits) for the tests.
FAST: dict[str, dict[str, object]] = {
    "expert": {"iterations": 4, "exact_node_cap": 20_000},
    "counter": {"node_cap": 3000, "time_cap_s": 30.0},
    "ismcts": {"iterations": 20},
}


def play_to_end(game: Game, level: str, max_moves: int) -> None:
    """Play ``game`` to its end with an agent of ``level`` (:data:`FAST` budgets) for every
    player: each choice must be one of the legal actions, and the game must end in fewer than
    ``max_moves`` moves."""
    agents = [make_agent(level, seed=s, **FAST.get(level, {})) for s in range(game.n)]
    moves = 0
    while not game.finished:
        player = game.player_to_act
        assert player is not None
        obs = observation(game, player)
        text = agents[player].choose(obs)
        assert text in obs["legal"], (level, text, obs["legal"])
        game.apply(parse_action(text))
        moves += 1
        assert moves < max_moves


def random_positions(
    count: int, seed: int, players: tuple[int, int] = (2, 6), max_moves: int = 200
) -> list[Game]:
    """Unfinished positions reached by random play (fewer than ``max_moves`` random moves into
    a game of a random profile, between ``players[0]`` and ``players[1]`` players)."""
    rng = random.Random(seed)
    games = []
    while len(games) < count:
        seats = rng.randint(*players)
        rules = PROFILES[rng.choice(sorted(PROFILES))]
        game = Game(rules, deal_from_seed(seats, rng.randrange(10**9)))
        stop = rng.randrange(max_moves)
        steps = 0
        while not game.finished and steps < stop:
            legal = game.legal_codes()
            game.apply_code(legal[rng.randrange(len(legal))])
            steps += 1
        if not game.finished:
            games.append(game)
    return games


def agent_cli_answers_legally(*args: str) -> None:
    """``python -m rules_engine.agent ARGS`` answers a bare SCENARIOS.md observation (no
    engine-only keys: known cards come from the history) with a legal action."""
    game = Game(PROFILES["podkidnoy"], deal_from_seed(2, 8))
    seat = game.to_act
    assert seat is not None
    obs = observation(game, seat)
    for key in ("known", "to_act", "round", "finished", "loser", "draw"):
        obs.pop(key)
    stdin = json.dumps({"observation": obs}, ensure_ascii=False) + "\n" + '{"quit": true}\n'
    proc = subprocess.run(
        [sys.executable, "-m", "rules_engine.agent", *args],
        input=stdin.encode(),
        capture_output=True,
        timeout=60,
        check=True,
    )
    reply = json.loads(proc.stdout.decode().splitlines()[0])
    assert reply["action"] in obs["legal"]
