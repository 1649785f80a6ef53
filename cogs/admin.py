"""Owner-only maintenance: ``@DurakBot sync`` publishes the slash commands.

The bot never syncs globally on start (Discord allows 200 command creates per day per guild and
global propagation is slow).  The owner mentions the bot once after an update::

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

import logging
from typing import Any

from discord.ext import commands

__all__ = ["AdminCog", "setup"]

log = logging.getLogger(__name__)


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
            synced = await tree.sync()
            where = "every server (global; may take a while to appear)"
        log.info("owner %s synced %d command(s) to %s", ctx.author, len(synced), where)
        await ctx.reply(f"Synced {len(synced)} command(s) to {where}.", mention_author=False)

    async def cog_command_error(self, ctx: commands.Context[Any], error: Exception) -> None:
        if isinstance(error, commands.NotOwner):
            return  # stay silent for everyone but the owner
        log.error("sync failed: %r", error)
        await ctx.reply(f"Sync failed: {error}", mention_author=False)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(AdminCog(bot))
