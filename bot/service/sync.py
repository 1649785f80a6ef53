"""Several processes on one database: what one hears of the others' writes, and the takeover
of channels whose owner is gone.

Every write of a channel is stored before it is acknowledged; on PostgreSQL its commit also
sends a notification (migration 10: the channel, the fence or live revision it moved to, the
writer's process number; :class:`bot.storage.changes.ChannelChange`).  Each process listens
(:meth:`bot.storage.Storage.listen`) and, for a change another process made to a channel whose
copy here is older (:func:`is_fresh`):

- if a presenter here shows the channel (a page open on it, or Discord's presenter for a
  channel it holds: :meth:`Channels.watched`) or this process owns it (its timers and AI
  turns: :mod:`bot.service.owners`), the channel is read again under its lock and what
  changed is published to the presenters (:meth:`Sync.refresh`): the lobby, the table and
  each seated human's hand, the game's end, the lobby's start or close, the series' end.
  A change of the live game held here that moved nothing else of the channel (a move, a
  timer, a forfeit: no fence change among the changes heard) reads only that game's row and
  forfeits (:meth:`Sync.advance`), the common case while a game is played;
- otherwise the stale copy is dropped: it is read again when a command or a page needs it.

Changes for one channel are coalesced: while one is being read, later ones wait, and only the
newest is looked at (a fence change among them makes it a read of the whole channel).  The
newest change heard of each channel is remembered (the last :data:`REMEMBERED` channels),
whether or not it was read: a page that opens here reads its channel from storage and only
then is registered, so a change committed between the two is caught up with once it is
(:meth:`Sync.catch_up`).  The notices that went with a change (a
timeout, a stop vote, a host hand-off) reach the pages of the process that made it; the others
show its new state.

Two safety nets: every ``resync_interval`` seconds (and right after the listening connection
came back) the stored fences and live revisions are compared with the copies held here
(:meth:`Sync.resync`), so a lost notification costs at most that long; every
``takeover_interval`` seconds the live games whose owner is gone (a process killed, or
stopped: it gives its channels up) are claimed, read and resumed here (:meth:`Sync.takeover`):
their turn timers re-armed with the time that was left, their AI seats played on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from bot.errors import ServiceError
from bot.presenter import Notice
from bot.realm import Realm, realm_of
from bot.service.channels import Channels, Transaction
from bot.service.driver import Driver
from bot.service.lifecycle import Lifecycle
from bot.service.owners import Owners
from bot.service.tasks import Tasks
from bot.state import BadMeta, ChannelState, LobbyState
from bot.storage import SeriesRecord, Storage
from bot.storage.changes import ChannelChange
from bot.view_builders import lobby_view
from rules_engine import InvalidPositionError
from rules_engine.messages import Message

__all__ = ["REMEMBERED", "Sync", "is_fresh"]

log = logging.getLogger(__name__)

#: Channels whose newest heard change is remembered (see the module docstring).
REMEMBERED = 50_000

_SERIES_OVER = Message("the series is over")


def is_fresh(ch: ChannelState, change: ChannelChange) -> bool:
    """Whether the copy ``ch`` already holds ``change`` (or something newer)."""
    if change.kind == "fence":
        return ch.fence >= change.revision
    g = ch.game
    return g is not None and g.game_id == change.game_id and g.revision >= change.revision


@dataclass(frozen=True, slots=True)
class _Before:
    """What a copy held before it was read again (to say what changed)."""

    lobby: LobbyState | None
    series: SeriesRecord | None

    @classmethod
    def of(cls, ch: ChannelState | None) -> _Before:
        return cls(None, None) if ch is None else cls(ch.lobby, ch.series)


class Sync:
    """Hears the other processes' changes, reads again and publishes them, resyncs and takes
    orphaned channels over (see the module docstring).  ``serves(guild)``: the servers this
    process serves (``None``: all)."""

    def __init__(
        self,
        storage: Storage,
        channels: Channels,
        lifecycle: Lifecycle,
        driver: Driver,
        owners: Owners,
        tasks: Tasks,
        serves: Callable[[int], bool] | None,
    ) -> None:
        self.storage = storage
        self.channels = channels
        self.lifecycle = lifecycle
        self.driver = driver
        self.owners = owners
        self.tasks = tasks
        self.serves = serves
        self._pending: dict[int, ChannelChange | None] = {}
        #: Channels with a pending change that needs the whole channel read again.
        self._whole: set[int] = set()
        self._reading: set[int] = set()
        #: The newest change heard of each channel, by (channel, kind), oldest first.
        self._latest: dict[tuple[int, str], ChannelChange] = {}
        #: Called with each channel read again because of another process's change (tests,
        #: benchmarks).
        self.on_refreshed: Callable[[int], None] | None = None

    async def start(self) -> None:
        """Listen to the other processes' changes (a shared database only)."""
        if self.storage.shared:
            await self.storage.listen(self.heard, self.reconnected)

    # ------------------------------------------------------------------ notifications
    def heard(self, change: ChannelChange) -> None:
        """A change was committed: read the channel again here if it must be (see the
        module docstring), in a task of its own, coalesced per channel."""
        if self.driver.closed or change.writer == self.storage.process:
            return  # this process's own write: its copy holds it already
        self._remember(change)
        ch = self.channels.get(change.channel_id)
        if ch is not None and is_fresh(ch, change):
            return
        self._queue(change.channel_id, change)

    def _remember(self, change: ChannelChange) -> None:
        key = (change.channel_id, change.kind)
        self._latest.pop(key, None)
        self._latest[key] = change
        if len(self._latest) > 2 * REMEMBERED:  # a fence and a game change per channel
            del self._latest[next(iter(self._latest))]

    def catch_up(self, channel_id: int) -> bool:
        """A page of the channel was just registered here, after its copy was read: if a
        change heard meanwhile is newer than the copy, read the channel again (in a task)
        and push it.  Returns whether it will be."""
        ch = self.channels.get(channel_id)
        for kind in ("fence", "game"):
            change = self._latest.get((channel_id, kind))
            if change is None or (ch is not None and is_fresh(ch, change)):
                continue
            g = None if ch is None else ch.game
            if kind == "game" and g is not None and g.game_id > change.game_id:
                continue  # a change of an older game of the series
            self._queue(channel_id, change)
            return True
        return False

    def _queue(self, channel_id: int, change: ChannelChange | None) -> None:
        self._pending[channel_id] = change
        if change is None or change.kind == "fence":
            self._whole.add(channel_id)
        if channel_id not in self._reading:
            self._reading.add(channel_id)
            self.tasks.spawn(self._read_pending(channel_id))

    async def _read_pending(self, channel_id: int) -> None:
        try:
            while channel_id in self._pending and not self.driver.closed:
                change = self._pending.pop(channel_id)
                whole = channel_id in self._whole
                self._whole.discard(channel_id)
                try:
                    if whole or change is None or not await self.advance(change):
                        await self.refresh(channel_id, change)
                except ServiceError as exc:
                    log.warning("channel %d could not be read again: %s", channel_id, exc)
        finally:
            self._reading.discard(channel_id)

    async def reconnected(self) -> None:
        """The listening connection came back: read again what changed meanwhile, and take
        over what was orphaned."""
        try:
            await self.resync()
            await self.takeover()
        except ServiceError as exc:
            log.warning("reading again after listening again failed: %s", exc)

    # ------------------------------------------------------------------ reading again
    async def refresh(self, channel_id: int, change: ChannelChange | None) -> bool:
        """Under the channel's lock: read it again if the copy here is older than ``change``
        (``None``: read it again anyway) and this process shows or owns it, publishing what
        changed; drop the copy if neither.  Returns whether it was read again."""
        keep = self.channels.watched(channel_id) or self.owners.runs(channel_id)
        if self.channels.get(channel_id) is None and not keep:
            return False
        async with self.channels.edit(channel_id) as tx:
            ch = tx.ch
            before = _Before(None, None)
            if not tx.loaded:
                if ch is not None and change is not None and is_fresh(ch, change):
                    return False
                before = _Before.of(ch)
                if not keep or self.channels.loader is None:
                    self.channels.drop(channel_id)
                    return False
                await self.channels.loader(channel_id)  # replaces the copy once read
            self._publish(tx, before)
        if self.on_refreshed is not None:
            self.on_refreshed(channel_id)
        return True

    async def advance(self, change: ChannelChange) -> bool:
        """Under the channel's lock: take a newer revision of the live game held here from
        its row alone (see the module docstring) and publish the table.  ``False`` when it
        cannot be (another game, none held, the row gone with the game's end, a row that does
        not restore, the channel neither shown nor owned here): then the channel is read
        again (:meth:`refresh`)."""
        channel_id = change.channel_id
        if change.kind != "game" or not (
            self.channels.watched(channel_id) or self.owners.runs(channel_id)
        ):
            return False
        held = self.channels.get(channel_id)
        if held is None or held.game is None or held.game.game_id != change.game_id:
            return False
        async with self.channels.edit(channel_id) as tx:
            ch = tx.ch
            g = None if ch is None else ch.game
            if tx.loaded or ch is None or g is None or g.game_id != change.game_id:
                return False
            if is_fresh(ch, change):
                return True
            with self.lifecycle.commit.storage_errors():
                read = await self.storage.load_live_game(g.game_id)
            if read is None or read[0].revision <= g.revision:
                return read is not None
            try:
                self.lifecycle.take_live(ch, *read)
            except (InvalidPositionError, BadMeta) as exc:  # the whole read says what to do
                log.warning("live game %d not taken from its row: %s", g.game_id, exc)
                return False
            tx.show_table(ch)
        if self.on_refreshed is not None:
            self.on_refreshed(channel_id)
        return True

    def _publish(self, tx: Transaction, before: _Before) -> None:
        """Queue what the presenters must hear of the channel as read again (see the module
        docstring)."""
        ch = tx.ch
        if before.lobby is not None and (ch is None or ch.lobby is None):
            started = ch is not None and ch.game is not None
            tx.lobby_changed(lobby_view(before.lobby, "started" if started else "closed"))
        if ch is not None and ch.lobby is not None:
            tx.lobby_changed(lobby_view(ch.lobby, "open"))
        if ch is not None and ch.game is not None:
            tx.show_table(ch)
        if before.series is not None and (ch is None or ch.series is None):
            tx.outbox.notice(Notice(tx.channel_id, "series_ended", _SERIES_OVER))

    async def resync(self) -> int:
        """Compare the stored fences and live revisions with the copies held here; read
        again (or drop) each one that another process moved on, and read a channel of a
        Discord server this process serves that it holds nothing of (another process opened
        something there).  Returns how many were read again or dropped."""
        with self.lifecycle.commit.storage_errors():
            fences = await self.storage.channel_fences()
            live = await self.storage.live_revisions()
        stale: list[int] = []
        for channel_id, (fence, guild_id) in fences.items():
            ch = self.channels.get(channel_id)
            if ch is not None:
                g, row = ch.game, live.get(channel_id)
                moved = row is not None and (g is None or (g.game_id, g.revision) < row)
                if ch.fence < fence or moved:
                    stale.append(channel_id)
            elif (
                guild_id is not None
                and realm_of(channel_id) is not Realm.ROOMS
                and (self.serves is None or self.serves(guild_id))
            ):
                stale.append(channel_id)
        count = 0
        for channel_id in stale:
            if self.channels.get(channel_id) is None:
                async with self.channels.edit(channel_id) as tx:  # loads it
                    self._publish(tx, _Before(None, None))
                count += 1
                continue
            row = live.get(channel_id)
            stored_fence = fences[channel_id][0]
            change = ChannelChange(channel_id, "fence", stored_fence, None)
            ch = self.channels.get(channel_id)
            if ch is not None and ch.fence >= stored_fence and row is not None:
                change = ChannelChange(channel_id, "game", row[1], None, row[0])
            if await self.refresh(channel_id, change) or self.channels.get(channel_id) is None:
                count += 1
        return count

    # ------------------------------------------------------------------ takeover
    async def takeover(self) -> int:
        """Claim each live game whose owner is gone (or that this process owns but does not
        hold), of the servers this process serves, read it again and resume it here.
        Returns how many were taken over."""
        if self.owners.every or self.driver.closed:
            return 0
        with self.lifecycle.commit.storage_errors():
            orphans = await self.storage.orphaned_channels()
        taken = 0
        for channel_id, guild_id in orphans:
            if not self.owners.may_own(guild_id):
                continue
            if self.owners.runs(channel_id) and self.channels.get(channel_id) is not None:
                continue  # owned and held here already
            if not await self.owners.claim(channel_id, guild_id):
                continue
            log.info("channel %d taken over by process %d", channel_id, self.storage.process)
            try:
                await self.refresh(channel_id, None)
            except ServiceError as exc:
                log.warning("channel %d taken over but not read: %s", channel_id, exc)
                continue
            taken += 1
        return taken
