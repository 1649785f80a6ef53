"""What the AI pool and the thread runner share: settings, the runner interface, and the
agents one process keeps per (game, seat)."""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from rules_engine.ai import FALLBACK_LEVEL, LEVELS, Agent, AILevel, make_agent
from rules_engine.ai.review import (
    DEFAULT_DEALS,
    GameRecord,
    GameReview,
    ReviewError,
    ReviewStep,
    assemble_review,
    review_step,
)
from rules_engine.messages import Message

__all__ = [
    "AI_WORKERS_ENV",
    "DEFAULT_MARGIN_S",
    "MAX_AI_ONLY_TABLES_PER_SERVER",
    "OTHER_EXPECTED_S",
    "OTHER_HARD_LIMIT",
    "REVIEW_STEP_LIMIT_S",
    "AIPoolClosed",
    "AIRunner",
    "AgentCache",
    "GameKey",
    "Move",
    "ReviewFailed",
    "ReviewJob",
    "ai_only_table_refusal",
    "default_workers",
    "fallback_move",
    "hard_limit",
    "run_review_step",
]

#: Environment variable with the number of worker processes.
AI_WORKERS_ENV = "AI_WORKERS"
#: AI-only tables (no human seat) one Discord server may run at once.
MAX_AI_ONLY_TABLES_PER_SERVER = 2
#: Hard per-move limit (seconds) of a level that is not in the table.
OTHER_HARD_LIMIT = 1.0
#: Expected seconds of a move of a level that is not in the table.
OTHER_EXPECTED_S = 0.05
#: Added to a move's hard limit before its worker is killed: pickling, pipes, a busy machine.
DEFAULT_MARGIN_S = 0.5

#: A review runs a decision at a time; a worker still on one decision after this many seconds
#: is killed and replaced (and the review fails).  A decision takes about 0.5 s of one core
#: at the default budget (docs/AI.md, "The review").
REVIEW_STEP_LIMIT_S = 120.0

GameKey = Hashable
AgentKey = tuple[Hashable, int]  # (game_key, seat)


class AIPoolClosed(RuntimeError):
    """The pool was closed: no more decisions."""


class ReviewFailed(RuntimeError):
    """A review could not be computed (its worker died or ran past its limit, or the review
    raised something other than :class:`~rules_engine.ai.review.ReviewError`)."""


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


def hard_limit(level: str, levels: Mapping[str, AILevel] = LEVELS) -> float:
    """The hard per-move limit in seconds of ``level`` (as made with default options)."""
    entry = levels.get(level)
    return OTHER_HARD_LIMIT if entry is None else entry.hard_limit_s


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


def fallback_move(seed: int, obs: Mapping[str, Any]) -> str:
    """The move played when an AI move fails: the fallback level's (never on the loop's
    thread)."""
    return make_agent(FALLBACK_LEVEL, seed=seed).choose(obs)


@dataclass(frozen=True, slots=True)
class Move:
    """One AI move to decide: whose, by which level, and its hard limit."""

    channel_id: int
    key: AgentKey
    level: str
    seed: int
    obs: Mapping[str, Any]
    limit_s: float


@dataclass(frozen=True, slots=True)
class ReviewJob:
    """One step of a review (:func:`~rules_engine.ai.review.review_step`): the record as
    stored (``GameRecord.to_dict()``), the seat, the step, the budget and the seed."""

    record: Mapping[str, Any]
    seat: int
    step: int
    deals: int
    seed: int
    limit_s: float = REVIEW_STEP_LIMIT_S


def run_review_step(job: ReviewJob) -> ReviewStep:
    """Run one review step (in a worker process, or the thread runner's thread)."""
    record = GameRecord.from_dict(job.record)
    return review_step(record, job.seat, job.step, deals=job.deals, seed=job.seed)


