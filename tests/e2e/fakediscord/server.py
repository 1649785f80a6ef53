"""The fake Discord server: aiohttp REST API + gateway websocket on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import math
import re
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import discord
import yarl
from aiohttp import WSMsgType, web

from .models import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    CB_AUTOCOMPLETE,
    CB_DEFERRED_MESSAGE,
    CB_DEFERRED_UPDATE,
    CB_LAUNCH_ACTIVITY,
    CB_MESSAGE,
    CB_MODAL,
    CB_UPDATE_MESSAGE,
    FLAG_COMPONENTS_V2,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    FLAG_SUPPRESS_EMBEDS,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    PRIMARY_ENTRY_POINT,
    SELECT_TYPES,
    ApiError,
    CallbackRecord,
    CommandNotRegisteredError,
    ComponentInfo,
    ComponentNotFoundError,
    FakeChannel,
    FakeDiscordError,
    InteractionRecord,
    MessageVersion,
    NoBotConnectedError,
    NotVisibleError,
    SimUser,
    SnowflakeGen,
    StoredMessage,
    component_infos,
    iso,
    member_payload,
    user_payload,
    validate_message,
    walk_components,
)

INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9

ADMINISTRATOR = 1 << 3
ALL_PERMISSIONS = discord.Permissions.all().value

EVERYONE_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    read_message_history=True,
    use_application_commands=True,
    add_reactions=True,
    embed_links=True,
    attach_files=True,
    use_external_emojis=True,
    create_instant_invite=True,
    change_nickname=True,
    connect=True,
    speak=True,
).value
MODERATOR_PERMISSIONS = discord.Permissions(manage_channels=True, manage_messages=True).value
BOT_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
    add_reactions=True,
    use_external_emojis=True,
    manage_messages=True,
    use_application_commands=True,
    send_messages_in_threads=True,
).value


class WaitTimeout(FakeDiscordError):
    """`wait_until` (or a record's wait_* helper) ran out of time."""


@dataclass
class RequestRecord:
    """One REST request the fake received."""

    method: str
    path: str  # without the /api/v10 prefix
    query: dict[str, str]
    json: Any
    status: int = 0
    at: float = field(default_factory=time.monotonic)

    def __str__(self) -> str:
        return f"{self.method} {self.path} -> {self.status}"


@dataclass
class RateLimitRule:
    """A forced 429 (see FakeDiscord.force_429)."""

    pattern: re.Pattern[str]
    method: str | None
    retry_after: float
    remaining: int
    is_global: bool
    hits: int = 0

    def matches(self, method: str, path: str) -> bool:
        if self.remaining <= 0:
            return False
        if self.method is not None and self.method.upper() != method:
            return False
        return self.pattern.search(path) is not None


@dataclass
class GatewayEvent:
    """An op the client sent us (direction 'recv') or a dispatch we sent ('send')."""

    direction: str
    op: int
    name: str | None
    session_id: str | None
    seq: int | None = None


class GatewaySession:
    """A gateway session (IDENTIFY); survives websocket drops until RESUMEd."""

    def __init__(self, session_id: str, intents: int, shard: list[int] | None) -> None:
        self.id = session_id
        self.intents = intents
        self.shard = shard
        self.ws: web.WebSocketResponse | None = None
        self.seq = 0
        self.buffer: deque[dict[str, Any]] = deque(maxlen=5000)
        self.alive = True  # False once the client closed it cleanly (1000) or it was invalidated
        self.resumes = 0
        self.identified_at = time.monotonic()
        self.lock = asyncio.Lock()

    @property
    def connected(self) -> bool:
        return self.ws is not None and not self.ws.closed

    def __repr__(self) -> str:
        return (
            f"<GatewaySession {self.id[:8]} seq={self.seq} connected={self.connected} "
            f"alive={self.alive} resumes={self.resumes}>"
        )


@dataclass
class _Req:
    method: str
    path: str
    query: Mapping[str, str]
    json: Any
    files: list[tuple[str, str, bytes]]
    params: dict[str, str]
    record: RequestRecord


def _json_response(
    status: int, data: Any, headers: Mapping[str, str] | None = None
) -> web.Response:
    hdrs = {"Content-Type": "application/json"}  # exactly this: discord.py compares for equality
    hdrs.update(headers or {})
    return web.Response(status=status, body=json.dumps(data).encode(), headers=hdrs)


class FakeDiscord:
    """A fake Discord (one guild, one application) for end-to-end tests; see the package doc.

    More guilds: :meth:`add_guild` returns another ``FakeDiscord`` for a second guild of the
    same application, served by this one's server (REST is routed by guild, channel and
    interaction).  A session that IDENTIFYs with ``shard=[id, count]`` receives only the
    guilds on that shard (``(guild_id >> 22) % count == id``), and a guild's interactions go
    to the session holding its shard, as on Discord.
    """

    API_PREFIX = "/api/v10"
    #: Settings of the application and its server that a guild made by :meth:`add_guild`
    #: takes from this one (constructor arguments, kept as attributes of the same name).
    _SHARED_WITH_GUILDS = (
        "application_id",
        "bot_name",
        "token",
        "ack_deadline",
        "token_ttl",
        "heartbeat_interval",
        "message_events",
        "old_message_edit_limit",
        "host",
    )
    GATEWAY_PATH = "/gateway-ws/"

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

        # guild entities
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
            self.add_channel(name)

        # stores
        self._messages: dict[int, StoredMessage] = {}
        self.interactions: list[InteractionRecord] = []
        self._interactions: dict[int, InteractionRecord] = {}
        self._by_token: dict[str, InteractionRecord] = {}
        self._global_commands: dict[tuple[str, int], dict[str, Any]] = {}
        #: Activities on (:meth:`enable_activities`): LAUNCH_ACTIVITY callbacks are accepted.
        self.activities_enabled = False
        self._guild_commands: dict[tuple[str, int], dict[str, Any]] = {}
        self._command_ids: dict[tuple[str | None, str, int], int] = {}

        # observations
        self.requests: list[RequestRecord] = []
        self.unknown_routes: list[str] = []
        self.late_acks: list[InteractionRecord] = []
        self.double_acks: list[InteractionRecord] = []
        self.invalid_bodies: list[str] = []
        self.expired_token_uses: list[str] = []
        self.gateway_log: list[GatewayEvent] = []
        self.sessions: list[GatewaySession] = []
        self._rate_limits: list[RateLimitRule] = []
        self._ignored_interactions: set[int] = set()
        self.check_clean_on_teardown = True  # read by the pytest fixture

        # runtime
        self._runner: web.AppRunner | None = None
        self._open_ws: set[web.WebSocketResponse] = set()
        self._dropped_ws: set[web.WebSocketResponse] = set()
        self._changed = asyncio.Event()
        self._inflight = 0
        self._tasks: set[asyncio.Task[Any]] = set()
        self._bots: list[tuple[discord.Client, asyncio.Task[None]]] = []
        self._install_stack: contextlib.ExitStack | None = None

    # ================================================================= lifecycle

    @property
    def rest_url(self) -> str:
        """Value for discord.http.Route.BASE."""
        return f"http://{self.host}:{self.port}{self.API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        """Value for DiscordWebSocket.DEFAULT_GATEWAY (and READY's resume_gateway_url)."""
        return f"ws://{self.host}:{self.port}{self.GATEWAY_PATH}"

    async def start(self, *, install: bool = True) -> FakeDiscord:
        """Listen on a free loopback port; with install=True also point discord.py at it."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("GET", self.GATEWAY_PATH, self._ws_handler)
        app.router.add_route(
            "GET", self.GATEWAY_PATH.rstrip("/"), self._ws_handler
        )  # /gateway/bot's url
        app.router.add_route("*", "/{tail:.*}", self._rest_handler)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, 0)
        await site.start()
        self.port = int(self._runner.addresses[0][1])
        if install:
            self._install_stack = contextlib.ExitStack()
            self._install_stack.enter_context(self.install())
        return self

    async def stop(self) -> None:
        """Close bots started with start_bot, every websocket, the server; restore discord.py."""
        for bot, _task in list(self._bots):
            with contextlib.suppress(Exception):
                await self.stop_bot(bot)
        for ws in list(self._open_ws):
            with contextlib.suppress(Exception):
                await ws.close(code=1001)
        for task in list(self._tasks):
            task.cancel()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._install_stack is not None:
            self._install_stack.close()
            self._install_stack = None

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def add_guild(
        self,
        *,
        guild_id: int | None = None,
        guild_name: str = "Second Test Guild",
        channels: Sequence[str] = ("general",),
        preferred_locale: str = "en-US",
    ) -> FakeDiscord:
        """Another guild of this application, on this server (see the class docstring).
        Use the returned object for its channels, users and messages; bots connect to (and
        are started by) this one."""
        peer = FakeDiscord(
            guild_id=guild_id or self._ids.next(),
            guild_name=guild_name,
            preferred_locale=preferred_locale,
            channels=channels,
            ids=self._ids,
            **{name: getattr(self, name) for name in self._SHARED_WITH_GUILDS},
        )
        peer._primary = self
        peer.port = self.port
        peer.sessions = self.sessions  # one gateway: the same sessions and log
        peer.gateway_log = self.gateway_log
        self._peers.append(peer)
        return peer

    def _guilds(self) -> list[FakeDiscord]:
        """Every guild of the server (this one first)."""
        primary = self._primary or self
        return [primary, *primary._peers]

    def _holds(self, session: GatewaySession) -> bool:
        """Whether ``session`` receives this guild's events (its shard holds the guild)."""
        shard = session.shard
        if not shard or len(shard) != 2 or int(shard[1]) < 1:
            return True
        return (self.guild_id >> 22) % int(shard[1]) == int(shard[0])

    def _target(self, params: Mapping[str, str]) -> FakeDiscord:
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

    @contextlib.contextmanager
    def install(self) -> Iterator[FakeDiscord]:
        """Point discord.py at this server (Route.BASE, DEFAULT_GATEWAY); restore on exit."""
        if self.port is None:
            raise RuntimeError("start() the fake before install()")
        route_cls = discord.http.Route
        ws_cls = discord.gateway.DiscordWebSocket
        old_base, old_gateway = route_cls.BASE, ws_cls.DEFAULT_GATEWAY
        route_cls.BASE = self.rest_url
        ws_cls.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        try:
            yield self
        finally:
            route_cls.BASE = old_base
            ws_cls.DEFAULT_GATEWAY = old_gateway

    # ----------------------------------------------------------------- bots

    async def start_bot(self, bot: discord.Client, *, timeout: float = 10.0) -> discord.Client:
        """Run `bot.start(fake.token)` in a task and wait until on_ready fired."""
        if self._primary is not None:
            return await self._primary.start_bot(bot, timeout=timeout)
        task = asyncio.create_task(bot.start(self.token), name=f"fakediscord-bot-{id(bot)}")
        self._bots.append((bot, task))
        try:
            await self.wait_until(
                lambda: bot.is_ready() or task.done(), timeout, "bot never became ready"
            )
        except WaitTimeout:
            await self.stop_bot(bot)
            raise
        if task.done():
            self._bots = [(b, t) for b, t in self._bots if b is not bot]
            task.result()  # re-raise the crash
            raise FakeDiscordError("bot.start() returned before the bot was ready")
        return bot

    async def stop_bot(self, bot: discord.Client, *, timeout: float = 10.0) -> None:
        """bot.close() and wait for its task; re-raise if the bot crashed."""
        if self._primary is not None:
            return await self._primary.stop_bot(bot, timeout=timeout)
        entry = next(((b, t) for b, t in self._bots if b is bot), None)
        await bot.close()
        if entry is None:
            return
        self._bots.remove(entry)
        task = entry[1]
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout)
        except TimeoutError:  # e.g. AutoShardedBot sleeping between shard retries
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        except asyncio.CancelledError:
            if not task.cancelled():
                raise

    @contextlib.asynccontextmanager
    async def run_bot(
        self, bot: discord.Client, *, timeout: float = 10.0
    ) -> AsyncIterator[discord.Client]:
        """`async with fake.run_bot(bot):` -- start_bot, then stop_bot on exit."""
        await self.start_bot(bot, timeout=timeout)
        try:
            yield bot
        finally:
            await self.stop_bot(bot)

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

    async def settle(self, timeout: float | None = None) -> None:
        """Wait until no REST request is in flight and every interaction was answered or is late."""

        def done() -> bool:
            now = time.monotonic()
            return self._inflight == 0 and all(
                r.callbacks
                or r.dispatched_mono is None
                or now - r.dispatched_mono > self.ack_deadline
                for r in self.interactions
            )

        await self.wait_until(
            done, self.ack_deadline + 2.0 if timeout is None else timeout, "settle"
        )

    def _spawn(self, coro: Any) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            coro.close()
            return
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ================================================================= entities

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

    def add_role(self, name: str, permissions: int | discord.Permissions = 0) -> int:
        """Create a role; returns its id."""
        perms = (
            permissions.value if isinstance(permissions, discord.Permissions) else int(permissions)
        )
        role_id = self._add_role_raw(self._ids.next(), name, perms, len(self.roles))
        self._broadcast_soon(
            "GUILD_ROLE_CREATE",
            {"guild_id": str(self.guild_id), "role": self.roles[role_id]},
            INTENT_GUILDS,
        )
        return role_id

    def add_channel(self, name: str, *, topic: str | None = None) -> FakeChannel:
        """Create a text channel (announced with CHANNEL_CREATE if a bot is connected)."""
        channel = FakeChannel(self._ids.next(), name, len(self.channels), topic)
        self.channels[channel.id] = channel
        self._broadcast_soon("CHANNEL_CREATE", channel.payload(self.guild_id), INTENT_GUILDS)
        return channel

    @property
    def channel_id(self) -> int:
        """Id of the first channel (default: #general)."""
        return next(iter(self.channels))

    def channel(self, name_or_id: str | int) -> FakeChannel:
        for ch in self.channels.values():
            if name_or_id in (ch.name, ch.id):
                return ch
        raise KeyError(f"no channel {name_or_id!r}")

    def add_user(
        self,
        name: str,
        *,
        locale: str = "en-US",
        permissions: int | discord.Permissions | None = None,
        manage_channels: bool = False,
        roles: Sequence[int] = (),
    ) -> SimUser:
        """Add a simulated member. `permissions` are granted through a personal role."""
        role_ids = list(roles)
        if manage_channels:
            role_ids.append(self.moderator_role_id)
        if permissions is not None:
            role_ids.append(self.add_role(f"{name}-perms", permissions))
        user = SimUser(
            self,
            id=self._ids.next(),
            name=name,
            locale=locale,
            role_ids=role_ids,
            joined_at=self.now(),
        )
        self.users[user.id] = user
        self._broadcast_soon(
            "GUILD_MEMBER_ADD",
            {**user.member_payload(), "guild_id": str(self.guild_id)},
            INTENT_GUILD_MEMBERS,
        )
        return user

    def user(self, name_or_id: str | int) -> SimUser:
        for u in self.users.values():
            if name_or_id in (u.name, u.id):
                return u
        raise KeyError(f"no user {name_or_id!r}")

    def deny_bot(self, channel: Any, **perms: bool) -> None:
        """Deny the bot permissions in `channel` (e.g. ``send_messages=True``), like a
        channel overwrite; ``allow_bot`` lifts them.  See ``FakeChannel.bot_deny``."""
        self._resolve_channel(channel).bot_deny |= discord.Permissions(**perms).value

    def allow_bot(self, channel: Any) -> None:
        """Lift every permission denied to the bot in `channel`."""
        self._resolve_channel(channel).bot_deny = 0

    def _check_bot_may(self, ch: FakeChannel, method: str) -> None:
        """Refuse the bot's channel-message request as Discord would under ``bot_deny``."""
        deny = discord.Permissions(ch.bot_deny)
        if deny.view_channel:
            raise ApiError(403, 50001, "Missing Access")
        if method == "POST" and deny.send_messages:
            raise ApiError(403, 50013, "Missing Permissions")

    def grant_manage_channels(self, user: SimUser) -> None:
        """Give `user` the Moderator role (Manage Channels + Manage Messages)."""
        if self.moderator_role_id not in user.role_ids:
            user.role_ids.append(self.moderator_role_id)
            self._broadcast_soon(
                "GUILD_MEMBER_UPDATE",
                {**user.member_payload(), "guild_id": str(self.guild_id)},
                INTENT_GUILD_MEMBERS,
            )

    def member_permissions(self, user: SimUser | None) -> int:
        """Guild-level permissions of a member (None = the bot)."""
        role_ids = [self.bot_role_id] if user is None else user.role_ids
        perms = int(self.roles[self.guild_id]["permissions"])
        for rid in role_ids:
            if rid in self.roles:
                perms |= int(self.roles[rid]["permissions"])
        return ALL_PERMISSIONS if perms & ADMINISTRATOR else perms

    # ----------------------------------------------------------------- payloads

    def bot_user_payload(self) -> dict[str, Any]:
        return user_payload(self.bot_user_id, self.bot_name, None, bot=True)

    def bot_member_payload(self) -> dict[str, Any]:
        return {
            "user": self.bot_user_payload(),
            **member_payload([self.bot_role_id], self.created_at),
        }

    def guild_payload(self, *, full: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.guild_id),
            "name": self.guild_name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [dict(r) for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": self.preferred_locale,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "max_members": 500000,
        }
        if full:
            members = [self.bot_member_payload()] + [
                u.member_payload() for u in self.users.values()
            ]
            data.update(
                {
                    "joined_at": iso(self.created_at),
                    "large": False,
                    "unavailable": False,
                    "member_count": len(members),
                    "members": members,
                    "voice_states": [],
                    "channels": [c.payload(self.guild_id) for c in self.channels.values()],
                    "threads": [],
                    "presences": [],
                    "stage_instances": [],
                    "guild_scheduled_events": [],
                    "soundboard_sounds": [],
                }
            )
        return data

    def _channel_payload_for_interaction(
        self, channel: FakeChannel, user: SimUser
    ) -> dict[str, Any]:
        return {**channel.payload(self.guild_id), "permissions": str(self.member_permissions(user))}

    # ================================================================= gateway

    async def _ws_handler(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        self._open_ws.add(ws)
        session: GatewaySession | None = None
        try:
            await ws.send_str(
                json.dumps(
                    {
                        "op": 10,
                        "s": None,
                        "t": None,
                        "d": {"heartbeat_interval": int(self.heartbeat_interval * 1000)},
                    }
                )
            )
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                op = frame.get("op")
                d = frame.get("d")
                names = {
                    1: "HEARTBEAT",
                    2: "IDENTIFY",
                    3: "PRESENCE_UPDATE",
                    4: "VOICE_STATE_UPDATE",
                    6: "RESUME",
                    8: "REQUEST_GUILD_MEMBERS",
                }
                self.gateway_log.append(
                    GatewayEvent("recv", op, names.get(op), session.id if session else None)
                )
                if op == 1:
                    await ws.send_str(json.dumps({"op": 11, "s": None, "t": None, "d": None}))
                elif op == 2:
                    session = await self._identify(ws, d)
                elif op == 6:
                    session = await self._resume(ws, d)
                elif op == 8 and session is not None:
                    await self._send_dispatch(
                        session,
                        "GUILD_MEMBERS_CHUNK",
                        {
                            "guild_id": str(self.guild_id),
                            "chunk_index": 0,
                            "chunk_count": 1,
                            "not_found": [],
                            "members": self.guild_payload()["members"],
                            "nonce": (d or {}).get("nonce"),
                        },
                    )
                self._notify()
        finally:
            self._open_ws.discard(ws)
            if session is not None and session.ws is ws:
                session.ws = None
                if ws.close_code == 1000 and ws not in self._dropped_ws:
                    session.alive = False  # the client closed its session on purpose
            self._dropped_ws.discard(ws)
            self._notify()
        return ws

    async def _identify(
        self, ws: web.WebSocketResponse, d: dict[str, Any]
    ) -> GatewaySession | None:
        if d.get("token") != self.token:
            await ws.close(code=4004, message=b"Authentication failed.")
            return None
        session = GatewaySession(secrets.token_hex(16), int(d.get("intents") or 0), d.get("shard"))
        session.ws = ws
        self.sessions.append(session)
        held = [g for g in self._guilds() if g._holds(session)]
        ready: dict[str, Any] = {
            "v": 10,
            "user": {
                **self.bot_user_payload(),
                "verified": True,
                "mfa_enabled": False,
                "flags": 0,
                "email": None,
                "locale": "en-US",
            },
            "guilds": [{"id": str(g.guild_id), "unavailable": True} for g in held],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": ["fake"],
            "user_settings": {},
            "_trace": ["fakediscord"],
        }
        if session.shard is not None:
            ready["shard"] = session.shard
        await self._send_dispatch(session, "READY", ready)
        for guild in held:
            await self._send_dispatch(session, "GUILD_CREATE", guild.guild_payload())
        return session

    async def _resume(self, ws: web.WebSocketResponse, d: dict[str, Any]) -> GatewaySession | None:
        session = next((s for s in self.sessions if s.id == d.get("session_id")), None)
        if session is None or not session.alive or d.get("token") != self.token:
            await ws.send_str(json.dumps({"op": 9, "s": None, "t": None, "d": False}))
            return None
        seq = int(d.get("seq") or 0)
        async with session.lock:
            session.ws = ws
            session.resumes += 1
            for frame in list(session.buffer):
                if frame["s"] > seq:
                    await ws.send_str(json.dumps(frame))
            session.seq += 1
            frame = {"op": 0, "t": "RESUMED", "s": session.seq, "d": {"_trace": ["fakediscord"]}}
            session.buffer.append(frame)
            await ws.send_str(json.dumps(frame))
        self.gateway_log.append(GatewayEvent("send", 0, "RESUMED", session.id, session.seq))
        return session

    async def _send_dispatch(self, session: GatewaySession, event: str, data: Any) -> int:
        async with session.lock:
            session.seq += 1
            frame = {"op": 0, "t": event, "s": session.seq, "d": data}
            session.buffer.append(frame)
            self.gateway_log.append(GatewayEvent("send", 0, event, session.id, session.seq))
            ws = session.ws
            if ws is not None and not ws.closed:
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await ws.send_str(json.dumps(frame))
            return session.seq

    def _live_sessions(self) -> list[GatewaySession]:
        return [s for s in self.sessions if s.alive]

    async def dispatch(self, event: str, payload: Any, *, intent: int | None = None) -> None:
        """Send a DISPATCH event to every live (or resumable) session."""
        for session in self._live_sessions():
            if (intent is None or session.intents & intent) and self._holds(session):
                await self._send_dispatch(session, event, payload)

    def _broadcast_soon(self, event: str, payload: Any, intent: int | None) -> None:
        if getattr(self, "sessions", None) and self._live_sessions():
            self._spawn(self.dispatch(event, payload, intent=intent))

    def _interaction_session(self) -> GatewaySession:
        connected = [s for s in self.sessions if s.alive and s.connected and self._holds(s)]
        if connected:
            return max(connected, key=lambda s: s.identified_at)
        resumable = [s for s in self._live_sessions() if self._holds(s)]
        if resumable:
            return max(resumable, key=lambda s: s.identified_at)
        raise NoBotConnectedError("no bot is connected to the fake gateway")

    async def drop_gateway(
        self, *, code: int = 4000, wait_resume: bool = True, timeout: float = 10.0
    ) -> None:
        """Close every connected bot websocket (code 4000) so the client reconnects and RESUMEs."""
        targets = [s for s in self.sessions if s.connected]
        if not targets:
            raise NoBotConnectedError("drop_gateway: no connected session")
        before = {s.id: s.resumes for s in targets}
        for s in targets:
            ws = s.ws
            assert ws is not None
            self._dropped_ws.add(ws)
            await ws.close(code=code, message=b"dropped by fakediscord")
        if wait_resume:
            await self.wait_until(
                lambda: all(s.resumes > before[s.id] and s.connected for s in targets),
                timeout,
                "client did not RESUME after drop_gateway()",
            )

    @property
    def resume_count(self) -> int:
        return sum(1 for e in self.gateway_log if e.direction == "recv" and e.op == 6)

    # ================================================================= REST plumbing

    _ROUTES: ClassVar[list[tuple[str, re.Pattern[str], str]]] = []

    @classmethod
    def _route(
        cls, methods: str, pattern: str
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
            for m in methods.split():
                cls._ROUTES.append((m, re.compile("^" + pattern + "$"), fn.__name__))
            return fn

        return deco

    async def _read_body(self, request: web.Request) -> tuple[Any, list[tuple[str, str, bytes]]]:
        files: list[tuple[str, str, bytes]] = []
        ctype = request.headers.get("Content-Type", "")
        if not request.can_read_body:
            return None, files
        if ctype.startswith("multipart/"):
            payload = None
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                data = await part.read()  # type: ignore[union-attr]
                if part.name == "payload_json":  # type: ignore[union-attr]
                    payload = json.loads(data.decode())
                else:
                    files.append((part.name or "", part.filename or "file", bytes(data)))  # type: ignore[union-attr]
            return payload, files
        raw = await request.read()
        if not raw:
            return None, files
        try:
            return json.loads(raw.decode()), files
        except ValueError:
            return raw.decode(errors="replace"), files

    async def _rest_handler(self, request: web.Request) -> web.StreamResponse:
        self._inflight += 1
        try:
            return await self._rest_inner(request)
        finally:
            self._inflight -= 1
            self._notify()

    async def _rest_inner(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        m = re.match(r"^/api/v\d+", path)
        if m:
            path = path[m.end() :]
        method = request.method
        body, files = await self._read_body(request)
        rec = RequestRecord(method, path, dict(request.query), body)
        self.requests.append(rec)

        for rule in self._rate_limits:
            if rule.matches(method, path):
                rule.remaining -= 1
                rule.hits += 1
                rec.status = 429
                return _json_response(
                    429,
                    {
                        "message": "You are being rate limited.",
                        "retry_after": rule.retry_after,
                        "global": rule.is_global,
                    },
                    {
                        "Via": "1.1 google",
                        "Retry-After": str(math.ceil(rule.retry_after)),
                        "X-RateLimit-Limit": "5",
                        "X-RateLimit-Remaining": "0",
                        "X-RateLimit-Reset": f"{time.time() + rule.retry_after:.3f}",
                        "X-RateLimit-Reset-After": f"{rule.retry_after:.3f}",
                        "X-RateLimit-Bucket": "fakediscord-forced",
                        "X-RateLimit-Scope": "global" if rule.is_global else "user",
                        **({"X-RateLimit-Global": "true"} if rule.is_global else {}),
                    },
                )

        handler_name, params = None, {}
        for rmethod, rx, name in self._ROUTES:
            mm = rx.match(path)
            if mm and rmethod == method:
                handler_name, params = name, mm.groupdict()
                break
        if handler_name is None:
            self.unknown_routes.append(f"{method} {path}")
            rec.status = 404
            return _json_response(404, {"message": "404: Not Found", "code": 0})

        is_token_route = path.startswith(("/interactions/", "/webhooks/"))
        if not is_token_route and request.headers.get("Authorization") != f"Bot {self.token}":
            rec.status = 401
            return _json_response(401, {"message": "401: Unauthorized", "code": 0})

        req = _Req(method, path, request.query, body, files, params, rec)
        try:
            status, data = await getattr(self._target(params), handler_name)(req)
        except ApiError as exc:
            rec.status = exc.status
            return _json_response(exc.status, exc.body())
        rec.status = status
        if status == 204 or data is None:
            rec.status = 204
            return web.Response(status=204)
        return _json_response(status, data)

    def requests_to(self, pattern: str, method: str | None = None) -> list[RequestRecord]:
        """Requests whose path (without /api/v10) matches regex `pattern` (and method, if given)."""
        rx = re.compile(pattern)
        return [
            r
            for r in self.requests
            if rx.search(r.path) and (method is None or r.method == method.upper())
        ]

    def force_429(
        self,
        route_pattern: str,
        retry_after: float = 0.1,
        count: int = 1,
        *,
        method: str | None = None,
        is_global: bool = False,
    ) -> RateLimitRule:
        """Answer the next `count` requests matching regex `route_pattern` with a retryable 429."""
        rule = RateLimitRule(re.compile(route_pattern), method, retry_after, count, is_global)
        self._rate_limits.append(rule)
        return rule

    def _invalid(self, what: str, errors: list[str]) -> ApiError:
        self.invalid_bodies.append(f"{what}: {'; '.join(errors)}")
        return ApiError(
            400,
            50035,
            "Invalid Form Body",
            {"_errors": [{"code": "FAKE", "message": e} for e in errors]},
        )

    def _check_guild(self, guild_id: str) -> None:
        if int(guild_id) != self.guild_id:
            raise ApiError(403, 50001, "Missing Access")

    def _check_app(self, app_id: str) -> None:
        if int(app_id) != self.application_id:
            raise ApiError(403, 50001, "Missing Access")

    def _get_channel(self, channel_id: str) -> FakeChannel:
        ch = self.channels.get(int(channel_id))
        if ch is None:
            raise ApiError(404, 10003, "Unknown Channel")
        return ch

    # ================================================================= REST: users, app, gateway

    async def h_users_me(self, req: _Req) -> tuple[int, Any]:
        return 200, {
            **self.bot_user_payload(),
            "verified": True,
            "mfa_enabled": False,
            "flags": 0,
            "email": None,
            "locale": "en-US",
            "banner": None,
            "accent_color": None,
        }

    def _person(self, user_id: int, *, member: bool) -> dict[str, Any]:
        """The user (or, with ``member``, guild member) object of the bot or a simulated user;
        Discord's 404 for anyone else."""
        if user_id == self.bot_user_id:
            return self.bot_member_payload() if member else self.bot_user_payload()
        if user_id in self.users:
            user = self.users[user_id]
            return user.member_payload() if member else user.user_payload()
        if member:
            raise ApiError(404, 10007, "Unknown Member")
        raise ApiError(404, 10013, "Unknown User")

    async def h_user(self, req: _Req) -> tuple[int, Any]:
        return 200, self._person(int(req.params["user_id"]), member=False)

    async def h_app_me(self, req: _Req) -> tuple[int, Any]:
        return 200, {
            "id": str(self.application_id),
            "name": self.bot_name,
            "description": "",
            "icon": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            "owner": {
                "id": str(self.owner_id),
                "username": "owner",
                "discriminator": "0",
                "avatar": None,
                "global_name": None,
                "public_flags": 0,
            },
            "team": None,
            "flags": 0,
            "summary": "",
            "rpc_origins": [],
            "tags": [],
            "interactions_endpoint_url": None,
            "redirect_uris": [],
            "bot": self.bot_user_payload(),
            "approximate_guild_count": 1,
        }

    async def h_gateway(self, req: _Req) -> tuple[int, Any]:
        return 200, {"url": self.gateway_url.rstrip("/")}

    async def h_gateway_bot(self, req: _Req) -> tuple[int, Any]:
        return 200, {
            "url": self.gateway_url.rstrip("/"),
            "shards": 1,
            "session_start_limit": {
                "total": 1000,
                "remaining": 999,
                "reset_after": 0,
                "max_concurrency": 1,
            },
        }

    # ================================================================= REST: commands

    def _cmd_store(self, guild_id: str | None) -> dict[tuple[str, int], dict[str, Any]]:
        if guild_id is None:
            return self._global_commands
        self._check_guild(guild_id)
        return self._guild_commands

    def _make_command(self, body: dict[str, Any], guild_id: str | None) -> dict[str, Any]:
        if not isinstance(body, dict) or not body.get("name"):
            raise self._invalid("application command", ["command without a name"])
        ctype = int(body.get("type", 1))
        key = (guild_id, body["name"], ctype)
        cid = self._command_ids.setdefault(key, self._ids.next())
        cmd = copy.deepcopy(body)
        cmd.update(
            {
                "id": str(cid),
                "application_id": str(self.application_id),
                "type": ctype,
                "version": str(self._ids.next()),
                "description": body.get("description", ""),
            }
        )
        cmd.setdefault("default_member_permissions", None)
        cmd.setdefault("nsfw", False)
        if guild_id is not None:
            cmd["guild_id"] = str(guild_id)
        return cmd

    def enable_activities(self, name: str = "launch") -> dict[str, Any]:
        """Turn Activities on for the application, as the Developer Portal does: Discord makes
        a global Entry Point command (type 4) that a bulk overwrite must keep (else 400
        50240), and interactions may answer with LAUNCH_ACTIVITY (12)."""
        self.activities_enabled = True
        cmd = self._make_command(
            {"name": name, "type": PRIMARY_ENTRY_POINT, "handler": 2, "description": ""}, None
        )
        self._global_commands[(name, PRIMARY_ENTRY_POINT)] = cmd
        return cmd

    @property
    def commands(self) -> list[dict[str, Any]]:
        """Every registered command (guild commands carry 'guild_id')."""
        return list(self._guild_commands.values()) + list(self._global_commands.values())

    def command(self, name: str) -> dict[str, Any] | None:
        """Registered top-level command by name (guild commands first, like Discord's client)."""
        for store in (self._guild_commands, self._global_commands):
            for (n, t), cmd in store.items():
                if n == name and t == 1:
                    return cmd
        return None

    async def h_commands_get(self, req: _Req) -> tuple[int, Any]:
        self._check_app(req.params["app_id"])
        return 200, list(self._cmd_store(req.params.get("guild_id")).values())

    async def h_commands_put(self, req: _Req) -> tuple[int, Any]:
        self._check_app(req.params["app_id"])
        guild_id = req.params.get("guild_id")
        store = self._cmd_store(guild_id)
        body = req.json or []
        if not isinstance(body, list):
            raise self._invalid("bulk overwrite commands", ["body must be a list"])
        new = [self._make_command(c, guild_id) for c in body]
        keeps_entry = any(c["type"] == PRIMARY_ENTRY_POINT for c in new)
        had_entry = any(c["type"] == PRIMARY_ENTRY_POINT for c in store.values())
        if guild_id is None and had_entry and not keeps_entry:
            raise ApiError(400, 50240, "You cannot remove this app's Primary Entry Point command.")
        names = [(c["name"], c["type"]) for c in new]
        if len(set(names)) != len(names):
            raise self._invalid("bulk overwrite commands", [f"duplicate command names {names}"])
        store.clear()
        for c in new:
            store[(c["name"], c["type"])] = c
        return 200, new

    async def h_commands_post(self, req: _Req) -> tuple[int, Any]:
        self._check_app(req.params["app_id"])
        guild_id = req.params.get("guild_id")
        store = self._cmd_store(guild_id)
        cmd = self._make_command(req.json, guild_id)
        existed = (cmd["name"], cmd["type"]) in store
        store[(cmd["name"], cmd["type"])] = cmd
        return (200 if existed else 201), cmd

    async def h_command_one(self, req: _Req) -> tuple[int, Any]:
        self._check_app(req.params["app_id"])
        store = self._cmd_store(req.params.get("guild_id"))
        key = next((k for k, c in store.items() if c["id"] == req.params["command_id"]), None)
        if key is None:
            raise ApiError(404, 10063, "Unknown application command")
        if req.method == "DELETE":
            del store[key]
            return 204, None
        if req.method == "PATCH":
            store[key].update(req.json or {})
        return 200, store[key]

    # ================================================================= REST: guild & channels

    async def h_guild(self, req: _Req) -> tuple[int, Any]:
        self._check_guild(req.params["guild_id"])
        return 200, self.guild_payload(full=False)

    async def h_guild_channels(self, req: _Req) -> tuple[int, Any]:
        self._check_guild(req.params["guild_id"])
        return 200, [c.payload(self.guild_id) for c in self.channels.values()]

    async def h_guild_roles(self, req: _Req) -> tuple[int, Any]:
        self._check_guild(req.params["guild_id"])
        return 200, list(self.roles.values())

    async def h_guild_member(self, req: _Req) -> tuple[int, Any]:
        self._check_guild(req.params["guild_id"])
        return 200, self._person(int(req.params["user_id"]), member=True)

    async def h_guild_members(self, req: _Req) -> tuple[int, Any]:
        self._check_guild(req.params["guild_id"])
        limit = int(req.query.get("limit", 1))
        return 200, self.guild_payload()["members"][:limit]

    async def h_channel(self, req: _Req) -> tuple[int, Any]:
        return 200, self._get_channel(req.params["channel_id"]).payload(self.guild_id)

    async def h_typing(self, req: _Req) -> tuple[int, Any]:
        self._get_channel(req.params["channel_id"])
        return 204, None

    # ================================================================= messages (shared)

    def _attachments(
        self,
        body: Mapping[str, Any],
        files: list[tuple[str, str, bytes]],
        existing: list[dict[str, Any]],
    ) -> list[dict[str, Any]] | None:
        if "attachments" not in body and not files:
            return None
        out: list[dict[str, Any]] = []
        by_id = {a["id"]: a for a in existing}
        new_files = {
            int(re.sub(r"\D", "", name) or i): (fname, data)
            for i, (name, fname, data) in enumerate(files)
        }
        listed = body.get("attachments")
        if listed is None:
            listed = [{"id": i, "filename": f[0]} for i, f in new_files.items()]
        for att in listed:
            aid = att.get("id")
            if str(aid) in by_id:
                out.append(by_id[str(aid)])
            elif isinstance(aid, int) and aid in new_files:
                fname, data = new_files[aid]
                new_id = self._ids.next()
                url = f"http://{self.host}:{self.port}/attachments/{new_id}/{fname}"
                out.append(
                    {
                        "id": str(new_id),
                        "filename": att.get("filename", fname),
                        "size": len(data),
                        "url": url,
                        "proxy_url": url,
                        "content_type": "application/octet-stream",
                        "description": att.get("description"),
                    }
                )
        return out

    @staticmethod
    def _assign_component_ids(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
        components = copy.deepcopy(components)
        used = {c["id"] for c in walk_components(components) if isinstance(c.get("id"), int)}
        nxt = 1
        for c in walk_components(components):
            if not isinstance(c.get("id"), int):
                while nxt in used:
                    nxt += 1
                c["id"] = nxt  # type: ignore[index]
                used.add(nxt)
        return components

    def _requested(
        self,
        body: Mapping[str, Any],
        files: list[tuple[str, str, bytes]],
        old: StoredMessage | None,
    ) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
        """The content, embeds, components and attachments that a request creating a message
        (``old`` None) or editing ``old`` asks for: a field the body leaves out keeps its
        value, empty on a new message."""
        content, embeds, components, attachments = (
            ("", [], [], [])
            if old is None
            else (old.content, old.embeds, old.components, old.attachments)
        )
        if "content" in body:
            content = body.get("content") or ""
        if "embeds" in body:
            embeds = list(body.get("embeds") or [])
        if "components" in body:
            components = list(body.get("components") or [])
        sent = self._attachments(body, files, attachments)
        return content, embeds, components, attachments if sent is None else sent

    def _create_message(
        self,
        channel_id: int,
        body: Mapping[str, Any] | None,
        files: list[tuple[str, str, bytes]],
        *,
        created_by: str,
        visible_to: int | None = None,
        extra_flags: int = 0,
        interaction: InteractionRecord | None = None,
        what: str = "",
    ) -> StoredMessage:
        body = body or {}
        content, embeds, components, attachments = self._requested(body, files, None)
        flags = int(body.get("flags") or 0) & (
            FLAG_SUPPRESS_EMBEDS | FLAG_COMPONENTS_V2 | FLAG_EPHEMERAL
        )
        flags |= extra_flags
        if created_by == "channel":
            flags &= ~FLAG_EPHEMERAL
        if not flags & FLAG_LOADING:
            errors = validate_message(
                content, embeds, components, flags, attachments=attachments, creating=True
            )
            if errors:
                raise self._invalid(what or f"create message in {channel_id}", errors)
        msg = StoredMessage(
            id=self._ids.next(),
            channel_id=channel_id,
            guild_id=self.guild_id,
            author=self.bot_user_payload(),
            content=content,
            embeds=embeds,
            components=self._assign_component_ids(components),
            flags=flags,
            attachments=attachments,
            visible_to=visible_to if flags & FLAG_EPHEMERAL else None,
            created_at=self.now(),
            created_by=created_by,
        )
        if isinstance(body.get("message_reference"), dict):
            msg.message_reference = {
                **body["message_reference"],
                "channel_id": str(channel_id),
                "guild_id": str(self.guild_id),
            }
            msg.type = 19
        if interaction is not None:
            msg.interaction_id = interaction.id
            msg.webhook_id = self.application_id
            msg.application_id = self.application_id
            meta: dict[str, Any] = {
                "id": str(interaction.id),
                "type": interaction.type,
                "user": interaction.user.user_payload(),
                "authorizing_integration_owners": {"0": str(self.guild_id)},
            }
            if interaction.type == MESSAGE_COMPONENT and interaction.source_message_id:
                meta["interacted_message_id"] = str(interaction.source_message_id)
            if created_by == "followup" and interaction.original_message_id:
                meta["original_response_message_id"] = str(interaction.original_message_id)
            msg.interaction_metadata = meta
            if interaction.type == APPLICATION_COMMAND and created_by == "response":
                msg.type = 20
        self._messages[msg.id] = msg
        if msg.visible_to is None:
            self._message_event("MESSAGE_CREATE", msg)
        return msg

    def _interaction_message(
        self,
        rec: InteractionRecord,
        created_by: str,
        body: Mapping[str, Any] | None,
        files: list[tuple[str, str, bytes]],
        *,
        extra_flags: int = 0,
        what: str = "",
    ) -> StoredMessage:
        """A response or followup (``created_by``) to ``rec``, in its channel; only its user
        sees it if it is ephemeral."""
        return self._create_message(
            rec.channel_id,
            body,
            files,
            created_by=created_by,
            visible_to=rec.user.id,
            extra_flags=extra_flags,
            interaction=rec,
            what=what,
        )

    def _edit_message(
        self,
        msg: StoredMessage,
        body: Mapping[str, Any] | None,
        files: list[tuple[str, str, bytes]],
        *,
        what: str,
    ) -> StoredMessage:
        body = body or {}
        now = self.now()
        content, embeds, components, attachments = self._requested(body, files, msg)
        flags = msg.flags & ~FLAG_LOADING
        if body.get("flags") is not None:
            flags = int(body["flags"]) & (FLAG_SUPPRESS_EMBEDS | FLAG_COMPONENTS_V2)
            flags |= msg.flags & (FLAG_EPHEMERAL | FLAG_COMPONENTS_V2)
        errors = validate_message(content, embeds, components, flags, attachments=attachments)
        if not (content or embeds or components or attachments):
            errors.append("Cannot edit a message to be empty")
        if errors:
            raise self._invalid(what, errors)
        if (
            self.old_message_edit_limit is not None
            and not msg.ephemeral
            and now - msg.created_at > 3600
        ):
            recent = [
                t
                for m in self._messages.values()
                if m.channel_id == msg.channel_id
                for t in m.old_edit_times
                if now - t < 3600
            ]
            if len(recent) >= self.old_message_edit_limit:
                raise ApiError(
                    400,
                    30046,
                    "Maximum number of edits to messages older than 1 hour "
                    "reached. Try again later.",
                )
            msg.old_edit_times.append(now)
        msg.history.append(msg.snapshot())
        msg.content, msg.embeds, msg.flags, msg.attachments = content, embeds, flags, attachments
        if "components" in body:
            msg.components = self._assign_component_ids(components)
        msg.edited_at = now
        if msg.visible_to is None:
            self._message_event("MESSAGE_UPDATE", msg)
        return msg

    def _delete_message(self, msg: StoredMessage) -> None:
        msg.deleted = True
        if msg.visible_to is None:
            self._broadcast_soon(
                "MESSAGE_DELETE",
                {
                    "id": str(msg.id),
                    "channel_id": str(msg.channel_id),
                    "guild_id": str(self.guild_id),
                },
                INTENT_GUILD_MESSAGES,
            )

    def _message_event(self, event: str, msg: StoredMessage) -> None:
        if self.message_events:
            self._broadcast_soon(
                event, {**msg.payload(), "guild_id": str(self.guild_id)}, INTENT_GUILD_MESSAGES
            )

    # ================================================================= REST: channel messages

    def _channel_message(self, req: _Req) -> StoredMessage:
        self._get_channel(req.params["channel_id"])
        msg = self._messages.get(int(req.params["message_id"]))
        if (
            msg is None
            or msg.deleted
            or msg.ephemeral
            or msg.channel_id != int(req.params["channel_id"])
        ):
            raise ApiError(404, 10008, "Unknown Message")
        return msg

    async def h_channel_messages(self, req: _Req) -> tuple[int, Any]:
        ch = self._get_channel(req.params["channel_id"])
        self._check_bot_may(ch, req.method)
        if req.method == "POST":
            msg = self._create_message(
                ch.id,
                req.json,
                req.files,
                created_by="channel",
                what=f"POST /channels/{ch.id}/messages",
            )
            return 200, msg.payload()
        limit = min(int(req.query.get("limit", 50)), 100)
        msgs = [
            m
            for m in self._messages.values()
            if m.channel_id == ch.id and not m.deleted and not m.ephemeral
        ]
        if "before" in req.query:
            msgs = [m for m in msgs if m.id < int(req.query["before"])]
        if "after" in req.query:
            msgs = [m for m in msgs if m.id > int(req.query["after"])]
            return 200, [m.payload() for m in msgs[:limit]][::-1]
        if "around" in req.query:
            around = int(req.query["around"])
            msgs.sort(key=lambda m: abs(m.id - around))
            msgs = sorted(msgs[:limit], key=lambda m: m.id)
        return 200, [m.payload() for m in msgs[::-1][:limit]]

    async def h_channel_message(self, req: _Req) -> tuple[int, Any]:
        self._check_bot_may(self._get_channel(req.params["channel_id"]), req.method)
        msg = self._channel_message(req)
        if req.method == "GET":
            return 200, msg.payload()
        if req.method == "DELETE":
            self._delete_message(msg)
            return 204, None
        self._edit_message(msg, req.json, req.files, what=f"PATCH {req.path}")
        return 200, msg.payload()

    # ================================================================= REST: interactions

    _ALLOWED_CALLBACKS: ClassVar[dict[int, set[int]]] = {
        APPLICATION_COMMAND: {CB_MESSAGE, CB_DEFERRED_MESSAGE, CB_MODAL, CB_LAUNCH_ACTIVITY},
        MESSAGE_COMPONENT: {
            CB_MESSAGE,
            CB_DEFERRED_MESSAGE,
            CB_DEFERRED_UPDATE,
            CB_UPDATE_MESSAGE,
            CB_MODAL,
            CB_LAUNCH_ACTIVITY,
        },
        AUTOCOMPLETE: {CB_AUTOCOMPLETE},
        MODAL_SUBMIT: {CB_MESSAGE, CB_DEFERRED_MESSAGE, CB_DEFERRED_UPDATE, CB_UPDATE_MESSAGE},
    }

    async def h_callback(self, req: _Req) -> tuple[int, Any]:
        rec = self._interactions.get(int(req.params["interaction_id"]))
        if rec is None or rec.token != req.params["token"]:
            raise ApiError(404, 10062, "Unknown interaction")
        latency = time.monotonic() - (rec.dispatched_mono or time.monotonic())
        body = req.json if isinstance(req.json, dict) else {}
        ctype = int(body.get("type") or 0)
        data = body.get("data") or {}

        def reject(status: int, code: int, message: str) -> ApiError:
            rec.callbacks.append(CallbackRecord(ctype, data, latency, status, code))
            return ApiError(status, code, message)

        if rec.late or latency > self.ack_deadline:
            if not rec.late:
                rec.late = True
                self.late_acks.append(rec)
            raise reject(404, 10062, "Unknown interaction")
        if rec.accepted is not None:
            self.double_acks.append(rec)
            raise reject(400, 40060, "Interaction has already been acknowledged.")
        allowed = set(self._ALLOWED_CALLBACKS.get(rec.type, set()))
        if rec.type == MODAL_SUBMIT and rec.source_message_id is None:
            allowed -= {CB_DEFERRED_UPDATE, CB_UPDATE_MESSAGE}
        if ctype not in allowed:
            self.invalid_bodies.append(f"callback type {ctype} not allowed for {rec.describe()}")
            raise reject(400, 50035, "Invalid Form Body")
        if ctype == CB_LAUNCH_ACTIVITY and not self.activities_enabled:
            raise reject(400, 50234, "The application does not have Activities enabled")

        message: StoredMessage | None = None
        try:
            if ctype == CB_MESSAGE:
                message = self._interaction_message(
                    rec, "response", data, req.files, what=f"callback type 4 for {rec.describe()}"
                )
            elif ctype == CB_DEFERRED_MESSAGE:
                message = self._interaction_message(
                    rec, "response", {"flags": data.get("flags", 0)}, [], extra_flags=FLAG_LOADING
                )
            elif ctype in (CB_DEFERRED_UPDATE, CB_UPDATE_MESSAGE):
                message = self.get_message(rec.source_message_id)
                if message is None or message.deleted:
                    raise ApiError(404, 10008, "Unknown Message")
                if ctype == CB_UPDATE_MESSAGE:
                    self._edit_message(
                        message, data, req.files, what=f"callback type 7 for {rec.describe()}"
                    )
            elif ctype == CB_MODAL:
                if not data.get("custom_id") or not data.get("title"):
                    raise self._invalid(
                        f"modal for {rec.describe()}", ["modal needs custom_id and title"]
                    )
                rec.modal = data
            elif ctype == CB_AUTOCOMPLETE:
                rec.autocomplete_choices = list(data.get("choices") or [])
        except ApiError as exc:
            raise reject(exc.status, exc.code, exc.message) from None
        if message is not None:
            rec.original_message_id = message.id
        with_response = req.query.get("with_response", "0") not in ("0", "false", "False")
        rec.callbacks.append(CallbackRecord(ctype, data, latency, 200 if with_response else 204))
        self._notify()
        if not with_response:
            return 204, None
        interaction: dict[str, Any] = {"id": str(rec.id), "type": rec.type}
        resource: dict[str, Any] = {"type": ctype}
        if message is not None and ctype != CB_DEFERRED_UPDATE:
            interaction.update(
                {
                    "response_message_id": str(message.id),
                    "response_message_loading": ctype == CB_DEFERRED_MESSAGE,
                    "response_message_ephemeral": message.ephemeral,
                }
            )
            resource["message"] = message.payload()
        return 200, {"interaction": interaction, "resource": resource}

    def _token_record(self, req: _Req) -> InteractionRecord:
        rec = self._by_token.get(req.params["token"])
        if rec is None or int(req.params["app_id"]) != self.application_id:
            raise ApiError(404, 10015, "Unknown Webhook")
        if self.now() - rec.created_fake > self.token_ttl:
            self.expired_token_uses.append(f"{req.method} {req.path} ({rec.describe()})")
            raise ApiError(401, 50027, "Invalid Webhook Token")
        return rec

    async def h_followup(self, req: _Req) -> tuple[int, Any]:
        rec = self._token_record(req)
        if rec.accepted is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        body = req.json if isinstance(req.json, dict) else {}
        orig = rec.original_message
        if (
            rec.accepted.type == CB_DEFERRED_MESSAGE
            and orig is not None
            and orig.loading
            and not orig.deleted
        ):
            # Discord: the first followup after a "thinking" defer replaces the loading message.
            msg = self._edit_message(
                orig, body, req.files, what=f"first followup for {rec.describe()}"
            )
        else:
            msg = self._interaction_message(
                rec, "followup", body, req.files, what=f"followup for {rec.describe()}"
            )
            rec.followup_ids.append(msg.id)
        if req.query.get("wait") in ("1", "true", "True"):
            return 200, msg.payload()
        return 204, None

    async def h_webhook_message(self, req: _Req) -> tuple[int, Any]:
        rec = self._token_record(req)
        mid = req.params["message_id"]
        msg_id = rec.original_message_id if mid == "@original" else int(mid)
        allowed = {rec.original_message_id, *rec.followup_ids}
        msg = self.get_message(msg_id) if msg_id in allowed and msg_id is not None else None
        if msg is None or msg.deleted:
            raise ApiError(404, 10008, "Unknown Message")
        if req.method == "GET":
            return 200, msg.payload()
        if req.method == "DELETE":
            self._delete_message(msg)
            return 204, None
        self._edit_message(
            msg,
            req.json if isinstance(req.json, dict) else {},
            req.files,
            what=f"PATCH webhook message {mid} for {rec.describe()}",
        )
        return 200, msg.payload()

    # ================================================================= simulated users

    def _resolve_channel(self, channel: Any) -> FakeChannel:
        cid = getattr(channel, "id", channel)
        ch = self.channels.get(int(cid))
        if ch is None:
            raise FakeDiscordError(f"unknown channel {channel!r}")
        return ch

    def _resolve_message(self, message: Any) -> StoredMessage:
        if isinstance(message, StoredMessage):
            mid = message.id
        elif isinstance(message, MessageVersion):
            mid = message.message.id
        else:
            mid = int(getattr(message, "id", message))
        msg = self._messages.get(mid)
        if msg is None:
            raise NotVisibleError(f"no message {mid} was ever sent through the fake")
        return msg

    def _new_interaction(
        self,
        user: SimUser,
        channel: FakeChannel,
        itype: int,
        data: dict[str, Any],
        message: StoredMessage | None,
    ) -> InteractionRecord:
        iid = self._ids.next()
        token = "fake." + secrets.token_urlsafe(40)
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": itype,
            "token": token,
            "version": 1,
            "guild_id": str(self.guild_id),
            "guild": {"id": str(self.guild_id), "locale": self.preferred_locale, "features": []},
            "channel_id": str(channel.id),
            "channel": self._channel_payload_for_interaction(channel, user),
            "member": user.member_payload(with_permissions=True),
            "app_permissions": str(self.member_permissions(None) & ~channel.bot_deny),
            "locale": user.locale,
            "guild_locale": self.preferred_locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "authorizing_integration_owners": {"0": str(self.guild_id)},
            "context": 0,
            "attachment_size_limit": 10 * 1024 * 1024,
            "data": data,
        }
        if message is not None:
            payload["message"] = message.payload()
        return InteractionRecord(
            self,
            id=iid,
            token=token,
            type=itype,
            user=user,
            channel_id=channel.id,
            payload=payload,
            source_message_id=message.id if message else None,
        )

    async def _deliver(self, rec: InteractionRecord) -> InteractionRecord:
        if self._tasks:  # let queued GUILD_MEMBER_ADD / ROLE_CREATE ... reach the bot first
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        session = self._interaction_session()
        self.interactions.append(rec)
        self._interactions[rec.id] = rec
        self._by_token[rec.token] = rec
        rec.session_id = session.id
        rec.dispatched_mono = time.monotonic()
        await self._send_dispatch(session, "INTERACTION_CREATE", rec.payload)
        self._notify()
        return rec

    def _find_command(self, name: str) -> dict[str, Any]:
        cmd = self.command(name)
        if cmd is None:
            known = sorted({c["name"] for c in self.commands}) or "none"
            raise CommandNotRegisteredError(
                f"/{name} is not registered (did the bot sync its command tree?); known: {known}"
            )
        return cmd

    def _resolve_value(
        self, opt: Mapping[str, Any], value: Any, resolved: dict[str, Any], where: str
    ) -> Any:
        otype = opt["type"]
        if otype == 3:
            if not isinstance(value, str):
                raise FakeDiscordError(f"{where}: expected a string, got {value!r}")
            if opt.get("min_length") is not None and len(value) < opt["min_length"]:
                raise FakeDiscordError(f"{where}: shorter than min_length {opt['min_length']}")
            if opt.get("max_length") is not None and len(value) > opt["max_length"]:
                raise FakeDiscordError(f"{where}: longer than max_length {opt['max_length']}")
        elif otype == 4:
            if isinstance(value, bool) or not isinstance(value, int):
                raise FakeDiscordError(f"{where}: expected an integer, got {value!r}")
        elif otype == 10:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise FakeDiscordError(f"{where}: expected a number, got {value!r}")
        elif otype == 5:
            if not isinstance(value, bool):
                raise FakeDiscordError(f"{where}: expected a boolean, got {value!r}")
        elif otype in (6, 9) and (
            isinstance(value, SimUser)
            or int(getattr(value, "id", value)) in self.users
            or int(getattr(value, "id", value)) == self.bot_user_id
        ):
            uid = int(getattr(value, "id", value))
            if uid == self.bot_user_id:
                udata, mdata = self.bot_user_payload(), self.bot_member_payload()
            else:
                u = self.users[uid]
                udata, mdata = u.user_payload(), u.member_payload(with_permissions=True)
            mdata = {k: v for k, v in mdata.items() if k != "user"}
            resolved.setdefault("users", {})[str(uid)] = udata
            resolved.setdefault("members", {})[str(uid)] = mdata
            value = str(uid)
        elif otype == 7:
            ch = self._resolve_channel(value)
            resolved.setdefault("channels", {})[str(ch.id)] = {
                "id": str(ch.id),
                "name": ch.name,
                "type": ch.type,
                "permissions": str(ALL_PERMISSIONS),
                "parent_id": None,
                "position": ch.position,
                "nsfw": False,
                "flags": 0,
                "rate_limit_per_user": 0,
                "last_message_id": None,
                "topic": ch.topic,
            }
            value = str(ch.id)
        elif otype in (8, 9):
            rid = int(getattr(value, "id", value))
            if rid not in self.roles:
                raise FakeDiscordError(f"{where}: unknown user/role {value!r}")
            resolved.setdefault("roles", {})[str(rid)] = self.roles[rid]
            value = str(rid)
        elif otype == 6:
            raise FakeDiscordError(f"{where}: unknown user {value!r}")
        else:
            raise FakeDiscordError(f"{where}: option type {otype} is not supported by the fake")
        choices = opt.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            raise FakeDiscordError(
                f"{where}: {value!r} is not one of the choices {[c['value'] for c in choices]}"
            )
        if otype in (4, 10):
            if opt.get("min_value") is not None and value < opt["min_value"]:
                raise FakeDiscordError(f"{where}: {value} < min_value {opt['min_value']}")
            if opt.get("max_value") is not None and value > opt["max_value"]:
                raise FakeDiscordError(f"{where}: {value} > max_value {opt['max_value']}")
        return value

    def _build_options(
        self,
        schema: list[dict[str, Any]],
        path: list[str],
        values: dict[str, Any],
        resolved: dict[str, Any],
        where: str,
    ) -> list[dict[str, Any]]:
        subs = [o for o in schema if o.get("type") in (1, 2)]
        if path:
            sub = next((o for o in subs if o["name"] == path[0]), None)
            if sub is None:
                raise CommandNotRegisteredError(
                    f"{where} has no subcommand {path[0]!r}; has {[o['name'] for o in subs]}"
                )
            return [
                {
                    "type": sub["type"],
                    "name": sub["name"],
                    "options": self._build_options(
                        sub.get("options") or [],
                        path[1:],
                        values,
                        resolved,
                        f"{where} {sub['name']}",
                    ),
                }
            ]
        if subs:
            raise FakeDiscordError(
                f"{where} needs a subcommand: one of {[o['name'] for o in subs]}"
            )
        by_name = {o["name"]: o for o in schema}
        unknown = sorted(set(values) - set(by_name))
        if unknown:
            raise CommandNotRegisteredError(
                f"{where} has no option(s) {unknown}; registered: {sorted(by_name)}"
            )
        missing = [o["name"] for o in schema if o.get("required") and o["name"] not in values]
        if missing:
            raise FakeDiscordError(f"{where}: required option(s) missing: {missing}")
        out = []
        for o in schema:  # Discord sends options in the registered order
            if o["name"] in values:
                value = self._resolve_value(o, values[o["name"]], resolved, f"{where} {o['name']}")
                out.append({"type": o["type"], "name": o["name"], "value": value})
        return out

    async def _slash(
        self,
        user: SimUser,
        channel: Any,
        command: str,
        subcommand: str | None,
        options: dict[str, Any],
    ) -> InteractionRecord:
        ch = self._resolve_channel(channel)
        cmd = self._find_command(command)
        resolved: dict[str, Any] = {}
        path = subcommand.split() if subcommand else []
        data: dict[str, Any] = {
            "id": cmd["id"],
            "name": cmd["name"],
            "type": cmd.get("type", 1),
            "options": self._build_options(
                cmd.get("options") or [], path, options, resolved, f"/{command}"
            ),
        }
        if cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        if resolved:
            data["resolved"] = resolved
        return await self._deliver(self._new_interaction(user, ch, APPLICATION_COMMAND, data, None))

    async def _component(
        self, user: SimUser, message: Any, custom_id: str, values: list[Any] | None
    ) -> InteractionRecord:
        msg = self._resolve_message(message)
        if msg.deleted:
            raise NotVisibleError(f"message {msg.id} was deleted")
        if not msg.visible_for(user.id):
            raise NotVisibleError(
                f"{user.name} cannot see message {msg.id} (ephemeral for user {msg.visible_to})"
            )
        comp = msg.component(custom_id)
        if comp is None:
            raise ComponentNotFoundError(
                f"no component {custom_id!r} on message {msg.id}; has {msg.custom_ids}"
            )
        if comp.get("disabled"):
            raise ComponentNotFoundError(f"component {custom_id!r} on message {msg.id} is disabled")
        ctype = comp["type"]
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": ctype}
        if values is None:
            if ctype != 2 or comp.get("style") in (5, 6):
                raise ComponentNotFoundError(
                    f"{custom_id!r} is not a pressable button (type {ctype})"
                )
        else:
            if ctype not in SELECT_TYPES:
                raise ComponentNotFoundError(f"{custom_id!r} is not a select menu (type {ctype})")
            lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
            if not lo <= len(values) <= hi:
                raise FakeDiscordError(
                    f"select {custom_id!r} takes {lo}..{hi} values, got {len(values)}"
                )
            resolved: dict[str, Any] = {}
            if ctype == 3:
                allowed = [o["value"] for o in comp.get("options") or []]
                bad = [v for v in values if v not in allowed]
                if bad:
                    raise FakeDiscordError(
                        f"select {custom_id!r}: {bad} not among options {allowed}"
                    )
                data["values"] = [str(v) for v in values]
            else:
                kind = {5: 6, 6: 8, 7: 9, 8: 7}[ctype]
                data["values"] = [
                    self._resolve_value(
                        {"type": kind, "name": custom_id}, v, resolved, f"select {custom_id!r}"
                    )
                    for v in values
                ]
                data["resolved"] = resolved
        ch = self.channels[msg.channel_id]
        return await self._deliver(self._new_interaction(user, ch, MESSAGE_COMPONENT, data, msg))

    async def _modal_submit(
        self, user: SimUser, record: InteractionRecord, values: dict[str, Any]
    ) -> InteractionRecord:
        modal = record.modal
        if modal is None:
            raise FakeDiscordError(f"the bot did not open a modal for {record.describe()}")
        if record.user != user:
            raise NotVisibleError(f"the modal was shown to {record.user.name}, not {user.name}")
        seen: set[str] = set()

        def submit(comp: Mapping[str, Any]) -> dict[str, Any]:
            cid = comp.get("custom_id")
            out: dict[str, Any] = {"type": comp["type"], "id": comp.get("id", 0)}
            if cid is None:
                if comp["type"] == 10:
                    out["content"] = comp.get("content", "")
                return out
            seen.add(cid)
            out["custom_id"] = cid
            if comp["type"] == 4:
                val = values.get(cid, comp.get("value") or "")
                if comp.get("required", True) and not val:
                    raise FakeDiscordError(f"modal text input {cid!r} is required")
                out["value"] = str(val)
            else:
                out["values"] = [str(v) for v in values.get(cid, [])]
            return out

        comps: list[dict[str, Any]] = []
        for top in modal.get("components") or []:
            if top.get("type") == 1:
                comps.append(
                    {
                        "type": 1,
                        "id": top.get("id", 0),
                        "components": [submit(c) for c in top.get("components") or []],
                    }
                )
            elif top.get("type") == 18:
                comps.append(
                    {"type": 18, "id": top.get("id", 0), "component": submit(top["component"])}
                )
            elif top.get("type") == 10:
                comps.append(submit(top))
        unknown = sorted(set(values) - seen)
        if unknown:
            raise ComponentNotFoundError(
                f"modal {modal.get('custom_id')!r} has no input(s) {unknown}"
            )
        data = {"custom_id": modal["custom_id"], "components": comps}
        src = self.get_message(record.source_message_id) if record.source_message_id else None
        ch = self.channels[record.channel_id]
        return await self._deliver(self._new_interaction(user, ch, MODAL_SUBMIT, data, src))

    # ================================================================= queries

    def get_message(self, message_id: int | None) -> StoredMessage | None:
        return self._messages.get(message_id) if message_id is not None else None

    def messages(
        self, channel: Any = None, *, include_deleted: bool = False
    ) -> list[StoredMessage]:
        """Messages in creation order (all channels if channel is None)."""
        cid = None if channel is None else int(getattr(channel, "id", channel))
        return [
            m
            for m in self._messages.values()
            if (cid is None or m.channel_id == cid) and (include_deleted or not m.deleted)
        ]

    def visible_messages(self, user: SimUser) -> list[MessageVersion]:
        """Every version of every message `user` could ever have seen (incl. edited/deleted)."""
        return [
            v
            for m in self._messages.values()
            if m.visible_to in (None, user.id)
            for v in m.versions
        ]

    def last_message(self, channel: Any, visible_to: SimUser | None = None) -> StoredMessage | None:
        """Newest live message in channel: public only, or also `visible_to`'s ephemerals."""
        uid = visible_to.id if visible_to is not None else None
        for m in reversed(self.messages(channel)):
            if m.visible_for(uid):
                return m
        return None

    async def wait_for_message(
        self,
        channel: Any,
        predicate: Callable[[StoredMessage], bool] | None = None,
        *,
        timeout: float = 5.0,
        after: int = 0,
    ) -> StoredMessage:
        """Wait for a message (public or ephemeral) in channel, id > after, matching predicate."""
        found: list[StoredMessage] = []

        def check() -> bool:
            for m in self.messages(channel):
                if m.id > after and (predicate is None or predicate(m)):
                    found.append(m)
                    return True
            return False

        await self.wait_until(check, timeout, f"message in channel {channel}")
        return found[0]

    def find_components(self, message: Any) -> list[ComponentInfo]:
        """Flat (custom_id, label, disabled, style) of every button/select (rows, V2 containers)."""
        if isinstance(message, MessageVersion):
            return message.find_components()
        if isinstance(message, Mapping):
            return component_infos(message.get("components"))
        return self._resolve_message(message).find_components()

    # ================================================================= checks

    def unanswered_interactions(self) -> list[InteractionRecord]:
        return [
            r
            for r in self.interactions
            if not r.callbacks and r.id not in self._ignored_interactions
        ]

    def problems(self) -> list[str]:
        out = [f"unknown route: {r}" for r in self.unknown_routes]
        out += [f"unanswered interaction: {r.describe()}" for r in self.unanswered_interactions()]
        out += [
            f"late acknowledgement ({r.latency:.2f}s > {self.ack_deadline}s): {r.describe()}"
            for r in self.late_acks
        ]
        out += [
            f"second callback (40060 already acknowledged): {r.describe()}"
            for r in self.double_acks
        ]
        out += [f"invalid request body: {b}" for b in self.invalid_bodies]
        return out

    def assert_clean(self) -> None:
        """Raise AssertionError listing unknown routes, unanswered/late/double acks, bad bodies."""
        problems = self.problems()
        if problems:
            raise AssertionError("fake Discord saw problems:\n  - " + "\n  - ".join(problems))

    def reset_checks(self) -> None:
        """Forget problems seen so far (after a test provoked them on purpose)."""
        self.unknown_routes.clear()
        self.late_acks.clear()
        self.double_acks.clear()
        self.invalid_bodies.clear()
        self._ignored_interactions.update(r.id for r in self.interactions)


_R = FakeDiscord._route
_ID = r"(?P<{}>\d+)"
_R("GET", "/users/@me")(FakeDiscord.h_users_me)
_R("GET", "/users/" + _ID.format("user_id"))(FakeDiscord.h_user)
_R("GET", "/oauth2/applications/@me")(FakeDiscord.h_app_me)
_R("GET", "/applications/@me")(FakeDiscord.h_app_me)
_R("GET", "/gateway")(FakeDiscord.h_gateway)
_R("GET", "/gateway/bot")(FakeDiscord.h_gateway_bot)
for _prefix in (
    "/applications/" + _ID.format("app_id"),
    "/applications/" + _ID.format("app_id") + "/guilds/" + _ID.format("guild_id"),
):
    _R("GET", _prefix + "/commands")(FakeDiscord.h_commands_get)
    _R("PUT", _prefix + "/commands")(FakeDiscord.h_commands_put)
    _R("POST", _prefix + "/commands")(FakeDiscord.h_commands_post)
    _R("GET PATCH DELETE", _prefix + "/commands/" + _ID.format("command_id"))(
        FakeDiscord.h_command_one
    )
_R("GET", "/guilds/" + _ID.format("guild_id"))(FakeDiscord.h_guild)
_R("GET", "/guilds/" + _ID.format("guild_id") + "/channels")(FakeDiscord.h_guild_channels)
_R("GET", "/guilds/" + _ID.format("guild_id") + "/roles")(FakeDiscord.h_guild_roles)
_R("GET", "/guilds/" + _ID.format("guild_id") + "/members")(FakeDiscord.h_guild_members)
_R("GET", "/guilds/" + _ID.format("guild_id") + "/members/" + _ID.format("user_id"))(
    FakeDiscord.h_guild_member
)
_R("GET", "/channels/" + _ID.format("channel_id"))(FakeDiscord.h_channel)
_R("POST", "/channels/" + _ID.format("channel_id") + "/typing")(FakeDiscord.h_typing)
_R("GET POST", "/channels/" + _ID.format("channel_id") + "/messages")(
    FakeDiscord.h_channel_messages
)
_R(
    "GET PATCH DELETE",
    "/channels/" + _ID.format("channel_id") + "/messages/" + _ID.format("message_id"),
)(FakeDiscord.h_channel_message)
_R("POST", "/interactions/" + _ID.format("interaction_id") + "/(?P<token>[^/]+)/callback")(
    FakeDiscord.h_callback
)
_R("POST", "/webhooks/" + _ID.format("app_id") + "/(?P<token>[^/]+)")(FakeDiscord.h_followup)
_R(
    "GET PATCH DELETE",
    "/webhooks/"
    + _ID.format("app_id")
    + "/(?P<token>[^/]+)/messages/(?P<message_id>@original|\\d+)",
)(FakeDiscord.h_webhook_message)
del _R, _ID, _prefix
