"""Card counting from the public history: a replay of every round with public information only
(hand sizes, the stock count, the table), which yields who picked up which cards and what the
other seats showed they lack.

Round boundaries are not marked in the history; they follow from the rules (RULES.md §6.2):
an ``attack`` while nothing is uncovered (or a take is declared) continues the round when its
seat is an attacker who has not passed and the cards are a legal addition, else it opens the
next round.  After a take the one ambiguous case (the new leader plays a rank that was on the
table) is settled by the next action: only in a new round does the defender act next.

Inferences ("lacks"): a defender who takes lacks the plain beaters of the uncovered attacks;
an attacker who passes lacks cheap plain cards of the ranks on the table.  Those are soft
(a player may choose to take, or to keep a card); they are "fresh" until the seat draws again.
Kept apart, as the counter does not use it: a defender who defends or takes where it could
have transferred probably lacks plain cards of the attacks' rank ("declined").

The table options (RULES.md §10) are replayed too: the pack's size sets the stock; a ``show``
passes the attack on like a transfer and makes the shown trump a known card of its holder; in
a team game no seat is skipped, seats pass to partners as players go out, and a seat's cards
come from (and a take goes to) the player who plays it.  Sizes, known cards and inferences are
per player.
"""

from __future__ import annotations

from rules_engine.actions import ATTACK, DEFEND, PASS, SHOW, TAKE, TRANSFER
from rules_engine.ai.parsed import ParsedObservation
from rules_engine.cards import PACK_MASK, PACK_SIZES, RANK_MASK, RANK_OF, SUIT_MASK, beaters_table
from rules_engine.phase import Phase

__all__ = ["Tracker"]

#: The cheap ranks of each pack: its five lowest (6..10 of the 36 cards).
_LOW_RANKS: dict[int, int] = {
    deck: sum(
        RANK_MASK[r]
        for r in sorted({RANK_OF[c] for c in range(52) if PACK_MASK[deck] >> c & 1})[:5]
    )
    for deck in PACK_SIZES
}


class _Inconsistent(Exception):
    pass


