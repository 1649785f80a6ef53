"""What the database must hold after a fault campaign, given the ack logs of its processes.

The database is read with read-only SQL (SQLite: ``PRAGMA query_only``; PostgreSQL: one
``REPEATABLE READ READ ONLY`` transaction), after every bot process stopped.  The stored games
are checked through the rules engine:

- **acknowledged actions**: each ``act`` line's action is in its game's log (the live row's
  snapshot, or the finished game's ``actions``) at its position; otherwise it is *lost*.  Two
  ``act`` lines for one position of one game are a *duplicated* acknowledgement;
- **games** (*corrupted* if not): a finished game's log replays to its stored result (loser or
  draw), an aborted one's replays; a live row's snapshot restores
  (:func:`rules_engine.from_snapshot`: its log replays to its stored state), its version is its
  log's length, its series is active, and its game is marked live (and every game marked live
  has a live row); a finished game has one result row per human seat;
- **series**: the counts (games, draws, each seat's losses) equal the finished games and
  forfeits of the series, ``last_game_id`` is its newest game; no channel holds two active
  series, or a lobby beside an active series;
- **joins**: each acknowledged join's user sits in the channel's lobby or in a series of the
  channel; a user whose join (or lobby opening) was refused sits nowhere;
- SQLite: ``PRAGMA integrity_check`` says ``ok``.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import asyncpg

from bot.storage import parse_database_url
from rules_engine import Deal, Rules, from_snapshot, replay

from .acklog import LogLines, read_logs

__all__ = ["Report", "check_database", "read_database"]

#: The campaign's queries: every row the checks need, by name.
QUERIES = {
    "games": "SELECT id, series_id, channel_id, rules, deal, actions, result, loser_seat, seats "
    "FROM games ORDER BY id",
    "live": "SELECT game_id, channel_id, series_id, snapshot, meta, version FROM live_games",
    "series": "SELECT id, channel_id, status, games, draws, last_game_id FROM series ORDER BY id",
    "series_players": "SELECT series_id, seat, user_id, losses FROM series_players",
    "lobbies": "SELECT channel_id, data FROM lobbies",
    "forfeits": "SELECT game_id, seat FROM forfeits",
    "game_players": "SELECT game_id, COUNT(*) FROM game_players GROUP BY game_id",
}

Rows = dict[str, list[tuple[Any, ...]]]


@dataclass
class Report:
    """The checker's findings.  :attr:`clean` when nothing was lost, duplicated or corrupted."""

    acked_actions: int = 0
    acked_joins: int = 0
    games: int = 0
    finished_games: int = 0
    series: int = 0
    lost_actions: list[str] = field(default_factory=list)
    duplicated_actions: list[str] = field(default_factory=list)
    corrupted_games: list[str] = field(default_factory=list)
    series_mismatches: list[str] = field(default_factory=list)
    channel_conflicts: list[str] = field(default_factory=list)
    lost_joins: list[str] = field(default_factory=list)
    refused_but_applied: list[str] = field(default_factory=list)
    refusals: Counter[str] = field(default_factory=Counter)
    torn_lines: int = 0
    integrity: str = "not checked (PostgreSQL)"

    @property
    def clean(self) -> bool:
        return not (
            self.lost_actions
            or self.duplicated_actions
            or self.corrupted_games
            or self.series_mismatches
            or self.channel_conflicts
            or self.lost_joins
            or self.refused_but_applied
        ) and self.integrity in ("ok", "not checked (PostgreSQL)")

    def problems(self) -> list[str]:
        """Every finding, one line each (empty when clean)."""
        out: list[str] = []
        for name in (
            "lost_actions",
            "duplicated_actions",
            "corrupted_games",
            "series_mismatches",
            "channel_conflicts",
            "lost_joins",
            "refused_but_applied",
        ):
            out.extend(f"{name.replace('_', ' ')}: {line}" for line in getattr(self, name))
        if self.integrity not in ("ok", "not checked (PostgreSQL)"):
            out.append(f"integrity_check: {self.integrity}")
        return out


