"""The service's in-memory state per channel (mutated under the channel's lock only), and the
live game's stored ``meta`` (:meth:`GameState.meta` writes it, :class:`LiveMeta` reads it back)."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Awaitable, Callable, Container, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, get_args

from bot.clock import Timer
from bot.limits import DEFAULT_TIMEOUT
from bot.seating import LobbyOptions, LobbySeat
from bot.storage import LobbyRecord, SeriesRecord
from bot.views import ActionRecord, AutoKind
from bot.votes import Forfeit, StopVote
from rules_engine import Action, ActionKind, DurakError, Game, Played, Rules, snapshot
from rules_engine.cards import parse_card

_T = TypeVar("_T")

__all__ = [
    "BadMeta",
    "ChannelState",
    "Doubt",
    "GameState",
    "LiveMeta",
    "LobbyState",
    "human_plays",
    "team_seating",
]


@dataclass(slots=True)
class LobbyState:
    """An open lobby of a channel (in memory; stored as a ``LobbyRecord``)."""

    channel_id: int
    guild_id: int
    host_id: int
    host_name: str
    options: LobbyOptions
    rules: Rules
    turn_timeout: int
    seats: list[LobbySeat]
    created_at: float

    def new_series(self, profile: str, now: float) -> SeriesRecord:
        """The series this lobby starts (not stored yet: no id), seats in lobby order; in a
        lobby played in teams (:func:`team_seating`), team 0 on the even seats and team 1 on
        the odd ones."""
        seats = team_seating(self.seats) if self.options.team_game else list(self.seats)
        return SeriesRecord(
            None,
            self.channel_id,
            self.guild_id,
            self.host_id,
            self.host_name,
            self.options,
            self.rules.to_dict(),
            profile,
            seats,
            [0] * len(seats),
            created_at=now,
        )

    def record(
        self, seats: list[LobbySeat] | None = None, host: tuple[int, str] | None = None
    ) -> LobbyRecord:
        host_id, host_name = host or (self.host_id, self.host_name)
        return LobbyRecord(
            self.channel_id,
            self.guild_id,
            host_id,
            host_name,
            self.options,
            list(self.seats if seats is None else seats),
            self.created_at,
        )


def team_seating(seats: Sequence[LobbySeat]) -> list[LobbySeat]:
    """The seats of a game in teams (RULES.md §10.3: partners never sit side by side): team
    0's players on the even seats, team 1's on the odd ones, each team in lobby order.  A
    seat's team is then its parity, so the series' seats carry none."""
    teams = [[s for s in seats if (s.team or 0) == k] for k in (0, 1)]
    out: list[LobbySeat] = []
    for i in range(max(len(teams[0]), len(teams[1]))):
        for team in teams:
            if i < len(team):
                out.append(dataclasses.replace(team[i], team=None))
    return out


@dataclass(frozen=True, slots=True)
class Doubt:
    """A fenced write of a live game that failed without saying whether it was stored (the
    database stopped answering while it ran): memory still holds the game as it was before
    it.  The next write of the game settles it first (``Commit.settle_doubt``)."""

    #: The revision the write was fenced by.
    revision: int
    #: Whether the database holds this write (asked once the row has moved past ``revision``).
    stored: Callable[[], Awaitable[bool]]
    #: The change of memory the write stood for, made if it was stored after all.
    adopt: Callable[[], None]


#: The snapshot's JSON: compact, non-ASCII characters (the suits) as they are.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
#: The keys of :func:`rules_engine.snapshot`, in order (:meth:`GameState.snapshot_json`).
_SNAPSHOT_KEYS = ("format", "rules", "players", "deal", "actions", "state")
#: The meta's JSON (``json.dumps`` with ``ensure_ascii=False``).
_META = json.JSONEncoder(ensure_ascii=False)


class _Encoded:
    """JSON texts of a game's stored rows that do not change from one action to the next,
    kept so that each is encoded once: the deal, the actions so far (only new ones are
    encoded; they are only ever appended) and the ``recent`` entries of the meta.  Each text
    is the one ``json.dumps`` gives for its value in place, so the stored JSON is the same.
    Entries are found by the identity of their value (checked: a record is kept beside its
    text, so its id cannot be reused while it is).  Only the event loop uses it."""

    __slots__ = ("_actions", "_deal", "_recent")

    def __init__(self) -> None:
        self._deal: tuple[object, str] | None = None
        #: (the deal they follow, how many actions, the last of them, their texts joined by
        #: commas)
        self._actions: tuple[object, int, str, str] = (None, 0, "", "")
        self._recent: dict[int, tuple[ActionRecord, str]] = {}

    def deal(self, deal: dict[str, Any]) -> str:
        """The compact JSON of the snapshot's ``deal`` (the same dict for every action)."""
        kept = self._deal
        if kept is not None and kept[0] is deal:
            return kept[1]
        text = _COMPACT.encode(deal)
        self._deal = (deal, text)
        return text

    def actions(self, actions: list[str], deal: object) -> str:
        """The compact JSON of the snapshot's ``actions`` played from ``deal``: only those
        after the ones encoded last time are encoded, when these continue them (the same
        deal, the same last action: a game's actions are only ever appended, and a write
        given up leaves at most its one action to drop)."""
        kept, count, last, joined = self._actions
        if kept is not deal or not 0 < count <= len(actions) or actions[count - 1] != last:
            count, joined = 0, ""
        if count < len(actions):
            more = ",".join(map(_COMPACT.encode, actions[count:]))
            joined = f"{joined},{more}" if joined else more
            self._actions = (deal, len(actions), actions[-1], joined)
        return f"[{joined}]"

    def recent(self, records: Sequence[ActionRecord]) -> list[str]:
        """The meta's ``recent`` entries (``json.dumps`` of :func:`_recent_json`); only
        these records' texts are kept."""
        kept = self._recent
        texts: dict[int, tuple[ActionRecord, str]] = {}
        out = []
        for record in records:
            hit = kept.get(id(record))
            if hit is None or hit[0] is not record:
                hit = (record, _META.encode(_recent_json(record)))
            texts[id(record)] = hit
            out.append(hit[1])
        self._recent = texts
        return out


