"""Test-only agent levels, registered inside the pool's workers by ``worker_init``.

``AIPool(worker_init="tests.aipool.helpers:register")`` calls :func:`register` in each worker.
Behaviour is steered through extra keys of the observation (agents ignore unknown keys):

* ``test-crash``: the worker process dies (``os._exit``) mid-move.
* ``test-raise``: the agent raises.
* ``test-sleep``: sleeps ``obs["test_sleep_s"]`` seconds, then plays the casual move.
* ``test-pid``: answers ``"pid <worker pid> moves <moves this agent made>"`` (not an action:
  lets tests see where an agent lives and whether its state is kept).
"""

from __future__ import annotations

import os
import time

from rules_engine.ai.base import Agent, Observation, register_level
from rules_engine.ai.casual import CasualAgent


class CrashAgent(Agent):
    level = "test-crash"

    def choose(self, obs: Observation) -> str:
        os._exit(13)


class RaiseAgent(Agent):
    level = "test-raise"

    def choose(self, obs: Observation) -> str:
        raise RuntimeError("test agent failure")


class SleepAgent(CasualAgent):
    level = "test-sleep"

    def choose(self, obs: Observation) -> str:
        time.sleep(float(obs.get("test_sleep_s", 0.0)))
        return super().choose(obs)


class PidAgent(Agent):
    level = "test-pid"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.moves = 0

    def choose(self, obs: Observation) -> str:
        self.moves += 1
        return f"pid {os.getpid()} moves {self.moves}"


def register() -> None:
    """Register the test levels in this process (the worker initializer)."""
    for cls in (CrashAgent, RaiseAgent, SleepAgent, PidAgent):
        register_level(cls.level, cls)
