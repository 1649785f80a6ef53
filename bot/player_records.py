"""A player's records as the storage reads them: totals per rule profile and per AI level,
ratings, a leaderboard row, and everything stored about a player (for ``privacy`` and
``forget-me``).

Plain frozen values that the storage returns and the service and its views carry (below both:
:mod:`bot.storage` and :mod:`bot.views` import them from here).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.ratings import Rating

__all__ = [
    "AiLevelStats",
    "LeaderboardRow",
    "PrivacyView",
    "ProfileStats",
    "ServerRecords",
    "StoredRating",
]


@dataclass(frozen=True, slots=True)
class ProfileStats:
    """A player's totals under one rule profile (``forfeits`` are among the ``losses`` once
    the forfeited game has ended), and their rating there (``None``: no rated game in that
    profile yet)."""

    profile: str
    games: int
    losses: int
    draws: int
    forfeits: int = 0
    rating: Rating | None = None
    rated_games: int = 0

    @property
    def loss_rate(self) -> float:
        return self.losses / self.games if self.games else 0.0


@dataclass(frozen=True, slots=True)
class AiLevelStats:
    """A player's games with an AI seat of ``level`` (a game with two levels counts for
    each)."""

    level: str
    games: int
    losses: int
    draws: int

    @property
    def loss_rate(self) -> float:
        return self.losses / self.games if self.games else 0.0


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """A ranked player: their rating (``mu``, ``sigma``, ``rated_games``) and their totals in
    the leaderboard's profile (``games``, ``losses``, ``draws``)."""

    rank: int
    user_id: int
    name: str
    games: int
    losses: int
    draws: int
    loss_rate: float
    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    rated_games: int = 0

    @property
    def rating(self) -> Rating:
        return Rating(self.mu, self.sigma)

    @property
    def display(self) -> int:
        """The conservative estimate players see (``mu - 3 sigma``, whole)."""
        return self.rating.display


@dataclass(frozen=True, slots=True)
class StoredRating:
    """One stored rating of a player: theirs in one rule ``profile`` of a server."""

    profile: str
    rating: Rating
    games: int  # rated games


@dataclass(frozen=True, slots=True)
class ServerRecords:
    """What is stored about a player in one server (``guild_id``).

    ``games``: the games they were seated in (running, finished or stopped); ``results``: the
    finished games counted in their stats; ``rating_changes``: their rating history rows;
    ``series``: the series they sat in or hosted; ``open_channels``: the channels where they
    are in a lobby, or a series or game that has not ended; ``first_at``/``last_at``: when
    their first game started and their last one ended (epoch seconds)."""

    guild_id: int
    games: int = 0
    results: int = 0
    forfeits: int = 0
    series: int = 0
    rating_changes: int = 0
    ratings: tuple[StoredRating, ...] = ()
    open_channels: tuple[int, ...] = ()
    first_at: float | None = None
    last_at: float | None = None


@dataclass(frozen=True, slots=True)
class PrivacyView:
    """Everything stored about one Discord user, across every server (``/durak privacy``):
    the display names stored with their id, and their records per server."""

    user_id: int
    names: tuple[str, ...]
    servers: tuple[ServerRecords, ...]

    @property
    def empty(self) -> bool:
        """Nothing is stored about the user."""
        return not self.names and not self.servers

    @property
    def open_channels(self) -> tuple[int, ...]:
        """The channels where the user is in a lobby, series or game that has not ended."""
        return tuple(c for s in self.servers for c in s.open_channels)

    @property
    def games(self) -> int:
        """The games the user was seated in, in every server."""
        return sum(s.games for s in self.servers)

    @property
    def ratings(self) -> int:
        """The ratings stored for the user, in every server."""
        return sum(len(s.ratings) for s in self.servers)
