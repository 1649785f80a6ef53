"""A database that hangs (up, but not answering) costs a player a "try again", never a hung
press, and costs nothing that needs no database.

PostgreSQL is frozen by a proxy between the bot and the throwaway server
(:mod:`tests.storage.frozen_proxy`: nothing forwarded, what was sent waits and is delivered
at the thaw, as on a stopped server), or one game's row is held by another client's lock.
SQLite is held by another program's write transaction.  Bounds are coarse ("within the
timeout", with room for a busy machine): these tests are about waiting for ever or not.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import asyncpg
import pytest

from bot.clock import ManualClock
from bot.errors import StaleAction, StorageBusy
from bot.service import GameService
from bot.storage import FIRST_REVISION, Storage, create_storage
from bot.storage.postgres import PostgresStorage
from bot.storage.sqlite import SqliteStorage
from bot.storage.throwaway_pg import ThrowawayPostgres
from bot.views import TableView
from tests import storage_helpers as stored
from tests.service.conftest import Recorder, open_table, press, whose_turn
from tests.service.support import ALICE, BOB, CAROL, CH, DAVE, GUILD, Services

from .conftest import Backend
from .frozen_proxy import FrozenProxy

#: The storage's timeout in these tests (seconds), and how long a request may take at most
#: (the timeout, plus generous room for a busy machine).
TIMEOUT = 1.0
BOUND = 5.0
CH2 = CH + 1

_T = TypeVar("_T")
MakeService = Callable[..., Awaitable[GameService]]


async def within(request: Awaitable[_T], seconds: float = BOUND) -> _T:
    """``request``'s answer, which must come within ``seconds``: a hang fails the test (the
    request is cancelled, without waiting for it to wind down, which may hang too)."""
    task = asyncio.ensure_future(request)
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        task.cancel()
        pytest.fail(f"no answer within {seconds} s: the request hangs with the database")
    return task.result()


async def wait_until(check: Callable[[], Awaitable[bool]], what: str) -> None:
    """Poll ``check`` until it holds (at most :data:`BOUND` seconds)."""
    for _ in range(int(BOUND / 0.05)):
        if await check():
            return
        await asyncio.sleep(0.05)
    pytest.fail(f"{what} did not happen within {BOUND} s")


def _database_name(backend: Backend) -> str:
    return urlsplit(backend.url).path.lstrip("/")


@pytest.fixture
async def frozen(
    postgres_server: ThrowawayPostgres, postgres_backend: Backend
) -> AsyncIterator[FrozenProxy]:
    """A proxy to the test's fresh PostgreSQL database, thawed when the test ends."""
    proxy = await FrozenProxy.start(postgres_server.socket_dir / ".s.PGSQL.5432")
    yield proxy
    await proxy.close()


@pytest.fixture
async def make_service(
    frozen: FrozenProxy, postgres_backend: Backend
) -> AsyncIterator[MakeService]:
    """``await make_service(direct=False, **kw)``: a restored service on the test's database,
    through the proxy (``direct``: without it), with the storage timeout :data:`TIMEOUT`."""
    services = Services()
    clock = ManualClock()

    async def factory(*, direct: bool = False, **kw: Any) -> GameService:
        url = postgres_backend.url if direct else frozen.url(_database_name(postgres_backend))
        return await services.make(create_storage(url, timeout=TIMEOUT), clock=clock, **kw)

    yield factory
    frozen.thaw()  # so that closing stores what it must
    await services.close()


