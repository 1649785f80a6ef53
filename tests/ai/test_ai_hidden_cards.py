"""Reshuffling the cards a seat cannot see never changes that seat's decision (same seed):
every level decides from the seat's observation alone (RULES.md §8)."""

from __future__ import annotations

import random

import pytest

from rules_engine import Game, observation
from rules_engine.ai import LEVELS, make_agent
from rules_engine.cards import iter_bits

from .ai_support import FAST, random_positions


def reshuffle_hidden(game: Game, seat: int, rng: random.Random) -> Game | None:
    """A copy of ``game`` in which the cards ``seat`` cannot see (other hands' unknown cards,
    the stock below the face-up trump card) are dealt anew; ``None`` if nothing is hidden."""
    other = game.clone()
    slots: list[tuple[str, int]] = []
    hidden: list[int] = []
    for s in range(game.n):
        if s == seat:
            continue
        for c in iter_bits(game.hands[s] & ~game.public_held):
            slots.append(("hand", s))
            hidden.append(c)
    for i in range(1, len(game.stock)):  # stock[0] is the face-up trump card
        slots.append(("stock", i))
        hidden.append(game.stock[i])
    if len(hidden) < 2:
        return None
    base_hands = [h if s == seat else h & game.public_held for s, h in enumerate(game.hands)]
    for _ in range(20):
        shuffled = hidden[:]
        rng.shuffle(shuffled)
        other.hands = base_hands[:]
        for (where, idx), card in zip(slots, shuffled, strict=True):
            if where == "hand":
                other.hands[idx] |= 1 << card
            else:
                other.stock[idx] = card
        if other.hands != game.hands or other.stock != game.stock:
            break
    else:
        return None
    # The cached legal actions stay right: they depend on the acting seat's own hand and on
    # hand sizes only, and neither changed.
    return other


@pytest.mark.parametrize("level", LEVELS)
def test_hidden_cards_never_change_a_decision(level: str) -> None:
    rng = random.Random(11)
    checked = 0
    for i, game in enumerate(random_positions(60 if level == "expert" else 200, seed=99)):
        seat = game.to_act
        assert seat is not None
        twin = reshuffle_hidden(game, seat, rng)
        if twin is None:
            continue
        assert twin.hands != game.hands or twin.stock != game.stock
        obs_a, obs_b = observation(game, seat), observation(twin, seat)
        assert obs_a == obs_b
        a = make_agent(level, seed=i, **FAST.get(level, {})).choose(obs_a)
        b = make_agent(level, seed=i, **FAST.get(level, {})).choose(obs_b)
        assert a == b
        checked += 1
    assert checked > 20
