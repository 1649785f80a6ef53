"""JSON snapshots: a game survives a restart, and a tampered snapshot is refused."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from rules_engine import (
    PROFILES,
    Game,
    InvalidPositionError,
    Rules,
    deal_from_seed,
    from_snapshot,
    replay,
    snapshot,
)

from .helpers import random_game


@pytest.mark.parametrize("moves", [0, 1, 9, 40, 10_000])
def test_snapshot_json_round_trip(moves: int) -> None:
    game = random_game(moves)
    text = json.dumps(snapshot(game), ensure_ascii=False)
    back = from_snapshot(json.loads(text))
    assert back.state_dict() == game.state_dict()
    assert back.history == game.history
    assert back.legal_codes() == game.legal_codes()
    assert back.version == game.version
    assert back.public_held == game.public_held
    assert back.rules == game.rules and back.deal == game.deal
    if moves == 10_000:
        assert game.finished


def test_snapshot_of_custom_rules_and_six_players() -> None:
    rules = Rules.from_spec({"profile": "classic", "transfer": True})
    game = Game(rules, deal_from_seed(6, 8))
    rng = random.Random(1)
    for _ in range(25):
        game.apply_code(rng.choice(game.legal_codes()))
    back = from_snapshot(json.loads(json.dumps(snapshot(game))))
    assert back.rules == rules
    assert back.state_dict() == game.state_dict()


def test_replay_rebuilds_the_same_game() -> None:
    game = random_game(30)
    again = replay(game.rules, game.deal, game.history_text())
    assert again.state_dict() == game.state_dict()
    assert again.history == game.history


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def tamper(snap: dict[str, Any]) -> None:
        target: Any = snap
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return tamper


def _give_a_card_away(snap: dict[str, Any]) -> None:
    hands = snap["state"]["hands"]
    hands[1].append(hands[0].pop())


def _drop_last_action(snap: dict[str, Any]) -> None:
    snap["actions"].pop()


def _swap_deal_hands(snap: dict[str, Any]) -> None:
    h = snap["deal"]["hands"]
    h[0], h[1] = h[1], h[0]


def _illegal_action(snap: dict[str, Any]) -> None:
    snap["actions"].append("0 attack 6♠ 6♥ 6♦ 6♣ 7♠")


def _delete(key: str) -> Callable[[dict[str, Any]], None]:
    def tamper(snap: dict[str, Any]) -> None:
        del snap[key]

    return tamper


TAMPERINGS: dict[str, Callable[[dict[str, Any]], None]] = {
    "card moved between stored hands": _give_a_card_away,
    "stored round": _set(("state", "round"), 99),
    "stored to_act": _set(("state", "to_act"), 7),
    "stored stock": _set(("state", "stock"), 0),
    "last action dropped": _drop_last_action,
    "illegal action appended": _illegal_action,
    "unknown action text": _set(("actions", 0), "0 cheat"),
    "deal hands swapped": _swap_deal_hands,
    "deal duplicate card": _set(("deal", "stock", 0), "6♠"),
    "deal trump": _set(("deal", "trump"), "X"),
    "deal leader not a number": _set(("deal", "leader"), "x"),
    "deal leader out of range": _set(("deal", "leader"), 9),
    "deal not an object": _set(("deal",), ["x"]),
    "rules profile": _set(("rules",), "kyiv"),
    "rules option": _set(("rules", "first_round_limit"), 7),
    "rules changed": _set(
        ("rules",), {"throw_in": "neighbours", "first_round_limit": 6, "transfer": False}
    ),
    "actions not a list": _set(("actions",), 5),
    "state not an object": _set(("state",), "x"),
    "state hands not a list": _set(("state", "hands"), 5),
    "format": _set(("format",), 2),
    "no deal": _delete("deal"),
    "no actions": _delete("actions"),
}


@pytest.mark.parametrize("name", sorted(TAMPERINGS))
def test_tampered_snapshot_is_refused(name: str) -> None:
    game = random_game(12)
    assert game.rules == PROFILES["perevodnoy"]
    snap = json.loads(json.dumps(snapshot(game)))
    TAMPERINGS[name](snap)
    with pytest.raises(InvalidPositionError):
        from_snapshot(snap)


@pytest.mark.parametrize("bad", [None, [], "snapshot", 5])
def test_not_a_snapshot(bad: object) -> None:
    with pytest.raises(InvalidPositionError):
        from_snapshot(bad)  # type: ignore[arg-type]


def test_snapshot_is_not_modified_by_restoring() -> None:
    snap = snapshot(random_game(20))
    kept = copy.deepcopy(snap)
    from_snapshot(snap)
    assert snap == kept
