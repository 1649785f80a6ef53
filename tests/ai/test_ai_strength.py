"""Small, deterministic ladder checks (every agent is seeded and no wall clock is involved);
the full measured ladder is in docs/AI.md."""

from __future__ import annotations

from rules_engine import PROFILES
from rules_engine.tournament import play_game


def _loss_rate(a: str, b: str, deals: int, rules: str, opts_a: dict[str, object]) -> float:
    lost = decided = 0
    for i in range(deals):
        for rot in range(2):
            r = play_game(PROFILES[rules], 2, 5000 + i, rot, a, b, opts_a, {})
            assert r.error is None
            if r.loser_side is not None:
                decided += 1
                lost += r.loser_side == "a"
    return lost / decided


def test_casual_beats_beginner() -> None:
    assert _loss_rate("casual", "beginner", 40, "podkidnoy", {}) < 0.35


def test_counter_beats_casual() -> None:
    deterministic = {"time_cap_s": 30.0}
    assert _loss_rate("counter", "casual", 20, "perevodnoy", deterministic) < 0.5
