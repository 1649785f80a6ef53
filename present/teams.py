"""The table options in words (RULES.md §10): a team's name, each seat's team, the trumps
shown this round, and the pack's size.

- :func:`team_label`: "Team 1" / "Team 2" (the lobby, where the seats are not final yet);
- :func:`team_name`: "Team Ann & Bob" (a game's team, by its players' names);
- :func:`lobby_teams`: each team of a lobby with its players, "Team 1: Ann, Bob";
- :func:`shown_texts`: "Ann showed 9♦" for each trump shown this round;
- :func:`pack_text`: "36-card pack".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.views import LobbyView, TableView
from present.catalog import Catalog
from present.names import seat_name, seat_names
from present.style import PLAIN, Style

__all__ = ["lobby_teams", "pack_text", "shown_texts", "team_label", "team_name"]


def team_label(team: int, t: Catalog) -> str:
    """A lobby's team by number: "Team 1" (team 0) or "Team 2" (team 1)."""
    return t.fill("Team {name}", name=str(team + 1))


def team_name(seats: Iterable[int], names: Sequence[str], t: Catalog, style: Style = PLAIN) -> str:
    """A game's team by its players: "Team Ann & Bob" (``names`` name the seats)."""
    members = " & ".join(style.name(seat_name(names, s, t)) for s in sorted(seats))
    return t.fill("Team {name}", name=members)


def lobby_teams(view: LobbyView, t: Catalog, style: Style = PLAIN) -> list[str]:
    """Each team of a lobby played in teams with its players ("Team 1: Ann, Bob"; a team
    with nobody yet: "Team 2: nobody yet"); empty without teams."""
    if view.teams == "none":
        return []
    names = seat_names(view.seats, t, style)
    lines = []
    for team in (0, 1):
        members = [style.name(n) for n, s in zip(names, view.seats, strict=True) if s.team == team]
        who = ", ".join(members) if members else t.gettext("nobody yet")
        lines.append(t.fill("{team}: {players}", team=team_label(team, t), players=who))
    return lines


def shown_texts(
    view: TableView, names: Sequence[str], t: Catalog, style: Style = PLAIN
) -> list[str]:
    """The trumps shown this round (RULES.md §10.2), one phrase each: "Ann showed 9♦"."""
    return [
        t.fill(
            "{name} showed {cards}",
            name=style.name(seat_name(names, shown.seat, t)),
            cards=style.cards((shown.card,)),
        )
        for shown in view.round_shown
    ]


def pack_text(deck: int, t: Catalog) -> str:
    """The pack's size: "36-card pack"."""
    return t.fill("{deck}-card pack", deck=deck)
