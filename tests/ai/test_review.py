"""The coach's review of a seat's decisions (rules_engine/ai/review.py): what it values, from
what information, how it labels, and that it is reproducible and storable."""

from __future__ import annotations

import dataclasses
import json
import pickle
import random

import pytest

from rules_engine import PROFILES, Game, deal_from_seed, observation, parse_action
from rules_engine.ai.choices import estimate_choices
from rules_engine.ai.position import fast_clone
from rules_engine.ai.review import (
    LABEL_LIMITS,
    DecisionReview,
    GameRecord,
    GameReview,
    Label,
    ReviewError,
    assemble_review,
    decision_accuracy,
    decision_points,
    game_accuracy,
    label_for,
    review_decision,
    review_game,
    review_step,
)
from rules_engine.ai.solver import Solver, state_from_game
from rules_engine.cards import CARD_TEXT, PACK_MASK, SUIT_OF, iter_bits
from rules_engine.rules import Rules

from .ai_support import random_positions
from .review_support import play_record, seeded_record
from .test_ai_hidden_cards import reshuffle_hidden

#: A small budget: the tests check what is valued and how, not the precision.
DEALS = 12
#: Nodes of the exact solves of a decision (beginners' endgames can hold many cards).
NODES = 20_000


def test_every_decision_with_a_choice_is_reviewed_with_every_legal_choice() -> None:
    record = seeded_record(3)
    review = review_game(record, 0, deals=DEALS, seed=1, node_cap=NODES)
    game = Game(record.rules, record.deal)
    expected = []
    for index, text in enumerate(record.actions):
        if game.to_act == 0 and len(game.legal_codes()) > 1:
            expected.append((index, text, game.legal_text()))
        game.apply(parse_action(text))
    assert [(d.index, d.action, [c.action for c in d.choices]) for d in review.decisions] == (
        expected
    )
    assert review.finished and review.loser == game.loser
    assert review.curve() == tuple(
        (d.index, round(1 - d.chosen.durak, 4)) for d in review.decisions
    )
    for d in review.decisions:
        low = min(c.durak for c in d.choices)
        assert d.chosen.durak - low == pytest.approx(d.lost, abs=1e-9)
        assert d.best_choice.action == d.best and d.best_choice.durak == low
        assert d.label is label_for(d.lost)
        for c in d.choices:
            assert 0 <= c.durak <= 1 and c.stderr >= 0
            assert c.exact == (c.deals == 0)
            assert c.exact or 2 <= c.deals <= DEALS


def test_the_same_game_gives_the_same_review_and_another_seed_another() -> None:
    record = seeded_record(4, level="casual")
    first = review_game(record, 1, deals=DEALS, seed=7, node_cap=NODES)
    assert review_game(record, 1, deals=DEALS, seed=7, node_cap=NODES) == first
    other = review_game(record, 1, deals=DEALS, seed=8, node_cap=NODES)
    assert [d.choices for d in other.decisions] != [d.choices for d in first.decisions]


def test_the_review_round_trips_through_json_and_pickle() -> None:
    review = review_game(seeded_record(5), 0, deals=DEALS, seed=2, node_cap=NODES)
    data = json.loads(json.dumps(review.to_dict(), ensure_ascii=False))
    assert GameReview.from_dict(data) == review
    assert pickle.loads(pickle.dumps(review)) == review
    assert data["seat"] == 0 and isinstance(data["accuracy"], float)
    assert data["worst"] == [d.index for d in review.worst()]
    assert sum(data["counts"].values()) == len(data["decisions"])
    first = data["decisions"][0]
    assert set(first) >= {"index", "action", "best", "label", "lost", "choices"}
    assert set(first["choices"][0]) >= {"action", "durak", "stderr", "exact"}
    with pytest.raises(ReviewError):
        GameReview.from_dict({"seat": 0})


def test_the_record_and_the_call_pickle_for_a_worker_process() -> None:
    record = seeded_record(6)
    assert pickle.loads(pickle.dumps(record)) == record
    assert GameRecord.from_dict(json.loads(json.dumps(record.to_dict()))) == record


