"""The queries of ``/durak privacy`` and ``/durak forget-me``: what is stored about one user in
every server, and its erasure (see :mod:`bot.storage.player_data` for where a user is
stored)."""

from __future__ import annotations

from bot.errors import PlayerInPlay
from bot.player_records import PrivacyView
from bot.seating import FORMER_PLAYER_ID, LobbySeat
from bot.storage import statements as sql
from bot.storage.player_data import (
    FORMER_NAME,
    PlayerData,
    digits_pattern,
    forgotten_seats,
    lobby_has,
    seats_of,
)
from bot.storage.sql_seam import SqlConnection, SqlSeam

__all__ = ["PrivacyQueries"]


class PrivacyQueries(SqlSeam):
    """:meth:`bot.storage.Storage.player_data` and :meth:`~bot.storage.Storage.forget_player`
    on the SQL store."""

    async def player_data(self, user_id: int) -> PrivacyView:
        async with self.read() as con:
            data, _ = await self._player_data(con, user_id)
        return data

    async def forget_player(self, user_id: int) -> PrivacyView:
        async with self.write() as con:
            data, finished = await self._player_data(con, user_id, lock=True)
            if data.open_channels:
                raise PlayerInPlay.of(data.open_channels)
            if finished:
                await con.execute_many(
                    sql.FORGET_GAME_SEATS,
                    [(forgotten_seats(seats, user_id), game_id) for game_id, seats in finished],
                )
            await con.execute(sql.FORGET_RESULTS, user_id)
            await con.execute(sql.FORGET_RATINGS, user_id)
            await con.execute(sql.FORGET_RATING_HISTORY, user_id)
            await con.execute(sql.FORGET_REVIEWS, user_id)
            await con.execute(sql.FORGET_FORFEITS, FORMER_PLAYER_ID, user_id)
            await con.execute(sql.FORGET_SERIES_HOST, FORMER_PLAYER_ID, FORMER_NAME, user_id)
            await con.execute(sql.FORGET_SERIES_SEATS, FORMER_PLAYER_ID, FORMER_NAME, user_id)
        return data

    async def _player_data(
        self, con: SqlConnection, user_id: int, *, lock: bool = False
    ) -> tuple[PrivacyView, list[tuple[int, list[LobbySeat]]]]:
        """Inside a transaction: what is stored about ``user_id``, and the finished games
        they sat in (id, seats).  ``lock``: lock the games' rows read (in a write
        transaction), so that two erasures of players of one game rewrite its seats one
        after the other."""
        data = PlayerData(user_id)
        pattern = digits_pattern(user_id)
        finished: list[tuple[int, list[LobbySeat]]] = []
        games = sql.PLAYER_GAMES + (self.for_update("g") if lock else "")
        for game_id, guild, channel, text, result, started, ended, live in await con.fetch(
            games, pattern
        ):
            seats = seats_of(text, user_id)
            if seats is None:
                continue
            running = live is not None or result == "live"
            data.game(guild, seats, started, ended, channel if running else None)
            if not running:
                finished.append((int(game_id), seats))
        data.results(await con.fetch(sql.PLAYER_RESULTS, user_id))
        data.result_names(name for (name,) in await con.fetch(sql.PLAYER_RESULT_NAMES, user_id))
        data.forfeits(await con.fetch(sql.PLAYER_FORFEITS, user_id))
        for guild, profile, mu, sigma, rated in await con.fetch(sql.PLAYER_RATINGS, user_id):
            data.rating(guild, profile, mu, sigma, rated)
        data.rating_changes(await con.fetch(sql.PLAYER_RATING_CHANGES, user_id))
        for statement in (sql.PLAYER_SERIES_HOSTED, sql.PLAYER_SERIES_SEATS):
            for series_id, guild, channel, status, name in await con.fetch(statement, user_id):
                data.series(series_id, guild, channel, status == "active", name)
        for channel, guild, text in await con.fetch(sql.PLAYER_LOBBIES, pattern):
            name = lobby_has(channel, guild, text, user_id)
            if name is not None:
                data.lobby(guild, channel, name)
        return data.view(), finished
