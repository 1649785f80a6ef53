"""Help for players: why each card of a hand can or cannot be played now, and the default
action a turn timeout plays (docs/RULES.md §9, "Turn timers")."""

from __future__ import annotations

from rules_engine.actions import ATTACK, DEFEND, SHOW, TRANSFER, Action
from rules_engine.cards import ALL_CARDS, RANK_OF, SUIT_OF, Card, iter_bits, iter_cards
from rules_engine.game import Game
from rules_engine.messages import Message
from rules_engine.phase import Phase

__all__ = ["card_hints", "timeout_action"]


def card_hints(game: Game, seat: int) -> dict[Card, Message | None]:
    """For every card in the hand of player ``seat``: ``None`` if some legal action plays (or
    shows) it now, else the reason it cannot be played, as a message for players.  In a team
    game the player may be acting for a partner's seat (``game.player_to_act``); the reasons
    are then about that seat's turn."""
    hand = game.hands[seat]
    playable = 0
    to_act = game.to_act
    acting = to_act if to_act is not None and game.played_by[to_act] == seat else seat
    if to_act == acting:
        for code in game.legal_codes():
            kind = code & 7
            if kind == DEFEND:
                playable |= 1 << (code >> 9)
            elif kind in (ATTACK, TRANSFER, SHOW):
                playable |= code >> 3
    hints: dict[Card, Message | None] = {}
    for idx in iter_cards(hand):
        card = ALL_CARDS[idx]
        hints[card] = None if playable >> idx & 1 else _reason(game, acting, card)
    return hints


def _reason(game: Game, seat: int, card: Card) -> Message:
    phase = game.phase
    if phase is Phase.OVER:
        return Message("the game is over")
    if phase is Phase.DEFEND and game.to_act == seat:
        reasons = [
            game.explain(Action.defend(seat, ALL_CARDS[a], card)) for a in iter_bits(game.uncovered)
        ]
        # One uncovered attack: its reason; several: they all fail, name the first.
        return next((r for r in reasons if r), Message("this card cannot be played now"))
    reason = game.explain(Action.attack(seat, card))
    return reason or Message("this card cannot be played now")


def timeout_action(game: Game) -> Action:
    """What a turn timeout plays for the seat to act: the defender takes, an attacker adding
    cards passes, a leader opening the round plays its lowest card (lowest non-trump if any)."""
    seat = game.to_act
    phase = game.phase
    if seat is None or phase is Phase.OVER:
        raise ValueError("the game is over: nobody is to act")
    if phase is Phase.DEFEND:
        return Action.take(seat)
    if phase is not Phase.LEAD:
        return Action.pass_(seat)
    hand = game.seat_hand(seat)
    non_trumps = [c for c in iter_bits(hand) if SUIT_OF[c] != game.trump]
    pool = non_trumps or list(iter_bits(hand))
    lowest = min(pool, key=lambda c: (RANK_OF[c], SUIT_OF[c]))
    return Action.attack(seat, ALL_CARDS[lowest])
