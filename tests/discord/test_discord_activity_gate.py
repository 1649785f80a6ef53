"""The Activity gate's memory of Discord's answers: kept a few seconds, shared while in
flight, never kept when the question failed (the gate itself is tested against the fake
Discord in tests/e2e/test_e2e_activity.py)."""

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
