"""``ismcts``: plain single-observer Information Set Monte Carlo Tree Search, as in Cowling,
Powley & Whitehouse 2012 ("Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2)).

A yardstick for the other levels (issue 13), written from the paper, not from the expert:

* each iteration draws a **uniform determinization** of the cards the seat cannot see: every
  other seat keeps the cards everyone knows it holds (shown at the deal, picked up in a take,
  the drawn trump card) and gets the rest of its hand size from the unseen cards, the stock
  gets the remainder, with the face-up trump card at its bottom;
* it descends **one tree** whose nodes are the observer's information sets: an edge is an
  action as everyone sees it (``seat`` + action; every Durak action is public), so the nodes
  below an opponent's action are shared by all determinizations in which it was legal;
* **selection** by UCB1 with availability counts among the actions legal in this
  determinization: ``w/n + c * sqrt(ln(avail)/n)``, where ``avail`` counts the selection
  steps at the parent in which that action was available (``c`` = 0.7);
* **expansion** of one untried legal action (chosen at random);
* a cheap greedy **rollout** to the end of the game: lowest card (plain before trump) to lead,
  beat with the lowest beater else take, throw in the lowest plain card else pass, never
  transfer;
* **backup** of a reward per seat, 1 − (that seat is the durak), a draw ½ for everyone; each
  node's wins are counted from the seat that made the action leading to it.

The move played is the root action with the most visits.  Options: ``iterations`` (300),
``c`` (0.7).  Deterministic given the seed; no clock, no I/O.  With the table options
(RULES.md §10) the determinizations come from the game's pack, and in a team game every seat
of the losing team is rewarded 0 (the reward of a seat is its team's).
"""

from __future__ import annotations

import math
import random

from rules_engine.ai.base import Agent, Observation
from rules_engine.ai.parsed import ParsedObservation
from rules_engine.ai.position import build_game, deterministic_fill, unseen_mask
from rules_engine.ai.tracker import Tracker
from rules_engine.cards import RANK_OF, iter_bits
from rules_engine.game import Game

__all__ = ["ISMCTSAgent", "Node", "determinize", "rollout", "rollout_code", "search", "select"]

_ATTACK, _DEFEND, _TRANSFER, _TAKE, _PASS = 0, 1, 2, 3, 4
#: Rollouts longer than this (deterministic play can pass cards round and round) score a draw.
_ROLLOUT_CAP = 1000


class Node:
    """A node of the observer's tree: statistics of the edge that leads to it.

    ``seat`` made that action; ``wins`` sums the rewards of ``seat``; ``avail`` counts the
    parent's selection steps in which the action was available (1 at creation, as in the
    paper's reference code).
    """

    __slots__ = ("avail", "children", "seat", "visits", "wins")

    def __init__(self, seat: int = -1) -> None:
        self.seat = seat
        self.visits = 0
        self.wins = 0.0
        self.avail = 1
        #: ``code << 3 | seat`` of the action -> child.
        self.children: dict[int, Node] = {}


def select(node: Node, seat: int, legal: tuple[int, ...], c: float) -> tuple[int, Node]:
    """UCB1 with availability counts over the children of ``node`` for the actions ``legal``
    of ``seat`` (all already expanded); every available child's ``avail`` is then raised by
    one.  Ties go to the first legal action."""
    children = node.children
    best_code = -1
    best: Node | None = None
    best_value = -math.inf
    for code in legal:
        child = children[code << 3 | seat]
        value = child.wins / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
        if value > best_value:
            best_value = value
            best_code = code
            best = child
    for code in legal:
        children[code << 3 | seat].avail += 1
    assert best is not None
    return best_code, best


def rollout_code(g: Game, legal: tuple[int, ...]) -> int:
    """The greedy rollout choice of the seat to act: the lowest card (plain before trump)."""
    if len(legal) == 1:
        return legal[0]
    seat = g.to_act
    trump = g.trump
    best = -1
    best_value = 99
    if seat == g.defender and g.uncovered and not g.taking:
        for code in legal:
            if code & 7 == _DEFEND:
                d = code >> 9
                value = RANK_OF[d] + (13 if d & 3 == trump else 0)
                if value < best_value:
                    best_value = value
                    best = code
        return best if best >= 0 else _TAKE
    opening = not g.table_attacks
    for code in legal:
        if code & 7 != _ATTACK:
            continue
        mask = code >> 3
        if mask & (mask - 1):
            continue  # single cards only
        c = mask.bit_length() - 1
        is_trump = c & 3 == trump
        if is_trump and not opening:
            continue  # never throw in a trump
        value = RANK_OF[c] + (13 if is_trump else 0)
        if value < best_value:
            best_value = value
            best = code
    if best >= 0:
        return best
    return _PASS if _PASS in legal else legal[0]


