"""Fencing seen from the game service: a process whose write of a game lost (another process
moved the game's row on) drops its copy of that channel, refuses the press with a clear
private message, and never overwrites.  Runs on both backends; the two-process race needs
PostgreSQL (SQLite refuses a second process)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from bot.ai_pool import ThreadAI
from bot.authority import MODERATOR
from bot.clock import ManualClock
from bot.errors import (
    ChannelBusy,
    ChannelMoved,
    GameFinished,
    NoGame,
    StaleAction,
)
from bot.service import GameService
from bot.service.lifecycle import UNLOADABLE
from bot.storage.changes import ChannelChange
from bot.views import TableView
from tests.service.conftest import Recorder, open_table, press, whose_turn
from tests.service.support import ALICE, BOB, CAROL, CH, DAVE, GUILD, Services

from .conftest import Backend

USERS = {0: ALICE, 1: BOB}
MakeService = Callable[..., Awaitable[GameService]]


@pytest.fixture
async def make_service(request: pytest.FixtureRequest) -> AsyncIterator[MakeService]:
    """Services on the test's ``backend`` (or ``postgres_backend``), one clock for all."""
    name = "postgres_backend" if "postgres_backend" in request.fixturenames else "backend"
    backend: Backend = request.getfixturevalue(name)
    services = Services()
    ai = ThreadAI()
    clock = ManualClock()
    seeds = itertools.count(1)  # one sequence of deals across the test's services

    async def factory(ai_delay: float = 0.0, **kw: Any) -> GameService:
        return await services.make(
            backend.storage(),
            clock=clock,
            ai_delay=ai_delay,
            ai=ai,
            seed_source=lambda: next(seeds),
            **kw,
        )

    yield factory
    await services.close()
    await ai.close()


async def _game_of_two(make_service: MakeService, moves: int = 0) -> GameService:
    """A service where Alice and Bob's game runs in :data:`CH`, ``moves`` presses into it."""
    svc = await make_service()
    await open_table(svc, ALICE, BOB)
    for _ in range(moves):
        await press(svc)
    return svc


async def _two_processes_and_a_lobby(make_service: MakeService) -> tuple[GameService, GameService]:
    """Two services on one database (two processes); the first opened Alice's lobby."""
    a = await make_service()
    b = await make_service()
    await a.open_lobby(CH, GUILD, ALICE, "Alice")
    return a, b


async def _finished_table(svc: GameService) -> None:
    """Alice and Bob play a game of the channel to its end (the series waits for a rematch)."""
    await open_table(svc, ALICE, BOB)
    while not (await svc.table(CH)).finished:
        await press(svc)


async def _live_row(backend: Backend) -> tuple[int, int, str]:
    ((version, revision, snapshot),) = await backend.sql(
        "SELECT version, revision, snapshot FROM live_games"
    )
    return version, revision, snapshot


async def test_a_lost_write_reads_the_game_again_and_applies_the_press_once(
    backend: Backend, make_service: MakeService
) -> None:
    svc = await _game_of_two(make_service, moves=1)
    # Another process wrote the game since (its revision moved on; same position).
    await backend.sql("UPDATE live_games SET revision = revision + 1")
    version, revision, _ = await _live_row(backend)
    user, hand = await whose_turn(svc)
    # The first write loses its fence; the copy is dropped, read again, and the press is
    # applied on the fresh copy: once, and stored.
    after = await svc.act(CH, user, hand.legal[0].text, hand.version, game_id=hand.game_id)
    assert after.version == version + 1
    assert (await _live_row(backend))[:2] == (version + 1, revision + 1)
    assert svc.state(CH) == "playing"


async def test_a_game_that_does_not_read_back_is_refused_and_never_overwritten(
    backend: Backend, make_service: MakeService
) -> None:
    svc = await _game_of_two(make_service, moves=1)
    # Another process serves the game now and wrote something this release cannot read.
    await backend.sql("UPDATE live_games SET revision = revision + 1, snapshot = 'theirs'")
    before = await _live_row(backend)
    with pytest.raises(NoGame) as info:
        # (on PostgreSQL the change may be heard first: the copy is read again, and refused)
        table = await svc.table(CH)
        user = USERS[table.to_act]
        hand = await svc.hand(CH, user)
        await svc.act(CH, user, hand.legal[0].text, hand.version, game_id=hand.game_id)
    assert info.value.message == UNLOADABLE
    assert svc.state(CH) == "none" and svc.live_channels() == []
    await svc.clock.advance(3600)  # type: ignore[attr-defined]  # no timer writes either
    await svc.close()  # nor the graceful stop
    assert await _live_row(backend) == before


