"""The channel core: a channel with nothing left in it is dropped, with its lock."""

from __future__ import annotations

import asyncio

import pytest

from bot.authority import MODERATOR
from bot.errors import NoGame, NoLobby
from bot.service.channels import KeyedLocks, LockWaitedOut

from .conftest import ALICE, BOB, CH, GUILD, ServiceFactory, open_table, play_out


async def test_a_channel_emptied_by_any_command_is_dropped(make_service: ServiceFactory) -> None:
    svc = await make_service()
    assert svc.channel_count() == 0
    await svc.open_lobby(CH, GUILD, ALICE, "Alice")
    await svc.open_lobby(CH + 1, GUILD, ALICE, "Alice")
    assert svc.channel_count() == 2
    await svc.stop(CH, ALICE)  # a closed lobby
    assert svc.channel_count() == 1 and svc.state(CH) == "none"
    await svc.leave(CH + 1, ALICE)  # a lobby left by its only human
    assert svc.channel_count() == 0
    await open_table(svc, ALICE, BOB)
    await play_out(svc)
    assert svc.channel_count() == 1  # the finished series waits for a rematch
    await svc.end_series(CH, BOB)
    assert svc.channel_count() == 0
    await open_table(svc, ALICE, BOB)
    await svc.stop(CH, ALICE, MODERATOR)  # a stopped game ends its series
    assert svc.channel_count() == 0
    await svc.open_lobby(CH, GUILD, ALICE, "Alice")  # and the channel serves again
    assert svc.state(CH) == "lobby"


async def test_a_refused_command_leaves_no_channel_behind(make_service: ServiceFactory) -> None:
    svc = await make_service()
    for attempt in (svc.join(CH, ALICE, "Alice"), svc.stop(CH, ALICE), svc.hand(CH, ALICE)):
        with pytest.raises((NoLobby, NoGame)):  # there is nothing in the channel
            await attempt
    assert svc.channel_count() == 0


async def test_a_lock_lives_while_someone_holds_or_waits_for_it() -> None:
    locks = KeyedLocks()
    order: list[str] = []

    async def hold(name: str, key: int) -> None:
        async with locks.hold(key):
            order.append(f"{name} in")
            await asyncio.sleep(0)
            order.append(f"{name} out")

    await asyncio.gather(hold("a", 1), hold("b", 1), hold("c", 2))
    assert order.index("a out") < order.index("b in")  # one holder of key 1 at a time
    assert len(locks) == 0  # and nothing is kept once they are done


async def test_a_waiter_gives_up_after_its_wait_and_leaves_no_lock_behind() -> None:
    locks = KeyedLocks()
    release = asyncio.Event()

    async def holder() -> None:
        async with locks.hold(1):
            await release.wait()

    held = asyncio.ensure_future(holder())
    await asyncio.sleep(0)
    with pytest.raises(LockWaitedOut):
        async with locks.hold(1, wait=0.01):
            raise AssertionError("the lock is held: never here")
    assert len(locks) == 1  # only the holder's
    release.set()
    await held
    async with locks.hold(1, wait=0.01):  # free again: taken at once
        pass
    assert len(locks) == 0
