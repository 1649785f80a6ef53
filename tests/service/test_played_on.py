"""A live game another process moved on is played on from the copy held here
(:func:`bot.service.lifecycle.played_on`): the same position as rebuilding it from the row,
and nothing when the row's log does not continue the copy's."""

from __future__ import annotations

import json
import random
from typing import Any

from bot.service.lifecycle import played_on
from bot.storage import LiveRecord
from rules_engine import Game, Rules, deal_from_seed, from_snapshot, snapshot


def _played(moves: int, seed: int = 3) -> Game:
    game = Game(Rules(), deal_from_seed(3, seed))
    rnd = random.Random(seed)
    for _ in range(moves):
        game.push(rnd.choice(list(game.legal_actions())))
    return game


def _row(game: Game) -> LiveRecord:
    stored = json.loads(json.dumps(snapshot(game)))
    return LiveRecord(1, 1, 1, stored, {}, game.version, 1, 7)


def test_the_copy_played_on_is_the_position_the_row_rebuilds() -> None:
    later = _played(12)
    held = _played(9)  # the same game, three actions behind
    assert held.history_text() == later.history_text()[:9]
    game = played_on(held, _row(later))
    assert game is not None and game is not held
    assert game.state_dict() == from_snapshot(_row(later).snapshot).state_dict()
    assert game.history_text() == later.history_text()
    assert held.version == 9  # the copy held is left as it was


def test_a_row_that_does_not_continue_the_copy_is_rebuilt_whole() -> None:
    held = _played(9)
    assert played_on(held, _row(_played(12, seed=4))) is None  # another deal's log
    assert played_on(_played(12), _row(held)) is None  # the row is behind the copy
    damaged = _row(_played(12))
    damaged.snapshot["actions"][-1] = "9 nonsense"
    assert played_on(held, damaged) is None


def test_the_last_moves_known_are_kept_and_only_the_new_ones_read() -> None:
    from bot.state import ActionRecord, LiveMeta, _recent_json

    game = _played(12)
    records = tuple(ActionRecord(p, None) for p in _records(game))
    meta = {"recent": [_recent_json(r) for r in records[-8:]]}
    whole = LiveMeta.parse(meta, 3, 0.0).recent
    assert whole == records[-8:]
    # a copy that knew the last moves three actions ago (seven of them)
    known = records[-11:-3][-7:]
    assert LiveMeta.parse(meta, 3, 0.0, known=known, added=3).recent == whole
    # too few known: read whole
    assert LiveMeta.parse(meta, 3, 0.0, known=(), added=3).recent == whole


def _records(game: Game) -> list[Any]:
    """What each action of ``game`` did (the engine's records), replayed."""
    replay = Game(game.rules, game.deal)
    return [replay.apply(action) for action in game.log()]