def test_progress_is_reported_after_each_decision() -> None:
    record = seeded_record(7)
    calls: list[tuple[int, int]] = []
    review = review_game(
        record, 0, deals=4, seed=0, progress=lambda d, t: calls.append((d, t)), node_cap=NODES
    )
    n = len(review.decisions)
    assert n > 3
    assert calls == [(i, n) for i in range(1, n + 1)]


def test_a_decision_is_reviewed_from_the_seats_information_only() -> None:
    """Positions whose unseen cards are dealt anew (same observation) get the same review."""
    rng = random.Random(3)
    checked = 0
    for i, game in enumerate(random_positions(40, seed=12, players=(2, 4))):
        seat = game.to_act
        assert seat is not None
        twin = reshuffle_hidden(game, seat, rng)
        if twin is None or len(game.legal_codes()) < 2:
            continue
        obs = observation(game, seat)
        assert observation(twin, seat) == obs
        action = obs["legal"][-1]
        a = review_decision(obs, action, index=i, deals=6, seed=1)
        b = review_decision(observation(twin, seat), action, index=i, deals=6, seed=1)
        assert a == b
        checked += 1
    assert checked > 15


def _twin_deal(record: GameRecord, seat: int, upto: int, rng: random.Random) -> GameRecord | None:
    """``record``'s deal with a card of another seat's hand and one of the stock swapped (not
    trumps), played from ``record``'s first ``upto`` actions (if they stay legal and ``seat``
    sees exactly the same at each of them) to the end by casual players."""
    deal = record.deal
    hidden_hand = [
        (s, c)
        for s in range(deal.players)
        if s != seat
        for c in iter_bits(deal.hands[s])
        if SUIT_OF[c] != deal.trump
    ]
    stock = [i for i, c in enumerate(deal.stock[:-1]) if SUIT_OF[deal.stock[i]] != deal.trump]
    rng.shuffle(hidden_hand)
    for s, c in hidden_hand:
        for i in stock:
            hands = list(deal.hands)
            hands[s] = hands[s] & ~(1 << c) | 1 << deal.stock[i]
            new_stock = list(deal.stock)
            new_stock[i] = c
            twin = dataclasses.replace(deal, hands=tuple(hands), stock=tuple(new_stock), seed=None)
            a, b = Game(record.rules, deal), Game(record.rules, twin)
            try:
                for text in record.actions[:upto]:
                    assert observation(a, seat) == observation(b, seat)
                    a.apply(parse_action(text))
                    b.apply(parse_action(text))
                assert observation(a, seat) == observation(b, seat)
            except (AssertionError, ValueError):
                continue
            levels = ("casual",) * deal.players
            return play_record(twin, record.rules, levels, record.actions[:upto])
    return None


def test_two_games_that_look_the_same_to_the_seat_get_the_same_review_of_its_decisions() -> None:
    """Same history as the seat saw it, different hidden cards (and another ending after the
    point where the seat could tell): the same review of every decision up to that point."""
    record = seeded_record(11, level="casual")
    upto = len(record.actions) // 2
    twin = _twin_deal(record, 0, upto, random.Random(1))
    assert twin is not None
    assert twin.deal.hands != record.deal.hands
    a = review_game(record, 0, deals=DEALS, seed=3, node_cap=NODES)
    b = review_game(twin, 0, deals=DEALS, seed=3, node_cap=NODES)
    early_a = [d for d in a.decisions if d.index < upto]
    early_b = [d for d in b.decisions if d.index < upto]
    assert len(early_a) >= 3
    assert early_a == early_b


def _endgame(seed: int) -> tuple[Game, int]:
    """A two-player position with an empty stock and at least three legal choices, and the
    seat to act in it."""
    rng = random.Random(seed)
    while True:
        game = Game(PROFILES["podkidnoy"], deal_from_seed(2, rng.randrange(10**6)))
        while not game.finished and (game.stock or len(game.legal_codes()) < 3):
            game.apply_code(rng.choice(game.legal_codes()))
        if not game.finished and sum(h.bit_count() for h in game.hands) <= 9:
            assert game.to_act is not None
            return game, game.to_act


