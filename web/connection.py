"""One open page: its WebSocket, who it is, and the frames waiting to be written to it.

Frames are written from a bounded queue by a writer task that runs while the page has frames
waiting (an idle page holds no task and no frame): a page that does not read (a frozen tab, a
dead network) never makes the presenter wait; when its queue is full it is closed, and the
page reconnects and gets the current state.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web

from bot.service.tasks import cancel_and_wait
from present.catalog import Catalog
from web.close_codes import CLOSE_SLOW
from web.tokens import Claims

__all__ = ["MAX_QUEUED", "Connection", "Role"]

log = logging.getLogger(__name__)

#: Frames queued for one page before it counts as not reading and is closed.
MAX_QUEUED = 64

Role = Literal["player", "watcher"]


@dataclass(eq=False)
class Connection:
    """An authenticated page of ``channel_id``: a ``player`` (``user_id`` at ``seat``, gets
    that seat's hand) or a ``watcher`` (the table only)."""

    ws: web.WebSocketResponse
    channel_id: int
    role: Role
    cat: Catalog
    claims: Claims
    user_id: int | None = None
    seat: int | None = None
    #: ``(game_id, version)`` of the last table and hand sent (older views are dropped).
    table_key: tuple[int, int] | None = None
    hand_key: tuple[int, int] | None = None
    #: Told of every frame once it is written to the socket (the benchmark measures with it).
    on_sent: Callable[[str], None] | None = None
    #: Frames waiting to be written (``None``: close once the ones before it are written).  A
    #: list, short (at most MAX_QUEUED) and with no memory of its own while empty, where an
    #: empty deque would keep a block of 64 slots for every open page.
    _queue: list[str | None] = field(default_factory=list)
    #: The task writing the queue, while it has frames (``None`` when it is empty).
    _writer: asyncio.Task[None] | None = None
    #: Started, and not yet stopped (the close sentinel written, the socket gone, stopped).
    _writing: bool = False

    def start(self) -> None:
        """Start writing queued frames to the socket."""
        self._writing = True
        self._wake_writer()

    def send(self, frame: dict[str, Any] | str) -> None:
        """Queue a frame (a dict, or JSON text already encoded); never waits."""
        text = frame if isinstance(frame, str) else encode(frame)
        if not self._put(text):
            log.info("a page of channel %d does not read its frames: closed", self.channel_id)
            self._abort()

    def _put(self, text: str | None) -> bool:
        """Queue ``text``; False when :data:`MAX_QUEUED` frames wait already."""
        if len(self._queue) >= MAX_QUEUED:
            return False
        self._queue.append(text)
        self._wake_writer()
        return True

    def _wake_writer(self) -> None:
        if self._writing and self._writer is None and self._queue:
            self._writer = asyncio.get_running_loop().create_task(self._write())

    def _abort(self) -> None:
        self._writing = False
        if self._writer is not None:
            self._writer.cancel()
        asyncio.get_running_loop().create_task(self.ws.close(code=CLOSE_SLOW))

    async def _write(self) -> None:
        # Ends when the queue is empty (send starts another): a task, its coroutine and the
        # last frame's text are held only while there is something to write, not for as long
        # as the page is open (the benchmark's kb_per_page).
        queue = self._queue
        try:
            while queue and self._writing:
                text = queue.pop(0)
                if text is None or self.ws.closed:
                    self._writing = False
                    return
                try:
                    await self.ws.send_str(text)
                except (ConnectionError, RuntimeError):
                    self._writing = False
                    return
                if self.on_sent is not None:
                    self.on_sent(text)
                del text
        finally:
            self._writer = None

    async def flush_and_close(self, code: int, frame: dict[str, Any] | None = None) -> None:
        """Send ``frame`` after the queued ones, then close with ``code``."""
        if frame is not None:
            self.send(frame)
        self._put(None)
        writer = self._writer
        if writer is not None:
            with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(writer), 2.0)
        await self.ws.close(code=code)

    async def stop(self) -> None:
        """Stop the writer (the socket is closed or closing)."""
        self._writing = False
        await cancel_and_wait(self._writer)


def encode(frame: dict[str, Any]) -> str:
    """A frame as JSON text (UTF-8 as is: card suits stay ``♥``)."""
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))
