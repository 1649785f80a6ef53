"""A series' standings in words: its title (games and draws played) and each seat's losses,
fewest first, with the last game's durak marked."""

from __future__ import annotations

from dataclasses import dataclass

from bot.views import SeriesView
from present.catalog import Catalog
from present.names import seat_names
from present.style import PLAIN, Style

__all__ = ["Standing", "standings", "standings_title"]


@dataclass(frozen=True, slots=True)
class Standing:
    """One seat of a series' standings, in words."""

    seat: int
    name: str  #: as :func:`present.names.seat_names` names it
    ai: bool  #: an AI seat
    losses: int
    losses_text: str  #: "{count} losses"
    note: str | None  #: "durak of the last game" (or of the losing team), or ``None``


def standings_title(series: SeriesView, t: Catalog) -> str:
    """ "Series: {count} games", with " · {count} draws" when there were draws."""
    title = t.nfill("Series: {count} game", "Series: {count} games", series.games)
    if series.draws:
        title += " · " + t.nfill("{count} draw", "{count} draws", series.draws)
    return title


def standings(series: SeriesView, t: Catalog, style: Style = PLAIN) -> list[Standing]:
    """Every seat of ``series``, fewest losses first (then in seat order); names made safe by
    ``style.escape``."""
    in_seat_order = sorted(series.standings, key=lambda e: e.seat)
    names = dict(
        zip((e.seat for e in in_seat_order), seat_names(in_seat_order, t, style), strict=True)
    )
    last = t.gettext("durak of the last game")
    if series.teams != "none":
        last = t.gettext("in the team that lost the last game")
    losers = set(series.last_losers) or (
        {series.last_loser} if series.last_loser is not None else set()
    )
    return [
        Standing(
            seat=e.seat,
            name=names[e.seat],
            ai=e.ai_level is not None,
            losses=e.losses,
            losses_text=t.nfill("{count} loss", "{count} losses", e.losses),
            note=last if e.seat in losers else None,
        )
        for e in sorted(series.standings, key=lambda e: (e.losses, e.seat))
    ]
