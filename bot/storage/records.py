"""The rows the service stores and reads back, as plain dataclasses (no database types), and
the JSON forms of lobby seats and options shared by every backend."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.player_records import LeaderboardRow
from bot.ratings import RatedGame, Rating, apply_game, finishing_places, should_rate
from bot.seating import LobbyOptions, LobbySeat
from rules_engine import Deal, DurakError, Rules

__all__ = [
    "FIRST_REVISION",
    "FinishedGame",
    "GameRecord",
    "HistoryRecord",
    "LiveRecord",
    "LobbyRecord",
    "NewGame",
    "PlayerResult",
    "RatingUpdate",
    "ReviewRecord",
    "SeriesRecord",
    "StoredState",
    "actions_of_snapshot",
    "backfill_games",
    "board_row",
    "every_guild",
    "game_record_from_row",
    "history_from_row",
    "lobby_from_json",
    "lobby_json",
    "options_from_json",
    "options_json",
    "rated_games_from_rows",
    "rating_updates",
    "seats_from",
    "seats_json",
    "series_from_row",
]

#: The fencing revision of a live row as :meth:`Storage.start_game` creates it.
FIRST_REVISION = 0


@dataclass(slots=True)
class LobbyRecord:
    """An open lobby of a channel."""

    channel_id: int
    guild_id: int
    host_id: int
    host_name: str
    options: LobbyOptions
    seats: list[LobbySeat]
    created_at: float


@dataclass(slots=True)
class SeriesRecord:
    """A channel's series: same seats, loss counts per seat, who dealt and lost last."""

    id: int | None
    channel_id: int
    guild_id: int
    host_id: int
    host_name: str
    options: LobbyOptions
    rules: dict[str, Any]
    profile: str
    seats: list[LobbySeat]
    losses: list[int]
    games: int = 0
    draws: int = 0
    last_dealer: int | None = None
    last_loser: int | None = None
    last_game_id: int | None = None
    active: bool = True
    created_at: float = 0.0


@dataclass(slots=True)
class NewGame:
    """A game about to be dealt (its ``games`` row and its live row)."""

    channel_id: int
    guild_id: int
    profile: str
    rules: dict[str, Any]
    seats: list[LobbySeat]
    seed: int
    deal: dict[str, Any]
    started_at: float
    snapshot: str  # JSON
    meta: str  # JSON


@dataclass(slots=True)
class LiveRecord:
    """A game in progress as stored: ``version`` is the engine's action count, ``revision``
    the live row's write counter (the fencing token every later write of it must present)."""

    game_id: int
    channel_id: int
    series_id: int
    snapshot: Any  # a JSON object, unless the row is damaged (then whatever it holds)
    meta: Any  # likewise
    version: int
    guild_id: int
    revision: int


@dataclass(slots=True)
class PlayerResult:
    """One human seat's outcome of a finished game (for stats and leaderboards)."""

    seat: int
    user_id: int
    name: str
    lost: bool
    draw: bool


@dataclass(slots=True)
class FinishedGame:
    """The end of a game: its result (or the abort) and the per-player rows.

    ``forfeits``: the seats whose player forfeited the game (left or was kicked); each counts
    as a loss for that player (once, also when that seat ends as the durak), and is already
    recorded in storage by :meth:`Storage.record_forfeit`."""

    game_id: int
    series_id: int
    guild_id: int
    profile: str
    result: str  # 'loss' | 'draw' | 'aborted'
    loser_seat: int | None
    actions: list[str]
    ended_at: float
    players: list[PlayerResult] = field(default_factory=list)
    #: Seats whose player forfeited (left or was kicked): their loss counts once.
    forfeits: tuple[int, ...] = ()
    #: The AI levels seated at the deal, each once (stats count games against each level).
    ai_levels: tuple[str, ...] = ()
    #: The rated humans' places, ``(user_id, place)`` sorted by user id (see
    #: :class:`bot.ratings.RatedGame`); empty when the game does not change ratings.  The
    #: storage rates them in the transaction that records the game.
    rated_places: tuple[tuple[int, int], ...] = ()


@dataclass(slots=True)
class StoredState:
    """What a process restores at startup: open lobbies, active series and live games."""

    lobbies: list[LobbyRecord]
    series: list[SeriesRecord]
    live: list[LiveRecord]
    #: The channel fences (write counters) of those channels, by channel id; a channel with
    #: none stored is at 0 (see :class:`bot.storage.base.Storage`).
    fences: dict[int, int] = field(default_factory=dict)
    #: The process that runs each channel's timers and AI turns (migration 10), by channel id,
    #: where one is stored (see :meth:`bot.storage.base.Storage.claim_channel`).
    owners: dict[int, int] = field(default_factory=dict)


