"""The ``/durak`` cog: slash commands, buttons and the Discord presenter.

How a request flows
-------------------
Every interaction is acknowledged first (``defer``), then the service is called:

- slash commands defer *ephemerally* ("thinking…", visible to the caller only).  A refusal
  replaces that with a private explanation; a success that changes a public message (lobby,
  table) deletes it, since the public message is the answer; ``hand``, ``rules``, ``series``,
  ``stats`` and ``leaderboard`` answer privately in it.
- buttons on a public message (lobby, table, game over) defer as an update (type 6): the
  presenter edits the public message; a refusal is a private followup.  "Show my hand" defers
  ephemerally and that new private message becomes the player's hand.
- buttons on a hand (ephemeral) defer as an update (type 6) of that hand: the press becomes the
  player's latest interaction, through which the presenter edits the hand from then on.

Refusals (:class:`bot.errors.ServiceError`, engine reasons) are always private messages in the
caller's language: slash-command errors through the tree's single error hook
(``bot.tree.error``), component errors through the same function.

The presenter (:class:`DiscordPresenter`)
-----------------------------------------
- the public **table** is sent and edited with the bot token through the channel (never an
  interaction token, which dies after 15 minutes), at most once per action: bursts of updates
  coalesce, identical renders are skipped.  It is re-posted (new message, the old one deleted)
  when a new round starts, when the game ends, on ``/durak table`` and after a restart; the last
  table of a finished game stays as history with its buttons removed once the next game starts.
- **hands** are pushed to their owners only, through each player's latest interaction
  (``edit_original_response`` of an ephemeral message); an expired or unknown token
  (401/50027, 404/10062/10015/10008) is dropped quietly and the next press brings the hand back.
- **lobby** messages are sent and edited through the channel; notices are short public messages.

Buttons are ``DynamicItem``s (:class:`GameComponent`, :class:`LobbyComponent`) matching the
custom ids of :mod:`cogs.custom_ids`, so they keep working on messages sent before a restart.
Messages are sent with views that are never stored by discord.py (they are stopped before
sending): every press is routed by the registered templates alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import Choice, locale_str
from discord.ext import commands

from bot.errors import BadOption, NoGame, ServiceError, StaleAction
from bot.presenter import NoticeKind
from bot.service import GameService
from bot.views import HandView, LobbyOptions, LobbyView, TableView
from cogs import render
from cogs.custom_ids import GAME_TEMPLATE, LOBBY_TEMPLATE, GameButton, LobbyButton
from cogs.i18n import CHOICES, COMMANDS, ERROR_DEFAULTS, OPTIONS, Catalog, catalog, pick_locale
from rules_engine import PROFILES, Rules

__all__ = [
    "DiscordPresenter",
    "DurakCog",
    "GameComponent",
    "LobbyComponent",
    "message_kwargs",
    "setup",
    "teardown",
]

log = logging.getLogger(__name__)

AI_LEVELS = ("beginner", "casual", "counter", "expert")
RULE_PROFILES = ("podkidnoy", "perevodnoy", "classic")
THROW_IN = ("neighbours", "all")
CARD_RE = re.compile(r"(?:10|[6-9JQKA])[♠♥♦♣]")

#: HTTP errors that mean "this interaction token (or its message) is gone": drop it quietly.
_GONE_CODES = {50027, 10062, 10015, 10008}


def _gone(exc: discord.HTTPException) -> bool:
    return exc.code in _GONE_CODES or exc.status == 401


def _T(text: str) -> locale_str:
    return locale_str(text)


# ================================================================== render → discord.py
def _style(value: Any) -> discord.ButtonStyle:
    if isinstance(value, discord.ButtonStyle):
        return value
    if isinstance(value, int):
        return discord.ButtonStyle(value)
    if isinstance(value, str):
        style = getattr(discord.ButtonStyle, value.lower(), None)
        if isinstance(style, discord.ButtonStyle):
            return style
    return discord.ButtonStyle.secondary


def _item(component: Any) -> discord.ui.Item[Any]:
    if hasattr(component, "options"):  # render.Select
        return discord.ui.Select(
            custom_id=component.custom_id,
            placeholder=getattr(component, "placeholder", None) or None,
            options=[
                discord.SelectOption(label=o.label, value=o.value,
                                     description=getattr(o, "description", None) or None)
                for o in component.options
            ],
            row=getattr(component, "row", None),
        )
    return discord.ui.Button(
        custom_id=component.custom_id,
        label=getattr(component, "label", None) or None,
        style=_style(getattr(component, "style", None)),
        disabled=bool(getattr(component, "disabled", False)),
        emoji=getattr(component, "emoji", None) or None,
        row=getattr(component, "row", None),
    )


def build_view(components: Any) -> discord.ui.View | None:
    """A ``ui.View`` of the rendered components, already stopped: discord.py sends it but never
    stores it, so presses are routed by the registered ``DynamicItem`` templates only (no
    per-message memory, no 15-minute expiry of ephemeral views)."""
    if not components:
        return None
    view = discord.ui.View(timeout=None)
    for component in components:
        view.add_item(_item(component))
    view.stop()
    return view


def message_kwargs(message: Any, *, edit: bool = False) -> dict[str, Any]:
    """``content``/``embeds``/``view`` keyword arguments for a rendered ``render.Message``.

    With ``edit=True`` every part is given, so that stale content, embeds or buttons of the
    previous version are removed."""
    if isinstance(message, str):
        message = render.Message(content=message)
    content = getattr(message, "content", None) or None
    embeds = [discord.Embed.from_dict(dict(e)) for e in getattr(message, "embeds", ()) or ()]
    view = build_view(getattr(message, "components", ()))
    kwargs: dict[str, Any] = {}
    if edit:
        kwargs.update(content=content, embeds=embeds, view=view)
        return kwargs
    if content is not None:
        kwargs["content"] = content
    if embeds:
        kwargs["embeds"] = embeds
    if view is not None:
        kwargs["view"] = view
    return kwargs


# ================================================================== small helpers
class _Coalescer:
    """Runs ``work()`` until no request arrived during the last run.

    A burst of :meth:`kick` calls costs one run in flight plus at most one more: ``work`` reads
    the newest state, so intermediate states are skipped.  The first caller does the work and
    returns when it is all done; callers arriving meanwhile return at once."""

    def __init__(self, work: Callable[[], Awaitable[None]], what: str) -> None:
        self._work = work
        self._what = what
        self._dirty = False
        self._busy = False

    async def kick(self) -> None:
        self._dirty = True
        if self._busy:
            return
        self._busy = True
        try:
            while self._dirty:
                self._dirty = False
                try:
                    await self._work()
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("updating %s failed", self._what)
        finally:
            self._busy = False


def _newer(a: tuple[int, int], b: tuple[int, int] | None) -> bool:
    return b is None or a >= b


@dataclass(eq=False)
class _TableState:
    channel_id: int
    guild_id: int
    runner: _Coalescer | None = None
    view: TableView | None = None
    message_id: int | None = None
    game_id: int | None = None
    round: int | None = None
    finished: bool = False
    repost: bool = False
    last: Any = None  # the render.Message last sent/edited


@dataclass(eq=False)
class _LobbyState:
    channel_id: int
    runner: _Coalescer | None = None
    view: LobbyView | None = None
    message_id: int | None = None
    last: Any = None


@dataclass(eq=False)
class _HandState:
    channel_id: int
    user_id: int
    cat: Catalog
    runner: _Coalescer | None = None
    interaction: discord.Interaction[Any] | None = None
    view: HandView | None = None
    page: int = 0
    selected: str | None = None
    last: tuple[int, Any] | None = None  # (interaction id, signature) last pushed
    key: tuple[int, int] | None = field(default=None)


# ================================================================== presenter
class DiscordPresenter:
    """Implements :class:`bot.presenter.Presenter` for Discord (see the module docstring)."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self._tables: dict[int, _TableState] = {}
        self._lobbies: dict[int, _LobbyState] = {}
        self._hands: dict[tuple[int, int], _HandState] = {}
        self._guild_locales: dict[int, str] = {}

    # -- languages ---------------------------------------------------------
    def remember_guild_locale(self, guild_id: int | None, locale: Any) -> None:
        if guild_id is not None and locale is not None:
            self._guild_locales[guild_id] = str(getattr(locale, "value", locale))

    def guild_catalog(self, guild_id: int | None) -> Catalog:
        locale: str | None = None
        if guild_id is not None:
            locale = self._guild_locales.get(guild_id)
            guild = self.bot.get_guild(guild_id)
            if locale is None and guild is not None:
                locale = str(guild.preferred_locale.value)
        return catalog(pick_locale(None, locale))

    def _channel(self, channel_id: int, guild_id: int | None) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id, guild_id=guild_id,
                                                type=discord.ChannelType.text)

    async def _ready(self) -> None:
        """Public posts wait for the gateway (restored games are announced from setup_hook,
        before the guilds, and their languages, are known)."""
        if not self.bot.is_ready():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.bot.wait_until_ready(), 60)

    # -- lobby -------------------------------------------------------------
    def _lobby_state(self, channel_id: int) -> _LobbyState:
        st = self._lobbies.get(channel_id)
        if st is None:
            st = self._lobbies[channel_id] = _LobbyState(channel_id)
            st.runner = _Coalescer(lambda: self._lobby_work(st), f"the lobby of {channel_id}")
        return st

    def adopt_lobby_message(self, channel_id: int, message_id: int) -> None:
        """A press on a lobby message we do not know (sent before a restart): edit that one."""
        st = self._lobby_state(channel_id)
        if st.message_id is None:
            st.message_id = message_id

    async def lobby_changed(self, view: LobbyView) -> None:
        st = self._lobby_state(view.channel_id)
        st.view = view
        await self._ready()
        assert st.runner is not None
        await st.runner.kick()

    async def _lobby_work(self, st: _LobbyState) -> None:
        view = st.view
        if view is None:
            return
        t = self.guild_catalog(view.guild_id)
        message = render.render_lobby(view, t)
        channel = self._channel(st.channel_id, view.guild_id)
        if view.status == "open":
            if st.message_id is not None:
                if message == st.last:
                    return
                try:
                    await channel.get_partial_message(st.message_id).edit(
                        **message_kwargs(message, edit=True))
                    st.last = message
                    return
                except discord.NotFound:
                    st.message_id = None
            sent = await channel.send(**message_kwargs(message))
            st.message_id, st.last = sent.id, message
            return
        # started or closed: the lobby message stays, without its buttons
        if st.message_id is not None:
            mid, st.message_id, st.last = st.message_id, None, None
            with contextlib.suppress(discord.NotFound):
                await channel.get_partial_message(mid).edit(**message_kwargs(message, edit=True))

    # -- table -------------------------------------------------------------
    def _table_state(self, channel_id: int, guild_id: int) -> _TableState:
        st = self._tables.get(channel_id)
        if st is None:
            st = self._tables[channel_id] = _TableState(channel_id, guild_id)
            st.runner = _Coalescer(lambda: self._table_work(st), f"the table of {channel_id}")
        return st

    async def table_changed(self, view: TableView) -> None:
        st = self._table_state(view.channel_id, view.guild_id)
        current = st.view
        if current is not None and (view.game_id, view.version) < (current.game_id,
                                                                    current.version):
            return  # an older view overtaken by a newer one
        st.view = view
        await self._ready()
        assert st.runner is not None
        await st.runner.kick()

    async def repost_table(self, view: TableView) -> None:
        """``/durak table``: post the table again at the bottom of the channel."""
        st = self._table_state(view.channel_id, view.guild_id)
        if st.view is None or (view.game_id, view.version) >= (st.view.game_id,
                                                                st.view.version):
            st.view = view
        st.repost = True
        assert st.runner is not None
        await st.runner.kick()

    async def _table_work(self, st: _TableState) -> None:
        view = st.view
        if view is None:
            return
        t = self.guild_catalog(view.guild_id)
        message = render.render_table(view, t)
        channel = self._channel(st.channel_id, view.guild_id)
        over = view.finished or view.aborted
        new_game = st.game_id != view.game_id
        repost = (
            st.message_id is None
            or st.repost
            or new_game
            or (view.round != st.round and not over)
            or (view.finished and not st.finished)
        )
        if not repost:
            if message == st.last:
                return
            try:
                await channel.get_partial_message(st.message_id).edit(  # type: ignore[arg-type]
                    **message_kwargs(message, edit=True))
                st.last = message
                st.finished = over
                return
            except discord.NotFound:
                st.message_id = None  # deleted by someone: post it again
            except discord.HTTPException as exc:
                if exc.code != 30046:  # edits of messages older than an hour are capped
                    raise
        st.repost = False
        old, old_game = st.message_id, st.game_id
        sent = await channel.send(**message_kwargs(message))
        st.message_id, st.game_id, st.round = sent.id, view.game_id, view.round
        st.finished, st.last = over, message
        if old is None:
            return
        previous = channel.get_partial_message(old)
        with contextlib.suppress(discord.HTTPException):
            if old_game == view.game_id:
                await previous.delete()  # the same game's older table: only the newest stays
            else:
                await previous.edit(view=None)  # a finished game's table stays as history

    async def game_over(self, view: TableView) -> None:
        # ``table_changed`` with the finished view re-posts the table with the result, the
        # series standings and the Rematch / End series buttons.
        await self.table_changed(view)

    async def _close_table(self, channel_id: int) -> None:
        """The series is over: remove the buttons of its last table."""
        st = self._tables.get(channel_id)
        if st is None or st.message_id is None:
            return
        mid, st.message_id, st.last = st.message_id, None, None
        st.view, st.game_id = None, None
        with contextlib.suppress(discord.HTTPException):
            await self._channel(channel_id, st.guild_id).get_partial_message(mid).edit(view=None)

    # -- notices -----------------------------------------------------------
    async def notice(self, channel_id: int, kind: NoticeKind, text: str, *,
                     user_id: int | None = None) -> None:
        await self._ready()
        st = self._tables.get(channel_id)
        guild_id = st.guild_id if st is not None else None
        if guild_id is None:
            channel = self.bot.get_channel(channel_id)
            guild_id = getattr(getattr(channel, "guild", None), "id", None)
        if kind == "series_ended":
            await self._close_table(channel_id)
        if kind in ("series_ended", "stopped"):
            self._forget_hands(channel_id)
        t = self.guild_catalog(guild_id)
        message = render.render_notice(kind, text, t)
        await self._channel(channel_id, guild_id).send(**message_kwargs(message))

    # -- hands -------------------------------------------------------------
    def _forget_hands(self, channel_id: int) -> None:
        """The channel's series is over: its players' hand states (and the interactions
        they hold) are no longer needed."""
        for key in [k for k in self._hands if k[0] == channel_id]:
            del self._hands[key]

    def hand_state(self, channel_id: int, user_id: int, cat: Catalog | None = None
                   ) -> _HandState:
        key = (channel_id, user_id)
        st = self._hands.get(key)
        if st is None:
            st = self._hands[key] = _HandState(channel_id, user_id, cat or catalog("en"))
            st.runner = _Coalescer(lambda: self._hand_work(st), f"the hand of {user_id}")
        elif cat is not None:
            st.cat = cat
        return st

    def _store_hand(self, st: _HandState, view: HandView) -> bool:
        """Keep ``view`` if it is not older than the one we have; a new state clears the
        selected card.  Returns whether it was kept."""
        key = (view.game_id, view.version)
        if not _newer(key, st.key):
            return False
        if key != st.key:
            st.selected = None
            if st.key is not None and st.key[0] != view.game_id:
                st.page = 0
        st.view, st.key = view, key
        return True

    async def hand_changed(self, channel_id: int, user_id: int, view: HandView) -> None:
        if view.user_id != user_id:  # never show a hand to anyone but its owner
            log.error("hand of user %d offered to user %d: dropped", view.user_id, user_id)
            return
        st = self.hand_state(channel_id, user_id)
        if not self._store_hand(st, view) or st.interaction is None:
            return
        assert st.runner is not None
        await st.runner.kick()

    async def show_hand(self, interaction: discord.Interaction[Any], view: HandView, cat: Catalog,
                        *, page: int | None = None, selected: str | None = None) -> None:
        """Make ``interaction`` (already acknowledged, its original response private to the
        hand's owner) the owner's latest, and render ``view`` through it, at ``page`` (None:
        the page shown last) with ``selected`` card's actions (None: the whole hand)."""
        if view.user_id != interaction.user.id:
            raise RuntimeError("a hand can only be shown to its owner")
        st = self.hand_state(view.channel_id, view.user_id, cat)
        st.interaction = interaction
        self._store_hand(st, view)
        if page is not None:
            st.page = max(0, page)
        st.selected = selected if st.key == (view.game_id, view.version) else None
        assert st.runner is not None
        await st.runner.kick()

    async def _hand_work(self, st: _HandState) -> None:
        interaction, view = st.interaction, st.view
        if interaction is None or view is None:
            return
        # A player who was not to act and still is not sees the same hand: skip the edit
        # (only the state version in its buttons would change; "why" and paging do not need
        # it, and every press fetches the current hand anyway).
        sig = _hand_signature(view, st.page, st.selected)
        if st.last is not None and st.last[0] == interaction.id and st.last[1] == sig \
                and not view.your_turn:
            return
        message = render.render_hand(view, st.cat, page=st.page, selected=st.selected)
        try:
            await interaction.edit_original_response(**message_kwargs(message, edit=True))
        except discord.HTTPException as exc:
            if not _gone(exc):
                raise
            log.debug("hand of user %d: interaction gone (%s %s), dropped", st.user_id,
                      exc.status, exc.code)
            if st.interaction is interaction:
                st.interaction = None
                st.last = None
            return
        st.last = (interaction.id, sig)


