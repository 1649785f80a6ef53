"""The expert's search bookkeeping: which candidate it picks, which it stops playing out,
when it thinks longer, and its shared empty-stock table."""

from __future__ import annotations

import random
import time

import pytest

from rules_engine import PROFILES, Game, deal_from_seed, observation, parse_action
from rules_engine.ai import make_agent
from rules_engine.ai.expert import _CLOCKS, _EXTEND_SHARE, ExpertAgent
from rules_engine.ai.parsed import ParsedObservation
from rules_engine.ai.position import fast_clone
from rules_engine.ai.solver import Solver, state_from_game


def _scores(rng: random.Random, rates: list[float], n: int) -> list[list[float]]:
    """Outcomes of candidates with the given win rates on ``n`` shared samples (one uniform
    draw per sample for all candidates, as common samples are correlated)."""
    out: list[list[float]] = [[] for _ in rates]
    for _ in range(n):
        u = rng.random()
        for i, rate in enumerate(rates):
            out[i].append(1.0 if u < rate else 0.0)
    return out


def test_pick_keeps_the_casual_choice_unless_another_is_clearly_better() -> None:
    agent = ExpertAgent(seed=1)
    rng = random.Random(4)
    clear = _scores(rng, [0.40, 0.55, 0.45], 400)
    assert agent._pick(clear, [0, 1, 2]) == 1
    tiny = _scores(rng, [0.500, 0.502], 40)
    assert agent._pick(tiny, [0, 1]) == 0
    worse = _scores(rng, [0.6, 0.3], 200)
    assert agent._pick(worse, [0, 1]) == 0


def test_prune_drops_clearly_worse_candidates_but_never_the_casual_choice() -> None:
    agent = ExpertAgent(seed=1)
    rng = random.Random(5)
    scores = _scores(rng, [0.2, 0.7, 0.68, 0.1], 200)
    live = agent._prune(scores, [0, 1, 2, 3])
    assert live == [0, 1, 2]  # 3 is far behind; 0 stays although it is behind too
    assert agent._prune(scores, [0, 3]) == [0]
    near = _scores(rng, [0.50, 0.49, 0.48], 100)
    assert agent._prune(near, [0, 1, 2]) == [0, 1, 2]


def test_close_means_a_rival_may_still_be_meaningfully_better() -> None:
    agent = ExpertAgent(seed=1)
    rng = random.Random(6)
    assert agent._close(_scores(rng, [0.50, 0.52], 60), [0, 1])
    assert not agent._close(_scores(rng, [0.3, 0.8], 400), [0, 1])
    identical = [[1.0, 0.0] * 30, [1.0, 0.0] * 30]
    assert not agent._close(identical, [0, 1])  # equal in every sample: nothing to learn
    assert not agent._close(identical, [0])


