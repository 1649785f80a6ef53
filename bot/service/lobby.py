"""Lobbies: open, join, leave, AI seats, kicks from a lobby, close, and the start of a series.

A channel holds at most one lobby *or* one series.  Every command's ids are checked before
anything else (:func:`bot.service.options.checked_ids`).  Host actions (add AI, remove a seat, kick,
start, close) take the requester's :class:`~bot.authority.Authority`: a moderator (where the
realm has them) or the system may act over the host.  A host who gives up their seat hands the
lobby to the next seated human (:func:`next_host`); a lobby left with no human closes.  Every
command that writes is retried on a fresh copy of its channel when another process wrote it
first (:func:`bot.service.moved.retry_moved`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.ai_pool import ai_only_table_refusal
from bot.authority import PLAYER, Authority
from bot.clock import Clock
from bot.errors import (
    AIOnlyLimit,
    AlreadySeated,
    BadOption,
    ChannelBusy,
    ChannelNotAllowed,
    ConfirmForfeit,
    Forfeited,
    LobbyFull,
    NoLobby,
    NotEnoughPlayers,
    NotSeated,
    UnknownLevel,
)
from bot.limits import MAX_SEATS, MIN_SEATS
from bot.seating import LobbyOptions, LobbySeat
from bot.service.channels import Channels, Transaction, need_host, seat_of
from bot.service.commit import Commit
from bot.service.moved import retry_moved
from bot.service.options import (
    checked_ids,
    clean_name,
    lobby_options,
    profile_of,
    rules_of,
    with_server_defaults,
)
from bot.service.settings import SettingsStore
from bot.state import ChannelState, LobbyState
from bot.terms import ChannelList
from bot.view_builders import lobby_view, table_view
from bot.views import LobbyView, TableView
from rules_engine import deal_from_seed
from rules_engine.ai import DEFAULT_AI_LEVEL, LEVELS
from rules_engine.messages import Message

__all__ = ["Lobbies", "next_host", "refuse_ai_only_table", "team_to_join"]

Host = tuple[int, str]


def next_host(host: Host, seats: Iterable[LobbySeat]) -> Host | None:
    """Who hosts a lobby with ``seats``: the host while seated, else the first seated human;
    ``None`` when no human is seated (the lobby closes)."""
    humans = [s for s in seats if s.user_id is not None]
    if not humans:
        return None
    if any(s.user_id == host[0] for s in humans):
        return host
    heir = humans[0]
    assert heir.user_id is not None
    return heir.user_id, heir.name


def refuse_ai_only_table(
    channels: Iterable[ChannelState], ch: ChannelState, guild_id: int, seats: Iterable[LobbySeat]
) -> int | None:
    """How many AI-only games ``guild_id`` runs in other channels than ``ch`` when a game of
    ``seats`` (AI seats only) is about to be dealt there; ``None`` if a human is seated."""
    if any(s.user_id is not None for s in seats):
        return None
    return sum(
        1
        for other in channels
        if other is not ch
        and other.guild_id == guild_id
        and other.playing
        and other.series is not None
        and all(s.user_id is None for s in other.series.seats)
    )


@dataclass(eq=False)
class Lobbies:
    """The lobby commands (see the module docstring).  ``turn_timeout``: the default of a
    lobby that chooses none; ``max_ai_only_tables``: the current cap of AI-only games."""

    channels: Channels
    commit: Commit
    settings: SettingsStore
    clock: Clock
    turn_timeout: int
    seed_source: Callable[[], int]
    max_ai_only_tables: Callable[[], int]

    @retry_moved
    @checked_ids
    async def open_lobby(
        self,
        channel_id: int,
        guild_id: int,
        host_id: int,
        host_name: str,
        options: LobbyOptions | Mapping[str, Any] | None = None,
        *,
        seat_host: bool = True,
        parent_id: int | None = None,
    ) -> LobbyView:
        """Open a lobby in ``channel_id``; the host takes the first seat.  ``seat_host=False``
        opens it with no seat taken, for tables of AI seats only (benchmarks, tests; the
        Discord adapter always seats the host).

        ``options``: rules profile, rule overrides (``transfer``, ``throw_in``,
        ``first_round_limit``), ``turn_timeout`` (15–600 s), ``seats`` (2–6); an option not
        given (absent or ``None``) comes from the server's settings (:meth:`server_config`;
        its house options only when the lobby uses the server's default profile).  Raises
        :class:`ChannelNotAllowed` if the server's settings allow games only in other channels
        (``parent_id``: the channel a thread belongs to, checked instead of the thread),
        :class:`ChannelBusy` if a lobby or a running game is there (a finished series there is
        ended, in the transaction that stores the lobby: if it fails, both stay as they
        were), :class:`BadOption` for an invalid option."""
        config = await self.settings.server_config(guild_id)
        if not config.channel_allowed(parent_id if parent_id is not None else channel_id):
            raise ChannelNotAllowed(
                Message(
                    "games can only be opened in {channels}",
                    channels=ChannelList.of(config.channels),
                )
            )
        opts = lobby_options(with_server_defaults(options, config))
        rules = rules_of(opts)
        name = clean_name(host_name, host_id)
        async with self.channels.edit(channel_id) as tx:
            ch = tx.channel(guild_id)
            if ch.lobby is not None or ch.playing:
                raise ChannelBusy()
            now = self.clock.now()
            team = 0 if opts.team_game else None
            seats = [LobbySeat(host_id, name, team=team)] if seat_host else []
            timeout = opts.turn_timeout or self.turn_timeout
            lobby = LobbyState(
                channel_id, guild_id, host_id, name, opts, rules, timeout, seats, now
            )
            ended = ch.series
            # One transaction ends the finished series and stores the lobby; memory changes
            # only once it is stored, so a failed write leaves the series here and stored.
            with self.commit.storage_errors():
                if ended is not None and ended.id is not None:
                    await self.commit.storage.end_series_and_save_lobby(
                        ended.id, now, lobby.record(), fence=ch.fence
                    )
                else:
                    await self.commit.storage.save_lobby(lobby.record(), fence=ch.fence)
            ch.fence += 1
            if ended is not None:
                ch.series = None
                ch.game = None
                tx.notice("series_ended", Message("the previous series is over"))
            ch.guild_id = guild_id
            ch.lobby = lobby
            view = lobby_view(lobby, "open")
            tx.lobby_changed(view)
        return view

    @checked_ids
    async def lobby(self, channel_id: int) -> LobbyView:
        """The open lobby of the channel (:class:`NoLobby` if none)."""
        ch = await self.channels.ensure(channel_id)
        if ch is None or ch.lobby is None:
            raise NoLobby()
        return lobby_view(ch.lobby, "open")

    @retry_moved
    @checked_ids
    async def join(
        self, channel_id: int, user_id: int, name: str, team: int | None = None
    ) -> LobbyView:
        """Take a seat.  :class:`LobbyFull`, :class:`AlreadySeated`, :class:`AlreadyStarted`,
        :class:`NoLobby`.  In a lobby played in teams the player joins ``team`` (0 or 1), or
        the team with fewer players (:func:`team_to_join`)."""
        async with self.channels.edit(channel_id) as tx:
            ch = tx.ch
            if ch is not None and ch.playing and ch.game is not None:
                seat = seat_of(ch.series, user_id)
                if seat is not None and seat in ch.game.forfeits:
                    raise Forfeited.of(ch.game.forfeits[seat].reason, tx.realm)
            lobby = tx.need_lobby()
            if any(s.user_id == user_id for s in lobby.seats):
                raise AlreadySeated()
            _need_room(lobby)
            joined = team_to_join(lobby.seats, _team_size(lobby), team)
            seats = [*lobby.seats, LobbySeat(user_id, clean_name(name, user_id), team=joined)]
            return await self._seated(tx, lobby, seats)

    @retry_moved
    @checked_ids
    async def leave(self, channel_id: int, user_id: int) -> LobbyView:
        """Free the caller's lobby seat.  A leaving host hands the lobby to the next seated
        human (seat order); a lobby left with no human closes (``status='closed'``).

        During a running game, leaving is a forfeit that the player must confirm: a seated
        player gets :class:`ConfirmForfeit` (``details['game_id']``), and the adapter then
        calls :meth:`forfeit`; a player who already forfeited gets :class:`Forfeited`."""
        async with self.channels.edit(channel_id) as tx:
            ch = tx.ch
            if ch is not None and ch.playing and ch.game is not None:
                seat = seat_of(ch.series, user_id)
                if seat is None:
                    raise NotSeated()
                if seat in ch.game.forfeits:
                    raise Forfeited.of(
                        ch.game.forfeits[seat].reason,
                        tx.realm,
                        Message("you have already left this game"),
                    )
                raise ConfirmForfeit(game_id=ch.game.game_id)
            lobby = tx.need_lobby()
            if not any(s.user_id == user_id for s in lobby.seats):
                raise NotSeated(Message("you are not seated in this lobby"))
            seats = [s for s in lobby.seats if s.user_id != user_id]
            return await self._reseat(tx, lobby, seats)

    @retry_moved
    @checked_ids
    async def add_ai(
        self,
        channel_id: int,
        requester_id: int,
        level: str = DEFAULT_AI_LEVEL,
        *,
        team: int | None = None,
        authority: Authority = PLAYER,
    ) -> LobbyView:
        """Seat an AI player of ``level`` (host only).  :class:`UnknownLevel` if the engine
        has no such level.  In a lobby played in teams the AI fills a free place of ``team``,
        or of the team with fewer players."""
        async with self.channels.edit(channel_id) as tx:
            lobby = tx.need_lobby()
            need_host(tx.realm, lobby.host_id, requester_id, authority)
            level = str(level).strip().lower()
            if level not in LEVELS:  # (a name check: no agent is built on the event loop)
                raise UnknownLevel(
                    Message(
                        "unknown AI level {level}: choose {choices}",
                        level=level,
                        choices=", ".join(LEVELS),
                    ),
                    level=level,
                )
            _need_room(lobby)
            joined = team_to_join(lobby.seats, _team_size(lobby), team)
            base = f"{level.title()} AI"
            taken = {s.name for s in lobby.seats}
            name = base
            k = 2
            while name in taken:
                name = f"{base} {k}"
                k += 1
            return await self._seated(
                tx, lobby, [*lobby.seats, LobbySeat(None, name, level, joined)]
            )

    @retry_moved
    @checked_ids
    async def switch_team(
        self, channel_id: int, user_id: int, team: int | None = None
    ) -> LobbyView:
        """Move the caller to the other team of a lobby played in teams (or to ``team``, 0 or
        1).  :class:`NoLobby`, :class:`NotSeated`, :class:`BadOption` (no teams here, no such
        team, already in it), :class:`LobbyFull` (that team has no free place)."""
        async with self.channels.edit(channel_id) as tx:
            lobby = tx.need_lobby()
            index = next((i for i, s in enumerate(lobby.seats) if s.user_id == user_id), None)
            if index is None:
                raise NotSeated(Message("you are not seated in this lobby"))
            if not lobby.options.team_game:
                raise BadOption(Message("this lobby is not played in teams"))
            seat = lobby.seats[index]
            current = seat.team if seat.team is not None else 0
            target = 1 - current if team is None else _need_team(team)
            if target == current:
                raise BadOption(Message("you are already in team {team}", team=target + 1))
            _need_team_room(lobby.seats, _team_size(lobby), target)
            seats = list(lobby.seats)
            seats[index] = dataclasses.replace(seat, team=target)
            return await self._seated(tx, lobby, seats)

    @retry_moved
    @checked_ids
    async def remove_seat(
        self, channel_id: int, requester_id: int, seat: int, *, authority: Authority = PLAYER
    ) -> LobbyView:
        """Remove the lobby seat at index ``seat`` (host only; e.g. an AI seat).  ``seat`` must
        be a whole number (a bool is refused, not read as 0 or 1)."""
        async with self.channels.edit(channel_id) as tx:
            lobby = tx.need_lobby()
            need_host(tx.realm, lobby.host_id, requester_id, authority)
            if (
                not isinstance(seat, int)
                or isinstance(seat, bool)
                or not 0 <= seat < len(lobby.seats)
            ):
                raise BadOption(Message("there is no seat {seat} in this lobby", seat=repr(seat)))
            seats = [s for i, s in enumerate(lobby.seats) if i != seat]
            return await self._reseat(tx, lobby, seats, announce_host=False)

    async def kick(self, tx: Transaction, index: int) -> LobbyView:
        """Free lobby seat ``index`` (the caller checked the seat and who asks); a kicked host
        hands the lobby on."""
        lobby = tx.need_lobby()
        kicked = lobby.seats[index]
        seats = [s for i, s in enumerate(lobby.seats) if i != index]
        host_before = lobby.host_id
        view = await self._reseat(tx, lobby, seats, announce_host=False)
        if kicked.ai_level is None:
            removed = Message("{name} was removed from the lobby", name=kicked.name)
        else:
            removed = Message("an AI seat was removed from the lobby")
        tx.notice("kicked", removed, user_id=kicked.user_id)
        _announce_host(tx, view, host_before)
        return view

    async def close(self, tx: Transaction, requester_id: int | None, authority: Authority) -> None:
        """Close the channel's lobby (its host, a moderator, or the system: ``requester_id``
        ``None``)."""
        lobby = tx.need_lobby()
        need_host(tx.realm, lobby.host_id, requester_id, authority)
        assert tx.ch is not None
        with self.commit.storage_errors():
            await self.commit.storage.delete_lobby(tx.channel_id, fence=tx.ch.fence)
        tx.ch.fence += 1
        tx.ch.lobby = None
        tx.lobby_changed(lobby_view(lobby, "closed"))
        tx.notice("stopped", Message("the lobby was closed"), user_id=requester_id)

    @retry_moved
    @checked_ids
    async def start(
        self, channel_id: int, requester_id: int, authority: Authority = PLAYER
    ) -> TableView:
        """Deal the first game of a new series (host only; 2–6 seats).  The lobby becomes the
        series' seats, in lobby order; the first dealer is drawn from the seed and the lowest
        trump leads (RULES.md §4)."""
        async with self.channels.edit(channel_id) as tx:
            lobby = tx.need_lobby()
            need_host(tx.realm, lobby.host_id, requester_id, authority)
            n = len(lobby.seats)
            if not MIN_SEATS <= n <= MAX_SEATS:
                raise NotEnoughPlayers(
                    Message(
                        "a game needs {min} to {max} players, not {value}",
                        min=MIN_SEATS,
                        max=MAX_SEATS,
                        value=n,
                    )
                )
            problem = lobby.rules.players_error(n)
            if problem is not None:
                raise NotEnoughPlayers(problem.reason)
            ch = tx.channel(lobby.guild_id)
            self.need_ai_only_room(ch, lobby.guild_id, lobby.seats)
            series = lobby.new_series(profile_of(lobby.rules), self.clock.now())
            seed = self.seed_source()
            deal = deal_from_seed(n, seed, deck=lobby.rules.deck)
            await self.commit.begin_game(ch, series, lobby.rules, lobby.turn_timeout, deal, seed)
            ch.lobby = None
            tx.lobby_changed(lobby_view(lobby, "started"))
            view = table_view(ch)
            tx.after_change(ch, view)
        return view

    def need_ai_only_room(
        self, ch: ChannelState, guild_id: int, seats: Iterable[LobbySeat]
    ) -> None:
        """Refuse (:class:`AIOnlyLimit`) to deal an AI-only game in ``ch`` when its server
        already runs ``max_ai_only_tables`` AI-only games in other channels."""
        running = refuse_ai_only_table(self.channels, ch, guild_id, seats)
        if running is None:
            return
        cap = self.max_ai_only_tables()
        refusal = ai_only_table_refusal(running, cap)
        if refusal is not None:
            raise AIOnlyLimit(refusal, running=running, cap=cap)

    async def _save_seats(
        self, ch: ChannelState, lobby: LobbyState, seats: list[LobbySeat], host: Host | None = None
    ) -> None:
        with self.commit.storage_errors():
            await self.commit.storage.save_lobby(lobby.record(seats, host), fence=ch.fence)
        ch.fence += 1
        lobby.seats = seats
        if host is not None:
            lobby.host_id, lobby.host_name = host

    async def _seated(
        self, tx: Transaction, lobby: LobbyState, seats: list[LobbySeat]
    ) -> LobbyView:
        """Store the lobby's new ``seats`` (its host unchanged) and queue its view."""
        assert tx.ch is not None
        await self._save_seats(tx.ch, lobby, seats)
        view = lobby_view(lobby, "open")
        tx.lobby_changed(view)
        return view

    async def _reseat(
        self,
        tx: Transaction,
        lobby: LobbyState,
        seats: list[LobbySeat],
        *,
        announce_host: bool = True,
    ) -> LobbyView:
        """Store new seats and queue the lobby's view (and a host hand-off if
        ``announce_host``); a lobby left with no human closes."""
        host_before = lobby.host_id
        host = next_host((lobby.host_id, lobby.host_name), seats)
        assert tx.ch is not None
        if host is None:
            with self.commit.storage_errors():
                await self.commit.storage.delete_lobby(lobby.channel_id, fence=tx.ch.fence)
            tx.ch.fence += 1
            tx.ch.lobby = None
            lobby.seats = []
            view = lobby_view(lobby, "closed")
        else:
            await self._save_seats(tx.ch, lobby, seats, host)
            view = lobby_view(lobby, "open")
        tx.lobby_changed(view)
        if announce_host:
            _announce_host(tx, view, host_before)
        return view


