"""Publishing the slash commands: once after an upgrade, and the owner's ``@DurakBot sync``.

**At start** (:func:`publish_if_changed`, called by ``setup_hook``): the bot hashes the global
command set exactly as discord.py would send it (:func:`command_set_hash`) and compares it with
the hash stored in the database (``bot_meta``, key :data:`COMMANDS_HASH_KEY`) by the last
successful global publication.  When they differ (a first start, an upgrade that changed a
command, an option, a translation, or another application on the same database) it publishes
globally once and stores the new hash; when they match it sends nothing.  So a start never
syncs needlessly (Discord rate-limits command updates), and an upgrade never leaves players with
outdated commands.  Every global publication (at start and the owner's ``sync``) goes through
:func:`sync_global`, which keeps the application's Activity "Entry Point" command: a bulk
overwrite that dropped it would be refused (error 50240).  A failed publication (Discord down,
rate limited, or refusing the update) is logged as an error and stores nothing: the bot starts
anyway and the next start tries again; the owner's ``sync`` retries at once.  With
``DEV_GUILD_ID`` set (development) the start copies the commands to that server only, as
before, and leaves the global ones alone.

Why publish automatically rather than tell the owner a ``sync`` is due: it happens once per
change of the command set, far inside Discord's rate limits, while a reminder the owner misses
leaves every server with outdated commands; what can go wrong with it (a rate limit, a refused
update) ends in one logged error and a retry, never in a bot that does not start.

**The owner** can publish by hand at any time by mentioning the bot::

    @DurakBot sync          # global sync (every server, may take a while to show)
    @DurakBot sync here     # copy the commands to this server only (instant)
    @DurakBot sync clear    # remove this server's copy (the global ones stay)

``here`` and ``clear`` are needed after developing with ``DEV_GUILD_ID``: that server keeps its
own copy of the commands next to the global ones, so every command shows twice until
``sync clear`` removes the copy.  Anything else (a typo, ``here``/``clear`` in a direct message)
is refused with a reply and syncs nothing.

A mention command (not a slash command) so that it works before any command was ever synced;
the mention makes the message content visible without the privileged message-content intent.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from typing import Any

import discord
from discord.ext import commands

from bot.storage import Storage

__all__ = [
    "COMMANDS_HASH_KEY",
    "ENTRY_POINT",
    "AdminCog",
    "command_set_hash",
    "publish_if_changed",
    "setup",
    "sync_global",
]

log = logging.getLogger(__name__)

#: The ``bot_meta`` key of the hash of the command set last published globally.
COMMANDS_HASH_KEY = "global_commands_hash"
#: How long a start waits for the global publication before going on without it.
PUBLISH_TIMEOUT = 30.0
#: The type of an Activity's Entry Point command (``PRIMARY_ENTRY_POINT``).
ENTRY_POINT = 4
#: What Discord makes of a command and refuses (or ignores) in a bulk overwrite.
_READ_ONLY = ("application_id", "version", "guild_id", "dm_permission")


async def sync_global(bot: commands.Bot) -> list[discord.app_commands.AppCommand]:
    """Publish the tree's global commands (a bulk overwrite, as ``tree.sync()``), keeping
    every Entry Point command the application already has.

    An application with Activities enabled has an Entry Point command (type 4), made by
    Discord; a bulk overwrite that leaves it out is refused (error 50240).  So the current
    global commands are fetched first and each Entry Point is sent back as it is (with its
    id, so Discord keeps it unchanged)."""
    tree = bot.tree
    app_id = bot.application_id
    if app_id is None:
        raise discord.app_commands.MissingApplicationID
    translator = tree.translator
    payload: list[dict[str, Any]] = [
        await command.get_translated_payload(tree, translator)
        if translator is not None
        else command.to_dict(tree)
        for command in tree.get_commands()
    ]
    existing = await bot.http.get_global_commands(app_id)
    for command in existing:
        if int(command.get("type", 1)) == ENTRY_POINT:
            kept: dict[str, Any] = {k: v for k, v in command.items() if k not in _READ_ONLY}
            payload.append(kept)
    try:
        data = await bot.http.bulk_upsert_global_commands(app_id, payload=payload)
    except discord.HTTPException as exc:
        if exc.status == 400 and exc.code == 50035:
            raise discord.app_commands.CommandSyncFailure(exc, tree.get_commands()) from None
        raise
    state = tree._state  # the connection state discord.py's own sync gives its commands
    return [discord.app_commands.AppCommand(data=d, state=state) for d in data]


async def command_set_hash(tree: discord.app_commands.CommandTree[Any], application_id: int) -> str:
    """A stable hash (SHA-256, hex) of what a global ``tree.sync()`` would send for
    ``application_id``: every global command's payload, translated as discord.py translates it,
    in a canonical JSON form (keys sorted, commands ordered by type and name)."""
    translator = tree.translator
    payload = [
        await command.get_translated_payload(tree, translator)
        if translator is not None
        else command.to_dict(tree)
        for command in tree.get_commands()
    ]
    payload.sort(key=lambda c: (int(c.get("type", 1)), str(c["name"])))
    text = json.dumps(
        {"application_id": application_id, "commands": payload},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


async def _store_published_hash(bot: commands.Bot, storage: Storage) -> None:
    """Remember the command set just published globally (see :func:`publish_if_changed`)."""
    assert bot.application_id is not None
    digest = await command_set_hash(bot.tree, bot.application_id)
    await storage.set_meta(COMMANDS_HASH_KEY, digest, time.time())


async def publish_if_changed(bot: commands.Bot, storage: Storage) -> bool:
    """Publish the global commands once if they differ from the last published set (see the
    module docstring).  True if they were published now; never raises for a failed
    publication, which is logged and retried at the next start."""
    try:
        if bot.application_id is None:
            raise discord.app_commands.MissingApplicationID
        digest = await command_set_hash(bot.tree, bot.application_id)
        if digest == await storage.get_meta(COMMANDS_HASH_KEY):
            log.info("slash commands unchanged since their last global publication")
            return False
        synced = await asyncio.wait_for(sync_global(bot), PUBLISH_TIMEOUT)
        await storage.set_meta(COMMANDS_HASH_KEY, digest, time.time())
    except Exception as exc:  # a failed publication must never keep the bot from playing
        log.error(
            "publishing the changed slash commands globally failed (%s): the next start tries "
            "again, or the owner can mention the bot with `sync`",
            " ".join(str(exc).split()) or type(exc).__name__,
        )
        return False
    log.info("slash commands changed: published %d command(s) globally", len(synced))
    return True


#: The scopes ``@bot sync`` accepts ("guild" is an alias of "here").
SCOPES = ("global", "here", "guild", "clear")
USAGE = (
    "usage: `sync` (every server), `sync here` (this server), `sync clear` (remove this "
    "server's copy)"
)


def refusal(scope: str, in_guild: bool) -> str | None:
    """Why ``sync <scope>`` cannot run here, as a reply, or ``None`` if it can."""
    if scope not in SCOPES:
        return f"Unknown sync scope {scope!r}: nothing was synced. {USAGE}."
    if scope != "global" and not in_guild:
        return f"`sync {scope}` works only in a server channel: nothing was synced."
    return None


class AdminCog(commands.Cog):
    """The owner's ``sync`` mention command."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @commands.command(name="sync", hidden=True)
    @commands.is_owner()
    async def sync(self, ctx: commands.Context[Any], scope: str = "global", *extra: str) -> None:
        """Publish the slash commands: globally, to this server, or clear this server's copy."""
        tree = self.bot.tree
        scope = scope.lower()
        problem = refusal(" ".join((scope, *extra)) if extra else scope, ctx.guild is not None)
        if problem is not None:
            await ctx.reply(problem, mention_author=False)
            return
        if scope in ("here", "guild") and ctx.guild is not None:
            tree.copy_global_to(guild=ctx.guild)
            synced = await tree.sync(guild=ctx.guild)
            where = "this server"
        elif scope == "clear" and ctx.guild is not None:
            tree.clear_commands(guild=ctx.guild)
            synced = await tree.sync(guild=ctx.guild)
            where = "this server (cleared)"
        else:
            synced = await sync_global(self.bot)
            where = "every server (global; may take a while to appear)"
            service = getattr(self.bot, "service", None)
            if service is not None:  # the next start then knows these are published
                await _store_published_hash(self.bot, service.storage)
        log.info("owner %s synced %d command(s) to %s", ctx.author, len(synced), where)
        await ctx.reply(f"Synced {len(synced)} command(s) to {where}.", mention_author=False)

    async def cog_command_error(self, ctx: commands.Context[Any], error: Exception) -> None:
        if isinstance(error, commands.NotOwner):
            return  # stay silent for everyone but the owner
        log.error("sync failed: %r", error)
        await ctx.reply(f"Sync failed: {error}", mention_author=False)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(AdminCog(bot))
