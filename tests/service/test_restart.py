"""Restart recovery: a new service on the same database file resumes identical games."""

from __future__ import annotations

import dataclasses
import json

from bot.service import GameService
from bot.service.lifecycle import UNRESTORABLE_NOTICE
from tests import storage_helpers as stored

from .conftest import ALICE, BOB, CAROL, CH, GUILD, open_table, play_out, settle

USERS = {0: ALICE, 1: BOB}


async def crash(svc: GameService) -> None:
    """Stop a service the way a killed process stops: nothing more is written."""
    await svc.halt()


async def play_some(svc: GameService, moves: int) -> None:
    for _ in range(moves):
        table = await svc.table(CH)
        user = USERS[table.to_act]
        hand = await svc.hand(CH, user)
        await svc.act(CH, user, hand.legal[-1].text, hand.version)


def game_state(svc: GameService) -> dict[str, object]:
    game = svc.game_of(CH)
    assert game is not None
    return game.state_dict()


def same_table(a, b) -> bool:
    return dataclasses.replace(a, deadline=None) == dataclasses.replace(b, deadline=None)


async def test_the_recent_moves_are_stored_as_the_engines_records(make_service, db_path):
    """The table's last moves are kept as the engine recorded them (what each did: the round
    it ended, by whom it was taken) and read back whole after a restart."""
    a = await make_service()
    await open_table(a, ALICE, BOB)
    for _ in range(20):
        await play_some(a, 1)
        before = await a.table(CH)
        if any(r.played.round_end is not None for r in before.recent):
            break
    else:
        raise AssertionError("no round ended in 20 moves")
    await a.close()
    async with stored.opened(db_path) as storage:
        (live,) = await stored.live_games(storage)
    assert live.meta["recent"] == [{**r.played.to_dict(), "auto": r.auto} for r in before.recent]
    b = await make_service()
    after = await b.table(CH)
    assert after.recent == before.recent


async def test_recent_moves_stored_by_an_older_release_read_back(make_service, db_path):
    """A live row whose recent moves were stored as ``[seat, kind, [cards], auto]`` (before
    the records held what followed each action) restores with those actions."""
    a = await make_service()
    await open_table(a, ALICE, BOB)
    await play_some(a, 4)
    before = await a.table(CH)
    await a.close()
    old = [[r.seat, r.kind.value, [str(c) for c in r.cards], r.auto] for r in before.recent]
    await plant_meta(db_path, {CH: {"recent": old}})
    b = await make_service()
    after = await b.table(CH)
    assert [(r.seat, r.kind, r.cards, r.played.uses, r.auto) for r in after.recent] == [
        (r.seat, r.kind, r.cards, r.played.uses, r.auto) for r in before.recent
    ]
    assert all(r.played.round_end is None for r in after.recent)  # the actions alone
    assert after.version == before.version and b.live_channels() == [CH]


async def test_graceful_restart_resumes_identical_game_with_time_left(make_service, clock):
    a = await make_service()
    await open_table(a, ALICE, BOB)
    await play_some(a, 5)
    await clock.advance(20)
    before = await a.table(CH)
    hands = [await a.hand(CH, u) for u in (ALICE, BOB)]
    state = game_state(a)
    await a.close()

    await clock.advance(300)  # the bot is down for five minutes
    b = await make_service()
    after = await b.table(CH)
    assert same_table(before, after)
    assert after.deadline == clock.now() + 40  # the 40 s that were left
    assert game_state(b) == state
    for user, hand in zip((ALICE, BOB), hands, strict=True):
        again = await b.hand(CH, user)
        assert dataclasses.replace(again, deadline=None) == dataclasses.replace(hand, deadline=None)

    await clock.advance(39.9)
    assert (await b.table(CH)).version == before.version
    await clock.advance(0.1)
    await settle(b)
    table = await b.table(CH)
    assert table.version == before.version + 1 and table.recent[-1].auto == "timeout"
    # and the game goes on from there
    user = USERS[table.to_act]
    hand = await b.hand(CH, user)
    await b.act(CH, user, hand.legal[0].text, hand.version, game_id=hand.game_id)


async def test_crash_keeps_absolute_deadlines_with_a_grace(make_service, clock):
    a = await make_service()
    await open_table(a, ALICE, BOB)
    await play_some(a, 3)
    deadline = (await a.table(CH)).deadline
    await crash(a)

    await clock.advance(15)
    b = await make_service()
    assert (await b.table(CH)).deadline == deadline  # 45 s still left
    await crash(b)

    await clock.advance(120)  # long past the deadline
    c = await make_service()
    table = await c.table(CH)
    assert table.deadline == clock.now() + 10  # restore_grace, not an instant timeout
    assert table.version == 3