def _need_room(lobby: LobbyState) -> None:
    if len(lobby.seats) >= lobby.options.seats:
        raise LobbyFull(Message("the lobby is full ({seats} seats)", seats=lobby.options.seats))


def _need_team(team: object) -> int:
    """``team`` if it is 0 or 1 (a bool is refused); the message counts teams from 1."""
    if isinstance(team, int) and not isinstance(team, bool) and team in (0, 1):
        return team
    shown = team + 1 if isinstance(team, int) and not isinstance(team, bool) else repr(team)
    raise BadOption(Message("there is no team {team}: choose 1 or 2", team=shown))


def _team_size(lobby: LobbyState) -> int:
    """The players each team of ``lobby`` has room for (0 without teams)."""
    return lobby.options.seats // 2 if lobby.options.team_game else 0


def _need_team_room(seats: Sequence[LobbySeat], team_size: int, team: int) -> None:
    """Refuse (:class:`LobbyFull`) a place in ``team`` when it has none free."""
    if sum(1 for s in seats if s.team == team) >= team_size:
        raise LobbyFull(
            Message("team {team} is full ({count} players)", team=team + 1, count=team_size)
        )


def team_to_join(seats: Sequence[LobbySeat], team_size: int, team: int | None) -> int | None:
    """The team a new seat joins in a lobby of ``seats`` whose teams have ``team_size``
    places each (0: no teams, then ``None``): ``team`` when it has a free place (else
    :class:`LobbyFull`); not given, the team with fewer players (team 0 on a tie)."""
    if not team_size:
        if team is not None:
            raise BadOption(Message("this lobby is not played in teams"))
        return None
    if team is None:
        counts = [sum(1 for s in seats if s.team == k) for k in (0, 1)]
        team = 0 if counts[0] <= counts[1] else 1
    team = _need_team(team)
    _need_team_room(seats, team_size, team)
    return team


def _announce_host(tx: Transaction, view: LobbyView, host_before: int) -> None:
    """Queue a host hand-off notice (the lobby's host changed with its seats)."""
    if view.status == "open" and view.host_id != host_before:
        tx.notice("host", Message("{name} is the host now", name=view.host_name))
