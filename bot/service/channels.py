"""The channel core: every channel's state, its lock, the guards, and one transaction.

A command edits a channel in one transaction::

    async with channels.edit(channel_id) as tx:
        lobby = tx.need_lobby()            # a guard: refuses with a ServiceError
        ...                                # validate, store, then change memory
        tx.lobby_changed(view)             # queued in the transaction's outbox

The transaction holds the channel's ``asyncio.Lock``; what it queues for the presenters is
published only after the lock is released, and only if the block ended without an error (a
refused request announces nothing), each event to the presenters of its channel's realm only
(:func:`bot.realm.realm_of`: a room's events never reach Discord's presenter, nor the
reverse).  A channel of a server this process does not serve (its copy is held only for a web
page: :attr:`Channels.serves`) is told only to the presenters of pages, which any process
serves (``any_process``): another process's Discord presenter shows it.  A channel with
nothing left in it (no lobby, no series, no game, hence no timer) is dropped with its lock, so
the registry holds only live channels.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable, Iterator
from dataclasses import dataclass, field

from bot.authority import Authority
from bot.errors import (
    AlreadyStarted,
    ChannelMoved,
    GameFinished,
    NoGame,
    NoLobby,
    NotHost,
    NotSeated,
    StorageBusy,
)
from bot.presenter import Notice, NoticeKind, Presenter
from bot.realm import Realm, realm_of
from bot.service.tasks import Tasks
from bot.state import ChannelState, GameState, LobbyState
from bot.storage import SeriesRecord
from bot.terms import HERE, Permission
from bot.view_builders import hand_view, table_view
from bot.views import HandView, LobbyView, Player, TableView
from rules_engine.messages import Message

__all__ = [
    "Channels",
    "KeyedLocks",
    "LockWaitedOut",
    "Outbox",
    "Transaction",
    "need_host",
    "need_member",
    "not_host_message",
    "players_of",
    "require_seat",
    "seat_of",
]

log = logging.getLogger(__name__)

Event = Callable[[Presenter], Awaitable[None]]
#: Reads a channel this process holds nothing of from storage into the registry (under the
#: channel's lock); returns the channel's stored fence (see :meth:`Channels.edit`).
Loader = Callable[[int], Awaitable[int]]


@dataclass(slots=True)
class _Slot:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0  # holding or waiting


class LockWaitedOut(Exception):
    """A lock was not free within the time its caller would wait."""


class KeyedLocks:
    """One ``asyncio.Lock`` per key, dropped as soon as nobody holds or waits for it."""

    def __init__(self) -> None:
        self._slots: dict[Hashable, _Slot] = {}

    @contextlib.asynccontextmanager
    async def hold(self, key: Hashable, wait: float | None = None) -> AsyncIterator[None]:
        """Hold ``key``'s lock; ``wait``: seconds to wait for it at most (then
        :class:`LockWaitedOut`)."""
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = _Slot()
        slot.users += 1
        try:
            try:
                async with asyncio.timeout(wait):
                    await slot.lock.acquire()
            except TimeoutError:
                raise LockWaitedOut(key) from None
            try:
                yield
            finally:
                slot.lock.release()
        finally:
            slot.users -= 1
            if slot.users == 0:
                del self._slots[key]

    def __len__(self) -> int:
        return len(self._slots)


class Outbox:
    """Presenter events queued by a transaction, published after its lock is released, each
    to the presenters of its channel's realm (:meth:`Channels.publish`)."""

    def __init__(self, channels: Channels) -> None:
        self._channels = channels
        #: ``(channel id, event, whether the channel is foreign)`` in the order they were
        #: queued (:meth:`Channels.foreign`).
        self.events: list[tuple[int, Event, bool]] = []

    def _queue(self, channel_id: int, event: Event) -> None:
        self.events.append((channel_id, event, self._channels.foreign(channel_id)))

    def lobby_changed(self, view: LobbyView) -> None:
        self._queue(view.channel_id, lambda p: p.lobby_changed(view))

    def table_changed(self, view: TableView) -> None:
        self._queue(view.channel_id, lambda p: p.table_changed(view))

    def hand_changed(self, channel_id: int, user_id: int, view: HandView) -> None:
        self._queue(channel_id, lambda p: p.hand_changed(channel_id, user_id, view))

    def notice(self, notice: Notice) -> None:
        self._queue(notice.channel_id, lambda p: p.notice(notice))

    def after_change(self, ch: ChannelState, view: TableView) -> None:
        """The table, every seated human's hand, and game over."""
        if not self._channels.presenters_of(ch.channel_id):
            return
        self.table_changed(view)
        g = ch.game
        if g is not None and ch.series is not None and g.game_id == view.game_id:
            for seat, s in enumerate(ch.series.seats):
                user_id = s.user_id
                if user_id is not None and seat not in g.forfeits:
                    self.hand_changed(ch.channel_id, user_id, hand_view(ch, g, seat))
        if view.finished:
            self._queue(view.channel_id, lambda p: p.game_over(view))

    def show_table(self, ch: ChannelState) -> None:
        """:meth:`after_change` with the channel's current table, if it has a game."""
        if ch.game is not None and self._channels.presenters_of(ch.channel_id):
            self.after_change(ch, table_view(ch))


