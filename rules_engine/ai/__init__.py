"""AI players.  Every level sees only its seat's observation (RULES.md §8).

Use :func:`make_agent` with a level of :data:`LEVELS` (the table in
:mod:`rules_engine.ai.levels`)::

    agent = make_agent(DEFAULT_AI_LEVEL, seed=1)
    text = agent.choose(observation(game, seat))   # one of obs["legal"]

The expert takes ``budget_s=`` (its hard per-move limit in seconds, default 0.9) and
``think_s=`` (its normal thinking time, default 0.3).
"""

from __future__ import annotations

from rules_engine.ai.base import Agent
from rules_engine.ai.levels import (
    AUTOPILOT_LEVEL,
    DEFAULT_AI_LEVEL,
    FALLBACK_LEVEL,
    LEVELS,
    OFFERED_LEVELS,
    AILevel,
    counts_iterations,
    make_agent,
    takes_option,
    thinks_by_clock,
)

__all__ = [
    "AUTOPILOT_LEVEL",
    "DEFAULT_AI_LEVEL",
    "FALLBACK_LEVEL",
    "LEVELS",
    "OFFERED_LEVELS",
    "AILevel",
    "Agent",
    "counts_iterations",
    "make_agent",
    "takes_option",
    "thinks_by_clock",
]
