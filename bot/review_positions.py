"""The table as a reviewed player saw it at each of their decisions (the coach's replay on
the felt, issue 32).

:func:`review_positions` replays a game's stored record through the engine and, just before
each decision asked for, takes **that player's own observation**
(:func:`rules_engine.observation.observation`, the one source of what a seat may know): their
hand, the hand sizes, the table, the stock, the trump.  The seats' roles in the round are
public (:meth:`~rules_engine.game.Game.role`).  No other hand leaves this module.  Pure: no
I/O; an action the rules refuse raises :class:`~rules_engine.ai.review.ReviewError`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from bot.replay import TablePair
from bot.views import ReviewPosition, Role
from rules_engine.actions import parse_action
from rules_engine.ai.review import GameRecord, ReviewError
from rules_engine.cards import parse_card, parse_suit
from rules_engine.errors import DurakError
from rules_engine.game import Game
from rules_engine.observation import observation

__all__ = ["position_of", "review_positions"]


def review_positions(
    record: GameRecord, seat: int, indices: Iterable[int]
) -> tuple[ReviewPosition, ...]:
    """The positions of player ``seat`` just before the actions at ``indices`` (places in
    ``record.actions``), in game order; an index past the record's end is left out."""
    wanted = set(indices)
    game = Game(record.rules, record.deal)
    found: list[ReviewPosition] = []
    for index, text in enumerate(record.actions):
        if not wanted:
            break
        if index in wanted:
            wanted.discard(index)
            roles = tuple(game.role(s) for s in range(game.n))
            found.append(position_of(index, observation(game, seat), roles))
        try:
            game.apply(parse_action(text))
        except DurakError as exc:
            raise ReviewError(f"action {index} {text!r} is illegal: {exc}") from None
    return tuple(found)


def position_of(index: int, obs: Mapping[str, Any], roles: Iterable[str | None]) -> ReviewPosition:
    """A :class:`ReviewPosition` from a seat's observation (the OBS shape of SCENARIOS.md)
    and the seats' public roles."""
    trump_card = obs["trump_card"]
    return ReviewPosition(
        index=index,
        hand=tuple(parse_card(c) for c in obs["hand"]),
        cards=tuple(int(n) for n in obs["hand_sizes"]),
        roles=tuple(None if r is None else Role(r) for r in roles),
        table=tuple(
            TablePair(parse_card(a), None if d is None else parse_card(d)) for a, d in obs["table"]
        ),
        stock=int(obs["stock"]),
        discard=len(obs["discard"]),
        trump=parse_suit(obs["trump"]),
        trump_card=None if trump_card is None else parse_card(trump_card),
        to_act=obs["to_act"],
    )
