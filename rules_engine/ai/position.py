"""Build an engine :class:`Game` in the middle of a round from a seat's observation plus an
assignment of the cards that seat cannot see (a "determinization").

The game's slot attributes are set directly, mirroring ``Game.__init__`` and
``Game._start_round``; passes since the last defend/transfer/take come from the history.
"""

from __future__ import annotations

from rules_engine.ai.view import View
from rules_engine.cards import FULL_DECK_MASK, RANK_MASK, RANK_OF, beaters_table
from rules_engine.deal import deal_from_seed
from rules_engine.game import _ATTACKERS_MEMO, _NEXT_ACTIVE, Game
from rules_engine.rules import PROFILES

__all__ = ["build_game", "deterministic_fill", "fast_clone", "unseen_mask"]

_PLACEHOLDER_DEAL = deal_from_seed(2, 0)
_TEMPLATE = Game(PROFILES["podkidnoy"], _PLACEHOLDER_DEAL)
#: Slots this module sets by name; any other slot (added to the engine later) is copied
#: generically, and an empty list stands for a cache of the (empty) history.
_HANDLED = frozenset(
    (
        "rules", "deal", "n", "hands", "stock", "trump", "_beaters", "discard", "public_held",
        "out", "_next", "_attackers_memo", "round", "first_round", "history", "finished",
        "loser", "draw", "leader", "attacker", "defender", "table_attacks", "table_defences",
        "_table", "_uncovered", "_addable", "_covered_any", "taking", "_passed", "limit",
        "_attackers", "to_act", "_legal",
    )
)
_EXTRA = tuple(name for name in Game.__slots__ if name not in _HANDLED)


def _fill_extra(g: Game, source: Game) -> None:
    for name in _EXTRA:
        value = getattr(source, name, None)
        setattr(g, name, [] if isinstance(value, list) else value)


def unseen_mask(view: View) -> int:
    """Cards whose place the seat does not know (in other hands or in the stock)."""
    return FULL_DECK_MASK & ~view.seen_mask()


def deterministic_fill(view: View) -> tuple[list[int], list[int]]:
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


def build_game(view: View, hands: list[int], stock: list[int]) -> Game:
    """The position of ``view`` with the given hands and stock (drawing order, the face-up
    trump card last).  The seat of ``view`` is to act."""
    rules = view.rules
    n = view.n
    g = Game.__new__(Game)
    g.rules = rules
    g.deal = _PLACEHOLDER_DEAL
    g.n = n
    g.hands = list(hands)
    g.stock = list(reversed(stock))
    g.trump = view.trump
    g._beaters = beaters_table(view.trump)
    g.discard = view.discard
    held = 0
    for k in view.known:
        held |= k
    g.public_held = held
    g.out = view.out
    g._next = _NEXT_ACTIVE[n]
    g._attackers_memo = _ATTACKERS_MEMO[rules.throw_in, n]
    g.round = view.round or max(1, len(view.history) // 5)
    g.first_round = view.first_round
    g.history = []
    g.finished = False
    g.loser = None
    g.draw = False
    leader = view.leader if view.leader is not None else view.seat
    g.leader = leader
    g.attacker = view.attacker if view.attacker is not None else leader
    g.defender = view.defender if view.defender is not None else g._next[view.out << 3 | leader]
    g.table_attacks = list(view.table_attacks)
    g.table_defences = list(view.table_defences)
    table = 0
    uncovered = 0
    addable = 0
    covered = False
    for a, d in zip(view.table_attacks, view.table_defences, strict=True):
        table |= 1 << a
        addable |= RANK_MASK[RANK_OF[a]]
        if d >= 0:
            table |= 1 << d
            addable |= RANK_MASK[RANK_OF[d]]
            covered = True
        else:
            uncovered |= 1 << a
    g._table = table
    g._uncovered = uncovered
    g._addable = addable
    g._covered_any = covered
    g.taking = view.taking
    g._passed = view.passed_mask()
    g.limit = view.limit
    g._set_attackers()
    g.to_act = view.seat
    g._legal = None
    if _EXTRA:
        _fill_extra(g, _TEMPLATE)
    return g


def fast_clone(g: Game) -> Game:
    """``Game.clone`` without the history copy (search never reads it)."""
    return g.clone(keep_history=False)
