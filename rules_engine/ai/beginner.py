"""``beginner``: plays legal cards with a light preference for cheap ones, sometimes carelessly,
but never absurdly (it never takes when a non-trump card beats the attack)."""

from __future__ import annotations

from rules_engine.actions import parse_action
from rules_engine.ai.base import Agent, Observation, register_level
from rules_engine.cards import parse_suit

__all__ = ["BeginnerAgent"]


def card_cost(card_index: int, trump: int) -> int:
    """Rough value of a card: rank, plus 9 for a trump."""
    rank, suit = card_index >> 2, card_index & 3
    return rank + (9 if suit == trump else 0)


class BeginnerAgent(Agent):
    level = "beginner"
    careless = 0.25

    def choose(self, obs: Observation) -> str:
        legal: list[str] = list(obs["legal"])
        if not legal:
            raise ValueError("no legal action to choose from")
        trump = int(parse_suit(obs["trump"]))
        scored = [(self._cost(text, trump), i, text) for i, text in enumerate(legal)]
        cheap_defence = any(
            parse_action(t).kind == "defend" and parse_action(t).cards[1].suit != trump
            for t in legal
        )
        if self.rng.random() < self.careless:
            choices = [t for t in legal if not (cheap_defence and t.endswith(" take"))]
            return self.rng.choice(choices)
        scored.sort()
        return scored[0][2]

    @staticmethod
    def _cost(text: str, trump: int) -> float:
        action = parse_action(text)
        kind = action.kind
        if kind in ("attack", "transfer"):
            return min(card_cost(c.index, trump) for c in action.cards) - 0.5 * (
                len(action.cards) - 1
            )
        if kind == "defend":
            return card_cost(action.cards[1].index, trump)
        if kind == "pass":
            return 8.0
        return 30.0  # take: only when nothing else is cheaper


register_level("beginner", BeginnerAgent)