@dataclass(slots=True)
class GameState:
    """A game of a series: live, or the finished last game kept for the table view."""

    game_id: int
    game: Game
    seed: int
    started_at: float
    deadline: float | None = None
    timeouts: list[int] = field(default_factory=list)
    autopilot: list[bool] = field(default_factory=list)
    recent: tuple[ActionRecord, ...] = ()
    timer: Timer | None = None
    aborted: bool = False
    revision: int = 0  # the live row's revision this process holds (storage fencing)
    #: Forfeited seats (left or kicked): the ``casual`` AI plays them to the end.
    forfeits: dict[int, Forfeit] = field(default_factory=dict)
    #: The open stop vote, if any, and the timer that closes it when it lapses.
    vote: StopVote | None = None
    vote_timer: Timer | None = None
    #: The table cannot be shown (the bot may not post or edit it): no turn timer runs and no
    #: AI seat moves until the game is resumed (see ``GameService.pause_timers``).
    paused: bool = False
    #: Seconds that were left of the waiting human's turn when it was paused.
    paused_left: float | None = None
    #: Whether the game is rated although it has AI seats: the server's ``count_ai_games``
    #: when the game started (stored in its meta; a later change of the setting does not
    #: apply to it).
    count_ai_games: bool = False
    #: A write of this game whose outcome is not known yet (see :class:`Doubt`).
    doubt: Doubt | None = None
    #: The parts of the stored JSON that are written again unchanged with every action.
    encoded: _Encoded = field(default_factory=lambda: _Encoded(), repr=False, compare=False)

    def human_waits(self, series: SeriesRecord) -> bool:
        """Whether the seat to act is played now by a human (its own player, or in a team
        game the partner who took it over), so a turn deadline runs."""
        seat = self.game.player_to_act
        if seat is None or self.aborted:
            return False
        return human_plays(series.seats, seat, self.autopilot, self.forfeits)

    def disarm(self) -> None:
        """Cancel the turn timer (or the retry timer), if any."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def close_vote(self) -> None:
        """Drop the open stop vote, if any, and its timer."""
        if self.vote_timer is not None:
            self.vote_timer.cancel()
            self.vote_timer = None
        self.vote = None

    def snapshot_json(self, game: Game | None = None) -> str:
        """JSON of :func:`rules_engine.snapshot` for ``game`` (default: the current one),
        compact; the deal and the actions are encoded once (:class:`_Encoded`)."""
        data = snapshot(self.game if game is None else game)
        if tuple(data) != _SNAPSHOT_KEYS:  # not the shape spliced below: encoded whole
            return _COMPACT.encode(data)
        texts = self.encoded
        head = _COMPACT.encode(
            {"format": data["format"], "rules": data["rules"], "players": data["players"]}
        )
        return (
            f'{head[:-1]},"deal":{texts.deal(data["deal"])},'
            f'"actions":{texts.actions(data["actions"], data["deal"])},'
            f'"state":{_COMPACT.encode(data["state"])}}}'
        )

    def meta(
        self,
        *,
        remaining: float | None = None,
        deadline: float | None = None,
        timeouts: list[int] | None = None,
        autopilot: list[bool] | None = None,
        recent: tuple[ActionRecord, ...] | None = None,
    ) -> str:
        """The JSON of the live row's ``meta`` column (timer state and table history), as
        ``json.dumps`` writes the object of these keys; each ``recent`` entry is encoded once
        while it is among the last few (:class:`_Encoded`)."""
        head = _META.encode(
            {
                "seed": self.seed,
                "started_at": self.started_at,
                "deadline": deadline,
                "remaining": remaining,
                "timeouts": self.timeouts if timeouts is None else timeouts,
                "autopilot": self.autopilot if autopilot is None else autopilot,
            }
        )
        entries = self.encoded.recent(self.recent if recent is None else recent)
        count_ai = "true" if self.count_ai_games else "false"
        return f'{head[:-1]}, "recent": [{", ".join(entries)}], "count_ai_games": {count_ai}}}'


class BadMeta(ValueError):
    """A live game's stored meta that cannot be read back (a value of the wrong type)."""


