"""The core of the fake Discord: its settings, the fake clock, waiting on its state, and the
guilds one server holds.

The fake is one class, :class:`~.server.FakeDiscord`, built in layers, one module per
Discord resource, each layer on the ones before it:

``core`` → ``rest`` (HTTP routing, request records, rate limits) → ``guilds`` (guilds,
channels, members, roles, permissions) → ``gateway`` (sessions, dispatches) → ``channels``
(channels' REST and their messages) → ``commands`` (application commands) →
``interactions`` (what simulated users do, the callbacks) → ``webhooks`` (followups and
messages by token) → ``server`` (the app, bots, checks).

Each layer creates its own state in :meth:`FakeCore._init_state`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from .models import FakeDiscordError, SnowflakeGen

if TYPE_CHECKING:
    from .gateway import GatewaySession
    from .server import FakeDiscord

#: Gateway intents: which sessions an event goes to.
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9


class WaitTimeout(FakeDiscordError):
    """`wait_until` (or a record's wait_* helper) ran out of time."""


class FakeCore:
    """Settings, the fake clock, waiting, and the guilds of one server (see the module)."""

    def __init__(
        self,
        *,
        guild_id: int | None = None,
        guild_name: str = "Durak Test Guild",
        preferred_locale: str = "en-US",
        application_id: int | None = None,
        bot_name: str = "DurakBot",
        token: str = "fake-bot-token",
        channels: Sequence[str] = ("general",),
        ack_deadline: float = 3.0,
        token_ttl: float = 900.0,
        heartbeat_interval: float = 41.25,
        message_events: bool = True,
        old_message_edit_limit: int | None = None,
        host: str = "127.0.0.1",
        ids: SnowflakeGen | None = None,
    ) -> None:
        self._ids = ids or SnowflakeGen()
        self._primary: FakeDiscord | None = None  # set on a guild made by add_guild
        self._peers: list[FakeDiscord] = []
        self.host = host
        self.port: int | None = None
        self.token = token
        self.guild_id = guild_id or self._ids.next()
        self.guild_name = guild_name
        self.preferred_locale = preferred_locale
        self.application_id = application_id or self._ids.next()
        self.bot_user_id = self.application_id  # like real bots: bot user id == application id
        self.bot_name = bot_name
        self.owner_id = self._ids.next()
        self.ack_deadline = ack_deadline
        self.token_ttl = token_ttl
        self.heartbeat_interval = heartbeat_interval
        self.message_events = message_events
        self.old_message_edit_limit = old_message_edit_limit
        self._clock_offset = 0.0
        self.created_at = time.time()
        self._changed = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.check_clean_on_teardown = True  # read by the pytest fixture
        self._init_state(channels)

    def _init_state(self, channels: Sequence[str]) -> None:
        """Create each layer's state (a layer extends this and calls ``super()`` first);
        ``channels``: the names of the guild's first text channels."""

    # ================================================================= guilds of the server

    @property
    def _whole(self) -> FakeDiscord:
        """This object as what it is: the whole fake, made of every layer."""
        return cast("FakeDiscord", self)

    def _guilds(self) -> list[FakeDiscord]:
        """Every guild of the server (this one first)."""
        primary = self._primary or self._whole
        return [primary, *primary._peers]

    def _holds(self, session: GatewaySession) -> bool:
        """Whether ``session`` receives this guild's events (its shard holds the guild)."""
        shard = session.shard
        if not shard or len(shard) != 2 or int(shard[1]) < 1:
            return True
        return (self.guild_id >> 22) % int(shard[1]) == int(shard[0])

    def _target(self, params: Mapping[str, str]) -> FakeCore:
        """The guild a REST request is about (by guild, channel, or interaction token)."""
        guilds = self._guilds()
        if len(guilds) == 1:
            return self
        if "guild_id" in params:
            gid = int(params["guild_id"])
            return next((g for g in guilds if g.guild_id == gid), self)
        if "channel_id" in params:
            cid = int(params["channel_id"])
            return next((g for g in guilds if cid in g.channels), self)
        if "token" in params:
            token = params["token"]
            return next((g for g in guilds if token in g._by_token), self)
        return self

    def _broadcast_soon(self, event: str, payload: Any, intent: int | None) -> None:
        """Tell the connected bots of a change (``event``), soon: the gateway layer does it."""
        raise NotImplementedError

    # ================================================================= clock & waiting

    def now(self) -> float:
        """The fake clock (real time + advance_clock offset): token expiry and timestamps."""
        return time.time() + self._clock_offset

    def advance_clock(self, seconds: float) -> None:
        """Move the fake clock forward (e.g. 16 * 60 to expire interaction tokens)."""
        self._clock_offset += seconds

    def _notify(self) -> None:
        ev, self._changed = self._changed, asyncio.Event()
        ev.set()
        for peer in self._peers:  # REST of every guild arrives here
            peer._notify()

    async def wait_until(
        self, predicate: Callable[[], bool], timeout: float = 5.0, what: str = "condition"
    ) -> None:
        """Wait until predicate() is true (re-checked on every state change and every 50 ms)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise WaitTimeout(f"timed out after {timeout:.1f}s: {what}")
            ev = self._changed
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(ev.wait(), min(remaining, 0.05))

    def _spawn(self, coro: Any) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            coro.close()
            return
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
