"""Stop votes: open, agree, pass, time out, lose a voter; forfeit records."""

from __future__ import annotations

import dataclasses

import pytest

from bot.votes import STOP_VOTE_TIMEOUT, Forfeit, StopVote, VoteProblem
from rules_engine.messages import Message, Seat

NOT_A_VOTER = Message("only the players seated at this game can vote to stop it")


def test_open_counts_the_openers_yes():
    vote = StopVote.open(7, [1, 2, 3], opener=2, now=100.0)
    assert vote == StopVote(7, frozenset({1, 2, 3}), frozenset({2}), 100.0, 60.0)
    assert vote.tally == (1, 3)
    assert vote.message == Message("Stop? {yes}/{total}", yes=1, total=3)
    assert not vote.passed
    assert STOP_VOTE_TIMEOUT == vote.timeout_s == 60


def test_vote_passes_when_everyone_agrees():
    vote = StopVote.open(7, [1, 2, 3], opener=1, now=0.0)
    vote = vote.with_yes(2, now=10.0)
    assert vote.tally == (2, 3) and not vote.passed
    vote = vote.with_yes(3, now=59.9)
    assert vote.tally == (3, 3) and vote.passed
    assert not vote.expired(1000.0)  # a passed vote does not lapse


def test_single_human_passes_at_once():
    assert StopVote.open(7, [5], opener=5, now=0.0).passed


def test_pressing_twice_counts_once():
    vote = StopVote.open(7, [1, 2], opener=1, now=0.0)
    assert vote.with_yes(1) is vote
    assert vote.with_yes(1).tally == (1, 2)


def test_non_voters_are_refused():
    vote = StopVote.open(7, [1, 2], opener=1, now=0.0)
    with pytest.raises(VoteProblem) as info:
        vote.with_yes(99)
    assert info.value.message == NOT_A_VOTER
    with pytest.raises(VoteProblem) as info:
        StopVote.open(7, [1, 2], opener=99, now=0.0)
    assert info.value.message == NOT_A_VOTER


def test_vote_times_out():
    vote = StopVote.open(7, [1, 2], opener=1, now=100.0)
    assert vote.deadline == 160.0
    assert not vote.expired(159.99)
    assert vote.expired(160.0)
    with pytest.raises(VoteProblem) as info:
        vote.with_yes(2, now=160.0)
    assert info.value.message == Message("this stop vote has expired: start a new one")
    assert vote.with_yes(2, now=159.0).passed


def test_custom_timeout():
    vote = StopVote(1, frozenset({1, 2}), frozenset(), opened_at=0.0, timeout_s=5)
    assert vote.expired(5.0) and not vote.expired(4.0)


def test_losing_a_voter_can_pass_the_vote():
    vote = StopVote.open(7, [1, 2, 3], opener=1, now=0.0).with_yes(2)
    after = vote.without_voter(3)
    assert after is not None
    assert after.passed and after.tally == (2, 2)
    opener_left = vote.without_voter(1)
    assert opener_left is not None
    assert opener_left.tally == (1, 2) and not opener_left.passed
    last = StopVote.open(7, [1], opener=1, now=0.0)
    assert last.without_voter(1) is None


@pytest.mark.parametrize(
    "kwargs",
    [
        {"voters": frozenset(), "yes": frozenset()},
        {"voters": frozenset({1}), "yes": frozenset({2})},
        {"voters": frozenset({1}), "yes": frozenset(), "timeout_s": 0},
    ],
)
def test_inconsistent_votes_are_refused(kwargs: dict[str, object]):
    with pytest.raises(ValueError):
        StopVote(game_id=1, opened_at=0.0, **kwargs)  # type: ignore[arg-type]


def test_votes_are_frozen():
    vote = StopVote.open(7, [1, 2], opener=1, now=0.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        vote.yes = frozenset({1, 2})  # type: ignore[misc]


# ---------------------------------------------------------------- forfeits


def test_forfeit_records_and_messages():
    leave = Forfeit(game_id=3, user_id=42, seat=1, at=12.5, reason="leave", move=17)
    kick = Forfeit(game_id=3, user_id=43, seat=2, at=13.0, reason="kick")
    assert leave.message == Message(
        "{player} left the game: a forfeit, and the AI plays on", player=Seat(1)
    )
    assert kick.message == Message(
        "{player} was removed from the game: a forfeit, and the AI plays on", player=Seat(2)
    )
    assert kick.move is None
    assert {leave, kick} == {dataclasses.replace(leave), kick}  # hashable values


@pytest.mark.parametrize(
    "kwargs",
    [{"reason": "quit"}, {"seat": 6}, {"seat": -1}, {"move": -1}],
)
def test_bad_forfeits_are_refused(kwargs: dict[str, object]):
    base: dict[str, object] = {"game_id": 1, "user_id": 2, "seat": 0, "at": 0.0, "reason": "leave"}
    with pytest.raises(ValueError):
        Forfeit(**(base | kwargs))  # type: ignore[arg-type]
