"""The names both adapters give to AI levels and to a seat's role, as gettext msgids.

The one place that names the AI levels for players: the lobby's Add AI select, AI seat names,
the ``level`` choices of ``/durak addbot`` (:mod:`cogs.choices` re-exports these) and the web
table's seats all read :data:`LEVEL_TEXTS`.  The texts are msgids written as literals (``N_``
for messages, ``NC_`` for command strings) so that Babel extracts them.  No discord.py here.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.views import Role
from present.catalog import NC_
from rules_engine.messages import N_

__all__ = ["LEVEL_TEXTS", "ROLE_NAMES", "LevelTexts"]


@dataclass(frozen=True, slots=True)
class LevelTexts:
    """How an AI level is shown (English msgids)."""

    label: str  #: its name in the lobby's select and in AI seat names ("Casual")
    description: str  #: one line under the label in the lobby's select
    choice: str  #: its choice name in ``/durak addbot`` (context ``cmd``)


#: Display texts of every AI level the adapters can show, keyed by level name.
LEVEL_TEXTS: dict[str, LevelTexts] = {
    "beginner": LevelTexts(
        N_("Beginner"), N_("Plays legal cards, prefers cheap ones"), NC_("cmd", "beginner")
    ),
    "casual": LevelTexts(
        N_("Casual"), N_("Sound habits: sheds low cards, saves trumps"), NC_("cmd", "casual")
    ),
    "counter": LevelTexts(
        N_("Counter"), N_("Tracks every card seen"), NC_("cmd", "counter (counts cards)")
    ),
    "expert": LevelTexts(
        N_("Expert"), N_("Searches the possible deals; exact endgame"), NC_("cmd", "expert")
    ),
}

#: A seat's role in a round, as the table and a replay name it.
ROLE_NAMES = {
    Role.LEADER: N_("leader"),
    Role.ATTACKER: N_("attacker"),
    Role.DEFENDER: N_("defender"),
    Role.OUT: N_("out"),
}
