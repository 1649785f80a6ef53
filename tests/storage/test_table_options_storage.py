"""The table options in storage (RULES.md §10), on SQLite and PostgreSQL: a lobby's options and
its players' teams, a series' options and rules, a team game's losing team in the per-player
results, its stats apart from individual games (profile ``teams``) and its team ratings.  Rows
written before the options existed read back unchanged."""

from __future__ import annotations

import dataclasses
import json

import pytest

from bot.ratings import TEAM_PROFILE, RatingKey, recompute
from bot.seating import LobbyOptions, LobbySeat
from bot.storage import FIRST_REVISION, FinishedGame, LobbyRecord, PlayerResult, Storage
from bot.storage.records import lobby_from_json, lobby_json, options_from_json, options_json

from .conftest import GUILD, new_game, series_record

TEAM_OPTIONS = LobbyOptions(rules="podkidnoy", seats=4, deck=52, teams="2x2")


async def test_a_team_lobby_round_trips_with_its_options_and_teams(storage: Storage) -> None:
    lobby = LobbyRecord(
        100,
        GUILD,
        1,
        "Ann",
        TEAM_OPTIONS,
        [LobbySeat(1, "Ann", team=0), LobbySeat(None, "Casual AI", "casual", team=1)],
        5.0,
    )
    show = dataclasses.replace(
        lobby,
        channel_id=101,
        options=LobbyOptions(rules="perevodnoy", seats=4, deck=24, show_trump=True),
        seats=[LobbySeat(2, "Bob")],
    )
    await storage.save_lobby(lobby)
    await storage.save_lobby(show)
    state = await storage.load_state()
    assert sorted(state.lobbies, key=lambda r: r.channel_id) == [lobby, show]


def test_rows_written_before_the_options_read_back_unchanged() -> None:
    old_options = (
        '{"rules": "perevodnoy", "transfer": null, "throw_in": null, '
        '"first_round_limit": null, "turn_timeout": 30, "seats": 3}'
    )
    assert options_from_json(old_options) == LobbyOptions(
        rules="perevodnoy", turn_timeout=30, seats=3
    )
    # and a lobby without the options is written exactly as before
    assert options_json(LobbyOptions(rules="perevodnoy", turn_timeout=30, seats=3)) == old_options
    old_lobby = json.dumps(
        {
            "host_id": 1,
            "host_name": "Ann",
            "options": json.loads(old_options),
            "seats": [{"user_id": 1, "name": "Ann", "ai_level": None}],
            "created_at": 2.0,
        }
    )
    record = lobby_from_json(100, GUILD, old_lobby)
    assert record.seats == [LobbySeat(1, "Ann")] and record.options.deck is None
    assert lobby_json(record) == old_lobby


async def test_a_team_series_keeps_its_options_and_rules(storage: Storage) -> None:
    series = dataclasses.replace(
        series_record(seats=4),
        options=TEAM_OPTIONS,
        rules={"profile": "podkidnoy", "deck": 52, "teams": "2x2"},
        profile=TEAM_PROFILE,
    )
    _, game_id = await storage.start_game(series, new_game(series))
    (loaded,) = (await storage.load_state()).series
    assert loaded.options == TEAM_OPTIONS and loaded.rules == series.rules
    assert loaded.profile == TEAM_PROFILE
    record = await storage.load_game(game_id)
    assert record is not None and record.rules == series.rules


async def _team_game(storage: Storage, channel_id: int, losers: tuple[int, ...]) -> int:
    """A finished 2×2 game of users 1000–1003 (seats 0–3) that ``losers`` lost."""
    series = dataclasses.replace(
        series_record(channel_id=channel_id, seats=4),
        options=TEAM_OPTIONS,
        rules={"profile": "podkidnoy", "teams": "2x2"},
        profile=TEAM_PROFILE,
    )
    series_id, game_id = await storage.start_game(series, new_game(series))
    places = tuple((1000 + s, 2 if s in losers else 1) for s in range(4))
    await storage.finish_game(
        FinishedGame(
            game_id,
            series_id,
            GUILD,
            TEAM_PROFILE,
            "loss" if losers else "draw",
            losers[0] if losers else None,
            [],
            float(channel_id),
            [PlayerResult(s, 1000 + s, f"user{s}", s in losers, not losers) for s in range(4)],
            rated_places=places,
        ),
        None,
        end_series_at=float(channel_id),
        revision=FIRST_REVISION,
    )
    return game_id


async def test_a_team_game_counts_apart_and_rates_the_teams(storage: Storage) -> None:
    await _team_game(storage, 100, (1, 3))
    await _team_game(storage, 101, ())  # a team draw
    _, rows = await storage.player_stats(GUILD, 1001, None)
    assert [(r.profile, r.games, r.losses, r.draws) for r in rows] == [(TEAM_PROFILE, 2, 1, 1)]
    _, rows = await storage.player_stats(GUILD, 1000, None)
    assert [(r.profile, r.games, r.losses, r.draws) for r in rows] == [(TEAM_PROFILE, 2, 0, 1)]
    ratings = await storage.ratings(GUILD)
    assert set(ratings) == {RatingKey(GUILD, TEAM_PROFILE, 1000 + s) for s in range(4)}
    assert recompute(await storage.rated_games(GUILD)) == pytest.approx(ratings)
    # partners rise and fall together; the winners above the losers
    r = [ratings[RatingKey(GUILD, TEAM_PROFILE, 1000 + s)] for s in range(4)]
    assert r[0].mu == pytest.approx(r[2].mu) and r[1].mu == pytest.approx(r[3].mu)
    assert r[0].mu > r[1].mu
    total, board = await storage.leaderboard(GUILD, TEAM_PROFILE, 1, 10, 0)
    assert total == 4 and {row.user_id for row in board} == {1000, 1001, 1002, 1003}
    assert await storage.leaderboard(GUILD, "podkidnoy", 1, 10, 0) == (0, [])
