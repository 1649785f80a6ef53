"""Discord startup: build the bot (``create_bot``) and run it (``run``).

This is the only module of :mod:`bot` that imports discord.py.  ``create_bot(settings)``
returns a configured, not yet started ``commands.Bot`` (``commands.AutoShardedBot`` when
``settings.shard_count`` is set: with ``settings.shard_ids``, it connects only those shards of
``SHARD_COUNT``, so several processes can split a big bot) whose ``setup_hook``:

1. opens the storage (``settings.storage_url``: SQLite or PostgreSQL), builds the
   :class:`GameService` (AI seats think in an :class:`~bot.ai_pool.AIPool` of ``AI_WORKERS``
   processes; it serves the servers on this process's shards only);
2. installs the translator (command names and descriptions in English, Spanish, French);
3. loads the cog extensions (``cogs.durak``: the ``/durak`` group, the Discord presenter and the
   ``DynamicItem`` buttons; ``cogs.admin``: the owner-only ``sync`` command);
4. restores every live game (the presenter re-posts their tables once the gateway is ready);
   with ``PUBLIC_URL`` set, starts the web table (:mod:`web.app`) on ``WEB_HOST:WEB_PORT`` in
   this same process and event loop, and gives the cog its links (hands: "Open the table",
   tables: "Watch"; ``/durak play``: the Activity when ``DISCORD_CLIENT_ID`` and
   ``DISCORD_CLIENT_SECRET`` are set, else the link; the Activity's sign-in asks the bot's
   :class:`~cogs.activity_gate.DiscordActivityGate` who may open which channel's table);
5. publishes the slash commands: with ``settings.dev_guild_id`` set (development), copies them
   to that server (instant) and leaves the global ones alone; otherwise publishes them globally
   **once when they changed** since the last global publication (a hash of the command set is
   kept in the database, see :func:`cogs.admin.publish_if_changed`), so a restart sends nothing
   and an upgrade that changed a command publishes it by itself.  The bot's owner can still
   publish by hand with the ``@bot sync`` mention command.

``run(settings)`` is what ``durak-bot`` (no subcommand) and ``python -m bot`` call.  Every
failure at first start is one line on stderr and a non-zero exit code, without a traceback:
a missing or malformed ``DISCORD_TOKEN`` (judged by :func:`apps.config.token_problem`) or a
token Discord refuses returns 2; no network (DNS, refused or dropped connection, no gateway)
returns 1.  Once the bot has logged in, a dropped connection is not fatal: discord.py's
``Client.connect`` reconnects (RESUME) and retries failed connections with exponential backoff
(random delay up to 2^n seconds, n capped at 10, i.e. at most about 17 minutes between tries).

The client asks only for the ``guilds`` intent (channels, roles, permissions) and
``guild_messages`` (the owner's ``@bot sync`` mention command); slash commands and buttons need
no intent.  The voice-library warnings discord.py prints when PyNaCl or davey is missing are
switched off: the bot never joins a voice channel.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from discord.ext import commands

from apps.config import Settings, token_problem
from bot.ai_pool import AIPool, ThreadAI
from bot.clock import Clock
from bot.service import GameService
from bot.storage import DatabaseUnavailable, Storage, create_storage, storage_problem

if TYPE_CHECKING:
    from web.app import WebServer

__all__ = ["EXTENSIONS", "DurakBot", "ShardedDurakBot", "create_bot", "intents", "run"]

log = logging.getLogger(__name__)

#: Cog extensions loaded by ``setup_hook``, in order.
EXTENSIONS = ("cogs.durak", "cogs.admin")

#: Exit code of ``run`` when Discord cannot be reached at first start.
EXIT_NO_NETWORK = 1
#: Exit code of ``run`` for a token problem (missing, malformed, refused by Discord).
EXIT_BAD_TOKEN = 2

# What a failed connection to Discord raises at first start: aiohttp wraps DNS failures and
# refused connections in ClientConnectorError; ConnectionError and gaierror cover raw sockets.
# Not every OSError: a PermissionError from the storage, say, must not read as "no network".
_NETWORK_ERRORS = (
    aiohttp.ClientError,
    ConnectionError,
    socket.gaierror,
    discord.GatewayNotFound,
    asyncio.TimeoutError,
)


def intents() -> discord.Intents:
    """The gateway intents the bot needs: ``guilds`` and ``guild_messages`` only."""
    return discord.Intents(guilds=True, guild_messages=True)


def _silence_voice_warnings() -> None:
    """Stop discord.py warning that PyNaCl / davey are missing: the bot never uses voice.

    ``Client.__init__`` logs each warning once, while ``VoiceClient.warn_nacl`` /
    ``warn_dave`` are true, then clears the flag; clearing them first is the supported way."""
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False


class _DurakMixin:
    """What both bot classes share: settings, the game service, setup and shutdown."""

    settings: Settings
    service: GameService
    tree: discord.app_commands.CommandTree[Any]

    def _init_durak(
        self,
        settings: Settings,
        clock: Clock | None,
        seed_source: Callable[[], int] | None,
        ai: AIPool | ThreadAI | None,
    ) -> None:
        self.settings = settings
        self._clock = clock
        self._seed_source = seed_source
        self._ai = ai
        self._own_ai: AIPool | None = None  # made in setup_hook, closed by close()
        #: Set by :func:`run` (the process's own bot): SIGTERM stops it gracefully.
        self.stop_on_sigterm = False
        self.service = None  # type: ignore[assignment]  # built in setup_hook
        self.restored_games = 0
        #: The web table's server, when ``PUBLIC_URL`` is set and it listens.
        self.web: WebServer | None = None

    async def setup_hook(self) -> None:
        if self.stop_on_sigterm:
            self._handle_sigterm()
        settings = self.settings
        storage = create_storage(settings.storage_url, timeout=settings.database_timeout)
        ai = self._ai
        if ai is None:
            ai = self._own_ai = AIPool(settings.ai_workers)
        self.service = GameService(
            storage,
            clock=self._clock,
            turn_timeout=settings.turn_timeout,
            ai_delay=settings.ai_delay,
            seed_source=self._seed_source,
            ai=ai,
            include_guild=settings.served_guilds(),
        )
        from cogs.i18n import DurakTranslator

        await self.tree.set_translator(DurakTranslator())
        for name in EXTENSIONS:
            await self.load_extension(name)  # type: ignore[attr-defined]
        self.restored_games = await self.service.restore()
        if self.restored_games:
            log.info("resumed %d live game(s)", self.restored_games)
        if settings.public_url:
            await self._start_web(storage)
        if settings.dev_guild_id is not None:
            guild = discord.Object(settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d command(s) to guild %d", len(synced), settings.dev_guild_id)
        else:
            from cogs.admin import publish_if_changed

            await publish_if_changed(self, storage)  # type: ignore[arg-type]

    def _handle_sigterm(self) -> None:
        """Stop on SIGTERM (a service manager's stop, a host's restart) as on Ctrl-C: the
        game service stores each waiting turn's time left, so a restart re-arms exactly that,
        and the process exits with 0."""
        loop = asyncio.get_running_loop()
        stopping: list[asyncio.Task[None]] = []  # the close task, kept while it runs

        def stop() -> None:
            log.info("SIGTERM: stopping (each waiting turn's time left is stored)")
            stopping.append(loop.create_task(self.close()))

        with contextlib.suppress(NotImplementedError):  # no signal handlers on this platform
            loop.add_signal_handler(signal.SIGTERM, stop)

    async def _start_web(self, storage: Storage) -> None:
        """Start the web table (``PUBLIC_URL`` is set) in this process and event loop, and
        give the cog its links.  If it cannot listen, the error is logged and the bot plays
        on without it: no message then carries a link that could not work."""
        from web.activity import DiscordOAuth
        from web.app import WebConfig, WebServer
        from web.http_server import ServerLimits
        from web.rooms import RoomLimits
        from web.tokens import Signer, load_secret

        settings = self.settings
        assert settings.public_url is not None
        from cogs.activity_gate import DiscordActivityGate

        oauth, gate = None, None
        if settings.activity_enabled:
            assert settings.discord_client_id and settings.discord_client_secret
            # the Activity's sign-in asks the same Discord API as the bot (a fake one in tests)
            oauth = DiscordOAuth(
                settings.discord_client_id,
                settings.discord_client_secret,
                api=discord.http.Route.BASE,
            )
            assert isinstance(self, discord.Client)
            gate = DiscordActivityGate(self)
        config = WebConfig(
            public_url=settings.public_url,
            host=settings.web_host,
            port=settings.web_port,
            oauth=oauth,
            room_limits=RoomLimits.from_env(settings.values),
            server_limits=ServerLimits.from_env(settings.values),
        )
        server = WebServer(
            self.service, Signer(await load_secret(storage, settings.web_secret)), config, gate
        )
        try:
            await server.start()
        except OSError as exc:
            self.service.remove_presenter(server.parts.presenter)
            log.error(
                "the web table cannot listen on %s:%d (%s): the bot plays on without it",
                settings.web_host,
                settings.web_port,
                exc.strerror or exc,
            )
            return
        self.web = server
        from cogs.components import COG_NAME
        from cogs.durak_commands import DurakCog

        cog = self.get_cog(COG_NAME)  # type: ignore[attr-defined]
        if isinstance(cog, DurakCog):
            cog.use_web(server.links, activity=oauth is not None)

    async def close(self) -> None:
        web, self.web = self.web, None
        if web is not None:
            try:
                await web.stop()
            except Exception:  # pragma: no cover - shutdown must go on
                log.exception("stopping the web table failed")
        service = getattr(self, "service", None)
        if service is not None:
            try:
                await service.close()
            except Exception:  # pragma: no cover - shutdown must go on
                log.exception("closing the game service failed")
            self.service = None  # type: ignore[assignment]
        own, self._own_ai = self._own_ai, None
        if own is not None:
            await own.close()
        await super().close()  # type: ignore[misc]


class DurakBot(_DurakMixin, commands.Bot):
    """The durak-bot client (one gateway connection)."""


class ShardedDurakBot(_DurakMixin, commands.AutoShardedBot):
    """The durak-bot client with ``SHARD_COUNT`` shards (``SHARD_IDS`` of them here)."""


def create_bot(
    settings: Settings,
    *,
    clock: Clock | None = None,
    seed_source: Callable[[], int] | None = None,
    ai: AIPool | ThreadAI | None = None,
    **options: Any,
) -> commands.Bot | commands.AutoShardedBot:
    """Build the configured bot without starting it (``await bot.start(token)`` does).

    ``clock``, ``seed_source`` and ``ai`` go to the :class:`GameService` (tests drive turn
    timeouts with :class:`bot.clock.ManualClock`, choose the deals, and may share an AI
    runner, which they close; default: the service's own :class:`~bot.ai_pool.AIPool`).
    ``options`` go to ``commands.Bot`` (e.g. ``guild_ready_timeout=0.05`` in tests)."""
    _silence_voice_warnings()
    options.setdefault("intents", intents())
    options.setdefault("command_prefix", commands.when_mentioned)
    options.setdefault("help_command", None)
    options.setdefault("allowed_mentions", discord.AllowedMentions.none())
    bot: DurakBot | ShardedDurakBot
    if settings.shard_count is not None:
        options.setdefault("shard_count", settings.shard_count)
        if settings.shard_ids is not None:
            options.setdefault("shard_ids", list(settings.shard_ids))
        bot = ShardedDurakBot(**options)
    else:
        bot = DurakBot(**options)
    assert isinstance(bot, _DurakMixin)
    bot._init_durak(settings, clock, seed_source, ai)
    return bot


def web_limits_problem(settings: Settings) -> str | None:
    """With ``PUBLIC_URL`` set the bot serves the web table and the rooms: the sentence naming
    a room or connection limit the environment sets to a bad value, else ``None``."""
    if settings.public_url is None:
        return None
    from web.http_server import ServerLimits
    from web.rooms import RoomLimits

    try:
        RoomLimits.from_env(settings.values)
        ServerLimits.from_env(settings.values)
    except ValueError as exc:
        return str(exc)
    return None


def run(settings: Settings) -> int:
    """Start the bot on Discord and block until it stops.  Returns a process exit code (see the
    module docstring); every failure to start is reported as one line on stderr."""
    problem = token_problem(settings.discord_token, settings.env_file)
    if problem is not None:
        print(problem, file=sys.stderr)
        return EXIT_BAD_TOKEN
    assert settings.discord_token is not None
    problem = web_limits_problem(settings) or storage_problem(settings.storage_url)
    if problem is not None:  # said before connecting to Discord
        print(problem, file=sys.stderr)
        return 2
    bot = create_bot(settings)
    if isinstance(bot, _DurakMixin):
        bot.stop_on_sigterm = True
    try:
        bot.run(settings.discord_token, log_handler=None)
    except DatabaseUnavailable as exc:  # e.g. another process took the SQLite file since
        print(exc, file=sys.stderr)
        return 2
    except discord.LoginFailure:
        print(
            "Discord refused DISCORD_TOKEN (401 Unauthorized): reset the token in the "
            "Developer Portal and put the new one in .env.",
            file=sys.stderr,
        )
        return EXIT_BAD_TOKEN
    except discord.PrivilegedIntentsRequired:  # pragma: no cover - no privileged intents
        print("Discord refused the bot's gateway intents.", file=sys.stderr)
        return EXIT_BAD_TOKEN
    except _NETWORK_ERRORS as exc:
        print(
            f"Cannot reach Discord ({_one_line(exc)}): check the network connection and "
            "start the bot again.",
            file=sys.stderr,
        )
        return EXIT_NO_NETWORK
    return 0


def _one_line(exc: BaseException) -> str:
    """``exc`` as a short single line (its type when it has no message)."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__
