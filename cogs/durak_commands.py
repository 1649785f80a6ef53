"""The ``/durak`` cog: slash commands and the handlers of every button.

How a request flows
-------------------
Every interaction is acknowledged first (``defer``), then the service is called:

- slash commands defer *ephemerally* ("thinking…", visible to the caller only).  A refusal
  replaces that with a private explanation; a success that changes a public message (lobby,
  table) deletes it, since the public message is the answer; ``hand``, ``rules``, ``series``,
  ``stats``, ``leaderboard`` and ``history`` answer privately in it.
- a history's ◀ ▶ page buttons defer as an update of that (private) history and edit it;
  its **Replay** button defers ephemerally: the replay is a new private message; its
  ◀ ▶ ⏮ ⏭ buttons defer as an update of that message and edit it.
- buttons on a public message (lobby, table, game over) defer as an update (type 6): the
  presenter edits the public message; a refusal is a private followup.  "Show my hand" defers
  ephemerally and that new private message becomes the player's hand.
- buttons on a hand (ephemeral) defer as an update (type 6) of that hand: the press becomes the
  player's latest interaction, through which the presenter edits the hand from then on.

Refusals (:class:`bot.errors.ServiceError`, engine reasons) are always private messages in the
caller's language: slash-command errors through the tree's single error hook
(``bot.tree.error``), component errors through the same function.

The presenter is :class:`cogs.presenter.DiscordPresenter`; the buttons are the
``DynamicItem``s of :mod:`cogs.components`, which route every press here.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import Choice, locale_str
from discord.ext import commands

from bot.errors import BadOption, ConfirmForfeit, NoGame, NotManager, ServiceError, StaleAction
from bot.service import GameService, Unshowable
from bot.views import HandView
from cogs import render
from cogs.components import COG_NAME
from cogs.custom_ids import GameButton, HistoryButton, LobbyButton, ReplayButton
from cogs.i18n import (
    CHOICES,
    COMMANDS,
    CONFIG_OPTIONS,
    KICK_USER,
    OPTIONS,
    Catalog,
    catalog,
    pick_locale,
)
from cogs.presenter import DiscordPresenter, message_kwargs
from rules_engine import PROFILES, ActionKind, Rules, parse_action
from rules_engine.cards import Card, parse_card
from rules_engine.errors import DurakError
from rules_engine.messages import Message

__all__ = ["DurakCog"]

log = logging.getLogger(__name__)

AI_LEVELS = ("beginner", "casual", "counter", "expert")
RULE_PROFILES = ("podkidnoy", "perevodnoy", "classic")
THROW_IN = ("neighbours", "all")
SWITCH = ("on", "off", "default")
#: Interaction tokens live 15 minutes; a followup through an older one would fail.
TOKEN_LIFETIME = 14 * 60.0


#: The signature of ``CommandTree.on_error``.
ErrorHandler = Callable[
    [discord.Interaction[Any], app_commands.AppCommandError], Coroutine[Any, Any, None]
]


def _T(text: str) -> locale_str:
    return locale_str(text)


# ================================================================== the cog
def _choices(names: tuple[str, ...]) -> list[Choice[str]]:
    return [Choice(name=_T(CHOICES.get(n, n)), value=n) for n in names]


class DurakCog(commands.Cog, name=COG_NAME):
    """The ``/durak`` commands and the handlers of every button."""

    durak = app_commands.Group(name=_T("durak"), description=_T(COMMANDS["durak"]), guild_only=True)

    def __init__(self, bot: commands.Bot, service: GameService) -> None:
        self.bot = bot
        self.service = service
        self.presenter = DiscordPresenter(bot)
        self.presenter.on_hidden = self.on_hidden
        self.presenter.on_visible = self.on_visible
        self._previous_error_handler: ErrorHandler | None = None
        #: Each user's latest interaction per channel (to tell a host something privately).
        self._latest: dict[tuple[int, int], discord.Interaction[Any]] = {}

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
        """The catalogue of the language of the interaction's user (else its server's)."""
        self.presenter.remember_guild_locale(interaction.guild_id, interaction.guild_locale)
        guild_locale = interaction.guild_locale
        return catalog(
            pick_locale(
                str(interaction.locale.value), str(guild_locale.value) if guild_locale else None
            )
        )

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

    async def private(
        self, interaction: discord.Interaction[Any], message: render.Reply | str
    ) -> None:
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
        await self.private(interaction, render.render_error(message, t, names))

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
        return render.seat_names(table.seats, t)

    async def done(self, interaction: discord.Interaction[Any]) -> None:
        """A command whose answer is a public message: remove the private "thinking…"."""
        with contextlib.suppress(discord.HTTPException):
            await interaction.delete_original_response()

    async def answer(self, interaction: discord.Interaction[Any], message: render.Reply) -> None:
        """Fill the private deferred answer of a command with ``message``."""
        await interaction.edit_original_response(**message_kwargs(message, edit=True))

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

    async def defer_private(self, interaction: discord.Interaction[Any]) -> None:
        if not interaction.response.is_done():
            await interaction.response.defer(ephemeral=True, thinking=True)

    async def defer_update(self, interaction: discord.Interaction[Any]) -> None:
        if not interaction.response.is_done():
            await interaction.response.defer()

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        if interaction.guild_id is None or interaction.channel_id is None:
            raise app_commands.NoPrivateMessage()
        self.remember(interaction)
        return True

    def remember(self, interaction: discord.Interaction[Any]) -> None:
        """Keep ``interaction`` as its user's latest in its channel (see :meth:`on_hidden`)."""
        if interaction.channel_id is not None:
            self._latest[(interaction.channel_id, interaction.user.id)] = interaction

    # -- the bot's own permissions -----------------------------------------
    @staticmethod
    def missing_permissions(interaction: discord.Interaction[Any]) -> list[str]:
        """The channel permissions a game needs that the bot lacks where ``interaction`` was
        used (``interaction.app_permissions``), in :data:`render.NEEDED_PERMISSIONS` order."""
        perms = interaction.app_permissions
        in_thread = isinstance(interaction.channel, discord.Thread)
        missing = []
        for name, _ in render.NEEDED_PERMISSIONS:
            # in a thread, posting is Send Messages in Threads (named as Send Messages)
            granted = (
                perms.send_messages_in_threads
                if in_thread and name == "send_messages"
                else getattr(perms, name)
            )
            if not granted:
                missing.append(name)
        return missing

    async def on_hidden(self, channel_id: int, what: str, error: discord.HTTPException) -> None:
        """A public message of the channel could not be posted or edited (``what``:
        ``lobby``, ``table`` or ``notice``).  Nothing may stay invisible:

        - a lobby that cannot be posted is closed (the channel is free again);
        - a running game's timers are paused (nobody times out on a table they cannot see)
          until ``/durak table`` posts it again (:meth:`on_visible`) or the game is stopped;
        - the host is told privately when this closed the lobby or paused the game (so once
          per episode, whatever else fails meanwhile), in their language: through a
          followup of their latest interaction in the channel when it is younger than
          Discord's 15 minutes, else by a direct message (which may be closed: then only
          the log knows, and the paused game waits for anyone's ``/durak table``)."""
        outcome = await self.service.table_unshowable(channel_id, lobby=what == "lobby")
        if outcome.done is Unshowable.NOTHING:
            log.warning("channel %d: a public %s could not be posted: %s", channel_id, what, error)
            return
        subject, host = outcome.done.value, outcome.host_id
        if host is None:
            return
        if isinstance(error, discord.Forbidden):
            problem = "permissions"
        elif isinstance(error, discord.NotFound):
            problem = "gone"
        else:
            problem = "refused"
        await self.tell_privately(channel_id, host, subject, problem)

    async def tell_privately(
        self, channel_id: int, user_id: int, subject: str, problem: str
    ) -> None:
        """Tell ``user_id`` that the ``subject`` of the channel cannot be shown (see
        :meth:`on_hidden`)."""
        interaction = self._latest.get((channel_id, user_id))
        if interaction is not None:
            age = discord.utils.utcnow() - interaction.created_at
            if age.total_seconds() < TOKEN_LIFETIME:
                reply = render.render_hidden(subject, channel_id, problem, self.cat(interaction))
                try:
                    await interaction.followup.send(ephemeral=True, **message_kwargs(reply))
                    return
                except discord.HTTPException as exc:
                    log.info("could not tell user %d through an interaction: %s", user_id, exc)
        t = self.presenter.guild_catalog(None if interaction is None else interaction.guild_id)
        reply = render.render_hidden(subject, channel_id, problem, t)
        try:
            user = self.bot.get_user(user_id) or await self.bot.fetch_user(user_id)
            await user.send(**message_kwargs(reply))
        except discord.HTTPException as exc:
            log.warning(
                "could not tell user %d that channel %d is hidden: %s", user_id, channel_id, exc
            )

    async def on_visible(self, channel_id: int) -> None:
        """The channel's table could be posted again: resume a paused game."""
        await self.service.resume_timers(channel_id)

    # -- hands -------------------------------------------------------------
    async def open_hand(
        self,
        interaction: discord.Interaction[Any],
        *,
        page: int | None = None,
        selected: str | None = None,
    ) -> HandView:
        """Fetch the caller's hand and render it through ``interaction`` (acknowledged, with a
        private original response)."""
        assert interaction.channel_id is not None
        view = await self.service.hand(interaction.channel_id, interaction.user.id)
        await self.presenter.show_hand(
            interaction, view, self.cat(interaction), page=page, selected=selected
        )
        return view

    async def on_game_component(
        self, interaction: discord.Interaction[Any], button: GameButton
    ) -> None:
        channel_id = interaction.channel_id
        assert channel_id is not None
        self.remember(interaction)
        verb = button.verb
        user_id = interaction.user.id
        if verb == "hand":
            await self.defer_private(interaction)
            await self.open_hand(interaction, page=0)
            return
        if verb in ("stop", "keep"):  # the table's stop vote buttons
            await self.defer_update(interaction)
            if verb == "stop":
                await self.service.stop(
                    channel_id,
                    user_id,
                    manage_channel=self.manage(interaction),
                    game_id=button.game_id,
                )
            else:
                await self.service.keep_playing(channel_id, user_id, game_id=button.game_id)
            return
        if verb == "leave":  # the table's Leave button: confirm privately first
            await self.defer_private(interaction)
            await self.leave_or_confirm(interaction)
            return
        if verb == "forfeit":  # "Leave and forfeit" on that private confirmation
            await self.defer_update(interaction)
            await self.service.forfeit(channel_id, user_id, game_id=button.game_id)
            await self.answer(interaction, render.render_forfeited(self.cat(interaction)))
            return
        if verb in ("rematch", "endseries"):
            await self.defer_update(interaction)
            table = await self.service.table(channel_id)
            if table.game_id != button.game_id:
                raise StaleAction()
            if verb == "rematch":
                await self.service.rematch(
                    channel_id, user_id, manage_channel=self.manage(interaction)
                )
            else:
                await self.service.end_series(
                    channel_id, user_id, manage_channel=self.manage(interaction)
                )
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
                await self.refuse(interaction, StaleAction.default_message)
        elif verb == "page":
            await self.open_hand(interaction, page=int(button.argument or 0))
        elif verb == "why":
            await self._why(interaction, button)

    async def _act(
        self, interaction: discord.Interaction[Any], channel_id: int, button: GameButton
    ) -> None:
        user_id = interaction.user.id
        st = self.presenter.hand_state(channel_id, user_id, self.cat(interaction))
        st.interaction = interaction  # the pushed hand after this move lands on this press
        try:
            await self.service.act(
                channel_id, user_id, button.action, button.version, game_id=button.game_id
            )
        except ServiceError as exc:
            message = exc.message
            if isinstance(exc, StaleAction):
                with contextlib.suppress(ServiceError):
                    gone = await self._card_gone(channel_id, user_id, button)
                    if gone is not None:
                        message = Message("{card} is not in your hand", card=gone)
            await self.refuse(interaction, message)
            with contextlib.suppress(ServiceError):
                await self.open_hand(interaction)  # bring the current hand back
            return

    async def _card_gone(self, channel_id: int, user_id: int, button: GameButton) -> Card | None:
        """A card of the refused (stale) action that the player no longer holds, if any."""
        current = await self.service.hand(channel_id, user_id)
        if current.game_id != button.game_id:
            return None
        try:
            action = parse_action(f"0 {button.action}")
        except DurakError:
            return None
        cards = action.cards[1:] if action.kind is ActionKind.DEFEND else action.cards
        held = {c.card for c in current.cards}
        return next((card for card in cards if card not in held), None)

    async def _why(self, interaction: discord.Interaction[Any], button: GameButton) -> None:
        t = self.cat(interaction)
        view = await self.open_hand(interaction)
        text = button.argument or ""
        found = next((c for c in view.cards if c.text == text), None)
        if found is None:
            try:
                card: Card | str = parse_card(text)
            except DurakError:
                card = text
            await self.refuse(interaction, Message("{card} is not in your hand", card=card))
        elif found.reason is not None:
            names = await self.seat_names(interaction.channel_id, t)
            await self.private(interaction, render.render_why(found.card, found.reason, t, names))
        # a card that became playable meanwhile: the refreshed hand is the answer

    # -- replays ------------------------------------------------------------
    async def on_replay_component(
        self, interaction: discord.Interaction[Any], button: ReplayButton
    ) -> None:
        """A history's Replay button (a new private replay) or a replay's navigation (the
        replay message edited in place).  Replays are rebuilt from the stored game at every
        press, so a press after a restart works the same."""
        opening = button.nav == "open" or not self._source_is_private(interaction)
        if opening:
            await self.defer_private(interaction)
        else:
            await self.defer_update(interaction)
        assert interaction.guild_id is not None
        try:
            view = await self.service.replay(interaction.guild_id, button.game_id)
        except ServiceError:
            if opening:  # leave no "thinking…" behind the private refusal
                await self.done(interaction)
            raise
        reply = render.render_replay(view, button.frame, self.cat(interaction))
        await interaction.edit_original_response(**message_kwargs(reply, edit=True))

    async def on_history_component(
        self, interaction: discord.Interaction[Any], button: HistoryButton
    ) -> None:
        """A history's ◀ ▶ page buttons: the private history message shows that page."""
        if self._source_is_private(interaction):
            await self.defer_update(interaction)
        else:
            await self.defer_private(interaction)
        assert interaction.guild_id is not None
        view = await self.service.history(interaction.guild_id, button.user_id, button.page)
        reply = render.render_history(view, self.cat(interaction))
        await interaction.edit_original_response(**message_kwargs(reply, edit=True))

    # -- lobby components --------------------------------------------------
    async def on_lobby_component(
        self, interaction: discord.Interaction[Any], button: LobbyButton
    ) -> None:
        await self.defer_update(interaction)
        channel_id = interaction.channel_id
        assert channel_id is not None
        self.remember(interaction)
        if button.channel_id != channel_id:
            raise StaleAction()
        if interaction.message is not None and not self._source_is_private(interaction):
            self.presenter.adopt_lobby_message(channel_id, interaction.message.id)
        await self._lobby_action(interaction, button.action)

    async def _lobby_action(
        self, interaction: discord.Interaction[Any], action: str, level: str | None = None
    ) -> None:
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
                data: dict[str, Any] = dict(interaction.data or {})
                values = data.get("values") or []
                level = str(values[0]) if values else "casual"
            await svc.add_ai(channel_id, user_id, level, manage_channel=self.manage(interaction))
        elif action == "start":
            await svc.start(channel_id, user_id, manage_channel=self.manage(interaction))
        elif action == "stop":
            await svc.stop(channel_id, user_id, manage_channel=self.manage(interaction))

    # -- slash commands ----------------------------------------------------
    @durak.command(name=_T("new"), description=_T(COMMANDS["new"]))
    @app_commands.rename(
        rules=_T("rules"),
        transfer=_T("transfer"),
        throw_in=_T("throw_in"),
        first_round_limit=_T("first_round_limit"),
        turn_timeout=_T("turn_timeout"),
        seats=_T("seats"),
    )
    @app_commands.describe(
        rules=_T(OPTIONS["rules"]),
        transfer=_T(OPTIONS["transfer"]),
        throw_in=_T(OPTIONS["throw_in"]),
        first_round_limit=_T(OPTIONS["first_round_limit"]),
        turn_timeout=_T(OPTIONS["turn_timeout"]),
        seats=_T(OPTIONS["seats"]),
    )
    @app_commands.choices(  # type: ignore[misc]  # str and int choices
        rules=_choices(RULE_PROFILES),
        throw_in=_choices(THROW_IN),
        first_round_limit=[Choice(name="5", value=5), Choice(name="6", value=6)],
    )
    async def new(
        self,
        interaction: discord.Interaction[Any],
        rules: str | None = None,
        transfer: bool | None = None,
        throw_in: str | None = None,
        first_round_limit: int | None = None,
        turn_timeout: app_commands.Range[int, 15, 600] | None = None,
        seats: app_commands.Range[int, 2, 6] = 6,
    ) -> None:
        await self.defer_private(interaction)
        assert interaction.channel_id is not None and interaction.guild_id is not None
        missing = self.missing_permissions(interaction)
        if missing:  # the lobby would be invisible: open nothing, say what is missing
            t = self.cat(interaction)
            await self.answer(interaction, render.render_missing_permissions(missing, t))
            return
        options = {
            "rules": rules,
            "transfer": transfer,
            "throw_in": throw_in,
            "first_round_limit": first_round_limit,
            "turn_timeout": turn_timeout,
            "seats": seats,
        }
        channel = interaction.channel
        parent = channel.parent_id if isinstance(channel, discord.Thread) else None
        self.presenter.clear_hidden(interaction.channel_id)
        await self.service.open_lobby(
            interaction.channel_id,
            interaction.guild_id,
            interaction.user.id,
            self.name(interaction),
            options,
            parent_id=parent,
        )
        await self.done(interaction)

    @durak.command(name=_T("join"), description=_T(COMMANDS["join"]))
    async def join(self, interaction: discord.Interaction[Any]) -> None:
        await self.defer_private(interaction)
        await self._lobby_action(interaction, "join")
        await self.done(interaction)

    @durak.command(name=_T("leave"), description=_T(COMMANDS["leave"]))
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        await self.defer_private(interaction)
        await self.leave_or_confirm(interaction)

    async def leave_or_confirm(self, interaction: discord.Interaction[Any]) -> None:
        """Free the caller's lobby seat (the lobby message is the answer), or, in a running
        game, answer privately with the "Leave and forfeit" confirmation (the interaction is
        deferred privately)."""
        try:
            await self._lobby_action(interaction, "leave")
        except ConfirmForfeit as exc:
            game = int(exc.details["game_id"])
            reply = render.render_confirm_forfeit(game, exc.message, self.cat(interaction))
            await self.answer(interaction, reply)
            return
        await self.done(interaction)

    @durak.command(name=_T("kick"), description=_T(COMMANDS["kick"]))
    @app_commands.rename(user=_T("user"), seat=_T("seat"))
    @app_commands.describe(user=_T(KICK_USER), seat=_T(OPTIONS["seat"]))
    async def kick(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User | discord.Member | None = None,
        seat: app_commands.Range[int, 1, 6] | None = None,
    ) -> None:
        """Free a player's seat (``user``), or a seat by its number (``seat``: an AI seat)."""
        await self.defer_private(interaction)
        assert interaction.channel_id is not None
        await self.service.kick(
            interaction.channel_id,
            interaction.user.id,
            None if user is None else user.id,
            seat=None if seat is None else seat - 1,
            manage_channel=self.manage(interaction),
        )
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
        missing = self.missing_permissions(interaction)
        if missing:
            t = self.cat(interaction)
            await self.answer(interaction, render.render_missing_permissions(missing, t))
            return
        channel_id = interaction.channel_id
        await self.presenter.repost_table(view)
        if self.presenter.is_hidden(channel_id):  # Discord still refuses the table
            t = self.cat(interaction)
            await self.answer(interaction, render.render_hidden("table", channel_id, "refused", t))
            return
        # the table is posted: a game paused while it could not be shown goes on (the
        # presenter's on_visible did it already when it saw the channel come back)
        await self.service.resume_timers(channel_id)
        await self.done(interaction)

    @durak.command(name=_T("help"), description=_T(COMMANDS["help"]))
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        await self.defer_private(interaction)
        await self.answer(interaction, render.render_help(self.cat(interaction)))

    @durak.command(name=_T("config"), description=_T(COMMANDS["config"]))
    @app_commands.rename(
        profile=_T("profile"),
        transfer=_T("transfer"),
        throw_in=_T("throw_in"),
        first_round_limit=_T("first_round_limit"),
        turn_timeout=_T("turn_timeout"),
        add_channel=_T("add_channel"),
        remove_channel=_T("remove_channel"),
        count_ai_games=_T("count_ai_games"),
    )
    @app_commands.describe(
        profile=_T(CONFIG_OPTIONS["profile"]),
        transfer=_T(CONFIG_OPTIONS["transfer"]),
        throw_in=_T(CONFIG_OPTIONS["throw_in"]),
        first_round_limit=_T(CONFIG_OPTIONS["first_round_limit"]),
        turn_timeout=_T(CONFIG_OPTIONS["turn_timeout"]),
        add_channel=_T(OPTIONS["add_channel"]),
        remove_channel=_T(OPTIONS["remove_channel"]),
        count_ai_games=_T(OPTIONS["count_ai_games"]),
    )
    @app_commands.choices(
        profile=_choices(RULE_PROFILES),
        transfer=_choices(SWITCH),
        throw_in=_choices((*THROW_IN, "default")),
        first_round_limit=_choices(("5", "6", "default")),
    )
    async def config(
        self,
        interaction: discord.Interaction[Any],
        profile: str | None = None,
        transfer: str | None = None,
        throw_in: str | None = None,
        first_round_limit: str | None = None,
        turn_timeout: int | None = None,
        add_channel: discord.TextChannel | None = None,
        remove_channel: discord.TextChannel | None = None,
        count_ai_games: bool | None = None,
    ) -> None:
        """Show the server's settings, or change them (both need Manage Server; every value
        is checked, a refused one changes nothing)."""
        await self.defer_private(interaction)
        assert interaction.guild_id is not None
        t = self.cat(interaction)
        manage_guild = bool(interaction.permissions.manage_guild)
        if not manage_guild:
            raise NotManager()
        changes: dict[str, object] = {
            "profile": profile,
            "transfer": transfer,
            "throw_in": throw_in,
            "first_round_limit": first_round_limit,
            "turn_timeout": turn_timeout,
            "count_ai_games": count_ai_games,
            "add_channel": None if add_channel is None else add_channel.id,
            "remove_channel": None if remove_channel is None else remove_channel.id,
        }
        if all(v is None for v in changes.values()):
            config = await self.service.server_config(interaction.guild_id)
            await self.answer(interaction, render.render_config(config, t))
            return
        config = await self.service.set_server_config(
            interaction.guild_id,
            interaction.user.id,
            manage_guild=manage_guild,
            **{k: v for k, v in changes.items() if v is not None},
        )
        await self.answer(interaction, render.render_config(config, t, saved=True))

    @durak.command(name=_T("rules"), description=_T(COMMANDS["rules"]))
    @app_commands.rename(profile=_T("profile"))
    @app_commands.describe(profile=_T(OPTIONS["profile"]))
    @app_commands.choices(profile=_choices(RULE_PROFILES))
    async def rules(
        self, interaction: discord.Interaction[Any], profile: str | None = None
    ) -> None:
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
            rules = table.rules
        else:
            rules = lobby.rules
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
    async def stats(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User | discord.Member | None = None,
        profile: str | None = None,
    ) -> None:
        await self.defer_private(interaction)
        assert interaction.guild_id is not None
        who = user or interaction.user
        view = await self.service.stats(interaction.guild_id, who.id, profile)
        await self.answer(interaction, render.render_stats(view, self.cat(interaction)))

    @durak.command(name=_T("leaderboard"), description=_T(COMMANDS["leaderboard"]))
    @app_commands.rename(profile=_T("profile"), min_games=_T("min_games"), page=_T("page"))
    @app_commands.describe(
        profile=_T(OPTIONS["profile"]), min_games=_T(OPTIONS["min_games"]), page=_T(OPTIONS["page"])
    )
    @app_commands.choices(profile=_choices(RULE_PROFILES))
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        profile: str | None = None,
        min_games: app_commands.Range[int, 1, 10_000] = 5,
        page: app_commands.Range[int, 1, 10_000] = 1,
    ) -> None:
        await self.defer_private(interaction)
        assert interaction.guild_id is not None
        view = await self.service.leaderboard(interaction.guild_id, profile, min_games, page)
        await self.answer(interaction, render.render_leaderboard(view, self.cat(interaction)))

    @durak.command(name=_T("history"), description=_T(COMMANDS["history"]))
    @app_commands.rename(user=_T("user"), page=_T("page"))
    @app_commands.describe(user=_T(OPTIONS["user"]), page=_T(OPTIONS["page"]))
    async def history(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User | discord.Member | None = None,
        page: app_commands.Range[int, 1, 10_000] = 1,
    ) -> None:
        await self.defer_private(interaction)
        assert interaction.guild_id is not None
        view = await self.service.history(
            interaction.guild_id, None if user is None else user.id, page
        )
        await self.answer(interaction, render.render_history(view, self.cat(interaction)))
