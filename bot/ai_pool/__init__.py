"""AI decisions in worker processes, scheduled fairly per channel.

The game service asks :class:`AIPool` for an AI seat's move::

    pool = AIPool()                      # AI_WORKERS processes, started on first use
    text = await pool.decide(channel_id, game_id, seat, level, seed, observation(game, seat))
    ...
    pool.forget(game_id)                 # the game ended: drop its agents in the workers
    await pool.close()                   # stops every worker

Why processes: the agents are pure Python, so a thread pool competes with the event loop for
the GIL (12 expert games gave loop lag p99 56–86 ms).  No AI code runs on the event loop's
thread: decisions run in worker processes, and the fallback (``casual``) in one small thread.

**Agents are stateful** per (game, seat): every level keeps its seeded ``rng``; ``counter`` and
``expert`` remember the face-up trump card once it has been drawn (it was public, but it is no
longer in the observation), and ``expert`` counts its long moves (at most 40% of a game's moves
may think past ``think_s``).  So an agent lives in one worker: a (game, seat) is bound to a
worker on its first move (the worker holding the fewest agents) and stays there until
:meth:`AIPool.forget` or until that worker dies; then the agent is created again, in whichever
worker takes its next move, as after a restart of the bot.

**Fairness.**  Each channel has a FIFO queue and at most one move in flight.  A free worker
takes the head move of the waiting channel with the least recent worker time plus the
expected time of that move: worker seconds decay with a half-life of ``USAGE_HALF_LIFE_S``;
the expected time is the level's (:data:`rules_engine.ai.LEVELS`) until measured, then a running
mean per level, so that among tables that have not played yet
the cheap move goes first; ties go to the one waiting longest.  So a casual move in a human's
game waits only for the moves in flight, not for the backlog of twenty expert tables (which
keep their usage high); a served channel's usage grows by what it used while the waiting
ones' decays, so no channel starves.  (Fair queuing by virtual time was tried first: with
many tables starting together a newcomer still waited one move per table.)

**Reviews** (the coach, :meth:`AIRunner.review <bot.ai_pool.AIRunner.review>`) run a decision
at a time (:func:`rules_engine.ai.review.review_step`, about 0.5 s of one core each, several
seconds for a big decision on a busy machine) in review worker processes of their own
(``review_workers``, default 1), started at a lower CPU priority (``nice`` +
``REVIEW_NICE``): a live move never waits for a review, and the operating system gives the
move workers and the event loop the CPU first.  (Review steps in the move workers, between
moves, were measured first: with 20 AI tables, every move then waited for the step in
flight, the AI move time going from 1 ms to 3 s at p50; docs/AI.md.)  With
``review_workers=0`` they still go there, below every move.  A worker that dies on a step, or
runs past ``REVIEW_STEP_LIMIT_S``, is replaced and the review fails with
:class:`ReviewFailed`; a record that cannot be reviewed raises
:class:`~rules_engine.ai.review.ReviewError`.

**Failures.**  A worker that dies (killed, crashed) or runs past the move's hard limit plus
``margin_s`` is killed and replaced; an agent that raises is dropped (the worker stays).  In
each case the move is answered by the ``casual`` agent, computed in the fallback thread (casual
takes ~0.1 ms; a fresh process would take far longer to start), and logged with channel and
level.  A worker slot that keeps failing to start (``MAX_START_FAILURES`` in a row) is
"down": it is started again with a backoff (1 s, doubling, at most ``RETRY_MAX_S``) for as long
as the pool runs, and serves again once a start succeeds; while every slot is down, all moves
are played by the fallback.  A recurring problem is logged at most once per ``LOG_EVERY_S``
(with how often it happened since), and :meth:`AIPool.health` counts failed starts and
fallback moves for an operator (:class:`PoolHealth`).

Linux/macOS only: replies are read with ``loop.add_reader`` on the workers' pipes.

Modules: :mod:`~bot.ai_pool.base` (settings, the runner interface, the agents a process
keeps), :mod:`~bot.ai_pool.pool` (:class:`AIPool`), its records :mod:`~bot.ai_pool.slots`, its
fallback moves :mod:`~bot.ai_pool.fallback` and its problem log :mod:`~bot.ai_pool.problems`,
:mod:`~bot.ai_pool.worker` (the worker process), :mod:`~bot.ai_pool.threads` (:class:`ThreadAI`,
the same interface on one thread).
"""

from __future__ import annotations

from bot.ai_pool.base import (
    AI_WORKERS_ENV,
    MAX_AI_ONLY_TABLES_PER_SERVER,
    AIPoolClosed,
    AIRunner,
    ReviewFailed,
    ai_only_table_refusal,
    default_workers,
    hard_limit,
)
from bot.ai_pool.pool import USAGE_HALF_LIFE_S, AIPool, PoolHealth
from bot.ai_pool.threads import ThreadAI
from rules_engine.ai import FALLBACK_LEVEL

__all__ = [
    "AI_WORKERS_ENV",
    "FALLBACK_LEVEL",
    "MAX_AI_ONLY_TABLES_PER_SERVER",
    "USAGE_HALF_LIFE_S",
    "AIPool",
    "AIPoolClosed",
    "AIRunner",
    "PoolHealth",
    "ReviewFailed",
    "ThreadAI",
    "ai_only_table_refusal",
    "default_workers",
    "hard_limit",
]
