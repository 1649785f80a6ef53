"""AI players.  Every level sees only its seat's observation (RULES.md §8).

Use :func:`make_agent`::

    agent = make_agent("beginner", seed=1)
    text = agent.choose(observation(game, seat))   # one of obs["legal"]
"""

from __future__ import annotations

from rules_engine.ai.base import LEVELS, Agent, make_agent

__all__ = ["LEVELS", "Agent", "make_agent"]
