"""How a game's end is counted: the one place losses, forfeits and draws are added up.

:func:`settle` is pure: given the series and how its game ended, it returns the
:class:`~bot.storage.FinishedGame` record to store and the series' new standings.  The rules
(README, "Fair play"): a finished game counts a loss for the durak or a draw; every forfeit is a
loss for that player, once (also when the forfeiter ends as the durak); a stopped game records
no result except its forfeits; a game that cannot be restored is recorded as aborted with
nothing counted.  A finished game is rated (:func:`rated_places`) only when no player was
kicked from it (a kick is a forfeit like a leave everywhere else), and never in the web
realm (:data:`bot.realm.WEB_REALM`): guests are not rated.
"""

from __future__ import annotations

import dataclasses
import enum
import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from bot.ratings import finishing_places, should_rate
from bot.realm import WEB_REALM
from bot.storage import FinishedGame, PlayerResult, SeriesRecord
from bot.votes import Forfeit
from rules_engine import Game

__all__ = ["GameEnd", "Settlement", "rated_places", "settle"]

log = logging.getLogger(__name__)


class GameEnd(enum.Enum):
    """How a game ended: ``FINISHED`` (played to its end: a durak, or a draw), ``STOPPED``
    (before its end: a vote, Manage Channel, the endless-game cap) or ``UNRESTORABLE`` (its
    stored snapshot does not restore: recorded as aborted, nothing counted)."""

    FINISHED = "finished"
    STOPPED = "stopped"
    UNRESTORABLE = "unrestorable"


@dataclass(frozen=True, slots=True)
class Settlement:
    """What to store for a game's end: the game's record and the series' new standings
    (``None``: the standings do not change)."""

    record: FinishedGame
    series: SeriesRecord | None


def settle(
    end: GameEnd,
    series: SeriesRecord,
    game_id: int,
    actions: list[str],
    now: float,
    *,
    forfeits: Mapping[int, Forfeit] | None = None,
    game: Game | None = None,
    count_ai_games: bool = False,
) -> Settlement:
    """Settle game ``game_id`` of ``series`` that ended ``end`` at ``now``.

    ``actions``: its action log; ``forfeits``: the forfeits of it, by seat; ``game``:
    the finished game (:attr:`GameEnd.FINISHED` only, for its loser, draw, dealer and ranking);
    ``count_ai_games``: the server rates games with AI seats."""
    assert series.id is not None
    finished = end is GameEnd.FINISHED
    forfeits = forfeits or {}
    seats = tuple(sorted(forfeits)) if end is not GameEnd.UNRESTORABLE else ()
    kicked = any(f.reason == "kick" for f in forfeits.values())
    new = dataclasses.replace(series, losses=list(series.losses), seats=list(series.seats))
    loser: int | None = None
    losers: tuple[int, ...] = ()
    draw = False
    levels: tuple[str, ...] = ()
    places: tuple[tuple[int, int], ...] = ()
    if finished:
        assert game is not None and game.finished
        # a team game's losing team is stored by its first seat (its parity names the rest)
        losers = game.losers
        loser, draw = (losers[0] if losers else None), not losers
        levels = tuple(sorted({s.ai_level for s in series.seats if s.ai_level is not None}))
        places = rated_places(series, game, seats, count_ai_games, kicked=kicked)
        new.games += 1
        new.last_dealer = game.deal.dealer
        new.last_loser = loser
        if loser is None:
            new.draws += 1
        for seat in losers:  # the durak, or every member of the losing team
            new.losses[seat] += 1
    for seat in seats:  # a forfeit is a loss; a forfeiting loser loses once
        if seat not in losers:
            new.losses[seat] += 1
    record = FinishedGame(
        game_id,
        series.id,
        series.guild_id,
        series.profile,
        ("draw" if draw else "loss") if finished else "aborted",
        loser,
        actions,
        now,
        _results(series, seats, losers, draw=draw),
        forfeits=seats,
        ai_levels=levels,
        rated_places=places,
    )
    return Settlement(record, new if finished or seats else None)


def _results(
    series: SeriesRecord, forfeits: Collection[int], losers: Collection[int], *, draw: bool
) -> list[PlayerResult]:
    """The per-player rows of a game that ended (``losers``: the durak or a losing team, or
    ``draw``) or was stopped (no loser, no draw): every human of a finished game, and every
    forfeiter, whose forfeit is a loss whatever happened after (a forfeiting durak loses
    once)."""
    stopped = not losers and not draw
    return [
        PlayerResult(i, s.user_id, s.name, i in losers or i in forfeits, draw and i not in forfeits)
        for i, s in enumerate(series.seats)
        if s.user_id is not None and (not stopped or i in forfeits)
    ]


def rated_places(
    series: SeriesRecord,
    game: Game,
    forfeits: tuple[int, ...],
    count_ai_games: bool,
    *,
    kicked: bool = False,
) -> tuple[tuple[int, int], ...]:
    """``(user_id, place)`` of the human players of a finished ``game`` when it changes
    ratings (:func:`bot.ratings.should_rate`: never when a player was ``kicked`` from it),
    else empty (always in the web realm: guests are never rated).  Places come from
    replaying the action log through the engine (:func:`bot.ratings.finishing_places`);
    forfeiters are placed last."""
    if series.guild_id == WEB_REALM:
        return ()
    humans = [(seat, s.user_id) for seat, s in enumerate(series.seats) if s.user_id is not None]
    has_ai = any(s.ai_level is not None for s in series.seats)
    if not should_rate(len(humans), has_ai, count_ai_games, kicked=kicked):
        return ()
    try:
        places = finishing_places(game.rules, game.deal, game.history_text(), forfeits)
    except Exception:  # a rating must never keep a game from being recorded
        log.exception("game %s does not rank its players: not rated", series.last_game_id)
        return ()
    return tuple(sorted((user_id, places[seat]) for seat, user_id in humans))
