"""Per-seat observations (RULES.md §8): exactly what one seat may know, in the OBS shape of
SCENARIOS.md.  Nothing else about other hands leaves the engine."""

from __future__ import annotations

from typing import Any

from rules_engine.cards import CARD_TEXT, SUIT_SYMBOLS, mask_text
from rules_engine.game import Game

__all__ = ["observation"]


def observation(game: Game, seat: int) -> dict[str, Any]:
    """What the player of seat ``seat`` may know now.

    Beyond the OBS keys of SCENARIOS.md, ``known`` lists per seat the cards of that hand that
    everyone has seen (shown at the deal, picked up in a take, the drawn trump card, a trump
    shown to transfer); they are public by RULES.md §8, derivable from ``history``, and given
    here for convenience.

    ``seat`` names a player (the player who sat down at that seat): ``hand`` is that player's
    own hand, never a partner's (RULES.md §10.3).  In a team game that player may act for a
    seat handed over by a partner: ``legal`` lists the actions of the seat to act whenever
    ``played_by[to_act]`` is this player, written with that seat's number.  So the player to
    ask is ``game.player_to_act``, not always ``game.to_act``.  ``played_by``, ``round_shown``
    (the trumps shown this round, §10.2; ``shown`` keeps its meaning: the cards shown at the
    deal) and ``losers`` are the state keys of SCENARIOS.md "Options".
    """
    if not 0 <= seat < game.n:
        raise ValueError(f"there is no seat {seat!r} in this game")
    fin = game.finished
    to_act = game.to_act
    return {
        "seat": seat,
        "rules": game.rules.to_dict(),
        "hand": mask_text(game.hands[seat]),
        "hand_sizes": [h.bit_count() for h in game.hands],
        "trump": SUIT_SYMBOLS[game.trump],
        "trump_card": CARD_TEXT[game.stock[0]] if game.stock else None,
        "stock": len(game.stock),
        "discard": mask_text(game.discard),
        "table": [] if fin else [list(p) for p in game.table()],
        "out": [s for s in range(game.n) if game.out >> s & 1],
        "leader": None if fin else game.leader,
        "attacker": None if fin else game.attacker,
        "defender": None if fin else game.defender,
        "limit": None if fin else game.limit,
        "taking": False if fin else game.taking,
        "first_round": game.first_round,
        "round": game.round,
        "to_act": to_act,
        "shown": [CARD_TEXT[c] for c in game.shown],
        "known": [mask_text(game.known_cards(s)) for s in range(game.n)],
        "history": game.history_text(),
        "legal": game.legal_text() if game.player_to_act == seat else [],
        "finished": fin,
        "loser": game.loser,
        "draw": game.draw,
        "played_by": list(game.played_by),
        "round_shown": [CARD_TEXT[c] for c in game.round_shown],
        "losers": list(game.losers),
    }
