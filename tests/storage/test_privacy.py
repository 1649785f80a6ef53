"""What is stored about one user, and their erasure (``Storage.player_data``,
``Storage.forget_player``): the contract, on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from bot.errors import PlayerInPlay
from bot.player_records import PrivacyView, ServerRecords
from bot.ratings import RatingKey
from bot.seating import FORMER_PLAYER_ID, LobbyOptions, LobbySeat
from bot.storage import (
    FIRST_REVISION,
    FinishedGame,
    LobbyRecord,
    PlayerResult,
    SeriesRecord,
    Storage,
)
from bot.terms import ChannelList
from bot.votes import Forfeit

from .conftest import Backend, new_game

ALICE, BOB, CAROL = 1000, 1001, 1002
#: A user whose id holds Alice's digits (a JSON search for 1000 finds 10001 too).
ZED = 10001
FORMER = LobbySeat(FORMER_PLAYER_ID, "")
TABLES = (
    "games",
    "game_players",
    "forfeits",
    "ratings",
    "rating_history",
    "series",
    "series_players",
    "lobbies",
    "live_games",
    "game_ai_levels",
)


def _series(channel: int, guild: int, seats: list[LobbySeat], profile: str) -> SeriesRecord:
    host = seats[0]
    assert host.user_id is not None
    return SeriesRecord(
        id=None,
        channel_id=channel,
        guild_id=guild,
        host_id=host.user_id,
        host_name=host.name,
        options=LobbyOptions(rules=profile),
        rules={"profile": profile},
        profile=profile,
        seats=seats,
        losses=[0] * len(seats),
        created_at=1.0,
    )


async def _game(
    storage: Storage,
    channel: int,
    guild: int,
    seats: list[LobbySeat],
    *,
    loser: int | None = 0,
    ended_at: float = 10.0,
    profile: str = "podkidnoy",
    forfeit: int | None = None,
    result: str = "loss",
    end_series: bool = True,
) -> tuple[int, int]:
    """A game of ``seats`` started 5 s before ``ended_at`` and finished then (``result``
    ``live``: left running), rated for its humans; ``forfeit``: a seat that left it.
    Returns ``(series id, game id)``."""
    series = _series(channel, guild, seats, profile)
    series_id, game_id = await storage.start_game(series, new_game(series, started_at=ended_at - 5))
    revision = FIRST_REVISION
    if forfeit is not None:
        user = seats[forfeit].user_id
        assert user is not None
        revision = await storage.record_forfeit(
            Forfeit(game_id, user, forfeit, ended_at - 1, "leave", move=3), guild, revision=revision
        )
    if result == "live":
        return series_id, game_id
    humans = [(i, s.user_id) for i, s in enumerate(seats) if s.user_id is not None]
    finished = result != "aborted"
    players = [PlayerResult(i, uid, seats[i].name, loser == i, loser is None) for i, uid in humans]
    series.id = series_id
    done = dataclasses.replace(
        series, games=1, losses=[int(loser == i) for i in range(len(seats))], last_loser=loser
    )
    await storage.finish_game(
        FinishedGame(
            game_id,
            series_id,
            guild,
            profile,
            result,
            loser if finished else None,
            [],
            ended_at,
            players if finished else [],
            forfeits=() if forfeit is None else (forfeit,),
            ai_levels=tuple(s.ai_level for s in seats if s.ai_level is not None),
            rated_places=tuple(sorted((uid, 2 if loser == i else 1) for i, uid in humans))
            if finished and len(humans) > 1
            else (),
        ),
        done if finished else None,
        end_series_at=ended_at if end_series else None,
        revision=revision,
    )
    return series_id, game_id


async def _dump(backend: Backend) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table that may hold a user (to show that nothing changed)."""
    return {t: sorted(await backend.sql(f"SELECT * FROM {t}"), key=repr) for t in TABLES}


