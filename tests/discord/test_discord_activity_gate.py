"""The Activity gate's memory of Discord's answers: kept a few seconds, shared while in
flight, never kept when the question failed, asked again before a kept answer refuses (the
gate itself is tested against the fake Discord in tests/e2e/test_e2e_activity.py)."""

from __future__ import annotations

import asyncio

import pytest

from cogs.activity_gate import _Recent


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_an_answer_is_kept_then_asked_again() -> None:
    clock, asked = Clock(), []

    async def fetch() -> int:
        asked.append(1)
        return len(asked)

    recent: _Recent[str, int] = _Recent(5.0, clock)
    assert await recent.get("i", fetch) == 1
    clock.now += 4.9
    assert await recent.get("i", fetch) == 1 and len(asked) == 1
    assert await recent.get("other", fetch) == 2
    clock.now += 0.2  # "i" is 5.1 s old
    assert await recent.get("i", fetch) == 3


async def test_questions_asked_together_share_one_request() -> None:
    release, asked = asyncio.Event(), []

    async def fetch() -> str:
        asked.append(1)
        await release.wait()
        return "answer"

    recent: _Recent[str, str] = _Recent(5.0, Clock())
    waiting = [asyncio.create_task(recent.get("i", fetch)) for _ in range(3)]
    await asyncio.sleep(0)  # every task reached the shared fetch
    release.set()
    assert await asyncio.gather(*waiting) == ["answer"] * 3
    assert len(asked) == 1


async def test_a_failed_question_is_not_kept() -> None:
    calls = []

    async def fetch() -> str:
        calls.append(1)
        if len(calls) == 1:
            raise OSError("down")
        return "up"

    recent: _Recent[str, str] = _Recent(5.0, Clock())
    with pytest.raises(OSError):
        await recent.get("i", fetch)
    assert await recent.get("i", fetch) == "up"


async def test_a_kept_answer_that_would_refuse_is_asked_again() -> None:
    users: list[list[int]] = [[1], [1, 2]]  # Discord's answers, in turn

    async def fetch() -> list[int]:
        return users.pop(0)

    recent: _Recent[str, list[int]] = _Recent(5.0, Clock())
    assert await recent.fresh("i", fetch, lambda found: 1 in found) == [1]
    # user 2 is not in the kept answer: Discord is asked again, and now lists them
    assert await recent.fresh("i", fetch, lambda found: 2 in found) == [1, 2]
    assert users == []
    # an answer fetched by this very question is not asked twice, even when it refuses
    users.append([7])
    assert await recent.fresh("j", fetch, lambda found: 3 in found) == [7]
