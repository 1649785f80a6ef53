"""The storage interface (:class:`Storage`) and its errors, common to every backend."""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from contextlib import AbstractAsyncContextManager

from bot.errors import ChannelMoved, GameMoved
from bot.player_records import AiLevelStats, LeaderboardRow, PrivacyView, ProfileStats
from bot.ratings import RatedGame, Rating, RatingKey
from bot.seating import LobbySeat
from bot.storage.changes import OnChange, OnReconnect
from bot.storage.records import (
    FinishedGame,
    GameRecord,
    HistoryRecord,
    LiveRecord,
    LobbyRecord,
    NewGame,
    PlayerResult,
    ReviewRecord,
    SeriesRecord,
    StoredState,
)
from bot.votes import Forfeit

__all__ = [
    "DEFAULT_DATABASE_TIMEOUT",
    "ChannelMoved",
    "DatabaseBusy",
    "DatabaseUnavailable",
    "GameMoved",
    "GuildFilter",
    "Storage",
    "StorageError",
]

#: Seconds one request (a press, a hand, a stats page) waits for the database before it is
#: given up (``DATABASE_TIMEOUT``): short enough that a player hears "try again" within
#: Discord's 3-second budget when the database hangs.
DEFAULT_DATABASE_TIMEOUT = 2.0

#: Which guilds a process serves (e.g. "the guilds on my shards"): ``include(guild_id)``.
GuildFilter = Callable[[int], bool]


class StorageError(Exception):
    """A storage problem that is not a refused game write."""


class DatabaseUnavailable(StorageError):
    """The database cannot be used by this process (read-only, unwritable path, held by
    another process, unreachable).  ``str(exc)`` is one line naming the database and why."""


class DatabaseBusy(StorageError):
    """The database did not answer within the storage's timeout (it hangs, is overloaded, or
    another holder keeps its write lock): the request was given up.  A write given up this way
    may still have been applied (its commit may have reached the database just before it
    stopped answering): for a live game the fence tells, see :meth:`Storage.bump_live`."""


