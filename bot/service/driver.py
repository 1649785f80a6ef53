"""The turn driver: what moves a game on when no command comes.

A waiting human has a turn timer; when it fires, the engine's default is played (two timeouts
in a row put the player on autopilot).  AI seats and players on autopilot decide in the AI
pool, wait ``ai_delay`` seconds of the clock, then play.  An automatic move that could not be
stored is retried after :data:`RETRY_DELAY` (unless an earlier move given up turns out to have
been stored after all: then the game has moved on, re-armed, and there is nothing to retry).
An open stop vote has a timer that closes it.

Only the channel's owner arms its turn timer and plays its AI turns (:mod:`bot.service.owners`:
on a database several processes share, each channel's are run by one of them).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import InitVar, dataclass, field

from bot.ai_pool import AIPool, AIPoolClosed, ThreadAI, hard_limit
from bot.clock import Clock
from bot.errors import ChannelMoved, ServiceError, StaleAction
from bot.service.channels import Channels, players_of
from bot.service.commit import Commit
from bot.service.owners import Owners
from bot.service.tasks import Tasks
from bot.state import ChannelState, GameState, human_plays
from bot.view_builders import table_view
from bot.views import AutoKind, action_message
from bot.votes import StopVote
from rules_engine import Action, observation, parse_action
from rules_engine.ai import LEVELS
from rules_engine.hints import timeout_action
from rules_engine.messages import Message, Seat

__all__ = ["MAX_GAME_ACTIONS", "RETRY_DELAY", "TIMEOUTS_TO_AUTOPILOT", "Driver"]

log = logging.getLogger(__name__)

TIMEOUTS_TO_AUTOPILOT = 2
RETRY_DELAY = 5.0  # seconds before an automatic move that could not be stored is retried
#: RULES.md has no rule that ends a game whose players keep passing cards round and round (a
#: legal cycle exists with an empty stock).  This project's choice: a game that reaches this
#: many actions is stopped like /durak stop (stored as aborted, no loss, the series ends).
MAX_GAME_ACTIONS = 3000

#: ``on_endless(channel_id, game_id, cap)``: stop a game that reached the action cap.
EndlessStop = Callable[[int, int, int], Awaitable[None]]


@dataclass(eq=False)
class Driver:
    """Arms turn timers, vote timers and AI turns (see the module docstring).
    ``ai_concurrency``: AI moves played and stored at once across all channels."""

    clock: Clock
    channels: Channels
    commit: Commit
    ai: AIPool | ThreadAI
    tasks: Tasks
    ai_delay: float
    autopilot_level: str
    ai_concurrency: InitVar[int]
    on_endless: EndlessStop
    #: Which channels' timers and AI turns this process runs (``None``: every channel's).
    owners: Owners | None = None
    #: Set by close: no timer is armed any more.
    closed: bool = field(default=False, init=False)
    _ai_slots: asyncio.Semaphore = field(init=False)

    def __post_init__(self, ai_concurrency: int) -> None:
        self._ai_slots = asyncio.Semaphore(ai_concurrency)

    # ------------------------------------------------------------------ turns
    def rearm(self, ch: ChannelState) -> None:
        """After a change of the channel's game: arm what moves it on, and stop it if it
        reached :data:`MAX_GAME_ACTIONS`."""
        self.schedule(ch)
        g = ch.game
        if ch.playing and g is not None and g.game.version >= MAX_GAME_ACTIONS:
            self.tasks.spawn(self.on_endless(ch.channel_id, g.game_id, MAX_GAME_ACTIONS))

    def schedule(self, ch: ChannelState) -> None:
        """Arm what moves the game on: the turn timer of a waiting human, or an AI task."""
        g = ch.game
        if g is None:
            return
        g.disarm()
        if self.closed or not ch.playing or ch.series is None:
            return
        if self.owners is not None and not self.owners.runs(ch.channel_id):
            return  # another process runs this channel's timers and AI turns
        if g.paused:  # nothing moves while the table cannot be shown
            if g.deadline is not None:
                g.paused_left = max(0.0, g.deadline - self.clock.now())
                g.deadline = None
            return
        seat = g.game.player_to_act  # the player who acts (a partner's seat in a team game)
        assert seat is not None
        version = g.game.version
        if g.human_waits(ch.series):
            if g.deadline is None:  # e.g. autopilot switched off on someone else's move
                g.deadline = self.clock.now() + ch.turn_timeout
            channel_id, game_id = ch.channel_id, g.game_id
            g.timer = self.clock.call_at(
                g.deadline, lambda: self._on_timeout(channel_id, game_id, version)
            )
        else:
            self.tasks.spawn(self._ai_turn(ch.channel_id, g.game_id, version, seat))

    async def _on_timeout(self, channel_id: int, game_id: int, version: int) -> None:
        t0 = time.perf_counter()
        async with self.channels.edit(channel_id) as tx:
            found = None if tx.loaded else tx.running(game_id)
            if found is None:  # over, or the timer of a copy dropped since (read again now)
                return
            ch, g = found
            assert ch.series is not None
            if g.game.version != version or g.paused or not g.human_waits(ch.series):
                return
            action = timeout_action(g.game)
            seat = g.game.played_by[action.seat]  # the player who ran out of time
            user_id = ch.series.seats[seat].user_id
            timeouts = list(g.timeouts)
            timeouts[seat] += 1
            autopilot = list(g.autopilot)
            if timeouts[seat] >= TIMEOUTS_TO_AUTOPILOT:
                autopilot[seat] = True
            store = self.commit.apply(ch, g, action, "timeout", timeouts, autopilot, t0)
            if not await self._stored("timeout action", ch, g, version, store):
                return
            players = players_of(ch.series)
            ran_out = Message(
                "{name} ran out of time: {action}",
                name=Seat(seat),
                action=action_message(action.kind, tuple(action.cards)),
            )
            tx.notice("timeout", ran_out, user_id=user_id, players=players)
            if autopilot[seat] and timeouts[seat] == TIMEOUTS_TO_AUTOPILOT:
                away = Message("{name} is on autopilot until they come back", name=Seat(seat))
                tx.notice("autopilot_on", away, user_id=user_id, players=players)
            tx.after_change(ch, table_view(ch))

    async def _ai_turn(self, channel_id: int, game_id: int, version: int, seat: int) -> None:
        """Decide for an AI player ``seat`` (or a player on autopilot) in the AI pool, for the
        seat it plays now (its own, or a partner's in a team game), wait the AI
        delay, then play if nothing changed meanwhile.  Playing takes one of the
        ``ai_concurrency`` slots (deciding is queued fairly per channel by the pool itself)."""
        ch = self.channels.get(channel_id)
        if ch is None or ch.game is None or ch.game.game_id != game_id or ch.series is None:
            return
        g = ch.game

        def current() -> bool:
            return (
                self.channels.get(channel_id) is ch  # not dropped and read again meanwhile
                and ch.game is g
                and ch.playing
                and g.game.version == version
                and g.game.player_to_act == seat
                and not g.paused
                and ch.series is not None
                and not human_plays(ch.series.seats, seat, g.autopilot, g.forfeits)
            )

        level = ch.series.seats[seat].ai_level or self.autopilot_level
        if level not in LEVELS:
            log.error("AI level %r is not available: using %r", level, self.autopilot_level)
            level = self.autopilot_level
        action: Action | None = None
        # No _ai_slots here: the AI pool queues decisions fairly per channel, and a global
        # FIFO in front of it would put a human's casual seat behind every AI-only table.
        if not current():
            return
        try:
            # the observation takes ~50 µs on the loop; the agent runs in a worker process
            text = await self.ai.decide(
                channel_id,
                g.game_id,
                seat,
                level,
                (g.seed * 31 + seat) & 0x7FFFFFFF,
                observation(g.game, seat),
                hard_limit(level),
            )
            action = parse_action(text)
        except AIPoolClosed:
            return  # the service is closing
        except Exception:
            log.exception(
                "AI %s failed in channel %d: playing the timeout default", level, channel_id
            )
        if self.ai_delay > 0:
            await self.tasks.nap(self.clock, self.ai_delay)
        async with self._ai_slots:
            t0 = time.perf_counter()
            async with self.channels.edit(channel_id) as tx:
                if not current():
                    return
                if action is None or action.seat != g.game.to_act or not g.game.can_apply(action):
                    if action is not None:
                        log.error("AI %s chose an illegal action %s", level, action)
                    action = timeout_action(g.game)
                assert ch.series is not None
                auto: AutoKind = "autopilot" if ch.series.seats[seat].ai_level is None else None
                timeouts, autopilot = list(g.timeouts), list(g.autopilot)
                store = self.commit.apply(ch, g, action, auto, timeouts, autopilot, t0)
                if await self._stored("AI move", ch, g, version, store):
                    tx.show_table(ch)

    async def _stored(
        self, what: str, ch: ChannelState, g: GameState, version: int, store: Awaitable[None]
    ) -> bool:
        """Await ``store``, the commit of a move nobody pressed for (``what``: a timeout's or
        an AI seat's) at ``version`` of the game; False when it was not stored: a move given up
        earlier was stored after all (memory took it on, and re-armed), another process wrote
        the channel (:meth:`_moved`), or storage failed (logged, and tried again later)."""
        try:
            await store
        except StaleAction:
            return False
        except ChannelMoved:
            self._moved(ch.channel_id)
            return False
        except ServiceError:
            log.exception(
                "%s failed in channel %d: retrying in %s s", what, ch.channel_id, RETRY_DELAY
            )
            self._retry_later(ch, g, version)
            return False
        return True

    def _moved(self, channel_id: int) -> None:
        """A timer's or AI seat's move lost its fence: another process wrote the channel.
        Nothing to retry here: this copy is dropped, quietly, and the channel is read again
        when the other process's change is heard, or a command or the resync needs it (the
        other process played the turn)."""
        log.info("channel %d was written by another process: its copy here is dropped", channel_id)
        self.channels.drop(channel_id)

    def _retry_later(self, ch: ChannelState, g: GameState, version: int) -> None:
        """After a failed automatic move (storage down?), try again in a while."""

        async def again() -> None:
            async with self.channels.edit(ch.channel_id):
                if ch.game is g and ch.playing and g.game.version == version:
                    self.schedule(ch)

        g.disarm()
        g.timer = self.clock.call_at(self.clock.now() + RETRY_DELAY, again)

    # ------------------------------------------------------------------ stop votes
    def set_vote(self, ch: ChannelState, g: GameState, vote: StopVote | None) -> None:
        """Under the lock: make ``vote`` the open stop vote (``None``: no vote), with a timer
        that closes it when it lapses."""
        same = vote is not None and g.vote is not None and vote.opened_at == g.vote.opened_at
        if not same:
            g.close_vote()
        g.vote = vote
        if vote is not None and g.vote_timer is None and not self.closed:
            channel_id, game_id, opened_at = ch.channel_id, g.game_id, vote.opened_at
            g.vote_timer = self.clock.call_at(
                vote.deadline, lambda: self._vote_lapsed(channel_id, game_id, opened_at)
            )

    async def _vote_lapsed(self, channel_id: int, game_id: int, opened_at: float) -> None:
        """The stop vote opened at ``opened_at`` ran out of time: closed, the game goes on."""
        async with self.channels.edit(channel_id) as tx:
            found = tx.running(game_id)
            if found is None:
                return
            ch, g = found
            if g.vote is None or g.vote.opened_at != opened_at:
                return
            g.vote_timer = None
            g.close_vote()
            tx.table_changed(table_view(ch))
            tx.notice(
                "stop_vote",
                Message("not every player agreed to stop in time: the game goes on"),
                players=players_of(ch.series),
            )
