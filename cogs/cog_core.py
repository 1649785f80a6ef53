"""What every part of the ``/durak`` cog shares: the ``/durak`` command group, the cog's state
and the ways to answer an interaction (defer it, answer privately, refuse in the user's
language).  The feature modules (:mod:`cogs.lobby_commands`, :mod:`cogs.play_commands`,
:mod:`cogs.fair_play_commands`, :mod:`cogs.records_commands`, :mod:`cogs.info_commands`,
:mod:`cogs.privacy_commands`)
subclass :class:`CogCore`; :class:`cogs.durak_commands.DurakCog` puts them together.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any, TypeVar

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.authority import MODERATOR, PLAYER, Authority
from bot.errors import BadOption, NoGame, ServiceError
from bot.service import GameService
from cogs.i18n import COMMANDS, OPTIONS, Catalog, catalog, pick_locale
from cogs.interactions import LatestInteractions
from cogs.presenter import DiscordPresenter, message_kwargs
from cogs.render.message import Reply
from cogs.render.notices import NEEDED_PERMISSIONS, THREAD_PERMISSIONS, render_error
from cogs.render.text import seat_names
from rules_engine.messages import Message

__all__ = ["CogCore", "durak", "options", "subcommand"]

log = logging.getLogger(__name__)


def _T(text: str) -> locale_str:
    """A command string for :class:`cogs.i18n.DurakTranslator` (English in the source)."""
    return locale_str(text)


_Command = TypeVar("_Command")


def options(*names: str, texts: Mapping[str, str] = OPTIONS) -> Callable[[_Command], _Command]:
    """Decorate a command: its options ``names`` are named after themselves and described by
    ``texts`` (English; both translated by :class:`cogs.i18n.DurakTranslator`)."""
    rename = app_commands.rename(**{name: _T(name) for name in names})
    describe = app_commands.describe(**{name: _T(texts[name]) for name in names})

    def decorate(command: _Command) -> _Command:
        return describe(rename(command))

    return decorate


#: The ``/durak`` group: every feature module adds its commands with ``@durak.command``.
durak = app_commands.Group(name=_T("durak"), description=_T(COMMANDS["durak"]), guild_only=True)


def subcommand(
    name: str,
) -> Callable[[Callable[..., Coroutine[Any, Any, None]]], app_commands.Command[Any, ..., None]]:
    """Decorate a method as ``/durak <name>``, described by :data:`cogs.i18n.COMMANDS`."""
    return durak.command(name=_T(name), description=_T(COMMANDS[name]))


class CogCore(commands.Cog):
    """The state and helpers the cog's feature modules share (set up by ``DurakCog``)."""

    bot: commands.Bot
    service: GameService
    presenter: DiscordPresenter
    #: Each user's latest interaction per channel (to tell a host something privately).
    latest: LatestInteractions
    #: Whether ``/durak play`` launches the Discord Activity (``DISCORD_CLIENT_ID`` and
    #: ``DISCORD_CLIENT_SECRET`` set, with the web table).
    activity: bool = False

    # -- who and where -----------------------------------------------------
    def cat(self, interaction: discord.Interaction[Any]) -> Catalog:
        """The catalogue of the language of the interaction's user (else its server's)."""
        self.presenter.remember_guild_locale(interaction.guild_id, interaction.guild_locale)
        guild_locale = interaction.guild_locale
        return catalog(
            pick_locale(
                str(interaction.locale.value), str(guild_locale.value) if guild_locale else None
            )
        )

    @staticmethod
    def authority(interaction: discord.Interaction[Any]) -> Authority:
        """Who the interaction's user acts as: a moderator with Manage Channel in the channel,
        else a player."""
        return MODERATOR if interaction.permissions.manage_channels else PLAYER

    @staticmethod
    def name(interaction: discord.Interaction[Any]) -> str:
        return interaction.user.display_name

    @staticmethod
    def source_is_private(interaction: discord.Interaction[Any]) -> bool:
        """Whether the pressed component is on a private (ephemeral) message."""
        message = interaction.message
        return message is not None and bool(message.flags.ephemeral)

    def remember(self, interaction: discord.Interaction[Any]) -> None:
        """Keep ``interaction`` as its user's latest in its channel (see ``tell_privately``)."""
        self.latest.remember(interaction)

    @staticmethod
    def missing_permissions(interaction: discord.Interaction[Any]) -> list[str]:
        """The channel permissions a game needs that the bot lacks where ``interaction`` was
        used (``interaction.app_permissions``), in :data:`NEEDED_PERMISSIONS` order; in a
        thread, :data:`THREAD_PERMISSIONS` (Send Messages in Threads, not Send Messages)."""
        perms = interaction.app_permissions
        in_thread = isinstance(interaction.channel, discord.Thread)
        needed = THREAD_PERMISSIONS if in_thread else NEEDED_PERMISSIONS
        return [name for name, _ in needed if not getattr(perms, name)]

    # -- acknowledging -----------------------------------------------------
    async def defer_private(self, interaction: discord.Interaction[Any]) -> None:
        """Acknowledge with a private "thinking…" that the answer replaces."""
        if not interaction.response.is_done():
            await interaction.response.defer(ephemeral=True, thinking=True)

    async def defer_update(self, interaction: discord.Interaction[Any]) -> None:
        """Acknowledge a press as an update of the pressed message."""
        if not interaction.response.is_done():
            await interaction.response.defer()

    async def defer_in_place(self, interaction: discord.Interaction[Any]) -> None:
        """A press that answers on a private message: update the pressed one if it is
        private, else (defensive: never on a public message) open a new private answer."""
        if self.source_is_private(interaction):
            await self.defer_update(interaction)
        else:
            await self.defer_private(interaction)

    # -- answering ---------------------------------------------------------
    async def private(self, interaction: discord.Interaction[Any], message: Reply | str) -> None:
        """Answer ``interaction`` with a message only its user sees."""
        kwargs = message_kwargs(message)
        try:
            if not interaction.response.is_done():
                await interaction.response.send_message(ephemeral=True, **kwargs)
            else:
                await interaction.followup.send(ephemeral=True, **kwargs)
        except discord.HTTPException as exc:
            log.warning("could not answer interaction %s privately: %s", interaction.id, exc)

    async def refuse(self, interaction: discord.Interaction[Any], message: Message) -> None:
        """Answer privately with a refusal in the user's language; ``Seat`` parameters are
        named after the channel's table, if there is one."""
        t = self.cat(interaction)
        names = await self.seat_names(interaction.channel_id, t)
        message = self.option_names(message, t)
        await self.private(interaction, render_error(message, t, names))

    @staticmethod
    def option_names(message: Message, t: Catalog) -> Message:
        """``message`` with a ``setting`` parameter (an option name, e.g. from a refused
        ``/durak config`` value) written as the reader's Discord shows that option."""
        setting = message.get("setting")
        if not isinstance(setting, str):
            return message
        params = dict(message.as_dict())
        params["setting"] = f"`{t.pgettext('cmd-name', setting)}`"
        return Message(message.key, **params)

    async def seat_names(self, channel_id: int | None, t: Catalog) -> list[str]:
        """The display names of the seats of the channel's game (none without a game)."""
        if channel_id is None:
            return []
        try:
            table = await self.service.table(channel_id)
        except ServiceError:
            return []
        return seat_names(table.seats, t)

    async def done(self, interaction: discord.Interaction[Any]) -> None:
        """A command whose answer is a public message: remove the private "thinking…"."""
        with contextlib.suppress(discord.HTTPException):
            await interaction.delete_original_response()

    async def answer(self, interaction: discord.Interaction[Any], message: Reply) -> None:
        """Fill the private deferred answer of a command with ``message``."""
        await interaction.edit_original_response(**message_kwargs(message, edit=True))

    # -- refusals and failures ---------------------------------------------
    @staticmethod
    def error_message(interaction: discord.Interaction[Any], error: BaseException) -> Message:
        """What to tell the user about ``error`` (an unexpected one is logged)."""
        if isinstance(error, app_commands.CommandInvokeError):
            error = error.original
        if isinstance(error, ServiceError):
            return error.message
        if isinstance(error, app_commands.NoPrivateMessage):
            return NoGame.default_message
        if isinstance(error, app_commands.TransformerError | app_commands.CheckFailure):
            return BadOption.default_message
        log.error("interaction %s failed", interaction.id, exc_info=error)
        return ServiceError.default_message

    async def on_tree_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        """The tree's one error hook: every refusal of a slash command, privately."""
        await self.refuse(interaction, self.error_message(interaction, error))

    async def run_component(
        self, interaction: discord.Interaction[Any], work: Awaitable[None]
    ) -> None:
        """Run a component handler; a refusal or failure is answered privately."""
        try:
            await work
        except Exception as exc:
            await self.refuse(interaction, self.error_message(interaction, exc))
