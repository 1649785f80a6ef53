"""What is stored about one user, and how their seats read once they are forgotten: the pure
half of :meth:`Storage.player_data` and :meth:`Storage.forget_player` (``/durak privacy``,
``/durak forget-me``).

A Discord user id is global, so both look at every server.  The user's id and display name
are stored in these places (see :mod:`bot.storage.migrations`):

- ``games.seats`` (JSON): every game they were seated in, running, finished or stopped;
- ``game_players``: their result in each finished game (their stats);
- ``forfeits``: the games they left or were kicked from;
- ``ratings`` and ``rating_history``: their ratings and each rated game's change;
- ``series`` (the host) and ``series_players``: the series they hosted or sat in;
- ``lobbies.data`` (JSON): the open lobbies they host or sit in.

Live games keep no id of their own: their seats are those of their ``games`` row and their
series (``live_games.snapshot`` and ``meta`` hold seat numbers only), and server settings
store no user id.

The JSON columns are searched with a ``LIKE`` on the id's digits, then read: a match inside
another number is dropped here (:func:`seats_of`, :func:`lobby_has`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.player_records import PrivacyView, ServerRecords, StoredRating
from bot.ratings import Rating
from bot.seating import FORMER_PLAYER_ID, LobbySeat
from bot.storage.records import lobby_from_json, seats_from, seats_json

__all__ = [
    "FORMER_NAME",
    "PlayerData",
    "digits_pattern",
    "forgotten_seats",
    "lobby_has",
    "seats_of",
]

log = logging.getLogger(__name__)

#: The name stored in place of a forgotten player's (with :data:`FORMER_PLAYER_ID`): none.
#: An adapter names such a seat itself ("a former player"), in the reader's language.
FORMER_NAME = ""


def digits_pattern(user_id: int) -> str:
    """The ``LIKE`` pattern that finds ``user_id`` in a JSON column (and, at times, a longer
    number containing its digits: the rows found are read again)."""
    return f"%{int(user_id)}%"


def seats_of(seats_text: str, user_id: int) -> list[LobbySeat] | None:
    """The seats of a ``games.seats`` value if ``user_id`` sits in one of them, else
    ``None`` (also for a value that cannot be read, which is logged)."""
    try:
        seats = seats_from(json.loads(seats_text))
    except (ValueError, KeyError, TypeError, AttributeError):
        log.error("a game's seats cannot be read: %.80r", seats_text)
        return None
    return seats if any(s.user_id == user_id for s in seats) else None


def forgotten_seats(seats: Sequence[LobbySeat], user_id: int) -> str:
    """``seats`` as stored in ``games.seats``, with ``user_id``'s seat a former player's:
    the seat stays (so the game still replays, and the other seats keep their numbers), its
    id and name are gone."""
    return seats_json(
        [
            LobbySeat(FORMER_PLAYER_ID, FORMER_NAME, team=s.team) if s.user_id == user_id else s
            for s in seats
        ]
    )


def lobby_has(channel_id: int, guild_id: int, data: str, user_id: int) -> str | None:
    """The name ``user_id`` has in a stored lobby (as its host or in a seat), or ``None`` if
    they are not in it (or it cannot be read, which is logged)."""
    try:
        lobby = lobby_from_json(channel_id, guild_id, data)
    except (ValueError, KeyError, TypeError, AttributeError):
        log.error("the lobby of channel %d cannot be read", channel_id)
        return None
    seat = next((s for s in lobby.seats if s.user_id == user_id), None)
    if seat is not None:
        return seat.name
    return lobby.host_name if lobby.host_id == user_id else None


@dataclass(slots=True)
class _Server:
    """What :class:`PlayerData` gathers about one server."""

    games: int = 0
    results: int = 0
    forfeits: int = 0
    series: set[int] = field(default_factory=set)
    rating_changes: int = 0
    ratings: list[StoredRating] = field(default_factory=list)
    open_channels: set[int] = field(default_factory=set)
    first_at: float | None = None
    last_at: float | None = None


@dataclass(slots=True)
class PlayerData:
    """Gathers the rows stored about ``user_id`` into a :class:`bot.player_records.PrivacyView`."""

    user_id: int
    names: set[str] = field(default_factory=set)
    _servers: dict[int, _Server] = field(default_factory=dict)

    def _server(self, guild_id: int) -> _Server:
        return self._servers.setdefault(int(guild_id), _Server())

    def _name(self, name: object) -> None:
        if isinstance(name, str) and name:
            self.names.add(name)

    def game(
        self,
        guild_id: int,
        seats: Sequence[LobbySeat],
        started_at: float,
        ended_at: float | None,
        live_channel: int | None,
    ) -> None:
        """A game the user sits in (``live_channel``: the channel of a game still running)."""
        server = self._server(guild_id)
        server.games += 1
        for s in seats:
            if s.user_id == self.user_id:
                self._name(s.name)
        start, end = started_at, ended_at if ended_at is not None else started_at
        server.first_at = start if server.first_at is None else min(server.first_at, start)
        server.last_at = end if server.last_at is None else max(server.last_at, end)
        if live_channel is not None:
            server.open_channels.add(int(live_channel))

    def results(self, rows: Iterable[Sequence[Any]]) -> None:
        """``(guild_id, count)`` rows: the user's results (finished games in their stats)."""
        for guild_id, count in rows:
            self._server(guild_id).results += int(count)

    def forfeits(self, rows: Iterable[Sequence[Any]]) -> None:
        """``(guild_id, count)`` rows: the user's forfeits."""
        for guild_id, count in rows:
            self._server(guild_id).forfeits += int(count)

    def rating_changes(self, rows: Iterable[Sequence[Any]]) -> None:
        """``(guild_id, count)`` rows: the user's rating history."""
        for guild_id, count in rows:
            self._server(guild_id).rating_changes += int(count)

    def result_names(self, names: Iterable[object]) -> None:
        """The names stored with the user's results."""
        for name in names:
            self._name(name)

    def rating(self, guild_id: int, profile: str, mu: float, sigma: float, games: int) -> None:
        """A stored rating of the user."""
        self._server(guild_id).ratings.append(
            StoredRating(str(profile), Rating(float(mu), float(sigma)), int(games))
        )

    def series(
        self, series_id: int, guild_id: int, channel_id: int, active: bool, name: object
    ) -> None:
        """A series the user hosts or sits in (``name``: theirs there)."""
        server = self._server(guild_id)
        server.series.add(int(series_id))
        self._name(name)
        if active:
            server.open_channels.add(int(channel_id))

    def lobby(self, guild_id: int, channel_id: int, name: str) -> None:
        """An open lobby the user hosts or sits in."""
        self._server(guild_id).open_channels.add(int(channel_id))
        self._name(name)

    def view(self) -> PrivacyView:
        """What was gathered, servers by id, names and channels sorted."""
        return PrivacyView(
            user_id=self.user_id,
            names=tuple(sorted(self.names, key=str.casefold)),
            servers=tuple(
                ServerRecords(
                    guild_id=guild_id,
                    games=s.games,
                    results=s.results,
                    forfeits=s.forfeits,
                    series=len(s.series),
                    rating_changes=s.rating_changes,
                    ratings=tuple(sorted(s.ratings, key=lambda r: r.profile)),
                    open_channels=tuple(sorted(s.open_channels)),
                    first_at=s.first_at,
                    last_at=s.last_at,
                )
                for guild_id, s in sorted(self._servers.items())
            ),
        )
