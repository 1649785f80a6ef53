"""The two-player solver plays the engine's rules exactly, and solves small endgames."""

from __future__ import annotations

import random
import sys

from rules_engine import PROFILES, Game, deal_from_seed
from rules_engine.ai.position import fast_clone
from rules_engine.ai.solver import SearchAborted, Solver, state_from_game

from .ai_support import random_positions


def _two_player_positions(count: int, seed: int) -> list[Game]:
    return random_positions(count, seed, players=(2, 2), max_moves=120)


def test_solver_moves_match_the_engine() -> None:
    for game in _two_player_positions(400, seed=5):
        solver = Solver(game.trump, game.rules.transfer, list(reversed(game.stock)))
        state = state_from_game(game, 0, 1)
        assert solver.to_act(state) == game.to_act
        legal = set(game.legal_codes())
        moves = solver.moves(state)
        codes = {c for c, _ in moves}
        assert codes <= legal
        # only defences of other uncovered attacks (a mere order) are left out
        assert all(c & 7 == 1 for c in legal - codes)
        for code, child in moves:
            g = fast_clone(game)
            g.apply_code(code)
            if isinstance(child, int):
                assert g.finished
                expected = 0 if g.loser is None else (1 if g.loser == 1 else -1)
                assert child == expected
            else:
                assert not g.finished
                assert (
                    state_from_game(
                        g, 0, 1, list(reversed(game.stock))[-len(g.stock) :] if g.stock else []
                    )[:2]
                    == child[:2]
                )
                assert child[3:] == state_from_game(g, 0, 1, [])[3:]


def test_fast_clone_copies_every_slot() -> None:
    game = _two_player_positions(1, seed=9)[0]
    c = fast_clone(game)
    for name in Game.__slots__:
        if name not in ("history", "_history_text"):
            assert getattr(c, name) == getattr(game, name), name


def test_solver_agrees_with_brute_force_on_tiny_endgames() -> None:
    rng = random.Random(3)
    checked = 0
    for game in _two_player_positions(1500, seed=8):
        if game.stock or game.rules.transfer or sum(h.bit_count() for h in game.hands) > 5:
            continue
        if checked >= 12:
            break
        solver = Solver(game.trump, game.rules.transfer, [])
        v = solver.value(state_from_game(game, 0, 1))
        assert v == _minimax(game)
        checked += 1
    assert checked >= 5
    del rng


def test_solver_ends_on_transfer_endgames() -> None:
    """With transfers cards can circle for ever; the solver still returns."""
    done = 0
    for game in _two_player_positions(200, seed=12):
        if game.stock or not game.rules.transfer or sum(h.bit_count() for h in game.hands) > 9:
            continue
        solver = Solver(game.trump, True, [], node_cap=100_000)
        assert solver.value(state_from_game(game, 0, 1)) in (-1, 0, 1)
        done += 1
    assert done >= 3


def test_deep_transfer_lines_abort_instead_of_overflowing_the_stack() -> None:
    """Transfers can pass cards round for hundreds of plies without repeating a state (a
    tournament game once died of RecursionError); past ``max_depth`` the search aborts."""
    rng = random.Random(2)
    deep = 0
    for _ in range(40):
        game = Game(PROFILES["perevodnoy"], deal_from_seed(2, rng.randrange(10**9)))
        while not game.finished and (game.stock or sum(h.bit_count() for h in game.hands) > 10):
            legal = game.legal_codes()
            game.apply_code(legal[rng.randrange(len(legal))])
        if game.finished:
            continue
        solver = Solver(game.trump, True, [], node_cap=300_000, max_depth=60)
        try:
            solver.value(state_from_game(game, 0, 1))
        except SearchAborted:
            assert solver.nodes <= solver.node_cap
            deep += solver.nodes < solver.node_cap  # the depth limit, not the node cap
            assert not solver.path  # the path is unwound: the solver stays usable
    assert deep >= 3
    assert Solver(0, True).max_depth + 300 <= sys.getrecursionlimit()


def _minimax(g: Game) -> int:
    if g.finished:
        return 0 if g.loser is None else (1 if g.loser == 1 else -1)
    vals = []
    for code in g.legal_codes():
        c = fast_clone(g)
        c.apply_code(code)
        vals.append(_minimax(c))
    return max(vals) if g.to_act == 0 else min(vals)
