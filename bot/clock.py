"""Time for the service: an injected clock that also schedules callbacks.

The service never reads the wall clock or sleeps directly: turn deadlines, the AI delay and
restart grace all go through a :class:`Clock`.  :class:`SystemClock` uses epoch time and the
running event loop; :class:`ManualClock` is for tests: time stands still until
:meth:`ManualClock.advance` moves it, running due callbacks in deadline order.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

__all__ = ["Clock", "ManualClock", "SystemClock", "Timer"]

log = logging.getLogger(__name__)

Callback = Callable[[], Coroutine[Any, Any, None]]


class Timer(Protocol):
    """A scheduled callback; :meth:`cancel` is idempotent."""

    when: float

    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> float:
        """Current time in epoch seconds."""
        ...

    def call_at(self, when: float, callback: Callback) -> Timer:
        """Run ``await callback()`` (as a task) once ``now() >= when``."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of this clock's time (returns at once for ``seconds <= 0``)."""
        ...


class _LoopTimer:
    __slots__ = ("_handle", "when")

    def __init__(self, when: float) -> None:
        self.when = when
        self._handle: asyncio.TimerHandle | None = None

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None


class SystemClock:
    """Wall-clock epoch time; callbacks run on the running event loop."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def now(self) -> float:
        return time.time()

    def call_at(self, when: float, callback: Callback) -> Timer:
        loop = asyncio.get_running_loop()
        timer = _LoopTimer(when)

        def fire() -> None:
            timer._handle = None
            task: asyncio.Task[None] = loop.create_task(callback())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        timer._handle = loop.call_later(max(0.0, when - time.time()), fire)
        return timer

    async def sleep(self, seconds: float) -> None:
        if seconds > 0:
            await asyncio.sleep(seconds)


class _ManualTimer:
    __slots__ = ("callback", "cancelled", "when")

    def __init__(self, when: float, callback: Callback) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock for tests.  Time moves only through :meth:`advance` (or :meth:`set`)."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._heap: list[tuple[float, int, _ManualTimer]] = []
        self._seq = itertools.count()
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []

    def now(self) -> float:
        return self._now

    def call_at(self, when: float, callback: Callback) -> Timer:
        timer = _ManualTimer(when, callback)
        heapq.heappush(self._heap, (when, next(self._seq), timer))
        return timer

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self._now + seconds, next(self._seq), fut))
        await fut

    @property
    def pending(self) -> list[float]:
        """Deadlines of timers not yet run nor cancelled, soonest first."""
        return sorted(t.when for _, _, t in self._heap if not t.cancelled)

    async def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds``, running every callback that falls due, in order,
        each to completion (with the loop given a chance to settle between them)."""
        await self.set(self._now + seconds)

    async def set(self, target: float) -> None:
        await _settle()
        while True:
            nxt = self._next_due(target)
            if nxt is None:
                break
            self._now = max(self._now, nxt)
            self._wake_sleepers()
            while self._heap and self._heap[0][0] <= self._now:
                _, _, timer = heapq.heappop(self._heap)
                if not timer.cancelled:
                    timer.cancelled = True
                    try:
                        await timer.callback()
                    except Exception:  # pragma: no cover - mirrors the loop's behaviour
                        log.exception("timer callback failed")
            await _settle()
        self._now = max(self._now, target)
        self._wake_sleepers()
        await _settle()

    def _next_due(self, target: float) -> float | None:
        while self._heap and self._heap[0][2].cancelled:
            heapq.heappop(self._heap)
        candidates = []
        if self._heap and self._heap[0][0] <= target:
            candidates.append(self._heap[0][0])
        if self._sleepers and self._sleepers[0][0] <= target:
            candidates.append(self._sleepers[0][0])
        return min(candidates) if candidates else None

    def _wake_sleepers(self) -> None:
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, fut = heapq.heappop(self._sleepers)
            if not fut.done():
                fut.set_result(None)


async def _settle(rounds: int = 20) -> None:
    """Let ready tasks run (including executor round trips) a few times."""
    for _ in range(rounds):
        await asyncio.sleep(0)
