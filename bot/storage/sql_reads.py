"""The stats, leaderboard, ratings and history queries of the SQL store: reads only, each
scoped by guild, so any process answers for any server."""

from __future__ import annotations

from bot.player_records import AiLevelStats, LeaderboardRow, ProfileStats
from bot.ratings import RatedGame, Rating, RatingKey
from bot.storage import statements as sql
from bot.storage.records import HistoryRecord, board_row, history_from_row, rated_games_from_rows
from bot.storage.sql_seam import SqlSeam, number

__all__ = ["RecordQueries"]


class RecordQueries(SqlSeam):
    """The :class:`bot.storage.Storage` queries behind ``/durak stats``, ``leaderboard`` and
    ``history``, and the ratings' rebuild."""

    async def player_stats(
        self, guild_id: int, user_id: int, profile: str | None
    ) -> tuple[str | None, list[ProfileStats]]:
        async with self.read() as con:
            if profile is None:
                fetched = await con.fetch(sql.STATS_ALL, guild_id, user_id, guild_id, user_id)
            else:
                fetched = await con.fetch(
                    sql.STATS_PROFILE, guild_id, user_id, guild_id, user_id, profile
                )
            name = await con.fetch_one(sql.LATEST_NAME, guild_id, user_id)
        rows = [
            ProfileStats(
                p,
                g,
                lo or 0,
                dr or 0,
                fo or 0,
                None if mu is None else Rating(mu, sigma),
                rated or 0,
            )
            for p, g, lo, dr, fo, mu, sigma, rated in fetched
        ]
        return (name[0] if name else None), rows

    async def ai_level_stats(
        self, guild_id: int, user_id: int, profile: str | None
    ) -> list[AiLevelStats]:
        async with self.read() as con:
            if profile is None:
                fetched = await con.fetch(sql.STATS_AI_ALL, guild_id, user_id)
            else:
                fetched = await con.fetch(sql.STATS_AI_PROFILE, guild_id, user_id, profile)
        return [AiLevelStats(lv, g, lo or 0, dr or 0) for lv, g, lo, dr in fetched]

    async def leaderboard(
        self, guild_id: int, profile: str, min_games: int, limit: int, offset: int
    ) -> tuple[int, list[LeaderboardRow]]:
        async with self.read() as con:
            total = await number(con, sql.COUNT_PROFILE, guild_id, profile, min_games)
            fetched = await con.fetch(
                sql.BOARD_PROFILE, guild_id, profile, guild_id, profile, min_games, limit, offset
            )
        return total, [board_row(offset + i + 1, r) for i, r in enumerate(fetched)]

    async def ratings(self, guild_id: int | None = None) -> dict[RatingKey, Rating]:
        async with self.read() as con:
            rows = await con.fetch(sql.ALL_RATINGS)
        return {
            RatingKey(g, p, u): Rating(mu, sigma)
            for g, p, u, mu, sigma, _ in rows
            if guild_id is None or g == guild_id
        }

    async def rated_games(self, guild_id: int | None = None) -> list[RatedGame]:
        async with self.read() as con:
            rows = await con.fetch(sql.RATED_GAMES)
        return rated_games_from_rows([r for r in rows if guild_id is None or r[1] == guild_id])

    async def history(
        self, guild_id: int, user_id: int | None, limit: int, offset: int
    ) -> tuple[int, list[HistoryRecord]]:
        key: tuple[int, ...]
        if user_id is None:
            count_sql, query, key = sql.HISTORY_GUILD_COUNT, sql.HISTORY_GUILD, (guild_id,)
        else:
            count_sql, query, key = sql.HISTORY_USER_COUNT, sql.HISTORY_USER, (guild_id, user_id)
        async with self.read() as con:
            total = await number(con, count_sql, *key)
            fetched = await con.fetch(query, *key, limit, offset)
        return total, [history_from_row(r) for r in fetched]
