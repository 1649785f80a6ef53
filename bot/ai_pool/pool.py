"""AI decisions in worker processes, scheduled fairly per channel.

The game service asks :class:`AIPool` for an AI seat's move::

    pool = AIPool()                      # AI_WORKERS processes, started on first use
    text = await pool.decide(channel_id, game_id, seat, "expert", seed, observation(game, seat))
    ...
    pool.forget(game_id)                 # the game ended: drop its agents in the workers
    await pool.close()                   # stops every worker

Why processes: the agents are pure Python, so a thread pool competes with the event loop for
the GIL (12 expert games gave loop lag p99 56–86 ms).  No AI code runs on the event loop's
thread: decisions run in worker processes, and the ``casual`` fallback in one small thread.

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
the expected time is a running mean per level, so that among tables that have not played yet
the cheap move goes first; ties go to the one waiting longest.  So a casual move in a human's
game waits only for the moves in flight, not for the backlog of twenty expert tables (which
keep their usage high); a served channel's usage grows by what it used while the waiting
ones' decays, so no channel starves.  (Fair queuing by virtual time was tried first: with
many tables starting together a newcomer still waited one move per table.)

**Failures.**  A worker that dies (killed, crashed) or runs past the move's hard limit plus
``margin_s`` is killed and replaced; an agent that raises is dropped (the worker stays).  In
each case the move is answered by the ``casual`` agent, computed in the fallback thread (casual
takes ~0.1 ms; a fresh process would take far longer to start), and logged with channel and
level.  A worker that keeps failing to start (``MAX_START_FAILURES`` in a row) is given up; if
every worker is given up, all moves are played by the fallback.

Linux/macOS only: replies are read with ``loop.add_reader`` on the workers' pipes.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import itertools
import logging
import multiprocessing
import os
import signal
import time
import weakref
from collections import deque
from collections.abc import Callable, Hashable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext, SpawnContext
from multiprocessing.process import BaseProcess
from typing import Any

from rules_engine.messages import Message

__all__ = [
    "AI_WORKERS_ENV",
    "DEFAULT_HARD_LIMITS",
    "FALLBACK_LEVEL",
    "MAX_AI_ONLY_TABLES_PER_SERVER",
    "USAGE_HALF_LIFE_S",
    "AIPool",
    "AIPoolClosed",
    "ThreadAI",
    "ai_only_table_refusal",
    "default_workers",
    "hard_limit",
]

log = logging.getLogger(__name__)

#: Environment variable with the number of worker processes.
AI_WORKERS_ENV = "AI_WORKERS"
#: The level that answers when a worker fails.
FALLBACK_LEVEL = "casual"
#: AI-only tables (no human seat) one Discord server may run at once.
MAX_AI_ONLY_TABLES_PER_SERVER = 2
#: Hard per-move limits (seconds) of the levels, as the agents are made by ``make_agent``
#: with default options (expert: ``budget_s`` 0.9).  Other levels get :data:`OTHER_HARD_LIMIT`.
DEFAULT_HARD_LIMITS: dict[str, float] = {
    "beginner": 1.0,
    "casual": 1.0,
    "counter": 1.0,
    "expert": 0.9,
}
OTHER_HARD_LIMIT = 1.0
#: Added to a move's hard limit before its worker is killed: pickling, pipes, a busy machine.
DEFAULT_MARGIN_S = 0.5
#: A worker that has not reported ready by then is killed (counts as a failed start).
START_TIMEOUT_S = 60.0
#: Failed starts in a row after which a worker slot is given up.
MAX_START_FAILURES = 3
#: Half-life (seconds) of a channel's recent worker usage, which orders the waiting channels.
USAGE_HALF_LIFE_S = 60.0
#: Expected seconds of a move per level until measured (then a running mean of the real ones).
_EXPECTED_S: dict[str, float] = {"beginner": 0.001, "casual": 0.001, "counter": 0.01, "expert": 0.3}
_EXPECTED_OTHER_S = 0.05

GameKey = Hashable
_Key = tuple[Hashable, int]  # (game_key, seat)


class AIPoolClosed(RuntimeError):
    """The pool was closed: no more decisions."""


def default_workers() -> int:
    """``AI_WORKERS`` from the environment, else the number of cores − 1, at least 1."""
    raw = os.environ.get(AI_WORKERS_ENV, "").strip()
    if raw:
        try:
            value = int(raw)
        except ValueError:
            raise ValueError(f"{AI_WORKERS_ENV} must be a whole number, not {raw!r}") from None
        if value < 1:
            raise ValueError(f"{AI_WORKERS_ENV} must be at least 1, not {value}")
        return value
    return max(1, (os.cpu_count() or 2) - 1)


def hard_limit(level: str) -> float:
    """The hard per-move limit in seconds of ``level`` (as made by ``make_agent``)."""
    return DEFAULT_HARD_LIMITS.get(level, OTHER_HARD_LIMIT)


def ai_only_table_refusal(running: int, cap: int = MAX_AI_ONLY_TABLES_PER_SERVER) -> Message | None:
    """``None`` if a server running ``running`` AI-only tables may start one more, else the
    refusal to show the host (a :class:`~rules_engine.messages.Message`, translated by the
    adapter)."""
    if running < cap:
        return None
    return Message(
        "this server already runs {running} tables with only AI players (at most {cap}): "
        "stop one, or take a seat yourself",
        running=running,
        cap=cap,
    )


# ---------------------------------------------------------------------------------- worker
def _worker_main(conn: Connection, worker_init: str | None) -> None:
    """A worker process: keep agents per (game, seat), answer ``decide`` requests in order.

    Messages in: ``("decide", request_id, key, level, seed, observation)``,
    ``("forget", [game_key, ...])``, ``("stop",)``.  Out: ``("ready", pid)`` once, then
    ``("ok", request_id, text)`` or ``("err", request_id, description)`` per decide.
    """
    # Ctrl+C reaches the whole process group; the parent stops its workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if worker_init:
        _load_callable(worker_init)()
    from rules_engine.ai import make_agent

    agents: dict[_Key, tuple[str, int, Any]] = {}
    conn.send(("ready", os.getpid()))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        kind = msg[0]
        if kind == "stop":
            return
        if kind == "forget":
            gone = set(msg[1])
            for key in [k for k in agents if k[0] in gone]:
                del agents[key]
            continue
        _, request_id, key, level, seed, obs = msg
        try:
            held = agents.get(key)
            if held is None or held[0] != level or held[1] != seed:
                held = (level, seed, make_agent(level, seed=seed))
                agents[key] = held
            text = held[2].choose(obs)
            if not isinstance(text, str):
                raise TypeError(f"the agent answered {type(text).__name__}, not str")
            reply: tuple[Any, ...] = ("ok", request_id, text)
        except MemoryError:
            conn.send(("err", request_id, "MemoryError"))
            os._exit(70)  # a process that ran out of memory is replaced
        except Exception as exc:
            agents.pop(key, None)  # its state may be half-updated
            reply = ("err", request_id, f"{type(exc).__name__}: {exc}")
        conn.send(reply)


def _load_callable(spec: str) -> Callable[[], object]:
    """``"package.module:function"`` → the function."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"worker_init must look like 'package.module:function', not {spec!r}")
    func = getattr(importlib.import_module(module_name), attr)
    if not callable(func):
        raise TypeError(f"worker_init {spec!r} is not callable")
    return func  # type: ignore[no-any-return]