# ------------------------------------------------------------------ the storage's limits
async def test_each_postgresql_session_carries_the_timeouts(postgres_backend: Backend) -> None:
    """The server ends a statement (and an idle transaction) that outlives the request it
    belongs to; startup lifts both (a migration or a restore of a large database takes its
    time)."""
    storage = PostgresStorage(postgres_backend.url, timeout=1.5, max_connections=1)
    await storage.open()
    try:
        async with storage.read() as con:
            assert await con.fetch_one("SHOW statement_timeout") == ("1500ms",)
            assert await con.fetch_one("SHOW idle_in_transaction_session_timeout") == ("3s",)
        async with storage.unhurried(), storage.read() as con:
            assert await con.fetch_one("SHOW statement_timeout") == ("0",)
            assert await con.fetch_one("SHOW idle_in_transaction_session_timeout") == ("0",)
        # the pool's one connection got its limits back (the pool does not reset sessions)
        async with storage.read() as con:
            assert await con.fetch_one("SHOW statement_timeout") == ("1500ms",)
            assert await con.fetch_one("SHOW idle_in_transaction_session_timeout") == ("3s",)
    finally:
        await storage.close()


@pytest.mark.parametrize("url", ["sqlite", "postgresql"])
def test_create_storage_passes_the_timeout(url: str, tmp_path: Path) -> None:
    given = f"sqlite:///{tmp_path / 'd.sqlite3'}" if url == "sqlite" else "postgresql://x@/db"
    storage: Storage = create_storage(given, timeout=3.5)
    assert isinstance(storage, SqliteStorage | PostgresStorage) and storage.timeout == 3.5
    with pytest.raises(ValueError, match="positive"):
        create_storage(given, timeout=0)


# ------------------------------------------------------------------ a frozen PostgreSQL
async def test_a_press_on_a_frozen_database_answers_try_again_and_is_shown_once_it_is_stored(
    frozen: FrozenProxy, make_service: MakeService, postgres_backend: Backend
) -> None:
    recorder = Recorder()
    svc = await make_service(presenters=[recorder])
    await open_table(svc, ALICE, BOB)
    acknowledged = await press(svc)  # stored, and told to the players

    frozen.freeze()
    user, hand = await whose_turn(svc)  # a hand needs no database
    with pytest.raises(StorageBusy) as info:
        await within(svc.act(CH, user, hand.legal[0].text, hand.version, game_id=hand.game_id))
    assert info.value.message.key == "the database is busy: please try again in a few seconds"
    assert (await svc.table(CH)).version == acknowledged.version  # nothing shown as played

    # The press reached the server before it froze: at the thaw it is applied after all.
    frozen.thaw()

    async def applied() -> bool:
        ((version,),) = await postgres_backend.sql("SELECT version FROM live_games")
        return bool(version == acknowledged.version + 1)

    await wait_until(applied, "the write waiting in the frozen server")
    assert (await svc.table(CH)).version == acknowledged.version  # not known here yet

    # The next press finds out, shows the table with it, and is refused as stale...
    recorder.events.clear()
    with pytest.raises(StaleAction):
        await within(svc.act(CH, user, hand.legal[0].text, hand.version, game_id=hand.game_id))
    table = await svc.table(CH)
    assert table.version == acknowledged.version + 1
    assert [v.version for v in recorder.of("table")] == [table.version]
    # ...and the game goes on from there, here (it was not dropped as moved).
    after = await within(press(svc))
    assert after.version == acknowledged.version + 2
    await svc.close()

    # Nothing a player was told is lost: a restart resumes exactly there.
    again = await make_service(direct=True)
    assert (await again.table(CH)).version == after.version


async def test_a_press_lost_with_the_connection_is_not_played(
    frozen: FrozenProxy, make_service: MakeService, postgres_backend: Backend
) -> None:
    svc = await make_service()
    await open_table(svc, ALICE, BOB)
    acknowledged = await press(svc)
    frozen.freeze()
    with pytest.raises(StorageBusy):
        await within(press(svc))
    await frozen.cut()  # the network comes back with every connection reset: the write is lost
    played = await within(press(svc))  # settles the doubt (not stored), then plays
    assert played.version == acknowledged.version + 1
    ((version, revision),) = await postgres_backend.sql("SELECT version, revision FROM live_games")
    assert version == played.version
    # the first press, the bump that settled the doubt, this press
    assert revision == FIRST_REVISION + 3


