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

Permissions: host actions (add AI, remove a seat, kick from a lobby, start, close a lobby)
accept ``manage_channel=True`` from the adapter as an override (Discord's "Manage Channel").
Rematch and End series are open to the host and every seated human.  A running game is stopped
only by a vote of every seated human who has not forfeited (60 s, :class:`bot.votes.StopVote`)
or at once by a member with Manage Channel; a player leaving it, or kicked from it (Manage
Channel), forfeits: recorded at once, counted as a loss, and the ``casual`` AI plays the seat
to the end.

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
import collections
import contextlib
import dataclasses
import json
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
    ChannelNotAllowed,
    ConfirmForfeit,
    Forfeited,
    GameFinished,
    GameMoved,
    IllegalMove,
    LobbyFull,
    NoGame,
    NoLobby,
    NotEnoughPlayers,
    NotHost,
    NotManager,
    NotSeated,
    NotVoter,
    NotYourTurn,
    ServiceError,
    StaleAction,
    StorageFailure,
    UnknownGame,
    UnknownLevel,
)
from bot.presenter import Notice, NoticeKind, Presenter
from bot.ratings import finishing_places, should_rate
from bot.replay import build_replay
from bot.server_config import ConfigProblem, ServerConfig
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
    HistoryEntry,
    HistoryPage,
    HistoryResult,
    LeaderboardPage,
    LobbyOptions,
    LobbySeat,
    LobbyView,
    Player,
    ReplayView,
    SeriesView,
    StatsView,
    TableView,
    action_message,
)
from bot.votes import Forfeit, ForfeitReason, StopVote, VoteProblem
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
from rules_engine.ai import LEVELS
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
#: The rule profile of ``/durak leaderboard`` without one, until the server settings choose it.
DEFAULT_PROFILE = "podkidnoy"
#: The notice when the last voter of a stop vote agrees (by pressing Stop, or by forfeiting).
_VOTE_PASSED = Message(
    "every player agreed to stop: the game was stopped, no result is recorded, except forfeits"
)
#: Ratings count only players with at least this many rated games, unless asked otherwise.
MIN_RATED_GAMES = 5
HISTORY_PER_PAGE = 10
#: Replays kept built (a finished game never changes): every ◀ ▶ press of a replay asks again.
REPLAY_CACHE = 16
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
        self._replays: collections.OrderedDict[int, ReplayView] = collections.OrderedDict()
        #: Server settings by guild, as stored (cached: read once per guild and process).
        self._server_configs: dict[int, ServerConfig] = {}
        self._config_locks: dict[int, asyncio.Lock] = {}
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
        for guild_id in sorted(
            {r.guild_id for r in state.lobbies} | {s.guild_id for s in state.series}
        ):
            await self._load_server_config(guild_id)
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
            g.forfeits = {f.seat: f for f in await self.storage.forfeits_of_game(g.game_id)}
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
                if g.vote_timer is not None:  # an open stop vote does not outlive the process
                    g.vote_timer.cancel()
                    g.vote_timer = None
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
        *,
        seat_host: bool = True,
        parent_id: int | None = None,
    ) -> LobbyView:
        """Open a lobby in ``channel_id``; the host takes the first seat.  ``seat_host=False``
        opens it with no seat taken, for tables of AI seats only (benchmarks, tests; the
        Discord adapter always seats the host).

        ``options``: rules profile, rule overrides (``transfer``, ``throw_in``,
        ``first_round_limit``), ``turn_timeout`` (15–600 s), ``seats`` (2–6); an option not
        given (absent or ``None``) comes from the server's settings (:meth:`server_config`;
        its house options only when the lobby uses the server's default profile).  Raises
        :class:`ChannelNotAllowed` if the server's settings allow games only in other channels
        (``parent_id``: the channel a thread belongs to, checked instead of the thread),
        :class:`ChannelBusy` if a lobby or a running game is there (a finished series there is
        ended), :class:`BadOption` for an invalid option."""
        config = await self.server_config(guild_id)
        if not config.channel_allowed(parent_id if parent_id is not None else channel_id):
            raise ChannelNotAllowed(
                Message(
                    "games can only be opened in {channels}",
                    channels=", ".join(f"<#{c}>" for c in sorted(config.channels)),
                )
            )
        opts = _options(_with_server_defaults(options, config))
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
                [LobbySeat(host_id, name)] if seat_host else [],
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
            found = self._channels.get(channel_id)
            if found is not None and found.playing and found.game is not None:
                seat = self.seat_of(channel_id, user_id)
                if seat is not None and seat in found.game.forfeits:
                    raise Forfeited()
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
        """Free the caller's lobby seat.  A leaving host hands the lobby to the next seated
        human (seat order); a lobby left with no human closes (``status='closed'``).

        During a running game, leaving is a forfeit that the player must confirm: a seated
        player gets :class:`ConfirmForfeit` (``details['game_id']``), and the adapter then
        calls :meth:`forfeit`; a player who already forfeited gets :class:`Forfeited`."""
        async with self._lock(channel_id):
            ch = self._channels.get(channel_id)
            if ch is not None and ch.playing and ch.game is not None:
                g = ch.game
                seat = self._seat_of(ch, user_id)
                if seat in g.forfeits:
                    raise Forfeited(Message("you have already left this game"))
                raise ConfirmForfeit(game_id=g.game_id)
            lobby = self._need_lobby(channel_id)
            if not any(s.user_id == user_id for s in lobby.seats):
                raise NotSeated(Message("you are not seated in this lobby"))
            host_before = lobby.host_id
            seats = [s for s in lobby.seats if s.user_id != user_id]
            view = await self._update_seats(lobby, seats)
        self._emit(lambda p: p.lobby_changed(view))
        self._host_notice(channel_id, view, host_before)
        return view

    def _host_notice(self, channel_id: int, view: LobbyView, host_before: int) -> None:
        """Announce a host hand-off (the lobby's host changed with its seats)."""
        if view.status == "open" and view.host_id != host_before:
            self._notice(channel_id, "host", Message("{name} is the host now", name=view.host_name))

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
            if level not in LEVELS:  # (a name check: no agent is built on the event loop)
                raise UnknownLevel(
                    Message(
                        "unknown AI level {level}: choose {choices}",
                        level=level,
                        choices=", ".join(LEVELS),
                    ),
                    level=level,
                )
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

    async def stop(
        self,
        channel_id: int,
        requester_id: int,
        manage_channel: bool = False,
        *,
        game_id: int | None = None,
    ) -> str:
        """``/durak stop`` and the Stop buttons.  Returns what happened:

        - ``closed``: the lobby was closed (host or Manage Channel);
        - ``ended``: a finished game's series was ended (host or Manage Channel);
        - on a running game: ``stopped`` (Manage Channel forces it at once, or the last voter
          agreed: the game is aborted, no result except forfeits already recorded);
          ``vote_opened`` (the caller opened a stop vote; their yes counts) or ``voted`` (the
          caller agreed to the open vote, which still waits for others).

        Refusals: :class:`NotVoter` for someone who has no vote (not seated, forfeited, an
        ex-host who left), :class:`StaleAction` when ``game_id`` (a button's game) is not the
        running game, :class:`NotHost` for a lobby or finished series."""
        notices: list[tuple[NoticeKind, Message]] = []
        stopped: TableView | None = None
        table: TableView | None = None
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
                return "closed"
            series = ch.series
            assert series is not None and series.id is not None
            g = ch.game
            if game_id is not None and (g is None or g.game_id != game_id):
                raise StaleAction(game_id=None if g is None else g.game_id)
            if not ch.playing or g is None:
                self._need_host(series.host_id, requester_id, manage_channel)
                await self._end_series_now(ch, now)
                outcome = "ended"
            elif manage_channel:
                stopped = await self._end_series_now(ch, now)
                notices.append(
                    (
                        "stopped",
                        Message(
                            "a member with Manage Channel stopped the game: no result is "
                            "recorded, except forfeits"
                        ),
                    )
                )
                outcome = "stopped"
            elif not self._voters(ch, g) and requester_id == series.host_id:
                # nobody seated could vote (a table of AIs): its host ends it alone
                stopped = await self._end_series_now(ch, now)
                notices.append(("stopped", Message("the game was stopped: no loss is recorded")))
                outcome = "stopped"
            else:
                try:
                    if g.vote is None or g.vote.expired(now):  # (its timer may not have run)
                        vote = StopVote.open(g.game_id, self._voters(ch, g), requester_id, now)
                        outcome = "vote_opened"
                    else:
                        vote = g.vote.with_yes(requester_id, now)
                        outcome = "voted"
                except VoteProblem as exc:
                    raise NotVoter(exc.message) from None
                if vote.passed:
                    stopped = await self._end_series_now(ch, now)
                    notices.append(("stopped", _VOTE_PASSED))
                    outcome = "stopped"
                else:
                    self._set_vote(ch, g, vote)
                    if outcome == "vote_opened":
                        n, m = vote.tally
                        notices.append(
                            (
                                "stop_vote",
                                Message(
                                    "{player} asks to stop the game: every player must press "
                                    "Stop within {seconds} seconds (Stop? {yes}/{total})",
                                    player=Seat(self._seat_of(ch, requester_id)),
                                    seconds=int(vote.timeout_s),
                                    yes=n,
                                    total=m,
                                ),
                            )
                        )
                    table = table_view(ch)
            players = _players_of(series)
        if stopped is not None:
            view = stopped
            self._emit(lambda p: p.table_changed(view))
        if table is not None:
            shown = table
            self._emit(lambda p: p.table_changed(shown))
        for kind, message in notices:
            self._notice(channel_id, kind, message, user_id=requester_id, players=players)
        if outcome == "ended":
            self._notice(
                channel_id, "series_ended", Message("the series is over"), user_id=requester_id
            )
        return outcome

    async def keep_playing(
        self, channel_id: int, user_id: int, *, game_id: int | None = None
    ) -> TableView:
        """A voter says no to the open stop vote: the vote fails at once and the game goes
        on.  :class:`NoGame` when no vote is open, :class:`NotVoter` for someone who has no
        vote in it."""
        async with self._lock(channel_id):
            ch, g = self._need_game(channel_id)
            if game_id is not None and game_id != g.game_id:
                raise StaleAction(game_id=g.game_id)
            vote = g.vote
            if vote is None:
                raise NoGame(Message("there is no stop vote open"))
            if user_id not in vote.voters:
                raise NotVoter()
            seat = self._seat_of(ch, user_id)
            self._set_vote(ch, g, None)
            view = table_view(ch)
        self._emit(lambda p: p.table_changed(view))
        self._notice(
            channel_id,
            "stop_vote",
            Message("{player} wants to play on: the stop vote failed", player=Seat(seat)),
            user_id=user_id,
            players=_players(ch),
        )
        return view

    def _voters(self, ch: ChannelState, g: GameState) -> list[int]:
        """Who votes on stopping ``g``: every seated human who has not forfeited."""
        assert ch.series is not None
        return [
            s.user_id
            for i, s in enumerate(ch.series.seats)
            if s.user_id is not None and s.ai_level is None and i not in g.forfeits
        ]

    def _set_vote(self, ch: ChannelState, g: GameState, vote: StopVote | None) -> None:
        """Under the lock: make ``vote`` the open stop vote (``None``: no vote), with a timer
        that closes it when it lapses."""
        same = vote is not None and g.vote is not None and vote.opened_at == g.vote.opened_at
        if g.vote_timer is not None and not same:
            g.vote_timer.cancel()
            g.vote_timer = None
        g.vote = vote
        if vote is not None and g.vote_timer is None and not self._closed:
            channel_id, game_id, opened_at = ch.channel_id, g.game_id, vote.opened_at
            g.vote_timer = self.clock.call_at(
                vote.deadline, lambda: self._vote_lapsed(channel_id, game_id, opened_at)
            )

    async def _vote_lapsed(self, channel_id: int, game_id: int, opened_at: float) -> None:
        """The stop vote opened at ``opened_at`` ran out of time: closed, the game goes on."""
        async with self._lock(channel_id):
            ch = self._channels.get(channel_id)
            g = ch.game if ch is not None else None
            if ch is None or g is None or g.game_id != game_id or not ch.playing:
                return
            if g.vote is None or g.vote.opened_at != opened_at:
                return
            g.vote_timer = None
            self._set_vote(ch, g, None)
            view = table_view(ch)
        self._emit(lambda p: p.table_changed(view))
        self._notice(
            channel_id,
            "stop_vote",
            Message("not every player agreed to stop in time: the game goes on"),
            players=_players(ch),
        )

    # ------------------------------------------------------------------ forfeits and kicks
    async def forfeit(
        self, channel_id: int, user_id: int, *, game_id: int | None = None
    ) -> TableView:
        """The caller leaves the running game (after confirming :class:`ConfirmForfeit`): a
        forfeit, recorded at once and counted as a loss whatever happens after; the
        ``casual`` AI plays the seat to the end and the caller cannot come back to this game.
        ``game_id``: the game the confirmation was for (:class:`StaleAction` if another one
        runs now).  :class:`NotSeated`, :class:`Forfeited` (already left), :class:`NoGame`,
        :class:`GameFinished`."""
        async with self._lock(channel_id):
            ch, g = self._need_game(channel_id)
            if game_id is not None and game_id != g.game_id:
                raise StaleAction(game_id=g.game_id)
            seat = self._seat_of(ch, user_id)
            if seat in g.forfeits:
                raise Forfeited(Message("you have already left this game"))
            players = _players(ch)
            notices, stopped = await self._forfeit(ch, g, seat, user_id, "leave")
            view = stopped or table_view(ch)
        self._after_forfeit(ch, view, notices, players, user_id, stopped is not None)
        return view

    async def kick(
        self,
        channel_id: int,
        requester_id: int,
        user_id: int | None = None,
        *,
        seat: int | None = None,
        manage_channel: bool = False,
    ) -> LobbyView | TableView:
        """``/durak kick``: free the seat of ``user_id``, or the seat at index ``seat`` (0-based;
        e.g. an AI seat of a lobby).  In a lobby: the host or a member with Manage Channel (a
        kicked host hands the lobby on; a lobby left with no human closes).  In a running
        game: Manage Channel only; the kicked player forfeits (reason ``kick``) and the
        ``casual`` AI plays the seat to the end.  Refusals: not exactly one of ``user_id`` and
        ``seat``, no such seat, kicking oneself (use leave), an AI seat of a running game
        (:class:`BadOption`); a player who has no seat (:class:`NotSeated`) or already left
        (:class:`Forfeited`); :class:`NotHost`; :class:`NoGame`."""
        if (user_id is None) == (seat is None):
            raise BadOption(Message("name the player (or the seat) to remove"))
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            raise BadOption(Message("there is no seat {seat} at this table", seat=repr(seat)))
        yourself = BadOption(Message("to give up your own seat, use /durak leave"))
        if user_id == requester_id:
            raise yourself
        async with self._lock(channel_id):
            ch = self._channels.get(channel_id)
            if ch is None or (ch.lobby is None and not ch.playing):
                raise NoGame(Message("there is no lobby or running game in this channel"))
            if ch.lobby is None:
                g = ch.game
                assert g is not None and ch.series is not None
                if not manage_channel:
                    raise NotHost(
                        Message(
                            "only a member with Manage Channel can remove a player from a "
                            "running game"
                        )
                    )
                if seat is not None:
                    if not 0 <= seat < len(ch.series.seats):
                        raise BadOption(
                            Message("there is no seat {seat} at this table", seat=str(seat + 1))
                        )
                    user_id = ch.series.seats[seat].user_id
                    if user_id is None:
                        raise BadOption(Message("an AI seat cannot be removed from a running game"))
                    if user_id == requester_id:
                        raise yourself
                assert user_id is not None
                index = self.seat_of(channel_id, user_id)
                if index is None:
                    raise NotSeated(Message("that player has no seat at this table"))
                if index in g.forfeits:
                    raise Forfeited(Message("that player has already left this game"))
                players = _players(ch)
                notices, stopped = await self._forfeit(ch, g, index, user_id, "kick")
                table = stopped or table_view(ch)
                kicked: LobbySeat | None = None
            else:
                lobby = ch.lobby
                self._need_host(lobby.host_id, requester_id, manage_channel)
                if seat is not None:
                    if not 0 <= seat < len(lobby.seats):
                        raise BadOption(
                            Message("there is no seat {seat} at this table", seat=str(seat + 1))
                        )
                    if lobby.seats[seat].user_id == requester_id:
                        raise yourself
                    index = seat
                else:
                    found = [i for i, s in enumerate(lobby.seats) if s.user_id == user_id]
                    if not found:
                        raise NotSeated(Message("that player has no seat at this table"))
                    index = found[0]
                kicked = lobby.seats[index]
                host_before = lobby.host_id
                seats = [s for i, s in enumerate(lobby.seats) if i != index]
                view = await self._update_seats(lobby, seats)
        if kicked is None:
            assert user_id is not None
            self._after_forfeit(ch, table, notices, players, user_id, stopped is not None)
            return table
        self._emit(lambda p: p.lobby_changed(view))
        if kicked.ai_level is None:
            removed = Message("{name} was removed from the lobby", name=kicked.name)
        else:
            removed = Message("an AI seat was removed from the lobby")
        self._notice(channel_id, "kicked", removed, user_id=kicked.user_id)
        self._host_notice(channel_id, view, host_before)
        return view

    async def _forfeit(
        self, ch: ChannelState, g: GameState, seat: int, user_id: int, reason: ForfeitReason
    ) -> tuple[list[tuple[NoticeKind, Message]], TableView | None]:
        """Under the lock: record ``user_id``'s forfeit of ``seat`` (fenced, at once), hand
        the seat to the AI and take the player out of an open stop vote (which may pass now).
        Returns the notices to post and, if the vote passed, the stopped table."""
        assert ch.series is not None
        now = self.clock.now()
        forfeit = Forfeit(g.game_id, user_id, seat, now, reason, move=g.game.version)
        with self._storage_errors(g):
            g.revision = await self.storage.record_forfeit(
                forfeit, ch.series.guild_id, revision=g.revision
            )
        g.forfeits[seat] = forfeit
        notices: list[tuple[NoticeKind, Message]] = [("forfeit", forfeit.message)]
        if g.game.to_act == seat:
            g.deadline = None
        self._schedule(ch)
        if g.vote is not None:
            vote = g.vote.without_voter(user_id)
            if vote is not None and vote.passed:
                stopped = await self._end_series_now(ch, now)
                notices.append(("stopped", _VOTE_PASSED))
                return notices, stopped
            self._set_vote(ch, g, vote)
            if vote is None:
                notices.append(
                    ("stop_vote", Message("nobody is left to vote: the stop vote is closed"))
                )
        return notices, None

    def _after_forfeit(
        self,
        ch: ChannelState,
        view: TableView,
        notices: list[tuple[NoticeKind, Message]],
        players: tuple[Player, ...],
        user_id: int,
        stopped: bool,
    ) -> None:
        """Tell presenters about a forfeit: its notices, then the table (and hands)."""
        for kind, message in notices:
            self._notice(ch.channel_id, kind, message, user_id=user_id, players=players)
        if stopped:
            self._emit(lambda p: p.table_changed(view))
        else:
            self._after_change(ch, view)

    async def _end_series_now(self, ch: ChannelState, now: float) -> TableView | None:
        """Under the channel's lock: store a running game as aborted and end the series.
        An aborted game records no result, except its forfeits: each forfeiter's loss counts
        (in the series and in stats).  Returns the final table view if a game was running."""
        series = ch.series
        assert series is not None and series.id is not None
        g = ch.game
        with self._storage_errors(g):
            if ch.playing and g is not None:
                counted: SeriesRecord | None = None
                if g.forfeits:
                    counted = dataclasses.replace(
                        series, losses=list(series.losses), seats=list(series.seats)
                    )
                    for seat in g.forfeits:
                        counted.losses[seat] += 1
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
                        _results(series, g, None, draw=False),
                        forfeits=tuple(sorted(g.forfeits)),
                    ),
                    counted,
                    end_series_at=now,
                    revision=g.revision,
                )
                if counted is not None:
                    series.losses = counted.losses
            else:
                await self.storage.end_series(series.id, now)
        view: TableView | None = None
        if ch.playing and g is not None:
            self._disarm(g)
            self._set_vote(ch, g, None)
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
            if seat in g.forfeits:
                raise Forfeited()
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
            if ch.playing and seat in g.forfeits:
                raise Forfeited()
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
        left neighbour leads (RULES.md §4).  Open to the host and every seated human.  A
        player who forfeited the previous game starts this one on autopilot (the ``casual``
        AI plays for them until they come back), so the others never wait on them."""
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
            away = sorted(ch.game.forfeits) if ch.game is not None else []
            await self._begin_game(
                ch, series, ch.rules, ch.turn_timeout, deal, seed, autopilot=away
            )
            view = table_view(ch)
        for seat in away:
            self._notice(
                channel_id,
                "autopilot_on",
                Message("{name} is on autopilot until they come back", name=Seat(seat)),
                user_id=series.seats[seat].user_id,
                players=_players(ch),
            )
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
                    Message("a game is running: finish it, or vote to stop it with /durak stop")
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

    # ------------------------------------------------------------------ server settings
    async def server_config(self, guild_id: int) -> ServerConfig:
        """The server's settings (``/durak config``): stored ones, else the defaults (with this
        service's turn timeout).  Read once per guild, then cached: with several processes,
        a guild's commands, games and settings are all served by the process holding its
        shard, so that process's cache is the only writer of the guild's settings."""
        config = self._server_configs.get(guild_id)
        if config is None:
            config = await self._load_server_config(guild_id)
        return config

    async def _load_server_config(self, guild_id: int) -> ServerConfig:
        with self._storage_errors():
            text = await self.storage.load_server_config(guild_id)
        config = ServerConfig().with_changes(turn_timeout=self.turn_timeout)
        if text is not None:
            try:
                config = ServerConfig.from_json(json.loads(text))
            except (ValueError, TypeError) as exc:  # ConfigProblem is a ValueError
                # A stored document this code cannot read: keep serving with the defaults
                # rather than refusing every /durak new of the server; the admin can set again.
                log.error(
                    "server settings of guild %d are unreadable (%s): defaults", guild_id, exc
                )
        self._server_configs[guild_id] = config
        return config

    async def set_server_config(
        self, guild_id: int, requester_id: int, *, manage_guild: bool, **changes: object
    ) -> ServerConfig:
        """Change the server's settings (``manage_guild``: the requester has Manage Server,
        else :class:`NotManager`).  ``changes``: raw values of the settings of
        :data:`bot.server_config.SETTINGS` (``None`` = unchanged, ``"default"`` resets), plus
        ``add_channel`` / ``remove_channel`` (a channel id) to allow games in one more channel
        or one fewer.  Every value is checked (:meth:`ServerConfig.with_changes`): a bad one
        raises :class:`BadOption` with the problem's message (``details['setting']`` names it)
        and nothing is stored.  Returns the new settings, stored before they apply."""
        if not manage_guild:
            raise NotManager()
        add = changes.pop("add_channel", None)
        remove = changes.pop("remove_channel", None)
        lock = self._config_locks.setdefault(guild_id, asyncio.Lock())
        async with lock:
            current = await self.server_config(guild_id)
            try:
                config = current.with_changes(**changes)
                if add is not None:
                    config = config.with_channel(_channel_id(add), True)
                if remove is not None:
                    config = config.with_channel(_channel_id(remove), False)
            except ConfigProblem as problem:
                raise BadOption(problem.message, setting=problem.setting) from None
            if config != current:
                with self._storage_errors():
                    await self.storage.save_server_config(
                        guild_id, json.dumps(config.to_json()), self.clock.now()
                    )
                self._server_configs[guild_id] = config
                log.info("guild %d settings changed by user %d", guild_id, requester_id)
        return config

    async def count_ai_games(self, guild_id: int) -> bool:
        """Whether games with AI seats count for the server's ratings (default: no)."""
        return (await self.server_config(guild_id)).count_ai_games

    def _count_ai_games(self, guild_id: int) -> bool:
        """:meth:`count_ai_games` without waiting, for code under a channel's lock: a game's
        server had its settings read when its lobby opened or at :meth:`restore`, so the cache
        holds them; an unknown guild counts as the default (no)."""
        config = self._server_configs.get(guild_id)
        return config.count_ai_games if config is not None else False

    # ------------------------------------------------------------------ visibility
    def host_of(self, channel_id: int) -> int | None:
        """The user id of the host of the channel's lobby or series, if any."""
        ch = self._channels.get(channel_id)
        if ch is None:
            return None
        if ch.lobby is not None:
            return ch.lobby.host_id
        return ch.series.host_id if ch.series is not None else None

    def timers_paused(self, channel_id: int) -> bool:
        """Whether the channel's game waits with its timers paused."""
        ch = self._channels.get(channel_id)
        return ch is not None and ch.game is not None and ch.game.paused

    async def pause_timers(self, channel_id: int) -> bool:
        """The channel's table cannot be shown: freeze the running game (the waiting human's
        deadline stops, with the time left kept; AI seats and autopilot hold their moves)
        until :meth:`resume_timers` or the game is stopped.  Players may still act from their
        hands.  Kept in memory only (a restart resumes the game, as after any restart).
        Returns whether a game was paused now."""
        async with self._lock(channel_id):
            ch = self._channels.get(channel_id)
            g = ch.game if ch is not None else None
            if ch is None or g is None or not ch.playing or g.paused:
                return False
            g.paused = True
            self._schedule(ch)  # disarms, and keeps the time left
        log.warning(
            "game %d in channel %d paused: its table cannot be shown", g.game_id, channel_id
        )
        return True

    async def resume_timers(self, channel_id: int) -> bool:
        """Undo :meth:`pause_timers`: the waiting human gets the time that was left, AI seats
        move again.  Returns whether a paused game was resumed."""
        async with self._lock(channel_id):
            ch = self._channels.get(channel_id)
            g = ch.game if ch is not None else None
            if ch is None or g is None or not g.paused:
                return False
            g.paused = False
            left, g.paused_left = g.paused_left, None
            if ch.playing and self._human_waited(ch, g):
                g.deadline = self.clock.now() + min(
                    left if left is not None else ch.turn_timeout, ch.turn_timeout
                )
            self._schedule(ch)
        log.info("game %d in channel %d resumed", g.game_id, channel_id)
        return True

    # ------------------------------------------------------------------ stats
    async def stats(self, guild_id: int, user_id: int, profile: str | None = None) -> StatsView:
        """A player's finished games in this guild: games, losses, draws, forfeits, loss rate
        and rating (± uncertainty) per rule profile (``profile`` restricts to one: a profile
        name or ``custom``), and their games against each AI level apart."""
        profile = _profile_filter(profile)
        with self._storage_errors():
            name, rows = await self.storage.player_stats(guild_id, user_id, profile)
            by_level = await self.storage.ai_level_stats(guild_id, user_id, profile)
        return StatsView(
            guild_id=guild_id,
            user_id=user_id,
            name=name,
            profile=profile,
            games=sum(r.games for r in rows),
            losses=sum(r.losses for r in rows),
            draws=sum(r.draws for r in rows),
            by_profile=tuple(rows),
            forfeits=sum(r.forfeits for r in rows),
            by_ai_level=tuple(by_level),
        )

    async def leaderboard(
        self,
        guild_id: int,
        profile: str | None = None,
        min_games: int = MIN_RATED_GAMES,
        page: int = 1,
        per_page: int = 10,
    ) -> LeaderboardPage:
        """The guild's rated players of one rule profile (default: the server's default
        profile), by the conservative estimate of their rating (``mu - 3 sigma``), among
        those with at least ``min_games`` rated games.  ``page`` is 1-based; a page past the
        end is empty."""
        chosen = _profile_filter(profile) or (await self.server_config(guild_id)).profile
        if not isinstance(min_games, int) or isinstance(min_games, bool) or min_games < 1:
            raise BadOption(Message("min_games must be a whole number ≥ 1"))
        if not isinstance(page, int) or isinstance(page, bool) or page < 1:
            raise BadOption(Message("page must be a whole number ≥ 1"))
        if not isinstance(per_page, int) or not 1 <= per_page <= 50:
            raise BadOption(Message("per_page must be 1–50"))
        with self._storage_errors():
            total, rows = await self.storage.leaderboard(
                guild_id, chosen, min_games, per_page, (page - 1) * per_page
            )
        pages = max(1, -(-total // per_page))
        return LeaderboardPage(
            guild_id, chosen, min_games, page, pages, per_page, total, tuple(rows)
        )

    async def history(
        self,
        guild_id: int,
        user_id: int | None = None,
        page: int = 1,
        per_page: int = HISTORY_PER_PAGE,
    ) -> HistoryPage:
        """The guild's ended games, newest first (with ``user_id``: the games that player has
        a result in): when, rules, players, result.  ``page`` is 1-based; a page past the end
        is empty."""
        if not isinstance(page, int) or isinstance(page, bool) or page < 1:
            raise BadOption(Message("page must be a whole number ≥ 1"))
        if not isinstance(per_page, int) or isinstance(per_page, bool) or not 1 <= per_page <= 25:
            raise BadOption(Message("per_page must be 1–25"))
        with self._storage_errors():
            total, records = await self.storage.history(
                guild_id, user_id, per_page, (page - 1) * per_page
            )
        entries = []
        for rec in records:
            try:
                rules = Rules.from_spec(rec.rules)
            except DurakError:
                log.exception("game %d has unreadable rules: left out of the history", rec.game_id)
                continue
            result: HistoryResult = (
                "loss" if rec.result == "loss" else "draw" if rec.result == "draw" else "aborted"
            )
            entries.append(
                HistoryEntry(
                    game_id=rec.game_id,
                    ended_at=rec.ended_at,
                    rules=rules,
                    profile=rec.profile,
                    players=tuple(Player(s.name, s.ai_level) for s in rec.seats),
                    result=result,
                    loser=rec.loser_seat if result == "loss" else None,
                )
            )
        pages = max(1, -(-total // per_page))
        return HistoryPage(guild_id, user_id, page, pages, per_page, total, tuple(entries))

    async def replay(self, guild_id: int, game_id: int) -> ReplayView:
        """A finished game of this guild, move by move, rebuilt from its stored action log by
        the engine (:func:`bot.replay.build_replay`): every hand face up, so show it privately.
        :class:`UnknownGame` for an unknown id, a game of another server, a game still being
        played or one stopped before its end."""
        if not isinstance(game_id, int) or isinstance(game_id, bool) or game_id < 1:
            raise UnknownGame(
                Message("there is no game #{value} in this server", value=repr(game_id))
            )
        cached = self._replays.get(game_id)
        if cached is not None and cached.guild_id == guild_id:
            self._replays.move_to_end(game_id)
            return cached
        with self._storage_errors():
            rec = await self.storage.load_game(game_id)
            forfeits = await self.storage.forfeits_of_game(game_id) if rec is not None else []
        if rec is None or rec.guild_id != guild_id:
            raise UnknownGame(Message("there is no game #{value} in this server", value=game_id))
        if rec.result == "live":
            raise UnknownGame(
                Message(
                    "game #{value} is still being played: replay it once it ends",
                    value=game_id,
                )
            )
        if rec.result == "aborted":
            raise UnknownGame(
                Message(
                    "game #{value} was stopped before its end: there is nothing to replay",
                    value=game_id,
                )
            )
        try:
            rules = Rules.from_spec(rec.rules)
            replay = build_replay(
                rules,
                Deal.from_dict(rec.deal),
                rec.actions,
                {f.seat: f.move for f in forfeits if f.move is not None},
            )
        except (DurakError, ValueError, KeyError, TypeError) as exc:
            log.exception("game %d does not replay", game_id)
            raise UnknownGame(
                Message("game #{value} cannot be replayed from what was stored", value=game_id)
            ) from exc
        view = ReplayView(
            game_id=game_id,
            guild_id=guild_id,
            rules=rules,
            profile=_profile(rules),
            players=tuple(Player(s.name, s.ai_level) for s in rec.seats),
            ended_at=rec.ended_at or 0.0,
            replay=replay,
        )
        self._replays[game_id] = view
        while len(self._replays) > REPLAY_CACHE:
            self._replays.popitem(last=False)
        return view

    def _rated_places(
        self, series: SeriesRecord, game: Game, forfeits: tuple[int, ...]
    ) -> tuple[tuple[int, int], ...]:
        """``(user_id, place)`` of the human players of a finished ``game`` when it changes
        ratings (:func:`bot.ratings.should_rate`), else empty.  Places come from replaying the
        action log through the engine (:func:`bot.ratings.finishing_places`); forfeiters are
        placed last."""
        humans = [(seat, s.user_id) for seat, s in enumerate(series.seats) if s.user_id is not None]
        has_ai = any(s.ai_level is not None for s in series.seats)
        if not should_rate(len(humans), has_ai, self._count_ai_games(series.guild_id)):
            return ()
        try:
            places = finishing_places(game.rules, game.deal, game.history_text(), forfeits)
        except Exception:  # a rating must never keep a game from being recorded
            log.exception("game %s does not rank its players: not rated", series.last_game_id)
            return ()
        return tuple(sorted((user_id, places[seat]) for seat, user_id in humans))

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
        """Store new seats; returns the lobby's view.  If the host gave up their seat, the
        next seated human (seat order) becomes host; a lobby left with no human closes."""
        ch = self._channels[lobby.channel_id]
        if not any(s.user_id is not None for s in seats):
            with self._storage_errors():
                await self.storage.delete_lobby(lobby.channel_id)
            ch.lobby = None
            lobby.seats = []
            return lobby_view(lobby, "closed")
        host = (lobby.host_id, lobby.host_name)
        if not any(s.user_id == lobby.host_id for s in seats):
            heir = next(s for s in seats if s.user_id is not None)
            assert heir.user_id is not None
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
        return self._human_plays(ch, g, seat)

    @staticmethod
    def _human_plays(ch: ChannelState, g: GameState, seat: int) -> bool:
        """Whether ``seat``'s player plays it now (not an AI seat, not on autopilot, not
        forfeited)."""
        assert ch.series is not None
        return (
            ch.series.seats[seat].ai_level is None
            and not g.autopilot[seat]
            and seat not in g.forfeits
        )

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
        if (
            nxt is not None
            and series.seats[nxt].ai_level is None
            and not autopilot[nxt]
            and nxt not in g.forfeits
        ):
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
                for seat in g.forfeits:  # a forfeit is a loss; a forfeiting durak loses once
                    if seat != game.loser:
                        new_series.losses[seat] += 1
                forfeits = tuple(sorted(g.forfeits))
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
                        _results(series, g, game.loser, draw=game.draw),
                        forfeits=forfeits,
                        ai_levels=_ai_levels(series),
                        rated_places=self._rated_places(series, game, forfeits),
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
            self._set_vote(ch, g, None)
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
        if g.paused:  # nothing moves while the table cannot be shown
            if g.deadline is not None:
                g.paused_left = max(0.0, g.deadline - self.clock.now())
                g.deadline = None
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
            if g.game.version != version or g.paused or not self._human_waited(ch, g):
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
                and not g.paused
                and ch.series is not None
                and not self._human_plays(ch, g, seat)
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
        notice = Notice(channel_id, kind, message, user_id, players)
        self._emit(lambda p: p.notice(notice))

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
                if s.user_id is not None and seat not in g.forfeits:
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


# ---------------------------------------------------------------------------------- helpers
def _players(ch: ChannelState) -> tuple[Player, ...]:
    """Who sits at each seat of the channel's series (to name ``Seat`` parameters)."""
    if ch.series is None:
        return ()
    return _players_of(ch.series)


def _results(
    series: SeriesRecord, g: GameState, loser: int | None, *, draw: bool
) -> list[PlayerResult]:
    """The per-player rows of a game that ended (``loser``/``draw``) or was aborted (no
    loser, no draw): every human of a finished game, and every forfeiter, whose forfeit is a
    loss whatever happened after (a forfeiting durak loses once)."""
    aborted = loser is None and not draw
    return [
        PlayerResult(
            i, s.user_id, s.name, loser == i or i in g.forfeits, draw and i not in g.forfeits
        )
        for i, s in enumerate(series.seats)
        if s.user_id is not None and (not aborted or i in g.forfeits)
    ]


def _players_of(series: SeriesRecord) -> tuple[Player, ...]:
    """Who sits at each seat of ``series``."""
    return tuple(Player(s.name, s.ai_level) for s in series.seats)


def _ai_levels(series: SeriesRecord) -> tuple[str, ...]:
    """The AI levels seated at the deal, each once, sorted."""
    return tuple(sorted({s.ai_level for s in series.seats if s.ai_level is not None}))


def _first_level(levels: Iterable[str]) -> str:
    for level in levels:
        if level in LEVELS:
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


def _with_server_defaults(
    options: LobbyOptions | Mapping[str, Any] | None, config: ServerConfig
) -> dict[str, Any]:
    """``/durak new``'s options with the server's settings for those not given (``None``)."""
    if options is None:
        given: dict[str, Any] = {}
    elif isinstance(options, LobbyOptions):
        given = dataclasses.asdict(options)
    elif isinstance(options, Mapping):
        given = dict(options)
    else:
        raise BadOption(Message("options must be LobbyOptions or a mapping"))
    return config.lobby_options(given)


def _channel_id(raw: object) -> int:
    """A channel id given to ``add_channel``/``remove_channel`` (an int, or its text)."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().isdecimal():
        return int(raw.strip())
    raise ConfigProblem(
        "channels",
        Message(
            "{setting} must be channels of this server (or {default} for every channel), "
            "not {value}",
            setting="channels",
            default="default",
            value=repr(raw),
        ),
    )


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
