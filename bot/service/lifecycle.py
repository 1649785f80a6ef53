"""Startup recovery and shutdown: reload what was stored, re-arm it; store what time is left.

Turn deadlines survive a restart: a graceful stop stores each waiting turn's remaining time,
and a crash leaves the stored deadline (a turn whose deadline passed while the bot was down
gets ``restore_grace`` seconds).  A live game whose stored snapshot or meta does not read back
(a value of the wrong type, an illegal move) is set aside: logged, recorded as aborted by
:func:`~bot.service.settle.settle`, its series ended and its channel told and freed; the
other games restore as usual.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass

from bot.errors import ChannelMoved, GameMoved, NoGame
from bot.presenter import Notice
from bot.service.channels import Channels, Outbox
from bot.service.commit import Commit
from bot.service.driver import Driver
from bot.service.options import rules_of
from bot.service.owners import Owners
from bot.service.settings import SettingsStore
from bot.service.settle import GameEnd, settle
from bot.state import BadMeta, ChannelState, GameState, LiveMeta, LobbyState
from bot.storage import LiveRecord, SeriesRecord, StoredState
from bot.terms import HERE
from bot.votes import Forfeit
from rules_engine import DurakError, Game, Rules, from_snapshot, parse_action
from rules_engine.messages import Message

__all__ = ["Lifecycle", "played_on", "restored_deadline"]

log = logging.getLogger(__name__)

#: The channel's notice when its live game did not restore (the series ends with it).
#: The refusal when a channel's live game, written by another process, does not read back.
UNLOADABLE = Message(
    "the game {here} could not be loaded by this bot process: it is left as it was stored",
    here=HERE,
)
UNRESTORABLE_NOTICE = Message(
    "the game {here} could not be restored after the restart: it was recorded as "
    "stopped with no result, and the series ended. Open a new lobby to play again",
    here=HERE,
)


@dataclass(eq=False)
class Lifecycle:
    """:meth:`restore` once at startup, :meth:`close` once at the end (see the module
    docstring; ``include_guild``: the servers this process serves, ``None``: all)."""

    channels: Channels
    commit: Commit
    driver: Driver
    settings: SettingsStore
    turn_timeout: int
    restore_grace: float
    include_guild: Callable[[int], bool] | None
    owners: Owners

    async def restore(self) -> int:
        """Open the storage, reload open lobbies, active series and every live game (replayed
        from its snapshot) of the servers this process serves, re-arm turn timers with the
        time that was left, and resume AI seats.  Presenters get ``table_changed`` and a
        ``restored`` notice per live game.  Returns the number of live games resumed.

        On a shared database a live game is resumed here only if this process claims it
        (:mod:`bot.service.owners`: it had no owner, or its owner is gone); one that another
        live process runs is only held, as a copy for the pages here.

        Opening and reading every live game wait for the database as long as it takes
        (:meth:`Storage.unhurried`: on a large database they may take longer than a player's
        request may wait); no task or timer starts in that block, since they would inherit
        its patience."""
        storage = self.commit.storage
        async with storage.unhurried():
            await storage.open()
            now = self.commit.clock.now()
            for game_id in await storage.discard_orphans(now):
                log.warning("live game %d had no active series: recorded as aborted", game_id)
            state = await storage.load_state(include_guild=self.include_guild)
        for guild_id in sorted(
            {r.guild_id for r in state.lobbies} | {s.guild_id for s in state.series}
        ):
            await self.settings.load(guild_id)
        self._load_tables(state)
        outbox = Outbox(self.channels)
        restored: list[ChannelState] = []
        for live in state.live:
            ch = await self._restore_live(live, now, outbox)
            if ch is not None:
                restored.append(ch)
        for ch in self.channels:
            last = ch.series
            if ch.game is None and last is not None and last.last_game_id is not None:
                ch.game = await self.commit.load_finished(last)
        restored = [ch for ch in restored if self.owners.runs(ch.channel_id)]
        for ch in restored:  # (a game another process runs is held as a copy: it goes on)
            self.driver.schedule(ch)
            outbox.show_table(ch)
            restarted = Message("the bot restarted: the game continues")
            outbox.notice(Notice(ch.channel_id, "restored", restarted))
        self.channels.publish(outbox)
        self.channels.loader = self.load_channel
        log.info(
            "restored %d lobbies, %d series, %d live games",
            len(state.lobbies),
            len(state.series),
            len(restored),
        )
        return len(restored)

    async def load_channel(self, channel_id: int) -> int:
        """Read a channel this process holds nothing of, or holds a stale copy of (another
        process wrote it): its lobby, or its active series and live game (whose timers are
        armed here from then on).  A stale copy stays in the registry until everything is
        read, and is replaced in one step: a reader that takes no lock (a page's snapshot)
        sees the old copy or the new one, never no channel.  Returns the stored fence.  Runs under
        the channel's lock (:attr:`Channels.loader`).  Its timers and AI turns are run here
        if this process owns the channel (:meth:`Owners.settle`): a channel of a server this
        process does not serve is held only to serve its web pages.

        Refuses with :class:`NoGame` if its live game does not read back (the row is left as
        it is: only a restart sets such a row aside)."""
        with self.commit.storage_errors():
            state = await self.commit.storage.load_channel(channel_id)
        fence = state.fences.get(channel_id, 0)
        guilds = {r.guild_id for r in state.lobbies} | {s.guild_id for s in state.series}
        if not guilds:
            self.channels.drop(channel_id)
            return fence
        with self.commit.storage_errors():
            for guild_id in sorted(guilds):
                await self.settings.load(guild_id)
        # Everything is read before the copy is put in the registry, in one step: a reader
        # that takes no lock (a hand, the table) never sees a channel half read.
        series = next((r for r in state.series if r.channel_id == channel_id), None)
        game: GameState | None = None
        now = self.commit.clock.now()
        try:
            for live in state.live:
                if series is None or series.id != live.series_id:
                    continue
                with self.commit.storage_errors():
                    forfeits = await self.commit.storage.forfeits_of_game(live.game_id)
                game = self._live_game(live, series, forfeits, now)
            if game is None and series is not None and series.last_game_id is not None:
                game = await self.commit.load_finished(series)
        except Exception as exc:
            if isinstance(exc, NoGame | ChannelMoved):
                raise
            log.error("channel %d does not load (%s): left as stored", channel_id, exc)
            raise NoGame(UNLOADABLE) from exc
        self.channels.drop(channel_id)
        self._load_tables(state)
        ch = self.channels.get(channel_id)
        assert ch is not None
        ch.game = game
        if ch.playing:
            await self.owners.settle(channel_id, ch.guild_id, state.owners.get(channel_id))
            self.driver.schedule(ch)
        log.debug("channel %d read from storage (fence %d)", channel_id, fence)
        return fence

    def take_live(self, ch: ChannelState, live: LiveRecord, forfeits: list[Forfeit]) -> None:
        """Replace the live game held in ``ch`` by ``live``, a newer revision of the same
        game another process stored (and its forfeits), in one step; its turn re-armed here
        if this process runs the channel.  Raises as :meth:`load_channel` on a row that does
        not restore (nothing changed then)."""
        series = ch.series
        assert series is not None
        old = ch.game
        g = self._live_game(live, series, forfeits, self.commit.clock.now(), old)
        if old is not None:
            old.disarm()
            old.close_vote()
        ch.game = g
        if ch.playing and self.owners.runs(ch.channel_id):
            self.driver.schedule(ch)

    def _live_game(
        self,
        live: LiveRecord,
        series: SeriesRecord,
        forfeits: list[Forfeit],
        now: float,
        held: GameState | None = None,
    ) -> GameState:
        """The game of ``series``' live row (played on from ``held``, an older copy of it,
        where it can be) with its forfeits, its turn's deadline restored."""
        g, meta = self._game_state(live, series.guild_id, now, held)
        g.forfeits = {f.seat: f for f in forfeits}
        if g.human_waits(series):
            timeout = series.options.turn_timeout or self.turn_timeout
            g.deadline = restored_deadline(meta, now, timeout, self.restore_grace)
        return g

    def _load_tables(self, state: StoredState) -> None:
        """Put the stored lobbies and active series in their channels, at their fences."""
        for rec in state.lobbies:
            ch = self.channels.create(rec.channel_id, rec.guild_id)
            ch.lobby = LobbyState(
                rec.channel_id,
                rec.guild_id,
                rec.host_id,
                rec.host_name,
                rec.options,
                rules_of(rec.options),
                rec.options.turn_timeout or self.turn_timeout,
                list(rec.seats),
                rec.created_at,
            )
        for s in state.series:
            ch = self.channels.create(s.channel_id, s.guild_id)
            ch.series = s
            ch.rules = Rules.from_spec(s.rules)
            ch.turn_timeout = s.options.turn_timeout or self.turn_timeout
        for channel_id, fence in state.fences.items():
            held = self.channels.get(channel_id)
            if held is not None:
                held.fence = fence

    async def _restore_live(
        self, live: LiveRecord, now: float, outbox: Outbox
    ) -> ChannelState | None:
        """Put a stored live game back in its channel and claim it; ``None`` if it cannot.
        A row that does not restore (its snapshot or its meta) is set aside
        (:meth:`_set_aside`) and never keeps the other games from restoring."""
        ch = self.channels.get(live.channel_id)
        if ch is None or ch.series is None or ch.series.id != live.series_id:
            log.error("live game %d has no active series: skipped", live.game_id)
            return None
        try:
            g, meta = self._game_state(live, ch.series.guild_id, now)
        except Exception as exc:  # any malformed row: a bad type, a missing key, a bad move
            log.error(
                "live game %d of channel %d does not restore (%s): recorded as aborted",
                live.game_id,
                live.channel_id,
                exc,
                exc_info=not isinstance(exc, BadMeta),
            )
            await self._set_aside(ch, live, now, outbox)
            return None
        ch.game = g
        g.forfeits = {f.seat: f for f in await self.commit.storage.forfeits_of_game(g.game_id)}
        if g.human_waits(ch.series):
            g.deadline = restored_deadline(meta, now, ch.turn_timeout, self.restore_grace)
        if not await self.owners.claim(ch.channel_id, ch.guild_id):
            return ch  # another live process runs it: a copy for the pages here
        try:  # claim the game (a process that served it before is fenced out) and store
            # the re-armed deadline, so that a crash-looping bot still times the turn out
            g.revision = await self.commit.storage.save_live(
                g.game_id,
                g.snapshot_json(),
                g.meta(deadline=g.deadline),
                g.game.version,
                now,
                revision=g.revision,
            )
        except GameMoved:
            self.commit.forget_moved_game(g)
            return None
        return ch

    def _game_state(
        self,
        live: LiveRecord,
        guild_id: int,
        now: float,
        held: GameState | None = None,
    ) -> tuple[GameState, LiveMeta]:
        """The game of a live row (played on from ``held``, an older copy of it, where its
        log continues the copy's: :func:`played_on`; else rebuilt from the row's snapshot)
        and its checked meta (raises on a row that does not restore).  A row stored before
        the game kept its ``count_ai_games`` takes the server's setting at restore (what the
        release that started it would have used when it ended)."""
        game = None if held is None else played_on(held.game, live)
        if game is None or held is None:
            game = from_snapshot(live.snapshot)
            meta = LiveMeta.parse(live.meta, game.n, now)
        else:
            added = game.version - held.game.version
            meta = LiveMeta.parse(live.meta, game.n, now, known=held.recent, added=added)
        count_ai = meta.count_ai_games
        if count_ai is None:
            count_ai = self.settings.count_ai_games_now(guild_id)
        return meta.game_state(live.game_id, game, live.revision, count_ai), meta

    async def _set_aside(
        self, ch: ChannelState, live: LiveRecord, now: float, outbox: Outbox
    ) -> None:
        """A live row that does not restore: record the game as aborted (nothing counted,
        :data:`GameEnd.UNRESTORABLE`), end its series so the channel is free for a new game,
        and tell the channel.  Logged; a storage failure here leaves the row for the next
        start and only this channel unserved."""
        series = ch.series
        assert series is not None
        actions = live.snapshot.get("actions") if isinstance(live.snapshot, dict) else None
        log_ = [a for a in actions if isinstance(a, str)] if isinstance(actions, list) else []
        done = settle(GameEnd.UNRESTORABLE, series, live.game_id, log_, now)
        try:
            await self.commit.storage.finish_game(
                done.record,
                done.series,
                end_series_at=now,
                revision=live.revision,
                fence=ch.fence,
            )
        except ChannelMoved:
            log.warning("live game %d is served by another process now", live.game_id)
        except Exception:
            log.exception("live game %d could not be set aside: channel left idle", live.game_id)
        else:
            outbox.notice(Notice(ch.channel_id, "series_ended", UNRESTORABLE_NOTICE))
        ch.series = ch.game = ch.lobby = None
        self.channels.forget(ch.channel_id)

    async def close(self) -> None:
        """Stop timers, store each waiting turn's remaining time (so a restart re-arms it
        with exactly that)."""
        self.driver.closed = True
        now = self.commit.clock.now()
        for ch in self.channels:
            async with self.channels.edit(ch.channel_id):
                g = ch.game
                if g is None:
                    continue
                if not self.owners.runs(ch.channel_id):  # its owner stores its time left
                    g.disarm()
                    g.close_vote()
                    continue
                g.disarm()
                if g.vote_timer is not None:  # an open stop vote does not outlive the process
                    g.vote_timer.cancel()
                    g.vote_timer = None
                if ch.playing and g.deadline is not None:
                    remaining = max(0.0, g.deadline - now)
                    with contextlib.suppress(Exception):
                        await self.commit.storage.save_live(
                            g.game_id,
                            g.snapshot_json(),
                            g.meta(deadline=g.deadline, remaining=remaining),
                            g.game.version,
                            now,
                            revision=g.revision,
                        )
        if not self.owners.every:  # the others take this process's channels over at once
            self.owners.forget()
            with contextlib.suppress(Exception):
                await self.commit.storage.release_channels()


