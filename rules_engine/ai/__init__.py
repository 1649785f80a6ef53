"""AI players.  Every level sees only its seat's observation (RULES.md §8).

Use :func:`make_agent` with a level of :data:`LEVELS` (the table in
:mod:`rules_engine.ai.levels`)::

    agent = make_agent(DEFAULT_AI_LEVEL, seed=1)
    text = agent.choose(observation(game, seat))   # one of obs["legal"]

The expert takes ``budget_s=`` (its hard per-move limit in seconds, default 0.9) and
``think_s=`` (its normal thinking time, default 0.3).
"""

from __future__ import annotations

from rules_engine.ai.base import Agent as Agent
from rules_engine.ai.levels import AUTOPILOT_LEVEL as AUTOPILOT_LEVEL
from rules_engine.ai.levels import DEFAULT_AI_LEVEL as DEFAULT_AI_LEVEL
from rules_engine.ai.levels import FALLBACK_LEVEL as FALLBACK_LEVEL
from rules_engine.ai.levels import LEVELS as LEVELS
from rules_engine.ai.levels import OFFERED_LEVELS as OFFERED_LEVELS
from rules_engine.ai.levels import AILevel as AILevel
from rules_engine.ai.levels import counts_iterations as counts_iterations
from rules_engine.ai.levels import make_agent as make_agent
from rules_engine.ai.levels import takes_option as takes_option
from rules_engine.ai.levels import thinks_by_clock as thinks_by_clock
