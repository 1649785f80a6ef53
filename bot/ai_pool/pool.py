"""The AI pool: moves decided in worker processes, scheduled fairly per channel (the package
docstring, :mod:`bot.ai_pool`, tells why and how)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import multiprocessing
import weakref
from collections import deque
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext, SpawnContext
from multiprocessing.process import BaseProcess
from typing import Any

from bot.ai_pool.base import (
    DEFAULT_MARGIN_S,
    OTHER_EXPECTED_S,
    AgentKey,
    AIPoolClosed,
    AIRunner,
    GameKey,
    Move,
    ReviewFailed,
    ReviewJob,
    default_workers,
)
from bot.ai_pool.fallback import Fallback
from bot.ai_pool.problems import ProblemLog
from bot.ai_pool.slots import ChannelQueue, Request, ReviewRequest, Worker
from bot.ai_pool.worker import kill_all, worker_main
from bot.clock import Clock, SystemClock
from rules_engine.ai import FALLBACK_LEVEL, LEVELS, AILevel
from rules_engine.ai.review import ReviewError, ReviewStep

__all__ = [
    "LOG_EVERY_S",
    "MAX_START_FAILURES",
    "RETRY_MAX_S",
    "REVIEW_NICE",
    "START_TIMEOUT_S",
    "USAGE_HALF_LIFE_S",
    "AIPool",
    "PoolHealth",
]

log = logging.getLogger(__name__)

#: A worker that has not reported ready by then is killed (counts as a failed start).
START_TIMEOUT_S = 60.0
#: Failed starts in a row after which a worker slot is "down": it no longer counts as
#: serving (when every slot is down, moves go to the fallback at once) and it is started
#: again after a backoff: 1 s, doubling with each further failure, at most ``RETRY_MAX_S``.
MAX_START_FAILURES = 3
#: The longest wait between two starts of a down worker slot, in seconds.
RETRY_MAX_S = 60.0
#: A recurring problem (a slot failing to start, moves played by the fallback for the same
#: reason) is logged at most once per this many seconds, with how often it happened since.
LOG_EVERY_S = 60.0
#: How much lower the CPU priority of a review worker is (``os.nice`` increment).
REVIEW_NICE = 15
#: Half-life (seconds) of a channel's recent worker usage, which orders the waiting channels.
USAGE_HALF_LIFE_S = 60.0


@dataclass(frozen=True, slots=True)
class PoolHealth:
    """What an operator watches (:meth:`AIPool.health`): worker slots, those ready, those
    down (failing to start, retried with backoff), and since the pool started, the failed
    worker starts and the moves the ``casual`` fallback played instead of the asked level."""

    workers: int
    ready: int
    down: int
    failed_starts: int
    fallback_moves: int


class AIPool(AIRunner):
    """AI decisions in ``workers`` processes, fair per channel (see :mod:`bot.ai_pool`).

    :param workers: worker processes (default :func:`default_workers`).
    :param levels: the AI levels (default the engine's table); it goes to every worker, so
        its factories must pickle (module-level classes or functions).
    :param worker_init: ``"module:function"`` called in each worker before it serves.
    :param margin_s: added to a move's hard limit before its worker is killed.
    :param start_method: ``"spawn"`` (default) or ``"forkserver"``; never ``fork``, which is
        unsafe in a process with threads and a running event loop.
    :param clock: the hard limits and the channels' worker time are measured on it (default
        the system clock; tests pass a :class:`~bot.clock.ManualClock`).
    :param review_workers: processes of their own for the coach's reviews (default 1), run at
        a lower CPU priority (``nice`` + :data:`REVIEW_NICE`): a move never waits for a review,
        and the operating system gives the moves' processes the CPU first.  With 0, review
        steps go to the move workers when no move waits (a move may then wait for the step in
        flight).

    Use from one event loop.  Workers start on the first :meth:`decide` (or :meth:`start`).
    """

    def __init__(
        self,
        workers: int | None = None,
        *,
        levels: Mapping[str, AILevel] = LEVELS,
        worker_init: str | None = None,
        margin_s: float = DEFAULT_MARGIN_S,
        start_method: str = "spawn",
        clock: Clock | None = None,
        review_workers: int = 1,
    ) -> None:
        super().__init__(levels=levels, margin_s=margin_s)
        if review_workers < 0:
            raise ValueError("review_workers must be >= 0")
        if start_method not in ("spawn", "forkserver"):
            raise ValueError("start_method must be 'spawn' or 'forkserver'")
        count = default_workers() if workers is None else workers
        if count < 1:
            raise ValueError("an AI pool needs at least one worker")
        self._clock: Clock = clock or SystemClock()
        self._ctx: SpawnContext | ForkServerContext = (
            multiprocessing.get_context("spawn")
            if start_method == "spawn"
            else multiprocessing.get_context("forkserver")
        )
        self._worker_init = worker_init
        self._workers = [Worker(i) for i in range(count)] + [
            Worker(count + j, for_reviews=True) for j in range(review_workers)
        ]
        #: The move slots and the review slots (fixed: a failed worker's slot is reused).
        self._move_slots = tuple(w for w in self._workers if not w.for_reviews)
        self._review_slots = tuple(w for w in self._workers if w.for_reviews)
        self._channels: dict[int, ChannelQueue] = {}
        #: Review steps waiting, oldest first: a step goes to a worker only when no move
        #: can use it (see :meth:`_pump`).
        self._reviews: deque[ReviewRequest] = deque()
        self._usage: dict[int, tuple[float, float]] = {}  # channel → (seconds, as of when)
        #: Expected seconds of a move per level: the table's until measured, then a running
        #: mean of the real ones.
        self._expected = {name: entry.expected_s for name, entry in levels.items()}
        self._bound: dict[AgentKey, Worker] = {}
        self._ids = itertools.count(1)
        self._order = itertools.count()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started = False
        self._background: set[asyncio.Future[Any]] = set()
        self._admin = ThreadPoolExecutor(max_workers=1, thread_name_prefix="durak-ai-admin")
        self._processes: set[BaseProcess] = set()
        self._finalizer = weakref.finalize(self, kill_all, self._processes)
        self._failed_starts = 0
        #: Recurring problems, each logged at most once per LOG_EVERY_S (:class:`ProblemLog`).
        self._problems = ProblemLog(self._clock, LOG_EVERY_S, log)
        self._fallback = Fallback(self._problems)

    # ------------------------------------------------------------------ public
    @property
    def size(self) -> int:
        """The number of worker slots for moves."""
        return len(self._move_slots)

    def health(self) -> PoolHealth:
        """The slots' state and the failure counters (see :class:`PoolHealth`)."""
        return PoolHealth(
            len(self._move_slots),
            sum(w.ready for w in self._move_slots),
            sum(w.down for w in self._move_slots),
            self._failed_starts,
            self._fallback.moves,
        )

    def worker_pids(self) -> list[int | None]:
        """The process id of each move worker slot (``None`` while none runs).  For tests."""
        return [w.pid for w in self._move_slots]

    def review_worker_pids(self) -> list[int | None]:
        """The process id of each review worker slot.  For tests."""
        return [w.pid for w in self._review_slots]

    async def start(self, *, wait: bool = False, timeout: float = START_TIMEOUT_S) -> None:
        """Start the workers (idempotent); with ``wait``, until every slot is ready or down."""
        self._ensure_started()
        if not wait:
            return
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not all(w.ready or w.down for w in self._workers):
            if self._closed:
                raise AIPoolClosed("the AI pool is closed")
            if loop.time() > end:
                raise TimeoutError("AI workers did not start in time")
            await asyncio.sleep(0.01)

    async def _decide(self, move: Move) -> str:
        self._ensure_started()
        loop = asyncio.get_running_loop()
        req = Request(move, loop.create_future(), next(self._ids))
        ch = self._channels.get(move.channel_id)
        if ch is None:
            ch = self._channels[move.channel_id] = ChannelQueue(move.channel_id)
        ch.queue.append(req)
        if len(ch.queue) == 1 and not ch.busy:
            self._head_ready(ch)
        self._pump()
        try:
            return await req.future
        except asyncio.CancelledError:
            self._withdraw(req)
            raise

    async def _review_step(self, job: ReviewJob) -> ReviewStep:
        self._ensure_started()
        loop = asyncio.get_running_loop()
        req = ReviewRequest(job, loop.create_future(), next(self._ids))
        self._reviews.append(req)
        self._pump()
        try:
            return await req.future
        except asyncio.CancelledError:
            if req in self._reviews:
                self._reviews.remove(req)
            raise

    def forget(self, game_key: GameKey) -> None:
        """The game ended: drop its agents (moves already queued still run)."""
        holders: set[Worker] = set()
        for key in [k for k in self._bound if k[0] == game_key]:
            worker = self._bound.pop(key)
            worker.keys.discard(key)
            holders.add(worker)
        for worker in holders:
            if worker.conn is not None:
                # a dying worker's replacement starts empty anyway
                with contextlib.suppress(OSError, ValueError):
                    worker.conn.send(("forget", [game_key]))

    async def close(self) -> None:
        """Stop every worker (politely, then by force) and the threads; pending and later
        decisions raise :class:`AIPoolClosed`.  Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        exc = AIPoolClosed("the AI pool is closed")
        for ch in self._channels.values():
            for req in ch.queue:
                if not req.future.done():
                    req.future.set_exception(exc)
        self._channels.clear()
        for rreq in self._reviews:
            if not rreq.future.done():
                rreq.future.set_exception(exc)
        self._reviews.clear()
        loop = asyncio.get_running_loop()
        stops = []
        for w in self._workers:
            if w.current is not None and not w.current.future.done():
                w.current.future.set_exception(exc)
            proc, conn = w.process, w.conn
            busy = w.current is not None
            self._detach(w)  # no reader any more: the exits below are expected
            if busy and proc is not None:
                with contextlib.suppress(Exception):
                    proc.kill()  # no point waiting for a move nobody will play
            elif conn is not None:
                with contextlib.suppress(OSError, ValueError):
                    conn.send(("stop",))
            if proc is not None:
                stops.append(loop.run_in_executor(self._admin, self._stop_process, proc, conn))
        # launches under way see _closed and stop their process themselves
        while self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)
        await asyncio.gather(*stops, return_exceptions=True)
        self._admin.shutdown(wait=True)
        self._fallback.shutdown()
        kill_all(self._processes)

    async def __aenter__(self) -> AIPool:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # ------------------------------------------------------------------ scheduling
    def _head_ready(self, ch: ChannelQueue) -> None:
        """The channel's head move may go now: note when (the tie-break)."""
        ch.order = next(self._order)

    def _used(self, channel_id: int, now: float) -> float:
        """The channel's recent worker seconds, decayed to ``now``."""
        seconds, at = self._usage.get(channel_id, (0.0, now))
        return seconds * float(0.5 ** ((now - at) / USAGE_HALF_LIFE_S))

    def _charge(self, channel_id: int, spent: float) -> None:
        now = self._clock.now()
        self._usage[channel_id] = (self._used(channel_id, now) + spent, now)
        if len(self._usage) > 2 * len(self._channels) + 256:  # forget the long-idle ones
            self._usage = {
                c: u
                for c, u in self._usage.items()
                if c in self._channels or self._used(c, now) > 1e-3
            }

    def _pump(self) -> None:
        """Dispatch waiting moves to idle workers, fairest first; then review steps to the
        workers no waiting move can use (a move bound to a busy worker waits for that one)."""
        if self._closed:
            return
        reviewers = self._review_slots
        if reviewers and self._reviews:
            if all(w.down for w in reviewers):
                self._fail_reviews("no review worker could be started")
            else:
                self._pump_reviews([w for w in reviewers if w.ready and w.current is None])
        movers = self._move_slots
        if all(w.down for w in movers):
            self._drain_to_fallback()
            return
        idle = [w for w in movers if w.ready and w.current is None]
        if idle and self._pump_moves(idle) and not reviewers:
            self._pump_reviews(idle)

    def _pump_reviews(self, idle: list[Worker]) -> None:
        while idle and self._reviews:
            worker = min(idle, key=lambda w: (len(w.keys), w.index))  # the least needed
            rreq = self._reviews.popleft()
            if not self._dispatch_review(worker, rreq):
                return  # a worker failed: that already pumped again
            idle.remove(worker)

    def _dispatch_review(self, worker: Worker, rreq: ReviewRequest) -> bool:
        """Send a review step to ``worker``; ``False`` if the worker turned out dead."""
        assert worker.conn is not None
        try:
            worker.conn.send(("review", rreq.request_id, rreq.job))
        except (OSError, ValueError) as exc:
            self._reviews.appendleft(rreq)
            self._worker_failed(worker, f"its pipe failed ({exc})")
            return False
        except Exception as exc:  # a record that does not pickle
            if not rreq.future.done():
                rreq.future.set_exception(ReviewFailed(f"the review could not be sent: {exc!r}"))
            return True
        rreq.dispatched = self._clock.now()
        worker.current = rreq

        async def overtime() -> None:
            self._overtime(worker, rreq)

        worker.timer = self._clock.call_at(rreq.dispatched + rreq.job.limit_s, overtime)
        return True

    def _pump_moves(self, idle: list[Worker]) -> bool:
        """Dispatch waiting moves to ``idle`` workers (taken out of it); ``False`` when a
        worker failed (that already pumped again)."""
        waiting = [ch for ch in self._channels.values() if ch.queue and not ch.busy]
        now = self._clock.now()
        expected = self._expected
        waiting.sort(
            key=lambda c: (
                self._used(c.channel_id, now)
                + expected.get(c.queue[0].move.level, OTHER_EXPECTED_S),
                c.order,
            )
        )
        for ch in waiting:
            req = ch.queue[0]
            worker = self._bound.get(req.move.key)
            if worker is None:
                worker = min(idle, key=lambda w: (len(w.keys), w.index))
            elif worker not in idle:
                continue  # its agent lives in a busy worker: the channel waits for it
            ch.queue.popleft()
            if not self._dispatch(ch, worker, req):
                return False  # a worker failed: that already pumped again
            idle.remove(worker)
            if not idle:
                return True
        return True

    def _dispatch(self, ch: ChannelQueue, worker: Worker, req: Request) -> bool:
        """Send ``req`` to ``worker``; ``False`` if the worker turned out dead."""
        assert worker.conn is not None and self._loop is not None
        move = req.move
        try:
            worker.conn.send(
                ("decide", req.request_id, move.key, move.level, move.seed, dict(move.obs))
            )
        except (OSError, ValueError) as exc:  # the worker's pipe is gone
            ch.queue.appendleft(req)
            self._worker_failed(worker, f"its pipe failed ({exc})")
            return False
        except Exception as exc:  # e.g. an observation that does not pickle
            self._fallback_move(req, f"the observation could not be sent ({exc!r})")
            self._after_move(ch)
            return True
        ch.busy = True
        req.dispatched = self._clock.now()
        worker.current = req
        self._bound[req.move.key] = worker
        worker.keys.add(req.move.key)

        async def overtime() -> None:
            self._overtime(worker, req)

        deadline = req.dispatched + req.move.limit_s + self.margin_s
        worker.timer = self._clock.call_at(deadline, overtime)
        return True

    def _done(self, worker: Worker, req: Request | ReviewRequest) -> float:
        """The worker is free of ``req``: charge a move's time to its channel, free the
        channel.  Returns the seconds it took."""
        worker.current = None
        self._cancel_timer(worker)
        spent = self._clock.now() - req.dispatched
        if isinstance(req, ReviewRequest):
            return spent
        ch = self._channels.get(req.move.channel_id)
        if ch is not None:
            ch.busy = False
            self._charge(ch.channel_id, spent)
            self._after_move(ch)
        return spent

    def _after_move(self, ch: ChannelQueue) -> None:
        if ch.queue:
            self._head_ready(ch)
        elif not ch.busy:
            del self._channels[ch.channel_id]

    def _withdraw(self, req: Request) -> None:
        """A cancelled :meth:`decide`: drop the move if it has not gone to a worker."""
        ch = self._channels.get(req.move.channel_id)
        if ch is None or req not in ch.queue:
            return
        was_head = ch.queue[0] is req
        ch.queue.remove(req)
        if was_head and not ch.busy:
            self._after_move(ch)

    def _fail_reviews(self, reason: str) -> None:
        while self._reviews:
            rreq = self._reviews.popleft()
            if not rreq.future.done():
                rreq.future.set_exception(ReviewFailed(reason))

    def _drain_to_fallback(self) -> None:
        if not self._review_slots:
            self._fail_reviews("no AI worker could be started")
        for ch in list(self._channels.values()):
            while ch.queue:
                self._fallback_move(ch.queue.popleft(), "no AI worker could be started")
            if not ch.busy:
                del self._channels[ch.channel_id]

    # ------------------------------------------------------------------ workers
    def _ensure_started(self) -> None:
        if self._started:
            return
        if self._closed:
            raise AIPoolClosed("the AI pool is closed")
        self._loop = asyncio.get_running_loop()
        self._started = True
        for w in self._workers:
            self._launch(w)

    def _launch(self, worker: Worker) -> None:
        """Start ``worker``'s process in the admin thread (a spawn is not instant)."""
        assert self._loop is not None
        worker.starting = True
        task = asyncio.ensure_future(self._launch_async(worker))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _launch_async(self, worker: Worker) -> None:
        assert self._loop is not None
        try:
            proc, conn = await self._loop.run_in_executor(self._admin, self._spawn, worker)
        except Exception:
            self._problems.note(
                ("spawn", worker.index), "could not start AI worker %d", worker.index, trace=True
            )
            worker.starting = False
            self._start_failed(worker, "it could not be started")
            return
        if self._closed:  # it never served: no need to ask it politely
            with contextlib.suppress(Exception):
                proc.kill()
            await self._loop.run_in_executor(self._admin, self._stop_process, proc, conn)
            return
        worker.process, worker.pid, worker.conn, worker.starting = proc, proc.pid, conn, False
        self._loop.add_reader(conn.fileno(), self._readable, worker, conn)

        async def start_timeout() -> None:
            self._start_timeout(worker, proc)

        worker.timer = self._clock.call_at(self._clock.now() + START_TIMEOUT_S, start_timeout)

    def _spawn(self, worker: Worker) -> tuple[BaseProcess, Connection]:
        parent, child = self._ctx.Pipe(duplex=True)
        nice = REVIEW_NICE if worker.for_reviews else 0
        proc = self._ctx.Process(
            target=worker_main,
            args=(child, self._worker_init, dict(self.levels), nice),
            name="durak-ai-worker",
            daemon=True,
        )
        try:
            proc.start()
        finally:
            child.close()  # so that the worker's death reads as end-of-file here
        self._processes.add(proc)
        return proc, parent

    def _readable(self, worker: Worker, conn: Connection) -> None:
        """A reply (or end-of-file) on a worker's pipe: one message is read each time the
        pipe is readable (the loop calls again while more wait), which spares asking the pipe
        whether it is readable before and after."""
        if self._closed or worker.conn is not conn:
            return
        try:
            self._message(worker, conn.recv())
        except (EOFError, OSError):
            if worker.conn is conn:
                self._worker_failed(worker, "it exited")

    def _message(self, worker: Worker, msg: tuple[Any, ...]) -> None:
        kind = msg[0]
        if kind == "ready":
            if worker.down:
                log.warning(
                    "AI worker %d started after %d failed starts: it serves again",
                    worker.index,
                    worker.start_failures,
                )
            worker.ready = True
            worker.down = False
            worker.start_failures = 0
            self._cancel_timer(worker)
            self._pump()
            return
        req = worker.current
        if req is None or req.request_id != msg[1]:
            return  # a reply nobody waits for any more
        if isinstance(req, ReviewRequest):
            self._done(worker, req)
            if not req.future.done():
                if kind == "ok":
                    req.future.set_result(msg[2])
                elif kind == "bad":
                    req.future.set_exception(ReviewError(msg[2]))
                else:
                    req.future.set_exception(ReviewFailed(f"the review raised {msg[2]}"))
            self._pump()
            return
        spent = self._done(worker, req)
        if kind == "ok":
            old = self._expected.get(req.move.level, spent)
            self._expected[req.move.level] = 0.8 * old + 0.2 * spent
            if not req.future.done():
                req.future.set_result(msg[2])
        else:
            self._fallback_move(req, f"the agent raised {msg[2]}")
        self._pump()

    def _overtime(self, worker: Worker, req: Request | ReviewRequest) -> None:
        if worker.current is not req:
            return
        if isinstance(req, ReviewRequest):
            reason = f"a review step ran past its limit of {req.job.limit_s:.0f} s"
        else:
            reason = (
                f"it ran past the hard limit of {req.move.limit_s:.2f} s + {self.margin_s:.2f} s"
            )
        self._worker_failed(worker, reason)

    def _start_timeout(self, worker: Worker, proc: BaseProcess) -> None:
        if worker.process is proc and not worker.ready:
            self._worker_failed(worker, f"it did not start within {START_TIMEOUT_S:.0f} s")

    def _worker_failed(self, worker: Worker, reason: str) -> None:
        """Kill and replace ``worker``; its move (if any) gets the casual fallback."""
        assert self._loop is not None
        was_ready = worker.ready
        proc, conn, pid = worker.process, worker.conn, worker.pid
        req = worker.current
        if req is not None:
            self._done(worker, req)
        self._detach(worker)
        if proc is not None:
            with contextlib.suppress(Exception):
                proc.kill()
            fut = self._loop.run_in_executor(self._admin, self._stop_process, proc, conn)
            self._background.add(fut)
            fut.add_done_callback(self._background.discard)
        for key in worker.keys:
            self._bound.pop(key, None)
        worker.keys.clear()
        self._problems.note(
            ("replaced", worker.index, reason),
            "AI worker %d (pid %s) replaced: %s",
            worker.index,
            pid,
            reason,
            level=logging.WARNING,
        )
        if isinstance(req, ReviewRequest):
            if not req.future.done():
                req.future.set_exception(ReviewFailed(f"its worker failed: {reason}"))
        elif req is not None:
            self._fallback_move(req, f"its worker failed: {reason}")
        if self._closed:
            return
        if was_ready:
            worker.start_failures = 0
            self._launch(worker)
        else:
            self._start_failed(worker, reason)
        self._pump()

    def _start_failed(self, worker: Worker, reason: str) -> None:
        """A start of ``worker`` failed: start it again, at once for the first
        ``MAX_START_FAILURES`` failures in a row, then (the slot is down) after a backoff."""
        worker.start_failures += 1
        self._failed_starts += 1
        if self._closed:
            return
        if worker.start_failures < MAX_START_FAILURES:
            self._launch(worker)
            return
        doublings = min(worker.start_failures - MAX_START_FAILURES, 16)
        delay = min(2.0**doublings, RETRY_MAX_S)
        self._problems.note(
            ("down", worker.index),
            "AI worker %d failed to start %d times in a row (%s): its moves go to the %s "
            "fallback while it is retried (next in %.0f s)",
            worker.index,
            worker.start_failures,
            reason,
            FALLBACK_LEVEL,
            delay,
        )
        if not worker.down:
            worker.down = True
            self._pump()  # when every slot is down, the waiting moves go to the fallback

        async def retry() -> None:
            worker.timer = None
            if not self._closed and worker.process is None and not worker.starting:
                self._launch(worker)

        self._cancel_timer(worker)
        worker.timer = self._clock.call_at(self._clock.now() + delay, retry)

    def _detach(self, worker: Worker) -> None:
        """Forget ``worker``'s process and pipe (the caller stops the process)."""
        self._cancel_timer(worker)
        if worker.conn is not None and self._loop is not None:
            with contextlib.suppress(Exception):
                self._loop.remove_reader(worker.conn.fileno())
        worker.process = None
        worker.pid = None
        worker.conn = None
        worker.ready = False
        worker.current = None

    def _stop_process(self, proc: BaseProcess, conn: Connection | None) -> None:
        """(Admin thread) wait briefly for ``proc`` to stop, then kill it; reap it."""
        proc.join(1.0)
        if proc.is_alive():
            proc.kill()
            proc.join(5.0)
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.close()
        if not proc.is_alive():
            self._processes.discard(proc)
            with contextlib.suppress(ValueError):
                proc.close()

    @staticmethod
    def _cancel_timer(worker: Worker) -> None:
        if worker.timer is not None:
            worker.timer.cancel()
            worker.timer = None

    def _fallback_move(self, req: Request, reason: str) -> None:
        """Answer ``req`` with the casual move (:class:`Fallback`)."""
        self._fallback.play(None if self._closed else self._loop, req, reason)
