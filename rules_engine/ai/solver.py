"""Exact search of two-player positions with every card placed (perfect information).

It plays RULES.md with exactly two active players on its own compact state (a tuple of ints),
which is much faster than cloning :class:`~rules_engine.game.Game`; tests check it against the
engine move for move.  The stock may be non-empty when its order is given (a determinization).

Values are from player 0's point of view: ``+1`` when player 1 is the durak, ``-1`` when player
0 is, ``0`` for a draw.  Search is alpha-beta with a transposition table, a node cap and a depth
limit; when either is hit, :class:`SearchAborted` is raised.

State tuple: ``(h0, h1, k, leader, defender, A, D, U, taking, limit, cap)`` where ``A`` are the
attack cards on the table, ``D`` the defences, ``U`` the uncovered attacks, ``k`` the number of
stock cards left (the next one drawn is ``stock[len(stock) - k]``).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from time import perf_counter

from rules_engine.cards import RANK_MASK, RANK_OF, beaters_table, iter_bits
from rules_engine.game import Game

__all__ = ["SearchAborted", "Solver", "State", "state_from_game"]

State = tuple[int, int, int, int, int, int, int, int, bool, int, int]

#: The lowest card of each rank's four bits, for the 13 ranks of every pack.
_NIBBLE_LOW = sum(1 << (4 * r) for r in range(13))


def _subsets(cards: list[int]) -> tuple[int, ...]:
    """Every non-empty set of ``cards`` as a mask, fewest cards first, then the lower mask."""
    masks = [sum(1 << c for c in chosen) for k in range(1, 5) for chosen in combinations(cards, k)]
    return tuple(sorted(masks, key=lambda m: (m.bit_count(), m)))


#: For every set of cards of one rank, its non-empty subsets.
_SUBSETS: dict[int, tuple[int, ...]] = {
    mask: _subsets(list(iter_bits(mask)))
    for mask in (pattern << (4 * rank) for rank in range(13) for pattern in range(1, 16))
}


class SearchAborted(Exception):
    """The node cap, the deadline or the depth limit was reached."""


def _ranks_of(mask: int) -> int:
    """The four cards of every rank present in ``mask``."""
    y = (mask | mask >> 1 | mask >> 2 | mask >> 3) & _NIBBLE_LOW
    return y * 15


def state_from_game(g: Game, p0: int, p1: int, stock: list[int] | None = None) -> State:
    """The solver state of ``g`` with seats ``p0``/``p1`` as players 0/1 (the only active
    seats).  ``stock`` defaults to the game's stock in drawing order."""
    if stock is None:
        stock = list(reversed(g.stock))
    idx = {p0: 0, p1: 1}
    attacks = 0
    defences = 0
    for a, d in zip(g.table_attacks, g.table_defences, strict=True):
        attacks |= 1 << a
        if d >= 0:
            defences |= 1 << d
    return (
        g.hands[p0],
        g.hands[p1],
        len(stock),
        idx.get(g.leader, idx[g.attacker]),
        idx[g.defender],
        attacks,
        defences,
        g.uncovered,
        g.taking,
        g.limit,
        g.cap,
    )