@dataclass(frozen=True, slots=True)
class LiveMeta:
    """A live game's stored meta, checked (the JSON :meth:`GameState.meta` writes).

    A key that is missing takes its default (rows written by older releases lack some); a key
    whose value has the wrong type makes the row unrestorable (:class:`BadMeta`).
    ``count_ai_games`` is ``None`` for a row stored before the setting was kept with the game.
    """

    seed: int
    started_at: float
    deadline: float | None
    remaining: float | None
    timeouts: list[int]
    autopilot: list[bool]
    recent: tuple[ActionRecord, ...]
    count_ai_games: bool | None

    @classmethod
    def parse(
        cls,
        meta: object,
        players: int,
        now: float,
        *,
        known: tuple[ActionRecord, ...] = (),
        added: int | None = None,
    ) -> LiveMeta:
        """The meta of a live game of ``players`` seats restored at ``now``; :class:`BadMeta`
        naming the first bad value.  ``known``: the ``recent`` of the same game's meta
        ``added`` actions earlier (a copy held by another process): its records are kept
        and only the ``added`` newest entries read."""
        if not isinstance(meta, dict):
            raise BadMeta(f"meta is {type(meta).__name__}, not an object")
        entries = _list(meta.get("recent") or [], "recent")
        kept = len(entries) - (added or 0)
        if added is not None and 0 <= kept <= len(known):
            recent = known[len(known) - kept :]
            recent += tuple(_action_record(r, players) for r in entries[kept:])
        else:
            recent = tuple(_action_record(r, players) for r in entries)
        return cls(
            seed=_int(meta, "seed", 0),
            started_at=_number(meta, "started_at", now),
            deadline=_optional_number(meta, "deadline"),
            remaining=_optional_number(meta, "remaining"),
            timeouts=_per_seat(meta, "timeouts", int, 0, players),
            autopilot=_per_seat(meta, "autopilot", bool, False, players),
            recent=recent,
            count_ai_games=_optional_bool(meta, "count_ai_games"),
        )

    def game_state(self, game_id: int, game: Game, revision: int, count_ai: bool) -> GameState:
        """The live game ``game_id`` restored with this meta (``count_ai``: its
        ``count_ai_games``, :attr:`count_ai_games` or what replaces a missing one)."""
        g = GameState(game_id, game, self.seed, self.started_at, revision=revision)
        g.timeouts, g.autopilot, g.recent = self.timeouts, self.autopilot, self.recent
        g.count_ai_games = count_ai
        return g


def _int(meta: dict[str, Any], key: str, default: int) -> int:
    value = meta.get(key, default)
    if type(value) is not int:
        raise BadMeta(f"{key} is {value!r}, not a whole number")
    return value


