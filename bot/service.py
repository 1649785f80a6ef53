"""The game service: lobbies, series and games per channel, independent of any transport.

Adapters call the async methods of :class:`GameService` with plain ids (``channel_id``,
``guild_id``, ``user_id``: ints) and display names, receive frozen views (:mod:`bot.views`),
and get a typed :class:`bot.errors.ServiceError` for every refusal.  A refused request changes
nothing, in memory or in the database.  An accepted action is acknowledged (the method
returns) only after it is stored.

A channel holds at most one lobby *or* one series.  A series is a sequence of games with the
same seats; between games (after game over) the channel waits for Rematch / End series, and a
new lobby opened there ends the finished series.  Every channel has its own ``asyncio.Lock``:
each request is validated against the current state and version under that lock, applied,
stored, and only then announced to the presenters; games in different channels never wait on
each other.

Permissions: host actions (add AI, remove a seat, start, stop) accept ``manage_channel=True``
from the adapter as an override (Discord's "Manage Channel").  Rematch and End series are open
to the host and every seated human.

Turns: a human to act has a ``deadline`` (absolute epoch seconds).  When it passes, the engine's
default is played (defender takes, an adding attacker passes, a leader plays the lowest card,
lowest non-trump if any); two timeouts in a row put the player on autopilot (the ``casual`` AI,
else ``beginner``) until they act or ask for their hand again.  AI seats and autopilot decide in
the AI pool (:mod:`bot.ai_pool`: worker processes, fair per channel; no AI code runs on the
event loop's thread), then wait ``ai_delay`` seconds of the injected clock before playing.

AI-only tables (every seat an AI: the host left the lobby, or hosts it from outside) cost the
AI pool the most and no one plays them, so a server runs at most ``max_ai_only_tables`` of them
at once (:data:`bot.ai_pool.MAX_AI_ONLY_TABLES_PER_SERVER`): counted over the games running in
that server's channels when a lobby starts or a series rematches (a finished series waiting for
a rematch costs nothing); the next one is refused with :class:`AIOnlyLimit`.  A table with a
human seat, even one on autopilot, is never refused.  Every game of a server lives in the
process holding its shard, so this process's count is the server's.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from typing import Any

from bot.ai_pool import (
    MAX_AI_ONLY_TABLES_PER_SERVER,
    AIPool,
    AIPoolClosed,
    ThreadAI,
    ai_only_table_refusal,
    hard_limit,
)
from bot.clock import Clock, SystemClock
from bot.errors import (
    AIOnlyLimit,
    AlreadySeated,
    AlreadyStarted,
    BadAction,
    BadOption,
    ChannelBusy,
    GameFinished,
    GameMoved,
    IllegalMove,
    LobbyFull,
    NoGame,
    NoLobby,
    NotEnoughPlayers,
    NotHost,
    NotSeated,
    NotYourTurn,
    ServiceError,
    StaleAction,
    StorageFailure,
    UnknownLevel,
)
from bot.presenter import NoticeKind, Presenter
from bot.state import ChannelState, GameState, LobbyState
from bot.storage import (
    FinishedGame,
    LobbyRecord,
    NewGame,
    PlayerResult,
    SeriesRecord,
    Storage,
)
from bot.view_builders import MAX_SEATS, MIN_SEATS, hand_view, lobby_view, series_view, table_view
from bot.views import (
    ActionRecord,
    AutoKind,
    HandView,
    LeaderboardPage,
    LobbyOptions,
    LobbySeat,
    LobbyView,
    Player,
    SeriesView,
    StatsView,
    TableView,
    action_message,
)
from rules_engine import (
    PROFILES,
    Action,
    ActionKind,
    DurakError,
    Game,
    IllegalActionError,
    Rules,
    deal_from_seed,
    from_snapshot,
    next_dealer_and_leader,
    observation,
    parse_action,
)
from rules_engine.ai import LEVELS, make_agent
from rules_engine.cards import parse_card
from rules_engine.deal import Deal
from rules_engine.hints import timeout_action
from rules_engine.messages import Message, Seat
from rules_engine.serialization import replay

__all__ = ["MAX_TIMEOUT", "MIN_TIMEOUT", "GameService"]

log = logging.getLogger(__name__)

MIN_TIMEOUT, MAX_TIMEOUT = 15, 600
RECENT = 6  # actions kept for the table's "last few actions"
TIMEOUTS_TO_AUTOPILOT = 2
#: RULES.md has no rule that ends a game whose players keep passing cards round and round (a
#: legal cycle exists with an empty stock).  This project's choice: a game that reaches this
#: many actions is stopped like /durak stop (stored as aborted, no loss, the series ends).
MAX_GAME_ACTIONS = 3000
NAME_MAX = 64
RETRY_DELAY = 5.0  # seconds before an automatic move that could not be stored is retried
AI_LEVEL_NAMES = {
    "beginner": "Beginner",
    "casual": "Casual",
    "counter": "Counter",
    "expert": "Expert",
}
_OPTION_KEYS = {f.name for f in dataclasses.fields(LobbyOptions)}


# ---------------------------------------------------------------------------------- service
class GameService:
    """The transport-agnostic game service.  Construct, ``await restore()``, serve,
    ``await close()``.

    :param storage: where everything is stored (opened by :meth:`restore` if needed).
    :param clock: time and timers (default: wall clock on the running loop).
    :param presenters: event sinks (more via :meth:`add_presenter`).
    :param turn_timeout: default seconds per human turn (lobbies may choose 15–600).
    :param ai_delay: seconds an AI seat (or autopilot) waits after deciding, before playing.
    :param seed_source: returns the seed of each new deal (default: cryptographic random).
    :param restore_grace: after a crash, a turn whose deadline already passed gets this many
        seconds (at most the turn timeout) instead of timing out at once.
    :param latency_sink: called with the seconds from receiving an action to having it stored.
    :param autopilot_level: AI level playing for absent players (default ``casual`` if the
        engine has it, else ``beginner``).
    :param ai: where AI decisions run: an :class:`~bot.ai_pool.AIPool` of worker processes
        (the default, owned and closed by the service; ``AI_WORKERS`` sets its size) or a
        :class:`~bot.ai_pool.ThreadAI` (tests, terminal).  Either is fair per channel.  One
        passed in is closed by whoever made it.
    :param ai_concurrency: AI moves being played and stored at once across all channels.
        Further AI moves queue, so that a burst of AI work never delays a human's press: a
        press only competes with this many AI moves.
    :param max_ai_only_tables: AI-only games one server may run at once (see the module
        docstring).
    :param include_guild: the servers this process serves (those on its gateway shards,
        :func:`bot.shards.guild_filter`); :meth:`restore` loads only their lobbies, series and
        games (default: every server).  Stats and leaderboards answer for any server.
    """

    def __init__(
        self,
        storage: Storage,
        *,
        clock: Clock | None = None,
        presenters: Iterable[Presenter] = (),
        turn_timeout: int = 60,
        ai_delay: float = 1.0,
        seed_source: Callable[[], int] | None = None,
        restore_grace: float = 10.0,
        latency_sink: Callable[[float], None] | None = None,
        autopilot_level: str | None = None,
        ai: AIPool | ThreadAI | None = None,
        ai_concurrency: int = 4,
        max_ai_only_tables: int = MAX_AI_ONLY_TABLES_PER_SERVER,
        include_guild: Callable[[int], bool] | None = None,
    ) -> None:
        if not MIN_TIMEOUT <= turn_timeout <= MAX_TIMEOUT:
            raise ValueError(f"turn_timeout must be {MIN_TIMEOUT}–{MAX_TIMEOUT} s")
        if ai_delay < 0:
            raise ValueError("ai_delay must be >= 0")
        self.storage = storage
        self.clock: Clock = clock or SystemClock()
        self.turn_timeout = turn_timeout
        self.ai_delay = ai_delay
        self.restore_grace = restore_grace
        self._seed_source = seed_source or (lambda: secrets.randbits(62))
        self._presenters: list[Presenter] = list(presenters)
        self._channels: dict[int, ChannelState] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._sleeping: set[asyncio.Task[Any]] = set()
        self._activity = asyncio.Event()  # set when a task ends or starts waiting on the clock
        self._latency_sink = latency_sink
        self._closed = False
        self._restored = False
        self.autopilot_level = autopilot_level or _first_level(("casual", "beginner"))
        self._ai_slots = asyncio.Semaphore(ai_concurrency)
        self._own_ai = ai is None
        self._ai: AIPool | ThreadAI = ai if ai is not None else AIPool()
        self.max_ai_only_tables = max_ai_only_tables
        self._include_guild = include_guild

    # ------------------------------------------------------------------ lifecycle
    def add_presenter(self, presenter: Presenter) -> None:
        """Register an event sink (e.g. the Discord adapter)."""
        self._presenters.append(presenter)

    def remove_presenter(self, presenter: Presenter) -> None:
        with contextlib.suppress(ValueError):
            self._presenters.remove(presenter)

    async def restore(self) -> int:
        """Startup recovery: open the storage, reload open lobbies, active series and every
        live game (replayed from its snapshot) of the servers this process serves, re-arm
        turn timers with the time that was left, and resume AI seats.  Presenters get
        ``table_changed`` and a ``restored`` notice per live game.  Returns the number of live
        games resumed."""
        if self._restored:
            raise RuntimeError("restore() runs once, at startup")
        self._restored = True
        await self.storage.open()
        now = self.clock.now()
        for game_id in await self.storage.discard_orphans(now):
            log.warning("live game %d had no active series: recorded as aborted", game_id)
        state = await self.storage.load_state(include_guild=self._include_guild)
        for rec in state.lobbies:
            rules = _rules_of(rec.options)
            ch = self._channel(rec.channel_id, rec.guild_id)
            ch.lobby = LobbyState(
                rec.channel_id,
                rec.guild_id,
                rec.host_id,
                rec.host_name,
                rec.options,
                rules,
                rec.options.turn_timeout or self.turn_timeout,
                list(rec.seats),
                rec.created_at,
            )
        for s in state.series:
            ch = self._channel(s.channel_id, s.guild_id)
            ch.series = s
            ch.rules = Rules.from_spec(s.rules)
            ch.turn_timeout = s.options.turn_timeout or self.turn_timeout
        restored: list[ChannelState] = []
        for live in state.live:
            found = self._channels.get(live.channel_id)
            if found is None or found.series is None or found.series.id != live.series_id:
                log.error("live game %d has no active series: skipped", live.game_id)
                continue
            ch = found
            try:
                game = from_snapshot(live.snapshot)
            except DurakError:
                # Never leave a live row that blocks the channel: record the game as aborted.
                log.exception(
                    "live game %d does not restore from its snapshot: aborted", live.game_id
                )
                owner = found.series
                await self.storage.finish_game(
                    FinishedGame(
                        live.game_id,
                        live.series_id,
                        owner.guild_id,
                        owner.profile,
                        "aborted",
                        None,
                        list(live.snapshot.get("actions") or []),
                        now,
                    ),
                    None,
                    revision=live.revision,
                )
                continue
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
            if self._human_waited(ch, g):
                g.deadline = _restored_deadline(meta, now, ch.turn_timeout, self.restore_grace)
            try:  # claim the game (a process that served it before is fenced out) and store
                # the re-armed deadline, so that a crash-looping bot still times the turn out
                g.revision = await self.storage.save_live(
                    g.game_id,
                    g.snapshot_json(),
                    g.meta(deadline=g.deadline),
                    game.version,
                    now,
                    revision=g.revision,
                )
            except GameMoved:
                self._forget_moved_game(g)
                continue
            restored.append(ch)
        for ch in self._channels.values():
            last = ch.series
            if ch.game is None and last is not None and last.last_game_id is not None:
                ch.game = await self._load_finished(last)
        for ch in restored:
            self._schedule(ch)
            self._emit_table(ch)
            self._notice(
                ch.channel_id, "restored", Message("the bot restarted: the game continues")
            )
        log.info(
            "restored %d lobbies, %d series, %d live games",
            len(state.lobbies),
            len(state.series),
            len(restored),
        )
        return len(restored)

    async def close(self) -> None:
        """Stop timers and AI tasks, store each waiting turn's remaining time (so a restart
        re-arms it with exactly that), and close the storage."""
        self._closed = True
        now = self.clock.now()
        for channel_id, ch in list(self._channels.items()):
            async with self._lock(channel_id):
                g = ch.game
                if g is None:
                    continue
                if g.timer is not None:
                    g.timer.cancel()
                    g.timer = None
                if ch.playing and g.deadline is not None:
                    remaining = max(0.0, g.deadline - now)
                    with contextlib.suppress(Exception):
                        await self.storage.save_live(
                            g.game_id,
                            g.snapshot_json(),
                            g.meta(deadline=g.deadline, remaining=remaining),
                            g.game.version,
                            now,
                            revision=g.revision,
                        )
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._own_ai:
            await self._ai.close()
        await self.storage.close()

    async def wait_idle(self) -> None:
        """Wait until no AI decision, timer action or presenter call is running (tasks
        waiting on the clock for the AI delay do not count).  For tests and the terminal."""
        while True:
            if all(t in self._sleeping or t.done() for t in self._tasks):
                return
            self._activity.clear()
            await self._activity.wait()

    # ------------------------------------------------------------------ lobby
    async def open_lobby(
        self,
        channel_id: int,
        guild_id: int,
        host_id: int,
        host_name: str,
        options: LobbyOptions | Mapping[str, Any] | None = None,
    ) -> LobbyView:
        """Open a lobby in ``channel_id``; the host takes the first seat.

        ``options``: rules profile, rule overrides (``transfer``, ``throw_in``,
        ``first_round_limit``), ``turn_timeout`` (15–600 s), ``seats`` (2–6).  Raises
        :class:`ChannelBusy` if a lobby or a running game is there (a finished series there is
        ended), :class:`BadOption` for an invalid option."""
        opts = _options(options)
        rules = _rules_of(opts)
        name = _clean_name(host_name, host_id)
        async with self._lock(channel_id):
            ch = self._channel(channel_id, guild_id)
            if ch.lobby is not None or ch.playing:
                raise ChannelBusy()
            now = self.clock.now()
            lobby = LobbyState(
                channel_id,
                guild_id,
                host_id,
                name,
                opts,
                rules,
                opts.turn_timeout or self.turn_timeout,
                [LobbySeat(host_id, name)],
                now,
            )
            ended = ch.series
            with self._storage_errors():
                if ended is not None and ended.id is not None:
                    await self.storage.end_series(ended.id, now)
                await self.storage.save_lobby(lobby.record())
            if ended is not None:
                ch.series = None
                ch.game = None
                self._notice(channel_id, "series_ended", Message("the previous series is over"))
            ch.guild_id = guild_id
            ch.lobby = lobby
            view = lobby_view(lobby, "open")
        self._emit(lambda p: p.lobby_changed(view))
        return view

    async def lobby(self, channel_id: int) -> LobbyView:
        """The open lobby of the channel (:class:`NoLobby` if none)."""
        ch = self._channels.get(channel_id)
        if ch is None or ch.lobby is None:
            raise NoLobby()
        return lobby_view(ch.lobby, "open")

    async def join(self, channel_id: int, user_id: int, name: str) -> LobbyView:
        """Take a seat.  :class:`LobbyFull`, :class:`AlreadySeated`, :class:`AlreadyStarted`,
        :class:`NoLobby`."""
        async with self._lock(channel_id):
            lobby = self._need_lobby(channel_id)
            if any(s.user_id == user_id for s in lobby.seats):
                raise AlreadySeated()
            if len(lobby.seats) >= lobby.options.seats:
                raise LobbyFull(
                    Message("the lobby is full ({seats} seats)", seats=lobby.options.seats)
                )
            seats = [*lobby.seats, LobbySeat(user_id, _clean_name(name, user_id))]
            await self._save_lobby(lobby.record(seats))
            lobby.seats = seats
            view = lobby_view(lobby, "open")
        self._emit(lambda p: p.lobby_changed(view))
        return view

    async def leave(self, channel_id: int, user_id: int) -> LobbyView:
        """Free the caller's seat.  A leaving host hands the lobby to the next seated human
        (or stays host of an AI-only lobby); a lobby left with no seat at all closes
        (``status='closed'``)."""
        async with self._lock(channel_id):
            lobby = self._need_lobby(channel_id)
            if not any(s.user_id == user_id for s in lobby.seats):
                raise NotSeated(Message("you are not seated in this lobby"))
            seats = [s for s in lobby.seats if s.user_id != user_id]
            view = await self._update_seats(lobby, seats)
        self._emit(lambda p: p.lobby_changed(view))
        return view

    async def add_ai(
        self,
        channel_id: int,
        requester_id: int,
        level: str = "beginner",
        *,
        manage_channel: bool = False,
    ) -> LobbyView:
        """Seat an AI player of ``level`` (host only).  :class:`UnknownLevel` if the engine
        has no such level."""
        async with self._lock(channel_id):
            lobby = self._need_lobby(channel_id)
            self._need_host(lobby.host_id, requester_id, manage_channel)
            level = str(level).strip().lower()
            try:
                make_agent(level, seed=0)
            except ValueError as exc:
                raise UnknownLevel(
                    Message(
                        "unknown AI level {level}: choose {choices}",
                        level=level,
                        choices=", ".join(LEVELS),
                    ),
                    level=level,
                ) from exc
            if len(lobby.seats) >= lobby.options.seats:
                raise LobbyFull(
                    Message("the lobby is full ({seats} seats)", seats=lobby.options.seats)
                )
            base = f"{AI_LEVEL_NAMES.get(level, level.title())} AI"
            taken = {s.name for s in lobby.seats}
            name = base
            k = 2
            while name in taken:
                name = f"{base} {k}"
                k += 1
            seats = [*lobby.seats, LobbySeat(None, name, level)]
            await self._save_lobby(lobby.record(seats))
            lobby.seats = seats
            view = lobby_view(lobby, "open")
        self._emit(lambda p: p.lobby_changed(view))
        return view

    async def remove_seat(
        self, channel_id: int, requester_id: int, seat: int, *, manage_channel: bool = False
    ) -> LobbyView:
        """Remove the lobby seat at index ``seat`` (host only; e.g. an AI seat)."""
        async with self._lock(channel_id):
            lobby = self._need_lobby(channel_id)
            self._need_host(lobby.host_id, requester_id, manage_channel)
            if not isinstance(seat, int) or not 0 <= seat < len(lobby.seats):
                raise BadOption(Message("there is no seat {seat} in this lobby", seat=repr(seat)))
            seats = [s for i, s in enumerate(lobby.seats) if i != seat]
            view = await self._update_seats(lobby, seats)
        self._emit(lambda p: p.lobby_changed(view))
        return view

    async def start(
        self, channel_id: int, requester_id: int, manage_channel: bool = False
    ) -> TableView:
        """Deal the first game of a new series (host only; 2–6 seats).  The lobby becomes the
        series' seats, in lobby order; the first dealer is drawn from the seed and the lowest
        trump leads (RULES.md §4)."""
        async with self._lock(channel_id):
            lobby = self._need_lobby(channel_id)
            self._need_host(lobby.host_id, requester_id, manage_channel)
            n = len(lobby.seats)
            if not MIN_SEATS <= n <= MAX_SEATS:
                raise NotEnoughPlayers(
                    Message(
                        "a game needs {min} to {max} players, not {value}",
                        min=MIN_SEATS,
                        max=MAX_SEATS,
                        value=n,
                    )
                )
            ch = self._channels[channel_id]
            self._need_ai_only_room(ch, lobby.guild_id, lobby.seats)
            now = self.clock.now()
            series = SeriesRecord(
                id=None,
                channel_id=channel_id,
                guild_id=lobby.guild_id,
                host_id=lobby.host_id,
                host_name=lobby.host_name,
                options=lobby.options,
                rules=lobby.rules.to_dict(),
                profile=_profile(lobby.rules),
                seats=list(lobby.seats),
                losses=[0] * n,
                created_at=now,
            )
            seed = self._seed_source()
            deal = deal_from_seed(n, seed)
            await self._begin_game(ch, series, lobby.rules, lobby.turn_timeout, deal, seed)
            ch.lobby = None
            started = lobby_view(lobby, "started")
            view = table_view(ch)
        self._emit(lambda p: p.lobby_changed(started))
        self._after_change(ch, view)
        return view

    async def stop(self, channel_id: int, requester_id: int, manage_channel: bool = False) -> None:
        """End the lobby, the game or the series of this channel (host or Manage Channel).
        An unfinished game records no loss (it is stored as aborted)."""
        async with self._lock(channel_id):
            ch = self._channels.get(channel_id)
            if ch is None or (ch.lobby is None and ch.series is None):
                raise NoGame(Message("there is no lobby or game in this channel"))
            now = self.clock.now()
            if ch.lobby is not None:
                lobby = ch.lobby
                self._need_host(lobby.host_id, requester_id, manage_channel)
                with self._storage_errors():
                    await self.storage.delete_lobby(channel_id)
                ch.lobby = None
                closed = lobby_view(lobby, "closed")
                self._emit(lambda p: p.lobby_changed(closed))
                self._notice(
                    channel_id, "stopped", Message("the lobby was closed"), user_id=requester_id
                )
                return
            series = ch.series
            assert series is not None and series.id is not None
            self._need_host(series.host_id, requester_id, manage_channel)
            view = await self._end_series_now(ch, now)
        if view is not None:
            self._emit(lambda p: p.table_changed(view))
            self._notice(
                channel_id,
                "stopped",
                Message("the game was stopped: no loss is recorded"),
                user_id=requester_id,
            )
        else:
            self._notice(
                channel_id, "series_ended", Message("the series is over"), user_id=requester_id
            )

    async def _end_series_now(self, ch: ChannelState, now: float) -> TableView | None:
        """Under the channel's lock: store a running game as aborted (no loss) and end the
        series.  Returns the final table view if a game was running."""
        series = ch.series
        assert series is not None and series.id is not None
        g = ch.game
        with self._storage_errors(g):
            if ch.playing and g is not None:
                await self.storage.finish_game(
                    FinishedGame(
                        g.game_id,
                        series.id,
                        series.guild_id,
                        series.profile,
                        "aborted",
                        None,
                        g.game.history_text(),
                        now,
                    ),
                    None,
                    end_series_at=now,
                    revision=g.revision,
                )
            else:
                await self.storage.end_series(series.id, now)
        view: TableView | None = None
        if ch.playing and g is not None:
            self._disarm(g)
            g.aborted = True
            self._ai.forget(g.game_id)
            g.deadline = None
            view = table_view(ch)
        series.active = False
        ch.series = None
        ch.game = None
        return view

    async def _stop_endless_game(self, channel_id: int, game_id: int) -> None:
        """Stop a game that reached :data:`MAX_GAME_ACTIONS` (see there)."""
        async with self._lock(channel_id):
            ch = self._channels.get(channel_id)
            g = ch.game if ch is not None else None
            if ch is None or g is None or g.game_id != game_id or not ch.playing:
                return
            view = await self._end_series_now(ch, self.clock.now())
        if view is not None:
            self._emit(lambda p: p.table_changed(view))
        self._notice(
            channel_id,
            "stopped",
            Message(
                "the game reached {n} moves without an end and was stopped: no loss is recorded",
                n=MAX_GAME_ACTIONS,
            ),
        )

    # ------------------------------------------------------------------ game
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
        (``.reason`` is the engine's).  Acting turns the player's autopilot off."""
        t0 = time.perf_counter()
        async with self._lock(channel_id):
            ch, g = self._need_game(channel_id)
            seat = self._seat_of(ch, user_id)
            act = _parse(action, seat)
            if (game_id is not None and game_id != g.game_id) or (
                version is not None and version != g.game.version
            ):
                raise StaleAction(expected=g.game.version, got=version, game_id=g.game_id)
            game = g.game
            if game.to_act != seat:
                reason = game.explain(act)
                raise NotYourTurn(
                    Message("it is not your turn") if reason is None else reason, to_act=game.to_act
                )
            timeouts = list(g.timeouts)
            timeouts[seat] = 0
            autopilot = list(g.autopilot)
            was_auto = autopilot[seat]
            autopilot[seat] = False
            await self._apply(ch, g, act, None, timeouts, autopilot, t0)
            view = table_view(ch)
        if was_auto:
            self._notice(
                channel_id,
                "autopilot_off",
                Message("{name} is back", name=Seat(seat)),
                user_id=user_id,
                players=_players(ch),
            )
        self._after_change(ch, view)
        return view

    async def hand(self, channel_id: int, user_id: int) -> HandView:
        """The caller's private hand view (show it to that user only).  Asking for one's hand
        counts as being present: it turns the caller's autopilot off."""
        async with self._lock(channel_id):
            ch, g = self._need_game(channel_id, allow_finished=True)
            seat = self._seat_of(ch, user_id)
            back = False
            if ch.playing and g.autopilot[seat]:
                autopilot = list(g.autopilot)
                autopilot[seat] = False
                timeouts = list(g.timeouts)
                timeouts[seat] = 0
                deadline = g.deadline
                if g.game.to_act == seat:
                    deadline = self.clock.now() + ch.turn_timeout
                await self._save_meta(g, deadline=deadline, timeouts=timeouts, autopilot=autopilot)
                g.autopilot, g.timeouts, g.deadline = autopilot, timeouts, deadline
                self._schedule(ch)
                back = True
            view = hand_view(ch, g, seat)
        if back:
            self._notice(
                channel_id,
                "autopilot_off",
                Message("{name} is back", name=Seat(seat)),
                user_id=user_id,
                players=_players(ch),
            )
            self._emit_table(ch)
        return view

    async def table(self, channel_id: int) -> TableView:
        """The public table of the channel's current (or just finished) game."""
        ch = self._channels.get(channel_id)
        if ch is None or ch.game is None:
            if ch is not None and ch.lobby is not None:
                raise NoGame(Message("the game has not started yet"))
            raise NoGame()
        return table_view(ch)

    def seat_of(self, channel_id: int, user_id: int) -> int | None:
        """The user's seat in the channel's series, if any (no error)."""
        ch = self._channels.get(channel_id)
        if ch is None or ch.series is None:
            return None
        return next((i for i, s in enumerate(ch.series.seats) if s.user_id == user_id), None)

    def state(self, channel_id: int) -> str:
        """``none``, ``lobby``, ``playing`` or ``finished`` (game over, series open)."""
        ch = self._channels.get(channel_id)
        if ch is None:
            return "none"
        if ch.lobby is not None:
            return "lobby"
        if ch.playing:
            return "playing"
        return "finished" if ch.series is not None else "none"

    def live_channels(self) -> list[int]:
        """Channels with a game in progress."""
        return [c for c, ch in self._channels.items() if ch.playing]

    # ------------------------------------------------------------------ series
    async def rematch(
        self, channel_id: int, requester_id: int, manage_channel: bool = False
    ) -> TableView:
        """Deal the next game of the series with the same seats: the loser deals and the
        loser's left neighbour leads; after a draw the same dealer deals again and the dealer's
        left neighbour leads (RULES.md §4).  Open to the host and every seated human."""
        async with self._lock(channel_id):
            ch = self._channels.get(channel_id)
            if ch is None or ch.series is None:
                raise NoGame(Message("there is no series in this channel"))
            if ch.playing:
                raise AlreadyStarted(Message("the game is still running"))
            series = ch.series
            self._need_member(series, requester_id, manage_channel)
            if series.last_dealer is None or ch.rules is None:
                raise NoGame(Message("there is no finished game to follow"))
            self._need_ai_only_room(ch, series.guild_id, series.seats)
            n = len(series.seats)
            dealer, _leader = next_dealer_and_leader(n, series.last_dealer, series.last_loser)
            seed = self._seed_source()
            deal = deal_from_seed(n, seed, dealer=dealer, first_of_series=False)
            await self._begin_game(ch, series, ch.rules, ch.turn_timeout, deal, seed)
            view = table_view(ch)
        self._after_change(ch, view)
        return view

    async def end_series(
        self, channel_id: int, requester_id: int, manage_channel: bool = False
    ) -> SeriesView:
        """Close the series after a game (host or any seated human); returns the final
        standings.  A running game must be stopped instead (:class:`AlreadyStarted`)."""
        async with self._lock(channel_id):
            ch = self._channels.get(channel_id)
            if ch is None or ch.series is None:
                raise NoGame(Message("there is no series in this channel"))
            if ch.playing:
                raise AlreadyStarted(
                    Message("a game is running: finish it, or the host can stop it")
                )
            series = ch.series
            self._need_member(series, requester_id, manage_channel)
            assert series.id is not None
            with self._storage_errors():
                await self.storage.end_series(series.id, self.clock.now())
            series.active = False
            view = series_view(series)
            ch.series = None
            ch.game = None
        self._notice(
            channel_id, "series_ended", Message("the series is over"), user_id=requester_id
        )
        return view

    async def series(self, channel_id: int) -> SeriesView:
        """Loss counts of the channel's current series."""
        ch = self._channels.get(channel_id)
        if ch is None or ch.series is None:
            raise NoGame(Message("there is no series in this channel"))
        return series_view(ch.series)

    # ------------------------------------------------------------------ stats
    async def stats(self, guild_id: int, user_id: int, profile: str | None = None) -> StatsView:
        """A player's finished games in this guild: games, losses, draws, loss rate, per rule
        profile (``profile`` restricts to one: a profile name or ``custom``)."""
        profile = _profile_filter(profile)
        with self._storage_errors():
            name, rows = await self.storage.player_stats(guild_id, user_id, profile)
        return StatsView(
            guild_id=guild_id,
            user_id=user_id,
            name=name,
            profile=profile,
            games=sum(r.games for r in rows),
            losses=sum(r.losses for r in rows),
            draws=sum(r.draws for r in rows),
            by_profile=tuple(rows),
        )

    async def leaderboard(
        self,
        guild_id: int,
        profile: str | None = None,
        min_games: int = 1,
        page: int = 1,
        per_page: int = 10,
    ) -> LeaderboardPage:
        """The guild's players ranked by loss rate, fewest losses per game first, among those
        with at least ``min_games`` finished games (of ``profile`` if given).  ``page`` is
        1-based; a page past the end is empty."""
        profile = _profile_filter(profile)
        if not isinstance(min_games, int) or isinstance(min_games, bool) or min_games < 1:
            raise BadOption(Message("min_games must be a whole number ≥ 1"))
        if not isinstance(page, int) or isinstance(page, bool) or page < 1:
            raise BadOption(Message("page must be a whole number ≥ 1"))
        if not isinstance(per_page, int) or not 1 <= per_page <= 50:
            raise BadOption(Message("per_page must be 1–50"))
        with self._storage_errors():
            total, rows = await self.storage.leaderboard(
                guild_id, profile, min_games, per_page, (page - 1) * per_page
            )
        pages = max(1, -(-total // per_page))
        return LeaderboardPage(
            guild_id, profile, min_games, page, pages, per_page, total, tuple(rows)
        )

    # ================================================================== internals
    def _lock(self, channel_id: int) -> asyncio.Lock:
        lock = self._locks.get(channel_id)
        if lock is None:
            lock = self._locks[channel_id] = asyncio.Lock()
        return lock

    def _channel(self, channel_id: int, guild_id: int) -> ChannelState:
        ch = self._channels.get(channel_id)
        if ch is None:
            ch = self._channels[channel_id] = ChannelState(channel_id, guild_id)
        return ch

    def _need_lobby(self, channel_id: int) -> LobbyState:
        ch = self._channels.get(channel_id)
        if ch is None or ch.lobby is None:
            if ch is not None and ch.playing:
                raise AlreadyStarted()
            raise NoLobby()
        return ch.lobby

    def _need_game(
        self, channel_id: int, *, allow_finished: bool = False
    ) -> tuple[ChannelState, GameState]:
        ch = self._channels.get(channel_id)
        if ch is None or ch.game is None:
            if ch is not None and ch.lobby is not None:
                raise NoGame(Message("the game has not started yet"))
            raise NoGame()
        if not allow_finished and not ch.playing:
            raise GameFinished()
        return ch, ch.game

    @staticmethod
    def _need_host(host_id: int, requester_id: int, manage_channel: bool) -> None:
        if requester_id != host_id and not manage_channel:
            raise NotHost()

    @staticmethod
    def _need_member(series: SeriesRecord, requester_id: int, manage_channel: bool) -> None:
        if manage_channel or requester_id == series.host_id:
            return
        if any(s.user_id == requester_id for s in series.seats):
            return
        raise NotSeated(Message("only the players of this series (or the host) can do that"))

    @staticmethod
    def _seat_of(ch: ChannelState, user_id: int) -> int:
        assert ch.series is not None
        for i, s in enumerate(ch.series.seats):
            if s.user_id == user_id:
                return i
        raise NotSeated()

    def _need_ai_only_room(
        self, ch: ChannelState, guild_id: int, seats: Iterable[LobbySeat]
    ) -> None:
        """Refuse (:class:`AIOnlyLimit`) to deal an AI-only game in ``ch`` when its server
        already runs ``max_ai_only_tables`` AI-only games in other channels."""
        if any(s.user_id is not None for s in seats):
            return
        running = sum(
            1
            for other in self._channels.values()
            if other is not ch
            and other.guild_id == guild_id
            and other.playing
            and other.series is not None
            and all(s.user_id is None for s in other.series.seats)
        )
        refusal = ai_only_table_refusal(running, self.max_ai_only_tables)
        if refusal is not None:
            raise AIOnlyLimit(refusal, running=running, cap=self.max_ai_only_tables)

    async def _save_lobby(self, rec: LobbyRecord) -> None:
        with self._storage_errors():
            await self.storage.save_lobby(rec)

    async def _update_seats(self, lobby: LobbyState, seats: list[LobbySeat]) -> LobbyView:
        """Store new seats (handing over or closing the lobby as needed); returns its view."""
        ch = self._channels[lobby.channel_id]
        if not seats:
            with self._storage_errors():
                await self.storage.delete_lobby(lobby.channel_id)
            ch.lobby = None
            lobby.seats = []
            return lobby_view(lobby, "closed")
        host = (lobby.host_id, lobby.host_name)
        if not any(s.user_id == lobby.host_id for s in seats):
            heir = next((s for s in seats if s.user_id is not None), None)
            if heir is not None and heir.user_id is not None:
                host = (heir.user_id, heir.name)
        await self._save_lobby(lobby.record(seats, host))
        lobby.seats = seats
        lobby.host_id, lobby.host_name = host
        return lobby_view(lobby, "open")

    async def _begin_game(
        self,
        ch: ChannelState,
        series: SeriesRecord,
        rules: Rules,
        turn_timeout: int,
        deal: Deal,
        seed: int,
    ) -> None:
        """Create and store a game (and the series if new); on failure nothing changes."""
        game = Game(rules, deal)
        now = self.clock.now()
        n = game.n
        g = GameState(
            game_id=0, game=game, seed=seed, started_at=now, timeouts=[0] * n, autopilot=[False] * n
        )
        probe = ChannelState(
            ch.channel_id,
            ch.guild_id,
            series=series,
            rules=rules,
            turn_timeout=turn_timeout,
            game=g,
        )
        deadline = now + turn_timeout if self._human_waited(probe, g) else None
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
        with self._storage_errors():
            series_id, game_id = await self.storage.start_game(series, new)
        series.id = series_id
        series.last_game_id = game_id
        g.game_id = game_id
        g.deadline = deadline
        ch.series = series
        ch.rules = rules
        ch.turn_timeout = turn_timeout
        ch.game = g
        self._schedule(ch)

    def _human_waited(self, ch: ChannelState, g: GameState) -> bool:
        """Whether the seat to act is a human not on autopilot (so a deadline runs)."""
        seat = g.game.to_act
        if seat is None or ch.series is None or g.aborted:
            return False
        return ch.series.seats[seat].ai_level is None and not g.autopilot[seat]

    async def _apply(
        self,
        ch: ChannelState,
        g: GameState,
        action: Action,
        auto: AutoKind,
        timeouts: list[int],
        autopilot: list[bool],
        t0: float,
    ) -> None:
        """Under the channel lock: apply ``action`` to a copy, store it, then commit to memory
        and re-arm the turn.  Raises :class:`IllegalMove` / :class:`StorageFailure` with
        nothing changed."""
        series = ch.series
        assert series is not None and series.id is not None
        game = g.game.clone()
        try:
            game.apply(action)
        except IllegalActionError as exc:
            raise IllegalMove(exc.reason, action=action.text) from None
        seat = action.seat
        record = ActionRecord(seat, action.kind, tuple(action.cards), auto)
        recent = (*g.recent, record)[-RECENT:]
        now = self.clock.now()
        deadline: float | None = None
        nxt = game.to_act
        if nxt is not None and series.seats[nxt].ai_level is None and not autopilot[nxt]:
            deadline = now + ch.turn_timeout
        new_series: SeriesRecord | None = None
        with self._storage_errors(g):
            if game.finished:
                new_series = dataclasses.replace(
                    series, losses=list(series.losses), seats=list(series.seats)
                )
                new_series.games += 1
                new_series.last_dealer = game.deal.dealer
                new_series.last_loser = game.loser
                if game.loser is None:
                    new_series.draws += 1
                else:
                    new_series.losses[game.loser] += 1
                players = [
                    PlayerResult(i, s.user_id, s.name, game.loser == i, game.draw)
                    for i, s in enumerate(series.seats)
                    if s.user_id is not None
                ]
                await self.storage.finish_game(
                    FinishedGame(
                        g.game_id,
                        series.id,
                        series.guild_id,
                        series.profile,
                        "draw" if game.draw else "loss",
                        game.loser,
                        game.history_text(),
                        now,
                        players,
                    ),
                    new_series,
                    revision=g.revision,
                )
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
        if self._latency_sink is not None:
            self._latency_sink(time.perf_counter() - t0)
        g.game = game
        g.recent = recent
        g.deadline = deadline
        g.timeouts = timeouts
        g.autopilot = autopilot
        if game.finished:
            self._ai.forget(g.game_id)
        if new_series is not None:
            ch.series = new_series
        self._schedule(ch)
        if not game.finished and game.version >= MAX_GAME_ACTIONS:
            self._spawn(self._stop_endless_game(ch.channel_id, g.game_id))

    async def _save_meta(
        self, g: GameState, *, deadline: float | None, timeouts: list[int], autopilot: list[bool]
    ) -> None:
        with self._storage_errors(g):
            g.revision = await self.storage.save_live(
                g.game_id,
                g.snapshot_json(),
                g.meta(deadline=deadline, timeouts=timeouts, autopilot=autopilot),
                g.game.version,
                self.clock.now(),
                revision=g.revision,
            )

    @contextlib.contextmanager
    def _storage_errors(self, g: GameState | None = None) -> Iterator[None]:
        """Turn any failure of the storage inside the block into :class:`StorageFailure`,
        logging the traceback: the request is refused and nothing in memory has changed yet.
        A lost fenced write of ``g`` (:class:`GameMoved`) drops this process's copy of it."""
        try:
            yield
        except GameMoved:
            if g is not None:
                self._forget_moved_game(g)
            raise
        except Exception as exc:
            log.exception("storage failure")
            raise StorageFailure() from exc

    def _forget_moved_game(self, g: GameState) -> None:
        """A fenced write of ``g`` lost: another process serves its channel now.  Forget
        that channel here (game, series, lobby, timer) so this process never writes it again."""
        self._disarm(g)
        for channel_id, ch in list(self._channels.items()):
            if ch.game is g:
                ch.game = ch.series = ch.lobby = None
                del self._channels[channel_id]
                log.warning(
                    "game %d of channel %d is served by another process now: dropped here",
                    g.game_id,
                    channel_id,
                )

    # ------------------------------------------------------------------ drivers
    def _disarm(self, g: GameState) -> None:
        if g.timer is not None:
            g.timer.cancel()
            g.timer = None

    def _schedule(self, ch: ChannelState) -> None:
        """Arm what moves the game on: the turn timer of a waiting human, or an AI task."""
        g = ch.game
        if g is None:
            return
        self._disarm(g)
        if self._closed or not ch.playing or ch.series is None:
            return
        seat = g.game.to_act
        assert seat is not None
        version = g.game.version
        if self._human_waited(ch, g):
            if g.deadline is None:  # e.g. autopilot switched off on someone else's move
                g.deadline = self.clock.now() + ch.turn_timeout
            channel_id, game_id = ch.channel_id, g.game_id
            g.timer = self.clock.call_at(
                g.deadline, lambda: self._on_timeout(channel_id, game_id, version)
            )
        else:
            self._spawn(self._ai_turn(ch.channel_id, g.game_id, version, seat))

    async def _on_timeout(self, channel_id: int, game_id: int, version: int) -> None:
        t0 = time.perf_counter()
        notices: list[tuple[NoticeKind, Message, int | None]] = []
        async with self._lock(channel_id):
            ch = self._channels.get(channel_id)
            if ch is None or ch.game is None or ch.game.game_id != game_id or not ch.playing:
                return
            g = ch.game
            if g.game.version != version or not self._human_waited(ch, g):
                return
            assert ch.series is not None
            action = timeout_action(g.game)
            seat = action.seat
            seat_info = ch.series.seats[seat]
            timeouts = list(g.timeouts)
            timeouts[seat] += 1
            autopilot = list(g.autopilot)
            if timeouts[seat] >= TIMEOUTS_TO_AUTOPILOT:
                autopilot[seat] = True
            try:
                await self._apply(ch, g, action, "timeout", timeouts, autopilot, t0)
            except ServiceError:
                log.exception(
                    "timeout action failed in channel %d: retrying in %s s", channel_id, RETRY_DELAY
                )
                self._retry_later(ch, g, version)
                return
            notices.append(
                (
                    "timeout",
                    Message(
                        "{name} ran out of time: {action}",
                        name=Seat(seat),
                        action=action_message(action.kind, tuple(action.cards)),
                    ),
                    seat_info.user_id,
                )
            )
            if autopilot[seat] and timeouts[seat] == TIMEOUTS_TO_AUTOPILOT:
                notices.append(
                    (
                        "autopilot_on",
                        Message("{name} is on autopilot until they come back", name=Seat(seat)),
                        seat_info.user_id,
                    )
                )
            view = table_view(ch)
        for kind, message, uid in notices:
            self._notice(channel_id, kind, message, user_id=uid, players=_players(ch))
        self._after_change(ch, view)

    async def _ai_turn(self, channel_id: int, game_id: int, version: int, seat: int) -> None:
        """Decide for an AI seat (or a player on autopilot) in the AI pool, wait the AI
        delay, then play if nothing changed meanwhile.  Playing takes one of the
        ``ai_concurrency`` slots (deciding is queued fairly per channel by the pool itself)."""
        ch = self._channels.get(channel_id)
        if ch is None or ch.game is None or ch.game.game_id != game_id or ch.series is None:
            return
        g = ch.game

        def current() -> bool:
            return (
                ch.game is g
                and ch.playing
                and g.game.version == version
                and g.game.to_act == seat
                and ch.series is not None
                and (ch.series.seats[seat].ai_level is not None or g.autopilot[seat])
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
            text = await self._ai.decide(
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
            task = asyncio.current_task()
            if task is not None:
                self._sleeping.add(task)
                self._activity.set()
            try:
                await self.clock.sleep(self.ai_delay)
            finally:
                if task is not None:
                    self._sleeping.discard(task)
        view: TableView | None = None
        async with self._ai_slots:
            t0 = time.perf_counter()
            async with self._lock(channel_id):
                if not current():
                    return
                if action is None or action.seat != seat or not g.game.can_apply(action):
                    if action is not None:
                        log.error("AI %s chose an illegal action %s", level, action)
                    action = timeout_action(g.game)
                auto: AutoKind = "autopilot" if ch.series.seats[seat].ai_level is None else None
                try:
                    await self._apply(ch, g, action, auto, list(g.timeouts), list(g.autopilot), t0)
                except ServiceError:
                    log.exception(
                        "AI move failed in channel %d: retrying in %s s", channel_id, RETRY_DELAY
                    )
                    self._retry_later(ch, g, version)
                    return
                if self._presenters:
                    view = table_view(ch)
        if view is not None:
            self._after_change(ch, view)

    def _retry_later(self, ch: ChannelState, g: GameState, version: int) -> None:
        """After a failed automatic move (storage down?), try again in a while."""

        async def again() -> None:
            async with self._lock(ch.channel_id):
                if ch.game is g and ch.playing and g.game.version == version:
                    self._schedule(ch)

        self._disarm(g)
        g.timer = self.clock.call_at(self.clock.now() + RETRY_DELAY, again)

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        self._sleeping.discard(task)
        self._activity.set()
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed", exc_info=task.exception())

    # ------------------------------------------------------------------ presenters
    def _emit(self, event: Callable[[Presenter], Awaitable[None]]) -> None:
        """Run ``event`` for every presenter, each in a task of its own (see :meth:`_present`).
        ``event`` runs later: it must only use values that are not reassigned meanwhile."""
        for p in self._presenters:
            self._spawn(self._present(p, event))

    def _emit_hand(self, channel_id: int, user_id: int, view: HandView) -> None:
        self._emit(lambda p: p.hand_changed(channel_id, user_id, view))

    @staticmethod
    async def _present(p: Presenter, event: Callable[[Presenter], Awaitable[None]]) -> None:
        """Run one presenter event; a failing presenter is logged and never breaks a game."""
        try:
            await event(p)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("presenter %r failed", p)

    def _notice(
        self,
        channel_id: int,
        kind: NoticeKind,
        message: Message,
        *,
        user_id: int | None = None,
        players: tuple[Player, ...] = (),
    ) -> None:
        self._emit(lambda p: p.notice(channel_id, kind, message, user_id=user_id, players=players))

    def _emit_table(self, ch: ChannelState) -> None:
        if self._presenters and ch.game is not None:
            self._after_change(ch, table_view(ch))

    def _after_change(self, ch: ChannelState, view: TableView) -> None:
        """Tell presenters: the table, every seated human's hand, and game over."""
        if not self._presenters:
            return
        self._emit(lambda p: p.table_changed(view))
        g = ch.game
        if g is not None and ch.series is not None and g.game_id == view.game_id:
            for seat, s in enumerate(ch.series.seats):
                if s.user_id is not None:
                    self._emit_hand(ch.channel_id, s.user_id, hand_view(ch, g, seat))
        if view.finished:
            self._emit(lambda p: p.game_over(view))

    async def _load_finished(self, s: SeriesRecord) -> GameState | None:
        """Rebuild the last finished game of a series (for the table between games)."""
        assert s.last_game_id is not None
        try:
            rec = await self.storage.load_game(s.last_game_id)
            if rec is None or rec.result not in ("loss", "draw"):
                return None
            game = replay(Rules.from_spec(rec.rules), Deal.from_dict(rec.deal), rec.actions)
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
        )


# ---------------------------------------------------------------------------------- helpers
def _players(ch: ChannelState) -> tuple[Player, ...]:
    """Who sits at each seat of the channel's series (to name ``Seat`` parameters)."""
    if ch.series is None:
        return ()
    return tuple(Player(s.name, s.ai_level) for s in ch.series.seats)


def _first_level(levels: Iterable[str]) -> str:
    for level in levels:
        try:
            make_agent(level, seed=0)
        except ValueError:
            continue
        return level
    raise RuntimeError("the rules engine provides no AI level")


def _restored_deadline(
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


def _clean_name(name: object, user_id: int) -> str:
    text = " ".join(str(name or "").split())[:NAME_MAX]
    return text or f"Player {user_id}"


def _options(options: LobbyOptions | Mapping[str, Any] | None) -> LobbyOptions:
    if options is None:
        opts = LobbyOptions()
    elif isinstance(options, LobbyOptions):
        opts = options
    elif isinstance(options, Mapping):
        unknown = set(options) - _OPTION_KEYS
        if unknown:
            raise BadOption(
                Message("unknown option(s): {value}", value=", ".join(sorted(map(str, unknown))))
            )
        opts = LobbyOptions(**{k: v for k, v in options.items() if v is not None})
    else:
        raise BadOption(Message("options must be LobbyOptions or a mapping"))
    if not isinstance(opts.rules, str) or opts.rules.strip().lower() not in PROFILES:
        raise BadOption(
            Message(
                "unknown rules {value}: choose {choices}",
                value=repr(opts.rules),
                choices=", ".join(PROFILES),
            )
        )
    t = opts.turn_timeout
    if t is not None and (
        not isinstance(t, int) or isinstance(t, bool) or not MIN_TIMEOUT <= t <= MAX_TIMEOUT
    ):
        raise BadOption(
            Message(
                "turn_timeout must be {min}–{max} seconds, not {value}",
                min=MIN_TIMEOUT,
                max=MAX_TIMEOUT,
                value=repr(t),
            )
        )
    n = opts.seats
    if not isinstance(n, int) or isinstance(n, bool) or not MIN_SEATS <= n <= MAX_SEATS:
        raise BadOption(
            Message(
                "seats must be {min}–{max}, not {value}",
                min=MIN_SEATS,
                max=MAX_SEATS,
                value=repr(n),
            )
        )
    return dataclasses.replace(opts, rules=opts.rules.strip().lower())


def _rules_of(opts: LobbyOptions) -> Rules:
    spec: dict[str, Any] = {"profile": opts.rules}
    if opts.transfer is not None:
        spec["transfer"] = opts.transfer
    if opts.throw_in is not None:
        spec["throw_in"] = opts.throw_in
    if opts.first_round_limit is not None:
        spec["first_round_limit"] = opts.first_round_limit
    if opts.throw_in is not None and opts.throw_in not in ("neighbours", "all"):
        raise BadOption(
            Message("throw_in must be neighbours or all, not {value}", value=repr(opts.throw_in))
        )
    if opts.first_round_limit is not None and opts.first_round_limit not in (5, 6):
        raise BadOption(
            Message(
                "first_round_limit must be 5 or 6, not {value}", value=repr(opts.first_round_limit)
            )
        )
    if opts.transfer is not None and not isinstance(opts.transfer, bool):
        raise BadOption(
            Message("transfer must be true or false, not {value}", value=repr(opts.transfer))
        )
    try:
        return Rules.from_spec(spec)
    except DurakError as exc:
        log.info("rule options refused: %s", exc)
        raise BadOption() from exc


def _profile(rules: Rules) -> str:
    return rules.profile or "custom"


def _profile_filter(profile: str | None) -> str | None:
    if profile is None:
        return None
    p = str(profile).strip().lower()
    if p not in PROFILES and p != "custom":
        raise BadOption(
            Message(
                "unknown profile {value}: choose {choices} or custom",
                value=repr(profile),
                choices=", ".join(PROFILES),
            )
        )
    return p


def _parse(action: str | Action, seat: int) -> Action:
    if isinstance(action, Action):
        act = action
    else:
        if not isinstance(action, str) or not action.strip():
            raise BadAction()
        typed = action.strip()
        text = typed if typed.split()[0].isdigit() else f"{seat} {typed}"
        try:
            act = parse_action(text)
        except DurakError as exc:
            raise BadAction(
                Message(
                    "{text} is not an action: try 'attack 8♥', 'defend 8♥ 9♥', 'take' or 'pass'",
                    text=repr(typed),
                )
            ) from exc
    if act.seat != seat:
        raise BadAction(
            Message(
                "that action is for {seat}; you sit at {other}",
                seat=Seat(act.seat),
                other=Seat(seat),
            )
        )
    if act.kind not in ActionKind:  # pragma: no cover - Action validates its kind
        raise BadAction()
    return act
