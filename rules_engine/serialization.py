"""JSON-safe snapshots of a game, and back.

A snapshot holds the rules, the seats' count, the starting position (seed and the dealt cards),
the action log, and the resulting public+private state.  Restoring replays the log from the
starting position and checks the result against the stored state, so a corrupted or tampered
snapshot is refused instead of silently producing a different game.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rules_engine.actions import parse_action
from rules_engine.deal import Deal
from rules_engine.errors import DurakError, InvalidPositionError
from rules_engine.game import Game
from rules_engine.rules import Rules

__all__ = ["SNAPSHOT_VERSION", "from_snapshot", "replay", "snapshot"]

SNAPSHOT_VERSION = 1


def snapshot(game: Game) -> dict[str, Any]:
    """A JSON-safe record from which :func:`from_snapshot` rebuilds an identical game."""
    return {
        "format": SNAPSHOT_VERSION,
        "rules": game.rules.to_dict(),
        "players": game.n,
        "deal": _deal_dict(game.deal),
        "actions": game.history_text(),
        "state": game.state_dict(),
    }


@lru_cache(maxsize=4096)
def _deal_dict(deal: Deal) -> dict[str, Any]:
    """``deal.to_dict()``, cached: a game's deal never changes, and the bot snapshots after
    every action.  The shared dict must not be mutated."""
    return deal.to_dict()


def replay(rules: Rules, deal: Deal, actions: list[str]) -> Game:
    """Play ``actions`` (canonical text) from ``deal``; raises if any is illegal."""
    game = Game(rules, deal)
    for text in actions:
        game.push(parse_action(text))
    return game


def from_snapshot(data: dict[str, Any]) -> Game:
    """Rebuild the game of :func:`snapshot`; raises :class:`InvalidPositionError` if the
    record is malformed or its log does not lead to its stored state."""
    if not isinstance(data, dict) or data.get("format") != SNAPSHOT_VERSION:
        raise InvalidPositionError(f"not a game snapshot of format {SNAPSHOT_VERSION}")
    try:
        rules = Rules.from_spec(data["rules"])
        deal = Deal.from_dict(data["deal"])
        game = replay(rules, deal, list(data["actions"]))
    except KeyError as exc:
        raise InvalidPositionError(f"snapshot lacks {exc}") from None
    except DurakError as exc:
        raise InvalidPositionError(f"snapshot does not replay: {exc}") from None
    except (TypeError, ValueError) as exc:  # e.g. a leader "x" or actions 5
        raise InvalidPositionError(f"malformed snapshot: {exc}") from None
    stored = data.get("state")
    try:
        matches = stored is None or _norm(stored) == _norm(game.state_dict(), like=stored)
    except (TypeError, ValueError):  # a stored state that is not a state at all
        matches = False
    if not matches:
        raise InvalidPositionError("snapshot state does not match its action log")
    return game


#: State keys added with RULES.md §10: a snapshot stored before them lacks them.
_LATER_KEYS = ("played_by", "shown", "losers")


def _norm(state: dict[str, Any], like: dict[str, Any] | None = None) -> dict[str, Any]:
    """``state`` in a comparable form; with ``like`` (a stored state), without the keys added
    since that state was stored."""
    out = dict(state)
    if like is not None:
        for key in _LATER_KEYS:
            if key not in like:
                out.pop(key, None)
    for key in ("discard", "out"):
        out[key] = sorted(out.get(key) or [])
    out["hands"] = [sorted(h) for h in out.get("hands") or []]
    return out
