"""Records of ended games: stats, leaderboards, history and replays.

These read the storage only: they never touch a channel's state or lock.  Their ids are
checked first (:func:`bot.service.options.checked_ids`); a page past the last one is refused
with a message naming the last page (never shown as an empty page beside the total), except
page 1, which always exists (it says that nothing was played yet).
"""

from __future__ import annotations

import collections
import dataclasses
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

from bot.errors import BadOption, UnknownGame
from bot.outcome import Outcome
from bot.replay import build_replay
from bot.seating import LobbySeat
from bot.service.commit import storage_errors
from bot.service.options import (
    MAX_ID,
    checked_ids,
    clean_name,
    need_id,
    need_page,
    profile_filter,
    profile_of,
)
from bot.service.settings import SettingsStore
from bot.storage import GameRecord, Storage
from bot.views import (
    HistoryEntry,
    HistoryPage,
    LeaderboardPage,
    Player,
    ReplayView,
    StatsView,
)
from rules_engine import DurakError, Rules
from rules_engine.deal import Deal
from rules_engine.messages import N_, Message

__all__ = [
    "HISTORY_PER_PAGE",
    "MIN_RATED_GAMES",
    "REPLAY_CACHE",
    "Records",
    "ended_game",
    "need_game_id",
    "players_of",
]

log = logging.getLogger(__name__)

#: Ratings count only players with at least this many rated games, unless asked otherwise.
MIN_RATED_GAMES = 5
HISTORY_PER_PAGE = 10
#: Replays kept built (a finished game's moves never change; its players' names are read again
#: at every press, see :meth:`Records.replay`): every ◀ ▶ press of a replay asks again.
REPLAY_CACHE = 16