async def test_a_lost_finish_is_decided_again_on_the_stored_game(
    backend: Backend, make_service: MakeService
) -> None:
    svc = await _game_of_two(make_service)
    await backend.sql("UPDATE live_games SET revision = revision + 1")
    # a forced stop (Manage Channel) writes the game's end: its first write loses, the game is
    # read again and stopped once
    await svc.stop(CH, ALICE, MODERATOR)
    assert svc.state(CH) == "none"
    assert await backend.sql("SELECT result FROM games") == [("aborted",)]
    assert await backend.sql("SELECT status FROM series") == [("ended",)]


async def test_a_lost_forfeit_is_recorded_once(backend: Backend, make_service: MakeService) -> None:
    svc = await _game_of_two(make_service)
    await backend.sql("UPDATE live_games SET revision = revision + 1")
    await svc.forfeit(CH, BOB)  # fenced like every write of the game: retried on a fresh copy
    assert await backend.sql("SELECT seat FROM forfeits") == [(1,)]


async def test_two_processes_race_on_one_game(
    postgres_backend: Backend, make_service: MakeService
) -> None:
    """PostgreSQL only: SQLite refuses a second process (tests/service/test_faults.py).  Both
    processes serve the game; presses race; each is applied once or refused as stale, never
    lost or applied twice."""
    backend = postgres_backend
    a = await make_service()
    await open_table(a, ALICE, BOB)
    await press(a)
    b = await make_service()  # a second process restores the same game (rolling restart)
    assert b.live_channels() == [CH]
    applied = refused = 0
    for _ in range(12):  # both press, concurrently
        results = await asyncio.gather(press(a), press(b), return_exceptions=True)
        for result in results:
            if isinstance(result, TableView):  # applied: the table after the press
                applied += 1
            elif isinstance(result, StaleAction | ChannelMoved):  # nothing applied
                refused += 1
            elif isinstance(result, GameFinished):
                pass
            else:
                raise result
        if (await a.table(CH)).finished or (await b.table(CH)).finished:
            break
    assert applied >= 12 and refused >= 1, (applied, refused)
    version, _, _ = await _live_row(backend)
    assert version == 1 + applied  # every acknowledged action is stored, once
    servers = itertools.cycle((a, b))
    while await backend.sql("SELECT COUNT(*) FROM live_games") != [(0,)]:
        # a refused press changes nothing; a copy behind reads the game again on it
        with contextlib.suppress(StaleAction, GameFinished, ChannelMoved):
            await press(next(servers))
    assert await backend.sql("SELECT games FROM series") == [(1,)]
    assert await backend.sql("SELECT COUNT(*) FROM game_players") == [(2,)]
    assert await backend.sql("SELECT COUNT(*) FROM live_games") == [(0,)]
    for server in (a, b):  # stats answer the same from either process
        assert (await server.stats(GUILD, ALICE)).games == 1


async def test_a_game_stays_with_its_owner_until_it_stops_then_is_taken_over(
    postgres_backend: Backend, make_service: MakeService
) -> None:
    """A rolling restart: the new process restores the game as a copy while the old one,
    alive, still runs its timers and AI turns; once the old one stops (giving its channels
    up) the new one takes the game over and plays on."""
    backend = postgres_backend
    old = await make_service(ai_delay=1.0)
    await old.open_lobby(CH, GUILD, ALICE, "Alice", seat_host=False)
    await old.add_ai(CH, ALICE, "beginner")
    await old.add_ai(CH, ALICE, "beginner")
    await old.start(CH, ALICE)
    await old.wait_idle()
    new = await make_service(ai_delay=1.0)
    assert old.owns(CH) and not new.owns(CH)
    assert await new.takeover() == 0  # its owner is alive
    await old.close()
    assert await new.takeover() == 1
    assert new.owns(CH)
    # the AI to act plays, here, 1 s after its turn was armed (re-armed if the copy is read
    # again when old's last write is heard: the clock goes on until it has played)
    for _ in range(5):
        await new.clock.advance(1)  # type: ignore[attr-defined]
        await new.wait_idle()
        if (await new.table(CH)).version > 0:
            break
    version, _, _ = await _live_row(backend)
    assert version == (await new.table(CH)).version == 1


