"""Ratings at the end of a game, the history of a server and the replay of a finished game,
through the service (issue 10, items 3 and 4)."""

from __future__ import annotations

import pytest

from bot.authority import MODERATOR
from bot.errors import BadOption, UnknownGame
from bot.outcome import Ending, Outcome
from bot.ratings import Rating, RatingKey, finishing_places, recompute
from bot.replay import build_replay
from bot.service import GameService
from rules_engine import Deal

from .conftest import ALICE, BOB, CAROL, CH, GUILD, db_dump, open_table, play_out, settle


def finished_game(svc: GameService, channel: int = CH):
    game = svc.game_of(channel)
    assert game is not None and game.finished
    return game


async def test_a_game_of_humans_is_rated_from_the_finishing_order(make_service):
    svc = await make_service()
    await open_table(svc, ALICE, BOB, CAROL)
    table = await play_out(svc)
    game = finished_game(svc)
    places = finishing_places(game.rules, game.deal, game.history_text())
    ratings = await svc.storage.ratings(GUILD)
    users = [s.user_id for s in table.seats]
    assert set(ratings) == {RatingKey(GUILD, "podkidnoy", u) for u in users}
    # the better place, the higher the new mean (all started at the prior)
    by_place = sorted(zip(places, users, strict=True))
    means = [ratings[RatingKey(GUILD, "podkidnoy", u)].mu for _, u in by_place]
    assert means[0] > means[-1]
    for seat in table.outcome.losers:
        loser = table.seats[seat].user_id
        assert ratings[RatingKey(GUILD, "podkidnoy", loser)].mu < Rating.default().mu
    (rated,) = await svc.storage.rated_games(GUILD)
    assert rated.game_id == table.game_id
    assert dict(rated.places) == {u: p for p, u in zip(places, users, strict=True)}
    assert recompute([rated]) == ratings


async def test_ratings_over_a_series_recompute_from_the_games(make_service):
    svc = await make_service()
    await open_table(svc, ALICE, BOB)
    for _ in range(3):
        await play_out(svc)
        await svc.rematch(CH, ALICE)
    await play_out(svc)
    games = await svc.storage.rated_games(GUILD)
    assert len(games) == 4
    assert recompute(games) == await svc.storage.ratings(GUILD)
    stats = await svc.stats(GUILD, ALICE)
    (row,) = stats.by_profile
    assert row.rated_games == 4 and row.rating is not None and row.games == 4


async def test_games_with_ai_seats_are_not_rated_by_default(make_service):
    svc = await make_service()
    await open_table(svc, ALICE, BOB, ais=("beginner",))
    await play_out(svc)
    assert await svc.storage.ratings() == {}
    stats = await svc.stats(GUILD, ALICE)
    assert [(a.level, a.games) for a in stats.by_ai_level] == [("beginner", 1)]
    assert stats.by_profile[0].rating is None


async def test_a_server_counting_ai_games_rates_only_the_humans(make_service):
    svc = await make_service()
    await svc.set_server_config(GUILD, ALICE, manage_guild=True, count_ai_games="on")
    await open_table(svc, ALICE, BOB, ais=("casual", "beginner"))
    await play_out(svc)
    ratings = await svc.storage.ratings()
    assert {k.user_id for k in ratings} == {ALICE, BOB}
    stats = await svc.stats(GUILD, BOB)
    assert [(a.level, a.games) for a in stats.by_ai_level] == [("beginner", 1), ("casual", 1)]


async def test_one_human_is_never_rated(make_service):
    svc = await make_service()
    await svc.set_server_config(GUILD, ALICE, manage_guild=True, count_ai_games="on")
    await open_table(svc, ALICE, ais=("beginner",))
    await play_out(svc)
    assert await svc.storage.ratings() == {}


