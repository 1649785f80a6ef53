"""The core of the fake Discord: its settings and state, the fake clock, waiting on that
state, and the guilds one server holds.

The fake is one class, :class:`~.server.FakeDiscord`, built in layers, one module per
Discord resource, each layer on the ones before it:

``core`` → ``rest`` (HTTP routing, request records, rate limits) → ``guilds`` (guilds,
channels, members, roles, permissions) → ``gateway`` (sessions, dispatches) → ``channels``
(channels' REST and their messages) → ``commands`` (application commands) →
``interactions`` (what simulated users do, the callbacks) → ``webhooks`` (followups and
messages by token) → ``server`` (the app, bots, checks).

The state they share is made here, in one place, grouped by the layer that fills it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import discord
from aiohttp import web

from .models import (
    FakeChannel,
    FakeDiscordError,
    InteractionRecord,
    SimUser,
    SnowflakeGen,
    StoredMessage,
)

if TYPE_CHECKING:
    from .gateway import GatewayEvent, GatewaySession
    from .rest import RateLimitRule, RequestRecord
    from .server import FakeDiscord

#: Gateway intents: which sessions an event goes to.
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9

ADMINISTRATOR = 1 << 3
ALL_PERMISSIONS = discord.Permissions.all().value
#: What every member and the bot may do in the fake guild (then each their own): see the
#: channels and read them, write with links, files, reactions and emojis, use commands.
_BASICS = (
    discord.Permissions(view_channel=True, read_message_history=True)
    | discord.Permissions(send_messages=True, embed_links=True, attach_files=True)
    | discord.Permissions(add_reactions=True, use_external_emojis=True)
    | discord.Permissions(use_application_commands=True)
)
EVERYONE_PERMISSIONS = (
    _BASICS
    | discord.Permissions(
        create_instant_invite=True, change_nickname=True, connect=True, speak=True
    )
).value
MODERATOR_PERMISSIONS = discord.Permissions(manage_channels=True, manage_messages=True).value
BOT_PERMISSIONS = (
    _BASICS | discord.Permissions(manage_messages=True, send_messages_in_threads=True)
).value


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

        # rest: what was asked, and what went wrong
        self.requests: list[RequestRecord] = []
        self.unknown_routes: list[str] = []
        self.invalid_bodies: list[str] = []
        self._rate_limits: list[RateLimitRule] = []
        self._inflight = 0
        # guilds: roles (@everyone, Moderator, the bot's), text channels, members
        self.roles: dict[int, dict[str, Any]] = {}
        self._add_role_raw(self.guild_id, "@everyone", EVERYONE_PERMISSIONS, position=0)
        self.moderator_role_id = self._add_role_raw(
            self._ids.next(), "Moderator", MODERATOR_PERMISSIONS, 1
        )
        self.bot_role_id = self._add_role_raw(
            self._ids.next(),
            bot_name,
            BOT_PERMISSIONS,
            2,
            managed=True,
            tags={"bot_id": str(self.bot_user_id)},
        )
        self.channels: dict[int, FakeChannel] = {}
        self.users: dict[int, SimUser] = {}
        for name in channels:
            self._new_channel(name)
        # gateway: sessions and their sockets, every op both ways
        self.gateway_log: list[GatewayEvent] = []
        self.sessions: list[GatewaySession] = []
        self._open_ws: set[web.WebSocketResponse] = set()
        self._dropped_ws: set[web.WebSocketResponse] = set()
        # channels: every message
        self._messages: dict[int, StoredMessage] = {}
        # commands
        self._global_commands: dict[tuple[str, int], dict[str, Any]] = {}
        self._guild_commands: dict[tuple[str, int], dict[str, Any]] = {}
        self._command_ids: dict[tuple[str | None, str, int], int] = {}
        #: Activities on (:meth:`enable_activities`): LAUNCH_ACTIVITY callbacks are accepted.
        self.activities_enabled = False
        # activities: running instances by id, and the OAuth2 codes and tokens of users
        self.activity_instances: dict[str, dict[str, Any]] = {}
        self._oauth_codes: dict[str, int] = {}
        self._oauth_tokens: dict[str, int] = {}
        # interactions and webhooks
        self.interactions: list[InteractionRecord] = []
        self._interactions: dict[int, InteractionRecord] = {}
        self._by_token: dict[str, InteractionRecord] = {}
        self.late_acks: list[InteractionRecord] = []
        self.double_acks: list[InteractionRecord] = []
        self._ignored_interactions: set[int] = set()
        self.expired_token_uses: list[str] = []
        # server: the app, the bots started, discord.py pointed here
        self._runner: web.AppRunner | None = None
        self._bots: list[tuple[discord.Client, asyncio.Task[None]]] = []
        self._install_stack: contextlib.ExitStack | None = None

    # ================================================================= the guild's entities

    def _add_role_raw(
        self,
        role_id: int,
        name: str,
        permissions: int,
        position: int,
        *,
        managed: bool = False,
        tags: dict[str, Any] | None = None,
    ) -> int:
        role: dict[str, Any] = {
            "id": str(role_id),
            "name": name,
            "permissions": str(permissions),
            "position": position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": managed,
            "mentionable": False,
            "flags": 0,
            "icon": None,
            "unicode_emoji": None,
        }
        if tags:
            role["tags"] = tags
        self.roles[role_id] = role
        return role_id

    def _new_channel(self, name: str, topic: str | None = None) -> FakeChannel:
        channel = FakeChannel(self._ids.next(), name, len(self.channels), topic)
        self.channels[channel.id] = channel
        return channel

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