# ------------------------------------------------------------------ lobbies and series
# A process reads a channel it holds nothing of before it answers for it, and every write of
# a lobby or a series is fenced by the channel's write counter: two processes on the same
# channels (a rolling restart) lose nothing and never answer from a stale copy.


async def _seats(svc: GameService) -> list[str]:
    return [s.name for s in (await svc.lobby(CH)).seats]


async def test_lobby_joins_through_two_processes_are_all_kept(
    postgres_backend: Backend, make_service: MakeService
) -> None:
    a = await make_service()
    b = await make_service()  # started before the lobby exists: it holds nothing of CH
    await a.open_lobby(CH, GUILD, ALICE, "Alice")
    await b.join(CH, BOB, "Bob")  # b reads the lobby first
    await a.join(CH, CAROL, "Carol")  # a's copy is stale: its write loses, it reads again
    await b.join(CH, DAVE, "Dave")
    await a.join(CH, 5, "Eve")
    fresh = await make_service()
    assert await _seats(fresh) == ["Alice", "Bob", "Carol", "Dave", "Eve"]


async def test_concurrent_joins_in_two_processes_are_all_kept(
    postgres_backend: Backend, make_service: MakeService
) -> None:
    a, b = await _two_processes_and_a_lobby(make_service)
    await b.lobby(CH)  # both hold a copy
    names = {BOB: "Bob", CAROL: "Carol", DAVE: "Dave", 5: "Eve", 6: "Finn"}
    joins = zip(itertools.cycle((a, b)), names.items(), strict=False)
    await asyncio.gather(*(svc.join(CH, uid, name) for svc, (uid, name) in joins))
    fresh = await make_service()
    assert sorted(await _seats(fresh)) == sorted(["Alice", *names.values()])


async def test_a_process_reads_a_channel_before_answering_for_it(
    postgres_backend: Backend, make_service: MakeService
) -> None:
    a, b = await _two_processes_and_a_lobby(make_service)
    with pytest.raises(ChannelBusy):  # not "no game here", and no second lobby over a's
        await b.open_lobby(CH, GUILD, BOB, "Bob")
    await a.join(CH, BOB, "Bob")
    started = await a.start(CH, ALICE)
    # b's copy (the lobby) is stale: a press on the game a started reads the channel again
    assert started.to_act is not None
    user = USERS[started.to_act]
    hand = await a.hand(CH, user)
    after = await b.act(CH, user, hand.legal[0].text, hand.version, game_id=hand.game_id)
    assert after.game_id == started.game_id and after.version == 1
    assert [s.name for s in after.seats] == ["Alice", "Bob"]


async def test_a_rematch_started_in_the_old_process_is_served_by_the_new_one(
    postgres_backend: Backend, make_service: MakeService
) -> None:
    old = await make_service()
    await _finished_table(old)
    new = await make_service()  # a rolling restart: the new process holds the finished series
    rematch = await old.rematch(CH, ALICE)
    user = USERS[rematch.to_act] if rematch.to_act is not None else ALICE
    hand = await old.hand(CH, user)  # the hand message the player has, from the old process
    await old.close()  # the old process stops
    # a press on that hand reaches the new process, which has not seen the rematch
    after = await new.act(CH, user, hand.legal[0].text, hand.version, game_id=hand.game_id)
    assert after.game_id == rematch.game_id and after.version == 1
    assert new.live_channels() == [CH]


