"""The agent interface."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

__all__ = ["Agent", "Observation"]

Observation = Mapping[str, Any]


class Agent(ABC):
    """An AI seat.  It receives observations only, and answers with one of ``obs["legal"]``."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def new_game(self) -> None:  # noqa: B027 (optional hook)
        """Forget everything about the previous game."""

    @abstractmethod
    def choose(self, obs: Observation) -> str:
        """The chosen action as ``"SEAT ACTION"`` text, one of ``obs["legal"]``."""