def rollout(g: Game) -> list[float]:
    """Play ``g`` out with :func:`rollout_code` for every seat; the reward of each seat."""
    moves = 0
    while not g.finished:
        if moves >= _ROLLOUT_CAP:
            return [0.5] * g.n
        g.apply_code(rollout_code(g, g.legal_codes()))
        moves += 1
    if g.draw:
        return [0.5] * g.n
    rewards = [1.0] * g.n
    for seat in g.losers:  # the durak, or every seat of the losing team
        rewards[seat] = 0.0
    return rewards


def _public_known(view: ParsedObservation) -> list[int]:
    """Cards each seat is known to hold: the observation's ``known``, or the public replay of
    the history when the observation has none."""
    if view.known_given:
        return list(view.known)
    return Tracker(view).has()


def determinize(
    view: ParsedObservation, known: list[int], rng: random.Random
) -> tuple[list[int], list[int]]:
    """Hands and stock (drawing order, the face-up trump card last) with the cards the seat
    cannot see dealt uniformly at random, consistent with hand sizes and known cards."""
    pool_mask = unseen_mask(view)
    hands = [0] * view.n
    needs: list[int] = []
    for s in range(view.n):
        if s == view.seat:
            hands[s] = view.hand
            needs.append(0)
            continue
        hands[s] = known[s] & ~view.hand
        pool_mask &= ~known[s]
        needs.append(view.hand_sizes[s] - hands[s].bit_count())
    stock_need = view.stock - (1 if view.trump_card is not None else 0)
    pool = list(iter_bits(pool_mask))
    if min(needs) < 0 or stock_need < 0 or sum(needs) + stock_need != len(pool):
        return deterministic_fill(view)  # inconsistent knowledge: never with engine observations
    rng.shuffle(pool)
    i = 0
    for s in range(view.n):
        for card in pool[i : i + needs[s]]:
            hands[s] |= 1 << card
        i += needs[s]
    stock = pool[i:]
    if view.trump_card is not None:
        stock.append(view.trump_card)
    return hands, stock


def search(view: ParsedObservation, iterations: int, rng: random.Random, c: float = 0.7) -> Node:
    """Run ``iterations`` ISMCTS iterations from the position of ``view``; the root."""
    root = Node(view.seat)
    known = _public_known(view)
    for _ in range(iterations):
        hands, stock = determinize(view, known, rng)
        g = build_game(view, hands, stock)
        node = root
        path = [root]
        # Selection: descend while every legal action of this determinization has a child.
        untried: list[int] = []
        while not g.finished:
            seat = g.to_act
            assert seat is not None
            legal = g.legal_codes()
            children = node.children
            untried = [code for code in legal if code << 3 | seat not in children]
            if untried:
                break
            code, node = select(node, seat, legal, c)
            g.apply_code(code)
            path.append(node)
        # Expansion: one untried action.
        if untried and not g.finished:
            seat = g.to_act
            assert seat is not None
            code = untried[rng.randrange(len(untried))]
            child = Node(seat)
            node.children[code << 3 | seat] = child
            g.apply_code(code)
            path.append(child)
        rewards = rollout(g)
        root.visits += 1
        for n in path[1:]:
            n.visits += 1
            n.wins += rewards[n.seat]
    return root


class ISMCTSAgent(Agent):
    """Plain single-observer ISMCTS (see the module docstring)."""

    def __init__(self, seed: int | None = None, iterations: int = 300, c: float = 0.7) -> None:
        super().__init__(seed)
        if iterations < 1:
            raise ValueError("iterations must be at least 1")
        self.iterations = iterations
        self.c = c

    def choose(self, obs: Observation) -> str:
        view = ParsedObservation(obs)
        if len(view.legal) == 1:
            return view.legal_text[0]
        root = search(view, self.iterations, self.rng, self.c)
        seat = view.to_act if view.to_act is not None else view.seat
        best = view.legal[0]
        best_visits = -1
        for code in view.legal:
            child = root.children.get(code << 3 | seat)
            visits = child.visits if child is not None else 0
            if visits > best_visits:
                best_visits = visits
                best = code
        return view.text_of(best)
