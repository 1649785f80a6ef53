"""Stats and leaderboard: SQL aggregates on known data (their indexes:
tests/storage/test_query_plans.py)."""

from __future__ import annotations

import pytest

from bot.errors import BadOption
from tests import storage_helpers as stored

G, OTHER_GUILD = 10, 11
# (guild, user, name, profile, lost, draw) per finished game, in time order
GAMES = (
    [
        (G, 1, "Ann", "podkidnoy", 1, 0),
        (G, 1, "Ann", "podkidnoy", 0, 1),
        (G, 1, "Ann", "podkidnoy", 0, 0),
        (G, 1, "Ann", "perevodnoy", 1, 0),
        (G, 1, "Ann", "perevodnoy", 1, 0),
        (G, 1, "Anna", "podkidnoy", 0, 0),
    ]
    + [(G, 2, "Ben", "podkidnoy", 0, 0)] * 3
    + [(G, 3, "Cid", "podkidnoy", 1, 0)]
    + [(G, 4, "Dee", "classic", 1, 0)]
    + [(G, 4, "Dee", "classic", 0, 0)] * 4
    + [(G, 5, "Eve", "podkidnoy", 0, 0)] * 6
    + [(OTHER_GUILD, 1, "Ann", "podkidnoy", 1, 0)] * 10
)

# (guild, profile, user, mu, sigma, rated games): conservative estimates (mu - 3 sigma):
# Ann 16, Ben 12, Cid 19 (but 1 game), Eve 10 (6 games), Dee 14 in classic
RATINGS = [
    (G, "podkidnoy", 1, 25.0, 3.0, 5),
    (G, "podkidnoy", 2, 30.0, 6.0, 5),
    (G, "podkidnoy", 3, 22.0, 1.0, 1),
    (G, "podkidnoy", 5, 22.0, 4.0, 6),
    (G, "perevodnoy", 1, 20.0, 2.0, 2),
    (G, "classic", 4, 20.0, 2.0, 5),
    (OTHER_GUILD, "podkidnoy", 1, 40.0, 1.0, 10),
]


@pytest.fixture
async def stats_service(make_service, db_path):
    svc = await make_service()
    await stored.seed_stats(svc.storage, GAMES, RATINGS)
    return svc


async def test_player_stats(stats_service):
    s = await stats_service.stats(G, 1)
    assert (s.games, s.losses, s.draws) == (6, 3, 1)
    assert s.loss_rate == pytest.approx(0.5)
    assert s.name == "Anna"  # the latest name
    by = {p.profile: (p.games, p.losses, p.draws) for p in s.by_profile}
    assert by == {"podkidnoy": (4, 1, 1), "perevodnoy": (2, 2, 0)}
    only = await stats_service.stats(G, 1, "podkidnoy")
    assert (only.games, only.losses, only.draws, only.profile) == (4, 1, 1, "podkidnoy")
    assert only.loss_rate == pytest.approx(0.25)
    other = await stats_service.stats(OTHER_GUILD, 1)
    assert (other.games, other.losses) == (10, 10)
    nobody = await stats_service.stats(G, 99)
    assert (nobody.games, nobody.name, nobody.loss_rate, nobody.by_profile) == (0, None, 0.0, ())


async def test_leaderboard_by_conservative_estimate_with_min_games(stats_service):
    board = await stats_service.leaderboard(G)  # the default profile, at least 5 rated games
    assert board.profile == "podkidnoy" and board.min_games == 5
    assert [(r.user_id, r.display) for r in board.rows] == [(1, 16), (2, 12), (5, 10)]
    assert [r.rank for r in board.rows] == [1, 2, 3]
    ann = board.rows[0]
    assert (ann.name, ann.games, ann.losses, ann.draws, ann.rated_games) == ("Anna", 4, 1, 1, 5)
    assert board.total_players == 3 and board.pages == 1

    board = await stats_service.leaderboard(G, min_games=1)  # Cid's one game counts now
    assert [r.user_id for r in board.rows] == [3, 1, 2, 5]
    board = await stats_service.leaderboard(G, min_games=6)
    assert [r.user_id for r in board.rows] == [5]
    board = await stats_service.leaderboard(G, profile="classic")
    assert [(r.user_id, r.games, r.losses, r.display) for r in board.rows] == [(4, 5, 1, 14)]
    board = await stats_service.leaderboard(G, profile="perevodnoy")
    assert board.rows == ()

    page1 = await stats_service.leaderboard(G, min_games=1, page=1, per_page=2)
    page2 = await stats_service.leaderboard(G, min_games=1, page=2, per_page=2)
    assert [r.user_id for r in page1.rows] == [3, 1]
    assert [(r.rank, r.user_id) for r in page2.rows] == [(3, 2), (4, 5)]
    assert page1.pages == 2 and page1.total_players == 4
    with pytest.raises(BadOption) as past_the_end:  # a page past the end does not exist
        await stats_service.leaderboard(G, min_games=1, page=3, per_page=2)
    assert past_the_end.value.message["pages"] == 2
    empty = await stats_service.leaderboard(999)
    assert empty.rows == () and empty.pages == 1 and empty.total_players == 0


async def test_stats_show_the_rating_per_profile(stats_service):
    s = await stats_service.stats(G, 1)
    by = {p.profile: (p.rating, p.rated_games) for p in s.by_profile}
    assert by["podkidnoy"][0] is not None and by["podkidnoy"][0].display == 16
    assert by["perevodnoy"][0] is not None and by["perevodnoy"][1] == 2
    s = await stats_service.stats(G, 3)
    assert s.by_profile[0].rating is not None and s.by_profile[0].rated_games == 1
    s = await stats_service.stats(G, 4, "classic")
    assert [p.profile for p in s.by_profile] == ["classic"] and s.by_ai_level == ()


async def test_bad_stats_arguments(stats_service):
    for call in (
        stats_service.stats(G, 1, "bridge"),
        stats_service.leaderboard(G, profile="bridge"),
        stats_service.leaderboard(G, min_games=0),
        stats_service.leaderboard(G, page=0),
        stats_service.leaderboard(G, per_page=500),
    ):
        with pytest.raises(BadOption):
            await call
