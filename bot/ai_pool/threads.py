"""AI moves on one thread of this process: the pool's interface without processes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

from bot.ai_pool.base import (
    DEFAULT_MARGIN_S,
    AgentCache,
    AIRunner,
    GameKey,
    Move,
    ReviewJob,
    run_review_step,
)
from bot.ai_pool.base import fallback_move as _fallback_move
from bot.clock import Clock, SystemClock
from rules_engine.ai import FALLBACK_LEVEL, LEVELS, AILevel
from rules_engine.ai.review import ReviewStep

__all__ = ["ThreadAI"]

log = logging.getLogger(__name__)


class ThreadAI(AIRunner):
    """The same interface as :class:`~bot.ai_pool.AIPool` on one thread of this process: no
    processes to start, so service tests and the terminal stay fast.  Not for production:
    agents share the GIL with the event loop, and a move past its hard limit cannot be
    stopped (its answer is replaced by the fallback move, but the thread stays busy).  Agents
    are kept per (game, seat) as in the pool; an agent that raises is dropped and the fallback
    move is played.

    :param clock: what the hard limit is measured on (default the system clock).
    """

    def __init__(
        self,
        *,
        margin_s: float = DEFAULT_MARGIN_S,
        levels: Mapping[str, AILevel] = LEVELS,
        clock: Clock | None = None,
    ) -> None:
        super().__init__(levels=levels, margin_s=margin_s)
        self._clock: Clock = clock or SystemClock()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="durak-ai")
        self._agents = AgentCache(levels)

    async def _decide(self, move: Move) -> str:
        loop = asyncio.get_running_loop()
        clock = self._clock
        try:
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for can swallow a cancellation
            # that arrives as the decision completes, and the service's close() then waits
            # forever for a task that goes on to sleep on the clock
            async with asyncio.timeout(None) as limit:
                answered = False

                async def expire() -> None:
                    if not answered:
                        limit.reschedule(loop.time())

                timer = clock.call_at(clock.now() + move.limit_s + self.margin_s, expire)
                try:
                    return await loop.run_in_executor(
                        self._executor,
                        self._agents.choose,
                        move.key,
                        move.level,
                        move.seed,
                        move.obs,
                    )
                finally:
                    answered = True
                    timer.cancel()
        except Exception as exc:  # including the timeout
            log.warning(
                "AI %s failed in channel %d (%r): playing the %s move",
                move.level,
                move.channel_id,
                exc,
                FALLBACK_LEVEL,
            )
            return await loop.run_in_executor(None, _fallback_move, move.seed, move.obs)

    async def _review_step(self, job: ReviewJob) -> ReviewStep:
        """On the AI thread, after the moves already queued there (one thread: a move asked
        meanwhile waits for this step)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, run_review_step, job)

    def forget(self, game_key: GameKey) -> None:
        """As :meth:`AIPool.forget <bot.ai_pool.AIPool.forget>`."""
        self._agents.forget({game_key})

    async def close(self) -> None:
        """As :meth:`AIPool.close <bot.ai_pool.AIPool.close>` (a move still thinking is left to
        finish on its own)."""
        self._closed = True
        self._executor.shutdown(wait=False, cancel_futures=True)