async def _world(storage: Storage) -> dict[str, int]:
    """Alice's records in two servers, Bob's with hers, and games and a lobby of others."""
    alice, ally, bob = LobbySeat(ALICE, "Alice"), LobbySeat(ALICE, "Ally"), LobbySeat(BOB, "Bob")
    s1, g1 = await _game(storage, 100, 10, [alice, bob], loser=0, ended_at=10.0, forfeit=0)
    s2, g2 = await _game(
        storage, 101, 10, [bob, ally], loser=0, ended_at=20.0, profile="perevodnoy"
    )
    _, g3 = await _game(
        storage,
        200,
        20,
        [alice, LobbySeat(None, "Casual AI", "casual")],
        ended_at=30.0,
        result="aborted",
    )
    _, g4 = await _game(storage, 102, 10, [LobbySeat(ZED, "Zed"), bob], ended_at=40.0)
    await storage.save_lobby(
        LobbyRecord(300, 30, CAROL, "Carol", LobbyOptions(), [LobbySeat(CAROL, "Carol"), bob], 1.0)
    )
    return {"s1": s1, "s2": s2, "g1": g1, "g2": g2, "g3": g3, "g4": g4}


ALICE_STORED = PrivacyView(
    ALICE,
    ("Alice", "Ally"),
    (
        ServerRecords(10, games=2, results=2, forfeits=1, series=2, rating_changes=2),
        ServerRecords(20, games=1, series=1, first_at=25.0, last_at=30.0),
    ),
)


async def test_player_data_finds_every_record_of_the_user_in_every_server(
    storage: Storage,
) -> None:
    await _world(storage)
    data = await storage.player_data(ALICE)
    assert data.user_id == ALICE and data.names == ("Alice", "Ally")
    ten, twenty = data.servers
    assert (
        dataclasses.replace(ten, ratings=(), first_at=None, last_at=None) == ALICE_STORED.servers[0]
    )
    assert (ten.first_at, ten.last_at) == (5.0, 20.0)
    assert [(r.profile, r.games) for r in ten.ratings] == [("perevodnoy", 1), ("podkidnoy", 1)]
    stored = await storage.ratings(10)
    assert {r.profile: r.rating for r in ten.ratings} == {
        p: stored[RatingKey(10, p, ALICE)] for p in ("perevodnoy", "podkidnoy")
    }
    assert twenty == ALICE_STORED.servers[1]
    assert data.games == 3 and data.ratings == 2 and data.open_channels == ()
    # nobody else's: an id with Alice's digits in it, a user never seen
    zed = await storage.player_data(ZED)
    assert zed.names == ("Zed",) and [(s.guild_id, s.games) for s in zed.servers] == [(10, 1)]
    assert (await storage.player_data(100)).empty
    # Bob: his games, his series, and the lobby he sits in (an open channel)
    bob = await storage.player_data(BOB)
    assert [(s.guild_id, s.games, s.series, s.open_channels) for s in bob.servers] == [
        (10, 3, 3, ()),
        (30, 0, 0, (300,)),
    ]