@dataclass(slots=True)
class GameRecord:
    """A stored game (finished or not) as needed to rebuild its last position."""

    game_id: int
    rules: dict[str, Any]
    deal: dict[str, Any]
    actions: list[str]
    result: str
    guild_id: int = 0
    seats: list[LobbySeat] = field(default_factory=list)
    loser_seat: int | None = None
    ended_at: float | None = None


@dataclass(frozen=True, slots=True)
class HistoryRecord:
    """One ended game of a guild's history (``/durak history``): when, rules, who, result."""

    game_id: int
    profile: str
    rules: dict[str, Any]
    seats: tuple[LobbySeat, ...]
    result: str  # 'loss' | 'draw' | 'aborted'
    loser_seat: int | None
    ended_at: float


@dataclass(frozen=True, slots=True)
class ReviewRecord:
    """The coach's review of one player's decisions in a game, as kept (one per game and
    player): made with ``deals`` sampled deals and ``seed``, ``data`` its JSON
    (``GameReview.to_dict()``), ``accuracy`` ``None`` when the player never had a choice."""

    game_id: int
    user_id: int
    seat: int
    deals: int
    seed: int
    accuracy: float | None
    data: str
    created_at: float


# ---------------------------------------------------------------------------------- JSON
def seats_json(seats: Sequence[LobbySeat]) -> str:
    """Seats as stored in ``games.seats``."""
    return json.dumps([_seat_json(s) for s in seats], ensure_ascii=False)


def _seat_json(s: LobbySeat) -> dict[str, Any]:
    """One seat's JSON; ``team`` only in a lobby played in teams (so other rows are as they
    always were)."""
    data: dict[str, Any] = {"user_id": s.user_id, "name": s.name, "ai_level": s.ai_level}
    if s.team is not None:
        data["team"] = s.team
    return data


def seats_from(data: list[dict[str, Any]]) -> list[LobbySeat]:
    """The inverse of :func:`seats_json` (after ``json.loads``)."""
    return [
        LobbySeat(d.get("user_id"), str(d["name"]), d.get("ai_level"), d.get("team")) for d in data
    ]


def options_json(o: LobbyOptions) -> str:
    """Lobby options as stored in ``series.options``.  The table options (``deck``,
    ``show_trump``, ``teams``) are written only when given, so the options of other lobbies
    are stored as they always were (and rows stored before them read back unchanged)."""
    data: dict[str, Any] = {
        "rules": o.rules,
        "transfer": o.transfer,
        "throw_in": o.throw_in,
        "first_round_limit": o.first_round_limit,
        "turn_timeout": o.turn_timeout,
        "seats": o.seats,
    }
    for key in ("deck", "show_trump", "teams"):
        value = getattr(o, key)
        if value is not None:
            data[key] = value
    return json.dumps(data)


def options_from_json(text: str) -> LobbyOptions:
    """The inverse of :func:`options_json`."""
    return LobbyOptions(**json.loads(text))


def lobby_json(lobby: LobbyRecord) -> str:
    """A lobby as stored in ``lobbies.data``."""
    return json.dumps(
        {
            "host_id": lobby.host_id,
            "host_name": lobby.host_name,
            "options": json.loads(options_json(lobby.options)),
            "seats": json.loads(seats_json(lobby.seats)),
            "created_at": lobby.created_at,
        },
        ensure_ascii=False,
    )


def lobby_from_json(channel_id: int, guild_id: int, data: str) -> LobbyRecord:
    """The inverse of :func:`lobby_json`."""
    d = json.loads(data)
    return LobbyRecord(
        channel_id=channel_id,
        guild_id=guild_id,
        host_id=d["host_id"],
        host_name=d["host_name"],
        options=LobbyOptions(**d["options"]),
        seats=seats_from(d["seats"]),
        created_at=d["created_at"],
    )


def series_from_row(row: Sequence[Any]) -> SeriesRecord:
    """A :class:`SeriesRecord` (without seats) from a row of ``sql.LOAD_SERIES``."""
    return SeriesRecord(
        id=row[0],
        channel_id=row[1],
        guild_id=row[2],
        host_id=row[3],
        host_name=row[4],
        options=options_from_json(row[5]),
        rules=json.loads(row[6]),
        profile=row[7],
        seats=[],
        losses=[],
        games=row[8],
        draws=row[9],
        last_dealer=row[10],
        last_loser=row[11],
        last_game_id=row[12],
        created_at=row[13],
    )


def actions_of_snapshot(snapshot: str) -> str:
    """The action list of a stored snapshot, as ``games.actions`` keeps it ("[]" if none)."""
    try:
        actions = json.loads(snapshot).get("actions") or []
    except (ValueError, AttributeError):
        actions = []
    return json.dumps(actions, ensure_ascii=False)


