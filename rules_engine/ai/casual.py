"""``casual``: sound heuristics (see :mod:`rules_engine.ai.policy`): shed low cards, save trumps,
take rather than burn a high trump early, throw in only cheap cards, attack with pairs, transfer
cheaply, and lead what the defender cannot beat when they are about to go out."""

from __future__ import annotations

from typing import Any

from rules_engine.ai.base import Agent, Observation
from rules_engine.ai.parsed import ParsedObservation
from rules_engine.ai.policy import DEFAULT, Params, casual_code, with_options
from rules_engine.ai.position import build_game, deterministic_fill

__all__ = ["CasualAgent"]


class CasualAgent(Agent):
    def __init__(
        self, seed: int | None = None, params: Params | None = None, **options: Any
    ) -> None:
        super().__init__(seed)
        self.params = with_options(params or DEFAULT, options)

    def choose(self, obs: Observation) -> str:
        view = ParsedObservation(obs)
        if not view.legal:
            raise ValueError("no legal action to choose from")
        if len(view.legal) == 1:
            return view.legal_text[0]
        hands, stock = deterministic_fill(view)
        game = build_game(view, hands, stock)
        code = casual_code(game, view.legal, self.params)
        return view.text_of(code)
