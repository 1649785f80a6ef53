"""What the ``/durak`` commands and the lobby offer: the AI levels with their display texts,
the rule choices, and the ranges of seats and turn timeouts.

The AI levels' names are in :mod:`present.names` (:data:`LEVEL_TEXTS`, re-exported here),
which the web table reads too: the lobby's Add AI select, AI seat names and the ``level``
choices of ``/durak addbot`` all read it.
"""

from __future__ import annotations

from discord import app_commands
from discord.app_commands import Choice, locale_str

from bot.limits import MAX_SEATS, MAX_TIMEOUT, MIN_SEATS, MIN_TIMEOUT, RULE_PROFILES, rule_choices
from cogs.i18n import CHOICES
from present.names import LEVEL_TEXTS, LevelTexts
from rules_engine.ai import OFFERED_LEVELS

__all__ = [
    "DECKS",
    "DEFAULT_LEVEL",
    "FIRST_ROUND_LIMIT",
    "LEVEL_TEXTS",
    "MAX_SEATS",
    "MAX_TIMEOUT",
    "MIN_SEATS",
    "MIN_TIMEOUT",
    "OFFERED_LEVELS",
    "RULE_PROFILES",
    "SWITCH",
    "TEAMS",
    "THROW_IN",
    "LevelTexts",
    "SeatCount",
    "SeatNumber",
    "TurnTimeout",
    "deck_choices",
    "level_choices",
    "named_choices",
]


#: The level of ``/durak addbot`` without a ``level``, and of an empty Add AI select.
DEFAULT_LEVEL = "casual"

#: Choices of the rule options (the engine's values, as :mod:`bot.limits` writes them).
THROW_IN = rule_choices("throw_in")
SWITCH = (*rule_choices("transfer"), "default")
FIRST_ROUND_LIMIT = (*rule_choices("first_round_limit"), "default")
#: The pack sizes (``"24"``, ``"36"``, ``"52"``) and the teams (``none``, ``2x2``, ``3x3``).
DECKS = rule_choices("deck")
TEAMS = rule_choices("teams")

#: ``/durak new seats``: a table's size.
SeatCount = app_commands.Range[int, MIN_SEATS, MAX_SEATS]
#: ``/durak kick seat``: a seat's number as the lobby shows it (1-based).
SeatNumber = app_commands.Range[int, 1, MAX_SEATS]
#: ``/durak new turn_timeout``: seconds per turn.
TurnTimeout = app_commands.Range[int, MIN_TIMEOUT, MAX_TIMEOUT]


def named_choices(names: tuple[str, ...]) -> list[Choice[str]]:
    """Slash command choices of ``names`` (values stay English; names from
    :data:`cogs.i18n.CHOICES`, translated by :class:`cogs.i18n.DurakTranslator`)."""
    return [Choice(name=locale_str(CHOICES.get(n, n)), value=n) for n in names]


def level_choices() -> list[Choice[str]]:
    """The ``level`` choices of ``/durak addbot``: every offered level."""
    return [
        Choice(name=locale_str(LEVEL_TEXTS[level].choice), value=level) for level in OFFERED_LEVELS
    ]


def deck_choices() -> list[Choice[int]]:
    """The ``deck`` choices of ``/durak new``: the pack sizes, as whole numbers."""
    return [Choice(name=locale_str(CHOICES[d]), value=int(d)) for d in DECKS]