async def test_forgetting_erases_the_user_and_leaves_the_others_as_they_were(
    storage: Storage,
) -> None:
    ids = await _world(storage)
    bob_before = await storage.player_data(BOB)
    bob_stats = await storage.player_stats(10, BOB, None)
    bob_levels = await storage.ai_level_stats(10, BOB, None)
    bob_ratings = {k: r for k, r in (await storage.ratings()).items() if k.user_id == BOB}
    board_before = await storage.leaderboard(10, "podkidnoy", 1, 10, 0)
    zed_before = await storage.player_data(ZED)
    lobbies_before = (await storage.load_state()).lobbies
    stored = await storage.player_data(ALICE)

    assert await storage.forget_player(ALICE) == stored  # what was erased

    assert await storage.player_data(ALICE) == PrivacyView(ALICE, (), ())
    assert await storage.player_stats(10, ALICE, None) == (None, [])
    assert await storage.history(10, ALICE, 10, 0) == (0, [])
    assert all(k.user_id != ALICE for k in await storage.ratings())
    assert all(ALICE not in dict(g.places) for g in await storage.rated_games())
    # her seats read "a former player": same place at the table, no id, no name
    for game_id, seats in (
        (ids["g1"], [FORMER, LobbySeat(BOB, "Bob")]),
        (ids["g2"], [LobbySeat(BOB, "Bob"), FORMER]),
        (ids["g3"], [FORMER, LobbySeat(None, "Casual AI", "casual")]),
    ):
        assert await storage.game_seats(game_id) == seats
        record = await storage.load_game(game_id)
        assert record is not None and record.seats == seats
    _, history = await storage.history(10, None, 10, 0)
    assert [[s.former for s in h.seats] for h in history] == [
        [False, False],
        [False, True],
        [True, False],
    ]
    assert [r.user_id for r in await storage.game_results(ids["g1"])] == [BOB]
    (forfeit,) = await storage.forfeits_of_game(ids["g1"])
    assert (forfeit.user_id, forfeit.seat, forfeit.move) == (FORMER_PLAYER_ID, 0, 3)
    series = await storage.load_series(ids["s1"])
    assert series is not None and (series.host_id, series.host_name) == (FORMER_PLAYER_ID, "")
    assert series.seats == [FORMER, LobbySeat(BOB, "Bob")] and series.losses == [1, 0]
    # the others: Bob's results, stats, ratings and place on the leaderboard, Zed, the lobby
    assert await storage.player_data(BOB) == bob_before
    assert await storage.player_stats(10, BOB, None) == bob_stats
    assert await storage.ai_level_stats(10, BOB, None) == bob_levels
    assert {k: r for k, r in (await storage.ratings()).items() if k.user_id == BOB} == bob_ratings
    total, board = await storage.leaderboard(10, "podkidnoy", 1, 10, 0)
    others = [dataclasses.replace(r, rank=0) for r in board_before[1] if r.user_id != ALICE]
    assert total == board_before[0] - 1 == len(others) == 2
    assert [dataclasses.replace(r, rank=0) for r in board] == others
    assert await storage.player_data(ZED) == zed_before
    assert (await storage.load_state()).lobbies == lobbies_before
    # forgetting again finds nothing
    assert (await storage.forget_player(ALICE)).empty


async def test_two_forgotten_players_of_one_game_keep_their_own_seats(storage: Storage) -> None:
    seats = [LobbySeat(ALICE, "Alice"), LobbySeat(BOB, "Bob"), LobbySeat(CAROL, "Carol")]
    _, game_id = await _game(storage, 100, 10, seats, loser=1)
    await asyncio.gather(storage.forget_player(ALICE), storage.forget_player(CAROL))
    assert await storage.game_seats(game_id) == [FORMER, LobbySeat(BOB, "Bob"), FORMER]
    assert [(r.seat, r.user_id, r.lost) for r in await storage.game_results(game_id)] == [
        (1, BOB, True)
    ]
    assert await storage.game_seats(game_id + 1) is None


@pytest.mark.parametrize("where", ["live game", "series between games", "lobby seat", "lobby host"])
async def test_forgetting_is_refused_while_the_user_is_in_play(
    storage: Storage, backend: Backend, where: str
) -> None:
    await _world(storage)
    alice, dan = LobbySeat(ALICE, "Alice"), LobbySeat(2000, "Dan")
    if where == "live game":
        await _game(storage, 400, 40, [dan, alice], result="live")
    elif where == "series between games":
        await _game(storage, 400, 40, [dan, alice], end_series=False)
    elif where == "lobby seat":
        await storage.save_lobby(
            LobbyRecord(400, 40, 2000, "Dan", LobbyOptions(), [dan, alice], 1.0)
        )
    else:
        await storage.save_lobby(LobbyRecord(400, 40, ALICE, "Alice", LobbyOptions(), [dan], 1.0))
    before = await _dump(backend)
    assert (await storage.player_data(ALICE)).open_channels == (400,)
    with pytest.raises(PlayerInPlay) as refused:
        await storage.forget_player(ALICE)
    assert refused.value.details["channels"] == (400,)
    assert refused.value.message["channels"] == ChannelList((400,))
    assert await _dump(backend) == before