def game_record_from_row(game_id: int, row: Sequence[Any]) -> GameRecord:
    """A :class:`GameRecord` from a row of ``sql.LOAD_GAME``."""
    return GameRecord(
        game_id,
        json.loads(row[0]),
        json.loads(row[1]),
        json.loads(row[2] or "[]"),
        row[3],
        guild_id=int(row[4]),
        seats=seats_from(json.loads(row[5])),
        loser_seat=row[6],
        ended_at=row[7],
    )


def history_from_row(row: Sequence[Any]) -> HistoryRecord:
    """A :class:`HistoryRecord` from a row of ``sql.HISTORY_GUILD``/``HISTORY_USER``."""
    return HistoryRecord(
        game_id=int(row[0]),
        profile=row[1],
        rules=json.loads(row[2]),
        seats=tuple(seats_from(json.loads(row[3]))),
        result=row[4],
        loser_seat=row[5],
        ended_at=float(row[6]),
    )


@dataclass(frozen=True, slots=True)
class RatingUpdate:
    """One rated player's change from a game: ``games`` counts their rated games after it."""

    user_id: int
    place: int
    before: Rating
    after: Rating
    games: int


def rating_updates(game: FinishedGame, before: dict[int, tuple[Rating, int]]) -> list[RatingUpdate]:
    """The rating changes of ``game``'s rated players (``game.rated_places``) from their
    ratings and rated-game counts ``before`` it (a player absent there is new), computed by
    :func:`bot.ratings.apply_game`: the same step :func:`bot.ratings.recompute` repeats."""
    rated = RatedGame(game.game_id, game.guild_id, game.profile, game.ended_at, game.rated_places)
    current = {rated.key(user): r for user, (r, _) in before.items()}
    after = apply_game(current, rated)
    default = Rating.default()
    return [
        RatingUpdate(
            user,
            place,
            before[user][0] if user in before else default,
            after[rated.key(user)],
            (before[user][1] if user in before else 0) + 1,
        )
        for user, place in rated.places
    ]


def backfill_games(rows: Sequence[Sequence[Any]]) -> tuple[list[FinishedGame], int]:
    """The already finished games that migration 4 rates, from rows of
    ``sql.BACKFILL_GAMES`` (in the order they ended), as :class:`FinishedGame` records with
    only what :meth:`Storage.finish_game` rates from (``rated_places``), and the number of
    games whose log does not replay (left unrated).

    The games are ranked as the service ranks a game that ends today
    (:func:`bot.ratings.finishing_places` over the stored log, humans only, and only when
    :func:`bot.ratings.should_rate` says so with AI games not counted: the default of every
    server, and the only behaviour the bot had when those games were played).  No game
    stored before migration 4 has forfeits."""
    games: list[FinishedGame] = []
    broken = 0
    for game_id, guild_id, profile, rules, deal, actions, seats_text, ended_at in rows:
        seats = seats_from(json.loads(seats_text))
        humans = [(seat, s.user_id) for seat, s in enumerate(seats) if s.user_id is not None]
        has_ai = any(s.ai_level is not None for s in seats)
        if not should_rate(len(humans), has_ai, False):
            continue
        try:
            places = finishing_places(
                Rules.from_spec(json.loads(rules)),
                Deal.from_dict(json.loads(deal)),
                json.loads(actions or "[]"),
            )
        except (DurakError, ValueError, KeyError, TypeError):
            broken += 1
            continue
        games.append(
            FinishedGame(
                int(game_id),
                0,
                int(guild_id),
                str(profile),
                "loss",
                None,
                [],
                float(ended_at),
                rated_places=tuple(sorted((uid, places[seat]) for seat, uid in humans)),
            )
        )
    return games, broken


def rated_games_from_rows(rows: Sequence[Sequence[Any]]) -> list[RatedGame]:
    """:class:`RatedGame` records from rows of ``sql.RATED_GAMES`` (grouped by game)."""
    games: dict[int, tuple[int, str, float, dict[int, int]]] = {}
    for game_id, guild_id, profile, ended_at, user_id, place in rows:
        entry = games.setdefault(int(game_id), (int(guild_id), str(profile), float(ended_at), {}))
        entry[3][int(user_id)] = int(place)
    return [RatedGame.of(gid, g, p, e, places) for gid, (g, p, e, places) in games.items()]


def board_row(rank: int, r: Sequence[Any]) -> LeaderboardRow:
    """A leaderboard row from a row of ``sql.BOARD_PROFILE``."""
    user_id, mu, sigma, rated, games, losses, draws, name = r
    return LeaderboardRow(
        rank,
        int(user_id),
        name or f"<@{user_id}>",
        int(games),
        int(losses),
        int(draws),
        losses / games if games else 0.0,
        float(mu),
        float(sigma),
        int(rated),
    )


def every_guild(_guild_id: int) -> bool:
    """The default guild filter: a process that serves every guild."""
    return True
