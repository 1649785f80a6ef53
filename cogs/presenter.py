"""The Discord presenter: public lobby and table messages, private hands, notices.

It implements :class:`bot.presenter.Presenter` for Discord:

- the public **table** is written within Discord's bot-token budget (50 requests a second for
  the whole bot): a channel's table is written at most once per
  :attr:`DiscordPresenter.table_interval` (0.8 s; the first change after a quiet spell goes at
  once, the changes meanwhile are shown together, the newest wins), an edit that would change
  nothing is skipped, and an edit waiting out a 429 sends the newest table when discord.py
  retries it (:mod:`cogs.latest`).  It is posted as a followup of the channel's newest press
  on a public message acknowledged as an update (Start, Rematch, a vote:
  :meth:`DiscordPresenter.lend`; a press on a private hand lends none) and edited through
  that press's token for 14 minutes (:mod:`cogs.followups`, outside the bot token's budget);
  the next such press's token posts it again (the old message deleted).  With no young token,
  or when Discord refuses one, the bot token posts or edits it through the channel.  It is
  re-posted (new message, the old one deleted) on ``/durak table``, after a restart, and when
  a new round starts or the game ends if a message was posted below it since (the gateway
  tells of every public message); the last table of a finished game stays as history with its
  buttons removed once the next game starts.
- a press on a public message that is acknowledged as its update (lobby buttons, stop votes,
  rematch) lends its interaction token: the next edits of that message go through it (an
  interaction webhook, outside the bot token's budget) for 14 minutes, never the table's first
  post (an interaction token dies after 15 minutes; the bot token does not).
- **hands** are pushed to their owners only, through each player's latest interaction
  (``edit_original_response`` of an ephemeral message); an expired or unknown token
  (401/50027, 404/10062/10015/10008) is dropped quietly and the next press brings the hand back.
- **lobby** messages are sent and edited through the channel; notices are short public messages.
- a public post or edit that Discord refuses (missing permissions, channel gone, …) is never
  retried blindly: the channel is marked *hidden* and :attr:`DiscordPresenter.on_hidden` is
  called (the cog closes the lobby or pauses the game, and tells the host privately when it
  did either);
  the next table that can be posted calls :attr:`DiscordPresenter.on_visible`.
- when a channel's lobby is closed or its series is over (a ``stopped`` or ``series_ended``
  notice), its hands are forgotten and :attr:`DiscordPresenter.on_closed` is called.

:func:`message_kwargs` (:mod:`cogs.discord_message`) turns a rendered
:class:`cogs.render.message.Reply` into discord.py arguments.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import discord
from discord.ext import commands

from bot.presenter import Notice
from bot.realm import Realm
from bot.views import HandView, LobbyView, TableView
from cogs.coalescer import Coalescer
from cogs.discord_message import build_view, message_kwargs
from cogs.followups import TOKEN_LIFE, Lender, is_update_ack
from cogs.i18n import Catalog, catalog, pick_locale
from cogs.latest import LatestBody, payload_json, send_latest
from cogs.links import TableLinks
from cogs.presenter_state import HandState, LobbyState, TableState, hand_signature, newer
from cogs.render.hand import render_hand
from cogs.render.lobby import render_lobby
from cogs.render.message import Reply
from cogs.render.notices import render_notice
from cogs.render.table import render_table
from cogs.render.text import seat_names

__all__ = ["DiscordPresenter", "build_view", "message_kwargs"]  # the last two re-exported

log = logging.getLogger(__name__)

#: HTTP errors that mean "this interaction token (or its message) is gone": drop it quietly.
_GONE_CODES = {50027, 10062, 10015, 10008}


def _gone(exc: discord.HTTPException) -> bool:
    return exc.code in _GONE_CODES or exc.status == 401


#: Default :attr:`DiscordPresenter.table_interval`: a table shows a move within a second (the
#: pause, then the request itself), and costs at most about one bot-token request a second per
#: channel however fast the moves come.
TABLE_INTERVAL = 0.8

#: How long a press's token is used to edit the message it came from (Discord keeps an
#: interaction's token 15 minutes).
PRESS_TOKEN_LIFE = TOKEN_LIFE

#: Which public message of a channel could not be posted or edited.
Hidden = Literal["lobby", "table", "notice"]
#: ``on_hidden(channel_id, what, error)``: told of every refused post or edit.
HiddenHandler = Callable[[int, Hidden, discord.HTTPException], Awaitable[None]]
#: ``on_visible(channel_id)``: a table of a hidden channel was posted again.
VisibleHandler = Callable[[int], Awaitable[None]]
#: ``on_closed(channel_id)``: the channel's lobby was closed or its series is over.
ClosedHandler = Callable[[int], None]


class _Refused(Exception):
    """A public post or edit of a channel was refused (already reported to ``on_hidden``)."""


# ================================================================== small helpers
async def _kick(runner: Coalescer | None) -> None:
    """Ask a state's coalescer for a run (every state gets its coalescer when it is made)."""
    assert runner is not None
    await runner.kick()


