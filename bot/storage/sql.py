"""SQL shared by the backends, written with ``?`` placeholders (PostgreSQL gets ``$n`` from
:func:`numbered`).  Only statements that read the same on SQLite and PostgreSQL live here."""

from __future__ import annotations

import re

__all__ = ["numbered"]

LOBBY_UPSERT = (
    "INSERT INTO lobbies (channel_id, guild_id, data, updated_at) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (channel_id) DO UPDATE SET guild_id = excluded.guild_id, "
    "data = excluded.data, updated_at = excluded.updated_at"
)
LOBBY_DELETE = "DELETE FROM lobbies WHERE channel_id = ?"
SERIES_PLAYER_INSERT = (
    "INSERT INTO series_players (series_id, seat, user_id, name, ai_level) VALUES (?, ?, ?, ?, ?)"
)
SERIES_LAST_GAME = "UPDATE series SET last_game_id = ? WHERE id = ?"
LIVE_INSERT = (
    "INSERT INTO live_games (game_id, channel_id, series_id, snapshot, meta, version, "
    "updated_at, revision) VALUES (?, ?, ?, ?, ?, 0, ?, ?)"
)
#: The fenced per-move write: params (snapshot, meta, version, now, game_id, held revision).
LIVE_SAVE = (
    "UPDATE live_games SET snapshot = ?, meta = ?, version = ?, updated_at = ?, "
    "revision = revision + 1 WHERE game_id = ? AND revision = ?"
)
#: The fenced end of a live game: params (game_id, held revision).
LIVE_DELETE_FENCED = "DELETE FROM live_games WHERE game_id = ? AND revision = ?"
GAME_FINISH = "UPDATE games SET actions = ?, result = ?, loser_seat = ?, ended_at = ? WHERE id = ?"
GAME_PLAYER_INSERT = (
    "INSERT INTO game_players (game_id, seat, guild_id, user_id, profile, name, lost, draw, "
    "ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
SERIES_COUNTS = (
    "UPDATE series SET games = ?, draws = ?, last_dealer = ?, last_loser = ? WHERE id = ?"
)
SERIES_PLAYER_LOSSES = "UPDATE series_players SET losses = ? WHERE series_id = ? AND seat = ?"
SERIES_END = "UPDATE series SET status = 'ended', ended_at = ? WHERE id = ?"
SERIES_END_ACTIVE = (
    "UPDATE series SET status = 'ended', ended_at = ? WHERE id = ? AND status = 'active'"
)
#: Live rows whose series is not active: nobody can serve them, and they block their channel.
ORPHAN_LIVE = (
    "SELECT l.game_id, l.snapshot FROM live_games l WHERE NOT EXISTS "
    "(SELECT 1 FROM series s WHERE s.id = l.series_id AND s.status = 'active')"
)
ORPHAN_ABORT = (
    "UPDATE games SET result = 'aborted', actions = ?, ended_at = ? "
    "WHERE id = ? AND result = 'live'"
)
ORPHAN_DELETE = "DELETE FROM live_games WHERE game_id = ?"

LOAD_LOBBIES = "SELECT channel_id, guild_id, data FROM lobbies ORDER BY channel_id"
LOAD_SERIES = (
    "SELECT id, channel_id, guild_id, host_id, host_name, options, rules, profile, "
    "games, draws, last_dealer, last_loser, last_game_id, created_at "
    "FROM series WHERE status = 'active' ORDER BY id"
)
LOAD_SERIES_PLAYERS = (
    "SELECT sp.series_id, sp.user_id, sp.name, sp.ai_level, sp.losses "
    "FROM series_players sp JOIN series s ON s.id = sp.series_id "
    "WHERE s.status = 'active' ORDER BY sp.series_id, sp.seat"
)
LOAD_LIVE = (
    "SELECT l.game_id, l.channel_id, l.series_id, l.snapshot, l.meta, l.version, g.guild_id, "
    "l.revision FROM live_games l JOIN games g ON g.id = l.game_id ORDER BY l.game_id"
)
LOAD_GAME = "SELECT rules, deal, actions, result FROM games WHERE id = ?"
SERVER_SETTINGS_LOAD = "SELECT settings_json FROM server_settings WHERE guild_id = ?"
SERVER_SETTINGS_UPSERT = (
    "INSERT INTO server_settings (guild_id, settings_json, updated_at) VALUES (?, ?, ?) "
    "ON CONFLICT (guild_id) DO UPDATE SET settings_json = excluded.settings_json, "
    "updated_at = excluded.updated_at"
)

STATS_ALL = (
    "SELECT profile, COUNT(*), SUM(lost), SUM(draw) FROM game_players "
    "WHERE guild_id = ? AND user_id = ? GROUP BY profile ORDER BY profile"
)
STATS_PROFILE = (
    "SELECT profile, COUNT(*), SUM(lost), SUM(draw) FROM game_players "
    "WHERE guild_id = ? AND user_id = ? AND profile = ? GROUP BY profile"
)
LATEST_NAME = (
    "SELECT name FROM game_players WHERE guild_id = ? AND user_id = ? "
    "ORDER BY ended_at DESC LIMIT 1"
)
BOARD_ALL = (
    "SELECT user_id, COUNT(*) AS games, SUM(lost) AS losses, SUM(draw) AS draws, "
    "CAST(SUM(lost) AS DOUBLE PRECISION) / COUNT(*) AS loss_rate, "
    "(SELECT name FROM game_players n WHERE n.guild_id = g.guild_id "
    " AND n.user_id = g.user_id ORDER BY n.ended_at DESC LIMIT 1) AS name "
    "FROM game_players g WHERE guild_id = ? "
    "GROUP BY guild_id, user_id HAVING COUNT(*) >= ? "
    "ORDER BY loss_rate ASC, games DESC, user_id ASC LIMIT ? OFFSET ?"
)
BOARD_PROFILE = (
    "SELECT user_id, COUNT(*) AS games, SUM(lost) AS losses, SUM(draw) AS draws, "
    "CAST(SUM(lost) AS DOUBLE PRECISION) / COUNT(*) AS loss_rate, "
    "(SELECT name FROM game_players n WHERE n.guild_id = g.guild_id "
    " AND n.user_id = g.user_id ORDER BY n.ended_at DESC LIMIT 1) AS name "
    "FROM game_players g WHERE guild_id = ? AND profile = ? "
    "GROUP BY guild_id, user_id HAVING COUNT(*) >= ? "
    "ORDER BY loss_rate ASC, games DESC, user_id ASC LIMIT ? OFFSET ?"
)
COUNT_ALL = (
    "SELECT COUNT(*) FROM (SELECT user_id FROM game_players WHERE guild_id = ? "
    "GROUP BY user_id HAVING COUNT(*) >= ?) AS ranked"
)
COUNT_PROFILE = (
    "SELECT COUNT(*) FROM (SELECT user_id FROM game_players WHERE guild_id = ? "
    "AND profile = ? GROUP BY user_id HAVING COUNT(*) >= ?) AS ranked"
)

_PLACEHOLDER = re.compile(r"\?")


def numbered(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1, $2, …`` (no ``?`` occurs in our literals)."""
    counter = iter(range(1, sql.count("?") + 1))
    return _PLACEHOLDER.sub(lambda _m: f"${next(counter)}", sql)
