"""The ``ismcts`` yardstick (issue 13): legal, blind to hidden cards, deterministic given its
seed, uniform determinizations, and the UCB / availability bookkeeping of its tree."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from rules_engine import PROFILES, Game, deal_from_seed, observation, parse_action
from rules_engine.ai import make_agent
from rules_engine.ai.ismcts import Node, determinize, search, select
from rules_engine.ai.parsed import ParsedObservation
from rules_engine.ai.position import unseen_mask
from rules_engine.cards import iter_bits
from rules_engine.tournament import main as tournament_main

from .ai_support import agent_cli_answers_legally, random_positions
from .test_ai_hidden_cards import reshuffle_hidden


def test_always_legal_on_random_positions_of_every_profile_and_table_size() -> None:
    seen: set[tuple[str, int]] = set()
    for i, game in enumerate(random_positions(250, seed=131)):
        seat = game.to_act
        assert seat is not None
        obs = observation(game, seat)
        choice = make_agent("ismcts", seed=i, iterations=25).choose(obs)
        assert choice in obs["legal"], (choice, obs)
        seen.add((game.rules.name, game.n))
    assert {n for _, n in seen} == {2, 3, 4, 5, 6}
    assert {name for name, _ in seen} == set(PROFILES)


def test_hidden_cards_never_change_its_choice() -> None:
    """The twin game with the unseen cards dealt anew gives the same choice (same seed)."""
    rng = random.Random(5)
    checked = 0
    for i, game in enumerate(random_positions(80, seed=57)):
        seat = game.to_act
        assert seat is not None
        twin = reshuffle_hidden(game, seat, rng)
        if twin is None:
            continue
        obs_a, obs_b = observation(game, seat), observation(twin, seat)
        assert obs_a == obs_b
        a = make_agent("ismcts", seed=i, iterations=60).choose(obs_a)
        b = make_agent("ismcts", seed=i, iterations=60).choose(obs_b)
        assert a == b
        checked += 1
    assert checked > 20


def test_deterministic_given_the_seed_and_the_seed_matters() -> None:
    positions = random_positions(60, seed=77)
    observations = [observation(g, g.to_act) for g in positions if g.to_act is not None]

    def play(seed: int) -> list[str]:
        agent = make_agent("ismcts", seed=seed, iterations=20)  # one agent, many moves
        return [agent.choose(obs) for obs in observations]

    assert play(1) == play(1)
    assert play(1) != play(2)  # with 20 iterations the seed shows


def test_whole_game_replays_identically() -> None:
    def moves() -> list[str]:
        game = Game(PROFILES["perevodnoy"], deal_from_seed(3, 9))
        agents = [make_agent("ismcts", seed=s, iterations=15) for s in range(3)]
        texts = []
        while not game.finished:
            seat = game.to_act
            assert seat is not None
            text = agents[seat].choose(observation(game, seat))
            texts.append(text)
            game.apply(parse_action(text))
            assert len(texts) < 2000
        return texts

    assert moves() == moves()


def test_determinizations_are_consistent_and_uniform() -> None:
    game = Game(PROFILES["podkidnoy"], deal_from_seed(3, 21))
    # play until someone has picked up cards (known to all) and the stock has been drawn from
    rng = random.Random(3)
    while not (game.public_held and len(game.stock) < 12) and not game.finished:
        legal = game.legal_codes()
        game.apply_code(legal[rng.randrange(len(legal))])
    assert not game.finished
    seat = game.to_act
    assert seat is not None
    view = ParsedObservation(observation(game, seat))
    known = list(view.known)
    pool = unseen_mask(view)
    draws = 3000
    in_hand: Counter[tuple[int, int]] = Counter()
    for _ in range(draws):
        hands, stock = determinize(view, known, rng)
        assert hands[seat] == view.hand
        assert len(stock) == view.stock and stock[-1] == view.trump_card
        dealt = 0
        for s in range(view.n):
            assert hands[s].bit_count() == view.hand_sizes[s]
            assert hands[s] & known[s] == known[s]
            if s != seat:
                dealt |= hands[s] & ~known[s]
                for c in iter_bits(hands[s] & ~known[s]):
                    in_hand[s, c] += 1
        for c in stock[:-1]:
            dealt |= 1 << c
        assert dealt == pool  # every unseen card placed exactly once, nothing else
    # uniform: each unseen card lands in seat s's hand with probability need_s / |pool|
    for s in range(view.n):
        if s == seat:
            continue
        need = view.hand_sizes[s] - known[s].bit_count()
        p = need / pool.bit_count()
        for c in iter_bits(pool):
            freq = in_hand[s, c] / draws
            assert abs(freq - p) < 4 * (p * (1 - p) / draws) ** 0.5 + 1e-9, (s, c, freq, p)


def test_select_uses_availability_counts_and_counts_only_available_actions() -> None:
    parent = Node(0)
    # code << 3 | seat keys, seat 1 acting; codes 10, 20, 30
    a, b, c = Node(1), Node(1), Node(1)
    a.visits, a.wins, a.avail = 10, 5.0, 100  # often available, rarely chosen
    b.visits, b.wins, b.avail = 10, 6.0, 11  # rarely available
    c.visits, c.wins, c.avail = 1, 1.0, 500  # not available in this determinization
    parent.children = {10 << 3 | 1: a, 20 << 3 | 1: b, 30 << 3 | 1: c}
    # UCB with availability: a = 0.5 + 0.7*sqrt(ln 100/10) = 0.975, b = 0.6 + 0.7*sqrt(ln 11/10)
    # = 0.941; with the parent's visits (21) for both, b would win.
    code, chosen = select(parent, 1, (10, 20), 0.7)
    assert (code, chosen) == (10, a)
    assert (a.avail, b.avail, c.avail) == (101, 12, 500)
    assert (a.visits, b.visits) == (10, 10)  # visits are counted in the backup, not here


def _check_tree(node: Node, is_root: bool) -> int:
    """Checks the counts below ``node``; returns the number of nodes."""
    total = 1
    below = sum(child.visits for child in node.children.values())
    if is_root:
        assert node.visits == below
    elif node.children:
        assert node.visits == below + 1  # the iteration that created it ended there
    for child in node.children.values():
        assert 1 <= child.visits <= child.avail <= node.visits + 1
        assert 0.0 <= child.wins <= child.visits
        total += _check_tree(child, False)
    return total


@pytest.mark.parametrize(("rules", "players", "seed"), [("podkidnoy", 2, 4), ("perevodnoy", 4, 8)])
def test_tree_counts_after_a_few_iterations(rules: str, players: int, seed: int) -> None:
    game = Game(PROFILES[rules], deal_from_seed(players, seed))
    seat = game.to_act
    assert seat is not None
    view = ParsedObservation(observation(game, seat))
    k = len(view.legal)
    assert k > 1
    iterations = k + 25
    root = search(view, iterations, random.Random(1))
    assert root.visits == iterations
    # every root action is legal in every determinization: expanded once each, then available
    # at each of the remaining selection steps
    assert set(root.children) == {code << 3 | seat for code in view.legal}
    for child in root.children.values():
        assert child.seat == seat
        assert child.avail == 1 + iterations - k
    assert _check_tree(root, True) == 1 + iterations  # one node expanded per iteration


def test_tournament_and_agent_clis_pass_iterations_to_ismcts_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["--a", "ismcts", "--b", "ismcts", "--deals", "1", "--a-iterations", "12"]
    assert tournament_main([*args, "--b-iterations", "4"]) == 0
    text = capsys.readouterr().out
    assert "a=ismcts@12" in text and "b=ismcts@4" in text
    args = ["--a", "casual", "--b", "ismcts", "--deals", "1", "--iterations", "5"]
    assert tournament_main(args) == 0
    text = capsys.readouterr().out
    assert "a=casual in 1 seat" in text and "b=ismcts@5" in text

    agent_cli_answers_legally("ismcts", "--seed", "3", "--iterations", "40")
