"""Play: actions, hands, the table, rematches and series, paused timers, and what to do when a
channel's table cannot be shown.

Turns: a human to act has a ``deadline`` (absolute epoch seconds); see
:mod:`bot.service.driver` for what happens when it passes.  Acting, or asking for one's hand,
turns a player's autopilot off.  Every command that writes is retried on a fresh copy of its
channel when another process wrote it first (:func:`bot.service.moved.retry_moved`).
"""

from __future__ import annotations

import enum
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.authority import PLAYER, Authority, SystemRule, system
from bot.clock import Clock
from bot.errors import (
    AlreadyStarted,
    ChannelMoved,
    Forfeited,
    NoGame,
    NotYourTurn,
    ServiceError,
    StaleAction,
    StorageBusy,
    StorageFailure,
)
from bot.realm import realm_of
from bot.service.channels import Channels, need_game, need_member, players_of, require_seat, seat_of
from bot.service.commit import Commit
from bot.service.driver import Driver
from bot.service.lobby import Lobbies
from bot.service.moved import retry_moved
from bot.service.options import parse_player_action
from bot.state import ChannelState, GameState
from bot.terms import HERE, Command
from bot.view_builders import hand_view, last_losers, series_view, table_view
from bot.views import HandView, SeriesView, TableView
from rules_engine import Action, deal_from_seed, next_dealer_and_leader
from rules_engine.messages import Message, Seat

__all__ = ["ChannelPhase", "Play", "Unshowable", "UnshowableOutcome"]

log = logging.getLogger(__name__)


def _need_news(ch: ChannelState | None, game_id: int | None, version: int | None) -> None:
    """Raise :class:`ChannelMoved` if a press shows a game or a move that this process's copy
    of the channel has not seen: another process started or played it, and the channel must
    be read again (the command is then retried on the fresh copy)."""
    if game_id is None:
        return
    g = ch.game if ch is not None else None
    if (
        g is None
        or game_id > g.game_id
        or (game_id == g.game_id and version is not None and version > g.game.version)
    ):
        raise ChannelMoved(game_id=game_id, version=version)


class ChannelPhase(enum.StrEnum):
    """What a channel holds now."""

    NONE = "none"
    LOBBY = "lobby"
    PLAYING = "playing"
    #: game over, the series waits for Rematch or End series
    FINISHED = "finished"


class Unshowable(enum.StrEnum):
    """What the service did about a channel whose lobby or table cannot be shown."""

    #: the lobby was closed (the channel is free again)
    LOBBY_CLOSED = "lobby"
    #: the running game's timers were paused until the table is shown again
    GAME_PAUSED = "table"
    #: nothing (nothing to close or pause, or already paused)
    NOTHING = "nothing"


@dataclass(frozen=True, slots=True)
class UnshowableOutcome:
    """:meth:`Play.table_unshowable`'s result: what was done, and whom to tell (the host of
    the lobby or series, if any)."""

    done: Unshowable
    host_id: int | None


def _back(seat: int) -> Message:
    return Message("{name} is back", name=Seat(seat))