def test_at_most_a_bounded_share_of_moves_think_longer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Even when every decision looks close, extra time goes to a bounded share of the moves,
    so the median move stays within the normal thinking time."""
    monkeypatch.setattr(ExpertAgent, "_close", lambda self, scores, live: True)
    # CPU clock: on a loaded machine a wall-clock move can pass its hard limit in one sample
    expert = ExpertAgent(seed=3, budget_s=0.03, think_s=0.01, clock="cpu")
    counter = make_agent("counter", seed=4)
    game = Game(PROFILES["podkidnoy"], deal_from_seed(2, 17))
    while not game.finished:
        seat = game.to_act
        assert seat is not None
        agent = expert if seat == 0 else counter
        game.apply(parse_action(agent.choose(observation(game, seat))))
    assert expert._moves > 5
    assert 1 <= expert._extended <= _EXTEND_SHARE * expert._moves


def _endgames(
    count: int,
    seed: int,
    rules: str = "podkidnoy",
    max_cards: int = 8,
    min_cards: int = 0,
    min_legal: int = 1,
) -> list[Game]:
    """Two-player positions of random play with the stock empty (every card's place is known
    to both seats), ``min_cards``..``max_cards`` cards in the hands and at least
    ``min_legal`` legal actions."""
    rng = random.Random(seed)
    out: list[Game] = []
    while len(out) < count:
        game = Game(PROFILES[rules], deal_from_seed(2, rng.randrange(10**9)))
        while not game.finished and (
            game.stock or sum(h.bit_count() for h in game.hands) > max_cards
        ):
            legal = game.legal_codes()
            game.apply_code(legal[rng.randrange(len(legal))])
        if game.finished or sum(h.bit_count() for h in game.hands) < min_cards:
            continue
        if len(game.legal_codes()) >= min_legal:
            out.append(game)
    return out


def test_the_shared_empty_stock_table_gives_the_values_of_a_fresh_solve() -> None:
    """One table serves every empty-stock position of a game (same trump): its answers, query
    after query, equal those of a solver that starts empty."""
    games = [g for g in _endgames(60, seed=21) if g.trump == 0]
    assert len(games) >= 5
    shared = Solver(0, False, ())
    for game in games:
        for _ in range(3):  # the position and two of its successors
            if game.finished:
                break
            state = state_from_game(game, 0, 1, [])
            shared.nodes = 0  # as the expert does before each solve
            assert shared.value(state) == Solver(0, False, ()).value(state)
            game = fast_clone(game)
            game.apply_code(game.legal_codes()[0])
    assert len(shared.tt) > 0


def test_take_and_pass_stay_candidates_however_many_card_choices_there_are() -> None:
    """The candidate list is cut at ``limit``: taking (defending) and passing (adding) come
    right after the casual choice, so a long list of card choices cannot crowd them out."""
    from rules_engine.actions import PASS, TAKE
    from rules_engine.ai.expert import candidates
    from rules_engine.ai.policy import casual_code
    from rules_engine.phase import Phase

    from .ai_support import random_positions

    met = {Phase.DEFEND: 0, Phase.ADD: 0}
    for game in random_positions(600, seed=5):
        legal = game.legal_codes()
        if len(legal) < 2:
            continue
        preferred = casual_code(game, legal)
        for limit in (2, 3, 7):
            got = candidates(game, legal, preferred, limit)
            assert got[0] == preferred and len(set(got)) == len(got) <= limit
            assert set(got) <= set(legal)
            for code in (TAKE, PASS):
                if code in legal:
                    assert code in got
                    if game.phase in met and limit == 2:
                        met[game.phase] += 1
    assert met[Phase.DEFEND] > 10 and met[Phase.ADD] > 10


def test_cpu_clock_thinks_by_this_process_cpu_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``clock="cpu"`` the expert reads ``time.process_time``: time spent waiting for the
    CPU (a busy machine) does not shorten its thinking."""
    calls = {"cpu": 0}
    real = time.process_time

    def counting_process_time() -> float:
        calls["cpu"] += 1
        return real()

    monkeypatch.setitem(_CLOCKS, "cpu", counting_process_time)
    expert = ExpertAgent(seed=1, clock="cpu", think_s=0.02, budget_s=0.05)
    game = Game(PROFILES["podkidnoy"], deal_from_seed(2, 3))
    seat = game.to_act
    assert seat is not None
    obs = observation(game, seat)
    assert expert.choose(obs) in obs["legal"]
    assert calls["cpu"] > 0
    with pytest.raises(ValueError, match="clock"):
        ExpertAgent(clock="sundial")