def _casual_move(seed: int, obs: Mapping[str, Any]) -> str:
    """The fallback move (runs in the fallback thread, never on the loop's thread)."""
    from rules_engine.ai import make_agent

    return make_agent(FALLBACK_LEVEL, seed=seed).choose(obs)


def _kill_all(processes: set[BaseProcess]) -> None:
    """Last resort (garbage collection, interpreter exit): kill workers still running."""
    for proc in list(processes):
        with contextlib.suppress(Exception):
            if proc.is_alive():
                proc.kill()
            proc.join(2)
    processes.clear()


# ---------------------------------------------------------------------------------- parent
@dataclass(eq=False, slots=True)
class _Request:
    channel_id: int
    key: _Key
    level: str
    seed: int
    obs: Mapping[str, Any]
    limit_s: float
    future: asyncio.Future[str]
    request_id: int
    dispatched: float = 0.0


@dataclass(eq=False, slots=True)
class _Channel:
    channel_id: int
    queue: deque[_Request] = field(default_factory=deque)
    busy: bool = False  # a move in flight (in a worker)
    order: int = 0  # tie-break: when the head became ready


@dataclass(eq=False, slots=True)
class _Worker:
    index: int
    process: BaseProcess | None = None
    pid: int | None = None  # kept apart: the admin thread may close ``process`` early
    conn: Connection | None = None
    ready: bool = False
    starting: bool = False
    given_up: bool = False
    start_failures: int = 0
    current: _Request | None = None
    timer: asyncio.TimerHandle | None = None
    keys: set[_Key] = field(default_factory=set)


