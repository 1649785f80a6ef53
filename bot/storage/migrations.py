"""Numbered schema migrations, one list per backend, applied in order at :meth:`open`.

``schema_version`` records every migration applied.  The numbers mean the same change on both
backends.  Migration 1 is the schema that durak-bot created before migrations were split per
backend (SQLite only), so a database made by that code is recognised as version 1 and moved
forward with nothing lost.  Never edit a released migration: append a new one.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["POSTGRES_MIGRATIONS", "SQLITE_MIGRATIONS", "Migration", "check_numbering"]


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema step: ``statements`` run in one transaction with the ``schema_version``
    row of ``number``.  ``backfill`` names a data step that the backend runs in that same
    transaction, after the statements (``"ratings"``: rate the finished games already stored,
    in the order they ended, see :func:`bot.storage.records.backfill_games`)."""

    number: int
    why: str
    statements: tuple[str, ...]
    backfill: str | None = None


#: Why migration 4 exists, on both backends.
_WHY_4 = (
    "ratings: OpenSkill ratings per guild, profile and player, their history per game, and the "
    "AI levels seated in each game; the games already finished are filled in (AI levels from "
    "their seats, ratings by replaying their action logs in the order they ended)"
)


_WHY_SERVER_SETTINGS = "per-server settings of /durak config, one JSON document per guild"

SQLITE_MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "the first schema",
        (
            """CREATE TABLE series (
                id INTEGER PRIMARY KEY,
                guild_id INTEGER NOT NULL,
                channel_id INTEGER NOT NULL,
                host_id INTEGER NOT NULL,
                host_name TEXT NOT NULL,
                profile TEXT NOT NULL,
                rules TEXT NOT NULL,
                options TEXT NOT NULL,
                status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended')),
                games INTEGER NOT NULL DEFAULT 0,
                draws INTEGER NOT NULL DEFAULT 0,
                last_dealer INTEGER,
                last_loser INTEGER,
                last_game_id INTEGER,
                created_at REAL NOT NULL,
                ended_at REAL
            )""",
            "CREATE UNIQUE INDEX series_active_channel ON series(channel_id) "
            "WHERE status = 'active'",
            """CREATE TABLE series_players (
                series_id INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
                seat INTEGER NOT NULL,
                user_id INTEGER,
                name TEXT NOT NULL,
                ai_level TEXT,
                losses INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (series_id, seat)
            )""",
            """CREATE TABLE games (
                id INTEGER PRIMARY KEY,
                series_id INTEGER NOT NULL REFERENCES series(id),
                guild_id INTEGER NOT NULL,
                channel_id INTEGER NOT NULL,
                profile TEXT NOT NULL,
                rules TEXT NOT NULL,
                seats TEXT NOT NULL,
                seed INTEGER NOT NULL,
                deal TEXT NOT NULL,
                actions TEXT,
                result TEXT NOT NULL DEFAULT 'live'
                    CHECK (result IN ('live', 'loss', 'draw', 'aborted')),
                loser_seat INTEGER,
                started_at REAL NOT NULL,
                ended_at REAL
            )""",
            "CREATE INDEX games_series ON games(series_id)",
            "CREATE INDEX games_guild_ended ON games(guild_id, ended_at)",
            """CREATE TABLE game_players (
                game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
                seat INTEGER NOT NULL,
                guild_id INTEGER NOT NULL,
                user_id INTEGER NOT NULL,
                profile TEXT NOT NULL,
                name TEXT NOT NULL,
                lost INTEGER NOT NULL CHECK (lost IN (0, 1)),
                draw INTEGER NOT NULL CHECK (draw IN (0, 1)),
                ended_at REAL NOT NULL,
                PRIMARY KEY (game_id, seat)
            )""",
            # Leaderboard: group by user within a guild (and profile), covering the sums.
            "CREATE INDEX game_players_board ON game_players"
            "(guild_id, profile, user_id, lost, draw)",
            "CREATE INDEX game_players_board_all ON game_players(guild_id, user_id, lost, draw)",
            # Stats of one player, and their latest name.
            "CREATE INDEX game_players_user ON game_players(guild_id, user_id, ended_at)",
            """CREATE TABLE live_games (
                game_id INTEGER PRIMARY KEY REFERENCES games(id),
                channel_id INTEGER NOT NULL UNIQUE,
                series_id INTEGER NOT NULL REFERENCES series(id),
                snapshot TEXT NOT NULL,
                meta TEXT NOT NULL,
                version INTEGER NOT NULL,
                updated_at REAL NOT NULL
            )""",
            """CREATE TABLE lobbies (
                channel_id INTEGER PRIMARY KEY,
                guild_id INTEGER NOT NULL,
                data TEXT NOT NULL,
                updated_at REAL NOT NULL
            )""",
        ),
    ),
    Migration(
        2,
        "fencing: a live row's write counter, checked by every write of the game",
        ("ALTER TABLE live_games ADD COLUMN revision INTEGER NOT NULL DEFAULT 0",),
    ),
    Migration(
        3,
        "forfeits: a player who left or was kicked from a running game, recorded at once",
        (
            """CREATE TABLE forfeits (
                game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
                seat INTEGER NOT NULL,
                guild_id INTEGER NOT NULL,
                user_id INTEGER NOT NULL,
                reason TEXT NOT NULL CHECK (reason IN ('leave', 'kick')),
                move INTEGER,
                at REAL NOT NULL,
                PRIMARY KEY (game_id, seat)
            )""",
            "CREATE INDEX forfeits_user ON forfeits(guild_id, user_id)",
        ),
    ),
    Migration(
        4,
        _WHY_4,
        (
            """CREATE TABLE ratings (
                guild_id INTEGER NOT NULL,
                profile TEXT NOT NULL,
                user_id INTEGER NOT NULL,
                mu REAL NOT NULL,
                sigma REAL NOT NULL,
                games INTEGER NOT NULL,
                updated_at REAL NOT NULL,
                PRIMARY KEY (guild_id, profile, user_id)
            )""",
            """CREATE TABLE rating_history (
                game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
                guild_id INTEGER NOT NULL,
                profile TEXT NOT NULL,
                user_id INTEGER NOT NULL,
                place INTEGER NOT NULL,
                mu_before REAL NOT NULL,
                sigma_before REAL NOT NULL,
                mu_after REAL NOT NULL,
                sigma_after REAL NOT NULL,
                ended_at REAL NOT NULL,
                PRIMARY KEY (game_id, user_id)
            )""",
            "CREATE INDEX rating_history_guild ON rating_history(guild_id, profile, ended_at)",
            """CREATE TABLE game_ai_levels (
                game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
                level TEXT NOT NULL,
                PRIMARY KEY (game_id, level)
            )""",
            "INSERT INTO game_ai_levels (game_id, level) "
            "SELECT DISTINCT g.id, json_extract(s.value, '$.ai_level') "
            "FROM games g, json_each(g.seats) s "
            "WHERE g.result <> 'live' AND json_extract(s.value, '$.ai_level') IS NOT NULL",
            "CREATE INDEX games_guild_history ON games(guild_id, result, ended_at)",
        ),
        backfill="ratings",
    ),
    Migration(
        5,
        _WHY_SERVER_SETTINGS,
        (
            """CREATE TABLE server_settings (
                guild_id INTEGER PRIMARY KEY,
                settings_json TEXT NOT NULL,
                updated_at REAL NOT NULL
            )""",
        ),
    ),
)