def test_an_exact_position_is_valued_by_the_solver() -> None:
    for seed in range(6):
        game, me = _endgame(seed)
        obs = observation(game, me)
        choices = estimate_choices(obs, deals=4, seed=0)
        assert all(c.exact and c.stderr == 0 and c.deals == 0 for c in choices)
        for code, c in zip(game.legal_codes(), choices, strict=True):
            after = fast_clone(game)
            after.apply_code(code)
            if after.finished:
                expected = 0.5 if after.loser is None else float(after.loser == me)
            else:
                solver = Solver(game.trump, game.rules.transfer, ())
                expected = (1 - solver.value(state_from_game(after, me, 1 - me, []))) / 2
            assert c.durak == expected


def test_an_exact_choice_too_big_to_solve_is_played_out_instead() -> None:
    game, me = _endgame(1)
    choices = estimate_choices(observation(game, me), deals=6, seed=0, node_cap=1)
    assert any(not c.exact and c.deals == 6 for c in choices)


def test_a_losing_choice_in_an_exact_position_is_a_blunder() -> None:
    for seed in range(20):
        game, me = _endgame(seed)
        obs = observation(game, me)
        values = estimate_choices(obs, deals=4, seed=0)
        worst = max(values, key=lambda c: c.durak)
        best = min(values, key=lambda c: c.durak)
        if worst.durak - best.durak == 1:
            review = review_decision(obs, worst.action, index=0, deals=4)
            assert review.label is Label.BLUNDER and review.lost == 1
            assert review.exact and review.best != review.action
            assert review_decision(obs, best.action, index=0, deals=4).label is Label.BEST
            return
    pytest.fail("no endgame with a losing choice")


def test_labels_follow_the_thresholds() -> None:
    assert [label for _, label in LABEL_LIMITS] == list(Label)
    assert label_for(0) is Label.BEST
    previous = 0.0
    for bound, label in LABEL_LIMITS[:-1]:
        assert label_for(previous) is label
        assert label_for(bound - 1e-9) is label
        assert label_for(bound) is not label
        previous = bound
    assert label_for(1.0) is Label.BLUNDER


def test_accuracy_falls_from_100_with_the_chance_lost() -> None:
    assert decision_accuracy(0) == 100
    assert decision_accuracy(1) == 0
    losses = [0, 0.01, 0.05, 0.1, 0.2, 0.4]
    values = [decision_accuracy(x) for x in losses]
    assert values == sorted(values, reverse=True)
    assert 79 < decision_accuracy(0.05) < 81 and 63 < decision_accuracy(0.1) < 65
    assert game_accuracy([]) is None
    assert game_accuracy([0, 0.1]) == round((100 + decision_accuracy(0.1)) / 2, 1)


def test_worst_lists_the_biggest_losses_first() -> None:
    def decision(index: int, lost: float) -> DecisionReview:
        return DecisionReview(index, "0 take", "0 take", label_for(lost), lost, (), ())

    review = GameReview(
        0, 50.0, tuple(decision(i, x) for i, x in enumerate([0.1, 0, 0.3, 0.1])), 8, 0, True, 1
    )
    assert [d.index for d in review.worst()] == [2, 0, 3]
    assert [d.index for d in review.worst(1)] == [2]
    assert review.counts()[Label.MISTAKE] == 2


def test_a_record_that_stops_early_is_reviewed_up_to_its_last_action() -> None:
    record = seeded_record(8)
    short = dataclasses.replace(record, actions=record.actions[:20])
    review = review_game(short, 0, deals=4, node_cap=NODES)
    assert not review.finished and review.loser is None
    full = review_game(record, 0, deals=4, node_cap=NODES)
    assert review.decisions == tuple(d for d in full.decisions if d.index < 20)


