"""``expert``: determinized Monte Carlo search (perfect-information Monte Carlo).

For each sampled deal of the unseen cards, consistent with every card seen and weighted away
from what the opponents showed they lack (a take, a declined throw-in), every candidate action
is played out: casual-policy playouts for all seats, and the exact two-player solver once the
position is small (the stock nearly empty and one opponent left).  The action that minimises
the seat's chance of being the durak over all samples wins; the same samples serve every
candidate (common random numbers).  With every card's place known (one opponent, empty stock)
it solves exactly, as the counter does.

Options: ``budget_s`` (hard time budget per move, default 0.3 s), ``iterations`` (cap on the
number of sampled deals, for reproducible runs), ``solve_stock`` (largest stock at which sampled
two-player deals are solved exactly), ``node_cap`` (per solve).
"""

from __future__ import annotations

import time
from typing import Any

from rules_engine.ai.base import Agent, Observation, register_level
from rules_engine.ai.counter import Counting, perfect_hands, solve_exact
from rules_engine.ai.policy import DEFAULT, VALUE, Params, casual_code, lowest, with_options
from rules_engine.ai.position import build_game, deterministic_fill, fast_clone
from rules_engine.ai.solver import SearchAborted, Solver, state_from_game
from rules_engine.ai.view import View
from rules_engine.cards import RANK_MASK, RANK_OF, SUIT_MASK
from rules_engine.game import Game

__all__ = ["ExpertAgent", "candidates", "sample_deal"]

_W_LACKS = 0.08
_PLAYOUT_CAP = 600
_W_STALE = 0.5


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def sample_deal(
    view: View, counting: Counting, rng: Any
) -> tuple[list[int], list[int]] | None:
    """Hands and stock (drawing order) for the unseen cards, drawn at random: each opponent
    gets its known cards plus unseen ones, cards it showed it lacks being less likely."""
    hidden = _bits(counting.unseen)
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
                w = cap * _W_LACKS
            elif stale[g] & bit:
                w = cap * _W_STALE
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


def candidates(g: Game, legal: list[int], preferred: int, limit: int = 10) -> list[int]:
    """The actions worth searching: the casual choice, and per rank / per attack the sensible
    card choices (cheapest plain, cheapest trump, the whole group), take and pass."""
    seat = g.to_act
    assert seat is not None
    legal_set = set(legal)
    trump = g.trump
    val = VALUE[trump]
    tmask = SUIT_MASK[trump]
    hand = g.hands[seat]
    out: list[int] = [preferred]

    def add(code: int) -> None:
        if code in legal_set and code not in out:
            out.append(code)

    if seat == g.defender and g._uncovered and not g.taking:
        for c in legal:
            if c & 7 == 2:
                add(c)
        for a in sorted(_bits(g._uncovered), key=lambda x: -val[x]):
            bs = hand & g._beaters[a]
            plain = bs & ~tmask
            trumps = bs & tmask
            if plain:
                add(1 | (a | lowest(plain, trump) << 6) << 3)
            if trumps:
                add(1 | (a | lowest(trumps, trump) << 6) << 3)
                high = trumps.bit_length() - 1
                add(1 | (a | high << 6) << 3)
        add(3)
    else:
        cands = hand & g._addable if g.table_attacks else hand
        ranks = []
        rem = cands
        while rem:
            low = rem & -rem
            cards = rem & RANK_MASK[RANK_OF[low.bit_length() - 1]]
            rem ^= cards
            ranks.append(cards)
        ranks.sort(key=lambda m: val[lowest(m, trump)])
        for cards in ranks:
            plain = cards & ~tmask
            if plain:
                add((plain & -plain) << 3)
                add(plain << 3)
            add((cards & -cards) << 3)
            add(cards << 3)
        add(4)
    if len(out) > limit:
        out = out[:limit]
    return out


