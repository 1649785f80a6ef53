"""The game service: lobbies, series and games per channel, independent of any transport.

Adapters call the async methods of :class:`GameService` with plain ids (``channel_id``,
``guild_id``, ``user_id``: ints) and display names, receive frozen views (:mod:`bot.views`)
or typed results (:class:`StopOutcome`, :class:`ChannelPhase`, :class:`UnshowableOutcome`),
and get a typed :class:`bot.errors.ServiceError` for every refusal.  A refused request changes
nothing, in memory or in the database.  An accepted action is acknowledged (the method
returns) only after it is stored.

A channel holds at most one lobby *or* one series.  A series is a sequence of games with the
same seats; between games (after game over) the channel waits for Rematch / End series, and a
new lobby opened there ends the finished series.  Every command edits its channel in one
transaction (:mod:`bot.service.channels`): validated against the current state under the
channel's lock, stored, applied, and only then announced to the presenters; games in
different channels never wait on each other.

The rooms, from the bottom up:

- :mod:`~bot.service.channels`: the channel registry, locks, guards and the transaction;
- :mod:`~bot.service.commit`: begin, apply, stop and store games;
  :mod:`~bot.service.settle`: how a game's end is counted (one pure function);
- :mod:`~bot.service.driver`: turn and vote timers, AI turns, retries;
- commands: :mod:`~bot.service.lobby`, :mod:`~bot.service.fairplay` (stop votes, forfeits,
  kicks), :mod:`~bot.service.play` (act, hand, table, series, paused timers),
  :mod:`~bot.service.records` (stats, leaderboard, history, replay),
  :mod:`~bot.service.settings` (server settings), :mod:`~bot.service.privacy` (what is
  stored about a player, and forgetting them);
- :mod:`~bot.service.lifecycle`: restore at startup, close at the end;
- :mod:`~bot.service.owners` and :mod:`~bot.service.sync`: several processes on one database
  (who runs a channel's timers and AI turns; the others' changes heard, read again and shown;
  the takeover of a dead process's channels).

AI-only tables (every seat an AI) cost the AI pool the most and no one plays them, so a server
runs at most ``max_ai_only_tables`` of them at once
(:data:`bot.ai_pool.MAX_AI_ONLY_TABLES_PER_SERVER`), counted when a lobby starts or a series
rematches; the next one is refused with :class:`AIOnlyLimit`, counted by the process that
starts the game.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable

from bot.ai_pool import MAX_AI_ONLY_TABLES_PER_SERVER, AIPool, ThreadAI
from bot.clock import Clock, SystemClock
from bot.errors import ServiceError
from bot.limits import DEFAULT_TIMEOUT, MAX_TIMEOUT, MIN_TIMEOUT
from bot.presenter import Presenter
from bot.service.channels import Channels
from bot.service.commit import Commit, storage_errors
from bot.service.delegate import Delegate
from bot.service.driver import Driver
from bot.service.fairplay import FairPlay, StopOutcome
from bot.service.lifecycle import Lifecycle
from bot.service.lobby import Lobbies
from bot.service.options import need_id
from bot.service.owners import Owners
from bot.service.play import ChannelPhase, Play, Unshowable, UnshowableOutcome
from bot.service.privacy import Privacy
from bot.service.records import Records
from bot.service.reviews import MAX_RUNNING_REVIEWS, Reviews
from bot.service.settings import SettingsStore
from bot.service.sync import Sync
from bot.service.tasks import Tasks
from bot.storage import Storage
from rules_engine import Game
from rules_engine.ai import AUTOPILOT_LEVEL
from rules_engine.ai.review import DEFAULT_DEALS

log = logging.getLogger(__name__)

__all__ = [
    "ChannelPhase",
    "GameService",
    "StopOutcome",
    "Unshowable",
    "UnshowableOutcome",
]


class GameService:
    """The transport-agnostic game service.  Construct, ``await restore()``, serve,
    ``await close()``.  Its commands are those of the parts it composes (see the module), each
    documented where it is defined.

    :param storage: where everything is stored (opened by :meth:`restore` if needed).
    :param clock: time and timers (default: wall clock on the running loop).
    :param presenters: event sinks, each given the events of the realms it serves (more via
        :meth:`add_presenter`).
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
        :func:`bot.shards.guild_filter`, and the rooms' realm where it serves the web);
        :meth:`restore` loads only their lobbies, series and games, and only their channels'
        timers and AI turns may run here (default: every server).  A channel of another
        server is still read when a web page here needs it.  Stats and leaderboards answer
        for any server.
    :param resync_interval: on shared storage (PostgreSQL), how often this process compares
        the stored channels with its copies, the safety net of the changes it hears
        (:mod:`bot.service.sync`; 0: never).
    :param takeover_interval: on shared storage, how often this process looks for live games
        whose owner is gone, to run their timers and AI turns here (0: never).
    :param review_deals: the budget of the coach's reviews, in sampled deals per choice
        (docs/AI.md, "The review").
    :param max_reviews: reviews computed at once (see :mod:`bot.service.reviews`).
    """

    def __init__(
        self,
        storage: Storage,
        *,
        clock: Clock | None = None,
        presenters: Iterable[Presenter] = (),
        turn_timeout: int = DEFAULT_TIMEOUT,
        ai_delay: float = 1.0,
        seed_source: Callable[[], int] | None = None,
        restore_grace: float = 10.0,
        latency_sink: Callable[[float], None] | None = None,
        autopilot_level: str | None = None,
        ai: AIPool | ThreadAI | None = None,
        ai_concurrency: int = 4,
        max_ai_only_tables: int = MAX_AI_ONLY_TABLES_PER_SERVER,
        include_guild: Callable[[int], bool] | None = None,
        resync_interval: float = 10.0,
        takeover_interval: float = 2.0,
        review_deals: int = DEFAULT_DEALS,
        max_reviews: int = MAX_RUNNING_REVIEWS,
    ) -> None:
        if not MIN_TIMEOUT <= turn_timeout <= MAX_TIMEOUT:
            raise ValueError(f"turn_timeout must be {MIN_TIMEOUT}–{MAX_TIMEOUT} s")
        if ai_delay < 0:
            raise ValueError("ai_delay must be >= 0")
        self.storage = storage
        self.clock: Clock = clock or SystemClock()
        self.turn_timeout = turn_timeout
        self.restore_grace = restore_grace
        self.resync_interval = resync_interval
        self.takeover_interval = takeover_interval
        self.max_ai_only_tables = max_ai_only_tables
        seeds = seed_source or (lambda: secrets.randbits(62))
        self._own_ai = ai is None
        self._ai: AIPool | ThreadAI = ai if ai is not None else AIPool()
        self._tasks = Tasks()
        self._restored = False
        channels = self._channels = Channels(self._tasks)
        channels.serves = include_guild
        owners = self._owners = Owners(storage, include_guild)
        for presenter in presenters:
            channels.subscribe(presenter)
        settings = self._settings = SettingsStore(
            storage, self.clock, turn_timeout, lambda g: any(c.guild_id == g for c in channels)
        )
        commit = Commit(
            storage,
            self.clock,
            channels,
            self._ai,
            rearm=lambda ch: driver.rearm(ch),
            count_ai_games=settings.count_ai_games_now,
            latency_sink=latency_sink,
            owners=owners,
        )
        driver = self._driver = Driver(
            self.clock,
            channels,
            commit,
            self._ai,
            self._tasks,
            ai_delay=ai_delay,
            autopilot_level=autopilot_level or AUTOPILOT_LEVEL,
            ai_concurrency=ai_concurrency,
            on_endless=lambda c, g, cap: fairplay.stop_endless_game(c, g, cap),
            owners=owners,
        )
        lobbies = Lobbies(
            channels,
            commit,
            settings,
            self.clock,
            turn_timeout=turn_timeout,
            seed_source=seeds,
            max_ai_only_tables=lambda: self.max_ai_only_tables,
        )
        fairplay = FairPlay(channels, commit, driver, lobbies)
        play = Play(channels, commit, driver, lobbies, self.clock, seeds)
        records = Records(storage, settings)
        self._reviews = Reviews(
            storage, self._ai, self.clock, deals=review_deals, max_running=max_reviews
        )
        privacy = Privacy(storage, channels, self.clock)
        self._lifecycle = Lifecycle(
            channels,
            commit,
            driver,
            settings,
            turn_timeout=turn_timeout,
            restore_grace=restore_grace,
            include_guild=include_guild,
            owners=owners,
        )
        self._sync = Sync(
            storage, channels, self._lifecycle, driver, owners, self._tasks, include_guild
        )
        self._lobbies, self._fairplay, self._play = lobbies, fairplay, play
        self._records, self._privacy = records, privacy

    # ------------------------------------------------------------------ settings shared
    @property
    def ai_delay(self) -> float:
        """Seconds an AI seat (or autopilot) waits after deciding, before playing."""
        return self._driver.ai_delay

    @ai_delay.setter
    def ai_delay(self, seconds: float) -> None:
        self._driver.ai_delay = seconds

    @property
    def autopilot_level(self) -> str:
        """The AI level playing for absent players."""
        return self._driver.autopilot_level

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` (or :meth:`halt`) ran."""
        return self._driver.closed

    # ------------------------------------------------------------------ lifecycle
    def add_presenter(self, presenter: Presenter) -> None:
        """Register an event sink (e.g. the Discord adapter) for the realms it serves
        (:attr:`~bot.presenter.Presenter.realms`): it is given the events of those realms'
        channels only."""
        self._channels.subscribe(presenter)

    def remove_presenter(self, presenter: Presenter) -> None:
        """Give ``presenter`` no more events."""
        self._channels.unsubscribe(presenter)

    async def restore(self) -> int:
        """Startup recovery (:meth:`bot.service.lifecycle.Lifecycle.restore`): reload what
        was stored, re-arm turn timers with the time that was left, resume AI seats.  Runs
        once.  Returns the number of live games resumed."""
        if self._restored:
            raise RuntimeError("restore() runs once, at startup")
        self._restored = True
        restored = await self._lifecycle.restore()
        if self.storage.shared:
            # listen first, then read what changed between the restore's read and now
            await self._sync.start()
            try:
                await self._sync.resync()
            except ServiceError as exc:
                log.warning("resync with the database failed: %s", exc)
            if self.resync_interval > 0:
                self._tasks.spawn(self._every(self.resync_interval, self._sync.resync, "resync"))
            if self.takeover_interval > 0:
                self._tasks.spawn(
                    self._every(self.takeover_interval, self._sync.takeover, "takeover")
                )
        return restored

    async def resync(self) -> int:
        """Compare the stored channels with this process's copies and read again those that
        another process moved on (what the service does by itself every ``resync_interval``
        seconds on shared storage: :meth:`bot.service.sync.Sync.resync`); returns how many
        were read again or dropped."""
        return await self._sync.resync()

    async def takeover(self) -> int:
        """Take over the live games whose owner is gone (what the service does by itself
        every ``takeover_interval`` seconds on shared storage:
        :meth:`bot.service.sync.Sync.takeover`); returns how many."""
        return await self._sync.takeover()

    @property
    def sync(self) -> Sync:
        """The part that hears the other processes (:mod:`bot.service.sync`)."""
        return self._sync

    def owns(self, channel_id: int) -> bool:
        """Whether this process runs the channel's timers and AI turns
        (:mod:`bot.service.owners`)."""
        return self._owners.runs(channel_id)

    async def _every(self, seconds: float, job: Callable[[], Awaitable[int]], what: str) -> None:
        """On shared storage: run ``job`` every ``seconds`` until the service closes."""
        while not self._driver.closed:
            await self._tasks.nap(self.clock, seconds)
            if self._driver.closed:
                return
            try:
                await job()
            except ServiceError as exc:  # the database is away: try again next time
                log.warning("%s with the database failed: %s", what, exc)

    async def close(self) -> None:
        """Stop timers and AI tasks, store each waiting turn's remaining time (so a restart
        re-arms it with exactly that), and close the storage."""
        await self._lifecycle.close()
        await self._tasks.cancel_all()
        if self._own_ai:
            await self._ai.close()
        await self.storage.close()

    async def halt(self) -> None:
        """Stop the way a killed process stops: timers and tasks end, nothing more is
        written, the storage closes (for crash tests and fault drills)."""
        self._driver.closed = True
        for ch in self._channels:
            if ch.game is not None:
                ch.game.disarm()
        await self._tasks.cancel_all()
        await self.storage.close()

    async def wait_idle(self) -> None:
        """Wait until no AI decision, timer action or presenter call is running (tasks
        waiting on the clock for the AI delay do not count).  For tests and the terminal."""
        await self._tasks.wait_idle()

    # ------------------------------------------------------------------ commands
    # Each command is its feature module's method, bound to this service's part (see there for
    # what it does and refuses); those that write are retried there on a fresh copy of their
    # channel when another process wrote it first (:func:`bot.service.moved.retry_moved`).
    open_lobby = Delegate(Lobbies.open_lobby, "_lobbies")
    lobby = Delegate(Lobbies.lobby, "_lobbies")
    join = Delegate(Lobbies.join, "_lobbies")
    leave = Delegate(Lobbies.leave, "_lobbies")
    add_ai = Delegate(Lobbies.add_ai, "_lobbies")
    remove_seat = Delegate(Lobbies.remove_seat, "_lobbies")
    start = Delegate(Lobbies.start, "_lobbies")
    switch_team = Delegate(Lobbies.switch_team, "_lobbies")

    stop = Delegate(FairPlay.stop, "_fairplay")
    system_stop = Delegate(FairPlay.system_stop, "_fairplay")
    keep_playing = Delegate(FairPlay.keep_playing, "_fairplay")
    forfeit = Delegate(FairPlay.forfeit, "_fairplay")
    kick = Delegate(FairPlay.kick, "_fairplay")

    act = Delegate(Play.act, "_play")
    hand = Delegate(Play.hand, "_play")
    table = Delegate(Play.table, "_play")
    seat_of = Delegate(Play.seat_of, "_play")
    state = Delegate(Play.state, "_play")
    live_channels = Delegate(Play.live_channels, "_play")
    host_of = Delegate(Play.host_of, "_play")
    rematch = Delegate(Play.rematch, "_play")
    end_series = Delegate(Play.end_series, "_play")
    series = Delegate(Play.series, "_play")
    timers_paused = Delegate(Play.timers_paused, "_play")
    pause_timers = Delegate(Play.pause_timers, "_play")
    resume_timers = Delegate(Play.resume_timers, "_play")
    table_unshowable = Delegate(Play.table_unshowable, "_play")

    stats = Delegate(Records.stats, "_records")
    leaderboard = Delegate(Records.leaderboard, "_records")
    history = Delegate(Records.history, "_records")
    replay = Delegate(Records.replay, "_records")
    review = Delegate(Reviews.review, "_reviews")

    privacy = Delegate(Privacy.privacy, "_privacy")
    ask_forget = Delegate(Privacy.ask_forget, "_privacy")
    forget_me = Delegate(Privacy.forget_me, "_privacy")
    cancel_forget = Delegate(Privacy.cancel_forget, "_privacy")

    server_config = Delegate(SettingsStore.server_config, "_settings")
    set_server_config = Delegate(SettingsStore.set_server_config, "_settings")
    count_ai_games = Delegate(SettingsStore.count_ai_games, "_settings")
    count_ai_games_now = Delegate(SettingsStore.count_ai_games_now, "_settings")

    async def review_accuracy(self, user_id: int) -> tuple[float | None, int]:
        """A player's mean accuracy over their reviewed games, and how many (``/durak
        stats``)."""
        with storage_errors():
            return await self.storage.review_accuracy(need_id(user_id))

    # ------------------------------------------------------------------ read-only views
    def game_of(self, channel_id: int) -> Game | None:
        """A copy of the engine game of the channel (running or just finished), if any: for
        tests and tools that check positions; changing it changes nothing here."""
        ch = self._channels.get(channel_id)
        return None if ch is None or ch.game is None else ch.game.game.clone()

    async def load(self, channel_id: int) -> ChannelPhase:
        """What the channel holds now, read from storage first if this process holds nothing
        of it (another process may have opened it)."""
        await self._channels.ensure(channel_id)
        return self._play.state(channel_id)

    def channels_in(self, guild_id: int) -> list[int]:
        """The channels of ``guild_id`` that hold a lobby or a series now."""
        return [ch.channel_id for ch in self._channels if ch.guild_id == guild_id]

    def channel_count(self) -> int:
        """Channels with something in them (a lobby, a series or a game)."""
        return len(self._channels)

    def cached_servers(self) -> int:
        """Servers whose settings are cached (bounded: see :mod:`bot.service.settings`)."""
        return len(self._settings)
