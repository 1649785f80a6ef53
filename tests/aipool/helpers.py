"""Test-only agent levels: :data:`TEST_LEVELS` is the engine's table plus these.

``AIPool(levels=TEST_LEVELS)`` and ``ThreadAI(levels=TEST_LEVELS)`` know them.  Behaviour is
steered through extra keys of the observation (agents ignore unknown keys):

* ``test-crash``: the worker process dies (``os._exit``) mid-move.
* ``test-raise``: the agent raises.
* ``test-sleep``: sleeps ``obs["test_sleep_s"]`` seconds, then plays the casual move; it
  creates the file ``obs["test_started_file"]`` (if given) when the move starts, and
  ``obs["test_done_file"]`` when it is finished.
* ``test-pid``: answers ``"pid <worker pid> moves <moves this agent made>"`` (not an action:
  lets tests see where an agent lives and whether its state is kept).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import MappingProxyType

from rules_engine.ai import LEVELS, AILevel
from rules_engine.ai.base import Agent, Observation
from rules_engine.ai.casual import CasualAgent


class CrashAgent(Agent):
    def choose(self, obs: Observation) -> str:
        os._exit(13)


class RaiseAgent(Agent):
    def choose(self, obs: Observation) -> str:
        raise RuntimeError("test agent failure")


class SleepAgent(CasualAgent):
    def choose(self, obs: Observation) -> str:
        if "test_started_file" in obs:
            Path(str(obs["test_started_file"])).touch()
        time.sleep(float(obs.get("test_sleep_s", 0.0)))
        if "test_done_file" in obs:
            Path(str(obs["test_done_file"])).touch()
        return super().choose(obs)


class PidAgent(Agent):
    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.moves = 0

    def choose(self, obs: Observation) -> str:
        self.moves += 1
        return f"pid {os.getpid()} moves {self.moves}"


def _test_level(name: str, make: type[Agent]) -> AILevel:
    return AILevel(name, make, hard_limit_s=1.0, expected_s=0.05, offered=False)


#: The engine's levels and the test levels.
TEST_LEVELS = MappingProxyType(
    {
        **LEVELS,
        "test-crash": _test_level("test-crash", CrashAgent),
        "test-raise": _test_level("test-raise", RaiseAgent),
        "test-sleep": _test_level("test-sleep", SleepAgent),
        "test-pid": _test_level("test-pid", PidAgent),
    }
)
