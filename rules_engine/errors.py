"""The engine's three precise errors: ``ValueError`` subclasses whose messages quote the input."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # messages imports actions and cards, which import this module
    from rules_engine.messages import Message

__all__ = [
    "DurakError",
    "IllegalActionError",
    "InvalidNotationError",
    "InvalidPositionError",
    "InvalidRulesError",
]


class DurakError(ValueError):
    """Base class of every error the rules engine raises on bad input."""


class InvalidNotationError(DurakError):
    """Text that is not a card, suit, action or rule name at all (``'1♦'``, ``'attack'``)."""


class InvalidRulesError(InvalidNotationError):
    """Rule options that do not go together, or do not suit the number of players (RULES.md
    §10): teams with transfers, showing a trump without transfers, five players with 24 cards.

    ``reason`` is the :class:`~rules_engine.messages.Message` saying so to players (translate
    it); ``str(error)`` is its plain English, quoting the options given.
    """

    def __init__(self, reason: Message) -> None:
        super().__init__(str(reason))
        self.reason: Message = reason


class IllegalActionError(DurakError):
    """A well-formed action that the rules forbid now.

    ``reason`` is the :class:`~rules_engine.messages.Message` that explains the refusal to
    players (translate it); the exception's own text, ``str(error)``, is its plain English
    for logs and developers.
    """

    def __init__(self, reason: Message, action: object = None) -> None:
        super().__init__(str(reason))
        self.reason: Message = reason
        self.action = action


class InvalidPositionError(DurakError):
    """A position or setup that cannot occur: duplicate cards, bad seats, wrong trump, ..."""
