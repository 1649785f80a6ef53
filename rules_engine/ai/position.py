"""Build an engine :class:`Game` in the middle of a round from a seat's observation plus an
assignment of the cards that seat cannot see (a "determinization").

The game comes from the engine's public :meth:`Game.from_position` (with ``validate=False``:
the hidden cards are guesses, so the position need not be reachable in every detail; the
seat of the observation is to act).  Passes since the last defend/transfer/take come from
the history.
"""

from __future__ import annotations

from rules_engine.ai.parsed import ParsedObservation
from rules_engine.cards import FULL_DECK_MASK
from rules_engine.game import Game

__all__ = ["build_game", "deterministic_fill", "fast_clone", "unseen_mask"]


def unseen_mask(view: ParsedObservation) -> int:
    """Cards whose place the seat does not know (in other hands or in the stock)."""
    return FULL_DECK_MASK & ~view.seen_mask()


def deterministic_fill(view: ParsedObservation) -> tuple[list[int], list[int]]:
    """A fixed assignment of the unseen cards (lowest cards first), for levels that never
    look at other hands: hands per seat and the stock in drawing order."""
    unseen = unseen_mask(view)
    hands = [0] * view.n
    for s in range(view.n):
        if s == view.seat:
            hands[s] = view.hand
            continue
        hand = view.known[s] & ~view.hand
        need = view.hand_sizes[s] - hand.bit_count()
        while need > 0 and unseen:
            low = unseen & -unseen
            hand |= low
            unseen ^= low
            need -= 1
        hands[s] = hand
    stock: list[int] = []
    need = view.stock - (1 if view.trump_card is not None else 0)
    while need > 0 and unseen:
        low = unseen & -unseen
        stock.append(low.bit_length() - 1)
        unseen ^= low
        need -= 1
    if view.trump_card is not None:
        stock.append(view.trump_card)
    return hands, stock


def build_game(view: ParsedObservation, hands: list[int], stock: list[int]) -> Game:
    """The position of ``view`` with the given hands and stock (drawing order, the face-up
    trump card last).  The seat of ``view`` is to act."""
    held = 0
    for k in view.known:
        held |= k
    leader = view.leader if view.leader is not None else view.seat
    return Game.from_position(
        view.rules,
        hands,
        trump=view.trump,
        leader=leader,
        stock=stock,
        discard=view.discard,
        table=view.table_pairs(),
        attacker=view.attacker,
        taking=view.taking,
        passed=view.passed_mask(),
        out=view.out,
        to_act=view.seat,
        first_round=view.first_round,
        round=view.round or max(1, len(view.history) // 5),
        public_held=held,
        validate=False,
    )


def fast_clone(g: Game) -> Game:
    """``Game.clone`` without the history copy (search never reads it)."""
    return g.clone(keep_history=False)
