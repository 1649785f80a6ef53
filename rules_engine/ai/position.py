"""Build an engine :class:`Game` in the middle of a round from a seat's observation plus an
assignment of the cards that seat cannot see (a "determinization").

The game comes from the engine's public :meth:`Game.from_position` (with ``validate=False``:
the hidden cards are guesses, so the position need not be reachable in every detail; the
seat of the observation acts, for itself or, in a team game, for the seat it plays).  Passes
since the last defend/transfer/take come from the history.  Hands are the players' own
(RULES.md §10.3), so the unseen cards are dealt to players, whatever seats they play.
"""

from __future__ import annotations

from rules_engine.ai.parsed import ParsedObservation
from rules_engine.cards import PACK_MASK, iter_cards
from rules_engine.game import Game

__all__ = ["build_game", "deterministic_fill", "fast_clone", "unseen_mask"]


def unseen_mask(view: ParsedObservation) -> int:
    """Cards of the game's pack whose place the seat does not know (in other hands or in the
    stock)."""
    return PACK_MASK[view.rules.deck] & ~view.seen_mask()


def deterministic_fill(view: ParsedObservation) -> tuple[list[int], list[int]]:
    """A fixed assignment of the unseen cards (lowest cards first), for levels that never
    look at other hands: hands per seat and the stock in drawing order."""
    unseen = list(iter_cards(unseen_mask(view)))  # the lowest cards first, in every pack
    next_card = 0
    hands = [0] * view.n
    for s in range(view.n):
        if s == view.seat:
            hands[s] = view.hand
            continue
        hand = view.known[s] & ~view.hand
        need = max(0, view.hand_sizes[s] - hand.bit_count())
        for card in unseen[next_card : next_card + need]:
            hand |= 1 << card
        next_card += need
        hands[s] = hand
    need = max(0, view.stock - (1 if view.trump_card is not None else 0))
    stock = unseen[next_card : next_card + need]
    if view.trump_card is not None:
        stock.append(view.trump_card)
    return hands, stock


def build_game(view: ParsedObservation, hands: list[int], stock: list[int]) -> Game:
    """The position of ``view`` with the given hands and stock (drawing order, the face-up
    trump card last).  The seat of ``view`` is to act (or the seat it plays, in a team
    game)."""
    held = 0
    for k in view.known:
        held |= k
    to_act = view.to_act if view.to_act is not None else view.seat
    leader = view.leader if view.leader is not None else to_act
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
        to_act=to_act,
        first_round=view.first_round,
        round=view.round or max(1, len(view.history) // 5),
        public_held=held,
        played_by=view.played_by,
        round_shown=view.round_shown,
        validate=False,
    )


def fast_clone(g: Game) -> Game:
    """``Game.clone`` without the history copy (search never reads it)."""
    return g.clone(keep_history=False)
