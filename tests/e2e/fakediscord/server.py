"""The fake Discord server: one aiohttp app (REST API + gateway websocket) on 127.0.0.1,
made of the layers of :mod:`.core` (one module per Discord resource); here they are tied
into :class:`FakeDiscord`, with its lifecycle, the bots it runs and its checks."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Iterator, Sequence

import discord
import yarl
from aiohttp import web

from .activities import Activities
from .core import WaitTimeout
from .gateway import GatewaySession
from .models import FakeDiscordError, InteractionRecord
from .rest import RateLimitRule, RequestRecord

__all__ = ["FakeDiscord", "GatewaySession", "RateLimitRule", "RequestRecord", "WaitTimeout"]


class FakeDiscord(Activities):
    """A fake Discord (one guild, one application) for end-to-end tests; see the package doc.

    More guilds: :meth:`add_guild` returns another ``FakeDiscord`` for a second guild of the
    same application, served by this one's server (REST is routed by guild, channel and
    interaction).  A session that IDENTIFYs with ``shard=[id, count]`` receives only the
    guilds on that shard (``(guild_id >> 22) % count == id``), and a guild's interactions go
    to the session holding its shard, as on Discord.
    """

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

    # ================================================================= lifecycle

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

    # ================================================================= waiting

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
