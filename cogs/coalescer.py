"""One run in flight per piece of work, however often it is asked for (the presenter's
writes of a lobby, a table or a hand)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

__all__ = ["Coalescer"]

log = logging.getLogger(__name__)


class Coalescer:
    """Runs ``work()`` until no request arrived during the last run.

    A burst of :meth:`kick` calls costs one run in flight plus at most one more: ``work`` reads
    the newest state, so intermediate states are skipped.  The first caller does the work and
    returns when it is all done; callers arriving meanwhile return at once."""

    def __init__(self, work: Callable[[], Awaitable[None]], what: str) -> None:
        self._work = work
        self._what = what
        self._dirty = False
        self._busy = False

    async def kick(self) -> None:
        self._dirty = True
        if self._busy:
            return
        self._busy = True
        try:
            while self._dirty:
                self._dirty = False
                try:
                    await self._work()
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("updating %s failed", self._what)
        finally:
            self._busy = False