def _hand_signature(view: HandView, page: int, selected: str | None) -> tuple[Any, ...]:
    """What a hand shows, apart from the state version carried by its buttons."""
    return (view.game_id, tuple((c.text, c.reason is None) for c in view.cards),
            view.legal, view.your_turn, view.role, view.autopilot, view.finished,
            view.deadline, page, selected)


# ================================================================== dynamic items
def _cog(interaction: discord.Interaction[Any]) -> DurakCog | None:
    cog = interaction.client.get_cog("Durak")  # type: ignore[attr-defined]
    return cog if isinstance(cog, DurakCog) else None


async def _no_cog(interaction: discord.Interaction[Any]) -> None:
    t = catalog(pick_locale(str(interaction.locale), str(interaction.guild_locale or "")))
    text = t.gettext(ERROR_DEFAULTS["error"])
    with contextlib.suppress(discord.HTTPException):
        await interaction.response.send_message(
            ephemeral=True, **message_kwargs(render.render_error(text, t)))


class GameComponent(discord.ui.DynamicItem[discord.ui.Item[Any]], template=GAME_TEMPLATE):
    """Every game button or select: ``durak:<game_id>:<version>:<action>``."""

    def __init__(self, item: discord.ui.Item[Any], button: GameButton) -> None:
        super().__init__(item)
        self.button = button

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]
                             ) -> GameComponent:
        return cls(item, GameButton(int(match["game_id"]), int(match["version"]),
                                    match["action"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = _cog(interaction)
        if cog is None:
            await _no_cog(interaction)
            return
        await cog.run_component(interaction, cog.on_game_component(interaction, self.button))


class LobbyComponent(discord.ui.DynamicItem[discord.ui.Item[Any]], template=LOBBY_TEMPLATE):
    """Lobby buttons and the Add AI select: ``durak:lobby:<channel_id>:<action>``."""

    def __init__(self, item: discord.ui.Item[Any], button: LobbyButton) -> None:
        super().__init__(item)
        self.button = button

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]
                             ) -> LobbyComponent:
        return cls(item, LobbyButton(int(match["channel_id"]), match["action"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = _cog(interaction)
        if cog is None:
            await _no_cog(interaction)
            return
        await cog.run_component(interaction, cog.on_lobby_component(interaction, self.button))


# ================================================================== the cog
def _choices(names: tuple[str, ...]) -> list[Choice[str]]:
    return [Choice(name=_T(CHOICES.get(n, n)), value=n) for n in names]


def _rules_of_name(name: str) -> Rules | None:
    """The rules a ``rules_name`` of a view describes (a profile or ``custom (…)``)."""
    if name in PROFILES:
        return PROFILES[name]
    m = re.fullmatch(r"custom \(throw_in=(\w+), first_round_limit=(\d), transfer=(on|off)\)",
                     name)
    if m is None:
        return None
    return Rules(throw_in=m[1], first_round_limit=int(m[2]),  # type: ignore[arg-type]
                 transfer=m[3] == "on")


class DurakCog(commands.Cog, name="Durak"):
    """The ``/durak`` commands and the handlers of every button."""

    durak = app_commands.Group(name=_T("durak"), description=_T(COMMANDS["durak"]),
                               guild_only=True)

    def __init__(self, bot: commands.Bot, service: GameService) -> None:
        self.bot = bot
        self.service = service
        self.presenter = DiscordPresenter(bot)
        self._previous_error_handler: Any = None

    async def cog_load(self) -> None:
        self.service.add_presenter(self.presenter)
        self._previous_error_handler = self.bot.tree.on_error
        self.bot.tree.error(self.on_tree_error)

    async def cog_unload(self) -> None:
        self.service.remove_presenter(self.presenter)
        if self._previous_error_handler is not None:
            self.bot.tree.on_error = self._previous_error_handler  # type: ignore[method-assign]

    # -- shared helpers ----------------------------------------------------
    def cat(self, interaction: discord.Interaction[Any]) -> Catalog:
        self.presenter.remember_guild_locale(interaction.guild_id, interaction.guild_locale)
        guild_locale = interaction.guild_locale
        return catalog(pick_locale(str(interaction.locale.value),
                                   str(guild_locale.value) if guild_locale else None))

    @staticmethod
    def manage(interaction: discord.Interaction[Any]) -> bool:
        return bool(interaction.permissions.manage_channels)

    @staticmethod
    def name(interaction: discord.Interaction[Any]) -> str:
        return interaction.user.display_name

    @staticmethod
    def _source_is_private(interaction: discord.Interaction[Any]) -> bool:
        message = interaction.message
        return message is not None and bool(message.flags.ephemeral)

    async def private(self, interaction: discord.Interaction[Any], message: Any) -> None:
        """Answer ``interaction`` with a message only its user sees."""
        kwargs = message_kwargs(message)
        try:
            if not interaction.response.is_done():
                await interaction.response.send_message(ephemeral=True, **kwargs)
            else:
                await interaction.followup.send(ephemeral=True, **kwargs)
        except discord.HTTPException as exc:
            log.warning("could not answer interaction %s privately: %s", interaction.id, exc)

    async def refuse(self, interaction: discord.Interaction[Any], text: str) -> None:
        t = self.cat(interaction)
        await self.private(interaction, render.render_error(text, t))

    async def done(self, interaction: discord.Interaction[Any]) -> None:
        """A command whose answer is a public message: remove the private "thinking…"."""
        with contextlib.suppress(discord.HTTPException):
            await interaction.delete_original_response()

    async def answer(self, interaction: discord.Interaction[Any], message: Any) -> None:
        """Fill the private deferred answer of a command with ``message``."""
        await interaction.edit_original_response(**message_kwargs(message, edit=True))

    async def error_text(self, interaction: discord.Interaction[Any], error: BaseException
                         ) -> str:
        t = self.cat(interaction)
        if isinstance(error, app_commands.CommandInvokeError):
            error = error.original
        if isinstance(error, ServiceError):
            return t.error(error)
        if isinstance(error, app_commands.NoPrivateMessage):
            return t.error(NoGame())
        if isinstance(error, app_commands.TransformerError | app_commands.CheckFailure):
            return t.error(BadOption())
        log.error("interaction %s failed", interaction.id, exc_info=error)
        return t.gettext(ERROR_DEFAULTS["error"])

    async def on_tree_error(self, interaction: discord.Interaction[Any],
                            error: app_commands.AppCommandError) -> None:
        """The tree's one error hook: every refusal of a slash command, privately."""
        await self.refuse(interaction, await self.error_text(interaction, error))

    async def run_component(self, interaction: discord.Interaction[Any],
                            work: Awaitable[None]) -> None:
        """Run a component handler; a refusal or failure is answered privately."""
        try:
            await work
        except Exception as exc:
            await self.refuse(interaction, await self.error_text(interaction, exc))

    async def defer_private(self, interaction: discord.Interaction[Any]) -> None:
        if not interaction.response.is_done():
            await interaction.response.defer(ephemeral=True, thinking=True)

    async def defer_update(self, interaction: discord.Interaction[Any]) -> None:
        if not interaction.response.is_done():
            await interaction.response.defer()

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        if interaction.guild_id is None or interaction.channel_id is None:
            raise app_commands.NoPrivateMessage()
        return True

    # -- hands -------------------------------------------------------------
    async def open_hand(self, interaction: discord.Interaction[Any], *, page: int | None = None,
                        selected: str | None = None) -> HandView:
        """Fetch the caller's hand and render it through ``interaction`` (acknowledged, with a
        private original response)."""
        assert interaction.channel_id is not None
        view = await self.service.hand(interaction.channel_id, interaction.user.id)
        await self.presenter.show_hand(interaction, view, self.cat(interaction), page=page,
                                       selected=selected)
        return view

    async def on_game_component(self, interaction: discord.Interaction[Any],
                                button: GameButton) -> None:
        channel_id = interaction.channel_id
        assert channel_id is not None
        verb = button.verb
        user_id = interaction.user.id
        if verb == "hand":
            await self.defer_private(interaction)
            await self.open_hand(interaction, page=0)
            return
        if verb in ("rematch", "endseries"):
            await self.defer_update(interaction)
            table = await self.service.table(channel_id)
            if table.game_id != button.game_id:
                raise StaleAction()
            if verb == "rematch":
                await self.service.rematch(channel_id, user_id, manage_channel=self.manage(
                    interaction))
            else:
                await self.service.end_series(channel_id, user_id,
                                              manage_channel=self.manage(interaction))
            return
        # everything else belongs to a hand: answer on that (private) message
        if self._source_is_private(interaction):
            await self.defer_update(interaction)
        else:  # defensive: never render a hand on a public message
            await self.defer_private(interaction)
        if button.is_game_action:
            await self._act(interaction, channel_id, button)
        elif verb == "pick":
            view = await self.open_hand(interaction, selected=button.argument)
            if view.version != button.version:
                await self.refuse(interaction, self.cat(interaction).error(StaleAction()))
        elif verb == "page":
            await self.open_hand(interaction, page=int(button.argument or 0))
        elif verb == "why":
            await self._why(interaction, button)

    async def _act(self, interaction: discord.Interaction[Any], channel_id: int,
                   button: GameButton) -> None:
        user_id = interaction.user.id
        st = self.presenter.hand_state(channel_id, user_id, self.cat(interaction))
        st.interaction = interaction  # the pushed hand after this move lands on this press
        try:
            await self.service.act(channel_id, user_id, button.action, button.version,
                                   game_id=button.game_id)
        except ServiceError as exc:
            t = self.cat(interaction)
            text = t.error(exc)
            if isinstance(exc, StaleAction):
                with contextlib.suppress(ServiceError):
                    current = await self.service.hand(channel_id, user_id)
                    held = {c.text for c in current.cards}
                    cards = CARD_RE.findall(button.action)
                    if button.verb == "defend":
                        cards = cards[1:]  # the first is the attack it covers
                    gone = [c for c in cards if c not in held]
                    if gone and current.game_id == button.game_id:
                        text = t.reason(f"{gone[0]} is not in your hand")
            await self.refuse(interaction, text)
            with contextlib.suppress(ServiceError):
                await self.open_hand(interaction)  # bring the current hand back
            return

    async def _why(self, interaction: discord.Interaction[Any], button: GameButton) -> None:
        t = self.cat(interaction)
        view = await self.open_hand(interaction)
        card = button.argument or ""
        found = next((c for c in view.cards if c.text == card), None)
        if found is None:
            await self.refuse(interaction, t.reason(f"{card} is not in your hand"))
        elif found.reason is not None:
            await self.private(interaction, render.render_why(card, found.reason, t))
        # a card that became playable meanwhile: the refreshed hand is the answer

    # -- lobby components --------------------------------------------------
    async def on_lobby_component(self, interaction: discord.Interaction[Any],
                                 button: LobbyButton) -> None:
        await self.defer_update(interaction)
        channel_id = interaction.channel_id
        assert channel_id is not None
        if button.channel_id != channel_id:
            raise StaleAction()
        if interaction.message is not None and not self._source_is_private(interaction):
            self.presenter.adopt_lobby_message(channel_id, interaction.message.id)
        await self._lobby_action(interaction, button.action)

    async def _lobby_action(self, interaction: discord.Interaction[Any], action: str,
                            level: str | None = None) -> None:
        svc = self.service
        channel_id = interaction.channel_id
        assert channel_id is not None
        user_id = interaction.user.id
        if action == "join":
            await svc.join(channel_id, user_id, self.name(interaction))
        elif action == "leave":
            await svc.leave(channel_id, user_id)
        elif action == "addai":
            if level is None:
                data: dict[str, Any] = dict(interaction.data or {})  # type: ignore[arg-type]
                values = data.get("values") or []
                level = str(values[0]) if values else "casual"
            await svc.add_ai(channel_id, user_id, level, manage_channel=self.manage(interaction))
        elif action == "start":
            await svc.start(channel_id, user_id, manage_channel=self.manage(interaction))
        elif action == "stop":
            await svc.stop(channel_id, user_id, manage_channel=self.manage(interaction))

    # -- slash commands ----------------------------------------------------
    @durak.command(name=_T("new"), description=_T(COMMANDS["new"]))
    @app_commands.rename(rules=_T("rules"), transfer=_T("transfer"), throw_in=_T("throw_in"),
                         first_round_limit=_T("first_round_limit"),
                         turn_timeout=_T("turn_timeout"), seats=_T("seats"))
    @app_commands.describe(rules=_T(OPTIONS["rules"]), transfer=_T(OPTIONS["transfer"]),
                           throw_in=_T(OPTIONS["throw_in"]),
                           first_round_limit=_T(OPTIONS["first_round_limit"]),
                           turn_timeout=_T(OPTIONS["turn_timeout"]), seats=_T(OPTIONS["seats"]))
    @app_commands.choices(  # type: ignore[misc]  # str and int choices
        rules=_choices(RULE_PROFILES),
        throw_in=_choices(THROW_IN),
        first_round_limit=[Choice(name="5", value=5), Choice(name="6", value=6)],
    )
    async def new(
        self,
        interaction: discord.Interaction[Any],
        rules: str = "podkidnoy",
        transfer: bool | None = None,
        throw_in: str | None = None,
        first_round_limit: int | None = None,
        turn_timeout: app_commands.Range[int, 15, 600] | None = None,
        seats: app_commands.Range[int, 2, 6] = 6,
    ) -> None:
        await self.defer_private(interaction)
        assert interaction.channel_id is not None and interaction.guild_id is not None
        options = LobbyOptions(rules=rules, transfer=transfer, throw_in=throw_in,
                               first_round_limit=first_round_limit, turn_timeout=turn_timeout,
                               seats=seats)
        await self.service.open_lobby(interaction.channel_id, interaction.guild_id,
                                      interaction.user.id, self.name(interaction), options)
        await self.done(interaction)

    @durak.command(name=_T("join"), description=_T(COMMANDS["join"]))
    async def join(self, interaction: discord.Interaction[Any]) -> None:
        await self.defer_private(interaction)
        await self._lobby_action(interaction, "join")
        await self.done(interaction)

    @durak.command(name=_T("leave"), description=_T(COMMANDS["leave"]))
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        await self.defer_private(interaction)
        await self._lobby_action(interaction, "leave")
        await self.done(interaction)

    @durak.command(name=_T("addbot"), description=_T(COMMANDS["addbot"]))
    @app_commands.rename(level=_T("level"))
    @app_commands.describe(level=_T(OPTIONS["level"]))
    @app_commands.choices(level=_choices(AI_LEVELS))
    async def addbot(self, interaction: discord.Interaction[Any], level: str = "casual") -> None:
        await self.defer_private(interaction)
        await self._lobby_action(interaction, "addai", level)
        await self.done(interaction)

    @durak.command(name=_T("start"), description=_T(COMMANDS["start"]))
    async def start(self, interaction: discord.Interaction[Any]) -> None:
        await self.defer_private(interaction)
        await self._lobby_action(interaction, "start")
        await self.done(interaction)

    @durak.command(name=_T("stop"), description=_T(COMMANDS["stop"]))
    async def stop(self, interaction: discord.Interaction[Any]) -> None:
        await self.defer_private(interaction)
        await self._lobby_action(interaction, "stop")
        await self.done(interaction)

    @durak.command(name=_T("hand"), description=_T(COMMANDS["hand"]))
    async def hand(self, interaction: discord.Interaction[Any]) -> None:
        await self.defer_private(interaction)
        await self.open_hand(interaction, page=0)

    @durak.command(name=_T("table"), description=_T(COMMANDS["table"]))
    async def table(self, interaction: discord.Interaction[Any]) -> None:
        await self.defer_private(interaction)
        assert interaction.channel_id is not None
        view = await self.service.table(interaction.channel_id)
        await self.presenter.repost_table(view)
        await self.done(interaction)

    @durak.command(name=_T("rules"), description=_T(COMMANDS["rules"]))
    @app_commands.rename(profile=_T("profile"))
    @app_commands.describe(profile=_T(OPTIONS["profile"]))
    @app_commands.choices(profile=_choices(RULE_PROFILES))
    async def rules(self, interaction: discord.Interaction[Any],
                    profile: str | None = None) -> None:
        await self.defer_private(interaction)
        assert interaction.channel_id is not None
        t = self.cat(interaction)
        name: str | None
        rules: dict[str, Any] | None
        if profile is not None:
            name, rules = profile, PROFILES[profile].to_dict()
        else:
            name, rules = await self._active_rules(interaction.channel_id)
        await self.answer(interaction, render.render_rules(name, rules, t))

    async def _active_rules(self, channel_id: int) -> tuple[str | None, dict[str, Any] | None]:
        """(profile name or None for custom options, options) of this channel's lobby or
        game; (None, None) when there is neither (the answer then lists the profiles)."""
        svc = self.service
        rules: Rules | None
        try:
            lobby = await svc.lobby(channel_id)
        except ServiceError:
            try:
                table = await svc.table(channel_id)
            except ServiceError:
                return None, None
            rules = _rules_of_name(table.rules_name)
        else:
            rules = Rules(throw_in=lobby.throw_in,  # type: ignore[arg-type]
                          first_round_limit=lobby.first_round_limit, transfer=lobby.transfer)
        if rules is None:
            return None, None
        return rules.profile, rules.to_dict()

    @durak.command(name=_T("series"), description=_T(COMMANDS["series"]))
    async def series(self, interaction: discord.Interaction[Any]) -> None:
        await self.defer_private(interaction)
        assert interaction.channel_id is not None
        view = await self.service.series(interaction.channel_id)
        await self.answer(interaction, render.render_series(view, self.cat(interaction)))

    @durak.command(name=_T("stats"), description=_T(COMMANDS["stats"]))
    @app_commands.rename(user=_T("user"), profile=_T("profile"))
    @app_commands.describe(user=_T(OPTIONS["user"]), profile=_T(OPTIONS["profile"]))
    @app_commands.choices(profile=_choices(RULE_PROFILES))
    async def stats(self, interaction: discord.Interaction[Any],
                    user: discord.User | discord.Member | None = None,
                    profile: str | None = None) -> None:
        await self.defer_private(interaction)
        assert interaction.guild_id is not None
        who = user or interaction.user
        view = await self.service.stats(interaction.guild_id, who.id, profile)
        await self.answer(interaction, render.render_stats(view, self.cat(interaction)))

    @durak.command(name=_T("leaderboard"), description=_T(COMMANDS["leaderboard"]))
    @app_commands.rename(profile=_T("profile"), min_games=_T("min_games"), page=_T("page"))
    @app_commands.describe(profile=_T(OPTIONS["profile"]), min_games=_T(OPTIONS["min_games"]),
                           page=_T(OPTIONS["page"]))
    @app_commands.choices(profile=_choices(RULE_PROFILES))
    async def leaderboard(self, interaction: discord.Interaction[Any],
                          profile: str | None = None,
                          min_games: app_commands.Range[int, 1, 10_000] = 1,
                          page: app_commands.Range[int, 1, 10_000] = 1) -> None:
        await self.defer_private(interaction)
        assert interaction.guild_id is not None
        view = await self.service.leaderboard(interaction.guild_id, profile, min_games, page)
        await self.answer(interaction, render.render_leaderboard(view, self.cat(interaction)))


# ================================================================== extension
async def setup(bot: commands.Bot) -> None:
    service: GameService | None = getattr(bot, "service", None)
    if service is None:
        raise RuntimeError("cogs.durak needs bot.service (build the bot with create_bot)")
    await bot.add_cog(DurakCog(bot, service))
    bot.add_dynamic_items(GameComponent, LobbyComponent)


async def teardown(bot: commands.Bot) -> None:
    bot.remove_dynamic_items(GameComponent, LobbyComponent)