@dataclass(eq=False)
class Play:
    """The play commands (see the module docstring)."""

    channels: Channels
    commit: Commit
    driver: Driver
    lobbies: Lobbies
    clock: Clock
    seed_source: Callable[[], int]

    @retry_moved
    async def act(
        self,
        channel_id: int,
        user_id: int,
        action: str | Action,
        version: int | None,
        *,
        game_id: int | None = None,
    ) -> TableView:
        """Play ``action`` for the caller's seat; returns the table after it is stored.

        ``action``: an :class:`Action`, or text with or without the seat (``"defend 8♥ 9♥"``,
        ``"1 take"``).  ``version``/``game_id``: what the player saw (from the hand or table
        view); a mismatch raises :class:`StaleAction` (``None`` skips the check; adapters
        should always send them).  Other refusals: :class:`NoGame`, :class:`GameFinished`,
        :class:`NotSeated`, :class:`BadAction`, :class:`NotYourTurn`, :class:`IllegalMove`
        (``.reason`` is the engine's); :class:`StorageBusy` when the database did not answer
        in time (nothing is shown as played: see :mod:`bot.service.commit`), or when another
        write of the channel kept its lock that long.  Acting turns the player's autopilot
        off."""
        t0 = time.perf_counter()
        async with self.channels.edit(channel_id, wait=self.commit.storage.timeout) as tx:
            if self.commit.storage.shared and not tx.loaded:
                _need_news(tx.ch, game_id, version)
            ch, g = tx.need_game()
            seat = require_seat(ch, user_id)
            if seat in g.forfeits:
                raise Forfeited.of(g.forfeits[seat].reason, tx.realm)
            game = g.game
            # the seat the player acts as: their own, or a partner's they took over (teams)
            acting = game.to_act if game.player_to_act == seat else seat
            assert acting is not None
            act = parse_player_action(action, acting)
            if (game_id is not None and game_id != g.game_id) or (
                version is not None and version != g.game.version
            ):
                raise StaleAction(expected=g.game.version, got=version, game_id=g.game_id)
            if game.player_to_act != seat:
                reason = game.explain(act)
                raise NotYourTurn(
                    Message("it is not your turn") if reason is None else reason, to_act=game.to_act
                )
            timeouts = list(g.timeouts)
            timeouts[seat] = 0
            autopilot = list(g.autopilot)
            was_auto = autopilot[seat]
            autopilot[seat] = False
            await self.commit.apply(ch, g, act, None, timeouts, autopilot, t0)
            view = table_view(ch)
            if was_auto:
                players = players_of(ch.series)
                tx.notice("autopilot_off", _back(seat), user_id=user_id, players=players)
            tx.after_change(ch, view)
        return view

    @retry_moved
    async def hand(self, channel_id: int, user_id: int) -> HandView:
        """The caller's private hand view (show it to that user only).  Asking for one's hand
        counts as being present: it turns the caller's autopilot off.

        Showing a hand needs no database: it is answered from memory at once, without the
        channel's lock, so it answers while a write of the channel waits on a database that
        hangs (memory changes only once a write is stored, in one step, so what it shows is
        the last position the players were told of).  Only turning autopilot off is stored
        (under the lock, waited for at most the storage's timeout); if that cannot be stored
        now, the hand is shown anyway and the autopilot stays on until the player's next
        press."""
        ch, g, seat = self._hand_of(await self.channels.ensure(channel_id), user_id)
        if not (ch.playing and g.autopilot[seat]):
            return hand_view(ch, g, seat)
        try:
            return await self._hand_back(channel_id, user_id)
        except StorageBusy:  # the channel's lock is held by a write waiting on the database
            ch, g, seat = self._hand_of(self.channels.get(channel_id), user_id)
            return hand_view(ch, g, seat)

    async def _hand_back(self, channel_id: int, user_id: int) -> HandView:
        """:meth:`hand` of a player on autopilot: turn it off, stored, and show the hand."""
        async with self.channels.edit(channel_id, wait=self.commit.storage.timeout) as tx:
            ch, g, seat = self._hand_of(tx.ch, user_id)
            if ch.playing and g.autopilot[seat]:
                autopilot = list(g.autopilot)
                autopilot[seat] = False
                timeouts = list(g.timeouts)
                timeouts[seat] = 0
                deadline = g.deadline
                if g.game.player_to_act == seat:
                    deadline = self.clock.now() + ch.turn_timeout
                try:
                    await self.commit.save_meta(
                        ch, g, deadline=deadline, timeouts=timeouts, autopilot=autopilot
                    )
                except (StorageFailure, StaleAction) as exc:
                    if isinstance(exc, ChannelMoved):  # the copy is dropped: read it again
                        raise
                    # not stored now (or a move given up earlier was stored after all, and
                    # memory took it on): the hand as memory holds it, autopilot still on
                    log.warning(
                        "autopilot of seat %d in channel %d stays on: %s", seat, channel_id, exc
                    )
                    ch, g, seat = self._hand_of(tx.ch, user_id)
                else:
                    players = players_of(ch.series)
                    tx.notice("autopilot_off", _back(seat), user_id=user_id, players=players)
                    tx.show_table(ch)
            return hand_view(ch, g, seat)

    @staticmethod
    def _hand_of(ch: ChannelState | None, user_id: int) -> tuple[ChannelState, GameState, int]:
        """The channel, game and seat whose hand ``user_id`` asks for (the guards of
        :meth:`hand`)."""
        ch, g = need_game(ch, allow_finished=True)
        seat = require_seat(ch, user_id)
        if ch.playing and seat in g.forfeits:
            raise Forfeited.of(g.forfeits[seat].reason, realm_of(ch.channel_id))
        return ch, g, seat

    async def table(self, channel_id: int) -> TableView:
        """The public table of the channel's current (or just finished) game."""
        ch, _ = need_game(await self.channels.ensure(channel_id), allow_finished=True)
        return table_view(ch)

    def seat_of(self, channel_id: int, user_id: int) -> int | None:
        """The user's seat in the channel's series, if any (no error)."""
        ch = self.channels.get(channel_id)
        return None if ch is None else seat_of(ch.series, user_id)

    def state(self, channel_id: int) -> ChannelPhase:
        """What the channel holds now (:class:`ChannelPhase`)."""
        ch = self.channels.get(channel_id)
        if ch is None:
            return ChannelPhase.NONE
        if ch.lobby is not None:
            return ChannelPhase.LOBBY
        if ch.playing:
            return ChannelPhase.PLAYING
        return ChannelPhase.FINISHED if ch.series is not None else ChannelPhase.NONE

    def live_channels(self) -> list[int]:
        """Channels with a game in progress."""
        return [ch.channel_id for ch in self.channels if ch.playing]

    def host_of(self, channel_id: int) -> int | None:
        """The user id of the host of the channel's lobby or series, if any."""
        ch = self.channels.get(channel_id)
        if ch is None:
            return None
        if ch.lobby is not None:
            return ch.lobby.host_id
        return ch.series.host_id if ch.series is not None else None

    # ------------------------------------------------------------------ series
    @retry_moved
    async def rematch(
        self, channel_id: int, requester_id: int, authority: Authority = PLAYER
    ) -> TableView:
        """Deal the next game of the series with the same seats: the loser deals and the
        loser's left neighbour leads; after a draw the same dealer deals again and the dealer's
        left neighbour leads (RULES.md §4); after a team game the first member of the losing
        team clockwise from the last dealer deals (§10.3).  Open to the host and every seated
        human.  A player who forfeited the previous game starts this one on autopilot (the
        ``casual`` AI plays for them until they come back), so the others never wait on
        them."""
        async with self.channels.edit(channel_id) as tx:
            ch, series = tx.need_series()
            if ch.playing:
                raise AlreadyStarted(Message("the game is still running"))
            need_member(tx.realm, series, requester_id, authority)
            if series.last_dealer is None or ch.rules is None:
                raise NoGame(Message("there is no finished game to follow"))
            self.lobbies.need_ai_only_room(ch, series.guild_id, series.seats)
            n = len(series.seats)
            losers = last_losers(ch.rules, n, series.last_loser)
            dealer, _leader = next_dealer_and_leader(
                n, series.last_dealer, series.last_loser, losers=losers
            )
            seed = self.seed_source()
            deal = deal_from_seed(n, seed, dealer=dealer, first_of_series=False, deck=ch.rules.deck)
            away = sorted(ch.game.forfeits) if ch.game is not None else []
            await self.commit.begin_game(
                ch, series, ch.rules, ch.turn_timeout, deal, seed, autopilot=away
            )
            view = table_view(ch)
            for seat in away:
                tx.notice(
                    "autopilot_on",
                    Message("{name} is on autopilot until they come back", name=Seat(seat)),
                    user_id=series.seats[seat].user_id,
                    players=players_of(ch.series),
                )
            tx.after_change(ch, view)
        return view

    @retry_moved
    async def end_series(
        self, channel_id: int, requester_id: int, authority: Authority = PLAYER
    ) -> SeriesView:
        """Close the series after a game (host or any seated human); returns the final
        standings.  A running game must be stopped instead (:class:`AlreadyStarted`)."""
        async with self.channels.edit(channel_id) as tx:
            ch, series = tx.need_series()
            if ch.playing:
                raise AlreadyStarted(
                    Message(
                        "a game is running: finish it, or vote to stop it with {command}",
                        command=Command.STOP,
                    )
                )
            need_member(tx.realm, series, requester_id, authority)
            await self.commit.end_series(ch)
            tx.notice("series_ended", Message("the series is over"), user_id=requester_id)
        return series_view(series)

    async def series(self, channel_id: int) -> SeriesView:
        """Loss counts of the channel's current series."""
        ch = await self.channels.ensure(channel_id)
        if ch is None or ch.series is None:
            raise NoGame(Message("there is no series {here}", here=HERE))
        return series_view(ch.series)

    # ------------------------------------------------------------------ a table not shown
    def timers_paused(self, channel_id: int) -> bool:
        """Whether the channel's game waits with its timers paused."""
        ch = self.channels.get(channel_id)
        return ch is not None and ch.game is not None and ch.game.paused

    @retry_moved
    async def pause_timers(self, channel_id: int) -> bool:
        """The channel's table cannot be shown: freeze the running game (the waiting human's
        deadline stops, with the time left kept; AI seats and autopilot hold their moves)
        until :meth:`resume_timers` or the game is stopped.  Players may still act from their
        hands.  Kept in memory only (a restart resumes the game, as after any restart).
        Returns whether a game was paused now."""
        async with self.channels.edit(channel_id) as tx:
            ch = tx.ch
            g = ch.game if ch is not None else None
            if ch is None or g is None or not ch.playing or g.paused:
                return False
            g.paused = True
            self.driver.schedule(ch)  # disarms, and keeps the time left
        log.warning(
            "game %d in channel %d paused: its table cannot be shown", g.game_id, channel_id
        )
        return True

    @retry_moved
    async def resume_timers(self, channel_id: int) -> bool:
        """Undo :meth:`pause_timers`: the waiting human gets the time that was left, AI seats
        move again.  Returns whether a paused game was resumed."""
        if not self.timers_paused(channel_id):  # the usual case: no need to wait for the lock
            return False
        async with self.channels.edit(channel_id) as tx:
            ch = tx.ch
            g = ch.game if ch is not None else None
            if ch is None or g is None or not g.paused:
                return False
            g.paused = False
            left, g.paused_left = g.paused_left, None
            if ch.playing and ch.series is not None and g.human_waits(ch.series):
                g.deadline = self.clock.now() + min(
                    left if left is not None else ch.turn_timeout, ch.turn_timeout
                )
            self.driver.schedule(ch)
        log.info("game %d in channel %d resumed", g.game_id, channel_id)
        return True

    async def table_unshowable(self, channel_id: int, *, lobby: bool) -> UnshowableOutcome:
        """A public message of the channel could not be posted or edited (``lobby``: it was
        the lobby).  Nothing may stay invisible: a lobby that cannot be posted is closed (the
        channel is free again); a running game's timers are paused (nobody times out on a
        table they cannot see) until :meth:`resume_timers` or the game is stopped.  The lobby
        is closed by the system (:attr:`~bot.authority.SystemRule.UNSHOWABLE`)."""
        host = self.host_of(channel_id)
        phase = self.state(channel_id)
        if lobby and phase is ChannelPhase.LOBBY and host is not None:
            try:
                async with self.channels.edit(channel_id) as tx:
                    await self.lobbies.close(tx, None, system(SystemRule.UNSHOWABLE))
            except ServiceError:
                return UnshowableOutcome(Unshowable.NOTHING, host)
            return UnshowableOutcome(Unshowable.LOBBY_CLOSED, host)
        if phase is ChannelPhase.PLAYING and await self.pause_timers(channel_id):
            return UnshowableOutcome(Unshowable.GAME_PAUSED, host)
        return UnshowableOutcome(Unshowable.NOTHING, host)
