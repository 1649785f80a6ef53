"""Fencing seen from the game service: a process whose write of a game lost (another process
moved the game's row on) drops its copy of that channel, refuses the press with a clear
private message, and never overwrites.  Runs on both backends; the two-process race needs
PostgreSQL (SQLite refuses a second process)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from bot.ai_pool import ThreadAI
from bot.clock import ManualClock
from bot.errors import GameMoved, NoGame
from bot.service import GameService
from tests.service.conftest import open_table
from tests.service.support import ALICE, BOB, CH, GUILD, Services

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

    async def factory(ai_delay: float = 0.0) -> GameService:
        return await services.make(
            backend.storage(),
            clock=clock,
            ai_delay=ai_delay,
            ai=ai,
            seed_source=lambda: next(seeds),
        )

    yield factory
    await services.close()
    await ai.close()


async def _press(svc: GameService) -> None:
    """The player to act plays their first legal action."""
    table = await svc.table(CH)
    assert table.to_act is not None
    user = USERS[table.to_act]
    hand = await svc.hand(CH, user)
    await svc.act(CH, user, hand.legal[0].text, hand.version, game_id=hand.game_id)


async def _live_row(backend: Backend) -> tuple[int, int, str]:
    ((version, revision, snapshot),) = await backend.sql(
        "SELECT version, revision, snapshot FROM live_games"
    )
    return version, revision, snapshot


async def test_a_lost_write_drops_the_game_and_never_overwrites(
    backend: Backend, make_service: MakeService
) -> None:
    svc = await make_service()
    await open_table(svc, ALICE, BOB)
    await _press(svc)
    # Another process serves the game now and has written it (its revision moved on).
    await backend.sql("UPDATE live_games SET revision = revision + 1, snapshot = 'theirs'")
    before = await _live_row(backend)
    table = await svc.table(CH)
    user = USERS[table.to_act]
    hand = await svc.hand(CH, user)
    with pytest.raises(GameMoved) as info:
        await svc.act(CH, user, hand.legal[0].text, hand.version, game_id=hand.game_id)
    assert info.value.message.key == "this game is now served by another bot process: press again"
    assert svc.state(CH) == "none" and svc.live_channels() == []
    with pytest.raises(NoGame):  # nothing of that channel is served here any more
        await svc.act(CH, user, hand.legal[0].text, hand.version, game_id=hand.game_id)
    await svc.clock.advance(3600)  # type: ignore[attr-defined]  # no timer writes either
    await svc.close()  # nor the graceful stop
    assert await _live_row(backend) == before


async def test_a_lost_finish_counts_nothing(backend: Backend, make_service: MakeService) -> None:
    svc = await make_service()
    await open_table(svc, ALICE, BOB)
    await backend.sql("UPDATE live_games SET revision = revision + 1")
    with pytest.raises(GameMoved):
        # a forced stop (Manage Channel) writes the game's end: fenced too
        await svc.stop(CH, ALICE, manage_channel=True)
    assert svc.state(CH) == "none"
    assert await backend.sql("SELECT result FROM games") == [("live",)]
    assert await backend.sql("SELECT status FROM series") == [("active",)]


async def test_a_lost_forfeit_is_not_recorded(backend: Backend, make_service: MakeService) -> None:
    svc = await make_service()
    await open_table(svc, ALICE, BOB)
    await backend.sql("UPDATE live_games SET revision = revision + 1")
    with pytest.raises(GameMoved):
        await svc.forfeit(CH, BOB)  # the forfeit is fenced like every write of the game
    assert svc.state(CH) == "none"
    assert await backend.sql("SELECT COUNT(*) FROM forfeits") == [(0,)]


async def test_two_processes_race_on_one_game(
    postgres_backend: Backend, make_service: MakeService
) -> None:
    """PostgreSQL only: SQLite refuses a second process (tests/service/test_faults.py)."""
    backend = postgres_backend
    a = await make_service()
    await open_table(a, ALICE, BOB)
    await _press(a)
    b = await make_service()  # a second process restores the same game (rolling restart)
    assert b.live_channels() == [CH]
    moved: list[GameService] = []
    applied = 0
    for _ in range(40):  # both press, concurrently, until one of them has lost the game
        servers = [s for s in (a, b) if s.state(CH) == "playing"]
        if len(servers) < 2:
            break
        results = await asyncio.gather(*(_press(s) for s in servers), return_exceptions=True)
        for server, result in zip(servers, results, strict=True):
            if isinstance(result, GameMoved):
                moved.append(server)
            elif result is None:
                applied += 1
            else:
                raise result
    assert len(moved) == 1, "exactly one process loses the game"
    (winner,) = [s for s in (a, b) if s is not moved[0]]
    assert moved[0].state(CH) == "none"
    table = await winner.table(CH)
    assert table.version == 1 + applied  # every acknowledged action is in the game, once
    version, _, _ = await _live_row(backend)
    assert version == table.version  # and stored
    while not (await winner.table(CH)).finished:
        await _press(winner)
    assert await backend.sql("SELECT games FROM series") == [(1,)]
    assert await backend.sql("SELECT COUNT(*) FROM game_players") == [(2,)]
    assert await backend.sql("SELECT COUNT(*) FROM live_games") == [(0,)]
    for server in (a, b):  # stats answer the same from either process
        assert (await server.stats(GUILD, ALICE)).games == 1


async def test_the_process_that_restores_last_owns_the_game(
    postgres_backend: Backend, make_service: MakeService
) -> None:
    """A rolling restart: the new process claims the games it restores, so the old one's
    next write (here an AI move) is fenced out and the game goes on in the new process."""
    backend = postgres_backend
    old = await make_service(ai_delay=1.0)
    await old.open_lobby(CH, GUILD, ALICE, "Alice", seat_host=False)
    await old.add_ai(CH, ALICE, "beginner")
    await old.add_ai(CH, ALICE, "beginner")
    await old.start(CH, ALICE)
    await old.wait_idle()
    new = await make_service(ai_delay=1.0)
    await new.wait_idle()
    await old.clock.advance(1)  # type: ignore[attr-defined]  # both AIs play: one is stored
    await old.wait_idle()
    await new.wait_idle()
    assert old.state(CH) == "none" and new.state(CH) == "playing"
    version, _, _ = await _live_row(backend)
    assert version == (await new.table(CH)).version == 1
