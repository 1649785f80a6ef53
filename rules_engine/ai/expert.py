"""``expert``: determinized Monte Carlo search (perfect-information Monte Carlo).

For each sampled deal of the unseen cards, consistent with every card seen and weighted away
from what the opponents showed they lack (a take, a declined throw-in), every candidate action
is played out: casual-policy playouts for all seats, one move in ten (heads-up; one in five at
a bigger table) made at random instead (``epsilon``: the opponents are not casual players, and
a search that trusts its model of them too much is easy to beat; against a plain ISMCTS in
perevodnoy this one change lifted the expert from winning about half its games to three
quarters), finished by the exact two-player solver once the stock is empty, one opponent is
left and at most ``solve_cards`` cards are in play (the counter and the expert play such
endgames exactly, so the playouts should too). The action that minimises the seat's chance of
being the durak over all samples wins; the same samples serve every candidate (common random
numbers), a candidate clearly worse than the leader stops being played out, and a candidate
replaces the casual choice only when it is better by more than ``margin`` standard errors. With
every card's place known (one opponent, empty stock) it solves exactly, as the counter does; a
solve not finished within 45% of the budget (in perevodnoy one in six: transfers and takes pass
cards back and forth, so even seven cards can be too many) gives way to the playout search on the
known deal, not to the casual choice.

Time: the search normally stops after ``think_s`` (0.3 s).  When the choice is still close
(a rival may still be better by more than one point of loss rate), it goes on until the choice
is clear or ``budget_s`` (0.9 s, the hard per-move limit) comes; at most 40% of a game's moves
may do so, which keeps the median move within ``think_s``.

Options: ``budget_s``, ``think_s``, ``iterations`` (cap on the number of sampled deals and no
clock: reproducible runs), ``clock`` (``wall``, or ``cpu`` for tournaments on a busy machine),
``epsilon`` (share of random playout moves, every seat alike; default 0.1 heads-up, 0.2 with
three or more players), ``solve_stock`` (largest stock at which sampled two-player deals are
solved exactly, -1: never), ``solve_cards``, ``node_cap`` (per solve), ``exact_node_cap``,
``margin``, ``max_candidates``, ``w_lacks`` / ``w_stale`` (sampling weights of cards a seat
showed it lacks), ``w_declined`` (of plain cards of a rank a seat could have transferred with
but did not), and the casual policy's parameters (:class:`~rules_engine.ai.policy.Params`).
Any other option name is refused (:class:`ValueError`).  The alternatives measured and found
useless are not options any more; their measurements are in docs/AI.md.

The table options (RULES.md §10): deals are sampled from the game's own pack; a shown trump is a
known card of its holder, and a show is a candidate like a transfer; in a team game the score is
the team's (1 when the other team loses, 0 when its own does, 1/2 for a draw), so the search
holds back from going out when that would leave a partner to lose.  The exact solver plays the
traditional two-player game only: not used with shown trumps or teams.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from typing import Any

from rules_engine.actions import DEFEND, PASS, SHOW, TAKE, TRANSFER
from rules_engine.ai.base import Agent, Observation
from rules_engine.ai.counter import Counting, perfect_hands, solve_exact
from rules_engine.ai.parsed import ParsedObservation
from rules_engine.ai.policy import (
    DEFAULT,
    VALUES,
    Params,
    casual_code,
    lowest,
    with_options,
)
from rules_engine.ai.position import build_game, deterministic_fill, fast_clone
from rules_engine.ai.solver import SearchAborted, Solver, state_from_game
from rules_engine.cards import ORDER, RANK_MASK, RANK_OF, SUIT_MASK, iter_bits
from rules_engine.game import Game
from rules_engine.phase import Phase

__all__ = ["DEFAULT_BUDGET_S", "DEFAULT_THINK_S", "ExpertAgent", "candidates", "sample_deal"]

#: The hard per-move limit (seconds) and the normal thinking time, with default options.
DEFAULT_BUDGET_S = 0.9
DEFAULT_THINK_S = 0.3

_W_LACKS = 0.08
_PLAYOUT_CAP = 600
_W_STALE = 0.5
#: Sampling weight of a plain card of a rank the seat could have transferred with but did not:
#: holding one, ismcts@300 transferred in 49% of such positions, the expert in 78% (docs/AI.md).
_W_DECLINED = 0.4
#: Successive rejection: from sample 24 on, every 8 samples, a candidate whose paired mean is
#: more than 2.5 standard errors below the leader's stops being played out.
_PRUNE_FROM = 24
_PRUNE_EVERY = 8
_PRUNE_SE = 2.5
#: Past the normal thinking time, search goes on while a rival may still be better by more
#: than 1 point of loss rate (2 standard errors).
_CLOSE_SE = 2.0
_WORTH = 0.01
#: Share of a game's moves that may take longer than the normal thinking time.
_EXTEND_SHARE = 0.4
#: Entries kept in the shared empty-stock table before it starts afresh (memory bound).
_ENDGAME_TT_MAX = 100_000
_CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
#: Default share of random playout moves, every seat alike, by table size (3: three or more):
#: at a bigger table two opponents' play is less predictable (measured against two
#: ismcts@300, docs/AI.md).
_EPSILON_DEFAULTS = {2: 0.1, 3: 0.2}
#: Share of the move's budget the exact solve of a known position may take; if it does not
#: finish, the playout search has the rest (docs/AI.md, "Endgames too big to solve").
_SOLVE_SHARE = 0.45


def sample_deal(
    view: ParsedObservation,
    counting: Counting,
    rng: Any,
    w_lacks: float = _W_LACKS,
    w_stale: float = _W_STALE,
    w_declined: float = _W_DECLINED,
) -> tuple[list[int], list[int]] | None:
    """Hands and stock (drawing order) for the unseen cards, drawn at random: each opponent
    gets its known cards plus unseen ones, cards it showed it lacks being less likely."""
    hidden = list(iter_bits(counting.unseen))
    rng.shuffle(hidden)
    n = view.n
    hands = [0] * n
    caps: list[int] = []
    groups: list[int] = []  # seat, or -1 for the stock
    for s in range(n):
        if s == view.seat:
            hands[s] = view.hand
            continue
        hands[s] = counting.has[s]
        need = view.hand_sizes[s] - counting.has[s].bit_count()
        if need < 0:
            return None
        if need:
            groups.append(s)
            caps.append(need)
    stock_need = view.stock - (1 if view.trump_card is not None else 0)
    if stock_need < 0:
        return None
    if stock_need:
        groups.append(-1)
        caps.append(stock_need)
    if sum(caps) != len(hidden):
        return None
    stock: list[int] = []
    lacks = counting.lacks
    stale = counting.lacks_stale
    declined = counting.declined
    declined_stale = counting.declined_stale
    for c in hidden:
        bit = 1 << c
        weights = []
        total = 0.0
        for g, cap in zip(groups, caps, strict=True):
            if cap <= 0:
                w = 0.0
            elif g < 0:
                w = float(cap)
            elif lacks[g] & bit:
                w = cap * w_lacks
            elif declined[g] & bit:
                w = cap * w_declined
            elif (stale[g] | declined_stale[g]) & bit:
                w = cap * w_stale
            else:
                w = float(cap)
            weights.append(w)
            total += w
        x = rng.random() * total
        pick = len(groups) - 1
        for i, w in enumerate(weights):
            if x < w:
                pick = i
                break
            x -= w
        while caps[pick] <= 0:  # rounding guard
            pick = (pick + 1) % len(groups)
        caps[pick] -= 1
        g = groups[pick]
        if g < 0:
            stock.append(c)
        else:
            hands[g] |= bit
    if view.trump_card is not None:
        stock.append(view.trump_card)
    return hands, stock


def candidates(g: Game, legal: Sequence[int], preferred: int, limit: int = 10) -> list[int]:
    """The actions worth searching, at most ``limit``: the casual choice, take or pass, then per
    attack / per rank the sensible card choices (cheapest plain, cheapest trump, the whole
    group)."""
    seat = g.to_act
    assert seat is not None
    legal_set = set(legal)
    trump = g.trump
    val = VALUES[g.rules.deck][trump]
    tmask = SUIT_MASK[trump]
    hand = g.seat_hand(seat)
    out: list[int] = [preferred]

    def add(code: int) -> None:
        if code in legal_set and code not in out:
            out.append(code)

    if g.phase is Phase.DEFEND:
        add(TAKE)  # before the card choices: a long list must not crowd it out
        for c in legal:
            if c & 7 == TRANSFER or c & 7 == SHOW:
                add(c)
        for a in sorted(iter_bits(g.uncovered), key=lambda x: -val[x]):
            bs = hand & g.beaters[a]
            plain = bs & ~tmask
            trumps = bs & tmask
            if plain:
                add(DEFEND | (a | lowest(plain, trump) << 6) << 3)
            if trumps:
                add(DEFEND | (a | lowest(trumps, trump) << 6) << 3)
                high = max(iter_bits(trumps), key=ORDER.__getitem__)
                add(DEFEND | (a | high << 6) << 3)
    else:
        add(PASS)  # (only legal when adding): before the card choices, as take above
        cands = hand & g.addable if g.table_attacks else hand
        ranks = []
        rem = cands
        while rem:
            low = rem & -rem
            cards = rem & RANK_MASK[RANK_OF[low.bit_length() - 1]]
            rem ^= cards
            ranks.append(cards)
        ranks.sort(key=lambda m: val[lowest(m, trump)])
        for cards in ranks:  # (the cards of one rank: the lowest bit is the first suit)
            plain = cards & ~tmask
            if plain:
                add((plain & -plain) << 3)
                add(plain << 3)
            add((cards & -cards) << 3)
            add(cards << 3)
    if len(out) > limit:
        out = out[:limit]
    return out


class ExpertAgent(Agent):
    def __init__(
        self,
        seed: int | None = None,
        budget_s: float = DEFAULT_BUDGET_S,
        think_s: float = DEFAULT_THINK_S,
        iterations: int | None = None,
        solve_stock: int = 0,
        node_cap: int = 4000,
        solve_cards: int = 8,
        exact_node_cap: int = 10**9,
        margin: float = 1.0,
        max_candidates: int = 7,
        clock: str | Callable[[], float] = "wall",
        epsilon: float | None = None,
        w_lacks: float = _W_LACKS,
        w_stale: float = _W_STALE,
        w_declined: float = _W_DECLINED,
        params: Params | None = None,
        **options: Any,
    ) -> None:
        super().__init__(seed)
        unknown = sorted(set(options) - set(Params.__dataclass_fields__))
        if unknown:
            raise ValueError(
                f"unknown expert option(s) {', '.join(unknown)}: the options are "
                + ", ".join(sorted(_OWN_OPTIONS | set(Params.__dataclass_fields__)))
            )
        if isinstance(clock, str) and clock not in _CLOCKS:
            raise ValueError(f"clock must be one of {sorted(_CLOCKS)}, not {clock!r}")
        #: ``wall`` (a player waits for it) or ``cpu``: this process's CPU time, which makes
        #: tournaments fair on a busy machine (the strength no longer depends on the load); or
        #: any function returning seconds (tests pass a clock of their own).
        self.clock = _CLOCKS[clock] if isinstance(clock, str) else clock
        #: Share of the other seats' playout moves made at random (a less predictable model of
        #: them); ``None``: the default for the table's size (:meth:`playout_epsilon`).
        self.epsilon = epsilon
        #: Sampling weight of a card for a seat that showed it lacks it (fresh / stale).
        self.w_lacks = w_lacks
        self.w_stale = w_stale
        #: Sampling weight of a plain card of a rank the seat declined to transfer with.
        self.w_declined = w_declined
        #: The hard per-move limit and the normal thinking time (seconds).
        self.budget_s = budget_s
        self.think_s = min(think_s, budget_s)
        #: A cap on the sampled deals per move (``None``: the clock decides).
        self.iterations = iterations
        #: Exact solves in the playouts: largest stock, most cards in play, nodes per solve.
        self.solve_stock = solve_stock
        self.solve_cards = solve_cards
        self.node_cap = node_cap
        #: Nodes of the exact solve of a position whose every card is known.
        self.exact_node_cap = exact_node_cap
        #: Standard errors by which a candidate must beat the casual choice; candidates searched.
        if max_candidates < 1:
            raise ValueError("max_candidates must be at least 1 (the casual choice)")
        self.margin = margin
        self.max_candidates = max_candidates
        self.params = with_options(params or DEFAULT, options)
        self._trump_card: int | None = None
        self._endgame: Solver | None = None
        self._endgame_key: tuple[int, bool] | None = None
        self._moves = 0
        self._extended = 0

    def playout_epsilon(self, players: int) -> float:
        """The share of random playout moves (every seat's alike) at a table of ``players``."""
        return _EPSILON_DEFAULTS[min(players, 3)] if self.epsilon is None else self.epsilon

    def new_game(self) -> None:
        self._trump_card = None
        self._endgame = None
        self._moves = 0
        self._extended = 0

    def choose(self, obs: Observation) -> str:
        start = self.clock()
        # the last sample in hand is finished after a deadline: keep 8% in reserve
        deadline = start + self.budget_s * 0.92
        soft = start + self.think_s * 0.92
        view = ParsedObservation(obs)
        if not view.legal:
            raise ValueError("no legal action to choose from")
        self._moves += 1
        self._endgame = None  # a table per move keeps memory small
        if view.trump_card is not None:
            self._trump_card = view.trump_card
        if len(view.legal) == 1:
            return view.legal_text[0]
        counting = Counting(view, self._trump_card)
        perfect = perfect_hands(view, counting)
        if perfect is not None:
            hands, stock = perfect
            base = build_game(view, hands, stock)
            preferred = casual_code(base, view.legal, self.params, counting.knowledge)
            exact = solve_exact(
                view,
                base,
                stock,
                preferred,
                self.exact_node_cap,
                None if self.iterations is not None else start + self.budget_s * _SOLVE_SHARE,
                self.clock,
            )
            if exact is not None:
                return view.text_of(exact)
            # Too big to solve in time (with transfers, even seven cards can be): search the
            # known deal by playouts, as any other position, for the time left.
            soft = min(deadline, self.clock() + self.think_s * 0.92)
        else:
            hands, stock = deterministic_fill(view)
            base = build_game(view, hands, stock)
            preferred = casual_code(base, view.legal, self.params, counting.knowledge)
        cands = candidates(base, view.legal, preferred, self.max_candidates)
        if len(cands) == 1:
            return view.text_of(preferred)
        found = self._search(view, counting, cands, soft, deadline)
        return view.text_of(found if found is not None else preferred)

    # ------------------------------------------------------------------ search
    def _search(
        self,
        view: ParsedObservation,
        counting: Counting,
        cands: list[int],
        soft: float,
        hard: float,
    ) -> int | None:
        """Play every live candidate out on the same sampled deals until ``soft``; drop a
        candidate once it is clearly worse than the best; when the choice is still close at
        ``soft``, go on until it is clear or ``hard`` comes."""
        rng = self.rng
        me = view.seat
        scores: list[list[float]] = [[] for _ in cands]
        live = list(range(len(cands)))
        done = 0
        max_iter = self.iterations if self.iterations is not None else 10**9
        timed = self.iterations is None
        extended = False
        while done < max_iter:
            if timed:
                now = self.clock()
                if now > hard:
                    break
                if now > soft:
                    if not extended:
                        if not self._may_extend() or not self._close(scores, live):
                            break
                        extended = True
                        self._extended += 1
                    elif not self._close(scores, live):
                        break
            sample = sample_deal(
                view,
                counting,
                rng,
                self.w_lacks,
                self.w_stale,
                self.w_declined,
            )
            if sample is None:
                return None
            hands, stock = sample
            root = build_game(view, hands, stock)
            results = []
            try:
                for i in live:
                    g = fast_clone(root)
                    g.apply_code(cands[i])
                    results.append(self._evaluate(g, me, hard))
            except _OutOfTime:
                break
            for i, r in zip(live, results, strict=True):
                scores[i].append(r)
            done += 1
            if len(live) > 1 and done >= _PRUNE_FROM and not done % _PRUNE_EVERY:
                live = self._prune(scores, live)
        if not done:
            return None
        return cands[self._pick(scores, live)]

    def _may_extend(self) -> bool:
        """Time management: at most ``_EXTEND_SHARE`` of this game's moves go past the normal
        thinking time, so the median move stays within it."""
        return self._extended < _EXTEND_SHARE * self._moves

    @staticmethod
    def _paired(a: list[float], b: list[float]) -> tuple[float, float]:
        """Mean and standard error of ``a - b`` over their common samples."""
        n = min(len(a), len(b))
        if n < 2:
            return 0.0, 1.0
        diffs = [a[k] - b[k] for k in range(n)]
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        return mean, (var / n) ** 0.5

    def _leader(self, scores: list[list[float]], live: list[int]) -> int:
        n = len(scores[live[0]])
        return max(live, key=lambda i: sum(scores[i][:n]))

    def _prune(self, scores: list[list[float]], live: list[int]) -> list[int]:
        """Live candidates minus those clearly worse than the leader (casual's choice, index
        0, always stays: it is what the others must beat)."""
        lead = self._leader(scores, live)
        keep = []
        for i in live:
            if i not in (0, lead):
                mean, se = self._paired(scores[lead], scores[i])
                if mean > _PRUNE_SE * se and mean > 0:
                    continue
            keep.append(i)
        return keep

    def _close(self, scores: list[list[float]], live: list[int]) -> bool:
        """Whether the choice is still open: some other live candidate may still be better,
        by more than ``_WORTH``, than the one that would be picked now (upper bound: its mean
        plus ``_CLOSE_SE`` standard errors)."""
        if len(live) < 2 or not scores[live[0]]:
            return len(live) > 1
        pick = self._pick(scores, live)
        for i in live:
            if i != pick:
                mean, se = self._paired(scores[pick], scores[i])
                if _CLOSE_SE * se - mean > _WORTH:
                    return True
        return False

    def _pick(self, scores: list[list[float]], live: list[int]) -> int:
        """The live candidate with the best mean, if it beats the casual choice (index 0) by
        more than ``self.margin`` standard errors of the paired difference; else the casual
        choice.  The samples are shared, so the paired difference is far less noisy than the
        means."""
        best, best_mean = 0, 0.0
        for i in live:
            if i == 0:
                continue
            mean, se = self._paired(scores[i], scores[0])
            if mean > best_mean and mean > self.margin * se:
                best, best_mean = i, mean
        return best

    def _evaluate(self, g: Game, me: int, deadline: float) -> float:
        """1 when ``me`` is not the durak at the end of a playout, 0 when it is (1/2: draw);
        in a team game, when ``me``'s team is not the losing team."""
        params = self.params
        solve_stock = self.solve_stock if _solvable(g) else -1
        epsilon = self.playout_epsilon(g.n)
        rand = self.rng.random
        check = 0
        while not g.finished:
            if (
                len(g.stock) <= solve_stock
                and g.active_players == 2
                and (len(g.stock) or self._small(g))
            ):
                v = self._solve(g, me, deadline)
                if v is not None:
                    return v
                solve_stock = -1  # too big: play it out
            legal = g.legal_codes()
            if len(legal) == 1:
                g.apply_code(legal[0])
            elif epsilon and rand() < epsilon:
                g.apply_code(legal[int(rand() * len(legal))])
            else:
                g.apply_code(casual_code(g, legal, params))
            check += 1
            if not check & 63:
                if self.iterations is None and self.clock() > deadline:
                    raise _OutOfTime
                if check > _PLAYOUT_CAP:  # with transfers, cards can circle for ever
                    return 0.5
        if g.draw or not g.finished:
            return 0.5
        return 0.0 if me in g.losers else 1.0

    def _small(self, g: Game) -> bool:
        """Whether an empty-stock position is small enough to solve in a playout."""
        cards = len(g.table_attacks) * 2
        for s in range(g.n):
            cards += g.hands[s].bit_count()
        return cards <= self.solve_cards

    def _solve(self, g: Game, me: int, deadline: float) -> float | None:
        active = [s for s in range(g.n) if not g.out >> s & 1]
        if me not in active:
            return 1.0
        opp = active[0] if active[1] == me else active[1]
        stock = list(reversed(g.stock))
        timed = self.iterations is None
        if stock:
            solver = Solver(
                g.trump,
                g.rules.transfer,
                stock,
                node_cap=self.node_cap,
                deadline=deadline if timed else None,
                clock=self.clock,
            )
        else:
            solver = self._endgame_solver(g)
            solver.nodes = 0
            solver.deadline = deadline if timed else None
        try:
            v = solver.value(state_from_game(g, me, opp, stock))
        except SearchAborted:
            if timed and self.clock() > deadline:
                raise _OutOfTime from None
            return None
        return (v + 1) / 2

    def _endgame_solver(self, g: Game) -> Solver:
        """One solver for every empty-stock position met during this move: such a position
        does not depend on the stock order, so its table serves every sample and candidate."""
        key = (g.trump, g.rules.transfer)
        solver = self._endgame
        if solver is None or self._endgame_key != key or len(solver.tt) > _ENDGAME_TT_MAX:
            solver = Solver(g.trump, g.rules.transfer, (), node_cap=self.node_cap, clock=self.clock)
            self._endgame, self._endgame_key = solver, key
        return solver


def _solvable(g: Game) -> bool:
    """Whether the exact two-player solver plays ``g``'s rules: not with shown trumps or teams."""
    return not g.rules.show_trump and g.rules.teams == "none"


class _OutOfTime(Exception):
    pass


#: The expert's own option names (besides the casual policy's :class:`Params` fields).
_OWN_OPTIONS = frozenset(inspect.signature(ExpertAgent.__init__).parameters) - {
    "self",
    "seed",
    "options",
}
