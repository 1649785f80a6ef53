"""``counter``: the casual heuristics plus card counting and exact endgames.

* It tracks every card seen (discards, takes, the trump card and who drew it, the shown trump)
  with :class:`~rules_engine.ai.tracker.Tracker`, and what the others showed they lack (a take
  against an attack, a declined throw-in).
* The heuristics use it: lead what the defender cannot beat, take at once when the attackers
  hold cards that would overload the defence.
* Once only one opponent is left and the stock is empty (or holds just the face-up trump card),
  every card's place is known: it solves the position exactly (alpha-beta with a node cap) and
  plays a winning move if there is one.  The solver plays the traditional two-player game: not
  used when trumps can be shown or in team games (RULES.md §10.2, §10.3), where the heuristics
  play on.

It counts the game's own pack (24, 36 or 52 cards, RULES.md §10.1), and the trumps shown to
transfer are known cards of their holders.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rules_engine.ai.base import Agent, Observation
from rules_engine.ai.parsed import ParsedObservation
from rules_engine.ai.policy import (
    DEFAULT,
    LONG_GAME_ROUNDS,
    Knowledge,
    Params,
    casual_code,
    with_options,
)
from rules_engine.ai.position import build_game, deterministic_fill
from rules_engine.ai.solver import SearchAborted, Solver, state_from_game
from rules_engine.ai.tracker import Tracker
from rules_engine.cards import PACK_MASK
from rules_engine.game import Game

__all__ = ["CounterAgent", "Counting", "perfect_hands"]


class Counting:
    """Everything a counting seat knows: cards each seat surely holds, may hold, and the cards
    whose place is unknown."""

    def __init__(self, view: ParsedObservation, trump_card: int | None = None) -> None:
        self.view = view
        tracker = self.tracker = Tracker(view, trump_card)
        has = tracker.has()
        has[view.seat] = view.hand
        for s in range(view.n):
            if s != view.seat:
                has[s] &= ~view.hand
        seen = view.hand | view.discard | view.table_mask
        if view.trump_card is not None:
            seen |= 1 << view.trump_card
        for h in has:
            seen |= h
        self.has = has
        self.unseen = PACK_MASK[view.rules.deck] & ~seen
        unseen = self.unseen

        def still_unseen(masks: list[int]) -> list[int]:
            """An inference per seat, kept to unseen cards (none when the replay failed)."""
            return [x & unseen for x in masks] if tracker.ok else [0] * view.n

        self.lacks = still_unseen(tracker.lacks)
        self.lacks_stale = still_unseen(tracker.lacks_stale)
        #: Plain cards of a rank a seat did not transfer with when it could (fresh / stale).
        self.declined = still_unseen(tracker.declined)
        self.declined_stale = still_unseen(tracker.declined_stale)
        may = []
        for s in range(view.n):
            if s == view.seat:
                may.append(view.hand)
            elif view.out >> s & 1:
                may.append(0)
            else:
                may.append(has[s] | (self.unseen & ~self.lacks[s]))
        self.knowledge = Knowledge(has, may)


def perfect_hands(
    view: ParsedObservation, counting: Counting
) -> tuple[list[int], list[int]] | None:
    """Every hand and the stock when their places are known: one opponent left, and the stock
    empty or holding only the face-up trump card.  ``None`` also when the exact solver does not
    play the game's rules (shown trumps, teams)."""
    if view.rules.show_trump or view.rules.teams != "none":
        return None
    active = [s for s in range(view.n) if not view.out >> s & 1]
    if len(active) != 2 or view.stock > 1:
        return None
    if view.stock == 1 and view.trump_card is None:
        return None
    opp = active[0] if active[1] == view.seat else active[1]
    hands = [0] * view.n
    hands[view.seat] = view.hand
    hands[opp] = counting.has[opp] | counting.unseen
    if hands[opp].bit_count() != view.hand_sizes[opp]:
        return None
    stock = [view.trump_card] if view.stock == 1 and view.trump_card is not None else []
    return hands, stock


def solve_exact(
    view: ParsedObservation,
    game: Game,
    stock: list[int],
    preferred: int,
    node_cap: int,
    deadline: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> int | None:
    """A best move of the two-player position ``game`` (``preferred`` when it is as good),
    or ``None`` if the node cap is hit or ``clock()`` passes ``deadline``."""
    me = view.seat
    opp = next(s for s in range(view.n) if s != me and not view.out >> s & 1)
    # in very long games stop transferring (see policy._LONG_GAME_ROUNDS): no endless circles
    transfer = game.rules.transfer and game.round <= LONG_GAME_ROUNDS
    solver = Solver(game.trump, transfer, stock, node_cap=node_cap, deadline=deadline, clock=clock)
    root = state_from_game(game, me, opp, stock)
    try:
        children = dict(solver.moves(root))
        pref_child = children.get(preferred)
        pref_v = solver.value(pref_child) if pref_child is not None else -2
        if pref_v == 1:
            return preferred
        code, v = solver.best_move(root)
    except SearchAborted:
        return None
    if v <= pref_v:
        return preferred
    return code if code in view.legal else None


class CounterAgent(Agent):
    def __init__(
        self,
        seed: int | None = None,
        node_cap: int = 20_000,
        params: Params | None = None,
        time_cap_s: float = 0.05,
        **options: Any,
    ) -> None:
        super().__init__(seed)
        self.node_cap = node_cap
        self.time_cap_s = time_cap_s
        self.params = with_options(params or DEFAULT, options)
        self._trump_card: int | None = None

    def new_game(self) -> None:
        self._trump_card = None

    def remember(self, view: ParsedObservation) -> int | None:
        """The face-up trump card, remembered once it has been drawn (it was public)."""
        if view.trump_card is not None:
            self._trump_card = view.trump_card
        elif self._trump_card is not None and self._trump_card & 3 != view.trump:
            self._trump_card = None
        return self._trump_card

    def choose(self, obs: Observation) -> str:
        view = ParsedObservation(obs)
        if not view.legal:
            raise ValueError("no legal action to choose from")
        trump_card = self.remember(view)
        if len(view.legal) == 1:
            return view.legal_text[0]
        counting = Counting(view, trump_card)
        perfect = perfect_hands(view, counting)
        if perfect is not None:
            hands, stock = perfect
        else:
            hands, stock = deterministic_fill(view)
        game = build_game(view, hands, stock)
        code = casual_code(game, view.legal, self.params, counting.knowledge)
        if perfect is not None:
            deadline = time.perf_counter() + self.time_cap_s
            exact = solve_exact(view, game, stock, code, self.node_cap, deadline)
            if exact is not None:
                code = exact
        return view.text_of(code)
