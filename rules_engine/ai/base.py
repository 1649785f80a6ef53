"""The agent interface and the level registry."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["LEVELS", "Agent", "make_agent", "register_level"]

Observation = Mapping[str, Any]


class Agent(ABC):
    """An AI seat.  It receives observations only, and answers with one of ``obs["legal"]``."""

    level: str = "?"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def new_game(self) -> None:  # noqa: B027 (optional hook)
        """Forget everything about the previous game."""

    @abstractmethod
    def choose(self, obs: Observation) -> str:
        """The chosen action as ``"SEAT ACTION"`` text, one of ``obs["legal"]``."""


_FACTORIES: dict[str, Callable[..., Agent]] = {}
LEVELS: list[str] = []


def register_level(name: str, factory: Callable[..., Agent]) -> None:
    if name not in _FACTORIES:
        LEVELS.append(name)
    _FACTORIES[name] = factory


def make_agent(level: str, seed: int | None = None, **options: Any) -> Agent:
    """A new agent of ``level`` (``beginner``, ``casual``, ``counter``, ``expert``, ``ismcts``)."""
    _load_levels()
    try:
        factory = _FACTORIES[level]
    except KeyError:
        raise ValueError(f"unknown AI level {level!r}: choose one of {', '.join(LEVELS)}") from None
    return factory(seed=seed, **options)


def _load_levels() -> None:
    # Imported lazily so that each level module may import this one.
    from rules_engine.ai import beginner, casual, counter, expert, ismcts  # noqa: F401