async def test_history_pages_and_filters_by_player(make_service):
    svc = await make_service()
    await open_table(svc, ALICE, BOB)
    ids = []
    for _ in range(11):
        ids.append((await play_out(svc)).game_id)
        await svc.rematch(CH, ALICE)
    await svc.stop(CH, ALICE, MODERATOR)  # the 12th game: stopped, so aborted
    await open_table(svc, CAROL, ALICE, channel=CH + 1)
    await play_out(svc, CH + 1)
    page1 = await svc.history(GUILD)
    assert page1.total == 13 and page1.pages == 2 and len(page1.entries) == 10
    assert page1.entries[1].outcome == Outcome.stopped() and not page1.entries[1].replayable
    first = page1.entries[0]
    assert [p.name for p in first.players] == [f"user{CAROL}", f"user{ALICE}"]
    page2 = await svc.history(GUILD, page=2)
    assert [e.game_id for e in page2.entries] == ids[:3][::-1]
    assert all(e.replayable and e.rules.profile == "podkidnoy" for e in page2.entries)
    for e in page2.entries:
        assert e.outcome.finished and bool(e.outcome.losers) == (e.outcome.ending is Ending.DURAK)
    carol = await svc.history(GUILD, CAROL)
    assert carol.total == 1 and carol.entries[0].game_id == first.game_id
    with pytest.raises(BadOption) as past_the_end:  # not an empty page beside "13 games"
        await svc.history(GUILD, page=3)
    assert past_the_end.value.message["pages"] == 2
    empty = await svc.history(GUILD + 1)  # page 1 always exists
    assert (empty.total, empty.pages, empty.entries) == (0, 1, ())
    for bad in ({"page": 0}, {"per_page": 26}, {"page": True}):
        with pytest.raises(BadOption):
            await svc.history(GUILD, **bad)


async def test_replay_rebuilds_the_game_from_its_stored_log(make_service):
    svc = await make_service()
    await open_table(svc, ALICE, BOB, ais=("casual",))
    table = await play_out(svc)
    await settle(svc)
    game = finished_game(svc)
    view = await svc.replay(GUILD, table.game_id)
    assert [p.name for p in view.players] == [f"user{ALICE}", f"user{BOB}", "Casual AI"]
    assert view.players[2].ai_level == "casual" and view.profile == "podkidnoy"
    expected = build_replay(game.rules, Deal.from_dict(game.deal.to_dict()), game.history_text())
    assert view.replay == expected
    assert view.replay.total == len(game.history) + 1
    last = view.replay.frames[-1]
    assert last.outcome is not None and last.outcome.losers == table.outcome.losers
    assert [str(f.action) for f in view.replay.frames[1:]] == game.history_text()
    assert await svc.replay(GUILD, table.game_id) is view  # kept built: a game never changes
    with pytest.raises(UnknownGame):
        await svc.replay(GUILD + 1, table.game_id)  # even when built, only for its server
    dealt = game.deal.to_dict()["hands"]
    assert [sorted(map(str, h)) for h in view.replay.frames[0].hands] == [sorted(h) for h in dealt]


async def test_replay_refuses_unknown_foreign_live_and_stopped_games(make_service, db_path):
    svc = await make_service()
    await open_table(svc, ALICE, BOB)
    live = (await svc.table(CH)).game_id
    before = db_dump(db_path)
    for guild, game_id, words in (
        (GUILD, 999, "no game"),
        (GUILD, 0, "no game"),
        (GUILD + 1, live, "no game"),
        (GUILD, live, "still being played"),
    ):
        with pytest.raises(UnknownGame) as info:
            await svc.replay(guild, game_id)
        assert words in str(info.value)
    assert db_dump(db_path) == before  # a refusal changes nothing
    await svc.stop(CH, ALICE, MODERATOR)
    with pytest.raises(UnknownGame) as info:
        await svc.replay(GUILD, live)
    assert "stopped before its end" in str(info.value)


async def test_a_game_that_cannot_be_ranked_is_recorded_unrated(make_service, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("no ranking today")

    monkeypatch.setattr("bot.service.settle.finishing_places", broken)
    svc = await make_service()
    await open_table(svc, ALICE, BOB)
    table = await play_out(svc)
    assert table.finished and (await svc.series(CH)).games == 1
    assert await svc.storage.ratings() == {}
    assert (await svc.stats(GUILD, ALICE)).games == 1
