"""The storage contract: every test here runs, unchanged, on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random

import pytest

from bot.errors import GameMoved, StorageFailure
from bot.ratings import RatedGame, RatingKey, finishing_places, recompute
from bot.seating import LobbyOptions, LobbySeat
from bot.storage import (
    FIRST_REVISION,
    POSTGRES_MIGRATIONS,
    SQLITE_MIGRATIONS,
    FinishedGame,
    LobbyRecord,
    PlayerResult,
    Storage,
)
from bot.storage.migrations import Migration
from bot.votes import Forfeit

from ..fairplay.support import play
from .conftest import GUILD, Backend, new_game, series_record, upgraded_across


def migrations_of(backend: Backend) -> tuple[Migration, ...]:
    return SQLITE_MIGRATIONS if backend.name == "sqlite" else POSTGRES_MIGRATIONS


# ------------------------------------------------------------------------------ migrations
async def test_migrations_are_numbered_and_applied_once(backend: Backend) -> None:
    migrations = migrations_of(backend)
    assert [m.number for m in migrations] == list(range(1, len(migrations) + 1))
    st = backend.storage()
    await st.open()
    assert await st.schema_version() == len(migrations)
    await st.close()

    extra = Migration(len(migrations) + 1, "a test table", ("CREATE TABLE extra (x INTEGER)",))
    st = backend.storage([*migrations, extra])  # type: ignore[arg-type]
    await st.open()  # only the new one runs (the old ones would fail: their tables exist)
    assert await st.schema_version() == extra.number
    await st.close()
    rows = await backend.sql("SELECT version FROM schema_version ORDER BY version")
    assert [r[0] for r in rows] == [*range(1, len(migrations) + 1), extra.number]


async def test_both_backends_have_the_same_migration_numbers() -> None:
    assert [m.number for m in SQLITE_MIGRATIONS] == [m.number for m in POSTGRES_MIGRATIONS]
    assert [m.why for m in SQLITE_MIGRATIONS] == [m.why for m in POSTGRES_MIGRATIONS]


async def test_a_failed_migration_changes_nothing(backend: Backend) -> None:
    broken = Migration(1, "broken", ("CREATE TABLE a (x INTEGER)", "THIS IS NOT SQL"))
    st = backend.storage((broken,))
    with pytest.raises(Exception, match=r"(?i)syntax"):
        await st.open()
    await st.close()
    assert await backend.sql("SELECT COALESCE(MAX(version), 0) FROM schema_version") == [(0,)]
    with pytest.raises(Exception, match=r"(?i)no such table|does not exist"):
        await backend.sql("SELECT x FROM a")


# ------------------------------------------------------------------------------ lobbies, games
async def test_lobbies_round_trip(storage: Storage) -> None:
    lobby = LobbyRecord(
        100,
        GUILD,
        1,
        "Алиса",
        LobbyOptions(rules="perevodnoy", seats=3),
        [LobbySeat(1, "Алиса"), LobbySeat(None, "Casual AI", "casual")],
        5.0,
    )
    await storage.save_lobby(lobby)
    await storage.save_lobby(dataclasses.replace(lobby, host_name="Alice"))  # replaces
    state = await storage.load_state()
    assert state.lobbies == [dataclasses.replace(lobby, host_name="Alice")]
    await storage.delete_lobby(100)
    assert (await storage.load_state()).lobbies == []


async def test_start_game_creates_series_game_and_live_row(storage: Storage) -> None:
    await storage.save_lobby(LobbyRecord(100, GUILD, 1000, "user0", LobbyOptions(), [], 0.0))
    series = series_record()
    series_id, game_id = await storage.start_game(series, new_game(series))
    state = await storage.load_state()
    assert state.lobbies == []  # starting drops the lobby
    (loaded,) = state.series
    assert loaded.id == series_id and loaded.last_game_id == game_id
    assert [s.name for s in loaded.seats] == ["user0", "user1"] and loaded.losses == [0, 0]
    (live,) = state.live
    assert (live.game_id, live.channel_id, live.series_id, live.guild_id) == (
        game_id,
        100,
        series_id,
        GUILD,
    )
    assert live.revision == FIRST_REVISION and live.version == 0
    assert live.snapshot == {"actions": []} and live.meta == {"seed": 7}
    record = await storage.load_game(game_id)
    assert record is not None and record.result == "live" and record.deal == {"seed": 7}


async def test_discord_sized_ids_are_kept_exactly(storage: Storage) -> None:
    big = 1_234_567_890_123_456_789  # snowflakes need 64 bits
    series = series_record(channel_id=big, guild_id=big - 1)
    series.seats = [LobbySeat(big + 1, "a"), LobbySeat(big + 2, "b")]
    await storage.start_game(series, new_game(series, seed=2**62 - 1))
    state = await storage.load_state()
    assert state.series[0].channel_id == big and state.series[0].guild_id == big - 1
    assert [s.user_id for s in state.series[0].seats] == [big + 1, big + 2]
    assert state.live[0].channel_id == big


async def test_ending_a_series_and_saving_a_lobby_is_one_transaction(storage: Storage) -> None:
    """``/durak new`` in a channel with a finished series: the series ends and the lobby is
    stored together, or (the lobby's write fails) neither is."""
    series = series_record()
    series_id, _ = await storage.start_game(series, new_game(series))
    lobby = LobbyRecord(100, GUILD, 1002, "user2", LobbyOptions(), [LobbySeat(1002, "user2")], 9.0)
    unstorable = dataclasses.replace(lobby, guild_id=2**63)  # no 64-bit column takes it
    with pytest.raises(Exception, match=r"(?i)too large|out of int64 range"):  # either driver
        await storage.end_series_and_save_lobby(series_id, 8.0, unstorable)
    still = await storage.load_series(series_id)
    assert still is not None and still.active  # the series end was rolled back
    state = await storage.load_state()
    assert state.lobbies == [] and [s.id for s in state.series] == [series_id]

    await storage.end_series_and_save_lobby(series_id, 8.0, lobby)
    ended = await storage.load_series(series_id)
    assert ended is not None and not ended.active
    state = await storage.load_state()
    assert state.lobbies == [lobby] and state.series == []


# ------------------------------------------------------------------------------ fencing
async def _one_live_game(storage: Storage, channel_id: int = 100) -> tuple[int, int]:
    series = series_record(channel_id=channel_id)
    return await storage.start_game(series, new_game(series))


async def test_save_live_bumps_the_revision_it_is_given(storage: Storage) -> None:
    _, game_id = await _one_live_game(storage)
    revision = await storage.save_live(game_id, '{"v": 1}', "{}", 1, 3.0, revision=FIRST_REVISION)
    assert revision == FIRST_REVISION + 1
    revision = await storage.save_live(game_id, '{"v": 2}', "{}", 2, 4.0, revision=revision)
    (live,) = (await storage.load_state()).live
    assert (live.revision, live.version, live.snapshot) == (revision, 2, {"v": 2})


async def test_a_write_on_an_old_revision_is_refused_and_changes_nothing(storage: Storage) -> None:
    _, game_id = await _one_live_game(storage)
    await storage.save_live(game_id, '{"winner": true}', "{}", 1, 3.0, revision=FIRST_REVISION)
    with pytest.raises(GameMoved) as info:
        await storage.save_live(game_id, '{"stale": true}', "{}", 1, 3.5, revision=FIRST_REVISION)
    assert isinstance(info.value, StorageFailure) and info.value.code == "game_moved"
    assert "another bot process" in str(info.value.message)
    (live,) = (await storage.load_state()).live
    assert live.snapshot == {"winner": True} and live.revision == FIRST_REVISION + 1


async def test_bump_live_moves_the_fence_past_a_write_and_changes_nothing_else(
    storage: Storage,
) -> None:
    """What settles a write whose outcome is unknown: a bump from the revision it was fenced
    by works only if it was not applied, and then it can never be."""
    _, game_id = await _one_live_game(storage)
    before = await storage.load_live(game_id)
    assert before is not None and before.revision == FIRST_REVISION
    assert await storage.bump_live(game_id, 3.0, revision=FIRST_REVISION) == FIRST_REVISION + 1
    after = await storage.load_live(game_id)
    assert after == dataclasses.replace(before, revision=FIRST_REVISION + 1)
    with pytest.raises(GameMoved):  # the write fenced by the old revision: never applied now
        await storage.save_live(game_id, '{"late": 1}', "{}", 1, 4.0, revision=FIRST_REVISION)
    with pytest.raises(GameMoved):  # a second bump from it: the row moved on
        await storage.bump_live(game_id, 4.0, revision=FIRST_REVISION)
    assert await storage.load_live(game_id) == after
    assert await storage.load_live(game_id + 1) is None


async def test_concurrent_writers_of_one_revision_exactly_one_wins(storage: Storage) -> None:
    _, game_id = await _one_live_game(storage)
    results = await asyncio.gather(
        *(
            storage.save_live(
                game_id, json.dumps({"writer": i}), "{}", 1, 3.0, revision=FIRST_REVISION
            )
            for i in range(5)
        ),
        return_exceptions=True,
    )
    winners = [i for i, r in enumerate(results) if r == FIRST_REVISION + 1]
    assert len(winners) == 1
    assert all(isinstance(r, GameMoved) for i, r in enumerate(results) if i != winners[0])
    (live,) = (await storage.load_state()).live
    assert live.snapshot == {"writer": winners[0]}


async def test_fencing_holds_across_two_storages(backend: Backend) -> None:
    """Two storages are two processes on PostgreSQL; SQLite refuses the second one."""
    first = backend.storage()
    await first.open()
    try:
        _, game_id = await _one_live_game(first)
        if backend.name == "sqlite":
            with pytest.raises(Exception, match="in use by another durak-bot process"):
                await backend.storage().open()
            return
        second = backend.storage()
        await second.open()
        try:
            (seen,) = (await second.load_state()).live
            await first.save_live(game_id, '{"first": 1}', "{}", 1, 3.0, revision=seen.revision)
            with pytest.raises(GameMoved):
                await second.save_live(
                    game_id, '{"second": 1}', "{}", 1, 3.0, revision=seen.revision
                )
            with pytest.raises(GameMoved):
                await second.finish_game(
                    FinishedGame(
                        game_id, seen.series_id, GUILD, "podkidnoy", "aborted", None, [], 4.0
                    ),
                    None,
                    revision=seen.revision,
                )
            (live,) = (await second.load_state()).live
            assert live.snapshot == {"first": 1}
        finally:
            await second.close()
    finally:
        await first.close()


async def test_finish_is_fenced_and_counts_once(storage: Storage, backend: Backend) -> None:
    series = series_record()
    series_id, game_id = await storage.start_game(series, new_game(series))
    series.id = series_id
    revision = await storage.save_live(game_id, "{}", "{}", 1, 3.0, revision=FIRST_REVISION)
    done = dataclasses.replace(series, games=1, losses=[0, 1], last_dealer=0, last_loser=1)
    finished = FinishedGame(
        game_id,
        series_id,
        GUILD,
        "podkidnoy",
        "loss",
        1,
        ["0 attack 6♠"],
        9.0,
        [PlayerResult(0, 1000, "user0", False, False), PlayerResult(1, 1001, "user1", True, False)],
    )
    with pytest.raises(GameMoved):
        await storage.finish_game(finished, done, revision=FIRST_REVISION)
    assert await backend.sql("SELECT COUNT(*) FROM game_players") == [(0,)]
    await storage.finish_game(finished, done, revision=revision)
    with pytest.raises(GameMoved):  # a second finish of the same game: the row is gone
        await storage.finish_game(finished, done, revision=revision)
    assert await backend.sql("SELECT COUNT(*) FROM game_players") == [(2,)]
    state = await storage.load_state()
    assert state.live == [] and state.series[0].games == 1 and state.series[0].losses == [0, 1]
    record = await storage.load_game(game_id)
    assert record is not None and record.result == "loss" and record.actions == ["0 attack 6♠"]


# ------------------------------------------------------------------------------ recovery
async def test_orphan_live_rows_are_aborted_and_free_their_channel(
    storage: Storage, backend: Backend
) -> None:
    orphan_series, orphan = await _one_live_game(storage, channel_id=100)
    _, kept = await _one_live_game(storage, channel_id=200)
    await backend.sql("UPDATE series SET status = 'ended' WHERE id = ?", orphan_series)
    assert await storage.discard_orphans(50.0) == [orphan]
    state = await storage.load_state()
    assert [live.game_id for live in state.live] == [kept]
    record = await storage.load_game(orphan)
    assert record is not None and record.result == "aborted"
    series = series_record(channel_id=100)  # the channel takes a new game again
    await storage.start_game(series, new_game(series))
    assert await storage.discard_orphans(60.0) == []


async def test_load_state_keeps_only_the_guilds_asked_for(storage: Storage) -> None:
    for channel, guild in ((100, 1), (200, 2), (300, 3)):
        series = series_record(channel_id=channel, guild_id=guild)
        await storage.start_game(series, new_game(series))
    await storage.save_lobby(LobbyRecord(400, 2, 1, "a", LobbyOptions(), [], 0.0))
    await storage.save_lobby(LobbyRecord(500, 3, 1, "a", LobbyOptions(), [], 0.0))
    state = await storage.load_state(lambda guild: guild != 3)
    assert sorted(s.guild_id for s in state.series) == [1, 2]
    assert sorted(live.guild_id for live in state.live) == [1, 2]
    assert [lobby.channel_id for lobby in state.lobbies] == [400]


# ------------------------------------------------------------------------------ stats
async def _finish(
    storage: Storage,
    channel: int,
    guild: int,
    loser: int | None,
    profile: str = "podkidnoy",
    names: tuple[str, str] = ("a", "b"),
    ended_at: float = 9.0,
    ai_levels: tuple[str, ...] = (),
) -> int:
    """A finished two-human game, rated (the durak second, a draw level); its id."""
    series = series_record(channel_id=channel, guild_id=guild)
    series.profile = profile
    series_id, game_id = await storage.start_game(series, new_game(series))
    players = [PlayerResult(i, 1000 + i, names[i], loser == i, loser is None) for i in (0, 1)]
    places = tuple((1000 + i, 2 if loser == i else 1) for i in (0, 1))
    await storage.finish_game(
        FinishedGame(
            game_id,
            series_id,
            guild,
            profile,
            "draw" if loser is None else "loss",
            loser,
            [],
            ended_at,
            players,
            ai_levels=ai_levels,
            rated_places=places,
        ),
        None,
        end_series_at=ended_at,
        revision=FIRST_REVISION,
    )
    return game_id


async def test_stats_and_leaderboard_are_per_guild(storage: Storage) -> None:
    await _finish(storage, 100, 1, loser=1)
    await _finish(storage, 100, 1, loser=1, profile="perevodnoy", names=("a", "bee"), ended_at=10.0)
    await _finish(storage, 100, 1, loser=None)
    await _finish(storage, 200, 2, loser=0)
    name, rows = await storage.player_stats(1, 1001, None)
    assert name == "bee"  # the latest name
    assert [(r.profile, r.games, r.losses, r.draws) for r in rows] == [
        ("perevodnoy", 1, 1, 0),
        ("podkidnoy", 2, 1, 1),
    ]
    _, rows = await storage.player_stats(1, 1001, "perevodnoy")
    assert [(r.profile, r.games) for r in rows] == [("perevodnoy", 1)]
    total, board = await storage.leaderboard(1, "podkidnoy", 1, 10, 0)
    assert total == 2
    assert [(r.rank, r.user_id, r.name, r.games, r.losses, r.draws) for r in board] == [
        (1, 1000, "a", 2, 0, 1),
        (2, 1001, "bee", 2, 1, 1),
    ]
    assert [r.rated_games for r in board] == [2, 2]
    assert board[0].display > board[1].display
    assert board[1].loss_rate == pytest.approx(1 / 2)
    total, board = await storage.leaderboard(1, "podkidnoy", 1, 1, 1)  # page 2 of size 1
    assert total == 2 and [(r.rank, r.user_id) for r in board] == [(2, 1001)]
    total, board = await storage.leaderboard(1, "podkidnoy", 3, 10, 0)
    assert (total, board) == (0, [])
    total, board = await storage.leaderboard(1, "perevodnoy", 1, 10, 0)
    assert [(r.user_id, r.games, r.rated_games) for r in board] == [(1000, 1, 1), (1001, 1, 1)]
    total, board = await storage.leaderboard(2, "podkidnoy", 1, 10, 0)
    assert total == 2 and board[0].user_id == 1001  # guild 2 counts its own games only
    assert await storage.player_stats(3, 1000, None) == (None, [])


# ------------------------------------------------------------------------------ forfeits
async def test_a_forfeit_is_recorded_at_once_fenced_and_once_per_seat(storage: Storage) -> None:
    _, game_id = await _one_live_game(storage)
    leave = Forfeit(game_id, 1001, 1, 5.0, "leave", move=3)
    revision = await storage.record_forfeit(leave, GUILD, revision=FIRST_REVISION)
    assert revision == FIRST_REVISION + 1
    assert await storage.forfeits_of_game(game_id) == [leave]  # stored before the game ends
    (live,) = (await storage.load_state()).live
    assert live.revision == revision  # the forfeit moved the live row on

    # a process holding an older revision cannot record one
    kick = Forfeit(game_id, 1000, 0, 6.0, "kick")
    with pytest.raises(GameMoved):
        await storage.record_forfeit(kick, GUILD, revision=FIRST_REVISION)
    assert await storage.forfeits_of_game(game_id) == [leave]

    # the same seat again is ignored; another seat is kept, in order
    again = Forfeit(game_id, 1001, 1, 7.0, "kick")
    revision = await storage.record_forfeit(again, GUILD, revision=revision)
    revision = await storage.record_forfeit(kick, GUILD, revision=revision)
    assert await storage.forfeits_of_game(game_id) == [leave, kick]
    assert await storage.forfeits_of_game(game_id + 1000) == []

    # the live row and its forfeits read together, as another process takes a change
    read = await storage.load_live_game(game_id)
    assert read is not None
    live, forfeits = read
    assert (live.game_id, live.revision) == (game_id, revision) and forfeits == [leave, kick]
    assert await storage.load_live_game(game_id + 1000) is None


async def test_a_live_game_without_forfeits_reads_with_none(storage: Storage) -> None:
    _, game_id = await _one_live_game(storage)
    read = await storage.load_live_game(game_id)
    assert read is not None
    assert read[0] == await storage.load_live(game_id) and read[1] == []


async def test_stats_count_forfeits_per_profile(storage: Storage) -> None:
    series = series_record()
    series_id, game_id = await storage.start_game(series, new_game(series))
    revision = await storage.record_forfeit(
        Forfeit(game_id, 1001, 1, 5.0, "leave"), GUILD, revision=FIRST_REVISION
    )
    # the forfeiter's seat ends as the durak: one loss, one forfeit
    players = [PlayerResult(0, 1000, "a", False, False), PlayerResult(1, 1001, "b", True, False)]
    await storage.finish_game(
        FinishedGame(
            game_id, series_id, GUILD, "podkidnoy", "loss", 1, [], 9.0, players, forfeits=(1,)
        ),
        None,
        end_series_at=9.0,
        revision=revision,
    )
    await _finish(storage, 100, GUILD, loser=1, profile="perevodnoy")
    _, rows = await storage.player_stats(GUILD, 1001, None)
    assert [(r.profile, r.games, r.losses, r.forfeits) for r in rows] == [
        ("perevodnoy", 1, 1, 0),
        ("podkidnoy", 1, 1, 1),
    ]
    _, rows = await storage.player_stats(GUILD, 1001, "podkidnoy")
    assert [(r.profile, r.forfeits) for r in rows] == [("podkidnoy", 1)]
    _, rows = await storage.player_stats(GUILD, 1000, None)
    assert [(r.profile, r.forfeits) for r in rows] == [("perevodnoy", 0), ("podkidnoy", 0)]
    _, rows = await storage.player_stats(GUILD + 1, 1001, None)
    assert rows == []


async def test_stats_carry_the_rating_and_the_ai_levels_apart(storage: Storage) -> None:
    await _finish(storage, 100, 1, loser=1, ai_levels=("casual", "expert"))
    await _finish(storage, 101, 1, loser=0, ai_levels=("casual",))
    await _finish(storage, 102, 1, loser=None)
    _, rows = await storage.player_stats(1, 1001, None)
    (podkidnoy,) = rows
    assert podkidnoy.rated_games == 3 and podkidnoy.rating is not None
    assert podkidnoy.rating == (await storage.ratings(1))[RatingKey(1, "podkidnoy", 1001)]
    levels = await storage.ai_level_stats(1, 1001, None)
    assert [(a.level, a.games, a.losses, a.draws) for a in levels] == [
        ("casual", 2, 1, 0),
        ("expert", 1, 1, 0),
    ]
    assert await storage.ai_level_stats(1, 1001, "classic") == []
    assert await storage.ai_level_stats(2, 1001, None) == []


async def test_every_rating_recomputes_from_the_stored_games(storage: Storage) -> None:
    """Ratings are stored with their history per game: rebuilding them from scratch with
    bot.ratings.recompute over the stored places gives exactly the stored ratings."""
    rng = random.Random(5)
    game_ids = []
    for i in range(24):
        guild = 1 + i % 2
        profile = ("podkidnoy", "perevodnoy")[i % 3 == 0]
        game_ids.append(
            await _finish(storage, 100 + i, guild, rng.choice((0, 1, None)), profile, ended_at=i)
        )
    # and a three-player game with a shared place
    series = series_record(channel_id=900, guild_id=1, seats=3)
    series_id, game_id = await storage.start_game(series, new_game(series))
    await storage.finish_game(
        FinishedGame(
            game_id,
            series_id,
            1,
            "podkidnoy",
            "loss",
            2,
            [],
            100.0,
            [PlayerResult(i, 1000 + i, f"user{i}", i == 2, False) for i in range(3)],
            rated_places=((1000, 1), (1001, 1), (1002, 2)),
        ),
        None,
        end_series_at=100.0,
        revision=FIRST_REVISION,
    )
    stored = await storage.ratings()
    games = await storage.rated_games()
    assert len(games) == 25 and {g.game_id for g in games} == {*game_ids, game_id}
    assert recompute(games) == pytest.approx(stored)
    for key, rating in recompute(games).items():
        assert rating.mu == pytest.approx(stored[key].mu, abs=1e-9)
        assert rating.sigma == pytest.approx(stored[key].sigma, abs=1e-9)
    assert len(stored) == 2 * 2 * 2 + 1  # guilds x profiles x players, and user 1002
    assert recompute(await storage.rated_games(2)) == await storage.ratings(2)
    (newcomer,) = [g for g in games if g.game_id == game_id]
    assert newcomer.places == ((1000, 1), (1001, 1), (1002, 2))


async def test_a_game_without_places_changes_no_rating(storage: Storage) -> None:
    series = series_record(channel_id=100, guild_id=1)
    series_id, game_id = await storage.start_game(series, new_game(series))
    await storage.finish_game(
        FinishedGame(game_id, series_id, 1, "podkidnoy", "loss", 0, [], 5.0, []),
        None,
        revision=FIRST_REVISION,
    )
    assert await storage.ratings() == {} and await storage.rated_games() == []


async def test_history_pages_newest_first_and_by_player(storage: Storage) -> None:
    ids = [await _finish(storage, 100 + i, 1, i % 2, ended_at=10.0 + i) for i in range(12)]
    await _finish(storage, 300, 2, 0)  # another guild
    series = series_record(channel_id=400, guild_id=1, seats=2)
    series.seats[1] = LobbySeat(7, "solo")
    series_id, aborted = await storage.start_game(series, new_game(series))
    await storage.finish_game(
        FinishedGame(aborted, series_id, 1, "podkidnoy", "aborted", None, [], 50.0),
        None,
        revision=FIRST_REVISION,
    )
    series = series_record(channel_id=500, guild_id=1)
    await storage.start_game(series, new_game(series))  # live: not history
    total, page = await storage.history(1, None, 10, 0)
    assert total == 13
    assert [h.game_id for h in page] == [aborted, *reversed(ids[3:])]
    assert page[0].result == "aborted" and page[0].loser_seat is None
    assert page[1].result == "loss" and page[1].loser_seat == 1
    assert [s.name for s in page[1].seats] == ["user0", "user1"]
    assert page[1].rules == {"profile": "podkidnoy"} and page[1].ended_at == 21.0
    total, page = await storage.history(1, None, 10, 10)
    assert [h.game_id for h in page] == [ids[2], ids[1], ids[0]]
    total, page = await storage.history(1, 1001, 5, 0)  # games with a result for 1001
    assert total == 12 and len(page) == 5 and page[0].game_id == ids[-1]
    assert await storage.history(1, 424242, 10, 0) == (0, [])
    record = await storage.load_game(ids[0])
    assert record is not None and record.guild_id == 1 and record.loser_seat == 0
    assert record.ended_at == 10.0 and [s.user_id for s in record.seats] == [1000, 1001]


async def test_migration_4_fills_in_the_ai_levels_of_older_games(backend: Backend) -> None:
    """A database at schema 2 (the current release) with finished games that had AI seats:
    after migration 4, stats count those games against each AI level; nothing else moves."""
    old = backend.storage(migrations_of(backend)[:2])
    await old.open()
    series = series_record(channel_id=100, guild_id=1)
    series.seats = [
        LobbySeat(1000, "a"),
        LobbySeat(None, "Casual AI", "casual"),
        LobbySeat(None, "Casual AI 2", "casual"),
        LobbySeat(None, "Expert AI", "expert"),
    ]
    series.losses = [0, 0, 0, 0]
    series_id, game_id = await old.start_game(series, new_game(series))
    await old.finish_game(
        FinishedGame(
            game_id,
            series_id,
            1,
            "podkidnoy",
            "loss",
            0,
            ["0 take"],
            5.0,
            [PlayerResult(0, 1000, "a", True, False)],
        ),
        None,
        revision=FIRST_REVISION,
    )
    live_series = series_record(channel_id=200, guild_id=1)
    live_series.seats = [LobbySeat(1000, "a"), LobbySeat(None, "Beginner AI", "beginner")]
    await old.start_game(live_series, new_game(live_series))  # live: not counted
    before = await backend.sql("SELECT * FROM games ORDER BY id")
    await old.close()

    new = backend.storage()
    await new.open()
    try:
        assert await new.schema_version() == len(migrations_of(backend))
        levels = await new.ai_level_stats(1, 1000, None)
        assert [(a.level, a.games, a.losses) for a in levels] == [
            ("casual", 1, 1),
            ("expert", 1, 1),
        ]
        name, rows = await new.player_stats(1, 1000, None)
        assert name == "a" and [(r.games, r.rating) for r in rows] == [(1, None)]
        total, history = await new.history(1, None, 10, 0)
        assert total == 1 and history[0].game_id == game_id
    finally:
        await new.close()
    assert await backend.sql("SELECT * FROM games ORDER BY id") == before


async def test_migration_4_rates_the_games_already_finished(backend: Backend) -> None:
    """A database at schema 2 with real finished games (deal and action log): migration 4
    rates the two-human ones in the order they ended, exactly as recomputing from their
    finishing order does; games with AI seats and a log that does not replay stay unrated."""
    old = backend.storage(migrations_of(backend)[:2])
    await old.open()
    expected = []
    for i, (players, seed, ai) in enumerate(
        ((2, 1, False), (3, 2, False), (3, 3, True), (2, 4, False))
    ):
        played = play(players, seed)
        series = series_record(channel_id=100 + i, guild_id=1, seats=players)
        if ai:
            series.seats[-1] = LobbySeat(None, "Casual AI", "casual")
        game = dataclasses.replace(new_game(series, seed=seed), deal=played.deal.to_dict())
        series_id, game_id = await old.start_game(series, game)
        loser = played.game.loser
        await old.finish_game(
            FinishedGame(
                game_id,
                series_id,
                1,
                "podkidnoy",
                "draw" if loser is None else "loss",
                loser,
                played.actions,
                100.0 - i,  # ended in the reverse order of their ids
                [
                    PlayerResult(s, 1000 + s, f"user{s}", loser == s, loser is None)
                    for s in range(players)
                    if not (ai and s == players - 1)
                ],
            ),
            None,
            revision=FIRST_REVISION,
        )
        if not ai:
            places = finishing_places(played.rules, played.deal, played.actions)
            expected.append(
                RatedGame.of(
                    game_id, 1, "podkidnoy", 100.0 - i, {1000 + s: p for s, p in enumerate(places)}
                )
            )
    series = series_record(channel_id=200, guild_id=1)
    series_id, broken = await old.start_game(series, new_game(series))  # deal {"seed": 7}
    await old.finish_game(
        FinishedGame(broken, series_id, 1, "podkidnoy", "loss", 0, ["0 take"], 1.0, []),
        None,
        revision=FIRST_REVISION,
    )
    await old.close()

    new = backend.storage()
    await new.open()
    try:
        rated = await new.rated_games()
        assert [g.game_id for g in rated] == [g.game_id for g in reversed(expected)]
        assert rated == sorted(expected, key=lambda g: g.ended_at)
        assert await new.ratings() == recompute(expected)
        total, board = await new.leaderboard(1, "podkidnoy", 1, 10, 0)
        assert total == 3 and sorted(r.rated_games for r in board) == [1, 3, 3]
    finally:
        await new.close()


# ------------------------------------------------------------------------------ server settings
async def test_server_config_round_trips_per_guild(storage: Storage, backend: Backend) -> None:
    assert await storage.load_server_config(GUILD) is None  # never configured
    big = 1_234_567_890_123_456_789  # a Discord-sized guild id, kept exactly
    await storage.save_server_config(GUILD, '{"version": 1, "turn_timeout": 90}', 10.0)
    await storage.save_server_config(big, '{"version": 1}', 11.0)
    assert await storage.load_server_config(GUILD) == '{"version": 1, "turn_timeout": 90}'
    assert await storage.load_server_config(big) == '{"version": 1}'
    # saving again replaces the row: one row per guild, with the newer time
    await storage.save_server_config(GUILD, '{"version": 1, "turn_timeout": 30}', 12.0)
    assert await storage.load_server_config(GUILD) == '{"version": 1, "turn_timeout": 30}'
    rows = await backend.sql("SELECT guild_id, updated_at FROM server_settings ORDER BY updated_at")
    assert [(int(g), float(t)) for g, t in rows] == [(big, 11.0), (GUILD, 12.0)]


async def test_server_settings_table_comes_with_migration_5(backend: Backend) -> None:
    st = await upgraded_across(backend, 5, "server_settings")  # an older database, moved on
    assert await st.load_server_config(GUILD) is None  # the table exists and is empty
    await st.close()
