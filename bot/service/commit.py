"""The commit core: begin a game, apply an action, stop a game, store each before memory.

Every method runs under the channel's lock (inside a :class:`~bot.service.channels.Transaction`)
and stores first: when the storage refuses, it raises :class:`StorageFailure` with nothing in
memory changed.  A fenced write that lost (:class:`GameMoved`: another process serves the
channel now) drops this process's copy of the channel.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from bot.ai_pool import AIPool, ThreadAI
from bot.clock import Clock
from bot.errors import GameMoved, IllegalMove, ServiceError, StorageFailure
from bot.service.channels import Channels
from bot.service.settle import GameEnd, settle
from bot.state import ChannelState, GameState, human_plays
from bot.storage import NewGame, SeriesRecord, Storage
from bot.view_builders import table_view
from bot.views import ActionRecord, AutoKind, TableView
from rules_engine import Action, Game, IllegalActionError, Rules, serialization
from rules_engine.deal import Deal

__all__ = ["RECENT", "Commit", "storage_errors"]

log = logging.getLogger(__name__)

RECENT = 6  # actions kept for the table's "last few actions"


@contextlib.contextmanager
def storage_errors() -> Iterator[None]:
    """Turn any failure of the storage inside the block into :class:`StorageFailure`,
    logging the traceback: the request is refused and nothing in memory has changed yet.  A
    refusal the storage makes itself (a :class:`ServiceError`: :class:`bot.errors.ChannelMoved`, or
    :class:`bot.errors.PlayerInPlay` from an erasure) passes as it is."""
    try:
        yield
    except ServiceError:  # e.g. ChannelMoved: another process wrote the channel first
        raise
    except Exception as exc:
        log.exception("storage failure")
        raise StorageFailure() from exc


@dataclass(eq=False)
class Commit:
    """Stores and applies the changes of games (see the module docstring).

    ``rearm``: called after every change of a running game, to arm what moves it on (the
    turn driver's :meth:`~bot.service.driver.Driver.rearm`); ``count_ai_games``: whether a
    server rates games with AI seats (its cached setting), read when a game starts and kept
    with the game (:attr:`GameState.count_ai_games`, stored in its meta), so that changing it
    mid-game does not change whether that game is rated; ``latency_sink``: told the seconds
    from receiving an action to having it stored.
    """

    storage: Storage
    clock: Clock
    channels: Channels
    ai: AIPool | ThreadAI
    rearm: Callable[[ChannelState], None]
    count_ai_games: Callable[[int], bool]
    latency_sink: Callable[[float], None] | None = None

    @contextlib.contextmanager
    def storage_errors(self, g: GameState | None = None) -> Iterator[None]:
        """:func:`storage_errors`; a lost fenced write of ``g`` (:class:`GameMoved`) drops
        this process's copy of it."""
        try:
            with storage_errors():
                yield
        except GameMoved:
            if g is not None:
                self.forget_moved_game(g)
            raise

    def forget_moved_game(self, g: GameState) -> None:
        """A fenced write of ``g`` lost: another process serves its channel now.  Forget
        that channel here (game, series, lobby, timer) so this process never writes it again."""
        g.disarm()
        for ch in self.channels:
            if ch.game is g:
                ch.game = ch.series = ch.lobby = None
                self.channels.forget(ch.channel_id)
                log.warning(
                    "game %d of channel %d is served by another process now: dropped here",
                    g.game_id,
                    ch.channel_id,
                )

    async def begin_game(
        self,
        ch: ChannelState,
        series: SeriesRecord,
        rules: Rules,
        turn_timeout: int,
        deal: Deal,
        seed: int,
        *,
        autopilot: Iterable[int] = (),
    ) -> None:
        """Create and store a game (and the series if new), the seats ``autopilot`` starting
        on autopilot; on failure nothing changes."""
        game = Game(rules, deal)
        now = self.clock.now()
        n = game.n
        away = set(autopilot)
        g = GameState(
            game_id=0,
            game=game,
            seed=seed,
            started_at=now,
            timeouts=[0] * n,
            autopilot=[i in away for i in range(n)],
            count_ai_games=self.count_ai_games(series.guild_id),
        )
        deadline = now + turn_timeout if g.human_waits(series) else None
        new = NewGame(
            channel_id=ch.channel_id,
            guild_id=series.guild_id,
            profile=series.profile,
            rules=rules.to_dict(),
            seats=list(series.seats),
            seed=seed,
            deal=deal.to_dict(),
            started_at=now,
            snapshot=g.snapshot_json(),
            meta=g.meta(deadline=deadline),
        )
        with self.storage_errors():
            series_id, game_id = await self.storage.start_game(series, new, fence=ch.fence)
        ch.fence += 1
        series.id = series_id
        series.last_game_id = game_id
        g.game_id = game_id
        g.deadline = deadline
        ch.series = series
        ch.rules = rules
        ch.turn_timeout = turn_timeout
        ch.game = g
        self.rearm(ch)

    async def apply(
        self,
        ch: ChannelState,
        g: GameState,
        action: Action,
        auto: AutoKind,
        timeouts: list[int],
        autopilot: list[bool],
        t0: float,
    ) -> None:
        """Apply ``action`` to a copy, store it, then commit to memory and re-arm the turn.
        Raises :class:`IllegalMove` / :class:`StorageFailure` with nothing changed."""
        series = ch.series
        assert series is not None and series.id is not None
        game = g.game.clone()
        try:
            game.apply(action)
        except IllegalActionError as exc:
            raise IllegalMove(exc.reason, action=action.text) from None
        record = ActionRecord(action.seat, action.kind, tuple(action.cards), auto)
        recent = (*g.recent, record)[-RECENT:]
        now = self.clock.now()
        deadline: float | None = None
        nxt = game.to_act
        if nxt is not None and human_plays(series.seats, nxt, autopilot, g.forfeits):
            deadline = now + ch.turn_timeout
        new_series: SeriesRecord | None = None
        with self.storage_errors(g):
            if game.finished:
                done = settle(
                    GameEnd.FINISHED,
                    series,
                    g.game_id,
                    game.history_text(),
                    now,
                    forfeits=g.forfeits,
                    game=game,
                    count_ai_games=g.count_ai_games,
                )
                new_series = done.series
                await self.storage.finish_game(
                    done.record, new_series, revision=g.revision, fence=ch.fence
                )
                ch.fence += 1
            else:
                g.revision = await self.storage.save_live(
                    g.game_id,
                    g.snapshot_json(game),
                    g.meta(
                        deadline=deadline, timeouts=timeouts, autopilot=autopilot, recent=recent
                    ),
                    game.version,
                    now,
                    revision=g.revision,
                )
        if self.latency_sink is not None:
            self.latency_sink(time.perf_counter() - t0)
        g.game = game
        g.recent = recent
        g.deadline = deadline
        g.timeouts = timeouts
        g.autopilot = autopilot
        if game.finished:
            self.ai.forget(g.game_id)
        if new_series is not None:
            ch.series = new_series
            g.close_vote()
        self.rearm(ch)

    async def save_meta(
        self, g: GameState, *, deadline: float | None, timeouts: list[int], autopilot: list[bool]
    ) -> None:
        """Store the live game's timer state (its position unchanged)."""
        with self.storage_errors(g):
            g.revision = await self.storage.save_live(
                g.game_id,
                g.snapshot_json(),
                g.meta(deadline=deadline, timeouts=timeouts, autopilot=autopilot),
                g.game.version,
                self.clock.now(),
                revision=g.revision,
            )

    async def end_series(self, ch: ChannelState) -> TableView | None:
        """Store a running game as stopped (see :func:`~bot.service.settle.settle`) and end
        the series; the channel is empty after.  Returns the final table view if a game was
        running."""
        series = ch.series
        assert series is not None and series.id is not None
        now = self.clock.now()
        g = ch.game
        running = g if ch.playing else None
        with self.storage_errors(g):
            if running is not None:
                done = settle(
                    GameEnd.STOPPED,
                    series,
                    running.game_id,
                    running.game.history_text(),
                    now,
                    forfeits=running.forfeits,
                )
                await self.storage.finish_game(
                    done.record,
                    done.series,
                    end_series_at=now,
                    revision=running.revision,
                    fence=ch.fence,
                )
                if done.series is not None:
                    series.losses = done.series.losses
            else:
                await self.storage.end_series(series.id, now, fence=ch.fence)
        ch.fence += 1
        view: TableView | None = None
        if running is not None:
            running.disarm()
            running.close_vote()
            running.aborted = True
            self.ai.forget(running.game_id)
            running.deadline = None
            view = table_view(ch)
        series.active = False
        ch.series = None
        ch.game = None
        return view

    async def load_finished(self, s: SeriesRecord) -> GameState | None:
        """Rebuild the last finished game of a series (for the table between games)."""
        assert s.last_game_id is not None
        try:
            rec = await self.storage.load_game(s.last_game_id)
            if rec is None or rec.result not in ("loss", "draw"):
                return None
            rules = Rules.from_spec(rec.rules)
            game = serialization.replay(rules, Deal.from_dict(rec.deal), rec.actions)
            forfeits = await self.storage.forfeits_of_game(rec.game_id)
        except Exception:
            log.exception("last game %d of series %s does not replay", s.last_game_id, s.id)
            return None
        n = game.n
        return GameState(
            rec.game_id,
            game,
            seed=int(rec.deal.get("seed") or 0),
            started_at=0.0,
            timeouts=[0] * n,
            autopilot=[False] * n,
            forfeits={f.seat: f for f in forfeits},
        )