def restored_deadline(meta: LiveMeta, now: float, turn_timeout: int, grace: float) -> float:
    """The deadline of a human's turn restored at ``now``: the time that was left (stored
    ``remaining`` after a graceful stop, else until the stored deadline), never more than one
    turn (a clock set back must not stretch it), and at least ``grace`` (at most a turn) when
    the stored deadline passed while the bot was down."""
    remaining = meta.remaining
    stored = meta.deadline
    if remaining is not None:
        left = remaining
    elif stored:
        left = max(stored - now, min(grace, turn_timeout))
    else:
        left = float(turn_timeout)
    return now + min(left, float(turn_timeout))


def played_on(held: Game, live: LiveRecord) -> Game | None:
    """``held`` played on with the actions ``live`` stored after it: a copy, when the row's
    log starts with ``held``'s (the actions a process hears of are usually one or two, and
    replaying them costs far less than rebuilding the game); ``None`` when it does not, or
    an action does not apply (the row is then rebuilt, and checked, whole)."""
    snap = live.snapshot
    actions = snap.get("actions") if isinstance(snap, dict) else None
    n = held.version
    if not isinstance(actions, list) or len(actions) != live.version or len(actions) < n:
        return None
    if actions[:n] != held.history_text():
        return None
    game = held.clone()
    try:
        for text in actions[n:]:
            game.apply(parse_action(text))
    except (DurakError, TypeError, ValueError, AttributeError):
        return None
    return game