class Transaction:
    """One command's hold on a channel: its state, guards and outbox (see the module)."""

    def __init__(
        self,
        channels: Channels,
        channel_id: int,
        outbox: Outbox,
        fence: int = 0,
        *,
        loaded: bool = False,
    ) -> None:
        self.channel_id = channel_id
        self.outbox = outbox
        self._channels = channels
        self._fence = fence  # the stored fence of a channel that holds nothing yet
        #: Whether the channel was read from storage for this command (its copy is fresh).
        self.loaded = loaded

    @property
    def ch(self) -> ChannelState | None:
        """The channel's state, if anything is in it."""
        return self._channels.get(self.channel_id)

    @property
    def realm(self) -> Realm:
        """The channel's realm (:func:`bot.realm.realm_of`)."""
        return realm_of(self.channel_id)

    def channel(self, guild_id: int) -> ChannelState:
        """The channel's state, created empty if there is none (at the channel's stored
        fence, so that its first write is fenced like any other)."""
        ch = self._channels.get(self.channel_id)
        if ch is None:
            ch = self._channels.create(self.channel_id, guild_id)
            ch.fence = self._fence
        return ch

    def need_lobby(self) -> LobbyState:
        """The open lobby (:class:`AlreadyStarted` if a game runs, else :class:`NoLobby`)."""
        ch = self.ch
        if ch is None or ch.lobby is None:
            if ch is not None and ch.playing:
                raise AlreadyStarted()
            raise NoLobby()
        return ch.lobby

    def need_game(self, *, allow_finished: bool = False) -> tuple[ChannelState, GameState]:
        """The running game (or the finished one, if allowed): :class:`NoGame`,
        :class:`GameFinished`."""
        return need_game(self.ch, allow_finished=allow_finished)

    def need_series(self) -> tuple[ChannelState, SeriesRecord]:
        """The channel's series (:class:`NoGame` if none)."""
        ch = self.ch
        if ch is None or ch.series is None:
            raise NoGame(Message("there is no series {here}", here=HERE))
        return ch, ch.series

    def running(self, game_id: int) -> tuple[ChannelState, GameState] | None:
        """The running game ``game_id`` of the channel, if it still runs (for timers)."""
        ch = self.ch
        g = ch.game if ch is not None else None
        if ch is None or g is None or g.game_id != game_id or not ch.playing:
            return None
        return ch, g

    def notice(
        self,
        kind: NoticeKind,
        message: Message,
        *,
        user_id: int | None = None,
        players: tuple[Player, ...] = (),
    ) -> None:
        """Queue a public notice of this channel."""
        self.outbox.notice(Notice(self.channel_id, kind, message, user_id, players))

    def lobby_changed(self, view: LobbyView) -> None:
        self.outbox.lobby_changed(view)

    def table_changed(self, view: TableView) -> None:
        self.outbox.table_changed(view)

    def after_change(self, ch: ChannelState, view: TableView) -> None:
        self.outbox.after_change(ch, view)

    def show_table(self, ch: ChannelState) -> None:
        self.outbox.show_table(ch)


