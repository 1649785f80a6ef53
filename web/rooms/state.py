"""A room as its pages see it: :class:`RoomSnapshot` (what the service holds for the room at
one moment, made once per change from the views the service gave and shared by every page of
the room) and :func:`room_json` (the protocol's ``room`` frame for one guest in their
language: docs/WEB.md, "Rooms")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from bot.service import ChannelPhase
from bot.views import LobbyView, TableView
from present.catalog import Catalog
from present.teams import team_label
from web.serialize import _rules_text, plain_names

__all__ = ["Phase", "RoomSnapshot", "phase_of", "room_json"]

#: What a room holds: a lobby, a game running, a game over (the series goes on), or nothing.
Phase = Literal["lobby", "playing", "finished", "closed"]


def phase_of(phase: ChannelPhase) -> Phase:
    """A channel's phase as the room page names it."""
    if phase is ChannelPhase.LOBBY:
        return "lobby"
    if phase is ChannelPhase.PLAYING:
        return "playing"
    if phase is ChannelPhase.FINISHED:
        return "finished"
    return "closed"


@dataclass(frozen=True, slots=True)
class RoomSnapshot:
    """A room at one moment: its phase and host, and the view that shows it (``lobby`` in a
    lobby; ``table``: the current game's, or once the room closed its last game's, for the
    final standings).  A view may be missing when the room changed while it was read (the
    next change brings it)."""

    channel_id: int
    phase: Phase
    host_id: int | None
    lobby: LobbyView | None = None
    table: TableView | None = None

    @property
    def has_game(self) -> bool:
        """Whether the page shows a game (a table token goes with the frame)."""
        return self.phase in ("playing", "finished")


def _standings(table: TableView, names: list[str]) -> list[dict[str, Any]]:
    return [{"name": names[s.seat], "losses": s.losses} for s in table.seats]


def room_json(snap: RoomSnapshot, user_id: int, cat: Catalog) -> dict[str, Any]:
    """The room as the guest ``user_id`` sees it, in ``cat``'s language."""
    room: dict[str, Any] = {
        "phase": snap.phase,
        "seats": [],
        "max_seats": None,
        "host": snap.host_id == user_id,
        "seat": None,
        "can_start": False,
        "rules_text": None,
        "turn_timeout": None,
        "series_id": None,
        "game": None,
        "standings": None,
        "games": None,
        "stop_vote": None,
        "teams": None,
        "team_size": 0,
    }
    lobby, table = snap.lobby, snap.table
    if snap.phase == "lobby" and lobby is not None:
        names = plain_names(lobby.seats, cat)
        room["seats"] = [
            {
                "seat": i,
                "name": names[i],
                "ai_level": s.ai_level,
                "you": s.user_id == user_id,
                "host": s.user_id is not None and s.user_id == lobby.host_id,
                "left": False,
                "team": s.team,
            }
            for i, s in enumerate(lobby.seats)
        ]
        if lobby.team_size:
            room["teams"] = [{"team": team, "label": team_label(team, cat)} for team in (0, 1)]
            room["team_size"] = lobby.team_size
        room.update(
            seat=next((i for i, s in enumerate(lobby.seats) if s.user_id == user_id), None),
            max_seats=lobby.max_seats,
            can_start=lobby.can_start,
            rules_text=_rules_text(lobby.rules, cat),
            turn_timeout=lobby.turn_timeout,
        )
    elif snap.has_game and table is not None:
        names = plain_names(table.seats, cat)
        room["seats"] = [
            {
                "seat": s.seat,
                "name": names[s.seat],
                "ai_level": s.ai_level,
                "you": s.user_id == user_id,
                "host": s.user_id is not None and s.user_id == snap.host_id,
                "left": s.forfeited,
                "team": s.team,
            }
            for s in table.seats
        ]
        room.update(
            seat=next(
                (s.seat for s in table.seats if s.user_id == user_id and not s.forfeited), None
            ),
            max_seats=len(table.seats),
            rules_text=_rules_text(table.rules, cat),
            turn_timeout=table.turn_timeout,
            series_id=table.series_id,
            game=table.game_id,
            standings=_standings(table, names),
            games=table.series.games if table.series is not None else None,
            stop_vote=list(table.stop_vote) if table.stop_vote else None,
        )
    elif table is not None:  # closed after a game: its last standings
        room["standings"] = _standings(table, plain_names(table.seats, cat))
    return room