async def test_ai_seats_resume_after_restart(make_service, clock):
    a = await make_service(ai_delay=3.0)
    table = await open_table(a, ALICE, ais=("beginner",))
    if table.to_act == 0:
        hand = await a.hand(CH, ALICE)
        table = await a.act(CH, ALICE, hand.legal[0].text, 0)
    assert table.to_act == 1
    await settle(a)  # the AI decided and waits its delay
    await a.close()

    b = await make_service(ai_delay=3.0)
    await settle(b)
    assert (await b.table(CH)).version == table.version
    await clock.advance(3)
    await settle(b)
    assert (await b.table(CH)).version == table.version + 1


async def test_all_ai_game_resumes_and_finishes(make_service):
    a = await make_service(ai_delay=1.0)
    await a.open_lobby(CH, GUILD, ALICE, "Alice", seat_host=False)
    await a.add_ai(CH, ALICE, "beginner")
    await a.add_ai(CH, ALICE, "beginner")
    await a.start(CH, ALICE)
    for _ in range(4):
        await a.clock.advance(1)  # type: ignore[attr-defined]
        await settle(a)
    version = (await a.table(CH)).version
    assert version >= 3
    await a.close()

    b = await make_service(ai_delay=0.0)
    assert (await b.table(CH)).version == version
    table = await play_out(b)
    assert table.finished and (await b.series(CH)).games == 1


async def test_finished_series_survives_restart_and_rematches(make_service):
    a = await make_service()
    await open_table(a, ALICE, BOB, ais=("beginner",))
    finished = await play_out(a)
    series = await a.series(CH)
    await a.close()

    b = await make_service()
    assert b.state(CH) == "finished"
    assert await b.series(CH) == series
    table = await b.table(CH)
    assert (
        table.finished and table.outcome == finished.outcome and table.game_id == finished.game_id
    )
    new = await b.rematch(CH, BOB)
    assert new.game_id != finished.game_id and not new.finished and new.version == 0


async def test_a_corrupt_snapshot_is_aborted_not_fatal(make_service, db_path):
    a = await make_service()
    await open_table(a, ALICE, BOB)
    await play_some(a, 2)
    await a.close()
    async with stored.opened(db_path) as storage:
        (live,) = await stored.live_games(storage)
        data = live.snapshot
        data["actions"] = ["0 take", *data["actions"]]  # not a legal first action
        await storage.save_live(
            live.game_id,
            json.dumps(data),
            json.dumps(live.meta),
            live.version,
            0.0,
            revision=live.revision,
        )

    b = await make_service()
    assert b.live_channels() == []
    assert [r for r, _ in await stored.results(b.storage, GUILD)] == ["aborted"]
    assert await stored.live_games(b.storage) == []
    assert b.state(CH) == "none"  # the series ended with it: the channel is free


#: Meta values of a live row that do not read back (each in one channel of its own).
BAD_META = (
    {"deadline": "soon"},  # a string deadline
    {"seed": None},  # a null seed
    {"timeouts": "0,0"},
    {"autopilot": [0, 1]},  # numbers, not true/false
    {"recent": [[0, "juggle", [], None]]},
    {"count_ai_games": "yes"},
    {"started_at": None},
)


async def plant_meta(db_path, changes: dict[int, object]) -> None:
    """Overwrite the meta of the live game of each channel with ``changes[channel]`` (a dict
    merged into it, or any other JSON value replacing it), behind the service's back."""
    async with stored.opened(db_path) as storage:
        for live in await stored.live_games(storage):
            if live.channel_id not in changes:
                continue
            change = changes[live.channel_id]
            meta = {**live.meta, **change} if isinstance(change, dict) else change
            await stored.rewrite_live(storage, live, meta=meta)


async def test_live_rows_with_malformed_meta_are_set_aside_and_the_others_restore(
    make_service, db_path, recorder
):
    """One good game and one game per kind of malformed meta: the bot starts, the good game
    resumes, every bad one is recorded as aborted (nothing counted), its channel told and
    free for a new lobby."""
    # and a meta that is no object at all, or no JSON at all
    bad = [*BAD_META, None, [1, 2], stored.NotJson("{not json")]
    channels = [CH + 1 + i for i in range(len(bad))]
    a = await make_service()
    for channel in (CH, *channels):
        await open_table(a, ALICE, BOB, channel=channel)
    await play_some(a, 2)
    before = await a.table(CH)
    await a.close()
    await plant_meta(db_path, dict(zip(channels, bad, strict=True)))

    b = await make_service(presenters=[recorder])
    assert b.live_channels() == [CH]
    assert same_table(await b.table(CH), before)
    await play_some(b, 1)  # the good game goes on
    assert [live.channel_id for live in await stored.live_games(b.storage)] == [CH]
    ended = await stored.ended_games(b.storage, GUILD)
    assert [g.result for g in ended] == ["aborted"] * len(bad)
    await settle(b)
    told = [n for n in recorder.notices("series_ended") if n[2] == UNRESTORABLE_NOTICE]
    assert sorted(n[0] for n in told) == channels
    for channel in channels:
        assert b.state(channel) == "none"
        await b.open_lobby(channel, GUILD, CAROL, "Carol")  # free for a new game
    stats = await b.stats(GUILD, ALICE)
    assert (stats.games, stats.losses) == (0, 0)  # nothing counted