def _playout_counts(
    monkeypatch: pytest.MonkeyPatch, agent: ExpertAgent, deals: int, players: int = 2
) -> tuple[dict[int, int], dict[int, int]]:
    """Play ``deals`` perevodnoy playouts for seat 0 and count, per seat, the moves with a
    choice and how many of them the casual policy made (the rest were random)."""
    import rules_engine.ai.expert as expert_module

    casual_by_seat = dict.fromkeys(range(players), 0)
    choices_by_seat = dict.fromkeys(range(players), 0)
    real_casual = expert_module.casual_code
    real_legal = Game.legal_codes

    def counting_casual(g: Game, *args: object, **kwargs: object) -> int:
        assert g.to_act is not None
        casual_by_seat[g.to_act] += 1
        return real_casual(g, *args, **kwargs)  # type: ignore[arg-type]

    def counting_legal(self: Game) -> tuple[int, ...]:
        legal = real_legal(self)
        if len(legal) > 1 and self.to_act is not None:
            choices_by_seat[self.to_act] += 1
        return legal

    with monkeypatch.context() as patch:
        patch.setattr(expert_module, "casual_code", counting_casual)
        patch.setattr(Game, "legal_codes", counting_legal)
        for seed in range(deals):
            game = Game(PROFILES["perevodnoy"], deal_from_seed(players, seed))
            agent._evaluate(game, 0, deadline=float("inf"))
    return casual_by_seat, choices_by_seat


def test_playouts_make_the_epsilon_share_of_their_moves_at_random(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With ``epsilon`` = 0.1 about one playout move in ten (among moves with a choice) skips
    the casual policy; with 0 every one follows it, and with 1 none does."""
    share: dict[float, float] = {}
    for epsilon in (0.0, 0.1, 1.0):
        agent = ExpertAgent(seed=2, epsilon=epsilon, iterations=1, solve_stock=-1, solve_cards=0)
        casual, choices = _playout_counts(monkeypatch, agent, 40)
        share[epsilon] = 1 - sum(casual.values()) / sum(choices.values())
    assert share[0.0] == 0.0
    assert share[1.0] == 1.0
    assert 0.07 < share[0.1] < 0.13


def test_the_default_random_share_depends_on_the_table_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """By default one playout move in ten is random heads-up and one in five at a table of
    three or more (two ismcts opponents are less predictable than one: docs/AI.md)."""
    agent = ExpertAgent(seed=4, iterations=1, solve_stock=-1, solve_cards=0)
    assert agent.playout_epsilon(2) == 0.1
    assert agent.playout_epsilon(3) == agent.playout_epsilon(6) == 0.2
    assert ExpertAgent(epsilon=0.3).playout_epsilon(2) == 0.3
    for players, expected in ((2, 0.1), (3, 0.2)):
        casual, choices = _playout_counts(monkeypatch, agent, 40, players)
        share = 1 - sum(casual.values()) / sum(choices.values())
        assert expected - 0.03 < share < expected + 0.03, (players, share)


def test_a_known_endgame_too_big_to_solve_is_searched_by_playouts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With one opponent and the stock empty the expert first solves exactly; when the solve
    gives up (here: a node cap of 1), the move comes from the playout search on the known
    deal, not from the casual policy; a position the solver finishes is never searched."""
    searched: list[list[int]] = []

    def fake_search(
        self: ExpertAgent, view: object, counting: object, cands: list[int], *args: object
    ) -> int:
        searched.append(cands)
        return cands[-1]  # a marker: the casual choice is cands[0]

    monkeypatch.setattr(ExpertAgent, "_search", fake_search)
    for game in _endgames(4, 31, "perevodnoy", max_cards=16, min_cards=14, min_legal=3):
        seat = game.to_act
        assert seat is not None
        obs = observation(game, seat)
        expert = ExpertAgent(seed=1, iterations=8, exact_node_cap=1)
        choice = expert.choose(obs)
        assert searched, "the search was not asked"
        cands = searched.pop()
        assert len(cands) > 1 and choice == ParsedObservation(obs).text_of(cands[-1])
    for game in _endgames(4, 32, "perevodnoy", max_cards=5, min_cards=3, min_legal=3):
        seat = game.to_act
        assert seat is not None
        obs = observation(game, seat)
        assert ExpertAgent(seed=1, iterations=8).choose(obs) in obs["legal"]
        assert not searched
