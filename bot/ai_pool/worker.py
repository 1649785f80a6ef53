"""The worker process of the AI pool, and what the parent needs to start and reap it."""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from bot.ai_pool.base import AgentCache, ReviewJob, run_review_step
from rules_engine.ai import AILevel
from rules_engine.ai.review import ReviewError

__all__ = ["kill_all", "load_callable", "worker_main"]


def worker_main(
    conn: Connection, worker_init: str | None, levels: Mapping[str, AILevel], nice: int = 0
) -> None:
    """A worker process: keep agents per (game, seat), answer ``decide`` and ``review``
    requests in order.

    Messages in: ``("decide", request_id, key, level, seed, observation)``,
    ``("review", request_id, ReviewJob)``, ``("forget", [game_key, ...])``, ``("stop",)``.
    Out: ``("ready", pid)`` once, then ``("ok", request_id, text)`` or ``("err", request_id,
    description)`` per decide; ``("ok", request_id, ReviewStep)``, ``("bad", request_id,
    message)`` (a :class:`ReviewError`: the record cannot be reviewed) or ``("err", …)`` per
    review step.  ``nice``: lower this process's CPU priority by that much (review workers).
    """
    # Ctrl+C reaches the whole process group; the parent stops its workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if nice:  # a review worker: the moves' processes get the CPU first
        with contextlib.suppress(OSError):
            os.nice(nice)
    if worker_init:
        load_callable(worker_init)()
    agents = AgentCache(levels)
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
            agents.forget(set(msg[1]))
            continue
        request_id = msg[1]
        reply: tuple[Any, ...]
        try:
            if kind == "review":
                reply = _review(request_id, msg[2])
            else:
                _, _, key, level, seed, obs = msg
                reply = ("ok", request_id, agents.choose(key, level, seed, obs))
        except MemoryError:
            conn.send(("err", request_id, "MemoryError"))
            os._exit(70)  # a process that ran out of memory is replaced
        except Exception as exc:
            reply = ("err", request_id, f"{type(exc).__name__}: {exc}")
        conn.send(reply)


def _review(request_id: int, job: ReviewJob) -> tuple[Any, ...]:
    try:
        return ("ok", request_id, run_review_step(job))
    except ReviewError as exc:
        return ("bad", request_id, str(exc))


def load_callable(spec: str) -> Callable[[], object]:
    """``"package.module:function"`` → the function."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"worker_init must look like 'package.module:function', not {spec!r}")
    func = getattr(importlib.import_module(module_name), attr)
    if not callable(func):
        raise TypeError(f"worker_init {spec!r} is not callable")
    return func  # type: ignore[no-any-return]


def kill_all(processes: set[BaseProcess]) -> None:
    """Last resort (garbage collection, interpreter exit): kill workers still running."""
    for proc in list(processes):
        with contextlib.suppress(Exception):
            if proc.is_alive():
                proc.kill()
            proc.join(2)
    processes.clear()
