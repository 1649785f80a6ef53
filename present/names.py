"""Seat names and AI level names: who sits where, as the reader reads it.

:func:`seat_names` names the seats of any view (table, lobby, series, history, replay,
notices): a human's display name clipped to :data:`NAME_MAX`, an AI seat named after its
level in the reader's language and numbered from the second AI of a level on, a forgotten
player's seat "a former player".  :data:`LEVEL_TEXTS` is the one place that names the AI
levels (the lobby's Add AI select, AI seat names, the ``level`` choices of ``/durak addbot``,
which :mod:`cogs.choices` re-exports); :data:`ROLE_NAMES` names a seat's role.  The texts are
msgids written as literals (``N_`` for messages, ``NC_`` for command strings) so that Babel
extracts them.  No discord.py here.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.views import Role
from present.catalog import NC_, Catalog
from present.style import PLAIN, Style
from rules_engine.messages import N_, Message

__all__ = [
    "LEVEL_TEXTS",
    "NAME_MAX",
    "ROLE_NAMES",
    "LevelTexts",
    "Seated",
    "ai_label",
    "clip_name",
    "seat_name",
    "seat_names",
]

#: Display names are cut to this many characters where players read them (the service
#: allows 64).
NAME_MAX = 40


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


class Seated(Protocol):
    """A seat as the views describe it (``SeatView``, ``LobbySeat``, ``SeriesEntry``,
    ``Player``): a display name, the AI level of an AI seat, and whether it was a player's
    who asked to be forgotten."""

    @property
    def name(self) -> str:
        """The display name (the service's English name for an AI seat)."""
        ...

    @property
    def ai_level(self) -> str | None:
        """The AI level of an AI seat; ``None`` for a human."""
        ...

    @property
    def former(self) -> bool:
        """A forgotten player's seat (``/durak forget-me``): it has no name any more."""
        ...


def clip_name(name: str, limit: int = NAME_MAX) -> str:
    """A display name on one line (runs of spaces made one, ``?`` for none) cut to ``limit``
    characters, ending with "…" when cut."""
    name = " ".join(str(name).split()) or "?"
    return name if len(name) <= limit else name[: limit - 1].rstrip() + "…"


def ai_label(level: str, t: Catalog) -> str:
    """An AI level's name in the reader's language (an unknown level as it is written)."""
    texts = LEVEL_TEXTS.get(level)
    return t.gettext(texts.label) if texts else level


def seat_names(seats: Sequence[Seated], t: Catalog, style: Style = PLAIN) -> list[str]:
    """The seats' names as the reader sees them (also the names of a message's ``Seat``
    parameters), each clipped to :data:`NAME_MAX` then made safe by ``style.escape``: a
    human's display name; an AI seat named after its level in the reader's language
    (``IA Casual``), numbered from the second AI of a level on; a forgotten player's seat,
    "a former player"."""
    key = tuple((s.name, s.ai_level, s.former) for s in seats)
    return list(_names(key, t, style.escape))


@functools.lru_cache(maxsize=4096)
def _names(
    seats: tuple[tuple[str, str | None, bool], ...], t: Catalog, escape: Callable[[str], str]
) -> tuple[str, ...]:
    # cached: a table is shown after every action, and its seats rarely change
    names: list[str] = []
    count: Counter[str] = Counter()
    for name, level, former in seats:
        if former:
            names.append(escape(clip_name(t.gettext("a former player"))))
            continue
        if level is None:
            names.append(escape(clip_name(name)))
            continue
        count[level] += 1
        ai_name = t.fill("{level} AI", level=ai_label(level, t))
        numbered = ai_name if count[level] == 1 else f"{ai_name} {count[level]}"
        names.append(escape(clip_name(numbered)))
    return tuple(names)


def seat_name(names: Sequence[str], seat: int | None, t: Catalog) -> str:
    """The name of ``seat`` in ``names``, or "player N" when ``names`` has none for it."""
    if seat is not None and 0 <= seat < len(names):
        return names[seat]
    return t.render(Message("player {number}", number=(seat or 0) + 1))
