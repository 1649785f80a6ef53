"""Startup recovery and shutdown: reload what was stored, re-arm it; store what time is left.

Turn deadlines survive a restart: a graceful stop stores each waiting turn's remaining time,
and a crash leaves the stored deadline (a turn whose deadline passed while the bot was down
gets ``restore_grace`` seconds).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.errors import GameMoved
from bot.presenter import Notice
from bot.service.channels import Channels, Outbox
from bot.service.commit import Commit
from bot.service.driver import Driver
from bot.service.options import rules_of
from bot.service.settings import SettingsStore
from bot.service.settle import GameEnd, settle
from bot.state import ChannelState, GameState, LobbyState
from bot.storage import LiveRecord, StoredState
from bot.views import ActionRecord
from rules_engine import ActionKind, DurakError, Rules, from_snapshot
from rules_engine.cards import parse_card
from rules_engine.messages import Message

__all__ = ["Lifecycle", "restored_deadline"]

log = logging.getLogger(__name__)


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

    async def restore(self) -> int:
        """Open the storage, reload open lobbies, active series and every live game (replayed
        from its snapshot) of the servers this process serves, re-arm turn timers with the
        time that was left, and resume AI seats.  Presenters get ``table_changed`` and a
        ``restored`` notice per live game.  Returns the number of live games resumed."""
        await self.commit.storage.open()
        now = self.commit.clock.now()
        for game_id in await self.commit.storage.discard_orphans(now):
            log.warning("live game %d had no active series: recorded as aborted", game_id)
        state = await self.commit.storage.load_state(include_guild=self.include_guild)
        for guild_id in sorted(
            {r.guild_id for r in state.lobbies} | {s.guild_id for s in state.series}
        ):
            await self.settings.load(guild_id)
        self._load_tables(state)
        restored: list[ChannelState] = []
        for live in state.live:
            ch = await self._restore_live(live, now)
            if ch is not None:
                restored.append(ch)
        for ch in self.channels:
            last = ch.series
            if ch.game is None and last is not None and last.last_game_id is not None:
                ch.game = await self.commit.load_finished(last)
        outbox = Outbox(self.channels.presenters)
        for ch in restored:
            self.driver.schedule(ch)
            outbox.show_table(ch)
            restarted = Message("the bot restarted: the game continues")
            outbox.notice(Notice(ch.channel_id, "restored", restarted))
        self.channels.publish(outbox)
        log.info(
            "restored %d lobbies, %d series, %d live games",
            len(state.lobbies),
            len(state.series),
            len(restored),
        )
        return len(restored)

    def _load_tables(self, state: StoredState) -> None:
        """Put the stored lobbies and active series in their channels."""
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

    async def _restore_live(self, live: LiveRecord, now: float) -> ChannelState | None:
        """Put a stored live game back in its channel and claim it; ``None`` if it cannot."""
        ch = self.channels.get(live.channel_id)
        if ch is None or ch.series is None or ch.series.id != live.series_id:
            log.error("live game %d has no active series: skipped", live.game_id)
            return None
        try:
            game = from_snapshot(live.snapshot)
        except DurakError:
            # Never leave a live row that blocks the channel: record the game as aborted.
            log.exception("live game %d does not restore from its snapshot: aborted", live.game_id)
            actions = list(live.snapshot.get("actions") or [])
            done = settle(GameEnd.UNRESTORABLE, ch.series, live.game_id, actions, now)
            await self.commit.storage.finish_game(done.record, done.series, revision=live.revision)
            return None
        meta = live.meta
        n = game.n
        g = GameState(
            game_id=live.game_id,
            game=game,
            seed=int(meta.get("seed", 0)),
            started_at=float(meta.get("started_at", now)),
            timeouts=list(meta.get("timeouts") or [0] * n),
            autopilot=[bool(x) for x in meta.get("autopilot") or [False] * n],
            revision=live.revision,
        )
        g.recent = tuple(
            ActionRecord(seat, ActionKind(kind), tuple(map(parse_card, cards)), auto)
            for seat, kind, cards, auto in meta.get("recent") or []
        )
        ch.game = g
        g.forfeits = {f.seat: f for f in await self.commit.storage.forfeits_of_game(g.game_id)}
        if g.human_waits(ch.series):
            g.deadline = restored_deadline(meta, now, ch.turn_timeout, self.restore_grace)
        try:  # claim the game (a process that served it before is fenced out) and store
            # the re-armed deadline, so that a crash-looping bot still times the turn out
            g.revision = await self.commit.storage.save_live(
                g.game_id,
                g.snapshot_json(),
                g.meta(deadline=g.deadline),
                game.version,
                now,
                revision=g.revision,
            )
        except GameMoved:
            self.commit.forget_moved_game(g)
            return None
        return ch

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


def restored_deadline(
    meta: Mapping[str, Any], now: float, turn_timeout: int, grace: float
) -> float:
    """The deadline of a human's turn restored at ``now``: the time that was left (stored
    ``remaining`` after a graceful stop, else until the stored deadline), never more than one
    turn (a clock set back must not stretch it), and at least ``grace`` (at most a turn) when
    the stored deadline passed while the bot was down."""
    remaining = meta.get("remaining")
    stored = meta.get("deadline")
    if remaining is not None:
        left = float(remaining)
    elif stored:
        left = max(float(stored) - now, min(grace, turn_timeout))
    else:
        left = float(turn_timeout)
    return now + min(left, float(turn_timeout))
