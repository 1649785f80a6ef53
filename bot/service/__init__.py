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
- :mod:`~bot.service.lifecycle`: restore at startup, close at the end.

AI-only tables (every seat an AI) cost the AI pool the most and no one plays them, so a server
runs at most ``max_ai_only_tables`` of them at once
(:data:`bot.ai_pool.MAX_AI_ONLY_TABLES_PER_SERVER`), counted when a lobby starts or a series
rematches; the next one is refused with :class:`AIOnlyLimit`.  Every game of a server lives in
the process holding its shard, so this process's count is the server's.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from bot.ai_pool import MAX_AI_ONLY_TABLES_PER_SERVER, AIPool, ThreadAI
from bot.authority import PLAYER, Authority, SystemRule
from bot.clock import Clock, SystemClock
from bot.errors import ServiceError
from bot.limits import DEFAULT_TIMEOUT, MAX_TIMEOUT, MIN_TIMEOUT
from bot.player_records import PrivacyView
from bot.presenter import Presenter
from bot.seating import LobbyOptions
from bot.server_config import ServerConfig
from bot.service.channels import Channels
from bot.service.commit import Commit
from bot.service.driver import Driver
from bot.service.fairplay import FairPlay, StopOutcome
from bot.service.lifecycle import Lifecycle
from bot.service.lobby import Lobbies
from bot.service.play import ChannelPhase, Play, Unshowable, UnshowableOutcome
from bot.service.privacy import Privacy
from bot.service.records import HISTORY_PER_PAGE, MIN_RATED_GAMES, Records
from bot.service.settings import SettingsStore
from bot.service.tasks import Tasks
from bot.storage import Storage
from bot.views import (
    ForgetRequest,
    HandView,
    HistoryPage,
    LeaderboardPage,
    LobbyView,
    ReplayView,
    SeriesView,
    StatsView,
    TableView,
)
from rules_engine import Action, Game
from rules_engine.ai import AUTOPILOT_LEVEL, DEFAULT_AI_LEVEL

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
        :func:`bot.shards.guild_filter`); :meth:`restore` loads only their lobbies, series and
        games (default: every server).  Stats and leaderboards answer for any server.
    :param resync_interval: on shared storage (PostgreSQL), how often this process reads
        again the channels another process wrote (0: never; a channel is read anyway when a
        write of it loses its fence, or when this process holds nothing of it).
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
        self.max_ai_only_tables = max_ai_only_tables
        seeds = seed_source or (lambda: secrets.randbits(62))
        self._own_ai = ai is None
        self._ai: AIPool | ThreadAI = ai if ai is not None else AIPool()
        self._tasks = Tasks()
        self._restored = False
        channels = self._channels = Channels(self._tasks)
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
        privacy = Privacy(storage, channels, self.clock)
        self._lifecycle = Lifecycle(
            channels,
            commit,
            driver,
            settings,
            turn_timeout=turn_timeout,
            restore_grace=restore_grace,
            include_guild=include_guild,
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
        if self.storage.shared and self.resync_interval > 0:
            self._tasks.spawn(self._resync_forever())
        return restored

    async def resync(self) -> int:
        """Read again the channels another process wrote since this one read them (what the
        service does by itself every ``resync_interval`` seconds on shared storage); returns
        how many were read again."""
        return await self._lifecycle.resync()

    async def _resync_forever(self) -> None:
        """On shared storage, every ``resync_interval`` seconds: read again the channels that
        another process wrote (:meth:`bot.service.lifecycle.Lifecycle.resync`), so that a
        lobby or game it started is served here too once it stops."""
        while not self._driver.closed:
            await self._tasks.nap(self.clock, self.resync_interval)
            if self._driver.closed:
                return
            try:
                await self._lifecycle.resync()
            except ServiceError as exc:  # the database is away: try again next time
                log.warning("resync with the database failed: %s", exc)

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

    # ------------------------------------------------------------------ lobbies
    # Each command is its feature module's (see there for what it does and refuses); those
    # that write are retried there on a fresh copy of their channel when another process wrote
    # it first (:func:`bot.service.moved.retry_moved`).
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
        """Open a lobby (:meth:`Lobbies.open_lobby <bot.service.lobby.Lobbies.open_lobby>`)."""
        return await self._lobbies.open_lobby(
            channel_id,
            guild_id,
            host_id,
            host_name,
            options,
            seat_host=seat_host,
            parent_id=parent_id,
        )

    async def lobby(self, channel_id: int) -> LobbyView:
        """The channel's open lobby (:meth:`bot.service.lobby.Lobbies.lobby`)."""
        return await self._lobbies.lobby(channel_id)

    async def join(
        self, channel_id: int, user_id: int, name: str, team: int | None = None
    ) -> LobbyView:
        """Take a lobby seat (:meth:`bot.service.lobby.Lobbies.join`); ``team`` (0 or 1) in
        a lobby played in teams."""
        return await self._lobbies.join(channel_id, user_id, name, team)

    async def switch_team(
        self, channel_id: int, user_id: int, team: int | None = None
    ) -> LobbyView:
        """Move to the other team of a lobby played in teams, or to ``team``
        (:meth:`bot.service.lobby.Lobbies.switch_team`)."""
        return await self._lobbies.switch_team(channel_id, user_id, team)

    async def leave(self, channel_id: int, user_id: int) -> LobbyView:
        """Free one's lobby seat (:meth:`bot.service.lobby.Lobbies.leave`)."""
        return await self._lobbies.leave(channel_id, user_id)

    async def add_ai(
        self,
        channel_id: int,
        requester_id: int,
        level: str = DEFAULT_AI_LEVEL,
        *,
        team: int | None = None,
        authority: Authority = PLAYER,
    ) -> LobbyView:
        """Seat an AI player (:meth:`bot.service.lobby.Lobbies.add_ai`); ``team`` (0 or 1)
        in a lobby played in teams."""
        return await self._lobbies.add_ai(
            channel_id, requester_id, level, team=team, authority=authority
        )

    async def remove_seat(
        self, channel_id: int, requester_id: int, seat: int, *, authority: Authority = PLAYER
    ) -> LobbyView:
        """Remove a lobby seat (:meth:`bot.service.lobby.Lobbies.remove_seat`)."""
        return await self._lobbies.remove_seat(channel_id, requester_id, seat, authority=authority)

    async def start(
        self, channel_id: int, requester_id: int, authority: Authority = PLAYER
    ) -> TableView:
        """Deal the first game of a series (:meth:`bot.service.lobby.Lobbies.start`)."""
        return await self._lobbies.start(channel_id, requester_id, authority)

    # ------------------------------------------------------------------ fair play
    async def stop(
        self,
        channel_id: int,
        requester_id: int,
        authority: Authority = PLAYER,
        *,
        game_id: int | None = None,
    ) -> StopOutcome:
        """Close a lobby, end a series, or stop a game (by a vote, unless a moderator or the
        system stops it: :meth:`bot.service.fairplay.FairPlay.stop`)."""
        return await self._fairplay.stop(channel_id, requester_id, authority, game_id=game_id)

    async def system_stop(self, channel_id: int, rule: SystemRule) -> StopOutcome | None:
        """The system ends whatever the channel holds, by ``rule``
        (:meth:`bot.service.fairplay.FairPlay.system_stop`)."""
        return await self._fairplay.system_stop(channel_id, rule)

    async def keep_playing(
        self, channel_id: int, user_id: int, *, game_id: int | None = None
    ) -> TableView:
        """Say no to the open stop vote (:meth:`bot.service.fairplay.FairPlay.keep_playing`)."""
        return await self._fairplay.keep_playing(channel_id, user_id, game_id=game_id)

    async def forfeit(
        self, channel_id: int, user_id: int, *, game_id: int | None = None
    ) -> TableView:
        """Leave a running game for good (:meth:`bot.service.fairplay.FairPlay.forfeit`)."""
        return await self._fairplay.forfeit(channel_id, user_id, game_id=game_id)

    async def kick(
        self,
        channel_id: int,
        requester_id: int,
        user_id: int | None = None,
        *,
        seat: int | None = None,
        authority: Authority = PLAYER,
    ) -> LobbyView | TableView:
        """Free another player's seat (:meth:`bot.service.fairplay.FairPlay.kick`)."""
        return await self._fairplay.kick(
            channel_id, requester_id, user_id, seat=seat, authority=authority
        )

    # ------------------------------------------------------------------ play
    async def act(
        self,
        channel_id: int,
        user_id: int,
        action: str | Action,
        version: int | None,
        *,
        game_id: int | None = None,
    ) -> TableView:
        """Play an action for the caller's seat (:meth:`bot.service.play.Play.act`)."""
        return await self._play.act(channel_id, user_id, action, version, game_id=game_id)

    async def hand(self, channel_id: int, user_id: int) -> HandView:
        """The caller's private hand (:meth:`bot.service.play.Play.hand`)."""
        return await self._play.hand(channel_id, user_id)

    async def table(self, channel_id: int) -> TableView:
        """The channel's public table (:meth:`bot.service.play.Play.table`)."""
        return await self._play.table(channel_id)

    def seat_of(self, channel_id: int, user_id: int) -> int | None:
        """The user's seat in the channel's series, if any."""
        return self._play.seat_of(channel_id, user_id)

    def state(self, channel_id: int) -> ChannelPhase:
        """What the channel holds now."""
        return self._play.state(channel_id)

    def live_channels(self) -> list[int]:
        """Channels with a game in progress."""
        return self._play.live_channels()

    def host_of(self, channel_id: int) -> int | None:
        """The host of the channel's lobby or series, if any."""
        return self._play.host_of(channel_id)

    async def rematch(
        self, channel_id: int, requester_id: int, authority: Authority = PLAYER
    ) -> TableView:
        """Deal the series' next game (:meth:`bot.service.play.Play.rematch`)."""
        return await self._play.rematch(channel_id, requester_id, authority)

    async def end_series(
        self, channel_id: int, requester_id: int, authority: Authority = PLAYER
    ) -> SeriesView:
        """Close the series after a game (:meth:`bot.service.play.Play.end_series`)."""
        return await self._play.end_series(channel_id, requester_id, authority)

    async def series(self, channel_id: int) -> SeriesView:
        """Loss counts of the channel's series (:meth:`bot.service.play.Play.series`)."""
        return await self._play.series(channel_id)

    def timers_paused(self, channel_id: int) -> bool:
        """Whether the channel's game waits with its timers paused."""
        return self._play.timers_paused(channel_id)

    async def pause_timers(self, channel_id: int) -> bool:
        """Freeze the channel's game (:meth:`bot.service.play.Play.pause_timers`)."""
        return await self._play.pause_timers(channel_id)

    async def resume_timers(self, channel_id: int) -> bool:
        """Undo :meth:`pause_timers` (:meth:`bot.service.play.Play.resume_timers`)."""
        return await self._play.resume_timers(channel_id)

    async def table_unshowable(self, channel_id: int, *, lobby: bool) -> UnshowableOutcome:
        """A public message of the channel could not be shown
        (:meth:`bot.service.play.Play.table_unshowable`)."""
        return await self._play.table_unshowable(channel_id, lobby=lobby)

    # ------------------------------------------------------------------ records
    async def stats(
        self,
        guild_id: int,
        user_id: int,
        profile: str | None = None,
        *,
        name: str | None = None,
    ) -> StatsView:
        """A player's record in a server (:meth:`bot.service.records.Records.stats`)."""
        return await self._records.stats(guild_id, user_id, profile, name=name)

    async def leaderboard(
        self,
        guild_id: int,
        profile: str | None = None,
        min_games: int = MIN_RATED_GAMES,
        page: int = 1,
        per_page: int = 10,
    ) -> LeaderboardPage:
        """A page of a server's ranking (:meth:`bot.service.records.Records.leaderboard`)."""
        return await self._records.leaderboard(guild_id, profile, min_games, page, per_page)

    async def history(
        self,
        guild_id: int,
        user_id: int | None = None,
        page: int = 1,
        per_page: int = HISTORY_PER_PAGE,
    ) -> HistoryPage:
        """A page of a server's ended games (:meth:`bot.service.records.Records.history`)."""
        return await self._records.history(guild_id, user_id, page, per_page)

    async def replay(self, guild_id: int, game_id: int) -> ReplayView:
        """An ended game, frame by frame (:meth:`bot.service.records.Records.replay`)."""
        return await self._records.replay(guild_id, game_id)

    # ------------------------------------------------------------------ privacy
    async def privacy(self, user_id: int) -> PrivacyView:
        """Everything stored about a player (:meth:`bot.service.privacy.Privacy.privacy`)."""
        return await self._privacy.privacy(user_id)

    async def ask_forget(self, user_id: int) -> ForgetRequest:
        """Ask to be forgotten (:meth:`bot.service.privacy.Privacy.ask_forget`)."""
        return await self._privacy.ask_forget(user_id)

    async def forget_me(self, user_id: int, requester_id: int, *, expires_at: int) -> PrivacyView:
        """Confirm :meth:`ask_forget` (:meth:`bot.service.privacy.Privacy.forget_me`)."""
        return await self._privacy.forget_me(user_id, requester_id, expires_at=expires_at)

    async def cancel_forget(self, user_id: int, requester_id: int) -> None:
        """Cancel :meth:`ask_forget` (:meth:`bot.service.privacy.Privacy.cancel_forget`)."""
        await self._privacy.cancel_forget(user_id, requester_id)

    # ------------------------------------------------------------------ server settings
    async def server_config(self, guild_id: int) -> ServerConfig:
        """A server's settings (:meth:`bot.service.settings.SettingsStore.server_config`)."""
        return await self._settings.server_config(guild_id)

    async def set_server_config(
        self, guild_id: int, requester_id: int, *, manage_guild: bool, **changes: object
    ) -> ServerConfig:
        """Change a server's settings
        (:meth:`bot.service.settings.SettingsStore.set_server_config`)."""
        return await self._settings.set_server_config(
            guild_id, requester_id, manage_guild=manage_guild, **changes
        )

    async def count_ai_games(self, guild_id: int) -> bool:
        """Whether games with AI seats count for the server's ratings."""
        return await self._settings.count_ai_games(guild_id)

    def count_ai_games_now(self, guild_id: int) -> bool:
        """:meth:`count_ai_games` from the cache, without waiting
        (:meth:`bot.service.settings.SettingsStore.count_ai_games_now`)."""
        return self._settings.count_ai_games_now(guild_id)

    # ------------------------------------------------------------------ read-only views
    def game_of(self, channel_id: int) -> Game | None:
        """A copy of the engine game of the channel (running or just finished), if any: for
        tests and tools that check positions; changing it changes nothing here."""
        ch = self._channels.get(channel_id)
        return None if ch is None or ch.game is None else ch.game.game.clone()

    def channels_in(self, guild_id: int) -> list[int]:
        """The channels of ``guild_id`` that hold a lobby or a series now."""
        return [ch.channel_id for ch in self._channels if ch.guild_id == guild_id]

    def channel_count(self) -> int:
        """Channels with something in them (a lobby, a series or a game)."""
        return len(self._channels)

    def cached_servers(self) -> int:
        """Servers whose settings are cached (bounded: see :mod:`bot.service.settings`)."""
        return len(self._settings)
