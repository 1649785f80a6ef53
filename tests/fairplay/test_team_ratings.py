"""Team games in the ratings (RULES.md §10.3): their own profile, places by team, openskill
rating each side as one team, and recomputation."""

from __future__ import annotations

import pytest

from bot.ratings import (
    TEAM_PROFILE,
    RatedGame,
    Rating,
    RatingKey,
    apply_game,
    finishing_places,
    rate_game,
    rating_profile,
    recompute,
    team_places,
)
from rules_engine import Rules
from tests.fairplay.support import play

TEAMS = Rules.from_spec({"profile": "podkidnoy", "teams": "2x2"})


def test_team_games_have_a_profile_of_their_own() -> None:
    assert rating_profile(TEAMS) == TEAM_PROFILE == "teams"
    assert rating_profile(Rules.from_spec({"profile": "classic", "teams": "3x3"})) == "teams"
    assert rating_profile(Rules.from_spec({"profile": "podkidnoy", "deck": 24})) == "custom"


def test_team_places_put_the_winning_team_first() -> None:
    assert team_places(4, (1, 3)) == (1, 2, 1, 2)
    assert team_places(6, (0, 2, 4)) == (2, 1, 2, 1, 2, 1)
    assert team_places(4, ()) == (1, 1, 1, 1)  # a draw
    assert team_places(4, (1, 3), forfeits=(0,)) == (3, 2, 1, 2)


def test_a_played_team_game_is_placed_by_its_losing_team() -> None:
    for seed in range(3):
        played = play(4, seed, TEAMS)
        game = played.game
        places = finishing_places(TEAMS, played.deal, played.actions)
        assert places == team_places(4, game.losers)
        if game.losers:
            assert {places[s] for s in game.losers} == {2}


def test_each_side_is_rated_as_one_team() -> None:
    places = {"a": 1, "b": 2, "c": 1, "d": 2}
    after = rate_game({}, places, teams=True)
    assert after["a"] == after["c"] and after["b"] == after["d"]
    assert after["a"].mu > Rating.default().mu > after["b"].mu
    # rated as teams, a win moves each partner less than beating three players alone
    solo = rate_game({}, places)
    assert solo["a"].mu == solo["c"].mu and after["a"].mu != pytest.approx(solo["a"].mu)
    # a draw (one place for all) changes nobody
    assert rate_game({}, dict.fromkeys("abcd", 1), teams=True) == dict.fromkeys(
        "abcd", Rating.default()
    )


def test_a_stronger_partner_shares_the_result() -> None:
    before = {"a": Rating(35.0, 3.0), "b": Rating(25.0, 8.0)}
    after = rate_game(before, {"a": 1, "b": 1, "c": 2, "d": 2}, teams=True)
    assert after["a"].mu > 35.0 and after["b"].mu > 25.0
    assert after["c"].mu < 25.0 and after["c"] == after["d"]


def test_team_games_recompute_as_they_were_applied() -> None:
    games = [
        RatedGame.of(1, 7, TEAM_PROFILE, 10.0, {1: 1, 2: 2, 3: 1, 4: 2}),
        RatedGame.of(2, 7, TEAM_PROFILE, 20.0, {1: 2, 2: 1, 3: 2, 4: 1}),
        RatedGame.of(3, 7, "podkidnoy", 30.0, {1: 1, 2: 2}),
    ]
    live: dict[RatingKey, Rating] = {}
    for g in games:
        live.update(apply_game(live, g))
    assert recompute(games) == live
    assert live[RatingKey(7, TEAM_PROFILE, 1)] == live[RatingKey(7, TEAM_PROFILE, 3)]
    assert RatingKey(7, "podkidnoy", 3) not in live