class Storage(ABC):
    """What the service needs from a database.  All methods are coroutines.

    Fencing: a live game's row carries a ``revision``, bumped by every write of that game.
    :meth:`save_live` and :meth:`finish_game` take the revision the caller holds and change
    nothing if the row moved on (or is gone): they raise :class:`bot.errors.GameMoved`, which
    means another process serves the game now and the caller must drop its copy.

    Channel fences: every other write of a channel (its lobby, its series, the start and the
    end of its games) takes ``fence``, the channel's write counter as the caller last read it
    (:attr:`StoredState.fences`; 0 when nothing was ever written there), and advances it by
    exactly one; if the stored counter is not ``fence`` it changes nothing and raises
    :class:`bot.errors.ChannelMoved`: another process wrote the channel since, and the caller
    must read it again.  A live game's moves are fenced by its row's revision only, and a
    process whose copy of a game is stale loses on that.  ``fence=None`` writes unfenced (for
    tools and tests that own the database alone; the service always passes it).

    Every stats, leaderboard and history query is scoped by guild and reads only committed
    rows, so any process answers for any guild."""

    #: Where the data lives, for messages (a path or a URL without its password).
    target: str
    #: Whether several bot processes may use this database at once (PostgreSQL).  A process on
    #: shared storage reads a channel it holds nothing of before answering for it.
    shared: bool = False
    #: Seconds one request may wait for the database before it is given up
    #: (:class:`DatabaseBusy`); a player's command waits as long for its channel's lock.
    timeout: float = DEFAULT_DATABASE_TIMEOUT
    #: This process's number among those sharing the database (taken from the database when
    #: it opens, alive while its listening connection holds it: :meth:`claim_channel`); 0 on
    #: a database that is not shared.
    process: int = 0

    def unhurried(self) -> AbstractAsyncContextManager[None]:
        """A block whose requests wait for the database as long as it takes (startup: opening,
        migrating, restoring every live game), instead of giving up after the timeout that
        protects players' requests.  The default: a storage without a timeout."""
        return contextlib.nullcontext()

    @abstractmethod
    async def open(self) -> None:
        """Connect, bring the schema to the newest migration and check the database takes
        writes.  Raises :class:`DatabaseUnavailable` (one line) if it cannot be used."""

    @abstractmethod
    async def close(self) -> None:
        """Wait for pending writes and disconnect (idempotent)."""

    @abstractmethod
    async def schema_version(self) -> int:
        """The number of the newest migration applied."""

    @abstractmethod
    async def save_lobby(self, lobby: LobbyRecord, *, fence: int | None = None) -> None:
        """Insert or replace the lobby of ``lobby.channel_id`` (channel-fenced)."""

    @abstractmethod
    async def delete_lobby(self, channel_id: int, *, fence: int | None = None) -> None:
        """Drop the channel's lobby (no error if there is none; channel-fenced)."""

    @abstractmethod
    async def start_game(
        self,
        series: SeriesRecord,
        game: NewGame,
        *,
        fence: int | None = None,
        claim: bool = False,
    ) -> tuple[int, int]:
        """One transaction: drop the channel's lobby, create ``series`` if its ``id`` is None,
        insert the game and its live row (at revision
        :data:`bot.storage.records.FIRST_REVISION`); channel-fenced.  With ``claim``, this
        process also becomes the channel's owner as :meth:`claim_channel` would, in the same
        transaction: another process that reads the new game never sees it without one.
        Returns ``(series_id, game_id)``."""

    @abstractmethod
    async def save_live(
        self, game_id: int, snapshot: str, meta: str, version: int, now: float, *, revision: int
    ) -> int:
        """Store a live game's state after an action (or a timer/autopilot change), if its
        row is still at ``revision``.  Returns the row's new revision; raises
        :class:`GameMoved` (nothing written) if the row moved on or is gone."""

    @abstractmethod
    async def bump_live(self, game_id: int, now: float, *, revision: int) -> int:
        """Move the live row from ``revision`` to the next one, changing nothing else.  After
        a write of the game fenced at ``revision`` failed without saying whether it was
        applied (:class:`DatabaseBusy`), this settles it: if the row is still at
        ``revision`` the write was not applied, and can never be now.  Returns the new
        revision; :class:`GameMoved` (nothing written) if the row is not at ``revision``: the
        write was applied after all, or another process moved the game on."""

    @abstractmethod
    async def load_live(self, game_id: int) -> LiveRecord | None:
        """The live row of ``game_id`` (snapshot and meta parsed), ``None`` if it has none."""

    @abstractmethod
    async def finish_game(
        self,
        game: FinishedGame,
        series: SeriesRecord | None,  # None: no series counts to store
        end_series_at: float | None = None,
        *,
        revision: int,
        fence: int | None = None,
    ) -> None:
        """One transaction, fenced like :meth:`save_live` and channel-fenced: drop the live
        row, record the result (or the abort), the per-player rows, the AI levels seated
        (``game.ai_levels``), the rating changes of ``game.rated_places`` (each player's
        current rating read and updated in this transaction, a ``rating_history`` row per
        player) and the series' new counts (``series`` given); optionally end the series.
        :class:`GameMoved` if the row is not at ``revision``."""

    @abstractmethod
    async def record_forfeit(self, forfeit: Forfeit, guild_id: int, *, revision: int) -> int:
        """One transaction, fenced like :meth:`save_live`: store ``forfeit`` (a player of the
        live game ``forfeit.game_id`` in guild ``guild_id`` left or was kicked) and bump the
        live row's revision.  Returns the new revision.  A second forfeit of the same seat of
        the same game is ignored.  :class:`GameMoved` (nothing written) if the row is not at
        ``revision``."""

    @abstractmethod
    async def forfeits_of_game(self, game_id: int) -> list[Forfeit]:
        """The forfeits of a game, in the order they happened."""

    @abstractmethod
    async def load_live_game(self, game_id: int) -> tuple[LiveRecord, list[Forfeit]] | None:
        """The live row of ``game_id`` and the game's forfeits, read together (one
        snapshot of the database); ``None`` if it has no live row (it ended)."""

    @abstractmethod
    async def end_series(
        self, series_id: int, ended_at: float, *, fence: int | None = None
    ) -> None:
        """Mark an active series ended (channel-fenced)."""

    @abstractmethod
    async def end_series_and_save_lobby(
        self, series_id: int, ended_at: float, lobby: LobbyRecord, *, fence: int | None = None
    ) -> None:
        """One transaction: :meth:`end_series` then :meth:`save_lobby`, as ``/durak new`` does
        in a channel whose series is finished.  Both are stored, or (if either fails) neither:
        the series stays active and no lobby is stored.  Channel-fenced: the fence advances
        once."""

    @abstractmethod
    async def discard_orphans(self, ended_at: float) -> list[int]:
        """Record as aborted and drop every live game whose series is not active (such a row
        would block its channel for good), advancing their channels' fences.  Returns their
        game ids."""

    @abstractmethod
    async def load_state(self, include_guild: GuildFilter | None = None) -> StoredState:
        """Open lobbies, active series and live games (for restart recovery), of the guilds
        ``include_guild`` accepts (default: all), with the fences of their channels."""

    @abstractmethod
    async def load_channel(self, channel_id: int) -> StoredState:
        """What :meth:`load_state` holds of one channel: its lobby, active series, live game
        and fence (of whatever server it belongs to)."""

    @abstractmethod
    async def channel_fences(self) -> dict[int, tuple[int, int | None]]:
        """Every stored channel fence: ``{channel_id: (fence, guild_id)}``, the guild of the
        channel's open lobby or active series (``None`` if it holds neither)."""

    @abstractmethod
    async def load_game(self, game_id: int) -> GameRecord | None:
        """A stored game's rules, deal, actions and result."""

    @abstractmethod
    async def game_seats(self, game_id: int) -> list[LobbySeat] | None:
        """Who sits (or sat) where in a stored game, as stored now (a forgotten player's seat
        is a former player's); ``None`` if there is no game of that id."""

    @abstractmethod
    async def load_review(self, game_id: int, user_id: int, deals: int, seed: int) -> str | None:
        """The stored review (its JSON, ``GameReview.to_dict()``) of ``user_id``'s decisions
        in game ``game_id`` made with ``deals`` and ``seed``; ``None`` if there is none."""

    @abstractmethod
    async def save_review(self, review: ReviewRecord) -> None:
        """Keep a review (one per game and player: a newer one replaces it)."""

    @abstractmethod
    async def review_accuracy(self, user_id: int) -> tuple[float | None, int]:
        """``user_id``'s mean accuracy over their reviewed games (``None`` without any) and
        how many reviews it averages."""

    @abstractmethod
    async def load_series(self, series_id: int) -> SeriesRecord | None:
        """A series, active or ended (``active`` says which), with its seats and loss
        counts; ``None`` if there is none of that id."""

    @abstractmethod
    async def game_results(self, game_id: int) -> list[PlayerResult]:
        """The per-player results :meth:`finish_game` recorded for a game (its human seats),
        by seat; empty for a game not finished, aborted, or of AI seats only."""

    @abstractmethod
    async def player_stats(
        self, guild_id: int, user_id: int, profile: str | None
    ) -> tuple[str | None, list[ProfileStats]]:
        """The player's latest name and per-profile totals and ratings (restricted to
        ``profile``)."""

    @abstractmethod
    async def ai_level_stats(
        self, guild_id: int, user_id: int, profile: str | None
    ) -> list[AiLevelStats]:
        """The player's totals in games with AI seats, per AI level (by level name)."""

    @abstractmethod
    async def leaderboard(
        self, guild_id: int, profile: str, min_games: int, limit: int, offset: int
    ) -> tuple[int, list[LeaderboardRow]]:
        """The rated players of ``profile`` with at least ``min_games`` rated games, by
        conservative estimate: ``(number of ranked players, rows of the page)``; rows'
        ``rank`` is absolute."""

    @abstractmethod
    async def ratings(self, guild_id: int | None = None) -> dict[RatingKey, Rating]:
        """Every stored rating (of ``guild_id``, if given)."""

    @abstractmethod
    async def rated_games(self, guild_id: int | None = None) -> list[RatedGame]:
        """Every rated game's places from the rating history (of ``guild_id``), in the order
        they were rated: what :func:`bot.ratings.recompute` rebuilds the ratings from.  A
        player erased by :meth:`forget_player` has no places left, so a recomputation would
        no longer give the others exactly their stored ratings, which stay as they were."""

    @abstractmethod
    async def history(
        self, guild_id: int, user_id: int | None, limit: int, offset: int
    ) -> tuple[int, list[HistoryRecord]]:
        """``(number of ended games, the page)`` of the guild (or of the games ``user_id``
        has a result in), newest first."""

    @abstractmethod
    async def load_server_config(self, guild_id: int) -> str | None:
        """The stored settings of ``guild_id`` (the JSON text given to
        :meth:`save_server_config`), or ``None`` if the server never changed them."""

    @abstractmethod
    async def save_server_config(self, guild_id: int, settings_json: str, now: float) -> None:
        """Insert or replace the settings of ``guild_id`` (JSON text) at time ``now``."""

    # One user in every server (Discord ids are global): see :mod:`bot.storage.player_data`.
    @abstractmethod
    async def player_data(self, user_id: int) -> PrivacyView:
        """Everything stored about ``user_id``, in every server: the names stored with their
        id, and per server their games, results, forfeits, series, ratings, rating history
        and the channels where they are in a lobby, series or game that has not ended."""

    @abstractmethod
    async def forget_player(self, user_id: int) -> PrivacyView:
        """One transaction: erase ``user_id`` from every record, in every server.  Their
        seats in finished games and ended series become a former player's (id
        :data:`bot.seating.FORMER_PLAYER_ID`, no name: the seat stays, so the games still
        replay and the other seats keep their numbers), their forfeits of finished games
        stay under that id, and their results, ratings and rating history are deleted.  The
        other players' results, series counts and ratings are left as they are.

        Refuses with :class:`bot.errors.PlayerInPlay`, changing nothing, while the user is in
        a stored lobby, or a series or game that has not ended (whichever process serves it);
        this is read in the same transaction.  Returns what was stored before."""

    @abstractmethod
    async def live_revisions(self) -> dict[int, tuple[int, int]]:
        """Every live game's ``{channel_id: (game_id, revision)}`` (the resync compares them
        with the copies it holds)."""

    @abstractmethod
    async def open_channels(self, guild_id: int) -> list[int]:
        """The channels of ``guild_id`` that hold an open lobby or an active series, whichever
        process wrote them."""

    # Channel owners and notifications: what several processes on one database need.  A
    # database that is not shared has one process, which owns every channel and hears nothing.
    async def listen(self, on_change: OnChange, on_reconnect: OnReconnect) -> None:
        """From now on until :meth:`close`, tell ``on_change`` of every change of a channel
        committed by any process (:class:`~bot.storage.changes.ChannelChange`); when the
        listening connection was lost and is back, ``await on_reconnect()`` (what changed
        meanwhile was not heard).  Not shared: nothing to hear."""
        return None

    async def claim_channel(self, channel_id: int) -> bool:
        """Make this process the owner of the channel's timers and AI turns unless a live
        process owns it (a process is alive while its listening connection is); whether this
        process owns it now.  Not shared: always."""
        return True

    async def orphaned_channels(self) -> list[tuple[int, int]]:
        """``(channel_id, guild_id)`` of each live game whose channel has no live owner (none
        stored, or a process that died or stopped), or is owned by this process."""
        return []

    async def release_channels(self, channel_ids: Iterable[int] | None = None) -> None:
        """Give up this process's ownership (of ``channel_ids``, default all), so that
        another process takes the channels over at once (a graceful stop)."""
        return None

    # The bot's own values: a small key-value table (``bot_meta``, migration 6).
    @abstractmethod
    async def get_meta(self, key: str) -> str | None:
        """The value stored under ``key`` by :meth:`set_meta`, or ``None`` if there is none."""

    @abstractmethod
    async def set_meta(self, key: str, value: str, now: float) -> None:
        """Insert or replace the value of ``key`` (one row per key) at time ``now``."""

    @abstractmethod
    async def take_number(self, name: str) -> int:
        """The next number of the counter ``name`` (1, 2, 3…; migration 8's ``numbers``),
        taken in one statement: two processes taking numbers at once never get the same
        one, and a number once taken is never given again."""

    @abstractmethod
    async def set_meta_once(self, key: str, value: str, now: float) -> str:
        """Store ``value`` under ``key`` unless a value is stored there already (by this or
        another process, even at the same moment); returns the value stored, the first one
        written."""