# ----------------------------------------------------------------------------- reading
async def read_database(url: str) -> tuple[Rows, str]:
    """Every row of :data:`QUERIES` of the database at ``url``, read-only, and SQLite's
    ``PRAGMA integrity_check`` answer (a PostgreSQL database is not checked that way)."""
    parsed = parse_database_url(url)
    if parsed.backend == "sqlite":
        con = sqlite3.connect(parsed.location)
        try:
            con.execute("PRAGMA query_only = ON")
            integrity = "; ".join(r[0] for r in con.execute("PRAGMA integrity_check"))
            with con:  # one read transaction: every query sees the same database
                con.execute("BEGIN")
                rows = {k: [tuple(r) for r in con.execute(q)] for k, q in QUERIES.items()}
            return rows, integrity
        finally:
            con.close()
    pg = await asyncpg.connect(parsed.location)
    try:
        async with pg.transaction(isolation="repeatable_read", readonly=True):
            rows = {k: [tuple(r) for r in await pg.fetch(q)] for k, q in QUERIES.items()}
        return rows, "not checked (PostgreSQL)"
    finally:
        await pg.close()


# ----------------------------------------------------------------------------- checks
def _actions(text: str | None) -> list[str]:
    data = json.loads(text or "[]")
    if not isinstance(data, list) or not all(isinstance(a, str) for a in data):
        raise ValueError("actions are not a list of texts")
    return data


def _humans(seats_text: str) -> list[int]:
    return [s["user_id"] for s in json.loads(seats_text) if s.get("user_id") is not None]


def _check_games(rows: Rows, report: Report) -> dict[int, list[str]]:
    """Check every game; returns each game's stored action log (live or finished)."""
    live = {r[0]: r for r in rows["live"]}
    active = {r[0] for r in rows["series"] if r[2] == "active"}
    results: dict[int, int] = {int(g): int(n) for g, n in rows["game_players"]}
    forfeits: dict[int, int] = Counter(r[0] for r in rows["forfeits"])
    logs: dict[int, list[str]] = {}
    bad = report.corrupted_games
    for gid, series_id, channel_id, rules, deal, actions, result, loser, seats in rows["games"]:
        report.games += 1
        try:
            if result == "live":
                row = live.get(gid)
                if row is None:
                    bad.append(f"game {gid} is marked live but has no live row")
                    continue
                _, live_channel, live_series, snapshot, meta, version = row
                game = from_snapshot(json.loads(snapshot))
                logs[gid] = game.history_text()
                if version != len(logs[gid]):
                    bad.append(f"game {gid}: live version {version}, {len(logs[gid])} actions")
                if (live_channel, live_series) != (channel_id, series_id):
                    bad.append(f"game {gid}: live row of another channel or series")
                if live_series not in active:
                    bad.append(f"game {gid}: live, but its series {live_series} is not active")
                if not isinstance(json.loads(meta), dict):
                    bad.append(f"game {gid}: its live meta is not an object")
                continue
            if gid in live:
                bad.append(f"game {gid} is {result} but still has a live row")
            logs[gid] = _actions(actions)
            game = replay(
                Rules.from_spec(json.loads(rules)), Deal.from_dict(json.loads(deal)), logs[gid]
            )
            if result in ("loss", "draw"):
                report.finished_games += 1
                if not game.finished:
                    bad.append(f"game {gid} is a {result} but its log does not end the game")
                elif (result == "draw") != game.draw or (result == "loss" and loser != game.loser):
                    bad.append(f"game {gid}: stored {result} {loser}, the log says {game.loser}")
                expected = len(_humans(seats))
            else:
                expected = forfeits.get(gid, 0)
            if results.get(gid, 0) != expected:
                bad.append(f"game {gid}: {results.get(gid, 0)} result rows, {expected} expected")
        except Exception as exc:  # a log that does not replay, a malformed snapshot or JSON
            bad.append(f"game {gid} ({result}) does not read back: {exc}")
    return logs