async def test_a_rematch_of_another_process_is_read_by_the_resync(
    postgres_backend: Backend, make_service: MakeService
) -> None:
    old = await make_service()
    await _finished_table(old)
    new = await make_service(resync_interval=10.0)
    rematch = await old.rematch(CH, ALICE)
    await old.halt()  # killed: nobody else would ever time the rematch's turns out
    assert new.live_channels() == []
    await new.clock.advance(10)  # type: ignore[attr-defined]
    await new.wait_idle()
    assert new.live_channels() == [CH]
    assert (await new.table(CH)).game_id == rematch.game_id
    await new.clock.advance(60 + 10)  # type: ignore[attr-defined]  # and its timers run here
    await new.wait_idle()
    version, _, _ = await _live_row(postgres_backend)
    assert version >= 1


async def test_end_series_in_one_process_fences_out_a_rematch_in_the_other(
    postgres_backend: Backend, make_service: MakeService
) -> None:
    a = await make_service()
    await _finished_table(a)
    b = await make_service()
    await b.end_series(CH, BOB)
    with pytest.raises(NoGame):  # a reads the channel again: the series is over
        await a.rematch(CH, ALICE)
    assert await postgres_backend.sql("SELECT COUNT(*) FROM live_games") == [(0,)]
    assert await postgres_backend.sql("SELECT status FROM series") == [("ended",)]
    c = await make_service()  # and a restart has nothing to abort
    assert c.live_channels() == []
    assert await postgres_backend.sql("SELECT result FROM games") == [("loss",)] or (
        await postgres_backend.sql("SELECT result FROM games") == [("draw",)]
    )


async def test_a_channel_of_a_server_served_elsewhere_is_served_for_its_pages(
    postgres_backend: Backend, make_service: MakeService
) -> None:
    """A process that does not serve a server (another holds its gateway shard) still reads
    and writes its channels for the web pages it serves, fenced; the other hears the change,
    and only a process that serves the server runs the game's timers."""
    shown = Recorder()  # Discord's presenter in a: it shows every channel a holds
    a = await make_service(presenters=[shown])
    b = await make_service(include_guild=lambda guild: guild != GUILD)
    await a.open_lobby(CH, GUILD, ALICE, "Alice")
    await b.join(CH, BOB, "Bob")
    assert await _seats(b) == ["Alice", "Bob"]
    await _eventually(lambda: _held_seats(a) == ["Alice", "Bob"])
    assert [s.name for s in shown.of("lobby")[-1].seats] == ["Alice", "Bob"]
    await a.start(CH, ALICE)
    assert (await b.table(CH)).version == 0
    assert a.owns(CH) and not b.owns(CH)
    assert await b.takeover() == 0


def _held_seats(svc: GameService) -> list[str] | None:
    game = svc.game_of(CH)
    if game is not None:
        return None
    ch = svc._channels.get(CH)  # the copy held, without reading the database
    return None if ch is None or ch.lobby is None else [s.name for s in ch.lobby.seats]


