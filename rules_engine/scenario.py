"""Scenario runner: ``python -m rules_engine.scenario FILE…`` (the contract of SCENARIOS.md).

One file prints one indented JSON trace; several print one compact trace per line, in order.
Exit 2 with a one-line message on stderr for an invalid file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from rules_engine.actions import parse_action
from rules_engine.cards import CARD_TEXT, SUIT_OF, card_index, parse_suit
from rules_engine.deal import Deal
from rules_engine.errors import DurakError, IllegalActionError, InvalidPositionError
from rules_engine.game import Game
from rules_engine.rules import Rules

__all__ = ["ScenarioError", "load_scenario", "main", "run_scenario"]


class ScenarioError(InvalidPositionError):
    """An invalid scenario file."""


def _cards(value: object, where: str) -> list[int]:
    if not isinstance(value, list):
        raise ScenarioError(f"{where} must be a list of cards")
    return [card_index(c) for c in value]


def load_scenario(data: object) -> tuple[Game, list[str]]:
    """Build the position of a scenario object; returns the game and its action texts."""
    if not isinstance(data, dict):
        raise ScenarioError("a scenario must be a JSON object")
    rules = Rules.from_spec(data.get("rules", "podkidnoy"))
    hands_raw = data.get("hands")
    if not isinstance(hands_raw, list):
        raise ScenarioError("'hands' must be a list of lists of cards")
    if not 2 <= len(hands_raw) <= 6:
        raise ScenarioError(f"a scenario has 2 to 6 seats, not {len(hands_raw)}")
    rules.check_players(len(hands_raw))
    hands = []
    seen: set[int] = set()

    def add(idx: int, where: str) -> None:
        if idx in seen:
            raise ScenarioError(f"duplicate card {CARD_TEXT[idx]} ({where})")
        seen.add(idx)

    for seat, raw in enumerate(hands_raw):
        mask = 0
        for idx in _cards(raw, f"hands[{seat}]"):
            add(idx, f"hands[{seat}]")
            mask |= 1 << idx
        hands.append(mask)
    stock = _cards(data.get("stock", []), "stock")
    for idx in stock:
        add(idx, "stock")
    discard = 0
    for idx in _cards(data.get("discard", []), "discard"):
        add(idx, "discard")
        discard |= 1 << idx
    trump_text = data.get("trump")
    if trump_text is None:
        if not stock:
            raise ScenarioError("'trump' is required when the stock is empty")
        trump = SUIT_OF[stock[-1]]
    else:
        if not isinstance(trump_text, str):
            raise ScenarioError(f"bad trump {trump_text!r}")
        trump = int(parse_suit(trump_text))
        if stock and SUIT_OF[stock[-1]] != trump:
            raise ScenarioError(f"trump {trump_text} differs from the suit of the last stock card")
    leader = data.get("leader", 0)
    if not isinstance(leader, int) or isinstance(leader, bool):
        raise ScenarioError(f"bad leader {leader!r}")
    first_round = data.get("first_round", True)
    if not isinstance(first_round, bool):
        raise ScenarioError(f"'first_round' must be true or false, not {first_round!r}")
    actions = data.get("actions", [])
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise ScenarioError("'actions' must be a list of strings")
    deal = Deal(
        hands=tuple(hands),
        stock=tuple(stock),
        trump=trump,
        leader=leader,
        first_round=first_round,
        discard=discard,
        deck=rules.deck,
    )
    return Game(rules, deal), actions


def run_scenario(data: object) -> dict[str, Any]:
    """Play a scenario and return its trace (SCENARIOS.md "Output")."""
    game, actions = load_scenario(data)
    steps: list[dict[str, Any]] = []
    for text in actions:
        step: dict[str, Any] = {"action": text}
        try:
            game.apply(parse_action(text))
            step["ok"] = True
        except IllegalActionError as exc:
            step["ok"] = False
            step["error"] = str(exc.reason)
        except DurakError as exc:  # unparsable action text: reported, play goes on
            step["ok"] = False
            step["error"] = str(exc)
        steps.append(step)
    return {"steps": steps, "state": game.state_dict(), "legal": game.legal_text()}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m rules_engine.scenario FILE.json [FILE.json …]", file=sys.stderr)
        return 2
    traces = []
    for name in args:
        try:
            text = Path(name).read_text(encoding="utf-8")
        except OSError as exc:
            print(f"{name}: cannot read: {exc.strerror}", file=sys.stderr)
            return 2
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            print(f"{name}: bad JSON: {exc.msg} at line {exc.lineno}", file=sys.stderr)
            return 2
        try:
            traces.append(run_scenario(data))
        except DurakError as exc:
            print(f"{name}: invalid scenario: {exc}", file=sys.stderr)
            return 2
    if len(traces) == 1:
        print(json.dumps(traces[0], ensure_ascii=False, indent=1))
    else:
        for trace in traces:
            print(json.dumps(trace, ensure_ascii=False, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