def _check_series(rows: Rows, report: Report) -> None:
    games_of: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for g in rows["games"]:
        games_of[g[1]].append(g)
    forfeits: dict[int, list[int]] = defaultdict(list)
    for game_id, seat in rows["forfeits"]:
        forfeits[game_id].append(seat)
    seats: dict[int, dict[int, int]] = defaultdict(dict)
    for series_id, seat, _user, seat_losses in rows["series_players"]:
        seats[series_id][seat] = seat_losses
    active_in: dict[int, list[int]] = defaultdict(list)
    for sid, channel_id, status, games, draws, last_game in rows["series"]:
        report.series += 1
        if status == "active":
            active_in[channel_id].append(sid)
        mine = games_of.get(sid, [])
        ended = [g for g in mine if g[6] in ("loss", "draw")]
        losses: Counter[int] = Counter(g[7] for g in ended if g[6] == "loss")
        for g in mine:
            if g[6] != "live":  # a forfeit counts once its game ended (not for the loser)
                losses.update(s for s in forfeits.get(g[0], []) if s != g[7])
        draws_seen = sum(g[6] == "draw" for g in ended)
        stored = seats.get(sid, {})
        expected_losses = {seat: losses.get(seat, 0) for seat in stored}
        if (games, draws) != (len(ended), draws_seen) or stored != expected_losses:
            report.series_mismatches.append(
                f"series {sid}: stored games={games} draws={draws} losses={stored}, its games "
                f"say games={len(ended)} draws={draws_seen} losses={expected_losses}"
            )
        newest = max((g[0] for g in mine), default=None)
        if mine and last_game != newest:
            report.series_mismatches.append(
                f"series {sid}: last game {last_game}, newest game {newest}"
            )
    lobbies = {r[0] for r in rows["lobbies"]}
    for channel_id, active in sorted(active_in.items()):
        if len(active) > 1:
            report.channel_conflicts.append(f"channel {channel_id}: active series {active}")
        if channel_id in lobbies:
            report.channel_conflicts.append(f"channel {channel_id}: a lobby and series {active}")


def _check_acts(acks: Sequence[dict[str, Any]], logs: dict[int, list[str]], report: Report) -> None:
    seen: Counter[tuple[int, int]] = Counter()
    for ack in acks:
        report.acked_actions += 1
        game, version, action = int(ack["game"]), int(ack["v"]), ack["a"]
        seen[game, version] += 1
        if seen[game, version] == 2:
            report.duplicated_actions.append(f"game {game} action {version} acknowledged twice")
        stored = logs.get(game)
        where = f"game {game} action {version} {action!r} (channel {ack['ch']})"
        if stored is None:
            report.lost_actions.append(f"{where}: the game is not stored (or unreadable)")
        elif len(stored) < version:
            report.lost_actions.append(f"{where}: the stored log has {len(stored)} actions")
        elif stored[version - 1] != action:
            report.lost_actions.append(f"{where}: {stored[version - 1]!r} is stored there")
        if ack.get("after", version) != version:
            report.duplicated_actions.append(f"{where}: the table said version {ack['after']}")


def _check_joins(lines: LogLines, rows: Rows, report: Report) -> None:
    seated: dict[int, set[int]] = defaultdict(set)
    for channel_id, data in rows["lobbies"]:
        seated[channel_id].update(
            s["user_id"] for s in json.loads(data)["seats"] if s.get("user_id") is not None
        )
    channel_of_series = {r[0]: r[1] for r in rows["series"]}
    for series_id, _seat, user, _losses in rows["series_players"]:
        if user is not None:
            seated[channel_of_series[series_id]].add(user)
    everyone = set().union(*seated.values()) if seated else set()
    for join in lines.joins:
        report.acked_joins += 1
        if join["user"] not in seated.get(join["ch"], set()):
            report.lost_joins.append(f"user {join['user']} in channel {join['ch']}")
    for refusal in lines.refused:
        report.refusals[refusal["error"]] += 1
        if refusal["what"] == "join" and refusal["user"] in everyone:
            report.refused_but_applied.append(
                f"user {refusal['user']} in channel {refusal['ch']} ({refusal['error']})"
            )


def check_rows(rows: Rows, integrity: str, lines: LogLines) -> Report:
    """The :class:`Report` of a database's ``rows`` against the ack log ``lines``."""
    report = Report(integrity=integrity, torn_lines=lines.torn)
    logs = _check_games(rows, report)
    _check_series(rows, report)
    _check_acts(lines.acts, logs, report)
    _check_joins(lines, rows, report)
    return report


async def check_database(url: str, ack_logs: Iterable[str]) -> Report:
    """Check the database at ``url`` against the ack logs at ``ack_logs`` (see the module)."""
    rows, integrity = await read_database(url)
    return check_rows(rows, integrity, read_logs(ack_logs))