async def test_what_needs_no_database_answers_while_a_write_hangs(
    frozen: FrozenProxy, make_service: MakeService
) -> None:
    svc = await make_service()
    await open_table(svc, ALICE, BOB)
    await open_table(svc, CAROL, DAVE, channel=CH2)
    await svc.open_lobby(CH2 + 1, GUILD, ALICE, "Alice")
    before = await svc.table(CH)

    frozen.freeze()
    hung = asyncio.ensure_future(press(svc))  # holds the channel's lock, waits on the database
    await wait_until(lambda: _true(frozen.held > 0), "the press reaching the database")
    # The same channel: hands (both players'), the table and the series answer from memory.
    for user in (ALICE, BOB):
        hand = await within(svc.hand(CH, user), TIMEOUT)
        assert hand.version == before.version
    assert (await svc.table(CH)).version == before.version
    assert (await svc.series(CH)).games == 0
    # /durak table posts the table, then resumes a paused game: nothing to resume here
    assert await within(svc.resume_timers(CH), TIMEOUT) is False
    # Another channel: its hand, its table and a lobby answer too.
    await within(svc.hand(CH2, CAROL), TIMEOUT)
    await within(svc.table(CH2), TIMEOUT)
    assert (await within(svc.lobby(CH2 + 1), TIMEOUT)).channel_id == CH2 + 1
    assert not hung.done()  # all of it while the press still waits
    # Another channel's press is not held up behind it: it hears "try again" in time too.
    with pytest.raises(StorageBusy):
        await within(press(svc, CH2))
    # Stats, leaderboard and history need the database: "try again", in time.
    with pytest.raises(StorageBusy):
        await within(svc.stats(GUILD, ALICE))
    with pytest.raises(StorageBusy):
        await within(svc.leaderboard(GUILD, "podkidnoy"))
    with pytest.raises(StorageBusy):
        await within(svc.history(GUILD))
    with pytest.raises(StorageBusy):
        await within(hung)

    frozen.thaw()
    for channel in (CH, CH2):
        assert (await within(_press_on(svc, channel))).version == before.version + 1
    assert (await within(svc.stats(GUILD, ALICE))).games == 0
    assert (await within(svc.history(GUILD))).total == 0


async def test_presses_piling_up_behind_a_hung_write_each_answer_in_time(
    frozen: FrozenProxy, make_service: MakeService
) -> None:
    """Impatient players press again and again: each press waits for the channel's lock at
    most the timeout, instead of queueing behind every earlier one (eight presses would take
    eight timeouts)."""
    svc = await make_service()
    await open_table(svc, ALICE, BOB)
    user, hand = await whose_turn(svc)
    frozen.freeze()
    presses = [
        svc.act(CH, user, hand.legal[0].text, hand.version, game_id=hand.game_id) for _ in range(8)
    ]
    answers = await within(asyncio.gather(*presses, return_exceptions=True))
    assert all(isinstance(a, StorageBusy) for a in answers), answers


async def test_a_write_held_by_a_row_lock_holds_up_no_other_channel(
    make_service: MakeService, postgres_backend: Backend
) -> None:
    """Another client (a process that froze inside its transaction) holds one game's row:
    that channel's press answers "try again" in time, the other channel plays meanwhile."""
    svc = await make_service(direct=True)
    await open_table(svc, ALICE, BOB)
    await open_table(svc, CAROL, DAVE, channel=CH2)
    game_id = (await svc.table(CH)).game_id
    other = await asyncpg.connect(postgres_backend.url)
    try:
        lock = other.transaction()
        await lock.start()
        await other.execute("SELECT 1 FROM live_games WHERE game_id = $1 FOR UPDATE", game_id)
        hung = asyncio.ensure_future(press(svc))
        played = await within(press(svc, CH2), TIMEOUT + 0.5)
        assert played.version == 1
        assert not hung.done()
        with pytest.raises(StorageBusy):
            await within(hung)
        await lock.rollback()
    finally:
        await other.close()
    # The press given up may still run once the lock goes (the server ends a statement only
    # at its own statement_timeout): then this press finds it stored and plays after it.
    played = await within(_press_on(svc, CH))
    assert played.version in (1, 2)
    ((version,),) = await postgres_backend.sql(
        "SELECT version FROM live_games WHERE game_id = ?", game_id
    )
    assert version == played.version


