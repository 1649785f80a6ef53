"""settle(): the one place a game's end is counted (pure: no service, no storage, no loop)."""

from __future__ import annotations

from bot.seating import LobbyOptions, LobbySeat
from bot.service.settle import GameEnd, settle
from bot.storage import PlayerResult, SeriesRecord
from bot.votes import Forfeit, ForfeitReason
from rules_engine import Game, Rules, deal_from_seed
from rules_engine.hints import timeout_action

NOW = 1_700_000_000.0


def _series(*seats: LobbySeat) -> SeriesRecord:
    profile = "podkidnoy"
    return SeriesRecord(
        7,
        100,
        10,
        1,
        "Alice",
        LobbyOptions(),
        {"profile": profile},
        profile,
        list(seats),
        [0] * len(seats),
    )


HUMANS = _series(LobbySeat(1, "Alice"), LobbySeat(2, "Bob"))


def _forfeits(*seats: int, reason: ForfeitReason = "leave") -> dict[int, Forfeit]:
    """Forfeits of game 3 of ``seats`` (user id = seat + 1), for ``reason``."""
    return {seat: Forfeit(3, seat + 1, seat, NOW, reason) for seat in seats}


def _finished(seed: int) -> Game:
    """A two-player game played to its end by the timeout defaults (seed 0: seat 0 loses)."""
    game = Game(Rules.from_spec({"profile": "podkidnoy"}), deal_from_seed(2, seed))
    while not game.finished:
        game.apply(timeout_action(game))
    return game


def test_a_finished_game_counts_the_durak_once_and_the_forfeits():
    game = _finished(0)
    assert game.loser == 0
    done = settle(GameEnd.FINISHED, HUMANS, 3, game.history_text(), NOW, game=game)
    assert done.record.result == "loss" and done.record.loser_seat == 0
    assert done.series is not None and done.series.losses == [1, 0]
    assert (done.series.games, done.series.draws, done.series.last_loser) == (1, 0, 0)
    assert done.series.last_dealer == game.deal.dealer
    assert [(p.seat, p.lost) for p in done.record.players] == [(0, True), (1, False)]
    assert HUMANS.losses == [0, 0] and HUMANS.games == 0  # the input is not changed
    # a forfeiting durak loses once; a forfeit of the other seat is a loss too
    both = settle(
        GameEnd.FINISHED, HUMANS, 3, game.history_text(), NOW, forfeits=_forfeits(0, 1), game=game
    )
    assert both.series is not None and both.series.losses == [1, 1]
    assert both.record.forfeits == (0, 1)


def test_a_finished_game_with_ai_seats_names_their_levels_and_rates_only_when_asked():
    series = _series(LobbySeat(1, "Alice"), LobbySeat(None, "Casual AI", "casual"))
    game = _finished(1)
    plain = settle(GameEnd.FINISHED, series, 4, game.history_text(), NOW, game=game)
    assert plain.record.ai_levels == ("casual",) and plain.record.rated_places == ()
    assert [p.user_id for p in plain.record.players] == [1]
    humans = settle(GameEnd.FINISHED, HUMANS, 4, game.history_text(), NOW, game=game)
    assert sorted(humans.record.rated_places) == [(1, 1), (2, 2)]  # seat 1 lost


def test_a_stopped_game_counts_only_its_forfeits():
    series = _series(LobbySeat(1, "Alice"), LobbySeat(2, "Bob"), LobbySeat(3, "Carol"))
    quiet = settle(GameEnd.STOPPED, series, 5, ["0 attack 6♠"], NOW)
    assert quiet.series is None  # nothing to count
    assert quiet.record.result == "aborted" and quiet.record.players == []
    left = settle(GameEnd.STOPPED, series, 5, ["0 attack 6♠"], NOW, forfeits=_forfeits(2))
    assert left.series is not None and left.series.losses == [0, 0, 1]
    assert left.series.games == 0  # a stopped game is no game of the series
    assert left.record.players == [PlayerResult(2, 3, "Carol", True, False)]
    assert left.record.forfeits == (2,)


def test_an_unrestorable_game_is_recorded_aborted_with_nothing_counted():
    done = settle(GameEnd.UNRESTORABLE, HUMANS, 6, ["0 attack 6♠"], NOW, forfeits=_forfeits(1))
    assert done.series is None
    record = done.record
    assert (record.game_id, record.series_id, record.guild_id) == (6, 7, 10)
    assert (record.result, record.loser_seat, record.actions) == ("aborted", None, ["0 attack 6♠"])
    assert record.players == [] and record.forfeits == ()


def test_a_game_with_a_kick_is_not_rated_but_the_kick_still_counts():
    """A member with Manage Channel kicked seat 0 (who was winning): seat 1 ends as the
    durak.  Nobody's rating moves; the kicked player's forfeit is a loss in the series."""
    game = _finished(0)
    args = (GameEnd.FINISHED, HUMANS, 3, game.history_text(), NOW)
    left = settle(*args, forfeits=_forfeits(1), game=game)
    assert left.record.rated_places != ()  # a leave is rated: the leaver placed last
    kicked = settle(*args, forfeits=_forfeits(1, reason="kick"), game=game)
    assert kicked.record.rated_places == ()
    assert kicked.series is not None and kicked.series.losses == left.series.losses
    assert kicked.record.forfeits == (1,)
    assert [(p.seat, p.lost) for p in kicked.record.players] == [(0, True), (1, True)]
    # count_ai_games does not bring a kicked game back into the ratings
    ai_on = settle(*args, forfeits=_forfeits(0, reason="kick"), game=game, count_ai_games=True)
    assert ai_on.record.rated_places == ()
