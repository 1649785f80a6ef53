"""The SQL statements of :class:`bot.storage.sql_store.SqlStore`, written once with ``?``
placeholders (the PostgreSQL driver numbers them ``$1, $2, …``).  Every statement here reads
the same on SQLite and PostgreSQL; what differs between them lives in the backend modules."""

from __future__ import annotations

SCHEMA_VERSION = "SELECT COALESCE(MAX(version), 0) FROM schema_version"
SCHEMA_VERSION_INSERT = "INSERT INTO schema_version (version) VALUES (?)"

LOBBY_UPSERT = (
    "INSERT INTO lobbies (channel_id, guild_id, data, updated_at) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (channel_id) DO UPDATE SET guild_id = excluded.guild_id, "
    "data = excluded.data, updated_at = excluded.updated_at"
)
LOBBY_DELETE = "DELETE FROM lobbies WHERE channel_id = ?"
#: A new series (its id is returned by the driver's ``insert``).
SERIES_INSERT = (
    "INSERT INTO series (guild_id, channel_id, host_id, host_name, profile, rules, options, "
    "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
SERIES_PLAYER_INSERT = (
    "INSERT INTO series_players (series_id, seat, user_id, name, ai_level) VALUES (?, ?, ?, ?, ?)"
)
SERIES_LAST_GAME = "UPDATE series SET last_game_id = ? WHERE id = ?"
#: A new game (its id is returned by the driver's ``insert``).
GAME_INSERT = (
    "INSERT INTO games (series_id, guild_id, channel_id, profile, rules, seats, seed, deal, "
    "started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
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
#: One series, active or ended: the columns of LOAD_SERIES and its status.
SERIES_BY_ID = (
    "SELECT id, channel_id, guild_id, host_id, host_name, options, rules, profile, "
    "games, draws, last_dealer, last_loser, last_game_id, created_at, status "
    "FROM series WHERE id = ?"
)
SERIES_PLAYERS_OF = (
    "SELECT user_id, name, ai_level, losses FROM series_players WHERE series_id = ? ORDER BY seat"
)
#: The per-player rows of a finished game (human seats), by seat.
GAME_PLAYERS_OF = (
    "SELECT seat, user_id, name, lost, draw FROM game_players WHERE game_id = ? ORDER BY seat"
)
LOAD_LIVE = (
    "SELECT l.game_id, l.channel_id, l.series_id, l.snapshot, l.meta, l.version, g.guild_id, "
    "l.revision FROM live_games l JOIN games g ON g.id = l.game_id ORDER BY l.game_id"
)
LOAD_LIVE_ONE = (
    "SELECT l.game_id, l.channel_id, l.series_id, l.snapshot, l.meta, l.version, g.guild_id, "
    "l.revision FROM live_games l JOIN games g ON g.id = l.game_id WHERE l.game_id = ?"
)
#: A live game's row (the columns of :data:`LOAD_LIVE_ONE`) followed by one of its forfeits'
#: ``user_id, seat, at, reason, move`` (NULLs when it has none), a row per forfeit in order.
LOAD_LIVE_WITH_FORFEITS = (
    "SELECT l.game_id, l.channel_id, l.series_id, l.snapshot, l.meta, l.version, g.guild_id, "
    "l.revision, f.user_id, f.seat, f.at, f.reason, f.move FROM live_games l "
    "JOIN games g ON g.id = l.game_id LEFT JOIN forfeits f ON f.game_id = l.game_id "
    "WHERE l.game_id = ? ORDER BY f.at, f.seat"
)
LOAD_GAME = (
    "SELECT rules, deal, actions, result, guild_id, seats, loser_seat, ended_at "
    "FROM games WHERE id = ?"
)
SERVER_SETTINGS_LOAD = "SELECT settings_json FROM server_settings WHERE guild_id = ?"
SERVER_SETTINGS_UPSERT = (
    "INSERT INTO server_settings (guild_id, settings_json, updated_at) VALUES (?, ?, ?) "
    "ON CONFLICT (guild_id) DO UPDATE SET settings_json = excluded.settings_json, "
    "updated_at = excluded.updated_at"
)

#: The bot's own values (``bot_meta``, one row per key; see ``Storage.get_meta``).
META_GET = "SELECT value FROM bot_meta WHERE key = ?"
META_UPSERT = (
    "INSERT INTO bot_meta (key, value, updated_at) VALUES (?, ?, ?) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at"
)
#: The first value of a key wins: a second insert changes nothing.
META_INSERT_ONCE = (
    "INSERT INTO bot_meta (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING"
)

#: The next number of a counter (``numbers``, migration 8), in one statement: params (name).
#: A counter not yet written starts at 0, so its first number is 1.
NUMBER_ENSURE = "INSERT INTO numbers (name, taken) VALUES (?, 0) ON CONFLICT (name) DO NOTHING"
NUMBER_TAKE = "UPDATE numbers SET taken = taken + 1 WHERE name = ? RETURNING taken"

#: A forfeit, at most one per seat of a game: params (game_id, seat, guild_id, user_id,
#: reason, move, at).
FORFEIT_INSERT = (
    "INSERT INTO forfeits (game_id, seat, guild_id, user_id, reason, move, at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id, seat) DO NOTHING"
)
#: The fence of a forfeit: the live row must still be at the revision the caller holds.
LIVE_BUMP_FENCED = (
    "UPDATE live_games SET revision = revision + 1, updated_at = ? "
    "WHERE game_id = ? AND revision = ?"
)
FORFEITS_OF_GAME = (
    "SELECT game_id, user_id, seat, at, reason, move FROM forfeits WHERE game_id = ? "
    "ORDER BY at, seat"
)

#: Forfeits of one player (params guild_id, user_id) in the grouped row's profile.
_FORFEITS_IN_PROFILE = (
    "(SELECT COUNT(*) FROM forfeits f JOIN games fg ON fg.id = f.game_id "
    "WHERE f.guild_id = ? AND f.user_id = ? AND fg.profile = p.profile)"
)
#: A player's totals per profile, their forfeits there, and their rating there (NULLs: not
#: rated in it).  Params: guild_id, user_id (forfeits), guild_id, user_id[, profile].
STATS_ALL = (
    "SELECT p.profile, COUNT(*), SUM(p.lost), SUM(p.draw), " + _FORFEITS_IN_PROFILE + ", "
    "r.mu, r.sigma, r.games "
    "FROM game_players p LEFT JOIN ratings r ON r.guild_id = p.guild_id "
    "AND r.profile = p.profile AND r.user_id = p.user_id "
    "WHERE p.guild_id = ? AND p.user_id = ? "
    "GROUP BY p.profile, r.mu, r.sigma, r.games ORDER BY p.profile"
)
STATS_PROFILE = (
    "SELECT p.profile, COUNT(*), SUM(p.lost), SUM(p.draw), " + _FORFEITS_IN_PROFILE + ", "
    "r.mu, r.sigma, r.games "
    "FROM game_players p LEFT JOIN ratings r ON r.guild_id = p.guild_id "
    "AND r.profile = p.profile AND r.user_id = p.user_id "
    "WHERE p.guild_id = ? AND p.user_id = ? AND p.profile = ? "
    "GROUP BY p.profile, r.mu, r.sigma, r.games"
)
#: A player's games with AI seats, per AI level (a game with two levels counts for both).
STATS_AI_ALL = (
    "SELECT a.level, COUNT(*), SUM(p.lost), SUM(p.draw) FROM game_players p "
    "JOIN game_ai_levels a ON a.game_id = p.game_id "
    "WHERE p.guild_id = ? AND p.user_id = ? GROUP BY a.level ORDER BY a.level"
)
STATS_AI_PROFILE = (
    "SELECT a.level, COUNT(*), SUM(p.lost), SUM(p.draw) FROM game_players p "
    "JOIN game_ai_levels a ON a.game_id = p.game_id "
    "WHERE p.guild_id = ? AND p.user_id = ? AND p.profile = ? GROUP BY a.level ORDER BY a.level"
)
LATEST_NAME = (
    "SELECT name FROM game_players WHERE guild_id = ? AND user_id = ? "
    "ORDER BY ended_at DESC LIMIT 1"
)
#: The rated players of a profile by conservative estimate (mu - 3 sigma), with their totals
#: in that profile.  Params: guild, profile (totals), guild, profile, min rated games, limit,
#: offset.
BOARD_PROFILE = (
    "SELECT r.user_id, r.mu, r.sigma, r.games, COALESCE(t.games, 0), COALESCE(t.losses, 0), "
    "COALESCE(t.draws, 0), "
    "(SELECT n.name FROM game_players n WHERE n.guild_id = r.guild_id "
    " AND n.user_id = r.user_id ORDER BY n.ended_at DESC LIMIT 1) AS name "
    "FROM ratings r LEFT JOIN (SELECT user_id, COUNT(*) AS games, SUM(lost) AS losses, "
    "SUM(draw) AS draws FROM game_players WHERE guild_id = ? AND profile = ? "
    "GROUP BY user_id) t ON t.user_id = r.user_id "
    "WHERE r.guild_id = ? AND r.profile = ? AND r.games >= ? "
    "ORDER BY r.mu - 3 * r.sigma DESC, r.games DESC, r.user_id ASC LIMIT ? OFFSET ?"
)
COUNT_PROFILE = "SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND profile = ? AND games >= ?"

#: One player's current rating (read with a row lock where the backend has them).
RATING_OF = (
    "SELECT mu, sigma, games FROM ratings WHERE guild_id = ? AND profile = ? AND user_id = ?"
)
RATING_UPSERT = (
    "INSERT INTO ratings (guild_id, profile, user_id, mu, sigma, games, updated_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, profile, user_id) DO UPDATE SET "
    "mu = excluded.mu, sigma = excluded.sigma, games = excluded.games, "
    "updated_at = excluded.updated_at"
)
RATING_HISTORY_INSERT = (
    "INSERT INTO rating_history (game_id, guild_id, profile, user_id, place, mu_before, "
    "sigma_before, mu_after, sigma_after, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
#: The finished games to rate when migration 4 fills in the ratings, in the order they ended.
BACKFILL_GAMES = (
    "SELECT id, guild_id, profile, rules, deal, actions, seats, ended_at FROM games "
    "WHERE result IN ('loss', 'draw') AND ended_at IS NOT NULL ORDER BY ended_at, id"
)
GAME_AI_LEVEL_INSERT = "INSERT INTO game_ai_levels (game_id, level) VALUES (?, ?)"
#: Every rated game's places (one row per rated player), for recomputing ratings.
RATED_GAMES = (
    "SELECT game_id, guild_id, profile, ended_at, user_id, place FROM rating_history "
    "ORDER BY ended_at, game_id, user_id"
)
ALL_RATINGS = "SELECT guild_id, profile, user_id, mu, sigma, games FROM ratings"

#: A guild's ended games, newest first.  Params: guild, limit, offset.
HISTORY_GUILD = (
    "SELECT id, profile, rules, seats, result, loser_seat, ended_at FROM games "
    "WHERE guild_id = ? AND result <> 'live' AND ended_at IS NOT NULL "
    "ORDER BY ended_at DESC, id DESC LIMIT ? OFFSET ?"
)
HISTORY_GUILD_COUNT = (
    "SELECT COUNT(*) FROM games WHERE guild_id = ? AND result <> 'live' AND ended_at IS NOT NULL"
)
#: The ended games of one player of a guild (those with a result row for them): params guild,
#: user, limit, offset.
HISTORY_USER = (
    "SELECT g.id, g.profile, g.rules, g.seats, g.result, g.loser_seat, g.ended_at FROM games g "
    "WHERE g.guild_id = ? AND g.result <> 'live' AND g.ended_at IS NOT NULL AND EXISTS "
    "(SELECT 1 FROM game_players p WHERE p.game_id = g.id AND p.user_id = ?) "
    "ORDER BY g.ended_at DESC, g.id DESC LIMIT ? OFFSET ?"
)
HISTORY_USER_COUNT = (
    "SELECT COUNT(*) FROM games g WHERE g.guild_id = ? AND g.result <> 'live' "
    "AND g.ended_at IS NOT NULL AND EXISTS "
    "(SELECT 1 FROM game_players p WHERE p.game_id = g.id AND p.user_id = ?)"
)

# ---------------------------------------------------------------------------- channel fences
#: A channel's fence (its write counter) and owner; no row reads as 0 and no owner.
FENCE_OF = "SELECT revision, owner FROM channel_fences WHERE channel_id = ?"
#: The fenced advance of a channel's fence: params (channel_id, held revision).
FENCE_ADVANCE = (
    "UPDATE channel_fences SET revision = revision + 1 WHERE channel_id = ? AND revision = ?"
)
#: The first write of a channel (held revision 0): the row appears at 1, unless another
#: process created it first (then nothing changes and the write is refused).
FENCE_CREATE = (
    "INSERT INTO channel_fences (channel_id, revision) VALUES (?, 1) "
    "ON CONFLICT (channel_id) DO NOTHING"
)
#: An unconditional advance (a write that must also fence out every other copy).
FENCE_BUMP = "UPDATE channel_fences SET revision = revision + 1 WHERE channel_id = ?"
LOAD_FENCES = "SELECT channel_id, revision, owner FROM channel_fences ORDER BY channel_id"
CHANNEL_OF_GAME = "SELECT channel_id FROM games WHERE id = ?"
CHANNEL_OF_SERIES = "SELECT channel_id FROM series WHERE id = ?"
#: :data:`LOAD_LOBBIES` and the like, of one channel.
LOAD_LOBBY_OF_CHANNEL = "SELECT channel_id, guild_id, data FROM lobbies WHERE channel_id = ?"
LOAD_SERIES_OF_CHANNEL = (
    "SELECT id, channel_id, guild_id, host_id, host_name, options, rules, profile, "
    "games, draws, last_dealer, last_loser, last_game_id, created_at "
    "FROM series WHERE status = 'active' AND channel_id = ? ORDER BY id"
)
LOAD_SERIES_PLAYERS_OF_CHANNEL = (
    "SELECT sp.series_id, sp.user_id, sp.name, sp.ai_level, sp.losses "
    "FROM series_players sp JOIN series s ON s.id = sp.series_id "
    "WHERE s.status = 'active' AND s.channel_id = ? ORDER BY sp.series_id, sp.seat"
)
LOAD_LIVE_OF_CHANNEL = (
    "SELECT l.game_id, l.channel_id, l.series_id, l.snapshot, l.meta, l.version, g.guild_id, "
    "l.revision FROM live_games l JOIN games g ON g.id = l.game_id WHERE l.channel_id = ? "
    "ORDER BY l.game_id"
)
#: Every live game's channel, game and revision (the resync compares them with its copies).
LIVE_REVISIONS = "SELECT channel_id, game_id, revision FROM live_games"
#: The channels of a guild that hold an open lobby or an active series: params (guild, guild).
OPEN_CHANNELS = (
    "SELECT channel_id FROM lobbies WHERE guild_id = ? UNION "
    "SELECT channel_id FROM series WHERE guild_id = ? AND status = 'active'"
)
#: Every channel fence, with the guild of the channel's lobby or active series (NULL if it
#: holds neither).
CHANNEL_FENCES = (
    "SELECT f.channel_id, f.revision, COALESCE(l.guild_id, s.guild_id) FROM channel_fences f "
    "LEFT JOIN lobbies l ON l.channel_id = f.channel_id "
    "LEFT JOIN series s ON s.channel_id = f.channel_id AND s.status = 'active'"
)

# ------------------------------------------------------------- one user, in every server
# What is stored about a user (``/durak privacy``) and their erasure (``/durak forget-me``):
# see :mod:`bot.storage.player_data`.  A JSON column is searched by the id's digits
# (``player_data.digits_pattern``), and the rows found are read again.

#: The games whose seats may hold the user, with the channel of a live one (``l.game_id``:
#: NULL once it ended).  Params: the digits pattern.
PLAYER_GAMES = (
    "SELECT g.id, g.guild_id, g.channel_id, g.seats, g.result, g.started_at, g.ended_at, "
    "l.game_id FROM games g LEFT JOIN live_games l ON l.game_id = g.id WHERE g.seats LIKE ?"
)
#: The user's results (their stats) per guild, and the names stored with them.
PLAYER_RESULTS = "SELECT guild_id, COUNT(*) FROM game_players WHERE user_id = ? GROUP BY guild_id"
PLAYER_RESULT_NAMES = "SELECT DISTINCT name FROM game_players WHERE user_id = ?"
PLAYER_FORFEITS = "SELECT guild_id, COUNT(*) FROM forfeits WHERE user_id = ? GROUP BY guild_id"
PLAYER_RATINGS = (
    "SELECT guild_id, profile, mu, sigma, games FROM ratings WHERE user_id = ? "
    "ORDER BY guild_id, profile"
)
PLAYER_RATING_CHANGES = (
    "SELECT guild_id, COUNT(*) FROM rating_history WHERE user_id = ? GROUP BY guild_id"
)
#: The series the user hosted, and those they sat in (with their name there).
PLAYER_SERIES_HOSTED = (
    "SELECT id, guild_id, channel_id, status, host_name FROM series WHERE host_id = ?"
)
PLAYER_SERIES_SEATS = (
    "SELECT s.id, s.guild_id, s.channel_id, s.status, p.name FROM series_players p "
    "JOIN series s ON s.id = p.series_id WHERE p.user_id = ?"
)
#: The open lobbies whose JSON may hold the user.  Params: the digits pattern.
PLAYER_LOBBIES = "SELECT channel_id, guild_id, data FROM lobbies WHERE data LIKE ?"

#: A finished game's seats with the user's made a former player's: params (seats, game id).
FORGET_GAME_SEATS = "UPDATE games SET seats = ? WHERE id = ? AND result <> 'live'"
FORGET_RESULTS = "DELETE FROM game_players WHERE user_id = ?"
FORGET_RATINGS = "DELETE FROM ratings WHERE user_id = ?"
FORGET_RATING_HISTORY = "DELETE FROM rating_history WHERE user_id = ?"
#: The user's forfeits of finished games stay (a replay shows where the AI took the seat
#: over), under the former player's id: params (former id, user id).
FORGET_FORFEITS = (
    "UPDATE forfeits SET user_id = ? WHERE user_id = ? "
    "AND game_id IN (SELECT id FROM games WHERE result <> 'live')"
)
#: The ended series the user hosted or sat in: params (former id, former name, user id).
FORGET_SERIES_HOST = (
    "UPDATE series SET host_id = ?, host_name = ? WHERE host_id = ? AND status = 'ended'"
)
FORGET_SERIES_SEATS = (
    "UPDATE series_players SET user_id = ?, name = ? WHERE user_id = ? "
    "AND series_id IN (SELECT id FROM series WHERE status = 'ended')"
)
FORGET_REVIEWS = "DELETE FROM game_reviews WHERE user_id = ?"
PLAYER_REVIEWS = "SELECT COUNT(*) FROM game_reviews WHERE user_id = ?"

# ------------------------------------------------------------- the coach's reviews
#: A stored review: params (game id, user id, deals, seed).
REVIEW_GET = (
    "SELECT seat, accuracy, data FROM game_reviews "
    "WHERE game_id = ? AND user_id = ? AND deals = ? AND seed = ?"
)
#: Store a review (a newer one of the same game and player replaces it): params (game id,
#: user id, seat, deals, seed, accuracy, data, now).
REVIEW_PUT = (
    "INSERT INTO game_reviews (game_id, user_id, seat, deals, seed, accuracy, data, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id, user_id) DO UPDATE SET "
    "seat = excluded.seat, deals = excluded.deals, seed = excluded.seed, "
    "accuracy = excluded.accuracy, data = excluded.data, created_at = excluded.created_at"
)
#: A player's mean accuracy over their reviewed games (``/durak stats``), and how many.
REVIEW_ACCURACY = "SELECT AVG(accuracy), COUNT(accuracy) FROM game_reviews WHERE user_id = ?"

#: One game's seats (a replay names its players from them at every press).
GAME_SEATS = "SELECT seats FROM games WHERE id = ?"
