"""The ``casual`` heuristic policy, written against the engine's internal state for speed: it
is the casual level itself, the midgame of the counter, and the playout policy of the expert.

It reads only what the seat to act may know: its own hand, hand sizes, the table, the stock
size, the trump, and (when given) a :class:`Knowledge` of the opponents' possible cards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from rules_engine.actions import DEFEND, PASS, TAKE, TRANSFER
from rules_engine.cards import RANK_MASK, RANK_OF, SUIT_MASK, iter_bits
from rules_engine.game import Game
from rules_engine.phase import Phase

__all__ = [
    "LONG_GAME_ROUNDS",
    "VALUE",
    "Knowledge",
    "Params",
    "casual_code",
    "lowest",
    "value_of",
    "with_options",
]

#: ``VALUE[trump][card]``: rank index, plus 9 for a trump (0..17).
VALUE: tuple[tuple[int, ...], ...] = tuple(
    tuple((c >> 2) + (9 if c & 3 == t else 0) for c in range(36)) for t in range(4)
)
_NOT_TRUMP: tuple[int, ...] = tuple(((1 << 36) - 1) & ~SUIT_MASK[t] for t in range(4))
#: Deterministic play can pass the same cards round and round for ever (transfers, or takes
#: among three or more players); after this many rounds the policy stops transferring and
#: varies its leads, which breaks such circles.
LONG_GAME_ROUNDS = 60


def value_of(card: int, trump: int) -> int:
    return VALUE[trump][card]


def lowest(mask: int, trump: int) -> int:
    """The lowest-valued card of a non-empty mask (lowest non-trump, else lowest trump)."""
    plain = mask & _NOT_TRUMP[trump]
    m = plain if plain else mask
    return (m & -m).bit_length() - 1


@dataclass(frozen=True, slots=True)
class Params:
    """Tunable weights of the heuristic."""

    pair_bonus: float = 1.6
    tempo: float = 2.0
    tempo_late: float = 4.0
    take_card: float = 1.1
    trump_base: float = 2.0
    trump_rank: float = 1.0
    add_rank_early: int = 4  # add cards up to this rank index (10) while the stock is big
    add_rank_taking: int = 5  # throw in up to J when the defender takes
    transfer_trump_rank: int = 4
    transfer: bool = True  # False: never transfer (defend or take instead)


DEFAULT = Params()


def with_options(params: Params, options: Mapping[str, Any]) -> Params:
    """``params`` with the fields named in ``options`` replaced (other keys are ignored)."""
    fields = {k: v for k, v in options.items() if k in Params.__dataclass_fields__}
    return replace(params, **fields) if fields else params


class Knowledge:
    """What a card-counting seat knows of the others: for each seat, the cards it surely holds
    and the cards it may hold."""

    __slots__ = ("has", "may")

    def __init__(self, has: list[int], may: list[int]) -> None:
        self.has = has
        self.may = may


def defence_plan(
    hand: int, attacks: Sequence[int], beaters: Sequence[int], trump: int
) -> list[tuple[int, int]] | None:
    """Cheapest beater for each attack, hardest attack first; ``None`` if one cannot be beaten."""
    val = VALUE[trump]
    plan: list[tuple[int, int]] = []
    left = hand
    for a in sorted(attacks, key=lambda c: -val[c]):
        cand = left & beaters[a]
        if not cand:
            return None
        b = lowest(cand, trump)
        plan.append((a, b))
        left &= ~(1 << b)
    return plan


def casual_code(
    g: Game,
    legal: Sequence[int],
    params: Params = DEFAULT,
    know: Knowledge | None = None,
) -> int:
    """The casual choice among ``legal`` (codes of the seat to act in ``g``)."""
    if len(legal) == 1:
        return legal[0]
    seat = g.to_act
    assert seat is not None
    if g.phase is Phase.DEFEND:
        return _defend(g, seat, legal, params, know)
    if not g.table_attacks:
        if g.round > LONG_GAME_ROUNDS:
            # cards can also circle through takes (three or more players): vary the lead
            return legal[(g.round * 2654435761 >> 5) % len(legal)]
        return _lead(g, seat, legal, params, know)
    return _add(g, seat, legal, params, know)


def _stock_factor(g: Game) -> float:
    """1.0 at the deal, 0.0 when the stock is empty."""
    s = len(g.stock)
    return s / 24.0 if s < 24 else 1.0


def _defend(g: Game, seat: int, legal: Sequence[int], p: Params, know: Knowledge | None) -> int:
    trump = g.trump
    val = VALUE[trump]
    hand = g.hands[seat]
    attacks = list(iter_bits(g.uncovered))
    plan = defence_plan(hand, attacks, g.beaters, trump)
    stock = len(g.stock)
    transfers = [c for c in legal if c & 7 == TRANSFER]
    if transfers and p.transfer and g.round <= LONG_GAME_ROUNDS:
        plain = [c for c in transfers if not (c >> 3) & SUIT_MASK[trump]]
        plan_uses_trump = plan is None or any(b & 3 == trump for _, b in plan)
        if plain:
            # the biggest all-plain transfer: sheds the most, costs no trump
            best = max(plain, key=lambda c: ((c >> 3).bit_count(), -c))
            return best
        if plan_uses_trump:
            singles = [c for c in transfers if (c >> 3).bit_count() == 1]
            if singles:
                c = singles[0]
                card = (c >> 3).bit_length() - 1
                if RANK_OF[card] <= p.transfer_trump_rank or (plan is None and stock == 0):
                    return c
    if plan is None:
        return TAKE
    a, b = plan[0]
    defend_code = DEFEND | (a | b << 6) << 3
    if stock == 0:
        return defend_code
    trump_cost = 0.0
    for _, d in plan:
        if d & 3 == trump:
            trump_cost += p.trump_base + p.trump_rank * RANK_OF[d]
    if trump_cost == 0.0:
        return defend_code
    sf = _stock_factor(g)
    table_cards = g.table_mask.bit_count()
    take_cost = p.tempo + p.tempo_late * (1.0 - sf) + p.take_card * table_cards
    # picking up low cards is worse than picking up high ones
    for c in iter_bits(g.table_mask):
        if val[c] < 3:
            take_cost += 0.5
    if know is not None:
        # the attackers may overload the defence with cards we cannot beat: then defending
        # only wastes the trump
        threat = 0
        for s in g.attackers:
            threat |= know.has[s]
        if threat & g.addable & ~g.table_mask:
            take_cost -= 1.0
    trump_cost *= 0.5 + sf
    return defend_code if trump_cost <= take_cost else TAKE


def _lead(g: Game, seat: int, legal: Sequence[int], p: Params, know: Knowledge | None) -> int:
    trump = g.trump
    hand = g.hands[seat]
    room = g.limit
    d = g.defender
    def_size = g.hands[d].bit_count()
    stock = len(g.stock)
    plain_hand = hand & _NOT_TRUMP[trump]
    if stock == 0 and def_size <= 2 and room <= 2:
        # the defender may go out by beating us: lead what is hardest to beat
        return _hardest_lead(g, hand, legal, know, d)
    best_code = -1
    best_score = 1e9
    if plain_hand:
        rem = plain_hand
        while rem:
            low = rem & -rem
            r = RANK_OF[low.bit_length() - 1]
            cards = plain_hand & RANK_MASK[r]
            rem &= ~cards
            k = cards.bit_count()
            if k > room:
                cards = _lowest_n(cards, room)
                k = room
            score = r - p.pair_bonus * (k - 1)
            if know is not None:
                may = know.may[d]
                unbeatable = all(not (may & g.beaters[c]) for c in iter_bits(cards))
                if unbeatable:
                    score -= 2.0 if stock else 4.0
            if score < best_score:
                best_score = score
                best_code = cards << 3
        return best_code
    # only trumps: the lowest one (several if the stock is empty, to shed)
    low = hand & -hand
    r = RANK_OF[low.bit_length() - 1]
    if stock == 0:
        cards = hand & RANK_MASK[r]
        if cards.bit_count() <= room:
            return cards << 3
    return low << 3


def _hardest_lead(g: Game, hand: int, legal: Sequence[int], know: Knowledge | None, d: int) -> int:
    """A single card the defender is least able to beat (highest value as a fallback)."""
    trump = g.trump
    val = VALUE[trump]
    best = -1
    best_key: tuple[int, int] = (-1, -1)
    for c in iter_bits(hand):
        beat = (0 if know.may[d] & g.beaters[c] else 1) if know is not None else 0
        key = (beat, val[c])
        if key > best_key:
            best_key = key
            best = c
    code = (1 << best) << 3
    return code if code in legal else legal[0]


def _lowest_n(cards: int, k: int) -> int:
    out = 0
    while k > 0 and cards:
        low = cards & -cards
        out |= low
        cards ^= low
        k -= 1
    return out


def _add(g: Game, seat: int, legal: Sequence[int], p: Params, know: Knowledge | None) -> int:
    trump = g.trump
    hand = g.hands[seat]
    room = g.limit - len(g.table_attacks)
    if room <= 0:
        return PASS
    stock = len(g.stock)
    cand = hand & g.addable & _NOT_TRUMP[trump]
    if not cand:
        return PASS
    if stock == 0:
        max_rank = 8
    else:
        max_rank = p.add_rank_taking if g.taking else p.add_rank_early
        if stock <= 6:
            max_rank += 2
    # card indices ascend with rank: the lowest card is of the lowest rank
    r = RANK_OF[(cand & -cand).bit_length() - 1]
    if r > max_rank:
        return PASS
    best = cand & RANK_MASK[r]
    if best.bit_count() > room:
        best = _lowest_n(best, room)
    code = best << 3
    if code in legal:
        return code
    return PASS
