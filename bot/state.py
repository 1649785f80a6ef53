"""The service's in-memory state per channel (mutated under the channel's lock only)."""

from __future__ import annotations

import json
from collections.abc import Container, Sequence
from dataclasses import dataclass, field

from bot.clock import Timer
from bot.limits import DEFAULT_TIMEOUT
from bot.storage import LobbyRecord, SeriesRecord
from bot.views import ActionRecord, LobbyOptions, LobbySeat
from bot.votes import Forfeit, StopVote
from rules_engine import Game, Rules, snapshot

__all__ = ["ChannelState", "GameState", "LobbyState", "human_plays"]


@dataclass(slots=True)
class LobbyState:
    """An open lobby of a channel (in memory; stored as a ``LobbyRecord``)."""

    channel_id: int
    guild_id: int
    host_id: int
    host_name: str
    options: LobbyOptions
    rules: Rules
    turn_timeout: int
    seats: list[LobbySeat]
    created_at: float

    def new_series(self, profile: str, now: float) -> SeriesRecord:
        """The series this lobby starts (not stored yet: no id), seats in lobby order."""
        seats = list(self.seats)
        return SeriesRecord(
            None,
            self.channel_id,
            self.guild_id,
            self.host_id,
            self.host_name,
            self.options,
            self.rules.to_dict(),
            profile,
            seats,
            [0] * len(seats),
            created_at=now,
        )

    def record(
        self, seats: list[LobbySeat] | None = None, host: tuple[int, str] | None = None
    ) -> LobbyRecord:
        host_id, host_name = host or (self.host_id, self.host_name)
        return LobbyRecord(
            self.channel_id,
            self.guild_id,
            host_id,
            host_name,
            self.options,
            list(self.seats if seats is None else seats),
            self.created_at,
        )


@dataclass(slots=True)
class GameState:
    """A game of a series: live, or the finished last game kept for the table view."""

    game_id: int
    game: Game
    seed: int
    started_at: float
    deadline: float | None = None
    timeouts: list[int] = field(default_factory=list)
    autopilot: list[bool] = field(default_factory=list)
    recent: tuple[ActionRecord, ...] = ()
    timer: Timer | None = None
    aborted: bool = False
    revision: int = 0  # the live row's revision this process holds (storage fencing)
    #: Forfeited seats (left or kicked): the ``casual`` AI plays them to the end.
    forfeits: dict[int, Forfeit] = field(default_factory=dict)
    #: The open stop vote, if any, and the timer that closes it when it lapses.
    vote: StopVote | None = None
    vote_timer: Timer | None = None
    #: The table cannot be shown (the bot may not post or edit it): no turn timer runs and no
    #: AI seat moves until the game is resumed (see ``GameService.pause_timers``).
    paused: bool = False
    #: Seconds that were left of the waiting human's turn when it was paused.
    paused_left: float | None = None

    def human_waits(self, series: SeriesRecord) -> bool:
        """Whether the seat to act is a human who plays it now (so a turn deadline runs)."""
        seat = self.game.to_act
        if seat is None or self.aborted:
            return False
        return human_plays(series.seats, seat, self.autopilot, self.forfeits)

    def disarm(self) -> None:
        """Cancel the turn timer (or the retry timer), if any."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def close_vote(self) -> None:
        """Drop the open stop vote, if any, and its timer."""
        if self.vote_timer is not None:
            self.vote_timer.cancel()
            self.vote_timer = None
        self.vote = None

    def snapshot_json(self, game: Game | None = None) -> str:
        """JSON of :func:`rules_engine.snapshot` for ``game`` (default: the current one)."""
        return json.dumps(
            snapshot(self.game if game is None else game),
            ensure_ascii=False,
            separators=(",", ":"),
        )

    def meta(
        self,
        *,
        remaining: float | None = None,
        deadline: float | None = None,
        timeouts: list[int] | None = None,
        autopilot: list[bool] | None = None,
        recent: tuple[ActionRecord, ...] | None = None,
    ) -> str:
        """The JSON of the live row's ``meta`` column (timer state and table history)."""
        recent = self.recent if recent is None else recent
        return json.dumps(
            {
                "seed": self.seed,
                "started_at": self.started_at,
                "deadline": deadline,
                "remaining": remaining,
                "timeouts": self.timeouts if timeouts is None else timeouts,
                "autopilot": self.autopilot if autopilot is None else autopilot,
                "recent": [
                    [r.seat, r.kind.value, [str(c) for c in r.cards], r.auto] for r in recent
                ],
            },
            ensure_ascii=False,
        )


@dataclass(slots=True)
class ChannelState:
    """Everything the service holds for one channel: a lobby, or a series and its game."""

    channel_id: int
    guild_id: int
    #: The open lobby (then no series), if any.
    lobby: LobbyState | None = None
    #: The series, its rules and turn timeout (kept between its games).
    series: SeriesRecord | None = None
    rules: Rules | None = None
    turn_timeout: int = DEFAULT_TIMEOUT
    #: The running game, or the last finished one (shown until a rematch).
    game: GameState | None = None

    @property
    def playing(self) -> bool:
        """A game runs (not finished, not stopped)."""
        return self.game is not None and not self.game.game.finished and not self.game.aborted

    @property
    def empty(self) -> bool:
        """Nothing is left in the channel (no lobby, no series, no game, hence no timer)."""
        return self.lobby is None and self.series is None and self.game is None


def human_plays(
    seats: Sequence[LobbySeat], seat: int, autopilot: Sequence[bool], forfeits: Container[int]
) -> bool:
    """Whether ``seat``'s player plays it now: a human seat, not on autopilot, not forfeited."""
    return seats[seat].ai_level is None and not autopilot[seat] and seat not in forfeits