def test_a_bad_seat_or_an_illegal_action_is_refused_before_any_work() -> None:
    record = seeded_record(9)
    with pytest.raises(ReviewError, match="no seat 2"):
        decision_points(record, 2)
    with pytest.raises(ReviewError, match="no seat -1"):
        review_game(record, -1, node_cap=NODES)
    bad = dataclasses.replace(record, actions=(*record.actions[:3], "0 defend 6♠ 6♥"))
    with pytest.raises(ReviewError, match="action 3 '0 defend 6♠ 6♥' is illegal"):
        review_game(bad, 0, node_cap=NODES)
    after_end = dataclasses.replace(record, actions=(*record.actions, "0 take"))
    with pytest.raises(ReviewError, match="after the end"):
        review_game(after_end, 0, node_cap=NODES)
    with pytest.raises(ReviewError, match="at least 2"):
        review_game(record, 0, deals=1, node_cap=NODES)


@pytest.mark.parametrize(
    ("rules", "players"),
    [
        (dataclasses.replace(PROFILES["podkidnoy"], deck=24), 2),
        (dataclasses.replace(PROFILES["podkidnoy"], deck=52), 3),
        (dataclasses.replace(PROFILES["perevodnoy"], show_trump=True), 2),
    ],
    ids=["24 cards", "52 cards", "showing a trump"],
)
def test_the_table_options_are_reviewed(rules: Rules, players: int) -> None:
    record = seeded_record(5, players, level="casual", rules=rules)
    review = review_game(GameRecord.from_dict(record.to_dict()), 0, deals=4, node_cap=NODES)
    pack = {CARD_TEXT[c] for c in iter_bits(PACK_MASK[rules.deck])}
    assert review.finished and review.decisions
    for d in review.decisions:
        assert set(d.hand) <= pack
        # every legal choice of the real game, valued (the shown trump too)
        assert [c.action for c in d.choices] == _legal_before(record, d.index)
        if rules.show_trump:  # the exact solver does not play shows: never "exact"
            assert not any(c.exact for c in d.choices)
    if rules.show_trump:
        assert any("show" in c.action for d in review.decisions for c in d.choices)


def _legal_before(record: GameRecord, index: int) -> list[str]:
    g = Game(record.rules, record.deal)
    for text in record.actions[:index]:
        g.apply(parse_action(text))
    return g.legal_text()


def test_a_team_player_is_reviewed_with_the_seats_it_plays_for_its_partner() -> None:
    rules = dataclasses.replace(PROFILES["podkidnoy"], teams="2x2")
    for seed in range(40):  # a game where a seat is handed over to a partner
        record = seeded_record(seed, 4, level="casual", rules=rules)
        game = Game(rules, record.deal)
        handed: dict[int, int] = {}  # index -> the player acting for another seat
        for index, text in enumerate(record.actions):
            if game.player_to_act != game.to_act and len(game.legal_codes()) > 1:
                handed[index] = game.player_to_act
            game.apply(parse_action(text))
        if handed:
            break
    else:
        pytest.fail("no seeded team game hands a seat over")
    index, player = next(iter(handed.items()))
    review = review_game(record, player, deals=4, node_cap=NODES)
    by_index = {d.index: d for d in review.decisions}
    assert index in by_index  # the partner's seat, played by this player, is its decision
    assert parse_action(by_index[index].action).seat != player
    assert review.loser is None and review.losers == game.losers  # a team's seats, or a draw
    assert all(s % 2 == game.losers[0] % 2 for s in game.losers)
    assert GameReview.from_dict(review.to_dict()) == review


def test_a_review_run_a_decision_at_a_time_is_the_same_review() -> None:
    record = seeded_record(4)
    whole = review_game(record, 1, deals=4, node_cap=NODES)
    first = review_step(record, 1, 0, deals=4, node_cap=NODES)
    steps = [first] + [
        review_step(record, 1, k, deals=4, node_cap=NODES) for k in range(1, first.total)
    ]
    assert first.total == len(whole.decisions) > 1
    assert review_step(record, 1, first.total, deals=4, node_cap=NODES).decision is None
    decisions = [s.decision for s in steps if s.decision is not None]
    made = assemble_review(1, 4, 0, first.finished, first.losers, decisions, first.loser)
    assert made == whole
    with pytest.raises(ReviewError, match="no seat 5"):
        review_step(record, 5, 0, deals=4)
