"""The AI levels: one static table of what each level is and what it costs.

Every part of the project that names, offers, builds or schedules an AI level reads it from
here: the service and the cogs (which levels players may pick, which one plays for an absent
player), the worker pool (hard limit and expected time per move), the terminal, the benches,
the agent protocol and the tournament.  The table is read-only; a test that needs other levels
passes its own mapping of :class:`AILevel` (``make_agent(..., levels=...)``,
``AIPool(levels=...)``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from rules_engine.ai.base import Agent
from rules_engine.ai.beginner import BeginnerAgent
from rules_engine.ai.casual import CasualAgent
from rules_engine.ai.counter import CounterAgent
from rules_engine.ai.expert import DEFAULT_BUDGET_S, DEFAULT_THINK_S, ExpertAgent
from rules_engine.ai.ismcts import ISMCTSAgent

__all__ = [
    "AUTOPILOT_LEVEL",
    "DEFAULT_AI_LEVEL",
    "FALLBACK_LEVEL",
    "LEVELS",
    "OFFERED_LEVELS",
    "AILevel",
    "counts_iterations",
    "make_agent",
    "takes_option",
    "thinks_by_clock",
]


@dataclass(frozen=True, slots=True)
class AILevel:
    """One AI level.

    :param name: the level's name (what players pick and storage records).
    :param make: ``make(seed=..., **options)`` → a new :class:`~rules_engine.ai.base.Agent`.
    :param hard_limit_s: the longest a move may think, as made with default options; past it
        (plus a margin) the pool stops the move and plays the fallback level's.
    :param expected_s: the usual time of a move, until the pool has measured it (it orders
        the waiting tables: cheap moves first).
    :param offered: whether players may pick it (``ismcts`` is a yardstick for measurements).
    """

    name: str
    make: Callable[..., Agent]
    hard_limit_s: float
    expected_s: float
    offered: bool = True


#: Every level, weakest to strongest among those offered, then the yardsticks.
LEVELS: Mapping[str, AILevel] = MappingProxyType(
    {
        level.name: level
        for level in (
            AILevel("beginner", BeginnerAgent, hard_limit_s=1.0, expected_s=0.001),
            AILevel("casual", CasualAgent, hard_limit_s=1.0, expected_s=0.001),
            AILevel("counter", CounterAgent, hard_limit_s=1.0, expected_s=0.01),
            AILevel(
                "expert", ExpertAgent, hard_limit_s=DEFAULT_BUDGET_S, expected_s=DEFAULT_THINK_S
            ),
            AILevel("ismcts", ISMCTSAgent, hard_limit_s=1.0, expected_s=0.05, offered=False),
        )
    }
)
#: The levels players may pick, weakest first.
OFFERED_LEVELS: tuple[str, ...] = tuple(name for name, lv in LEVELS.items() if lv.offered)
#: The level of a plain "add an AI" and of the terminal's other seats.
DEFAULT_AI_LEVEL: str = "beginner"
#: The level that plays for a player who is away (and for a seat whose level is unknown).
AUTOPILOT_LEVEL: str = "casual"
#: The level whose move is played when an AI move fails or runs past its hard limit: cheap
#: (well under a millisecond) and sound.
FALLBACK_LEVEL: str = "casual"


def make_agent(
    level: str,
    seed: int | None = None,
    *,
    levels: Mapping[str, AILevel] = LEVELS,
    **options: Any,
) -> Agent:
    """A new agent of ``level`` (a name in ``levels``, by default :data:`LEVELS`) made with
    ``seed`` and the level's ``options``; :class:`ValueError` for an unknown level."""
    try:
        entry = levels[level]
    except KeyError:
        raise ValueError(f"unknown AI level {level!r}: choose one of {', '.join(levels)}") from None
    return entry.make(seed=seed, **options)


def takes_option(level: str, option: str, *, levels: Mapping[str, AILevel] = LEVELS) -> bool:
    """Whether agents of ``level`` take the option ``option`` (e.g. the expert ``budget_s``,
    ismcts ``iterations``); ``False`` for an unknown level."""
    entry = levels.get(level)
    if entry is None:
        return False
    return option in inspect.signature(entry.make).parameters


def thinks_by_clock(level: str, *, levels: Mapping[str, AILevel] = LEVELS) -> bool:
    """Whether ``level`` thinks by the clock: it takes a per-move ``budget_s`` and a ``clock``
    (wall or CPU time)."""
    return takes_option(level, "budget_s", levels=levels) and takes_option(
        level, "clock", levels=levels
    )


def counts_iterations(level: str, *, levels: Mapping[str, AILevel] = LEVELS) -> bool:
    """Whether ``level`` thinks for a number of ``iterations`` rather than by the clock (a
    clock-bound level's own ``iterations`` cap would replace its clock: not counted here)."""
    return takes_option(level, "iterations", levels=levels) and not thinks_by_clock(
        level, levels=levels
    )