def _optional_number(meta: dict[str, Any], key: str) -> float | None:
    value = meta.get(key)
    if value is None:
        return None
    if type(value) not in (int, float) or not math.isfinite(value):
        raise BadMeta(f"{key} is {value!r}, not a number")
    return float(value)


def _number(meta: dict[str, Any], key: str, default: float) -> float:
    if key not in meta:
        return default
    value = _optional_number(meta, key)
    if value is None:
        raise BadMeta(f"{key} is null, not a number")
    return value


def _optional_bool(meta: dict[str, Any], key: str) -> bool | None:
    value = meta.get(key)
    if value is not None and type(value) is not bool:
        raise BadMeta(f"{key} is {value!r}, not true or false")
    return value


def _list(value: object, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise BadMeta(f"{key} is {value!r}, not a list")
    return value


def _per_seat(meta: dict[str, Any], key: str, kind: type[_T], default: _T, n: int) -> list[_T]:
    """A list of one ``kind`` value per seat (``[default] * n`` when missing or null)."""
    value = meta.get(key)
    if value is None:
        return [default] * n
    items = _list(value, key)
    if len(items) != n or any(type(x) is not kind for x in items):
        raise BadMeta(f"{key} is {value!r}, not {n} values of type {kind.__name__}")
    return items


def _recent_json(record: ActionRecord) -> dict[str, Any]:
    """An entry of ``recent``: ``Played.to_dict`` with ``auto`` (and ``by`` when a partner
    made the move for a seat they took over)."""
    data: dict[str, Any] = {**record.played.to_dict(), "auto": record.auto}
    if record.by is not None:
        data["by"] = record.by
    return data


def _action_record(item: object, players: int) -> ActionRecord:
    """An entry of ``recent``: the engine's record of the action (``Played.to_dict``) with
    its ``auto``; an entry written before the records held what followed the action is
    ``[seat, kind, [cards], auto]`` and reads back as the action alone."""
    try:
        by: object = None
        if isinstance(item, dict):
            auto = item.get("auto")
            by = item.get("by")
            played = Played.from_dict({k: v for k, v in item.items() if k not in ("auto", "by")})
        else:
            seat, kind, cards, auto = _list(item, "a recent action")
            if type(seat) is not int:
                raise BadMeta(f"seat {seat!r}")
            played = Played.of(
                Action(seat, ActionKind(kind), tuple(parse_card(c) for c in _list(cards, "cards")))
            )
        if not 0 <= played.seat < players:
            raise BadMeta(f"seat {played.seat!r}")
        if auto is not None and auto not in get_args(get_args(AutoKind)[0]):
            raise BadMeta(f"auto {auto!r}")
        if by is not None and (type(by) is not int or not 0 <= by < players):
            raise BadMeta(f"by {by!r}")
        return ActionRecord(played, auto, by if isinstance(by, int) else None)
    except (BadMeta, ValueError, TypeError, KeyError, DurakError) as exc:
        raise BadMeta(f"recent action {item!r} does not read back: {exc}") from None


@dataclass(slots=True)
class ChannelState:
    """Everything the service holds for one channel: a lobby, or a series and its game."""

    channel_id: int
    guild_id: int
    #: The open lobby (then no series), if any.
    lobby: LobbyState | None = None
    #: The series, its rules and turn timeout (kept between its games).
    series: SeriesRecord | None = None
    rules: Rules | None = None
    turn_timeout: int = DEFAULT_TIMEOUT
    #: The running game, or the last finished one (shown until a rematch).
    game: GameState | None = None
    #: The channel's write counter as this process last read or wrote it: every write of the
    #: lobby, the series or a game's start and end presents it (see ``bot.storage.Storage``).
    fence: int = 0

    @property
    def playing(self) -> bool:
        """A game runs (not finished, not stopped)."""
        return self.game is not None and not self.game.game.finished and not self.game.aborted

    @property
    def empty(self) -> bool:
        """Nothing is left in the channel (no lobby, no series, no game, hence no timer)."""
        return self.lobby is None and self.series is None and self.game is None


def human_plays(
    seats: Sequence[LobbySeat], seat: int, autopilot: Sequence[bool], forfeits: Container[int]
) -> bool:
    """Whether ``seat``'s player plays it now: a human seat, not on autopilot, not forfeited."""
    return seats[seat].ai_level is None and not autopilot[seat] and seat not in forfeits