class ExpertAgent(Agent):
    level = "expert"

    def __init__(
        self,
        seed: int | None = None,
        budget_s: float = 0.3,
        iterations: int | None = None,
        solve_stock: int = -1,
        node_cap: int = 4000,
        exact_node_cap: int = 10**9,
        margin: float = 1.0,
        max_candidates: int = 7,
        params: Params | None = None,
        **options: Any,
    ) -> None:
        super().__init__(seed)
        self.budget_s = budget_s
        self.iterations = iterations
        self.solve_stock = solve_stock
        self.node_cap = node_cap
        self.exact_node_cap = exact_node_cap
        self.margin = margin
        self.max_candidates = max_candidates
        self.params = with_options(params or DEFAULT, options)
        self._trump_card: int | None = None

    def new_game(self) -> None:
        self._trump_card = None

    def choose(self, obs: Observation) -> str:
        start = time.perf_counter()
        deadline = start + self.budget_s * 0.92
        view = View(obs)
        if not view.legal:
            raise ValueError("no legal action to choose from")
        if view.trump_card is not None:
            self._trump_card = view.trump_card
        if len(view.legal) == 1:
            return view.legal_text[0]
        counting = Counting(view, self._trump_card)
        perfect = perfect_hands(view, counting)
        if perfect is not None:
            hands, stock = perfect
            game = build_game(view, hands, stock)
            code = casual_code(game, view.legal, self.params, counting.knowledge)
            exact = solve_exact(
                view, game, stock, code, self.exact_node_cap,
                None if self.iterations is not None else deadline,
            )
            if exact is not None:
                return view.text_of(exact)
            return view.text_of(code)
        hands, stock = deterministic_fill(view)
        base = build_game(view, hands, stock)
        preferred = casual_code(base, view.legal, self.params, counting.knowledge)
        cands = candidates(base, view.legal, preferred, self.max_candidates)
        if len(cands) == 1:
            return view.text_of(preferred)
        found = self._search(view, counting, cands, deadline)
        return view.text_of(found if found is not None else preferred)

    # ------------------------------------------------------------------ search
    def _search(
        self, view: View, counting: Counting, cands: list[int], deadline: float
    ) -> int | None:
        rng = self.rng
        me = view.seat
        scores: list[list[float]] = [[] for _ in cands]
        done = 0
        max_iter = self.iterations if self.iterations is not None else 10**9
        while done < max_iter:
            if self.iterations is None and time.perf_counter() > deadline:
                break
            sample = sample_deal(view, counting, rng)
            if sample is None:
                return None
            hands, stock = sample
            root = build_game(view, hands, stock)
            results = []
            try:
                for code in cands:
                    g = fast_clone(root)
                    g.apply_code(code)
                    results.append(self._evaluate(g, me, deadline))
            except _OutOfTime:
                break
            for i, r in enumerate(results):
                scores[i].append(r)
            done += 1
        if not done:
            return None
        return cands[self._pick(scores)]

    def _pick(self, scores: list[list[float]]) -> int:
        """The candidate with the best mean, if it beats the casual choice (index 0) by more
        than ``self.margin`` standard errors of the paired difference; else the casual choice.
        The samples are shared, so the paired difference is far less noisy than the means."""
        base = scores[0]
        n = len(base)
        best, best_mean = 0, 0.0
        for i in range(1, len(scores)):
            diffs = [a - b for a, b in zip(scores[i], base, strict=True)]
            mean = sum(diffs) / n
            if mean <= best_mean:
                continue
            var = sum((d - mean) ** 2 for d in diffs) / max(n - 1, 1)
            se = (var / n) ** 0.5
            if mean > self.margin * se:
                best, best_mean = i, mean
        return best

    def _evaluate(self, g: Game, me: int, deadline: float) -> float:
        """1 when ``me`` is not the durak at the end of a playout, 0 when it is (1/2: draw)."""
        params = self.params
        solve_stock = self.solve_stock
        check = 0
        while not g.finished:
            if len(g.stock) <= solve_stock and g.n - g.out.bit_count() == 2:
                v = self._solve(g, me, deadline)
                if v is not None:
                    return v
                solve_stock = -1  # too big: play it out
            legal = g.legal_codes()
            g.apply_code(casual_code(g, legal, params) if len(legal) > 1 else legal[0])
            check += 1
            if not check & 63:
                if self.iterations is None and time.perf_counter() > deadline:
                    raise _OutOfTime
                if check > _PLAYOUT_CAP:  # with transfers, cards can circle for ever
                    return 0.5
        if g.loser is None:
            return 0.5
        return 0.0 if g.loser == me else 1.0

    def _solve(self, g: Game, me: int, deadline: float) -> float | None:
        active = [s for s in range(g.n) if not g.out >> s & 1]
        if me not in active:
            return 1.0
        opp = active[0] if active[1] == me else active[1]
        stock = list(reversed(g.stock))
        solver = Solver(
            g.trump, g.rules.transfer, stock, node_cap=self.node_cap,
            deadline=deadline if self.iterations is None else None,
        )
        try:
            v = solver.value(state_from_game(g, me, opp, stock))
        except SearchAborted:
            if self.iterations is None and time.perf_counter() > deadline:
                raise _OutOfTime from None
            return None
        return (v + 1) / 2


class _OutOfTime(Exception):
    pass


register_level("expert", ExpertAgent)
