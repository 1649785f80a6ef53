"""Idle rooms close: a room with no move, no command and no change for
:attr:`~web.rooms.limits.RoomLimits.idle_seconds` has its game or lobby stopped and its series
ended by the service (the system's idle rule), and its pages are told why
(:data:`~web.protocol.CLOSE_IDLE`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.authority import SystemRule
from bot.errors import ServiceError
from bot.rooms import RoomDirectory
from bot.service import GameService
from bot.service.tasks import cancel_and_wait
from rules_engine.messages import Message
from web.protocol import CLOSE_IDLE, error_frame
from web.rooms.presenter import RoomPresenter

__all__ = ["SWEEP_EVERY", "IdleSweep"]

log = logging.getLogger(__name__)

#: How often idle rooms are looked for, in seconds.
SWEEP_EVERY = 60.0


def _idle_message(minutes: int) -> Message:
    return Message("this room closed after {minutes} minutes without a move", minutes=minutes)


@dataclass(eq=False)
class IdleSweep:
    """When each open room last changed (:meth:`touch`), and the sweep that closes the idle
    ones (:meth:`close_idle`, every :data:`SWEEP_EVERY` seconds between :meth:`start` and
    :meth:`stop`)."""

    service: GameService
    directory: RoomDirectory
    presenter: RoomPresenter
    idle_seconds: float
    now: Callable[[], float]
    _active: dict[int, float] = field(default_factory=dict, init=False)
    _task: asyncio.Task[None] | None = field(default=None, init=False)

    def touch(self, channel_id: int) -> None:
        """The room changed (or a guest did something in it) now."""
        self._active[channel_id] = self.now()

    def start(self) -> None:
        """Count every open room as active now, and sweep from now on."""
        now = self.now()
        for channel in self.directory.open_rooms():
            self._active.setdefault(channel, now)
        self._task = asyncio.create_task(self._sweep())

    async def stop(self) -> None:
        task, self._task = self._task, None
        await cancel_and_wait(task)

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY)
            try:
                await self.close_idle()
            except Exception:  # the sweep must go on
                log.exception("closing idle rooms failed")

    async def close_idle(self) -> list[int]:
        """Close every room idle for ``idle_seconds``: the system stops its game or closes
        its lobby, and ends its series, by its idle rule; its pages are told why.  Returns the
        rooms closed."""
        now = self.now()
        closed = []
        rooms = self.directory.open_rooms()
        for gone in set(self._active).difference(rooms):  # ended rooms: forget them
            del self._active[gone]
        for channel in rooms:
            last = self._active.setdefault(channel, now)
            if now - last < self.idle_seconds:
                continue
            # the system's idle rule: a lobby closes; a game stops and its series ends
            with contextlib.suppress(ServiceError):
                await self.service.system_stop(channel, SystemRule.IDLE)
            closed.append(channel)
            self._active.pop(channel, None)
            minutes = max(1, round(self.idle_seconds / 60))
            for page in self.presenter.pages(channel):
                frame = error_frame(page.conn.cat, _idle_message(minutes), CLOSE_IDLE)
                await page.conn.flush_and_close(CLOSE_IDLE, frame)
            log.info("room %d closed: idle", channel)
        return closed