POSTGRES_MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "the first schema",
        (
            """CREATE TABLE series (
                id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                guild_id BIGINT NOT NULL,
                channel_id BIGINT NOT NULL,
                host_id BIGINT NOT NULL,
                host_name TEXT NOT NULL,
                profile TEXT NOT NULL,
                rules TEXT NOT NULL,
                options TEXT NOT NULL,
                status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended')),
                games INTEGER NOT NULL DEFAULT 0,
                draws INTEGER NOT NULL DEFAULT 0,
                last_dealer INTEGER,
                last_loser INTEGER,
                last_game_id BIGINT,
                created_at DOUBLE PRECISION NOT NULL,
                ended_at DOUBLE PRECISION
            )""",
            "CREATE UNIQUE INDEX series_active_channel ON series(channel_id) "
            "WHERE status = 'active'",
            "CREATE INDEX series_guild ON series(guild_id) WHERE status = 'active'",
            """CREATE TABLE series_players (
                series_id BIGINT NOT NULL REFERENCES series(id) ON DELETE CASCADE,
                seat INTEGER NOT NULL,
                user_id BIGINT,
                name TEXT NOT NULL,
                ai_level TEXT,
                losses INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (series_id, seat)
            )""",
            """CREATE TABLE games (
                id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                series_id BIGINT NOT NULL REFERENCES series(id),
                guild_id BIGINT NOT NULL,
                channel_id BIGINT NOT NULL,
                profile TEXT NOT NULL,
                rules TEXT NOT NULL,
                seats TEXT NOT NULL,
                seed BIGINT NOT NULL,
                deal TEXT NOT NULL,
                actions TEXT,
                result TEXT NOT NULL DEFAULT 'live'
                    CHECK (result IN ('live', 'loss', 'draw', 'aborted')),
                loser_seat INTEGER,
                started_at DOUBLE PRECISION NOT NULL,
                ended_at DOUBLE PRECISION
            )""",
            "CREATE INDEX games_series ON games(series_id)",
            "CREATE INDEX games_guild_ended ON games(guild_id, ended_at)",
            """CREATE TABLE game_players (
                game_id BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
                seat INTEGER NOT NULL,
                guild_id BIGINT NOT NULL,
                user_id BIGINT NOT NULL,
                profile TEXT NOT NULL,
                name TEXT NOT NULL,
                lost INTEGER NOT NULL CHECK (lost IN (0, 1)),
                draw INTEGER NOT NULL CHECK (draw IN (0, 1)),
                ended_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (game_id, seat)
            )""",
            "CREATE INDEX game_players_board ON game_players"
            "(guild_id, profile, user_id, lost, draw)",
            "CREATE INDEX game_players_board_all ON game_players(guild_id, user_id, lost, draw)",
            "CREATE INDEX game_players_user ON game_players(guild_id, user_id, ended_at)",
            """CREATE TABLE live_games (
                game_id BIGINT PRIMARY KEY REFERENCES games(id),
                channel_id BIGINT NOT NULL UNIQUE,
                series_id BIGINT NOT NULL REFERENCES series(id),
                snapshot TEXT NOT NULL,
                meta TEXT NOT NULL,
                version INTEGER NOT NULL,
                updated_at DOUBLE PRECISION NOT NULL
            )""",
            """CREATE TABLE lobbies (
                channel_id BIGINT PRIMARY KEY,
                guild_id BIGINT NOT NULL,
                data TEXT NOT NULL,
                updated_at DOUBLE PRECISION NOT NULL
            )""",
        ),
    ),
    Migration(
        2,
        "fencing: a live row's write counter, checked by every write of the game",
        ("ALTER TABLE live_games ADD COLUMN revision INTEGER NOT NULL DEFAULT 0",),
    ),
    Migration(
        3,
        "forfeits: a player who left or was kicked from a running game, recorded at once",
        (
            """CREATE TABLE forfeits (
                game_id BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
                seat INTEGER NOT NULL,
                guild_id BIGINT NOT NULL,
                user_id BIGINT NOT NULL,
                reason TEXT NOT NULL CHECK (reason IN ('leave', 'kick')),
                move INTEGER,
                at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (game_id, seat)
            )""",
            "CREATE INDEX forfeits_user ON forfeits(guild_id, user_id)",
        ),
    ),
    Migration(
        4,
        _WHY_4,
        (
            """CREATE TABLE ratings (
                guild_id BIGINT NOT NULL,
                profile TEXT NOT NULL,
                user_id BIGINT NOT NULL,
                mu DOUBLE PRECISION NOT NULL,
                sigma DOUBLE PRECISION NOT NULL,
                games INTEGER NOT NULL,
                updated_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (guild_id, profile, user_id)
            )""",
            """CREATE TABLE rating_history (
                game_id BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
                guild_id BIGINT NOT NULL,
                profile TEXT NOT NULL,
                user_id BIGINT NOT NULL,
                place INTEGER NOT NULL,
                mu_before DOUBLE PRECISION NOT NULL,
                sigma_before DOUBLE PRECISION NOT NULL,
                mu_after DOUBLE PRECISION NOT NULL,
                sigma_after DOUBLE PRECISION NOT NULL,
                ended_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (game_id, user_id)
            )""",
            "CREATE INDEX rating_history_guild ON rating_history(guild_id, profile, ended_at)",
            """CREATE TABLE game_ai_levels (
                game_id BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
                level TEXT NOT NULL,
                PRIMARY KEY (game_id, level)
            )""",
            "INSERT INTO game_ai_levels (game_id, level) "
            "SELECT DISTINCT g.id, s.value ->> 'ai_level' "
            "FROM games g, json_array_elements(g.seats::json) AS s(value) "
            "WHERE g.result <> 'live' AND s.value ->> 'ai_level' IS NOT NULL",
            "CREATE INDEX games_guild_history ON games(guild_id, result, ended_at)",
        ),
        backfill="ratings",
    ),
    Migration(
        5,
        _WHY_SERVER_SETTINGS,
        (
            """CREATE TABLE server_settings (
                guild_id BIGINT PRIMARY KEY,
                settings_json TEXT NOT NULL,
                updated_at DOUBLE PRECISION NOT NULL
            )""",
        ),
    ),
)


def check_numbering(migrations: tuple[Migration, ...]) -> None:
    """Raise ``ValueError`` unless the migrations are numbered 1, 2, 3… in order."""
    numbers = [m.number for m in migrations]
    if numbers != list(range(1, len(numbers) + 1)):
        raise ValueError(f"migrations must be numbered 1, 2, 3…: got {numbers}")