async def _eventually(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait (at most ``timeout`` seconds) until ``condition()`` holds: a change another
    process made is heard through the database's notifications."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


async def test_the_resync_never_reads_again_a_channel_only_this_process_wrote(
    postgres_backend: Backend, make_service: MakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fences the resync reads may be older than this process's own write that landed
    meanwhile: such a channel is as new as stored, and is kept (its timers and AI moves in
    flight with it)."""
    a = await make_service()
    await a.open_lobby(CH, GUILD, ALICE, "Alice")
    before = await a.storage.channel_fences()  # read, then this process writes
    await a.join(CH, BOB, "Bob")

    async def fences_read_before_the_join() -> dict[int, tuple[int, int | None]]:
        return before

    monkeypatch.setattr(a.storage, "channel_fences", fences_read_before_the_join)
    assert await a.resync() == 0
    assert await _seats(a) == ["Alice", "Bob"]


async def test_the_resync_reads_again_a_channel_another_process_wrote(
    postgres_backend: Backend, make_service: MakeService
) -> None:
    a, b = await _two_processes_and_a_lobby(make_service)
    assert await b.resync() == 1  # b held nothing of the channel: it reads the lobby
    await a.join(CH, BOB, "Bob")
    assert await b.resync() == 1 and await _seats(b) == ["Alice", "Bob"]
    assert await b.resync() == 0  # up to date


async def test_a_change_heard_while_a_channel_was_read_is_caught_up_with(
    postgres_backend: Backend, make_service: MakeService
) -> None:
    """A page opening reads its channel, then is registered: a change heard in between (when
    nothing here showed the channel, so it was not read) is remembered, and the page's
    registration reads the channel again; a change the copy already holds is not."""
    a = await make_service()
    b = await make_service()
    await a.open_lobby(CH, GUILD, ALICE, "Alice")
    ((fence,),) = await postgres_backend.sql(
        "SELECT revision FROM channel_fences WHERE channel_id = $1", CH
    )
    newer = ChannelChange(CH, "fence", fence + 1, a.storage.process)
    b.sync.heard(newer)  # nothing of CH is held or shown in b: not read
    await b.wait_idle()
    assert b.state(CH) == "none"
    await b.load(CH)  # the page's read: the stored lobby, at the older fence
    assert b.sync.catch_up(CH)  # the change heard before is newer: read again
    await b.wait_idle()
    b.sync.heard(ChannelChange(CH, "fence", fence, a.storage.process))
    await b.load(CH)
    assert b.state(CH) == "lobby"
    assert not b.sync.catch_up(CH)  # held, and as new as what was heard: nothing to do


async def test_a_copy_read_again_stays_shown_until_the_new_one_replaces_it(
    postgres_backend: Backend, make_service: MakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page's snapshot takes no lock: while another process's change is being read, it
    sees the old copy (the lobby), never no channel (a room page told "closed" that the game
    it waits for started)."""
    a, b = await _two_processes_and_a_lobby(make_service)
    await a.join(CH, BOB, "Bob")
    await b.load(CH)
    assert b.state(CH) == "lobby"
    monkeypatch.setattr(b.sync.channels, "watched", lambda channel_id: True)  # a page is open
    seen: list[str] = []
    read = b.storage.load_channel

    async def reading(channel_id: int) -> Any:
        seen.append(str(b.state(channel_id)))  # what a snapshot sees while the read waits
        return await read(channel_id)

    monkeypatch.setattr(b.storage, "load_channel", reading)
    await a.start(CH, ALICE)  # b hears of it and reads the channel again
    async with asyncio.timeout(10):
        while b.state(CH) != "playing":
            await asyncio.sleep(0.01)
    assert seen and set(seen) == {"lobby"}


async def test_moves_and_a_forfeit_of_another_process_are_taken_from_the_game_s_row(
    postgres_backend: Backend, make_service: MakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a game is played in another process, a process showing it takes each change
    from the game's row and forfeits alone: the channel is not read again."""
    a, b = await make_service(), await make_service()
    await open_table(a, ALICE, BOB, CAROL)
    await b.load(CH)
    monkeypatch.setattr(b.sync.channels, "watched", lambda channel_id: True)  # a page is open
    whole: list[int] = []
    read = b.storage.load_channel

    async def reading(channel_id: int) -> Any:
        whole.append(channel_id)
        return await read(channel_id)

    monkeypatch.setattr(b.storage, "load_channel", reading)
    for _ in range(3):
        await press(a)
    await a.forfeit(CH, CAROL)
    await a.wait_idle()
    want = await a.table(CH)
    assert want.seats[2].forfeited and not want.finished

    def shown(view: TableView) -> tuple[int, list[bool]]:
        return view.version, [s.forfeited for s in view.seats]

    async with asyncio.timeout(10):
        while shown(await b.table(CH)) != shown(want):
            await asyncio.sleep(0.01)
    assert whole == []
    assert (await b.table(CH)).recent == want.recent  # the last moves, read as they grew


async def test_a_process_that_reads_a_game_just_started_elsewhere_leaves_it_to_its_starter(
    postgres_backend: Backend, make_service: MakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start stores the game and its owner in one transaction: another process that reads
    the new game at once (a page of it open there) finds it owned and does not claim it."""
    a, b = await _two_processes_and_a_lobby(make_service)
    await a.join(CH, BOB, "Bob")
    claim = a._owners.claim

    async def read_elsewhere_first(channel_id: int, guild_id: int) -> bool:
        await b.load(CH)  # b reads the started game before a's own claim runs
        return await claim(channel_id, guild_id)

    monkeypatch.setattr(a._owners, "claim", read_elsewhere_first)
    await a.start(CH, ALICE)
    assert b.state(CH) == "playing"
    assert a.owns(CH) and not b.owns(CH)
