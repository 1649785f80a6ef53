"""Ratings: finishing places from replayed games, OpenSkill updates, recomputation, forfeits."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.ratings import (
    MODEL,
    RatedGame,
    Rating,
    RatingKey,
    apply_game,
    finishing_places,
    places_from_exits,
    rate_game,
    rating_profile,
    recompute,
    should_rate,
)
from rules_engine import PROFILES, Rules
from tests.fairplay.support import play

# ---------------------------------------------------------------- places from real games

# (players, seed, profile, greed) -> places per seat, found by playing the seeded policy.
KNOWN = [
    ((2, 0, "podkidnoy", 0.8), (1, 2)),  # seat 1 is the durak
    ((2, 1, "podkidnoy", 1.0), (1, 1)),  # a draw: both went out in the last round
    ((3, 0, "podkidnoy", 0.8), (2, 1, 3)),
    ((3, 62, "podkidnoy", 0.8), (1, 1, 2)),  # seats 0 and 1 out in the same round
    ((3, 108, "podkidnoy", 0.8), (1, 2, 2)),  # a draw: the last two level
    ((6, 0, "podkidnoy", 0.8), (4, 2, 6, 3, 5, 1)),
    ((6, 12, "podkidnoy", 0.8), (4, 5, 3, 4, 2, 1)),  # seats 0 and 3 share a round
]


@pytest.mark.parametrize(("setup", "expected"), KNOWN)
def test_places_of_seeded_games(setup: tuple[int, int, str, float], expected: tuple[int, ...]):
    players, seed, profile, greed = setup
    played = play(players, seed, profile, greed)
    places = finishing_places(played.rules, played.deal, played.actions)
    assert places == expected
    game = played.game
    last = max(places)
    if game.draw:
        assert game.loser is None
        assert places.count(last) >= 2
    else:
        assert game.loser is not None
        assert places[game.loser] == last
        assert places.count(last) == 1


@pytest.mark.parametrize("players", [2, 3, 6])
@pytest.mark.parametrize("seed", range(12))
def test_places_agree_with_rounds_seen_live(players: int, seed: int):
    """Equal places exactly for seats that went out in the same round (tracked while playing
    live, by round number rather than by replay), the durak strictly last."""
    played = play(players, seed)
    places = finishing_places(played.rules, played.deal, played.actions)
    assert places == places_from_exits(played.exit_rounds)
    assert sorted(set(places)) == list(range(1, max(places) + 1))  # dense
    for a in range(players):
        for b in range(players):
            ea, eb = played.exit_rounds[a], played.exit_rounds[b]
            if ea is not None and eb is not None:
                assert (places[a] < places[b]) == (ea < eb)
                assert (places[a] == places[b]) == (ea == eb)


def test_places_need_a_finished_game():
    played = play(2, 0)
    with pytest.raises(ValueError, match="does not finish"):
        finishing_places(played.rules, played.deal, played.actions[:-1])


def test_places_refuse_an_illegal_log():
    played = play(2, 0)
    from rules_engine import DurakError

    with pytest.raises(DurakError):
        finishing_places(played.rules, played.deal, ["1 take", *played.actions])


# ---------------------------------------------------------------- forfeits


def test_forfeiter_is_placed_below_the_durak():
    played = play(3, 0)  # places (2, 1, 3): seat 2 the durak
    places = finishing_places(played.rules, played.deal, played.actions, forfeits={1})
    # seat 1 went out first, but forfeited: last; the others ranked among themselves
    assert places == (1, 3, 2)


def test_forfeited_seat_that_ends_as_durak_is_placed_once():
    played = play(3, 0)
    durak = played.game.loser
    assert durak == 2
    places = finishing_places(played.rules, played.deal, played.actions, forfeits={durak})
    assert places == (2, 1, 3)
    assert places.count(3) == 1


def test_several_forfeiters_share_the_last_place():
    played = play(6, 0)  # (4, 2, 6, 3, 5, 1)
    places = finishing_places(played.rules, played.deal, played.actions, forfeits={1, 5})
    assert places == (2, 5, 4, 1, 3, 5)


def test_forfeit_in_a_two_player_game_ranks_the_other_first():
    played = play(2, 0)  # seat 1 the durak
    assert finishing_places(played.rules, played.deal, played.actions, forfeits={1}) == (1, 2)
    assert finishing_places(played.rules, played.deal, played.actions, forfeits={0}) == (2, 1)


def test_forfeit_seat_out_of_range():
    with pytest.raises(ValueError, match="seat 3"):
        places_from_exits([1, None, 2], forfeits={3})


def test_forfeiter_loses_more_rating_than_the_durak():
    places = {"winner": 1, "durak": 2, "quitter": 3}
    after = rate_game({}, places)
    assert after["quitter"].mu < after["durak"].mu < after["winner"].mu


# ---------------------------------------------------------------- ratings


def test_default_rating_is_the_models_prior():
    r = Rating.default()
    assert (r.mu, r.sigma) == (MODEL.mu, MODEL.sigma) == (25.0, 25.0 / 3.0)
    assert r.conservative == pytest.approx(0.0)
    assert r.display == 0
    assert Rating(30.0, 2.0).display == 24
    assert Rating(30.0, 2.2).display == 23  # 23.4 rounds down


def test_two_player_game_moves_ratings_apart():
    before = {"a": Rating.default(), "b": Rating.default()}
    after = rate_game(before, {"a": 1, "b": 2})
    assert after["a"].mu > 25.0 > after["b"].mu
    assert after["a"].sigma < before["a"].sigma
    assert after["b"].sigma < before["b"].sigma


def test_upset_moves_more_than_expected_result():
    strong, weak = Rating(35.0, 3.0), Rating(15.0, 3.0)
    expected = rate_game({"s": strong, "w": weak}, {"s": 1, "w": 2})
    upset = rate_game({"s": strong, "w": weak}, {"s": 2, "w": 1})
    assert upset["w"].mu - weak.mu > expected["s"].mu - strong.mu > 0


def test_three_player_order():
    after = rate_game({}, {"a": 2, "b": 1, "c": 3})
    assert after["b"].mu > after["a"].mu > after["c"].mu
    assert after["b"].mu > 25.0 > after["c"].mu


def test_shared_place_gives_equal_ratings():
    after = rate_game({}, {"a": 1, "b": 1, "c": 2})
    assert after["a"] == after["b"]
    assert after["a"].mu > after["c"].mu


def test_only_the_order_of_places_matters():
    """AI seats removed by the caller leave gaps in the places: same result."""
    assert rate_game({}, {"a": 1, "b": 3, "c": 6}) == rate_game({}, {"a": 1, "b": 2, "c": 3})


def test_result_does_not_depend_on_the_order_of_the_mapping():
    rng = random.Random(3)
    for _ in range(300):
        n = rng.randint(2, 6)
        before = {k: Rating(rng.uniform(10, 40), rng.uniform(1, 8)) for k in range(n)}
        places = {k: rng.randint(1, n) for k in range(n)}
        keys = list(places)
        rng.shuffle(keys)
        assert rate_game(before, {k: places[k] for k in keys}) == rate_game(before, places)


def test_fewer_than_two_players_change_nothing():
    r = Rating(27.0, 5.0)
    assert rate_game({"a": r}, {"a": 1}) == {"a": r}
    assert rate_game({}, {}) == {}


def test_rate_game_does_not_mutate_inputs():
    before = {"a": Rating(20.0, 4.0), "b": Rating(30.0, 4.0)}
    copy = dict(before)
    rate_game(before, {"a": 1, "b": 2})
    assert before == copy
    assert MODEL.limit_sigma is False


def test_real_game_rates_durak_down():
    played = play(3, 0)
    places = finishing_places(played.rules, played.deal, played.actions)
    users = {seat: 1000 + seat for seat in range(3)}
    after = rate_game({}, {users[s]: p for s, p in enumerate(places)})
    durak = played.game.loser
    assert durak is not None
    assert after[users[durak]].mu == min(r.mu for r in after.values())


# ---------------------------------------------------------------- which games count


@pytest.mark.parametrize(
    ("humans", "has_ai", "count_ai", "expected"),
    [
        (0, True, True, False),
        (1, True, False, False),
        (1, True, True, False),  # nobody to compare the single human with
        (2, False, False, True),
        (2, True, False, False),
        (2, True, True, True),
        (6, False, False, True),
        (5, True, False, False),
        (5, True, True, True),
    ],
)
def test_should_rate(humans: int, has_ai: bool, count_ai: bool, expected: bool):
    assert should_rate(humans, has_ai, count_ai) is expected


def test_rating_profile():
    assert rating_profile(PROFILES["perevodnoy"]) == "perevodnoy"
    assert rating_profile(Rules(throw_in="all", first_round_limit=5, transfer=True)) == "custom"


# ---------------------------------------------------------------- recomputation


def _history(seed: int, count: int) -> list[RatedGame]:
    rng = random.Random(seed)
    games = []
    for game_id in range(1, count + 1):
        n = rng.randint(2, 6)
        users = rng.sample(range(1, 12), n)
        places = {u: rng.randint(1, n) for u in users}
        games.append(
            RatedGame.of(
                game_id,
                guild_id=rng.choice([7, 8]),
                profile=rng.choice(["podkidnoy", "perevodnoy"]),
                ended_at=1000.0 + game_id * 10,
                places=places,
            )
        )
    return games


def test_recompute_equals_incremental_application():
    games = _history(5, 120)
    live: dict[RatingKey, Rating] = {}
    for game in games:  # what the service does at each game's end
        live.update(apply_game(live, game))
    assert recompute(games) == live
    shuffled = games[:]
    random.Random(1).shuffle(shuffled)
    assert recompute(shuffled) == live  # game order comes from ended_at, not input order


def test_ratings_are_kept_apart_per_guild_and_profile():
    g1 = RatedGame.of(1, 7, "podkidnoy", 1.0, {1: 1, 2: 2})
    g2 = RatedGame.of(2, 8, "podkidnoy", 2.0, {1: 2, 2: 1})
    g3 = RatedGame.of(3, 7, "perevodnoy", 3.0, {1: 2, 2: 1})
    ratings = recompute([g1, g2, g3])
    assert set(ratings) == {
        RatingKey(g, p, u)
        for g, p in ((7, "podkidnoy"), (8, "podkidnoy"), (7, "perevodnoy"))
        for u in (1, 2)
    }
    assert ratings[RatingKey(7, "podkidnoy", 1)].mu > 25.0
    assert ratings[RatingKey(8, "podkidnoy", 1)].mu < 25.0
    assert ratings[RatingKey(7, "perevodnoy", 1)].mu < 25.0


def test_same_time_games_are_ordered_by_id():
    a = RatedGame.of(2, 7, "podkidnoy", 5.0, {1: 1, 2: 2})
    b = RatedGame.of(1, 7, "podkidnoy", 5.0, {1: 2, 3: 1})
    first = apply_game({}, b)
    assert recompute([a, b]) == {**first, **apply_game(first, a)}


# ---------------------------------------------------------------- places: properties

exits_strategy = st.lists(st.one_of(st.none(), st.integers(0, 40)), min_size=2, max_size=6)


@given(exits=exits_strategy, data=st.data())
def test_places_properties(exits: list[int | None], data: st.DataObject):
    n = len(exits)
    forfeits = data.draw(st.frozensets(st.integers(0, n - 1), max_size=n))
    places = places_from_exits(exits, forfeits)
    stayed = [s for s in range(n) if s not in forfeits]
    assert sorted(set(places)) == list(range(1, len(set(places)) + 1))  # dense from 1
    for a in stayed:
        for b in stayed:
            ea, eb = exits[a], exits[b]
            key_a = (ea is None, ea or 0)
            key_b = (eb is None, eb or 0)
            assert (places[a] < places[b]) == (key_a < key_b)
        for f in forfeits:
            assert places[f] > places[a]  # a forfeit is below everyone who played on
    assert len({places[f] for f in forfeits}) <= 1


def test_recompute_from_real_games_equals_live_updates():
    """End to end: seeded games finish, their places are rated as each ends; recomputing from
    the stored records gives exactly the same ratings."""
    live: dict[RatingKey, Rating] = {}
    stored: list[RatedGame] = []
    for game_id, (players, seed) in enumerate([(2, 0), (3, 62), (6, 12), (3, 108), (4, 5)], 1):
        played = play(players, seed)
        places = finishing_places(played.rules, played.deal, played.actions, forfeits={0})
        users = {seat: 100 + (seat + game_id) % 7 for seat in range(players)}
        record = RatedGame.of(
            game_id,
            guild_id=1,
            profile=rating_profile(played.rules),
            ended_at=float(game_id),
            places={users[s]: p for s, p in enumerate(places)},
        )
        live.update(apply_game(live, record))
        stored.append(record)
        worst = max(place for _, place in record.places)
        assert dict(record.places)[users[0]] == worst  # seat 0 forfeited every game
        assert [p for _, p in record.places].count(worst) == 1
    assert recompute(reversed(stored)) == live