class AIPool:
    """AI decisions in ``workers`` processes, fair per channel (see the module docstring).

    :param workers: worker processes (default :func:`default_workers`).
    :param worker_init: ``"module:function"`` called in each worker before it serves (tests
        register their own agent levels this way).
    :param margin_s: added to a move's hard limit before its worker is killed.
    :param start_method: ``"spawn"`` (default) or ``"forkserver"``; never ``fork``, which is
        unsafe in a process with threads and a running event loop.

    Use from one event loop.  Workers start on the first :meth:`decide` (or :meth:`start`).
    """

    def __init__(
        self,
        workers: int | None = None,
        *,
        worker_init: str | None = None,
        margin_s: float = DEFAULT_MARGIN_S,
        start_method: str = "spawn",
    ) -> None:
        if start_method not in ("spawn", "forkserver"):
            raise ValueError("start_method must be 'spawn' or 'forkserver'")
        count = default_workers() if workers is None else workers
        if count < 1:
            raise ValueError("an AI pool needs at least one worker")
        if margin_s < 0:
            raise ValueError("margin_s must be >= 0")
        self.margin_s = margin_s
        self._ctx: SpawnContext | ForkServerContext = (
            multiprocessing.get_context("spawn")
            if start_method == "spawn"
            else multiprocessing.get_context("forkserver")
        )
        self._worker_init = worker_init
        self._workers = [_Worker(i) for i in range(count)]
        self._channels: dict[int, _Channel] = {}
        self._usage: dict[int, tuple[float, float]] = {}  # channel → (seconds, as of when)
        self._expected = dict(_EXPECTED_S)
        self._bound: dict[_Key, _Worker] = {}
        self._ids = itertools.count(1)
        self._order = itertools.count()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started = False
        self._closed = False
        self._background: set[asyncio.Future[Any]] = set()
        self._admin = ThreadPoolExecutor(max_workers=1, thread_name_prefix="durak-ai-admin")
        self._fallback = ThreadPoolExecutor(max_workers=1, thread_name_prefix="durak-ai-fallback")
        self._processes: set[BaseProcess] = set()
        self._finalizer = weakref.finalize(self, _kill_all, self._processes)

    # ------------------------------------------------------------------ public
    @property
    def size(self) -> int:
        """The number of worker slots."""
        return len(self._workers)

    def worker_pids(self) -> list[int | None]:
        """The process id of each worker slot (``None`` while none runs).  For tests."""
        return [w.pid for w in self._workers]

    async def start(self, *, wait: bool = False, timeout: float = START_TIMEOUT_S) -> None:
        """Start the workers (idempotent); with ``wait``, until every live slot is ready."""
        self._ensure_started()
        if not wait:
            return
        end = time.monotonic() + timeout
        while not all(w.ready or w.given_up for w in self._workers):
            if self._closed:
                raise AIPoolClosed("the AI pool is closed")
            if time.monotonic() > end:
                raise TimeoutError("AI workers did not start in time")
            await asyncio.sleep(0.01)

    async def decide(
        self,
        channel_id: int,
        game_key: GameKey,
        seat: int,
        level: str,
        seed: int,
        observation: Mapping[str, Any],
        hard_limit_s: float | None = None,
    ) -> str:
        """The action text ``level`` chooses for ``seat`` given its ``observation``.

        The agent of (``game_key``, ``seat``) is made with ``make_agent(level, seed=seed)`` on
        its first move and kept (a new level or seed makes a new one).  ``hard_limit_s``
        (default :func:`hard_limit` of the level) plus ``margin_s`` bounds the time in the
        worker; past it, or if the worker fails, the ``casual`` move is returned.  Raises
        :class:`AIPoolClosed` after :meth:`close`, and the fallback's exception if even the
        casual agent fails (e.g. no legal action in ``observation``).
        """
        if self._closed:
            raise AIPoolClosed("the AI pool is closed")
        self._ensure_started()
        loop = asyncio.get_running_loop()
        limit = hard_limit(level) if hard_limit_s is None else hard_limit_s
        req = _Request(
            channel_id,
            (game_key, seat),
            level,
            seed,
            observation,
            limit,
            loop.create_future(),
            next(self._ids),
        )
        ch = self._channels.get(channel_id)
        if ch is None:
            ch = self._channels[channel_id] = _Channel(channel_id)
        ch.queue.append(req)
        if len(ch.queue) == 1 and not ch.busy:
            self._head_ready(ch)
        self._pump()
        try:
            return await req.future
        except asyncio.CancelledError:
            self._withdraw(req)
            raise

    def forget(self, game_key: GameKey) -> None:
        """The game ended: drop its agents (moves already queued still run)."""
        holders: set[_Worker] = set()
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
        self._fallback.shutdown(wait=True, cancel_futures=True)
        _kill_all(self._processes)

    async def __aenter__(self) -> AIPool:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # ------------------------------------------------------------------ scheduling
    def _head_ready(self, ch: _Channel) -> None:
        """The channel's head move may go now: note when (the tie-break)."""
        ch.order = next(self._order)

    def _used(self, channel_id: int, now: float) -> float:
        """The channel's recent worker seconds, decayed to ``now``."""
        seconds, at = self._usage.get(channel_id, (0.0, now))
        return seconds * float(0.5 ** ((now - at) / USAGE_HALF_LIFE_S))

    def _charge(self, channel_id: int, spent: float) -> None:
        now = time.monotonic()
        self._usage[channel_id] = (self._used(channel_id, now) + spent, now)
        if len(self._usage) > 2 * len(self._channels) + 256:  # forget the long-idle ones
            self._usage = {
                c: u
                for c, u in self._usage.items()
                if c in self._channels or self._used(c, now) > 1e-3
            }

    def _pump(self) -> None:
        """Dispatch waiting moves to idle workers, fairest first."""
        if self._closed:
            return
        if all(w.given_up for w in self._workers):
            self._drain_to_fallback()
            return
        idle = [w for w in self._workers if w.ready and w.current is None]
        if not idle:
            return
        waiting = [ch for ch in self._channels.values() if ch.queue and not ch.busy]
        now = time.monotonic()
        expected = self._expected
        waiting.sort(
            key=lambda c: (
                self._used(c.channel_id, now) + expected.get(c.queue[0].level, _EXPECTED_OTHER_S),
                c.order,
            )
        )
        for ch in waiting:
            req = ch.queue[0]
            worker = self._bound.get(req.key)
            if worker is None:
                worker = min(idle, key=lambda w: (len(w.keys), w.index))
            elif worker not in idle:
                continue  # its agent lives in a busy worker: the channel waits for it
            ch.queue.popleft()
            if not self._dispatch(ch, worker, req):
                return  # a worker failed: that already pumped again
            idle.remove(worker)
            if not idle:
                return

    def _dispatch(self, ch: _Channel, worker: _Worker, req: _Request) -> bool:
        """Send ``req`` to ``worker``; ``False`` if the worker turned out dead."""
        assert worker.conn is not None and self._loop is not None
        try:
            worker.conn.send(
                ("decide", req.request_id, req.key, req.level, req.seed, dict(req.obs))
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
        req.dispatched = time.monotonic()
        worker.current = req
        self._bound[req.key] = worker
        worker.keys.add(req.key)
        worker.timer = self._loop.call_later(
            req.limit_s + self.margin_s, self._overtime, worker, req
        )
        return True

    def _done(self, worker: _Worker, req: _Request) -> float:
        """The worker is free of ``req``: charge its time to the channel, free the channel.
        Returns the seconds it took."""
        worker.current = None
        self._cancel_timer(worker)
        spent = time.monotonic() - req.dispatched
        ch = self._channels.get(req.channel_id)
        if ch is not None:
            ch.busy = False
            self._charge(ch.channel_id, spent)
            self._after_move(ch)
        return spent

    def _after_move(self, ch: _Channel) -> None:
        if ch.queue:
            self._head_ready(ch)
        elif not ch.busy:
            del self._channels[ch.channel_id]

    def _withdraw(self, req: _Request) -> None:
        """A cancelled :meth:`decide`: drop the move if it has not gone to a worker."""
        ch = self._channels.get(req.channel_id)
        if ch is None or req not in ch.queue:
            return
        was_head = ch.queue[0] is req
        ch.queue.remove(req)
        if was_head and not ch.busy:
            self._after_move(ch)

    def _drain_to_fallback(self) -> None:
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

    def _launch(self, worker: _Worker) -> None:
        """Start ``worker``'s process in the admin thread (a spawn is not instant)."""
        assert self._loop is not None
        worker.starting = True
        task = asyncio.ensure_future(self._launch_async(worker))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _launch_async(self, worker: _Worker) -> None:
        assert self._loop is not None
        try:
            proc, conn = await self._loop.run_in_executor(self._admin, self._spawn)
        except Exception:
            log.exception("could not start AI worker %d", worker.index)
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
        worker.timer = self._loop.call_later(START_TIMEOUT_S, self._start_timeout, worker, proc)

    def _spawn(self) -> tuple[BaseProcess, Connection]:
        parent, child = self._ctx.Pipe(duplex=True)
        proc = self._ctx.Process(
            target=_worker_main,
            args=(child, self._worker_init),
            name="durak-ai-worker",
            daemon=True,
        )
        try:
            proc.start()
        finally:
            child.close()  # so that the worker's death reads as end-of-file here
        self._processes.add(proc)
        return proc, parent

    def _readable(self, worker: _Worker, conn: Connection) -> None:
        """Replies (or end-of-file) on a worker's pipe."""
        if self._closed:
            return
        try:
            while worker.conn is conn and conn.poll():
                self._message(worker, conn.recv())
        except (EOFError, OSError):
            if worker.conn is conn:
                self._worker_failed(worker, "it exited")

    def _message(self, worker: _Worker, msg: tuple[Any, ...]) -> None:
        kind = msg[0]
        if kind == "ready":
            worker.ready = True
            worker.start_failures = 0
            self._cancel_timer(worker)
            self._pump()
            return
        req = worker.current
        if req is None or req.request_id != msg[1]:
            return  # a reply nobody waits for any more
        spent = self._done(worker, req)
        if kind == "ok":
            old = self._expected.get(req.level, spent)
            self._expected[req.level] = 0.8 * old + 0.2 * spent
            if not req.future.done():
                req.future.set_result(msg[2])
        else:
            self._fallback_move(req, f"the agent raised {msg[2]}")
        self._pump()

    def _overtime(self, worker: _Worker, req: _Request) -> None:
        if worker.current is req:
            self._worker_failed(
                worker, f"it ran past the hard limit of {req.limit_s:.2f} s + {self.margin_s:.2f} s"
            )

    def _start_timeout(self, worker: _Worker, proc: BaseProcess) -> None:
        if worker.process is proc and not worker.ready:
            self._worker_failed(worker, f"it did not start within {START_TIMEOUT_S:.0f} s")

    def _worker_failed(self, worker: _Worker, reason: str) -> None:
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
        log.warning("AI worker %d (pid %s) replaced: %s", worker.index, pid, reason)
        if req is not None:
            self._fallback_move(req, f"its worker failed: {reason}")
        if self._closed:
            return
        if was_ready:
            worker.start_failures = 0
            self._launch(worker)
        else:
            self._start_failed(worker, reason)
        self._pump()

    def _start_failed(self, worker: _Worker, reason: str) -> None:
        worker.start_failures += 1
        if worker.start_failures >= MAX_START_FAILURES:
            worker.given_up = True
            log.error(
                "AI worker %d failed to start %d times (%s): given up",
                worker.index,
                worker.start_failures,
                reason,
            )
            self._pump()
        elif not self._closed:
            self._launch(worker)

    def _detach(self, worker: _Worker) -> None:
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
    def _cancel_timer(worker: _Worker) -> None:
        if worker.timer is not None:
            worker.timer.cancel()
            worker.timer = None

    # ------------------------------------------------------------------ fallback
    def _fallback_move(self, req: _Request, reason: str) -> None:
        """Answer ``req`` with the casual move, computed in the fallback thread."""
        log.warning(
            "AI %s failed in channel %d (%s): playing the %s move",
            req.level,
            req.channel_id,
            reason,
            FALLBACK_LEVEL,
        )
        if req.future.done() or self._closed:
            return
        assert self._loop is not None
        try:
            fut = self._loop.run_in_executor(self._fallback, _casual_move, req.seed, req.obs)
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
                    req.channel_id,
                    exc,
                )
                req.future.set_exception(exc)
            else:
                req.future.set_result(done.result())

        fut.add_done_callback(settle)