async def _unless_refused(post: Awaitable[None]) -> None:
    """Await a public post or edit; a refusal was already reported to ``on_hidden``."""
    with contextlib.suppress(_Refused):
        await post


# ================================================================== presenter
class DiscordPresenter:
    """Implements :class:`bot.presenter.Presenter` for Discord (see the module docstring):
    it serves Discord servers only, and is never given a room's or a local game's events."""

    realms = frozenset({Realm.DISCORD})

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self._tables: dict[int, TableState] = {}
        self._lobbies: dict[int, LobbyState] = {}
        self._hands: dict[tuple[int, int], HandState] = {}
        self._guild_locales: dict[int, str] = {}
        #: Channels where a public post or edit was refused, and not posted since.
        self._hidden: set[int] = set()
        #: The newest public message id the gateway told of, per channel with a table.
        self._newest: dict[int, int] = {}
        #: Seconds between two writes of a channel's table (the changes between are shown
        #: together; the first change after a quiet spell goes at once).
        self.table_interval = TABLE_INTERVAL
        #: message id → (the latest press on it, acknowledged as its update; when its token
        #: stops being used), oldest first.
        self._presses: dict[int, tuple[discord.Interaction[Any], float]] = {}
        #: channel id → the newest press in it acknowledged as an update: its token posts and
        #: edits the channel's table (:mod:`cogs.followups`).
        self._lenders: dict[int, Lender] = {}
        self.on_hidden: HiddenHandler | None = None
        self.on_visible: VisibleHandler | None = None
        self.on_closed: ClosedHandler | None = None
        #: The web table's links (set when ``PUBLIC_URL`` is): hands get "Open the table",
        #: running tables "Watch".  ``None``: no link is ever rendered.
        self.links: TableLinks | None = None

    # -- visibility --------------------------------------------------------
    def is_hidden(self, channel_id: int) -> bool:
        """Whether the channel's last public post or edit was refused."""
        return channel_id in self._hidden

    def clear_hidden(self, channel_id: int) -> None:
        """Forget a refusal (a new lobby or ``/durak table`` tries again and reports anew)."""
        self._hidden.discard(channel_id)

    async def _public(self, channel_id: int, what: Hidden, call: Awaitable[Any]) -> Any:
        """Await a public post or edit of ``channel_id``; a refusal other than a gone message
        marks the channel hidden, tells ``on_hidden`` and raises :class:`_Refused`."""
        try:
            return await call
        except discord.NotFound as exc:
            if exc.code == 10008 and what != "notice":  # the message was deleted: callers
                raise  # post a new one
            error: discord.HTTPException = exc
        except discord.HTTPException as exc:
            if exc.code == 30046:  # old-message edit cap: callers post a new message
                raise
            error = exc
        log.warning("channel %d: public %s refused: %s", channel_id, what, error)
        self._hidden.add(channel_id)
        if self.on_hidden is not None:
            try:
                await self.on_hidden(channel_id, what, error)
            except Exception:
                log.exception("on_hidden failed for channel %d", channel_id)
        raise _Refused() from error

    async def _shown(self, channel_id: int) -> None:
        """A table of ``channel_id`` was posted: it is visible again."""
        if channel_id in self._hidden:
            self._hidden.discard(channel_id)
            if self.on_visible is not None:
                await self.on_visible(channel_id)

    # -- languages ---------------------------------------------------------
    def remember_guild_locale(self, guild_id: int | None, locale: discord.Locale | None) -> None:
        """Remember a server's language, as seen on an interaction from it."""
        if guild_id is not None and locale is not None:
            self._guild_locales[guild_id] = locale.value

    def guild_catalog(self, guild_id: int | None) -> Catalog:
        locale: str | None = None
        if guild_id is not None:
            locale = self._guild_locales.get(guild_id)
            guild = self.bot.get_guild(guild_id)
            if locale is None and guild is not None:
                locale = str(guild.preferred_locale.value)
        return catalog(pick_locale(None, locale))

    def _channel(self, channel_id: int, guild_id: int | None) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(
            channel_id, guild_id=guild_id, type=discord.ChannelType.text
        )

    async def _ready(self) -> None:
        """Public posts wait for the gateway (restored games are announced from setup_hook,
        before the guilds, and their languages, are known)."""
        if not self.bot.is_ready():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.bot.wait_until_ready(), 60)

    # -- presses on public messages -----------------------------------------
    def pressed(self, interaction: discord.Interaction[Any]) -> None:
        """``interaction`` is a press on a public message (the lobby, the table), already
        acknowledged as an update of it: until its token expires, the next edits of that
        message go through it (an interaction webhook, outside the bot token's budget)."""
        message = interaction.message
        if message is None:
            return
        now = asyncio.get_running_loop().time()
        while self._presses:  # drop the expired ones (the oldest come first)
            oldest = next(iter(self._presses))
            if self._presses[oldest][1] > now:
                break
            del self._presses[oldest]
        self._presses.pop(message.id, None)
        self._presses[message.id] = (interaction, now + PRESS_TOKEN_LIFE)

    def lend(self, interaction: discord.Interaction[Any]) -> None:
        """``interaction`` is a press on a public message acknowledged as an update (Start,
        Rematch, a vote): its token may write the channel's table from now on."""
        if interaction.channel_id is not None and is_update_ack(interaction):
            self._lenders[interaction.channel_id] = Lender.of(interaction)

    def _lender(self, channel_id: int) -> Lender | None:
        """The channel's newest press whose token is still young (none while the channel is
        hidden: only the bot token tells whether the channel can be shown again)."""
        if channel_id in self._hidden:
            return None
        lender = self._lenders.get(channel_id)
        if lender is not None and not lender.valid:
            del self._lenders[channel_id]
            return None
        return lender

    def _refused_lender(self, channel_id: int, lender: Lender, exc: Exception) -> None:
        """Discord refused a write through ``lender``'s token: it is not used again."""
        log.debug("channel %d: a write through a press's token refused (%s)", channel_id, exc)
        if self._lenders.get(channel_id) is lender:
            del self._lenders[channel_id]

    async def _edit_by_press(self, message_id: int, message: Reply) -> bool:
        """Edit ``message_id`` to ``message`` through the latest press on it, if its token is
        still young; False when there is none or Discord refused (the caller uses the bot
        token)."""
        found = self._presses.get(message_id)
        if found is None:
            return False
        interaction, until = found
        if until <= asyncio.get_running_loop().time():
            del self._presses[message_id]
            return False
        try:
            await interaction.edit_original_response(**message_kwargs(message, edit=True))
        except discord.HTTPException as exc:
            log.debug("message %d: edit through a press refused (%s)", message_id, exc)
            self._presses.pop(message_id, None)
            return False
        return True

    # -- lobby -------------------------------------------------------------
    def _lobby_state(self, channel_id: int) -> LobbyState:
        st = self._lobbies.get(channel_id)
        if st is None:
            st = self._lobbies[channel_id] = LobbyState(channel_id)
            st.runner = Coalescer(
                lambda: _unless_refused(self._lobby_post(st)), f"the lobby of {channel_id}"
            )
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
        await _kick(st.runner)

    async def _lobby_post(self, st: LobbyState) -> None:
        view = st.view
        if view is None:
            return
        message = render_lobby(view, self.guild_catalog(view.guild_id))
        channel = self._channel(st.channel_id, view.guild_id)
        if view.status == "open":
            if st.message_id is not None:
                if message == st.last:
                    return
                if await self._edit_by_press(st.message_id, message):
                    st.last = message
                    return
                try:
                    await self._public(
                        st.channel_id,
                        "lobby",
                        channel.get_partial_message(st.message_id).edit(
                            **message_kwargs(message, edit=True)
                        ),
                    )
                    st.last = message
                    return
                except discord.NotFound:
                    st.message_id = None
            sent = await self._public(
                st.channel_id, "lobby", channel.send(**message_kwargs(message))
            )
            st.message_id, st.last = sent.id, message
            return
        # started or closed: the lobby message stays, without its buttons
        if st.message_id is not None:
            mid, st.message_id, st.last = st.message_id, None, None
            if await self._edit_by_press(mid, message):
                return
            with contextlib.suppress(discord.HTTPException):
                await channel.get_partial_message(mid).edit(**message_kwargs(message, edit=True))

    # -- table -------------------------------------------------------------
    def _table_state(self, channel_id: int, guild_id: int) -> TableState:
        st = self._tables.get(channel_id)
        if st is None:
            st = self._tables[channel_id] = TableState(channel_id, guild_id)
            st.runner = Coalescer(
                lambda: _unless_refused(self._table_post(st)), f"the table of {channel_id}"
            )
        return st

    async def table_changed(self, view: TableView) -> None:
        st = self._table_state(view.channel_id, view.guild_id)
        current = st.view
        if current is not None and (view.game_id, view.version) < (
            current.game_id,
            current.version,
        ):
            return  # an older view overtaken by a newer one
        st.view = view
        editing = st.editing
        if editing is not None and not self._needs_post(st, view):
            # an edit waiting out a rate limit sends this newer table when it goes
            message = self._render_table(view)
            editing.update((view, message), self._payload(message, edit=True))
        await self._ready()
        await _kick(st.runner)

    async def repost_table(self, view: TableView) -> None:
        """``/durak table``: post the table again at the bottom of the channel."""
        st = self._table_state(view.channel_id, view.guild_id)
        if st.view is None or (view.game_id, view.version) >= (st.view.game_id, st.view.version):
            st.view = view
        st.repost = True
        await _kick(st.runner)

    def _payload(self, message: Reply, *, edit: bool) -> str:
        """``message`` as the JSON body of a post or edit (:mod:`cogs.latest`)."""
        return payload_json(message_kwargs(message, edit=edit), self.bot.allowed_mentions)

    def _render_table(self, view: TableView) -> Reply:
        watch = self.links.watcher(view.channel_id) if self.links is not None else None
        return render_table(view, self.guild_catalog(view.guild_id), watch=watch)

    def _needs_post(self, st: TableState, view: TableView) -> bool:
        """Whether ``view`` goes in a new table message rather than an edit: the first table,
        ``/durak table``, a new game; a new round or the game's end when another message was
        posted below the table since (so the table stays at the bottom of the channel)."""
        if st.message_id is None or st.repost or st.game_id != view.game_id:
            return True
        over = view.outcome is not None
        played_out = view.outcome is not None and view.outcome.finished
        moved_on = (view.round != st.round and not over) or (played_out and not st.finished)
        return moved_on and not self._at_bottom(st)

    def _at_bottom(self, st: TableState) -> bool:
        """The table is known to be the channel's newest message: the gateway told of its
        creation and of no message after it."""
        return st.message_id is not None and self._newest.get(st.channel_id) == st.message_id

    def saw_message(self, channel_id: int, message_id: int) -> None:
        """The gateway told of a new public message in ``channel_id`` (kept for the channels
        with a table only)."""
        if channel_id in self._tables and message_id > self._newest.get(channel_id, 0):
            self._newest[channel_id] = message_id

    async def _pace(self, st: TableState) -> None:
        """Wait until :attr:`table_interval` has passed since the table's last write: the
        changes arriving meanwhile are shown together, by the next write (the newest wins)."""
        wait = st.written_at + self.table_interval - asyncio.get_running_loop().time()
        if wait > 0:
            await asyncio.sleep(wait)

    async def _table_post(self, st: TableState) -> None:
        view = st.view
        if view is None:
            return
        if not self._needs_post(st, view) and self._render_table(view) == st.last:
            return  # an edit that would change nothing
        await self._pace(st)
        try:
            await self._table_write(st)
        finally:
            st.written_at = asyncio.get_running_loop().time()

    async def _table_write(self, st: TableState) -> None:
        view = st.view  # the newest, after the pause
        assert view is not None
        message = self._render_table(view)
        channel = self._channel(st.channel_id, view.guild_id)
        if not self._needs_post(st, view) and not self._token_moves(st):
            if message == st.last:
                return
            if st.message_id is not None and await self._edit_by_press(st.message_id, message):
                st.last, st.finished, st.round = message, view.outcome is not None, view.round
                await self._shown(st.channel_id)
                return
            body = LatestBody((view, message), self._payload(message, edit=True))
            route = discord.http.Route(
                "PATCH",
                "/channels/{channel_id}/messages/{message_id}",
                channel_id=st.channel_id,
                message_id=st.message_id,
            )
            st.editing = body
            try:
                if await self._edit_by_owner(st, body):
                    sent_view, st.last = body.current if body.sent is None else body.sent
                    st.finished, st.round = sent_view.outcome is not None, sent_view.round
                    await self._shown(st.channel_id)
                    return
                await self._public(st.channel_id, "table", send_latest(self.bot.http, route, body))
                sent_view, st.last = body.current if body.sent is None else body.sent
                st.finished, st.round = sent_view.outcome is not None, sent_view.round
                await self._shown(st.channel_id)
                return
            except discord.NotFound:
                st.message_id = None  # deleted by someone: post it again
            except discord.HTTPException as exc:
                if exc.code != 30046:  # edits of messages older than an hour are capped
                    raise
            finally:
                st.editing = None
        st.repost = False
        old, old_game, old_owner = st.message_id, st.game_id, st.owner
        body = LatestBody((view, message), self._payload(message, edit=False))
        sent = await self._post_by_lender(st, body)
        if sent is None:
            route = discord.http.Route(
                "POST", "/channels/{channel_id}/messages", channel_id=st.channel_id
            )
            sent = await self._public(
                st.channel_id, "table", send_latest(self.bot.http, route, body)
            )
            st.owner = None
        sent_view, sent_message = body.current if body.sent is None else body.sent
        st.message_id, st.game_id, st.round = int(sent["id"]), sent_view.game_id, sent_view.round
        st.finished, st.last = sent_view.outcome is not None, sent_message
        await self._shown(st.channel_id)
        if old is None:
            return
        # the same game's older table: only the newest stays; a finished game's table stays
        # as history, without its buttons
        await self._retire(channel, old, old_owner, delete=old_game == sent_view.game_id)

    def _token_moves(self, st: TableState) -> bool:
        """Whether the table goes in a new message posted through a press's token: its
        message was posted by the bot token or by a token now too old, and a young one is at
        hand (the old message is deleted)."""
        if st.message_id is None or (st.owner is not None and st.owner.valid):
            return False
        return self._lender(st.channel_id) is not None

    async def _edit_by_owner(
        self, st: TableState, body: LatestBody[tuple[TableView, Reply]]
    ) -> bool:
        """Edit the table through the token that posted it, if it is still young; False when
        there is none or Discord refused (then it is not used again: the bot token edits)."""
        owner = st.owner
        if owner is None or st.message_id is None or not owner.valid:
            return False
        if st.channel_id in self._hidden:
            return False
        try:
            await owner.edit(st.message_id, body)
        except discord.HTTPException as exc:
            st.owner = None
            self._refused_lender(st.channel_id, owner, exc)
            return False
        return True

    async def _post_by_lender(
        self, st: TableState, body: LatestBody[tuple[TableView, Reply]]
    ) -> Any | None:
        """Post the table as a followup of the channel's newest young press (which then owns
        it); None when there is none or Discord refused."""
        lender = self._lender(st.channel_id)
        if lender is None:
            return None
        try:
            sent = await lender.post(body)
        except discord.HTTPException as exc:
            self._refused_lender(st.channel_id, lender, exc)
            return None
        st.owner = lender
        return sent

    async def _retire(
        self,
        channel: discord.PartialMessageable,
        message_id: int,
        owner: Lender | None,
        *,
        delete: bool,
    ) -> None:
        """Delete an old table message, or remove its buttons, through the token that posted
        it while it is young, else with the bot token."""
        if owner is not None and owner.valid:
            try:
                await (owner.delete(message_id) if delete else owner.strip(message_id))
                return
            except discord.HTTPException as exc:
                log.debug("message %d: retiring through its token refused (%s)", message_id, exc)
        previous = channel.get_partial_message(message_id)
        with contextlib.suppress(discord.HTTPException):
            await (previous.delete() if delete else previous.edit(view=None))

    async def game_over(self, view: TableView) -> None:
        # ``table_changed`` with the finished view re-posts the table with the result, the
        # series standings and the Rematch / End series buttons.
        await self.table_changed(view)

    async def _close_table(self, channel_id: int) -> None:
        """The series is over: remove the buttons of its last table."""
        st = self._tables.get(channel_id)
        if st is None or st.message_id is None:
            return
        mid, st.message_id, st.last, owner = st.message_id, None, None, st.owner
        st.view, st.game_id, st.owner = None, None, None
        await self._retire(self._channel(channel_id, st.guild_id), mid, owner, delete=False)

    # -- notices -----------------------------------------------------------
    async def notice(self, notice: Notice) -> None:
        """Post a public notice in the channel's server language."""
        channel_id, kind = notice.channel_id, notice.kind
        await self._ready()
        st = self._tables.get(channel_id)
        guild_id = st.guild_id if st is not None else None
        if guild_id is None:
            channel = self.bot.get_channel(channel_id)
            if isinstance(channel, discord.abc.GuildChannel):
                guild_id = channel.guild.id
        if kind == "series_ended":
            await self._close_table(channel_id)
        if kind in ("series_ended", "stopped"):
            self._forget_hands(channel_id)
        t = self.guild_catalog(guild_id)
        text = render_notice(kind, notice.message, t, seat_names(notice.players, t))
        with contextlib.suppress(_Refused):
            await self._public(
                channel_id,
                "notice",
                self._channel(channel_id, guild_id).send(**message_kwargs(text)),
            )

    # -- hands -------------------------------------------------------------
    def _forget_hands(self, channel_id: int) -> None:
        """The channel's lobby or series is over: its players' hand states (and the
        interactions they hold) are no longer needed; :attr:`on_closed` is told."""
        for key in [k for k in self._hands if k[0] == channel_id]:
            del self._hands[key]
        if self.on_closed is not None:
            self.on_closed(channel_id)

    def hand_state(self, channel_id: int, user_id: int, cat: Catalog | None = None) -> HandState:
        key = (channel_id, user_id)
        st = self._hands.get(key)
        if st is None:
            st = self._hands[key] = HandState(channel_id, user_id, cat or catalog("en"))
            st.runner = Coalescer(lambda: self._hand_work(st), f"the hand of {user_id}")
        elif cat is not None:
            st.cat = cat
        return st

    def _store_hand(self, st: HandState, view: HandView) -> bool:
        """Keep ``view`` if it is not older than the one we have; a new state clears the
        selected card.  Returns whether it was kept."""
        key = (view.game_id, view.version)
        if not newer(key, st.key):
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
        await _kick(st.runner)

    async def show_hand(
        self,
        interaction: discord.Interaction[Any],
        view: HandView,
        cat: Catalog,
        *,
        page: int | None = None,
        selected: str | None = None,
    ) -> None:
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
        await _kick(st.runner)

    def hand_link(self, view: HandView, cat: Catalog) -> str | None:
        """The player's own web table link for ``view`` (``None`` without a web table)."""
        if self.links is None:
            return None
        return self.links.player(view.channel_id, view.user_id, view.series_id, cat.locale)

    async def _hand_work(self, st: HandState) -> None:
        interaction, view = st.interaction, st.view
        if interaction is None or view is None:
            return
        # A player who was not to act and still is not sees the same hand: skip the edit
        # (only the state version in its buttons would change; "why" and paging do not need
        # it, and every press fetches the current hand anyway).
        sig = hand_signature(view, st.page, st.selected)
        if (
            st.last is not None
            and st.last[0] == interaction.id
            and st.last[1] == sig
            and not view.your_turn
        ):
            return
        message = render_hand(
            view, st.cat, page=st.page, selected=st.selected, link=self.hand_link(view, st.cat)
        )
        try:
            await interaction.edit_original_response(**message_kwargs(message, edit=True))
        except discord.HTTPException as exc:
            if not _gone(exc):
                raise
            log.debug(
                "hand of user %d: interaction gone (%s %s), dropped",
                st.user_id,
                exc.status,
                exc.code,
            )
            if st.interaction is interaction:
                st.interaction = None
                st.last = None
            return
        st.last = (interaction.id, sig)
