"""Durak rules engine: pure Python, no I/O.  RULES.md played exactly.

Typical use::

    from rules_engine import Game, PROFILES, deal_from_seed, observation
    game = Game(PROFILES["podkidnoy"], deal_from_seed(players=3, seed=42))
    for action in game.legal_actions(): ...
    played = game.apply(action)  # what it did: round end, who went out, ...
"""

from rules_engine.actions import Action, ActionKind, parse_action
from rules_engine.cards import ALL_CARDS, Card, Rank, Suit, parse_card, parse_suit
from rules_engine.deal import Deal, deal_from_seed, next_dealer_and_leader
from rules_engine.errors import (
    DurakError,
    IllegalActionError,
    InvalidNotationError,
    InvalidPositionError,
    InvalidRulesError,
)
from rules_engine.game import Game, LegalActions
from rules_engine.observation import observation
from rules_engine.phase import Phase
from rules_engine.played import Played, RoundEnd
from rules_engine.rules import PROFILES, Rules
from rules_engine.serialization import from_snapshot, replay, snapshot

__all__ = [
    "ALL_CARDS",
    "PROFILES",
    "Action",
    "ActionKind",
    "Card",
    "Deal",
    "DurakError",
    "Game",
    "IllegalActionError",
    "InvalidNotationError",
    "InvalidPositionError",
    "InvalidRulesError",
    "LegalActions",
    "Phase",
    "Played",
    "Rank",
    "RoundEnd",
    "Rules",
    "Suit",
    "deal_from_seed",
    "from_snapshot",
    "next_dealer_and_leader",
    "observation",
    "parse_action",
    "parse_card",
    "parse_suit",
    "replay",
    "snapshot",
]
