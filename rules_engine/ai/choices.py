"""The value of every legal choice of one decision, from the deciding seat's observation only:
the chance that the seat ends as the durak after each choice (a draw counts half).

This is the expert's own judgement (:mod:`rules_engine.ai.expert`) made exhaustive and
reproducible, for the review of a game (:mod:`rules_engine.ai.review`):

* **Exact** when every card's place is known to the seat (two players left and the stock empty,
  or holding only the face-up trump card: :func:`~rules_engine.ai.counter.perfect_hands`): each
  choice is solved by the two-player solver (:mod:`rules_engine.ai.solver`; win, draw or loss:
  a chance of 0, 1/2 or 1, standard error 0).  The solves share one table and at most
  ``node_cap`` nodes each; a choice whose solve does not finish is valued by playouts on the
  known deal, as the expert does.
* **Sampled** otherwise: ``deals`` deals of the unseen cards, drawn as the expert draws them
  (:func:`~rules_engine.ai.expert.sample_deal`: consistent with every card seen, weighted away
  from what the opponents showed they lack), and every live choice played out on each
  (:meth:`ExpertAgent.playout <rules_engine.ai.expert.ExpertAgent.playout>`: casual playouts
  with the expert's share of random moves, finished by the solver).  Common random numbers:
  every choice meets the same deals *and* the same random stream in its playout (the playout
  generator is re-seeded per deal), so the differences between choices are far less noisy than
  the chances themselves.  From deal 32 on, every 8 deals, a choice more than 2.5 standard
  errors of the paired difference worse than the leader stops being played out (never the
  choice actually made): its estimate keeps the deals it had, and its larger standard error.

No clock is read anywhere: the result is a function of the observation, the choice made, the
budget and the seed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rules_engine.ai.counter import Counting, perfect_hands
from rules_engine.ai.expert import ExpertAgent, sample_deal
from rules_engine.ai.parsed import ParsedObservation
from rules_engine.ai.position import build_game, deterministic_fill, fast_clone
from rules_engine.ai.solver import SearchAborted, Solver, state_from_game
from rules_engine.game import Game

__all__ = ["DEFAULT_NODE_CAP", "ChoiceEstimate", "estimate_choices"]

#: Nodes the exact solves of one decision may search in all (≈0.7 s at the solver's pace;
#: 99% of the empty-stock decisions of casual two-player games need fewer than 100 000).
DEFAULT_NODE_CAP = 200_000
#: Successive rejection of clearly worse choices (the expert's rule: from deal 32 on, every 8
#: deals, 2.5 standard errors of the paired difference behind the leader).
_PRUNE_FROM = 32
_PRUNE_EVERY = 8
_PRUNE_SE = 2.5


@dataclass(frozen=True, slots=True)
class ChoiceEstimate:
    """One legal choice and the estimated chance that the seat ends as the durak after it.

    ``durak``: the chance (a draw counts half); ``stderr``: its standard error (0 when exact);
    ``exact``: settled by the solver; ``deals``: the sampled deals it was played out on (0 when
    exact)."""

    action: str
    durak: float
    stderr: float
    exact: bool
    deals: int


def estimate_choices(
    obs: Mapping[str, Any],
    *,
    deals: int,
    seed: int,
    keep: str | None = None,
    trump_card: int | None = None,
    node_cap: int = DEFAULT_NODE_CAP,
) -> tuple[ChoiceEstimate, ...]:
    """Every legal choice of ``obs`` (the observation of the seat to act, SCENARIOS.md OBS)
    with its estimated chance of the durak, in the order of ``obs["legal"]``.

    ``deals``: sampled deals per choice (at least 2); ``seed``: the random generator's seed;
    ``keep``: a legal action never dropped early (the choice actually made); ``trump_card``:
    the face-up trump card as the seat saw it at the deal (public; it tells who drew it);
    ``node_cap``: nodes of the exact solves of this decision, in all.
    """
    if deals < 2:
        raise ValueError(f"the budget must be at least 2 sampled deals, not {deals}")
    view = ParsedObservation(obs)
    if not view.legal:
        raise ValueError("the seat has no legal action in this observation")
    if view.trump_card is not None:
        trump_card = view.trump_card
    counting = Counting(view, trump_card)
    perfect = perfect_hands(view, counting)
    exact: dict[int, float] = {}
    if perfect is not None:
        hands, stock = perfect
        exact = _solve_each(view, build_game(view, hands, stock), stock, node_cap)
    open_ = [i for i in range(len(view.legal)) if i not in exact]
    sampled: dict[int, tuple[float, float, int]] = {}
    if open_:
        kept = view.legal_text.index(keep) if keep in view.legal_text else None
        sampled = _sample(view, counting, open_, kept, deals, seed)
    out = []
    for i, text in enumerate(view.legal_text):
        if i in exact:
            out.append(ChoiceEstimate(text, exact[i], 0.0, True, 0))
        else:
            mean, se, n = sampled[i]
            out.append(ChoiceEstimate(text, 1.0 - mean, se, False, n))
    return tuple(out)


def _solve_each(
    view: ParsedObservation, base: Game, stock: list[int], node_cap: int
) -> dict[int, float]:
    """The exact chance of the durak after each legal choice, as long as the solves, in the
    order of the legal choices, stay within ``node_cap`` nodes in all (one table for all:
    positions recur between choices); the choices left when it runs out are not in the
    answer."""
    me = view.seat
    opp = next(s for s in range(view.n) if s != me and not view.out >> s & 1)
    solver = Solver(base.trump, base.rules.transfer, stock, node_cap=node_cap)
    out: dict[int, float] = {}
    for i, code in enumerate(view.legal):
        g = fast_clone(base)
        g.apply_code(code)
        if g.finished:
            out[i] = 0.5 if g.loser is None else float(g.loser == me)
            continue
        try:
            v = solver.value(state_from_game(g, me, opp, list(reversed(g.stock))))
        except SearchAborted:
            solver.path.clear()
            break
        out[i] = (1 - v) / 2  # the solver's +1: the opponent is the durak
    return out


def _sample(
    view: ParsedObservation,
    counting: Counting,
    choices: Sequence[int],
    kept: int | None,
    deals: int,
    seed: int,
) -> dict[int, tuple[float, float, int]]:
    """Mean playout score (1: not the durak), its standard error and the deals played, for
    each of ``choices`` (indices into ``view.legal``), on common deals and random streams."""
    model = ExpertAgent(seed=seed, iterations=deals)
    rng = random.Random(seed)
    me = view.seat
    scores: dict[int, list[float]] = {i: [] for i in choices}
    live = list(choices)
    for done in range(1, deals + 1):
        sample = sample_deal(view, counting, rng, model.w_lacks, model.w_stale, model.w_declined)
        # None only when the observation's counts do not add up (never with the engine's
        # observations); a fixed fill keeps the review going rather than failing it
        hands, stock = sample if sample is not None else deterministic_fill(view)
        root = build_game(view, hands, stock)
        stream = rng.getrandbits(64)
        for i in live:
            g = fast_clone(root)
            g.apply_code(view.legal[i])
            model.rng.seed(stream)
            scores[i].append(model.playout(g, me))
        if len(live) > 1 and done >= _PRUNE_FROM and not done % _PRUNE_EVERY:
            live = _prune(scores, live, kept)
    return {i: _mean_se(s) for i, s in scores.items()}


def _prune(scores: dict[int, list[float]], live: list[int], kept: int | None) -> list[int]:
    """``live`` minus the choices clearly worse than the leader (never the leader, never
    ``kept``)."""
    n = len(scores[live[0]])
    lead = max(live, key=lambda i: sum(scores[i][:n]))
    out = []
    for i in live:
        if i not in (lead, kept):
            diffs = [a - b for a, b in zip(scores[lead], scores[i], strict=True)]
            mean, se, _ = _mean_se(diffs)
            if mean > 0 and mean > _PRUNE_SE * se:
                continue
        out.append(i)
    return out


def _mean_se(xs: Sequence[float]) -> tuple[float, float, int]:
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.25
    return mean, (var / n) ** 0.5, n