class Channels:
    """The registry of channel states, their locks and the presenters they publish to (by
    realm: see :meth:`subscribe`)."""

    def __init__(self, tasks: Tasks) -> None:
        self.tasks = tasks
        self._presenters: dict[Realm, list[Presenter]] = {realm: [] for realm in Realm}
        self._states: dict[int, ChannelState] = {}
        self._locks = KeyedLocks()
        #: Set by the service: reads a channel missing from the registry (see :meth:`edit`).
        self.loader: Loader | None = None
        #: The servers this process serves (``None``: all); a channel of another server is
        #: *foreign* here (see the module docstring).
        self.serves: Callable[[int], bool] | None = None

    # -- presenters, by realm ----------------------------------------------------------
    def subscribe(self, presenter: Presenter) -> None:
        """Give ``presenter`` the events of the realms it serves (:attr:`Presenter.realms`,
        read now), from now on.  A presenter that names no realm, or something that is not
        one, is refused (:class:`ValueError`)."""
        realms = frozenset(presenter.realms)
        if not realms or not all(isinstance(r, Realm) for r in realms):
            raise ValueError(f"presenter {presenter!r} must serve one realm or more: {realms!r}")
        for realm in realms:
            if not any(p is presenter for p in self._presenters[realm]):
                self._presenters[realm].append(presenter)

    def unsubscribe(self, presenter: Presenter) -> None:
        """Give ``presenter`` no more events (events already queued still reach it)."""
        for realm, presenters in self._presenters.items():
            self._presenters[realm] = [p for p in presenters if p is not presenter]

    def presenters_of(self, channel_id: int, foreign: bool = False) -> list[Presenter]:
        """The presenters told of ``channel_id``'s events: those of its realm (of a foreign
        channel, only those that serve pages for any process)."""
        presenters = self._presenters[realm_of(channel_id)]
        if foreign:
            return [p for p in presenters if getattr(p, "any_process", False)]
        return presenters

    def foreign(self, channel_id: int) -> bool:
        """Whether the channel, held here, belongs to a server this process does not serve."""
        ch = self._states.get(channel_id)
        return ch is not None and self.serves is not None and not self.serves(ch.guild_id)

    def watched(self, channel_id: int) -> bool:
        """Whether a presenter here shows the channel now, so that a change another process
        made must be read and shown here: one that says so (``watches(channel_id)``: a page
        is open on it), or, for a channel held here, one that shows every channel of its
        realm (a presenter without ``watches``, such as Discord's)."""
        held = channel_id in self._states
        for p in self.presenters_of(channel_id, self.foreign(channel_id)):
            watches = getattr(p, "watches", None)
            if watches is None:
                if held:
                    return True
            elif watches(channel_id):
                return True
        return False

    def get(self, channel_id: int) -> ChannelState | None:
        return self._states.get(channel_id)

    def create(self, channel_id: int, guild_id: int) -> ChannelState:
        """The channel's state, created empty if there is none."""
        ch = self._states.get(channel_id)
        if ch is None:
            ch = self._states[channel_id] = ChannelState(channel_id, guild_id)
        return ch

    def forget(self, channel_id: int) -> None:
        """Drop the channel's state (its lock goes when nobody waits for it)."""
        self._states.pop(channel_id, None)

    def drop(self, channel_id: int) -> None:
        """Drop this process's copy of a channel, its timers and stop vote with it (another
        process wrote the channel: the copy is stale and is read again when next needed)."""
        ch = self._states.pop(channel_id, None)
        if ch is not None and ch.game is not None:
            ch.game.disarm()
            ch.game.close_vote()

    def __iter__(self) -> Iterator[ChannelState]:
        return iter(list(self._states.values()))

    def __len__(self) -> int:
        return len(self._states)

    @property
    def lock_count(self) -> int:
        """Locks held or waited for now (for tests: they do not outlive their users)."""
        return len(self._locks)

    @contextlib.asynccontextmanager
    async def edit(
        self, channel_id: int, *, wait: float | None = None
    ) -> AsyncIterator[Transaction]:
        """Hold the channel's lock for one command (see the module docstring).  ``wait``:
        seconds a player's command waits for the lock at most, then :class:`StorageBusy`
        (only a write waiting on the database holds a channel's lock that long, and a player
        who presses again must not queue behind it).

        A channel this process holds nothing of is read from storage first (by
        :attr:`loader`): another process may have written it.  A command whose write lost its
        fence (:class:`ChannelMoved`) drops this process's copy of the channel."""
        outbox = Outbox(self)
        try:
            async with self._locks.hold(channel_id, wait):
                fence = 0
                loaded = channel_id not in self._states and self.loader is not None
                if loaded:
                    assert self.loader is not None
                    fence = await self.loader(channel_id)
                tx = Transaction(self, channel_id, outbox, fence, loaded=loaded)
                try:
                    yield tx
                except ChannelMoved:
                    self.drop(channel_id)
                    raise
                finally:
                    ch = self._states.get(channel_id)
                    if ch is not None and ch.empty:
                        del self._states[channel_id]
        except LockWaitedOut:
            raise StorageBusy() from None
        self.publish(outbox)

    async def ensure(self, channel_id: int) -> ChannelState | None:
        """The channel's state, read from storage first if this process holds nothing of it
        (as :meth:`edit` does), for commands that only read."""
        ch = self._states.get(channel_id)
        if ch is None and self.loader is not None:
            async with self.edit(channel_id):
                pass
            ch = self._states.get(channel_id)
        return ch

    def publish(self, outbox: Outbox) -> None:
        """Run each queued event for every presenter of its channel's realm, each in a task
        of its own."""
        for channel_id, event, foreign in outbox.events:
            for p in list(self.presenters_of(channel_id, foreign)):
                self.tasks.spawn(_present(p, event))
        outbox.events = []


