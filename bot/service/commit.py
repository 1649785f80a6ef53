"""The commit core: begin a game, apply an action, stop a game, store each before memory.

Every method runs under the channel's lock (inside a :class:`~bot.service.channels.Transaction`)
and stores first: when the storage refuses, it raises :class:`StorageFailure` with nothing in
memory changed.  A fenced write that lost (:class:`ChannelMoved`, or :class:`GameMoved` for a
live game's row: another process wrote the channel) drops this process's copy of the channel,
which the next command reads again.

**A write whose outcome is unknown.**  When the database stops answering, a write is given
up (:class:`StorageBusy`) but may still be applied: its commit may have reached the server
just before it froze, or wait in the server's buffers and run when it thaws.  Memory keeps the
game as before the write (what the players were last told), and the game is left *in doubt*
(:class:`~bot.state.Doubt`, for every failed fenced write: a cheap rule that needs no
guessing which failures are certain).  The next write of that game first settles it
(:meth:`Commit.settle_doubt`) with the fence: it moves the live row from the revision the
failed write was fenced by to the next one, changing nothing else.  If that works, the failed
write was not applied and can never be now (its fence is gone), and the game goes on.  If the
row had moved on, the database is asked whether it holds exactly that write (the same
snapshot and meta, the same finished game, the same forfeit): then memory takes it on, the
channel is shown the table with it, and the command at hand, which was meant for the older
position, is refused as stale.  Otherwise another process moved the game on (:class:`GameMoved`).
No write is ever applied twice, and nothing a player was told is lost.  Starting a game
(:meth:`Commit.begin_game`) and the other writes of a channel's lobby and series advance the
channel's fence: if such an answer is lost after its commit, the channel's next write loses
its fence (:class:`ChannelMoved`), the copy is dropped, and the command runs again on the
channel as stored (with the game that was started).
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass

from bot.ai_pool import AIPool, ThreadAI
from bot.clock import Clock
from bot.errors import (
    ChannelMoved,
    GameMoved,
    IllegalMove,
    ServiceError,
    StaleAction,
    StorageBusy,
    StorageFailure,
)
from bot.presenter import Notice
from bot.service.channels import Channels, Outbox
from bot.service.owners import Owners
from bot.service.settle import GameEnd, settle
from bot.state import ChannelState, Doubt, GameState, human_plays
from bot.storage import DatabaseBusy, FinishedGame, NewGame, SeriesRecord, Storage
from bot.view_builders import table_view
from bot.views import ActionRecord, AutoKind, TableView
from bot.votes import Forfeit
from rules_engine import Action, Game, IllegalActionError, Rules, serialization
from rules_engine.deal import Deal
from rules_engine.messages import Message

__all__ = ["RECENT", "Commit", "storage_errors"]

log = logging.getLogger(__name__)

RECENT = 6  # actions kept for the table's "last few actions"


@contextlib.contextmanager
def storage_errors() -> Iterator[None]:
    """Turn any failure of the storage inside the block into :class:`StorageFailure`
    (:class:`StorageBusy` when the database did not answer in time), logging it: the request
    is refused and nothing in memory has changed yet.  A refusal the storage makes itself (a
    :class:`ServiceError`: :class:`ChannelMoved`, or :class:`bot.errors.PlayerInPlay` from an
    erasure) passes as it is."""
    try:
        yield
    except ServiceError:  # e.g. ChannelMoved: another process wrote the channel first
        raise
    except DatabaseBusy as exc:
        log.warning("storage busy: %s", exc)  # one line: a hung database gives many
        raise StorageBusy() from exc
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
    #: Which channels' timers this process runs; a game started here is claimed.
    owners: Owners | None = None

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
                log.info(
                    "game %d of channel %d was written by another process: dropped here",
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
        owners = self.owners
        claim = owners is not None and not owners.every and owners.may_own(series.guild_id)
        with self.storage_errors():
            series_id, game_id = await self.storage.start_game(
                series, new, fence=ch.fence, claim=claim
            )
        ch.fence += 1
        series.id = series_id
        series.last_game_id = game_id
        g.game_id = game_id
        g.deadline = deadline
        ch.series = series
        ch.rules = rules
        ch.turn_timeout = turn_timeout
        ch.game = g
        if self.owners is not None and not self.owners.every:
            # the start claimed it where it may; this notes whether the claim held
            await self.owners.claim(ch.channel_id, series.guild_id)
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
            played = game.apply(action)
        except IllegalActionError as exc:
            raise IllegalMove(exc.reason, action=action.text) from None
        player = g.game.played_by[action.seat]  # the player before the move (teams)
        record = ActionRecord(played, auto, None if player == action.seat else player)
        recent = (*g.recent, record)[-RECENT:]
        now = self.clock.now()
        deadline: float | None = None
        nxt = game.player_to_act
        if nxt is not None and human_plays(series.seats, nxt, autopilot, g.forfeits):
            deadline = now + ch.turn_timeout
        new_series: SeriesRecord | None = None
        write: Callable[[], Awaitable[int | None]]
        stored: Callable[[], Awaitable[bool]]
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

            async def write() -> int | None:
                await self.storage.finish_game(
                    done.record, new_series, revision=g.revision, fence=ch.fence
                )
                return None

            stored = self._finish_stored(done.record)
        else:
            snapshot = g.snapshot_json(game)
            meta = g.meta(deadline=deadline, timeouts=timeouts, autopilot=autopilot, recent=recent)

            async def write() -> int | None:
                return await self.storage.save_live(
                    g.game_id, snapshot, meta, game.version, now, revision=g.revision
                )

            stored = self._live_stored(g.game_id, snapshot, meta)

        def adopt() -> None:
            g.game = game
            g.recent = recent
            g.deadline = deadline
            g.timeouts = timeouts
            g.autopilot = autopilot
            if game.finished:
                ch.fence += 1  # the game's end advanced the channel's fence
                self.ai.forget(g.game_id)
            if new_series is not None:
                ch.series = new_series
                g.close_vote()
            self.rearm(ch)

        await self._store(ch, g, write, stored, adopt, t0)

    async def save_meta(
        self,
        ch: ChannelState,
        g: GameState,
        *,
        deadline: float | None,
        timeouts: list[int],
        autopilot: list[bool],
    ) -> None:
        """Store the live game's timer state (its position unchanged), then set it in memory
        and re-arm the turn."""
        snapshot = g.snapshot_json()
        meta = g.meta(deadline=deadline, timeouts=timeouts, autopilot=autopilot)
        version, now = g.game.version, self.clock.now()

        async def write() -> int | None:
            return await self.storage.save_live(
                g.game_id, snapshot, meta, version, now, revision=g.revision
            )

        def adopt() -> None:
            g.autopilot, g.timeouts, g.deadline = autopilot, timeouts, deadline
            self.rearm(ch)

        await self._store(ch, g, write, self._live_stored(g.game_id, snapshot, meta), adopt)

    async def record_forfeit(
        self, ch: ChannelState, g: GameState, forfeit: Forfeit, guild_id: int
    ) -> None:
        """Store ``forfeit`` (fenced), then hand its seat to the AI in memory."""
        seat = forfeit.seat

        async def write() -> int | None:
            return await self.storage.record_forfeit(forfeit, guild_id, revision=g.revision)

        async def stored() -> bool:
            return any(
                f.seat == seat and f.at == forfeit.at
                for f in await self.storage.forfeits_of_game(g.game_id)
            )

        def adopt() -> None:
            g.forfeits[seat] = forfeit
            if g.game.player_to_act == seat:
                g.deadline = None
            self.rearm(ch)

        await self._store(ch, g, write, stored, adopt)

    # ------------------------------------------------------------------ fenced writes
    async def _store(
        self,
        ch: ChannelState,
        g: GameState,
        write: Callable[[], Awaitable[int | None]],
        stored: Callable[[], Awaitable[bool]],
        adopt: Callable[[], None],
        t0: float | None = None,
    ) -> None:
        """Settle ``g``'s doubt, run the fenced ``write`` (it returns the row's new revision,
        or ``None`` when the row is gone), then ``adopt`` its change in memory.  On a failure
        memory is unchanged and, unless the write lost its fence (:class:`GameMoved`), ``g`` is
        left in doubt (see the module docstring): ``stored`` says later whether it was
        applied after all, ``adopt`` is what memory then takes on."""
        await self.settle_doubt(ch, g)
        revision = g.revision
        try:
            with self.storage_errors(g):
                new_revision = await write()
        except ChannelMoved:  # another process wrote the game or its channel: not in doubt
            raise
        except StorageFailure:
            g.doubt = Doubt(revision, stored, adopt)
            raise
        if self.latency_sink is not None and t0 is not None:
            self.latency_sink(time.perf_counter() - t0)
        if new_revision is not None:
            g.revision = new_revision
        adopt()

    async def settle_doubt(self, ch: ChannelState, g: GameState) -> None:
        """Before a write of ``g``: find out whether its last failed write was applied after
        all (see the module docstring).  Not applied: the row's revision moves past it and
        nothing else changes.  Applied: memory takes it on, the channel is shown the table,
        and :class:`StaleAction` refuses the command at hand (it was meant for the position
        before).  :class:`StorageBusy` if the database still does not answer (``g`` stays in
        doubt), :class:`GameMoved` if another process moved the game on."""
        doubt = g.doubt
        if doubt is None:
            return
        with self.storage_errors(g):
            try:
                g.revision = await self.storage.bump_live(
                    g.game_id, self.clock.now(), revision=doubt.revision
                )
            except GameMoved:
                if not await doubt.stored():
                    raise
                applied = True
            else:
                applied = False
        g.doubt = None
        if not applied:
            log.info("game %d: a write given up earlier was not stored", g.game_id)
            return
        log.warning("game %d: a write given up earlier was stored after all: shown now", g.game_id)
        g.revision = doubt.revision + 1
        doubt.adopt()
        outbox = Outbox(self.channels)
        if ch.game is not None:
            outbox.show_table(ch)
        else:  # the write stopped the game and ended the series
            outbox.notice(Notice(ch.channel_id, "series_ended", Message("the series is over")))
        self.channels.publish(outbox)
        raise StaleAction(game_id=g.game_id)

    def _live_stored(self, game_id: int, snapshot: str, meta: str) -> Callable[[], Awaitable[bool]]:
        """Whether the live row of ``game_id`` holds exactly ``snapshot`` and ``meta``."""

        async def stored() -> bool:
            live = await self.storage.load_live(game_id)
            return (
                live is not None
                and live.snapshot == json.loads(snapshot)
                and live.meta == json.loads(meta)
            )

        return stored

    def _finish_stored(self, record: FinishedGame) -> Callable[[], Awaitable[bool]]:
        """Whether the game of ``record`` is stored as ended, with its result and moves."""

        async def stored() -> bool:
            rec = await self.storage.load_game(record.game_id)
            return rec is not None and rec.result == record.result and rec.actions == record.actions

        return stored

    async def end_series(self, ch: ChannelState) -> TableView | None:
        """Store a running game as stopped (see :func:`~bot.service.settle.settle`) and end
        the series; the channel is empty after.  Returns the final table view if a game was
        running."""
        series = ch.series
        assert series is not None and series.id is not None
        now = self.clock.now()
        g = ch.game
        running = g if ch.playing else None
        if running is None:
            with self.storage_errors(g):
                await self.storage.end_series(series.id, now, fence=ch.fence)
            ch.fence += 1
            series.active = False
            ch.series = None
            ch.game = None
            return None
        done = settle(
            GameEnd.STOPPED,
            series,
            running.game_id,
            running.game.history_text(),
            now,
            forfeits=running.forfeits,
        )
        views: list[TableView] = []

        async def write() -> int | None:
            await self.storage.finish_game(
                done.record,
                done.series,
                end_series_at=now,
                revision=running.revision,
                fence=ch.fence,
            )
            return None

        def adopt() -> None:
            ch.fence += 1  # the game's end advanced the channel's fence
            if done.series is not None:
                series.losses = done.series.losses
            running.disarm()
            running.close_vote()
            running.aborted = True
            self.ai.forget(running.game_id)
            running.deadline = None
            views.append(table_view(ch))
            series.active = False
            ch.series = None
            ch.game = None

        await self._store(ch, running, write, self._finish_stored(done.record), adopt)
        return views[0]

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