@dataclass(eq=False)
class Records:
    """The record commands (see the module docstring)."""

    storage: Storage
    settings: SettingsStore
    #: Replays built, most recently asked last (at most :data:`REPLAY_CACHE`).
    _replays: collections.OrderedDict[int, ReplayView] = field(
        default_factory=collections.OrderedDict, init=False
    )

    @checked_ids
    async def stats(
        self,
        guild_id: int,
        user_id: int,
        profile: str | None = None,
        *,
        name: str | None = None,
    ) -> StatsView:
        """A player's finished games in this guild: games, losses, draws, forfeits, loss rate
        and rating (± uncertainty) per rule profile (``profile`` restricts to one: a profile
        name or ``custom``), and their games against each AI level apart.

        ``name``: the player's display name as the adapter knows it now; the view is named
        after it, else after the name stored with their games (``None`` only when neither
        is known)."""
        profile = profile_filter(profile)
        with storage_errors():
            stored_name, rows = await self.storage.player_stats(guild_id, user_id, profile)
            by_level = await self.storage.ai_level_stats(guild_id, user_id, profile)
            accuracy, reviewed = await self.storage.review_accuracy(user_id)
        return StatsView(
            guild_id=guild_id,
            user_id=user_id,
            name=stored_name if name is None else clean_name(name, user_id),
            profile=profile,
            games=sum(r.games for r in rows),
            losses=sum(r.losses for r in rows),
            draws=sum(r.draws for r in rows),
            by_profile=tuple(rows),
            forfeits=sum(r.forfeits for r in rows),
            by_ai_level=tuple(by_level),
            review_accuracy=None if accuracy is None else round(accuracy, 1),
            reviewed=reviewed,
        )

    @checked_ids
    async def leaderboard(
        self,
        guild_id: int,
        profile: str | None = None,
        min_games: int = MIN_RATED_GAMES,
        page: int = 1,
        per_page: int = 10,
    ) -> LeaderboardPage:
        """The guild's rated players of one rule profile (default: the server's default
        profile), by the conservative estimate of their rating (``mu - 3 sigma``), among
        those with at least ``min_games`` rated games.  ``page`` is 1-based; a page past the
        end is refused (see the module docstring)."""
        chosen = profile_filter(profile) or (await self.settings.server_config(guild_id)).profile
        if not _whole(min_games, 1, MAX_ID):
            raise BadOption(Message("min_games must be a whole number ≥ 1"))
        need_page(page)
        if not _whole(per_page, 1, 50):
            raise BadOption(Message("per_page must be 1–50"))
        with storage_errors():
            total, rows = await self.storage.leaderboard(
                guild_id, chosen, min_games, per_page, _offset(page, per_page)
            )
        pages = max(1, -(-total // per_page))
        need_page(page, pages)
        return LeaderboardPage(
            guild_id, chosen, min_games, page, pages, per_page, total, tuple(rows)
        )

    @checked_ids
    async def history(
        self,
        guild_id: int,
        user_id: int | None = None,
        page: int = 1,
        per_page: int = HISTORY_PER_PAGE,
    ) -> HistoryPage:
        """The guild's ended games, newest first (with ``user_id``: the games that player has
        a result in): when, rules, players, result.  ``page`` is 1-based; a page past the end
        is refused (see the module docstring)."""
        need_page(page)
        if not _whole(per_page, 1, 25):
            raise BadOption(Message("per_page must be 1–25"))
        with storage_errors():
            total, records = await self.storage.history(
                guild_id, user_id, per_page, _offset(page, per_page)
            )
        pages = max(1, -(-total // per_page))
        need_page(page, pages)
        entries = []
        for rec in records:
            try:
                rules = Rules.from_spec(rec.rules)
            except DurakError:
                log.exception("game %d has unreadable rules: left out of the history", rec.game_id)
                continue
            entries.append(
                HistoryEntry(
                    game_id=rec.game_id,
                    ended_at=rec.ended_at,
                    rules=rules,
                    profile=rec.profile,
                    players=players_of(rec.seats),
                    outcome=Outcome.of_result(
                        rec.result,
                        rec.loser_seat,
                        teams=len(rec.seats) if rules.team_game else 0,
                    ),
                )
            )
        return HistoryPage(guild_id, user_id, page, pages, per_page, total, tuple(entries))

    async def replay(self, guild_id: int, game_id: int) -> ReplayView:
        """A finished game of this guild, move by move, rebuilt from its stored action log by
        the engine (:func:`bot.replay.build_replay`): every hand face up, so show it privately.
        :class:`UnknownGame` for an unknown id, a game of another server, a game still being
        played or one stopped before its end."""
        need_id(guild_id)
        need_game_id(game_id)
        cached = self._replays.get(game_id)
        if cached is not None and cached.guild_id == guild_id:
            # who sat where is read again: a player may have been forgotten since (in any
            # bot process), and a forgotten player's name must not outlive them here
            with storage_errors():
                seats = await self.storage.game_seats(game_id)
            if seats is not None:
                players = players_of(seats)
                if players != cached.players:
                    cached = self._replays[game_id] = dataclasses.replace(cached, players=players)
                self._replays.move_to_end(game_id)
                return cached
            del self._replays[game_id]
        rec = await ended_game(
            self.storage,
            guild_id,
            game_id,
            N_("game #{value} is still being played: replay it once it ends"),
        )
        with storage_errors():
            forfeits = await self.storage.forfeits_of_game(game_id)
        if rec.result == "aborted":
            raise UnknownGame(
                Message(
                    "game #{value} was stopped before its end: there is nothing to replay",
                    value=game_id,
                )
            )
        try:
            rules = Rules.from_spec(rec.rules)
            frames = build_replay(
                rules,
                Deal.from_dict(rec.deal),
                rec.actions,
                {f.seat: f.move for f in forfeits if f.move is not None},
            )
        except (DurakError, ValueError, KeyError, TypeError) as exc:
            log.exception("game %d does not replay", game_id)
            raise UnknownGame(
                Message("game #{value} cannot be replayed from what was stored", value=game_id)
            ) from exc
        view = ReplayView(
            game_id=game_id,
            guild_id=guild_id,
            rules=rules,
            profile=profile_of(rules),
            players=players_of(rec.seats),
            ended_at=rec.ended_at or 0.0,
            replay=frames,
        )
        self._replays[game_id] = view
        while len(self._replays) > REPLAY_CACHE:
            self._replays.popitem(last=False)
        return view


def need_game_id(game_id: int) -> None:
    """:class:`UnknownGame` unless ``game_id`` could be a game's id."""
    if not _whole(game_id, 1, MAX_ID):
        raise UnknownGame(Message("there is no game #{value} in this server", value=repr(game_id)))


async def ended_game(storage: Storage, guild_id: int, game_id: int, playing: str) -> GameRecord:
    """Stored game ``game_id`` of this guild once it has ended (its id checked by
    :func:`need_game_id`); :class:`UnknownGame` for a game of no server or another, and for a
    game still being played (``playing``: that message's key, ``{value}`` the game's id)."""
    with storage_errors():
        rec = await storage.load_game(game_id)
    if rec is None or rec.guild_id != guild_id:
        raise UnknownGame(Message("there is no game #{value} in this server", value=game_id))
    if rec.result == "live":
        raise UnknownGame(Message(playing, value=game_id))
    return rec


def players_of(seats: Iterable[LobbySeat]) -> tuple[Player, ...]:
    """Who sat at each seat of a stored game, as its history and replay name them."""
    return tuple(Player(s.name, s.ai_level, s.former) for s in seats)


def _whole(value: object, low: int, high: int) -> bool:
    """Whether ``value`` is a whole number (not a bool) from ``low`` to ``high``."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _offset(page: int, per_page: int) -> int:
    """The rows before ``page``, capped at :data:`MAX_ID` (a page that far is past any end,
    and the database takes no larger offset)."""
    return min((page - 1) * per_page, MAX_ID)
