"""``beginner``: plays legal cards with a preference for cheap ones, sometimes carelessly, but
never absurdly: it never takes when a non-trump card beats every uncovered attack, and never
throws a trump into a take."""

from __future__ import annotations

from typing import Any

from rules_engine.actions import ATTACK, DEFEND, PASS, TAKE, TRANSFER
from rules_engine.ai.base import Agent, Observation
from rules_engine.ai.parsed import ParsedObservation
from rules_engine.cards import RANK_OF, SUIT_MASK, beaters_table

__all__ = ["BeginnerAgent", "card_cost"]


def card_cost(card_index: int, trump: int) -> int:
    """Rough value of a card: rank (6 = 0, so a 2 of the 52-card pack is -4), plus 13 for a
    trump (above every plain card)."""
    return RANK_OF[card_index] + (13 if card_index & 3 == trump else 0)


class BeginnerAgent(Agent):
    def __init__(self, seed: int | None = None, careless: float = 0.6, **_: Any) -> None:
        super().__init__(seed)
        self.careless = careless

    def choose(self, obs: Observation) -> str:
        view = ParsedObservation(obs)
        legal = view.legal
        if not legal:
            raise ValueError("no legal action to choose from")
        if len(legal) == 1:
            return view.legal_text[0]
        trump = view.trump
        if self.rng.random() < self.careless:
            choices = [i for i, c in enumerate(legal) if not self._absurd(view, c)]
            return view.legal_text[self.rng.choice(choices or list(range(len(legal))))]
        best = min(range(len(legal)), key=lambda i: (self._cost(legal[i], trump), i))
        return view.legal_text[best]

    @staticmethod
    def _absurd(view: ParsedObservation, code: int) -> bool:
        kind = code & 7
        if kind == TAKE:  # take although a plain card beats every uncovered attack
            plain = view.hand & ~SUIT_MASK[view.trump]
            beaters = _plain_beaters(view.trump)
            u = view.uncovered
            while u:
                low = u & -u
                u ^= low
                a = low.bit_length() - 1
                if not plain & beaters[a]:
                    return False
            return True
        if kind == ATTACK and view.taking:  # a trump thrown into a take
            return bool((code >> 3) & SUIT_MASK[view.trump])
        return False

    @staticmethod
    def _cost(code: int, trump: int) -> float:
        kind = code & 7
        if kind in (ATTACK, TRANSFER):
            mask = code >> 3
            costs = []
            while mask:
                low = mask & -mask
                mask ^= low
                costs.append(card_cost(low.bit_length() - 1, trump))
            return min(costs) - 0.5 * (len(costs) - 1)
        if kind == DEFEND:
            return card_cost(code >> 9, trump)
        if kind == PASS:
            return 8.0
        return 30.0  # take: only when nothing else is cheaper


def _plain_beaters(trump: int) -> list[int]:
    t = SUIT_MASK[trump]
    return [b & ~t for b in beaters_table(trump)]
