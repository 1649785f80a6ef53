"""Perft-style regression: the number of distinct action sequences of length d from fixed
positions (tests/engine/perft.json).  A sequence ending the game before depth d is not counted
(as in chess perft: only nodes at exactly depth d).

The counts were generated once by this engine (``python -m tests.engine.test_perft [DEPTH]``)
and checked by hand at small depths: see the ``hand_check`` notes in perft.json and
``test_hand_checked_counts`` below, which restates those numbers independently of the file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from rules_engine import Game, Rules, deal_from_seed, parse_action
from rules_engine.scenario import load_scenario

PERFT = Path(__file__).with_name("perft.json")


def build(setup: dict[str, Any]) -> Game:
    """A seeded deal (``players``, ``seed``, ``rules``) or a scenario object with its actions."""
    if "seed" in setup:
        return Game(
            Rules.from_spec(setup["rules"]), deal_from_seed(setup["players"], setup["seed"])
        )
    game, actions = load_scenario(setup)
    for text in actions:
        game.apply(parse_action(text))
    return game


def perft(game: Game, depth: int) -> int:
    """The plain recursive definition."""
    if game.finished:
        return 0
    codes = game.legal_codes()
    if depth == 1:
        return len(codes)
    total = 0
    for code in codes:
        child = game.clone()
        child.apply_code(code)
        total += perft(child, depth - 1)
    return total


def perft_all(game: Game, depth: int) -> list[int]:
    """``[perft(game, 1), ..., perft(game, depth)]`` in one walk of the tree."""
    counts = [0] * depth

    def walk(g: Game, d: int) -> None:
        if g.finished:
            return
        codes = g.legal_codes()
        counts[d] += len(codes)
        if d + 1 < depth:
            for code in codes:
                child = g.clone()
                child.apply_code(code)
                walk(child, d + 1)

    walk(game, 0)
    return counts


def _positions() -> list[dict[str, Any]]:
    return json.loads(PERFT.read_text(encoding="utf-8"))["positions"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("pos", _positions(), ids=lambda p: p["name"])
def test_perft_counts(pos: dict[str, Any]) -> None:
    game = build(pos["setup"])
    before = game.state_dict()
    assert perft_all(game, len(pos["counts"])) == pos["counts"]
    assert game.state_dict() == before  # searching on clones leaves the root untouched


def test_enough_positions() -> None:
    positions = _positions()
    assert len(positions) >= 5
    assert all(len(p["counts"]) >= 4 for p in positions)
    seeded = [p["setup"] for p in positions if "seed" in p["setup"]]
    assert {s["rules"] for s in seeded if isinstance(s["rules"], str)} == {
        "podkidnoy",
        "perevodnoy",
        "classic",
    }
    assert {s["players"] for s in seeded} >= {2, 3, 4, 6}
    assert sum("hands" in p["setup"] for p in positions) >= 2
    # the one-walk counter agrees with the plain recursive definition
    game = build(positions[0]["setup"])
    assert perft_all(game, 4) == [perft(game, d) for d in range(1, 5)]


def test_hand_checked_counts() -> None:
    """The counts reasoned out by hand (the reasoning is in perft.json's notes)."""
    by_name = {p["name"]: p for p in _positions()}
    opening = build(by_name["2p-podkidnoy-seed1"]["setup"])
    assert [perft(opening, d) for d in (1, 2)] == [10, 58]
    transfer = build(by_name["perevodnoy-transfer-available"]["setup"])
    assert [perft(transfer, d) for d in (1, 2, 3)] == [3, 6, 28]
    take = build(by_name["take-then-throw-in"]["setup"])
    assert [perft(take, d) for d in (1, 2, 3)] == [4, 8, 21]


def main() -> None:  # regenerate: python -m tests.engine.test_perft [DEPTH]
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    data = json.loads(PERFT.read_text(encoding="utf-8"))
    for pos in data["positions"]:
        pos["counts"] = perft_all(build(pos["setup"]), depth)
        print(pos["name"], pos["counts"])
    PERFT.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
