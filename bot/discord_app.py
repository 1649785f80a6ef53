"""Discord startup: build the bot (``create_bot``) and run it (``run``).

This is the only module of :mod:`bot` that imports discord.py.  ``create_bot(settings)``
returns a configured, not yet started ``commands.Bot`` (``commands.AutoShardedBot`` when
``settings.shard_count`` is set) whose ``setup_hook``:

1. opens the storage (``settings.storage_url``: SQLite or PostgreSQL), builds the
   :class:`GameService`;
2. installs the translator (command names and descriptions in English, Spanish, French);
3. loads the cog extensions (``cogs.durak``: the ``/durak`` group, the Discord presenter and the
   ``DynamicItem`` buttons; ``cogs.admin``: the owner-only ``sync`` command);
4. restores every live game (the presenter re-posts their tables once the gateway is ready);
5. syncs the commands to ``settings.dev_guild_id`` when set (instant).  It never syncs globally
   on start: the bot's owner does that once with the ``@bot sync`` mention command.

``run(settings)`` is what ``durak-bot`` (no subcommand) and ``python -m bot`` call.  A missing or
malformed ``DISCORD_TOKEN`` prints one clear line and returns 2, without a traceback.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Callable
from typing import Any

import discord
from discord.ext import commands

from bot.clock import Clock
from bot.config import Settings
from bot.service import GameService
from bot.storage import DatabaseUnavailable, create_storage, storage_problem

__all__ = ["EXTENSIONS", "DurakBot", "ShardedDurakBot", "create_bot", "run"]

log = logging.getLogger(__name__)

#: Cog extensions loaded by ``setup_hook``, in order.
EXTENSIONS = ("cogs.durak", "cogs.admin")

# A bot token is three base64url segments joined by dots (user id, timestamp, HMAC).
_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{16,}")


class _DurakMixin:
    """What both bot classes share: settings, the game service, setup and shutdown."""

    settings: Settings
    service: GameService
    tree: discord.app_commands.CommandTree[Any]

    def _init_durak(self, settings: Settings, clock: Clock | None,
                    seed_source: Callable[[], int] | None) -> None:
        self.settings = settings
        self._clock = clock
        self._seed_source = seed_source
        self.service = None  # type: ignore[assignment]  # built in setup_hook
        self.restored_games = 0

    async def setup_hook(self) -> None:
        settings = self.settings
        storage = create_storage(settings.storage_url)
        self.service = GameService(
            storage,
            clock=self._clock,
            turn_timeout=settings.turn_timeout,
            ai_delay=settings.ai_delay,
            seed_source=self._seed_source,
        )
        from cogs.i18n import DurakTranslator

        await self.tree.set_translator(DurakTranslator())
        for name in EXTENSIONS:
            await self.load_extension(name)  # type: ignore[attr-defined]
        self.restored_games = await self.service.restore()
        if self.restored_games:
            log.info("resumed %d live game(s)", self.restored_games)
        if settings.dev_guild_id is not None:
            guild = discord.Object(settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d command(s) to guild %d", len(synced), settings.dev_guild_id)

    async def close(self) -> None:
        service = getattr(self, "service", None)
        if service is not None:
            try:
                await service.close()
            except Exception:  # pragma: no cover - shutdown must go on
                log.exception("closing the game service failed")
            self.service = None  # type: ignore[assignment]
        await super().close()  # type: ignore[misc]


class DurakBot(_DurakMixin, commands.Bot):
    """The durak-bot client (one gateway connection)."""


class ShardedDurakBot(_DurakMixin, commands.AutoShardedBot):
    """The durak-bot client with ``SHARD_COUNT`` shards."""


def create_bot(
    settings: Settings,
    *,
    clock: Clock | None = None,
    seed_source: Callable[[], int] | None = None,
    **options: Any,
) -> commands.Bot | commands.AutoShardedBot:
    """Build the configured bot without starting it (``await bot.start(token)`` does).

    ``clock`` and ``seed_source`` go to the :class:`GameService` (tests drive turn timeouts
    with :class:`bot.clock.ManualClock` and choose the deals).  ``options`` go to
    ``commands.Bot`` (e.g. ``guild_ready_timeout=0.05`` in tests)."""
    options.setdefault("intents", discord.Intents.default())
    options.setdefault("command_prefix", commands.when_mentioned)
    options.setdefault("help_command", None)
    options.setdefault("allowed_mentions", discord.AllowedMentions.none())
    bot: DurakBot | ShardedDurakBot
    if settings.shard_count is not None:
        options.setdefault("shard_count", settings.shard_count)
        bot = ShardedDurakBot(**options)
    else:
        bot = DurakBot(**options)
    assert isinstance(bot, _DurakMixin)
    bot._init_durak(settings, clock, seed_source)
    return bot


def token_problem(token: str | None) -> str | None:
    """One line saying what is wrong with ``token``, or ``None`` if it looks like a token."""
    if not token:
        return ("DISCORD_TOKEN is not set: put your bot's token in .env (see .env.example), "
                "or run `durak-bot play` to play in the terminal.")
    if token.lower().startswith("bot "):
        return "DISCORD_TOKEN must be the bare token, without the 'Bot ' prefix."
    if not _TOKEN_RE.fullmatch(token):
        return ("DISCORD_TOKEN does not look like a bot token (three dot-separated parts): "
                "copy it again from the Developer Portal (Bot → Reset Token).")
    return None


def run(settings: Settings) -> int:
    """Start the bot on Discord and block until it stops.  Returns a process exit code."""
    problem = token_problem(settings.discord_token)
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    assert settings.discord_token is not None
    problem = storage_problem(settings.storage_url)  # before connecting to Discord
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    bot = create_bot(settings)
    try:
        bot.run(settings.discord_token, log_handler=None)
    except DatabaseUnavailable as exc:  # e.g. another process took the SQLite file since
        print(exc, file=sys.stderr)
        return 2
    except discord.LoginFailure:
        print("Discord refused DISCORD_TOKEN (401 Unauthorized): reset the token in the "
              "Developer Portal and put the new one in .env.", file=sys.stderr)
        return 2
    except discord.PrivilegedIntentsRequired:  # pragma: no cover - default intents only
        print("Discord refused the bot's gateway intents.", file=sys.stderr)
        return 2
    return 0
