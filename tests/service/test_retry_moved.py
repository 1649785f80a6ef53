"""A command whose fenced write lost runs again, up to :data:`bot.service.moved.ATTEMPTS`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from bot.errors import ChannelMoved
from bot.service.moved import ATTEMPTS, retry_moved


def _losing(times: int) -> tuple[list[int], Callable[[int], Awaitable[int]]]:
    """A command that loses its write ``times`` times, then answers how many runs it took."""
    runs: list[int] = []

    @retry_moved
    async def join(channel_id: int) -> int:
        runs.append(channel_id)
        if len(runs) <= times:
            raise ChannelMoved(channel_id=channel_id, fence=len(runs))
        return len(runs)

    return runs, join


async def test_a_command_that_lost_to_three_writes_of_another_process_is_kept() -> None:
    # two processes, three joins pressed in one while one is pressed in the other: the lone
    # join can lose to each of the three writes before its own lands
    runs, join = _losing(3)
    assert await join(7) == 4
    assert runs == [7, 7, 7, 7]


async def test_after_every_attempt_lost_the_refusal_is_the_answer() -> None:
    runs, join = _losing(ATTEMPTS)
    with pytest.raises(ChannelMoved):
        await join(7)
    assert len(runs) == ATTEMPTS
