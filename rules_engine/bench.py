"""Random-play benchmark: ``python -m rules_engine.bench --players P --games N --seed S``.

Plays N complete games from seeded random deals, each move chosen uniformly at random among
exactly the legal actions the scenario runner lists, and prints ``games/s``, ``moves/s`` and
``avg_moves`` on the last line.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from rules_engine.deal import deal_from_seed
from rules_engine.game import Game
from rules_engine.rules import PROFILES, Rules

__all__ = ["main", "play_random_game"]


MAX_MOVES = 10_000  # RULES.md has no end for a cycling game; random play never gets near this


def play_random_game(rules: Rules, players: int, seed: int, rng: random.Random) -> int:
    """Play one uniformly random game (at most ``MAX_MOVES``); returns the number of moves."""
    game = Game(rules, deal_from_seed(players, seed))
    rand = rng.random
    apply_code = game.apply_code
    legal_codes = game.legal_codes
    moves = 0
    while not game.finished and moves < MAX_MOVES:
        legal = legal_codes()
        apply_code(legal[int(rand() * len(legal))])
        moves += 1
    return moves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rules_engine.bench", description=__doc__)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", default="podkidnoy", choices=sorted(PROFILES))
    args = parser.parse_args(argv)
    rules = PROFILES[args.rules]
    rng = random.Random(args.seed)
    total_moves = 0
    start = time.perf_counter()
    for i in range(args.games):
        total_moves += play_random_game(rules, args.players, args.seed * 1_000_003 + i, rng)
    elapsed = time.perf_counter() - start
    print(
        f"rules={args.rules} players={args.players} games={args.games} seconds={elapsed:.3f}",
    )
    print(
        f"games/s={args.games / elapsed:.0f} moves/s={total_moves / elapsed:.0f} "
        f"avg_moves={total_moves / args.games:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