# ------------------------------------------------------------------ SQLite held by another program
async def test_a_sqlite_write_waiting_for_the_lock_holds_up_no_read(tmp_path: Path) -> None:
    path = tmp_path / "durak.sqlite3"
    services = Services()
    svc = await services.make(SqliteStorage(path, timeout=TIMEOUT), clock=ManualClock())
    try:
        await open_table(svc, ALICE, BOB)
        before = await press(svc)
        holder = sqlite3.connect(path, isolation_level=None)  # e.g. an open sqlite3 shell
        holder.execute("BEGIN IMMEDIATE")
        try:
            hung = asyncio.ensure_future(press(svc))
            storage = svc.storage
            assert isinstance(storage, SqliteStorage)
            # the press's transaction waits for the file's lock, holding the writers' lock
            await wait_until(lambda: _true(storage._lock.locked()), "the press waiting")
            stats = await within(svc.stats(GUILD, ALICE), TIMEOUT)
            history = await within(svc.history(GUILD), TIMEOUT)
            hand = await within(svc.hand(CH, ALICE), TIMEOUT)
            assert not hung.done()  # all answered while the press waits
            assert (stats.games, history.total, hand.version) == (0, 0, before.version)
            with pytest.raises(StorageBusy):
                await within(hung)
            assert (await svc.table(CH)).version == before.version
        finally:
            holder.rollback()
            holder.close()
        after = await within(_press_on(svc, CH))
        assert after.version == before.version + 1
        await svc.close()
        async with stored.opened(path) as storage:
            (live,) = await stored.live_games(storage)
            assert live.version == after.version
    finally:
        await services.close()


async def test_a_player_on_autopilot_sees_their_hand_while_the_database_is_locked(
    tmp_path: Path,
) -> None:
    """Asking for one's hand turns autopilot off, a write: when it cannot be stored (the
    channel's lock held by a write that waits for the database, then the database itself),
    the hand is shown anyway, in time, and the autopilot stays on."""
    path = tmp_path / "durak.sqlite3"
    services = Services()
    clock = ManualClock()
    recorder = Recorder()
    storage = SqliteStorage(path, timeout=TIMEOUT)
    # the autopilot waits a long AI delay on the test's clock: it never moves here
    svc = await services.make(storage, clock=clock, presenters=[recorder], ai_delay=1000.0)
    try:
        await open_table(svc, ALICE, BOB)
        for _ in range(10):  # nobody presses: two timeouts in a row put a player on autopilot
            await clock.advance(60)
            await svc.wait_idle()
            if recorder.notices("autopilot_on"):
                break
        ((_, _, _, away, _),) = recorder.notices("autopilot_on")
        assert away is not None
        other = BOB if away == ALICE else ALICE
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            hung = asyncio.ensure_future(svc.forfeit(CH, other))  # a write of the channel
            await wait_until(lambda: _true(storage._lock.locked()), "the forfeit waiting")
            hand = await within(svc.hand(CH, away))
            assert hand.autopilot  # shown, not brought back: that could not be stored
            with pytest.raises(StorageBusy):
                await within(hung)
        finally:
            holder.rollback()
            holder.close()
        assert not (await within(svc.hand(CH, away))).autopilot  # now it can
    finally:
        await services.close()


# ------------------------------------------------------------------ helpers
async def _true(value: bool) -> bool:
    return value


async def _press_on(svc: GameService, channel: int) -> TableView:
    """A press that plays, after at most one refusal as stale: a write given up earlier may
    have been stored after all (then the table moved on and the player presses again)."""
    try:
        return await press(svc, channel)
    except StaleAction:
        return await press(svc, channel)
