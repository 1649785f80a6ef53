"""AI players.  Every level sees only its seat's observation (RULES.md §8).

Use :func:`make_agent`::

    agent = make_agent("casual", seed=1)
    text = agent.choose(observation(game, seat))   # one of obs["legal"]

Levels: ``beginner``, ``casual``, ``counter``, ``expert`` (``budget_s=`` sets the expert's hard
per-move limit in seconds, default 0.9; ``think_s=`` its normal thinking time, default 0.3).
"""

from __future__ import annotations

from rules_engine.ai.base import LEVELS, Agent, make_agent
from rules_engine.ai.base import _load_levels as _load

_load()

__all__ = ["LEVELS", "Agent", "make_agent"]
