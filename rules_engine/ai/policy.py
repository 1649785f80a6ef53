"""The ``casual`` heuristic policy, written against the engine's internal state for speed: it
is the casual level itself, the midgame of the counter, and the playout policy of the expert.

It reads only what the seat to act may know: its own hand, hand sizes, the table, the stock
size, the trump, and (when given) a :class:`Knowledge` of the opponents' possible cards.

Every pack (RULES.md §10.1) is read on the 36-card scale: a card's rank value runs from 0 (the
pack's lowest rank) to 8 (its ace), so the weights tuned for 36 cards mean the same with 24 or
52.  In a team game (§10.3) the seat to act plays from ``played_by``'s hand, and knowledge is
kept per player.  A show (§10.2) is a transfer that keeps the trump: preferred to spending one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from rules_engine.actions import DEFEND, PASS, SHOW, TAKE, TRANSFER
from rules_engine.cards import (
    ALL_CARDS_MASK,
    PACK_MASK,
    PACK_SIZES,
    RANK_MASK,
    RANK_OF,
    SUIT_MASK,
    iter_bits,
    lowest_card,
)
from rules_engine.game import Game
from rules_engine.phase import Phase

__all__ = [
    "LONG_GAME_ROUNDS",
    "RANK_VALUE",
    "VALUE",
    "VALUES",
    "Knowledge",
    "Params",
    "casual_code",
    "lowest",
    "value_of",
    "with_options",
]


def _rank_values(deck: int) -> tuple[float, ...]:
    """Per card index: its rank on the 36-card scale, 0 for the pack's lowest rank to 8 for
    the ace (the 36-card pack: its rank index, 6 = 0)."""
    ranks = sorted({RANK_OF[c] for c in iter_bits(PACK_MASK[deck])})
    low, span = ranks[0], ranks[-1] - ranks[0]
    if deck == 36:
        return tuple(RANK_OF)
    return tuple((r - low) * 8 / span for r in RANK_OF)


#: ``RANK_VALUE[deck][card]``: the card's rank on the 36-card scale (0..8).
RANK_VALUE: dict[int, tuple[float, ...]] = {deck: _rank_values(deck) for deck in PACK_SIZES}
#: ``VALUES[deck][trump][card]``: rank value, plus 9 for a trump (0..17).
VALUES: dict[int, tuple[tuple[float, ...], ...]] = {
    deck: tuple(
        tuple(ranks[c] + (9 if c & 3 == t else 0) for c in range(len(ranks))) for t in range(4)
    )
    for deck, ranks in RANK_VALUE.items()
}
#: ``VALUE[trump][card]`` of the 36-card pack.
VALUE: tuple[tuple[float, ...], ...] = VALUES[36]
_NOT_TRUMP: tuple[int, ...] = tuple(ALL_CARDS_MASK & ~SUIT_MASK[t] for t in range(4))
_LOW36 = PACK_MASK[36]
#: Deterministic play can pass the same cards round and round for ever (transfers, or takes
#: among three or more players); after this many rounds the policy stops transferring and
#: varies its leads, which breaks such circles.
LONG_GAME_ROUNDS = 60


def value_of(card: int, trump: int, deck: int = 36) -> float:
    return VALUES[deck][trump][card]


def lowest(mask: int, trump: int) -> int:
    """The lowest-valued card of a non-empty mask (lowest non-trump, else lowest trump)."""
    plain = mask & _NOT_TRUMP[trump]
    m = plain if plain else mask
    return (m & -m).bit_length() - 1 if m <= _LOW36 else lowest_card(m)


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
    hand: int, attacks: Sequence[int], beaters: Sequence[int], trump: int, deck: int = 36
) -> list[tuple[int, int]] | None:
    """Cheapest beater for each attack, hardest attack first; ``None`` if one cannot be beaten."""
    val = VALUES[deck][trump]
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
    deck = g.rules.deck
    val = VALUES[deck][trump]
    rank_value = RANK_VALUE[deck]
    hand = g.seat_hand(seat)
    attacks = list(iter_bits(g.uncovered))
    plan = defence_plan(hand, attacks, g.beaters, trump, deck)
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
            shows = [c for c in legal if c & 7 == SHOW]
            if shows:  # passes the attack on and keeps the trump
                return shows[0]
            singles = [c for c in transfers if (c >> 3).bit_count() == 1]
            if singles:
                c = singles[0]
                card = (c >> 3).bit_length() - 1
                if rank_value[card] <= p.transfer_trump_rank or (plan is None and stock == 0):
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
            trump_cost += p.trump_base + p.trump_rank * rank_value[d]
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
            threat |= know.has[g.played_by[s]]
        if threat & g.addable & ~g.table_mask:
            take_cost -= 1.0
    trump_cost *= 0.5 + sf
    return defend_code if trump_cost <= take_cost else TAKE


def _lead(g: Game, seat: int, legal: Sequence[int], p: Params, know: Knowledge | None) -> int:
    trump = g.trump
    rank_value = RANK_VALUE[g.rules.deck]
    hand = g.seat_hand(seat)
    room = g.limit
    d = g.defender
    def_size = g.seat_hand(d).bit_count()
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
            low = (rem & -rem).bit_length() - 1
            cards = plain_hand & RANK_MASK[RANK_OF[low]]
            rem &= ~cards
            k = cards.bit_count()
            if k > room:
                cards = _lowest_n(cards, room)
                k = room
            score = rank_value[low] - p.pair_bonus * (k - 1)
            if know is not None:
                may = know.may[g.played_by[d]]
                unbeatable = all(not (may & g.beaters[c]) for c in iter_bits(cards))
                if unbeatable:
                    score -= 2.0 if stock else 4.0
            if score < best_score:
                best_score = score
                best_code = cards << 3
        return best_code
    # only trumps: the lowest one (several if the stock is empty, to shed)
    low = 1 << lowest(hand, trump)
    r = RANK_OF[low.bit_length() - 1]
    if stock == 0:
        cards = hand & RANK_MASK[r]
        if cards.bit_count() <= room:
            return cards << 3
    return low << 3


def _hardest_lead(g: Game, hand: int, legal: Sequence[int], know: Knowledge | None, d: int) -> int:
    """A single card the defender is least able to beat (highest value as a fallback)."""
    trump = g.trump
    val = VALUES[g.rules.deck][trump]
    may = know.may[g.played_by[d]] if know is not None else 0
    best = -1
    best_key: tuple[int, float] = (-1, -1)
    for c in iter_bits(hand):
        beat = (0 if may & g.beaters[c] else 1) if know is not None else 0
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
    hand = g.seat_hand(seat)
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
    # the lowest plain card is of the lowest rank
    low = lowest(cand, trump)
    if RANK_VALUE[g.rules.deck][low] > max_rank:
        return PASS
    best = cand & RANK_MASK[RANK_OF[low]]
    if best.bit_count() > room:
        best = _lowest_n(best, room)
    code = best << 3
    if code in legal:
        return code
    return PASS
