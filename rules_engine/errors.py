"""The engine's three precise errors: ``ValueError`` subclasses whose messages quote the input."""

from __future__ import annotations

__all__ = ["DurakError", "IllegalActionError", "InvalidNotationError", "InvalidPositionError"]


class DurakError(ValueError):
    """Base class of every error the rules engine raises on bad input."""


class InvalidNotationError(DurakError):
    """Text that is not a card, suit, action or rule name at all (``'1♦'``, ``'attack'``)."""


class IllegalActionError(DurakError):
    """A well-formed action that the rules forbid now; ``reason`` is written for players."""

    def __init__(self, reason: str, action: object = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.action = action


class InvalidPositionError(DurakError):
    """A position or setup that cannot occur: duplicate cards, bad seats, wrong trump, ..."""