async def _present(p: Presenter, event: Event) -> None:
    """Run one presenter event; a failing presenter is logged and never breaks a game."""
    try:
        await event(p)
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("presenter %r failed", p)


# ---------------------------------------------------------------------------------- guards
def need_game(
    ch: ChannelState | None, *, allow_finished: bool = False
) -> tuple[ChannelState, GameState]:
    """The channel's game: :class:`NoGame` if none (or only a lobby), :class:`GameFinished`
    if it ended (unless ``allow_finished``)."""
    if ch is None or ch.game is None:
        if ch is not None and ch.lobby is not None:
            raise NoGame(Message("the game has not started yet"))
        raise NoGame()
    if not allow_finished and not ch.playing:
        raise GameFinished()
    return ch, ch.game


def need_host(realm: Realm, host_id: int, requester_id: int | None, authority: Authority) -> None:
    """Refuse (:class:`NotHost`) anyone but the host, unless their ``authority`` may act over
    the host in ``realm`` (:meth:`Authority.over_host`); the refusal names moderators only
    where the realm has them."""
    if requester_id != host_id and not authority.over_host(realm):
        raise NotHost(not_host_message(realm))


def not_host_message(realm: Realm) -> Message:
    """What someone who may not do a host's part is told in ``realm``."""
    if realm.has_moderators:
        return Message(
            "only the host or someone with {permission} can do that",
            permission=Permission.MANAGE_CHANNEL,
        )
    return Message("only the host can do that")


def need_member(
    realm: Realm, series: SeriesRecord, requester_id: int, authority: Authority
) -> None:
    """Refuse (:class:`NotSeated`) anyone but the host and the series' players, unless their
    ``authority`` may act over the host in ``realm``."""
    if authority.over_host(realm) or requester_id == series.host_id:
        return
    if any(s.user_id == requester_id for s in series.seats):
        return
    raise NotSeated(Message("only the players of this series (or the host) can do that"))


def seat_of(series: SeriesRecord | None, user_id: int) -> int | None:
    """The user's seat in ``series``, if any (no error)."""
    if series is None:
        return None
    return next((i for i, s in enumerate(series.seats) if s.user_id == user_id), None)


def require_seat(ch: ChannelState, user_id: int) -> int:
    """The user's seat in the channel's series; :class:`NotSeated` if they have none."""
    seat = seat_of(ch.series, user_id)
    if seat is None:
        raise NotSeated()
    return seat


def players_of(series: SeriesRecord | None) -> tuple[Player, ...]:
    """Who sits at each seat of ``series`` (to name ``Seat`` parameters of notices)."""
    if series is None:
        return ()
    return tuple(Player(s.name, s.ai_level) for s in series.seats)