class Solver:
    """Perfect-information two-player solver for one trump, rule set and stock order."""

    def __init__(
        self,
        trump: int,
        transfer: bool,
        stock: list[int] | tuple[int, ...] = (),
        node_cap: int = 200_000,
        deadline: float | None = None,
        max_depth: int = 600,
        clock: Callable[[], float] = perf_counter,
    ) -> None:
        self.beaters = beaters_table(trump)
        self.trump = trump
        self.transfer = transfer
        self.stock = tuple(stock)
        self.node_cap = node_cap
        #: Longest line searched: with transfers a line can pass cards round for hundreds of
        #: plies without repeating a state, and each ply is a Python frame (the default
        #: recursion limit is 1000), so a deeper line aborts the search like the node cap.
        self.max_depth = max_depth
        #: ``clock()`` value after which the search gives up (checked every 512 nodes);
        #: ``None`` for no time limit.
        self.deadline = deadline
        self.clock = clock
        self.nodes = 0
        self.tt: dict[State, tuple[int, int]] = {}
        #: States on the current search path: with transfers, cards can circle between the
        #: hands for ever; a repeated state scores as a draw.
        self.path: set[State] = set()

    # ------------------------------------------------------------------ moves
    def moves(self, s: State) -> list[tuple[int, State | int]]:
        """``(code, child)`` for every move of the player to act; ``child`` is a state or a
        terminal value.  Codes are engine action codes."""
        h0, h1, k, leader, d, A, D, U, taking, limit, cap = s
        out: list[tuple[int, State | int]] = []
        norm = self._normalize
        if U and not taking:
            hd = h1 if d else h0
            ha = h0 if d else h1
            beaters = self.beaters
            # transfers (before any defence)
            if self.transfer and not D:
                r = RANK_MASK[RANK_OF[(A & -A).bit_length() - 1]]
                cands = hd & r
                if cands:
                    room = (cap if cap < ha.bit_count() else ha.bit_count()) - A.bit_count()
                    for sub in _SUBSETS[cands]:
                        if sub.bit_count() > room:
                            break
                        nd = 1 - d
                        nhd = hd & ~sub
                        size = ha.bit_count()
                        lim = cap if cap < size else size
                        if d:
                            child = (h0, nhd, k, leader, nd, A | sub, D, U | sub, False, lim, cap)
                        else:
                            child = (nhd, h1, k, leader, nd, A | sub, D, U | sub, False, lim, cap)
                        out.append((2 | sub << 3, child))
            # defend every uncovered attack (the highest first: the order does not matter)
            a = U.bit_length() - 1
            ds = hd & beaters[a]
            while ds:
                low = ds & -ds
                ds ^= low
                b = low.bit_length() - 1
                nhd = hd & ~low
                if d:
                    res = norm(h0, nhd, k, leader, d, A, D | low, U & ~(1 << a), False, limit, cap)
                else:
                    res = norm(nhd, h1, k, leader, d, A, D | low, U & ~(1 << a), False, limit, cap)
                out.append((1 | (a | b << 6) << 3, res))
            out.append((3, norm(h0, h1, k, leader, d, A, D, U, True, limit, cap)))
            return out
        att = 1 - d
        ha = h1 if att else h0
        room = limit - A.bit_count()
        cands = ha & _ranks_of(A | D) if A else ha
        while cands:
            low = cands & -cands
            rank_cards = cands & RANK_MASK[RANK_OF[low.bit_length() - 1]]
            cands ^= rank_cards
            for sub in _SUBSETS[rank_cards]:
                if sub.bit_count() > room:
                    break
                nha = ha & ~sub
                if att:
                    res = norm(h0, nha, k, leader, d, A | sub, D, U | sub, taking, limit, cap)
                else:
                    res = norm(nha, h1, k, leader, d, A | sub, D, U | sub, taking, limit, cap)
                out.append((sub << 3, res))
        if A:
            out.append((4, self._close(h0, h1, k, leader, d, A, D, taking)))
        return out

    def _normalize(
        self,
        h0: int,
        h1: int,
        k: int,
        leader: int,
        d: int,
        A: int,
        D: int,
        U: int,
        taking: bool,
        limit: int,
        cap: int,
    ) -> State | int:
        if U and not taking:
            return (h0, h1, k, leader, d, A, D, U, taking, limit, cap)
        ha = h0 if d else h1
        if A.bit_count() < limit and ha & _ranks_of(A | D):
            return (h0, h1, k, leader, d, A, D, U, taking, limit, cap)
        return self._close(h0, h1, k, leader, d, A, D, taking)

    def _close(
        self, h0: int, h1: int, k: int, leader: int, d: int, A: int, D: int, taking: bool
    ) -> State | int:
        if taking:
            if d:
                h1 |= A | D
            else:
                h0 |= A | D
        if k:
            stock = self.stock
            base = len(stock)
            for p in (leader, 1 - leader):
                hand = h1 if p else h0
                need = 6 - hand.bit_count()
                while need > 0 and k:
                    hand |= 1 << stock[base - k]
                    k -= 1
                    need -= 1
                if p:
                    h1 = hand
                else:
                    h0 = hand
        if not k:
            if not h0:
                return 0 if not h1 else 1
            if not h1:
                return -1
        nl = 1 - d if taking else d
        nd = 1 - nl
        size = (h1 if nd else h0).bit_count()
        return (h0, h1, k, nl, nd, 0, 0, 0, False, 6 if size > 6 else size, 6)

    @staticmethod
    def to_act(s: State) -> int:
        return s[4] if s[7] and not s[8] else 1 - s[4]

    # ------------------------------------------------------------------ search
    def value(self, s: State | int, alpha: int = -1, beta: int = 1) -> int:
        """The game value of ``s`` for player 0 (within the alpha-beta window)."""
        if isinstance(s, int):
            return s
        return self._search(s, alpha, beta)

    def _search(self, s: State, alpha: int, beta: int) -> int:
        self.nodes += 1
        if self.nodes > self.node_cap:
            raise SearchAborted
        if not self.nodes & 511 and self.deadline is not None and self.clock() > self.deadline:
            raise SearchAborted
        tt = self.tt
        entry = tt.get(s)
        if entry is not None:
            lo, hi = entry
            if lo >= beta or lo == hi:
                return lo
            if hi <= alpha:
                return hi
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
        path = self.path
        if s in path:
            return 0
        if len(path) >= self.max_depth:
            raise SearchAborted
        a0, b0 = alpha, beta
        maximizing = self.to_act(s) == 0
        children = self.moves(s)
        best = -2 if maximizing else 2
        path.add(s)
        for _, child in children:
            if isinstance(child, int):
                v = child
            else:
                try:
                    v = self._search(child, alpha, beta)
                except SearchAborted:
                    path.discard(s)
                    raise
            if maximizing:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
            else:
                if v < best:
                    best = v
                    if v < beta:
                        beta = v
            if alpha >= beta:
                break
        path.discard(s)
        lo, hi = entry if entry is not None else (-1, 1)
        if best <= a0:
            hi = min(hi, best)
        elif best >= b0:
            lo = max(lo, best)
        else:
            lo = hi = best
        tt[s] = (lo, hi)
        return best

    def best_move(self, s: State) -> tuple[int, int]:
        """``(code, value)`` of a best move for the player to act (ties: first generated)."""
        me = self.to_act(s)
        best_code = -1
        best_v = -2
        for code, child in self.moves(s):
            v = self.value(child)
            mine = v if me == 0 else -v
            if mine > best_v:
                best_v, best_code = mine, code
                if mine == 1:
                    break
        return best_code, best_v
