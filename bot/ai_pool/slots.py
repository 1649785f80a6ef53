"""The AI pool's records (:mod:`bot.ai_pool.pool`): a move or a review step waiting for a
worker, a channel's queue of moves, a worker slot."""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from bot.ai_pool.base import AgentKey, Move, ReviewJob
from bot.clock import Timer
from rules_engine.ai.review import ReviewStep

__all__ = ["ChannelQueue", "Request", "ReviewRequest", "Worker"]


@dataclass(eq=False, slots=True)
class Request:
    """One move waiting for (or in) a worker."""

    move: Move
    future: asyncio.Future[str]
    request_id: int
    dispatched: float = 0.0  # on the pool's clock


@dataclass(eq=False, slots=True)
class ReviewRequest:
    """One review step waiting for (or in) a worker: below every move."""

    job: ReviewJob
    future: asyncio.Future[ReviewStep]
    request_id: int
    dispatched: float = 0.0  # on the pool's clock


@dataclass(eq=False, slots=True)
class ChannelQueue:
    """A channel's moves, played one at a time in order."""

    channel_id: int
    queue: deque[Request] = field(default_factory=deque)
    busy: bool = False  # a move in flight (in a worker)
    order: int = 0  # tie-break: when the head became ready


@dataclass(eq=False, slots=True)
class Worker:
    """A worker slot: its process and pipe when it runs, what it is doing, its failures."""

    index: int
    for_reviews: bool = False  # a review slot: never given a move (see AIPool)
    process: BaseProcess | None = None
    pid: int | None = None  # kept apart: the admin thread may close ``process`` early
    conn: Connection | None = None
    ready: bool = False
    starting: bool = False
    down: bool = False  # MAX_START_FAILURES or more failed starts in a row (see there)
    start_failures: int = 0
    current: Request | ReviewRequest | None = None
    timer: Timer | None = None
    keys: set[AgentKey] = field(default_factory=set)