class AgentCache:
    """The agents of one process, per (game, seat): made on a seat's first move with
    ``make_agent(level, seed=seed)`` and kept while level and seed stay the same; an agent
    that raises is dropped (its state may be half-updated)."""

    def __init__(self, levels: Mapping[str, AILevel] = LEVELS) -> None:
        self._levels = levels
        self._agents: dict[AgentKey, tuple[str, int, Agent]] = {}

    def choose(self, key: AgentKey, level: str, seed: int, obs: Mapping[str, Any]) -> str:
        """The action text the agent of ``key`` chooses (it raises what the agent raises)."""
        held = self._agents.get(key)
        try:
            if held is None or held[0] != level or held[1] != seed:
                held = (level, seed, make_agent(level, seed=seed, levels=self._levels))
                self._agents[key] = held
            text = held[2].choose(obs)
            if not isinstance(text, str):
                raise TypeError(f"the agent answered {type(text).__name__}, not str")
            return text
        except Exception:
            self._agents.pop(key, None)
            raise

    def forget(self, game_keys: Collection[GameKey]) -> None:
        """Drop the agents of these games."""
        for key in [k for k in self._agents if k[0] in game_keys]:
            del self._agents[key]


class AIRunner(ABC):
    """Where AI moves are decided: :class:`~bot.ai_pool.AIPool` (worker processes) or
    :class:`~bot.ai_pool.ThreadAI` (one thread).

    :param levels: the AI levels the runner knows (default the engine's table); a move of an
        unknown level is answered by the fallback level.
    :param margin_s: added to a move's hard limit before the move is given up.
    """

    def __init__(self, *, levels: Mapping[str, AILevel], margin_s: float) -> None:
        if margin_s < 0:
            raise ValueError("margin_s must be >= 0")
        self.margin_s = margin_s
        self.levels = levels
        self._closed = False

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
        (default the level's :func:`hard_limit`) plus ``margin_s`` bounds its time; past it,
        or if the agent fails, the fallback level's move is returned.  Raises
        :class:`AIPoolClosed` after :meth:`close`, and the fallback's exception if even the
        fallback agent fails (e.g. no legal action in ``observation``).
        """
        if self._closed:
            raise AIPoolClosed("the AI runner is closed")
        limit = hard_limit(level, self.levels) if hard_limit_s is None else hard_limit_s
        move = Move(channel_id, (game_key, seat), level, seed, observation, limit)
        return await self._decide(move)

    @abstractmethod
    async def _decide(self, move: Move) -> str:
        """Decide ``move`` (the runner is open)."""

    async def review(
        self,
        record: Mapping[str, Any],
        seat: int,
        *,
        deals: int = DEFAULT_DEALS,
        seed: int = 0,
        progress: Callable[[int, int], object] | None = None,
    ) -> GameReview:
        """The review of ``seat``'s decisions in ``record`` (``GameRecord.to_dict()``), run a
        decision at a time below the live moves (:class:`~bot.ai_pool.AIPool`: in review
        workers of their own, at a lower CPU priority).
        ``progress(done, total)`` is called on the event loop after each decision.  The
        result is :func:`~rules_engine.ai.review.review_game`'s for the same arguments.

        Raises :class:`~rules_engine.ai.review.ReviewError` for a record or seat that cannot be
        reviewed, :class:`ReviewFailed` when a worker fails on it, :class:`AIPoolClosed`
        after :meth:`close`."""
        if self._closed:
            raise AIPoolClosed("the AI runner is closed")
        if deals < 2:
            raise ReviewError(f"the budget must be at least 2 sampled deals, not {deals}")
        first = await self._review_step(ReviewJob(record, seat, 0, deals, seed))
        steps = [first]
        if progress is not None:
            progress(min(1, first.total), first.total)
        for step in range(1, first.total):
            steps.append(await self._review_step(ReviewJob(record, seat, step, deals, seed)))
            if progress is not None:
                progress(step + 1, first.total)
        decisions = [s.decision for s in steps if s.decision is not None]
        return assemble_review(
            seat, deals, seed, first.finished, first.losers, decisions, first.loser
        )

    @abstractmethod
    async def _review_step(self, job: ReviewJob) -> ReviewStep:
        """Run ``job`` below the live moves (the runner is open)."""

    @abstractmethod
    def forget(self, game_key: GameKey) -> None:
        """The game ended: drop its agents."""

    @abstractmethod
    async def close(self) -> None:
        """Stop; pending and later decisions raise :class:`AIPoolClosed`."""
