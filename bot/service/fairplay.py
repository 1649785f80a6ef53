"""Fair play: stopping (lobby, series, running game), stop votes, forfeits and kicks.

A running game is stopped only by a vote of every seated human who has not forfeited (60 s,
:class:`bot.votes.StopVote`), or at once by a moderator (where the realm has them: Discord's
Manage Channel) or the system (:mod:`bot.authority`: an idle room, an operator); the notice
says which.  A player leaving it, or kicked from it (a moderator), forfeits: recorded at once,
counted as a loss, and the ``casual`` AI plays the seat to the end.  A game that reaches the
action cap is stopped like a vote would (README, "Fair play").
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from bot.authority import PLAYER, Authority, Role, SystemRule, system
from bot.errors import (
    AlreadyVoted,
    BadOption,
    Forfeited,
    NoGame,
    NotHost,
    NotSeated,
    NotVoter,
    StaleAction,
)
from bot.realm import Realm
from bot.seating import LobbySeat
from bot.service.channels import (
    Channels,
    Transaction,
    need_host,
    players_of,
    require_seat,
)
from bot.service.commit import Commit
from bot.service.driver import Driver
from bot.service.lobby import Lobbies
from bot.service.moved import retry_moved
from bot.service.options import checked_ids
from bot.state import ChannelState, GameState, LobbyState
from bot.terms import HERE, Command, Permission
from bot.view_builders import table_view
from bot.views import LobbyView, TableView
from bot.votes import Forfeit, ForfeitReason, StopVote, VoteProblem
from rules_engine.messages import Message, Seat

__all__ = ["FairPlay", "StopOutcome"]


class StopOutcome(enum.StrEnum):
    """What ``/durak stop`` (or a Stop button) did."""

    #: the lobby was closed (its host, a moderator or the system)
    CLOSED = "closed"
    #: a finished game's series was ended (its host, a moderator or the system)
    ENDED = "ended"
    #: the running game was stopped (a moderator, the system, an AI table's host, or the
    #: last voter)
    STOPPED = "stopped"
    #: the caller opened a stop vote (their yes counts)
    VOTE_OPENED = "vote_opened"
    #: the caller agreed to the open vote, which still waits for others
    VOTED = "voted"


#: The notice when the last voter of a stop vote agrees (by pressing Stop, or by forfeiting).
_VOTE_PASSED = Message(
    "every player agreed to stop: the game was stopped, no result is recorded, except forfeits"
)
_AI_TABLE = Message("the game was stopped: no loss is recorded")
_YOURSELF = Message("to give up your own seat, use {command}", command=Command.LEAVE)
_ALREADY_LEFT: dict[ForfeitReason, Message] = {
    "leave": Message("you have already left this game"),
    "kick": Message("that player has already left this game"),
}


def stopped_by(authority: Authority) -> Message:
    """The notice of a running game stopped at once by ``authority`` (a moderator or the
    system), saying who stopped it."""
    if authority.role is Role.MODERATOR:
        return Message(
            "a member with {permission} stopped the game: no result is recorded, except forfeits",
            permission=Permission.MANAGE_CHANNEL,
        )
    if authority.rule is SystemRule.IDLE:
        return Message(
            "nobody played for too long: the game was stopped, no result is recorded, except "
            "forfeits"
        )
    return Message("the game was stopped: no result is recorded, except forfeits")


def voters(ch: ChannelState, g: GameState) -> list[int]:
    """Who votes on stopping ``g``: every seated human who has not forfeited."""
    assert ch.series is not None
    return [
        s.user_id
        for i, s in enumerate(ch.series.seats)
        if s.user_id is not None and s.ai_level is None and i not in g.forfeits
    ]


@dataclass(eq=False)
class FairPlay:
    """The stop, vote, forfeit and kick commands (see the module docstring)."""

    channels: Channels
    commit: Commit
    driver: Driver
    lobbies: Lobbies

    # ------------------------------------------------------------------ stop
    @retry_moved
    @checked_ids
    async def stop(
        self,
        channel_id: int,
        requester_id: int,
        authority: Authority = PLAYER,
        *,
        game_id: int | None = None,
    ) -> StopOutcome:
        """``/durak stop`` and the Stop buttons: close a lobby, end a finished series, or stop
        a running game (at once by a moderator or the system, else by a vote); see
        :class:`StopOutcome`.

        Refusals: :class:`NotVoter` for someone who has no vote (not seated, forfeited, an
        ex-host who left), :class:`AlreadyVoted` for a voter whose yes the open vote already
        counts, :class:`StaleAction` when ``game_id`` (a button's game) is not the
        running game (nor a lobby opened since: only a lobby's own Stop, with no game, closes
        it), :class:`NotHost` for a lobby or finished series."""
        async with self.channels.edit(channel_id) as tx:
            return await self._stop(tx, requester_id, authority, game_id)

    @retry_moved
    @checked_ids
    async def system_stop(self, channel_id: int, rule: SystemRule) -> StopOutcome | None:
        """The system ends whatever the channel holds, by ``rule`` (e.g. a room idle for too
        long): its lobby is closed, its running game stopped and its series ended, or its
        finished series ended; the notices say the system did it.  ``None`` when the channel
        holds nothing."""
        async with self.channels.edit(channel_id) as tx:
            ch = tx.ch
            if ch is None or (ch.lobby is None and ch.series is None):
                return None
            return await self._stop(tx, None, system(rule), None)

    async def _stop(
        self,
        tx: Transaction,
        requester_id: int | None,
        authority: Authority,
        game_id: int | None,
    ) -> StopOutcome:
        """:meth:`stop` in its transaction (``requester_id`` ``None``: the system)."""
        ch = tx.ch
        if ch is None or (ch.lobby is None and ch.series is None):
            raise NoGame(Message("there is no lobby or game {here}", here=HERE))
        if ch.lobby is not None:
            if game_id is not None:  # a Stop of an earlier game's table: not this lobby
                raise StaleAction(game_id=None)
            await self.lobbies.close(tx, requester_id, authority)
            return StopOutcome.CLOSED
        series = ch.series
        assert series is not None
        g = ch.game
        if game_id is not None and (g is None or g.game_id != game_id):
            raise StaleAction(game_id=None if g is None else g.game_id)
        if not ch.playing or g is None:
            need_host(tx.realm, series.host_id, requester_id, authority)
            await self.commit.end_series(ch)
            tx.notice("series_ended", Message("the series is over"), user_id=requester_id)
            return StopOutcome.ENDED
        if authority.over_host(tx.realm):
            await self._stop_now(tx, ch, stopped_by(authority), requester_id)
            return StopOutcome.STOPPED
        assert requester_id is not None  # only the system acts without an id
        if not voters(ch, g) and requester_id == series.host_id:
            # nobody seated could vote (a table of AIs): its host ends it alone
            await self._stop_now(tx, ch, _AI_TABLE, requester_id)
            return StopOutcome.STOPPED
        return await self._vote_to_stop(tx, ch, g, requester_id)

    async def _vote_to_stop(
        self, tx: Transaction, ch: ChannelState, g: GameState, requester_id: int
    ) -> StopOutcome:
        """Open a stop vote, or count the requester's yes in the open one."""
        now = self.commit.clock.now()
        try:
            if g.vote is None or g.vote.expired(now):  # (its timer may not have run)
                vote = StopVote.open(g.game_id, voters(ch, g), requester_id, now)
                outcome = StopOutcome.VOTE_OPENED
            else:
                vote = g.vote.with_yes(requester_id, now)
                outcome = StopOutcome.VOTED
                if vote is g.vote:  # their yes was counted already: nothing changes
                    n, m = vote.tally
                    raise AlreadyVoted(
                        Message(
                            "you already voted to stop this game: waiting for the other "
                            "players (Stop? {yes}/{total})",
                            yes=n,
                            total=m,
                        )
                    )
        except VoteProblem as exc:
            raise NotVoter(exc.message) from None
        if vote.passed:
            await self._stop_now(tx, ch, _VOTE_PASSED, requester_id)
            return StopOutcome.STOPPED
        self.driver.set_vote(ch, g, vote)
        tx.table_changed(table_view(ch))
        if outcome is StopOutcome.VOTE_OPENED:
            n, m = vote.tally
            asked = Message(
                "{player} asks to stop the game: every player must press "
                "Stop within {seconds} seconds (Stop? {yes}/{total})",
                player=Seat(require_seat(ch, requester_id)),
                seconds=int(vote.timeout_s),
                yes=n,
                total=m,
            )
            tx.notice("stop_vote", asked, user_id=requester_id, players=players_of(ch.series))
        return outcome

    async def _stop_now(
        self,
        tx: Transaction,
        ch: ChannelState,
        why: Message,
        user_id: int | None,
        *,
        name_players: bool = True,
    ) -> None:
        """Stop the running game (stored as aborted) and end its series; queue the final
        table and the ``stopped`` notice."""
        players = players_of(ch.series) if name_players else ()
        view = await self.commit.end_series(ch)
        if view is not None:
            tx.table_changed(view)
        tx.notice("stopped", why, user_id=user_id, players=players)

    async def stop_endless_game(self, channel_id: int, game_id: int, cap: int) -> None:
        """Stop a game that reached ``cap`` actions (see
        :data:`bot.service.driver.MAX_GAME_ACTIONS`)."""
        async with self.channels.edit(channel_id) as tx:
            found = tx.running(game_id)
            if found is None:
                return
            why = Message(
                "the game reached {n} moves without an end and was stopped: no loss is recorded",
                n=cap,
            )
            await self._stop_now(tx, found[0], why, None, name_players=False)

    @retry_moved
    @checked_ids
    async def keep_playing(
        self, channel_id: int, user_id: int, *, game_id: int | None = None
    ) -> TableView:
        """A voter says no to the open stop vote: the vote fails at once and the game goes
        on.  :class:`NoGame` when no vote is open, :class:`NotVoter` for someone who has no
        vote in it."""
        async with self.channels.edit(channel_id) as tx:
            ch, g = tx.need_game()
            if game_id is not None and game_id != g.game_id:
                raise StaleAction(game_id=g.game_id)
            vote = g.vote
            if vote is None:
                raise NoGame(Message("there is no stop vote open"))
            if user_id not in vote.voters:
                raise NotVoter()
            seat = require_seat(ch, user_id)
            self.driver.set_vote(ch, g, None)
            view = table_view(ch)
            tx.table_changed(view)
            tx.notice(
                "stop_vote",
                Message("{player} wants to play on: the stop vote failed", player=Seat(seat)),
                user_id=user_id,
                players=players_of(ch.series),
            )
        return view

    # ------------------------------------------------------------------ forfeits and kicks
    @retry_moved
    @checked_ids
    async def forfeit(
        self, channel_id: int, user_id: int, *, game_id: int | None = None
    ) -> TableView:
        """The caller leaves the running game (after confirming :class:`ConfirmForfeit`): a
        forfeit, recorded at once and counted as a loss whatever happens after; the
        ``casual`` AI plays the seat to the end and the caller cannot come back to this game.
        ``game_id``: the game the confirmation was for (:class:`StaleAction` if another one
        runs now).  :class:`NotSeated`, :class:`Forfeited` (already left), :class:`NoGame`,
        :class:`GameFinished`."""
        async with self.channels.edit(channel_id) as tx:
            ch, g = tx.need_game()
            if game_id is not None and game_id != g.game_id:
                raise StaleAction(game_id=g.game_id)
            return await self._forfeit(tx, ch, g, require_seat(ch, user_id), user_id, "leave")

    @retry_moved
    @checked_ids
    async def kick(
        self,
        channel_id: int,
        requester_id: int,
        user_id: int | None = None,
        *,
        seat: int | None = None,
        authority: Authority = PLAYER,
    ) -> LobbyView | TableView:
        """``/durak kick``: free the seat of ``user_id``, or the seat at index ``seat`` (0-based;
        e.g. an AI seat of a lobby).  In a lobby: the host, a moderator or the system (a
        kicked host hands the lobby on; a lobby left with no human closes).  In a running
        game: a moderator or the system only; the kicked player forfeits (reason ``kick``) and the
        ``casual`` AI plays the seat to the end.  Refusals: not exactly one of ``user_id`` and
        ``seat``, no such seat, kicking oneself (use leave), an AI seat of a running game
        (:class:`BadOption`); a player who has no seat (:class:`NotSeated`) or already left
        (:class:`Forfeited`); :class:`NotHost`; :class:`NoGame`."""
        if (user_id is None) == (seat is None):
            raise BadOption(Message("name the player (or the seat) to remove"))
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            raise BadOption(Message("there is no seat {seat} at this table", seat=repr(seat)))
        if user_id == requester_id:
            raise BadOption(_YOURSELF)
        async with self.channels.edit(channel_id) as tx:
            ch = tx.ch
            if ch is None or (ch.lobby is None and not ch.playing):
                raise NoGame(Message("there is no lobby or running game {here}", here=HERE))
            if ch.lobby is not None:
                return await self._kick_from_lobby(
                    tx, ch.lobby, requester_id, user_id, seat, authority
                )
            return await self._kick_from_game(tx, ch, requester_id, user_id, seat, authority)

    async def _kick_from_lobby(
        self,
        tx: Transaction,
        lobby: LobbyState,
        requester_id: int,
        user_id: int | None,
        seat: int | None,
        authority: Authority,
    ) -> LobbyView:
        need_host(tx.realm, lobby.host_id, requester_id, authority)
        index = _seat_index(lobby.seats, user_id, seat)
        if lobby.seats[index].user_id == requester_id:
            raise BadOption(_YOURSELF)
        return await self.lobbies.kick(tx, index)

    async def _kick_from_game(
        self,
        tx: Transaction,
        ch: ChannelState,
        requester_id: int,
        user_id: int | None,
        seat: int | None,
        authority: Authority,
    ) -> TableView:
        g = ch.game
        assert g is not None and ch.series is not None
        if not authority.over_host(tx.realm):
            raise NotHost(_no_kick_in_game(tx.realm))
        index = _seat_index(ch.series.seats, user_id, seat)
        kicked = ch.series.seats[index].user_id
        if kicked is None:
            raise BadOption(Message("an AI seat cannot be removed from a running game"))
        if kicked == requester_id:
            raise BadOption(_YOURSELF)
        return await self._forfeit(tx, ch, g, index, kicked, "kick")

    async def _forfeit(
        self,
        tx: Transaction,
        ch: ChannelState,
        g: GameState,
        seat: int,
        user_id: int,
        reason: ForfeitReason,
    ) -> TableView:
        """Record ``user_id``'s forfeit of ``seat`` (fenced, at once), hand the seat to the AI
        and take the player out of an open stop vote (which may pass now).  Queues the
        notices, then the table (and hands); returns the table.  :class:`Forfeited` if the
        seat was forfeited already."""
        if seat in g.forfeits:
            if reason == "leave":  # the player themselves: say how they left
                raise Forfeited.of(g.forfeits[seat].reason, tx.realm, _ALREADY_LEFT[reason])
            raise Forfeited(_ALREADY_LEFT[reason])
        series = ch.series
        assert series is not None
        players = players_of(series)
        now = self.commit.clock.now()
        forfeit = Forfeit(g.game_id, user_id, seat, now, reason, move=g.game.version)
        await self.commit.record_forfeit(ch, g, forfeit, series.guild_id)
        tx.notice("forfeit", forfeit.message, user_id=user_id, players=players)
        if g.vote is not None:
            vote = g.vote.without_voter(user_id)
            if vote is not None and vote.passed:
                stopped = await self.commit.end_series(ch)
                assert stopped is not None
                tx.notice("stopped", _VOTE_PASSED, user_id=user_id, players=players)
                tx.table_changed(stopped)
                return stopped
            self.driver.set_vote(ch, g, vote)
            if vote is None:
                closed = Message("nobody is left to vote: the stop vote is closed")
                tx.notice("stop_vote", closed, user_id=user_id, players=players)
        view = table_view(ch)
        tx.after_change(ch, view)
        return view


def _no_kick_in_game(realm: Realm) -> Message:
    """Why a player may not remove another from a running game in ``realm``."""
    if realm.has_moderators:
        return Message(
            "only a member with {permission} can remove a player from a running game",
            permission=Permission.MANAGE_CHANNEL,
        )
    return Message("a player cannot be removed from a running game")


def _seat_index(seats: list[LobbySeat], user_id: int | None, seat: int | None) -> int:
    """The index of the seat a kick names: ``seat`` (checked), or ``user_id``'s seat."""
    if seat is not None:
        if not 0 <= seat < len(seats):
            raise BadOption(Message("there is no seat {seat} at this table", seat=str(seat + 1)))
        return seat
    found = [i for i, s in enumerate(seats) if s.user_id == user_id]
    if not found:
        raise NotSeated(Message("that player has no seat at this table"))
    return found[0]
