"""The moves the AI pool plays itself when a worker cannot: the casual move, computed in a
thread of its own, counted and logged (:mod:`bot.ai_pool.pool`)."""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor

from bot.ai_pool.base import AIPoolClosed, fallback_move
from bot.ai_pool.problems import ProblemLog
from bot.ai_pool.slots import Request
from rules_engine.ai import FALLBACK_LEVEL

__all__ = ["Fallback"]

log = logging.getLogger(__name__)


class Fallback:
    """Answers a move with the :data:`FALLBACK_LEVEL` move; :attr:`moves` counts them."""

    def __init__(self, problems: ProblemLog) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="durak-ai-fallback")
        self._problems = problems
        self.moves = 0

    def play(self, loop: asyncio.AbstractEventLoop | None, req: Request, reason: str) -> None:
        """Answer ``req`` (its level failed for ``reason``) with the casual move; with no
        loop (the pool is closed or never started) only count and log it."""
        self.moves += 1
        self._problems.note(
            ("fallback", req.move.level, reason),
            "AI %s failed in channel %d (%s): playing the %s move (%d such moves so far)",
            req.move.level,
            req.move.channel_id,
            reason,
            FALLBACK_LEVEL,
            self.moves,
            level=logging.WARNING,
        )
        if req.future.done() or loop is None:
            return
        try:
            fut = loop.run_in_executor(self._executor, fallback_move, req.move.seed, req.move.obs)
        except RuntimeError as exc:  # the executor was shut down
            req.future.set_exception(AIPoolClosed(str(exc)))
            return

        def settle(done: asyncio.Future[str]) -> None:
            if req.future.done():
                return
            if done.cancelled():
                req.future.set_exception(AIPoolClosed("the AI pool is closed"))
            elif (exc := done.exception()) is not None:
                log.error(
                    "the %s fallback failed too in channel %d: %r",
                    FALLBACK_LEVEL,
                    req.move.channel_id,
                    exc,
                )
                req.future.set_exception(exc)
            else:
                req.future.set_result(done.result())

        fut.add_done_callback(settle)

    def shutdown(self) -> None:
        """Stop the thread; moves still waiting for it are cancelled."""
        self._executor.shutdown(wait=True, cancel_futures=True)
