"""The live row's JSON (:meth:`GameState.snapshot_json`, :meth:`GameState.meta`) is written
from parts encoded once per game (the deal, the actions so far, the last moves): the text is
exactly what encoding the whole value gives, action after action, after a write that was not
adopted, and for a game of another deal in the same state."""

from __future__ import annotations

import json
import random

from bot.state import GameState, _recent_json
from bot.views import ActionRecord, AutoKind
from rules_engine import PROFILES, Game, deal_from_seed, snapshot

AUTOS: tuple[AutoKind, ...] = (None, "timeout", "autopilot")


def _whole_snapshot(game: Game) -> str:
    return json.dumps(snapshot(game), ensure_ascii=False, separators=(",", ":"))


def _whole_meta(
    g: GameState,
    *,
    deadline: float | None = None,
    remaining: float | None = None,
    recent: tuple[ActionRecord, ...] | None = None,
) -> str:
    return json.dumps(
        {
            "seed": g.seed,
            "started_at": g.started_at,
            "deadline": deadline,
            "remaining": remaining,
            "timeouts": g.timeouts,
            "autopilot": g.autopilot,
            "recent": [_recent_json(r) for r in (g.recent if recent is None else recent)],
            "count_ai_games": g.count_ai_games,
        },
        ensure_ascii=False,
    )


def _state(seed: int) -> GameState:
    rules = list(PROFILES.values())[seed % 3]
    game = Game(rules, deal_from_seed(2 + seed % 4, seed))
    n = game.n
    return GameState(
        seed,
        game,
        seed * 7,
        1.5 * seed,
        timeouts=[seed % 2] * n,
        autopilot=[seed % 3 == 0] * n,
        count_ai_games=bool(seed % 2),
    )


def test_the_json_is_what_encoding_the_whole_value_gives_at_every_action() -> None:
    adopted = given_up = 0
    for seed in range(12):
        g = _state(seed)
        rnd = random.Random(seed)
        assert g.snapshot_json() == _whole_snapshot(g.game)
        assert g.meta() == _whole_meta(g)
        while not g.game.finished:
            game = g.game.clone()
            played = game.apply(rnd.choice(list(game.legal_actions())))
            by = rnd.choice((None, 0)) if g.game.n > 2 else None
            recent = (*g.recent, ActionRecord(played, rnd.choice(AUTOS), by))[-6:]
            assert g.snapshot_json(game) == _whole_snapshot(game)
            assert g.meta(deadline=3.25, recent=recent) == _whole_meta(
                g, deadline=3.25, recent=recent
            )
            if rnd.random() < 0.2:  # the write failed: memory keeps the game before it
                given_up += 1
                assert g.snapshot_json() == _whole_snapshot(g.game)
                continue
            g.game, g.recent = game, recent
            adopted += 1
            assert g.snapshot_json() == _whole_snapshot(g.game)
            assert g.meta(remaining=2.0) == _whole_meta(g, remaining=2.0)
    assert adopted > 500 and given_up > 50


def test_a_game_of_another_deal_is_encoded_as_its_own() -> None:
    g = _state(5)
    for _ in range(9):
        g.game.push(next(iter(g.game.legal_actions())))
    first = g.snapshot_json()
    other = Game(g.game.rules, deal_from_seed(g.game.n, 6))
    for _ in range(9):
        other.push(next(iter(other.legal_actions())))
    assert g.snapshot_json(other) == _whole_snapshot(other) != first
    assert g.snapshot_json() == first
