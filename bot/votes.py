"""Stop votes and forfeits as pure values (README, "Fair play").

- :class:`StopVote`: ``/durak stop`` on a running game opens a vote on the table; every seated
  human is a voter, the vote passes when all of them agree, and it lapses after ``timeout_s``
  (60 s).  The service holds the current value, replaces it on each press, and aborts the game
  when :attr:`StopVote.passed`.  A member with Manage Channel forces a stop without a vote
  (the service's check, not this module's).
- :class:`Forfeit`: a player who left a running game or was kicked from it; recorded at once
  and counted as a loss whatever happens after.  Its ``reason`` matters to the ratings only:
  a game with a ``kick`` is not rated for anyone (:func:`bot.service.settle.settle`).

Times are plain seconds (the service's clock), so everything here is deterministic.
Refusals raise :class:`VoteProblem` carrying a :class:`~rules_engine.messages.Message`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal, get_args

from rules_engine.messages import Message, Seat

__all__ = [
    "STOP_VOTE_TIMEOUT",
    "Forfeit",
    "ForfeitReason",
    "StopVote",
    "VoteProblem",
]

#: How long a stop vote stays open, in seconds.
STOP_VOTE_TIMEOUT = 60.0

ForfeitReason = Literal["kick", "leave"]


class VoteProblem(ValueError):
    """A refused vote; ``message`` says why, for the voter (privately)."""

    def __init__(self, message: Message) -> None:
        self.message = message
        super().__init__(str(message))


@dataclass(frozen=True, slots=True)
class StopVote:
    """A vote to stop game ``game_id``: ``voters`` are the seated humans, ``yes`` those who
    agreed so far, ``opened_at`` when it opened (seconds)."""

    game_id: int
    voters: frozenset[int]
    yes: frozenset[int]
    opened_at: float
    timeout_s: float = STOP_VOTE_TIMEOUT

    def __post_init__(self) -> None:
        if not self.voters:
            raise ValueError("a stop vote needs at least one voter (a seated human)")
        if not self.yes <= self.voters:
            raise ValueError(f"yes votes {sorted(self.yes - self.voters)} are not voters")
        if not self.timeout_s > 0:
            raise ValueError(f"timeout_s must be positive, not {self.timeout_s!r}")

    @classmethod
    def open(cls, game_id: int, voters: Iterable[int], opener: int, now: float) -> StopVote:
        """The vote ``opener`` starts with ``/durak stop`` (or the Stop button): their own yes
        counts.  A non-voter cannot open one (:class:`VoteProblem`)."""
        electorate = frozenset(voters)
        if opener not in electorate:
            raise VoteProblem(Message("only the players seated at this game can vote to stop it"))
        return cls(game_id, electorate, frozenset({opener}), now)

    @property
    def deadline(self) -> float:
        return self.opened_at + self.timeout_s

    def expired(self, now: float) -> bool:
        """Whether the vote lapsed without passing (at or after its deadline)."""
        return not self.passed and now >= self.deadline

    @property
    def passed(self) -> bool:
        """Every voter agreed: the game is aborted."""
        return self.yes >= self.voters

    @property
    def tally(self) -> tuple[int, int]:
        """``(n, m)`` for "Stop? n/m": agreeing voters, all voters."""
        return len(self.yes), len(self.voters)

    @property
    def message(self) -> Message:
        """The vote as shown on the table."""
        n, m = self.tally
        return Message("Stop? {yes}/{total}", yes=n, total=m)

    def with_yes(self, user_id: int, now: float | None = None) -> StopVote:
        """The vote with ``user_id``'s yes added (pressing twice counts once).

        Refuses a user who is not a voter, and, when ``now`` is given, a vote that has expired.
        """
        if user_id not in self.voters:
            raise VoteProblem(Message("only the players seated at this game can vote to stop it"))
        if now is not None and self.expired(now):
            raise VoteProblem(Message("this stop vote has expired: start a new one"))
        if user_id in self.yes:
            return self
        return replace(self, yes=self.yes | {user_id})

    def without_voter(self, user_id: int) -> StopVote | None:
        """The vote after ``user_id`` stopped being a seated human (forfeit or kick): they no
        longer vote, and the others may now all have agreed.  ``None`` when nobody is left to
        vote (the vote closes without passing)."""
        voters = self.voters - {user_id}
        if not voters:
            return None
        return replace(self, voters=voters, yes=self.yes - {user_id})


@dataclass(frozen=True, slots=True)
class Forfeit:
    """``user_id`` gave up ``seat`` of game ``game_id`` at time ``at`` (seconds), by leaving
    or by being kicked.  ``move`` is the number of actions played by then (``Game.version``),
    when known: the replay marks the seat as played by the AI from that move."""

    game_id: int
    user_id: int
    seat: int
    at: float
    reason: ForfeitReason
    move: int | None = None

    def __post_init__(self) -> None:
        if self.reason not in get_args(ForfeitReason):
            raise ValueError(f"a forfeit's reason is kick or leave, not {self.reason!r}")
        if not 0 <= self.seat < 6:
            raise ValueError(f"seat {self.seat!r} is not a seat (0..5)")
        if self.move is not None and self.move < 0:
            raise ValueError(f"move {self.move!r} must not be negative")

    @property
    def message(self) -> Message:
        """The table's notice of this forfeit."""
        if self.reason == "kick":
            return Message(
                "{player} was removed from the game: a forfeit, and the AI plays on",
                player=Seat(self.seat),
            )
        return Message(
            "{player} left the game: a forfeit, and the AI plays on", player=Seat(self.seat)
        )