class Tracker:
    """Replays ``view.history``; ``ok`` tells whether the replay matched the observation."""

    __slots__ = (
        "_addable",
        "_attackers",
        "_n_att",
        "_passed",
        "_plain_beaters",
        "_table",
        "_uncovered",
        "attacker",
        "cap_first",
        "declined",
        "declined_stale",
        "defender",
        "discard",
        "first_round",
        "known",
        "lacks",
        "lacks_stale",
        "leader",
        "limit",
        "n",
        "ok",
        "out",
        "picked",
        "played_by",
        "rules",
        "sizes",
        "stock",
        "taking",
        "teams",
        "trump",
        "trump_card",
        "view",
    )

    def __init__(self, view: ParsedObservation, trump_card: int | None = None) -> None:
        self.view = view
        n = self.n = view.n
        self.rules = view.rules
        self.trump = view.trump
        t_mask = SUIT_MASK[view.trump]
        self._plain_beaters = [b & ~t_mask for b in beaters_table(view.trump)]
        self.trump_card = view.trump_card if view.trump_card is not None else trump_card
        self.sizes = [6] * n
        self.stock = self.rules.deck - 6 * n
        self.teams = self.rules.teams != "none"
        self.played_by = list(range(n))
        self.out = 0
        self.discard = 0
        self.known = [0] * n
        self.picked = [0] * n
        self.lacks = [0] * n
        self.lacks_stale = [0] * n
        self.declined = [0] * n
        self.declined_stale = [0] * n
        self.first_round = True
        self.cap_first = self.rules.first_round_limit
        self.ok = False
        history = view.history
        first_leader = history[0][0] if history else (view.leader or 0)
        if view.shown and (self.stock > 0 or len(view.shown) == 2):
            self.known[first_leader] |= 1 << view.shown[0]
        try:
            self._start_round(first_leader)
            self._replay()
            self.ok = self._matches()
        except (_Inconsistent, IndexError, ValueError):
            self.ok = False

    # ------------------------------------------------------------------ seats
    def _next_active(self, seat: int) -> int:
        n, out = self.n, 0 if self.teams else self.out
        s = (seat + 1) % n
        for _ in range(n):
            if not out >> s & 1:
                return s
            s = (s + 1) % n
        return s

    def _prev_active(self, seat: int) -> int:
        n, out = self.n, 0 if self.teams else self.out
        s = (seat - 1) % n
        for _ in range(n):
            if not out >> s & 1:
                return s
            s = (s - 1) % n
        return s

    def _compute_attackers(self) -> tuple[int, ...]:
        d = self.defender
        if self.teams:  # the defender's opponents, the leader first (RULES.md §10.3)
            n = self.n
            if self.rules.throw_in == "neighbours":
                return ((d - 1) % n, (d + 1) % n)
            return tuple(s for s in ((self.attacker + i) % n for i in range(n)) if (s - d) % 2)
        if self.rules.throw_in == "neighbours":
            prev, nxt = self._prev_active(d), self._next_active(d)
            return (prev,) if prev == nxt else (prev, nxt)
        order = []
        s = self.attacker
        for _ in range(self.n):
            if s != d and not self.out >> s & 1:
                order.append(s)
            s = (s + 1) % self.n
        return tuple(order)

    # ------------------------------------------------------------------ rounds
    def _cap(self) -> int:
        return self.cap_first if self.first_round else 6

    def _start_round(self, leader: int) -> None:
        self.leader = self.attacker = leader
        self.defender = self._next_active(leader)
        self._table = 0
        self._uncovered = 0
        self._addable = 0
        self._n_att = 0
        self.taking = False
        self._passed = 0
        cap = self._cap()
        size = self.sizes[self.played_by[self.defender]]
        self.limit = cap if cap < size else size
        self._attackers = self._compute_attackers()

    def _close_round(self) -> None:
        d = self.defender
        table = self._table
        if self.taking:
            taker = self.played_by[d]
            self.sizes[taker] += table.bit_count()
            self.known[taker] |= table
            self.picked[taker] |= table
        else:
            self.discard |= table
        if self.stock:
            order = [(self.leader + i) % self.n for i in range(self.n)]
            if d != self.leader:
                order.remove(d)
                order.append(d)
            for s in order:
                need = 6 - self.sizes[s]
                if need <= 0:
                    continue
                got = need if need < self.stock else self.stock
                self.sizes[s] += got
                self.stock -= got
                self.lacks_stale[s] |= self.lacks[s]
                self.lacks[s] = 0
                self.declined_stale[s] |= self.declined[s]
                self.declined[s] = 0
                if not self.stock:
                    if self.trump_card is not None:
                        self.known[s] |= 1 << self.trump_card
                    break
        if not self.stock:
            for s in range(self.n):
                if self.sizes[s] == 0:
                    self.out |= 1 << s
            if self.teams:
                self._hand_over()
            elif self.n - self.out.bit_count() <= 1:
                raise _Inconsistent  # the game would be over
        self.first_round = False
        if self.taking or (not self.teams and self.out >> d & 1):
            self._start_round(self._next_active(d))
        else:
            self._start_round(d)

    def _hand_over(self) -> None:
        """Team games: the seats of players who are out pass to partners (RULES.md §10.3)."""
        n, out = self.n, self.out
        for team in (0, 1):
            if all(out >> p & 1 for p in range(team, n, 2)):
                raise _Inconsistent  # the game would be over
        for seat in range(n):
            player = self.played_by[seat]
            if out >> player & 1:
                self.played_by[seat] = next(
                    (player + step) % n
                    for step in range(2, n, 2)
                    if not out >> (player + step) % n & 1
                )

    def _is_addition(self, seat: int, mask: int) -> bool:
        if not self._n_att or seat not in self._attackers or self._passed >> seat & 1:
            return False
        if mask & ~self._addable:
            return False
        return self._n_att + mask.bit_count() <= self.limit

    def _replay(self) -> None:
        history = self.view.history
        for i, (seat, code) in enumerate(history):
            kind = code & 7
            defender_acts = (
                Phase.of(
                    finished=False,
                    attacks=self._n_att,
                    uncovered=self._uncovered,
                    taking=self.taking,
                )
                is Phase.DEFEND
            )
            if kind == ATTACK and not defender_acts:
                mask = code >> 3
                cont = self._is_addition(seat, mask)
                if cont and self.taking:
                    if i + 1 < len(history):
                        cont = history[i + 1][1] & 7 not in (DEFEND, TRANSFER, SHOW, TAKE)
                    else:  # the last action: a new round shows just these cards
                        v = self.view
                        table = sum(1 << c for c in v.table_attacks)
                        cont = v.taking or table != mask
                if not cont and self._n_att:
                    self._close_round()
                if seat != self.attacker and not self._n_att:
                    raise _Inconsistent
            elif kind == PASS and not self._n_att:
                raise _Inconsistent
            self._apply(seat, code)
        if self._n_att and not self.view.table_attacks:
            self._close_round()

    def _could_transfer(self) -> bool:
        """Whether the defender could transfer now: nothing covered yet and room for one more
        card at the next active seat (RULES.md §6.4)."""
        if not self.rules.transfer or self._table != self._uncovered or not self._n_att:
            return False
        cap = self._cap()
        target = self.sizes[self._next_active(self.defender)]
        return (cap if cap < target else target) > self._n_att

    def _pass_on(self, seat: int) -> None:
        """A transfer or a show: ``seat`` attacks, the next seat defends every attack."""
        self.attacker = seat
        self.defender = d = self._next_active(seat)
        cap = self._cap()
        size = self.sizes[self.played_by[d]]
        self.limit = cap if cap < size else size
        self._passed = 0
        self._attackers = self._compute_attackers()

    def _apply(self, seat: int, code: int) -> None:
        kind = code & 7
        player = self.played_by[seat]
        if (kind == DEFEND or kind == TAKE) and self._could_transfer():  # noqa: SIM109
            low = self._uncovered & -self._uncovered
            rank = RANK_MASK[RANK_OF[low.bit_length() - 1]]
            self.declined[player] |= rank & ~SUIT_MASK[self.trump]
        if kind == DEFEND:
            a = (code >> 3) & 63
            b = code >> 9
            self.sizes[player] -= 1
            self.known[player] &= ~(1 << b)
            self._table |= 1 << b
            self._uncovered &= ~(1 << a)
            self._addable |= RANK_MASK[RANK_OF[b]]
            self._passed = 0
        elif kind == ATTACK or kind == TRANSFER:  # noqa: SIM109
            mask = code >> 3
            self.sizes[player] -= mask.bit_count()
            self.known[player] &= ~mask
            self._table |= mask
            self._uncovered |= mask
            self._n_att += mask.bit_count()
            m = mask
            while m:
                low = m & -m
                m ^= low
                self._addable |= RANK_MASK[RANK_OF[low.bit_length() - 1]]
            if kind == TRANSFER:
                self._pass_on(seat)
        elif kind == SHOW:
            self.known[player] |= code >> 3  # the shown trump stays in view (RULES.md §10.2)
            self._pass_on(seat)
        elif kind == TAKE:
            lacks = 0
            u = self._uncovered
            while u:
                low = u & -u
                u ^= low
                lacks |= self._plain_beaters[low.bit_length() - 1]
            self.lacks[player] |= lacks
            self.taking = True
            self._passed = 0
        else:
            # declined to add: lacks cheap plain cards of the ranks on the table
            if self._n_att < self.limit:
                low_ranks = _LOW_RANKS[self.rules.deck]
                self.lacks[player] |= self._addable & low_ranks & ~SUIT_MASK[self.trump]
            self._passed |= 1 << seat

    def _matches(self) -> bool:
        v = self.view
        if self.sizes != v.hand_sizes or self.stock != v.stock or self.out != v.out:
            return False
        return self.discard == v.discard

    # ------------------------------------------------------------------ results
    def has(self) -> list[int]:
        """Cards each seat surely holds (the observation's ``known`` when it has it)."""
        if self.view.known_given:
            return list(self.view.known)
        return list(self.known) if self.ok else [0] * self.n
