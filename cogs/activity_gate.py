"""Who may open a channel's table through the Discord Activity, asked of Discord with the
bot's token: the web table's Activity gate (``web.activity_gate.ActivityGate``, which the
entry point hands this to; the answers are its words).

A user is admitted when:

1. Discord's Activity instance (``GET /applications/{app}/activity-instances/{instance}``)
   lists them among its ``users`` and its ``location`` is the channel and server asked for;
2. they are a member of that server (``GET /guilds/{guild}/members/{user}``: no privileged
   intent needed) who can view the channel: discord.py computes it from the server's roles
   and the channel's overwrites, kept by the gateway (the owner and administrators can).

Answers are kept a few seconds (:data:`KEEP_SECONDS`), and a question asked while the same
is in flight waits for it, so one page load asks Discord once per instance and member.  A kept
answer that would refuse (the user not yet in the instance, not yet a member) is asked again
before refusing: a player who joined the instance a second after another's page load is let
in.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Generic, Literal, TypeVar

import aiohttp
import discord
from discord.http import Route

__all__ = ["KEEP_SECONDS", "DiscordActivityGate"]

log = logging.getLogger(__name__)

#: Seconds an answer of Discord is kept.
KEEP_SECONDS = 5.0
#: The most answers kept of each kind (older ones are dropped first).
KEEP_AT_MOST = 1024

#: The gate's answers (``web.activity_gate.GateAnswer``'s words).
Answer = Literal[
    "admitted", "not_in_instance", "elsewhere", "not_member", "cannot_view", "unavailable"
]

K = TypeVar("K")
V = TypeVar("V")


class _Recent(Generic[K, V]):
    """Answers kept ``keep`` seconds by key; a key asked while it is fetched shares that
    fetch.  A failed fetch is not kept."""

    def __init__(self, keep: float, clock: Callable[[], float]) -> None:
        self._keep = keep
        self._clock = clock
        self._held: dict[K, tuple[float, asyncio.Future[V]]] = {}

    async def get(self, key: K, fetch: Callable[[], Awaitable[V]]) -> V:
        """The answer to ``key``: kept, in flight, or ``fetch()``-ed now."""
        return (await self.ask(key, fetch))[0]

    async def ask(self, key: K, fetch: Callable[[], Awaitable[V]]) -> tuple[V, bool]:
        """:meth:`get`, and whether the answer was kept from before this call (``False``:
        this call fetched it)."""
        now = self._clock()
        kept = True
        held = self._held.get(key)
        if held is None or held[0] <= now:
            if len(self._held) >= KEEP_AT_MOST:
                self._drop(now)
            future: asyncio.Future[V] = asyncio.ensure_future(fetch())
            self._held[key] = (now + self._keep, future)
            kept = False
        else:
            future = held[1]
        try:
            return await asyncio.shield(future), kept
        except Exception:
            if self._held.get(key, (0.0, None))[1] is future:
                del self._held[key]
            raise

    async def fresh(
        self, key: K, fetch: Callable[[], Awaitable[V]], good: Callable[[V], bool]
    ) -> V:
        """The answer to ``key``; a kept answer that is not ``good`` is asked again."""
        answer, kept = await self.ask(key, fetch)
        if kept and not good(answer):
            held = self._held.get(key)
            if held is not None and held[1].done():
                del self._held[key]
            answer, _ = await self.ask(key, fetch)
        return answer

    def _drop(self, now: float) -> None:
        for key in [k for k, (until, _) in self._held.items() if until <= now]:
            del self._held[key]
        while len(self._held) >= KEEP_AT_MOST:
            del self._held[next(iter(self._held))]


class DiscordActivityGate:
    """The Activity gate of the bot ``client`` (see the module docstring)."""

    def __init__(
        self,
        client: discord.Client,
        *,
        keep: float = KEEP_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self._instances: _Recent[str, dict[str, Any] | None] = _Recent(keep, clock)
        self._members: _Recent[tuple[int, int], discord.Member | None] = _Recent(keep, clock)

    async def admit(self, instance_id: str, user_id: int, channel_id: int, guild_id: int) -> Answer:
        """Whether ``user_id`` may open the table of ``channel_id`` in ``guild_id`` from the
        Activity instance ``instance_id``."""
        try:
            return await self._admit(instance_id, user_id, channel_id, guild_id)
        except (discord.HTTPException, aiohttp.ClientError, OSError, TimeoutError) as exc:
            log.warning("the Activity's check could not ask Discord: %s", type(exc).__name__)
            return "unavailable"

    async def _admit(
        self, instance_id: str, user_id: int, channel_id: int, guild_id: int
    ) -> Answer:
        instance = await self._instances.fresh(
            instance_id,
            lambda: self._instance(instance_id),
            lambda found: found is not None and str(user_id) in _ids(found.get("users")),
        )
        if instance is None or str(user_id) not in _ids(instance.get("users")):
            return "not_in_instance"
        location = instance.get("location")
        if not isinstance(location, dict) or (
            location.get("channel_id"),
            location.get("guild_id"),
        ) != (str(channel_id), str(guild_id)):
            return "elsewhere"
        guild = self.client.get_guild(guild_id)
        if guild is None:
            return "not_member"
        member = await self._members.fresh(
            (guild_id, user_id), lambda: self._member(guild, user_id), lambda m: m is not None
        )
        if member is None:
            return "not_member"
        channel = guild.get_channel_or_thread(channel_id)
        if channel is None:
            try:
                fetched = await guild.fetch_channel(channel_id)
            except (discord.NotFound, discord.Forbidden):
                return "cannot_view"
            channel = fetched
        try:
            sees = channel.permissions_for(member).view_channel
        except discord.ClientException:  # a thread whose parent is not known
            return "cannot_view"
        return "admitted" if sees else "cannot_view"

    async def _instance(self, instance_id: str) -> dict[str, Any] | None:
        """Discord's Activity instance ``instance_id`` of this application (``None``: none)."""
        route = Route(
            "GET",
            "/applications/{application_id}/activity-instances/{instance_id}",
            application_id=self.client.application_id,
            instance_id=instance_id,
        )
        try:
            data = await self.client.http.request(route)
        except (discord.NotFound, discord.Forbidden):
            return None
        return data if isinstance(data, dict) else None

    async def _member(self, guild: discord.Guild, user_id: int) -> discord.Member | None:
        """The member ``user_id`` of ``guild``, as Discord has them now (``None``: not one)."""
        try:
            return await guild.fetch_member(user_id)
        except discord.NotFound:
            return None


def _ids(value: object) -> list[str]:
    """The user ids of an instance's ``users`` (Discord sends strings)."""
    return [str(v) for v in value] if isinstance(value, list) else []
