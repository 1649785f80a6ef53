"""The service's background tasks: presenter calls, AI turns, endless-game stops.

Every task the service starts is tracked here so that :meth:`Tasks.wait_idle` can tell tests
and the terminal when nothing is running, and :meth:`Tasks.cancel_all` can end them on close.
:func:`cancel_and_wait` stops one task of its own that a part runs (a sweep, a writer).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from typing import Any

from bot.clock import Clock

__all__ = ["Tasks", "cancel_and_wait"]

log = logging.getLogger(__name__)


class Tasks:
    """A set of running tasks; a failing task is logged."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._sleeping: set[asyncio.Task[Any]] = set()
        self._activity = asyncio.Event()  # set when a task ends or starts waiting on the clock

    def spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        """Run ``coro`` in a tracked task."""
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        self._sleeping.discard(task)
        self._activity.set()
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed", exc_info=task.exception())

    async def nap(self, clock: Clock, seconds: float) -> None:
        """Sleep ``seconds`` of ``clock``; a task napping counts as idle (:meth:`wait_idle`)."""
        task = asyncio.current_task()
        if task is not None:
            self._sleeping.add(task)
            self._activity.set()
        try:
            await clock.sleep(seconds)
        finally:
            if task is not None:
                self._sleeping.discard(task)

    async def wait_idle(self) -> None:
        """Wait until every task has ended or naps."""
        while True:
            if all(t in self._sleeping or t.done() for t in self._tasks):
                return
            self._activity.clear()
            await self._activity.wait()

    async def cancel_all(self) -> None:
        """Cancel every task and wait for them to end."""
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


async def cancel_and_wait(task: asyncio.Task[Any] | None) -> None:
    """Cancel ``task`` (if any, and still running) and wait until it has ended."""
    if task is None or task.done():
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