# ---------------------------------------------------------------------------------- threads
class ThreadAI:
    """The same interface as :class:`AIPool` on one thread of this process: no processes to
    start, so service tests and the terminal stay fast.  Not for production: agents share the
    GIL with the event loop, and a move past its hard limit cannot be stopped (its answer is
    replaced by the casual move, but the thread stays busy).  Agents are kept per (game, seat)
    as in the pool; an agent that raises is dropped and the casual move is played."""

    def __init__(self, *, margin_s: float = DEFAULT_MARGIN_S) -> None:
        self.margin_s = margin_s
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="durak-ai")
        self._agents: dict[_Key, tuple[str, int, Any]] = {}
        self._closed = False

    def _choose(self, key: _Key, level: str, seed: int, obs: Mapping[str, Any]) -> str:
        from rules_engine.ai import make_agent

        held = self._agents.get(key)
        try:
            if held is None or held[0] != level or held[1] != seed:
                held = (level, seed, make_agent(level, seed=seed))
                self._agents[key] = held
            text = held[2].choose(obs)
            if not isinstance(text, str):
                raise TypeError(f"the agent answered {type(text).__name__}, not str")
            return text
        except Exception:
            self._agents.pop(key, None)
            raise

    async def decide(
        self,
        channel_id: int,
        game_key: GameKey,
        seat: int,
        level: str,
        seed: int,
        observation: Mapping[str, Any],
        hard_limit_s: float | None = None,
    ) -> str:
        """As :meth:`AIPool.decide`."""
        if self._closed:
            raise AIPoolClosed("the AI runner is closed")
        loop = asyncio.get_running_loop()
        limit = (hard_limit(level) if hard_limit_s is None else hard_limit_s) + self.margin_s
        try:
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for can swallow a cancellation
            # that arrives as the decision completes, and the service's close() then waits
            # forever for a task that goes on to sleep on the clock
            async with asyncio.timeout(limit):
                return await loop.run_in_executor(
                    self._executor, self._choose, (game_key, seat), level, seed, observation
                )
        except Exception as exc:  # including the timeout
            log.warning(
                "AI %s failed in channel %d (%r): playing the %s move",
                level,
                channel_id,
                exc,
                FALLBACK_LEVEL,
            )
            return await loop.run_in_executor(None, _casual_move, seed, observation)

    def forget(self, game_key: GameKey) -> None:
        """As :meth:`AIPool.forget`."""
        for key in [k for k in self._agents if k[0] == game_key]:
            self._agents.pop(key, None)

    async def close(self) -> None:
        """As :meth:`AIPool.close` (a move still thinking is left to finish on its own)."""
        self._closed = True
        self._executor.shutdown(wait=False, cancel_futures=True)
