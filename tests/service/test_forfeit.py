"""Forfeits (README, "Fair play"): leaving a running game, after
a confirmation, is recorded at once and counts as a loss whatever happens after; the ``casual``
AI plays the seat to the end; the forfeiter cannot come back to that game."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.errors import ConfirmForfeit, Forfeited, GameFinished, NotSeated, StaleAction
from bot.service import GameService
from tests import storage_helpers as stored

from .conftest import Recorder, ServiceFactory, db_dump, open_table, play_out, settle, spy_finished
from .support import ALICE, BOB, CAROL, CH, DAVE, GUILD

ERIN, FRANK = 5, 6


async def _leave(svc: GameService, user: int) -> None:
    """``/durak leave`` in a running game, then the confirmation button."""
    with pytest.raises(ConfirmForfeit) as info:
        await svc.leave(CH, user)
    await svc.forfeit(CH, user, game_id=info.value.details["game_id"])


async def _forfeit_rows(svc: GameService) -> list[tuple[int, int, str]]:
    """The forfeits stored for the game of channel ``CH``."""
    game_id = (await svc.table(CH)).game_id
    return [(f.user_id, f.seat, f.reason) for f in await svc.storage.forfeits_of_game(game_id)]


async def _losses(svc: GameService, series_id: int) -> list[int]:
    """The stored loss count of each seat of the series."""
    return (await stored.series(svc.storage, series_id)).losses


async def test_two_player_forfeit_ai_plays_on_and_the_loss_counts_once(
    make_service: ServiceFactory, recorder: Recorder, db_path: Path
) -> None:
    svc = await make_service(presenters=[recorder])
    finished = spy_finished(svc)
    await open_table(svc, ALICE, BOB)
    before = db_dump(db_path)
    with pytest.raises(ConfirmForfeit):  # asking is not leaving: nothing changes
        await svc.leave(CH, BOB)
    assert db_dump(db_path) == before

    await svc.forfeit(CH, BOB)
    # recorded at once, before the game ends
    assert await _forfeit_rows(svc) == [(BOB, 1, "leave")]
    table = await svc.table(CH)
    assert [s.forfeited for s in table.seats] == [False, True]
    await settle(svc)
    (notice,) = recorder.notices("forfeit")
    assert notice[2].key == "{player} left the game: a forfeit, and the AI plays on"
    assert notice[2]["player"].index == 1 and notice[3] == BOB  # named by seat, not "seat 1"
    assert [p.name for p in notice[4]] == ["user1", "user2"]

    table = await play_out(svc)  # Alice plays, the AI plays Bob's seat to the end
    assert table.finished
    (game,) = finished
    assert game.forfeits == (1,)
    alice_lost = 0 in table.outcome.losers
    assert {p.user_id: p.lost for p in game.players} == {ALICE: alice_lost, BOB: True}
    losses = [int(alice_lost), 1]  # Bob's forfeit counts once, durak or not
    assert await _losses(svc, table.series_id) == losses
    assert [e.losses for e in (await svc.series(CH)).standings] == losses
    stats = await svc.stats(GUILD, BOB)
    assert (stats.games, stats.losses, stats.forfeits) == (1, 1, 1)
    assert (await svc.stats(GUILD, ALICE)).forfeits == 0


async def test_forfeit_then_durak_on_the_same_seat_counts_one_loss(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    """Deals differ by seed; the forfeited seat ends as the durak in some of them.  Either
    way the forfeiter has exactly one loss, and the seat is not counted twice."""
    seen_durak = 0
    for seed in range(1, 13):
        path = tmp_path / f"seed{seed}.sqlite3"
        svc = await make_service(path, seed=seed)
        await open_table(svc, ALICE, BOB, CAROL)
        await svc.forfeit(CH, CAROL)  # Carol's seat goes to the AI at once
        table = await play_out(svc)
        assert table.finished
        losses = [int(0 in table.outcome.losers), int(1 in table.outcome.losers), 1]
        assert await _losses(svc, table.series_id) == losses, seed
        rows = [(p.seat, int(p.lost)) for p in await svc.storage.game_results(table.game_id)]
        assert rows == [(0, losses[0]), (1, losses[1]), (2, 1)]
        stats = await svc.stats(GUILD, CAROL)
        assert (stats.games, stats.losses, stats.forfeits) == (1, 1, 1)
        seen_durak += 2 in table.outcome.losers
        await svc.close()
        if seen_durak >= 1 and seed >= 4:
            break
    assert seen_durak >= 1, "no deal made the forfeited seat the durak"


async def test_three_player_forfeit_cannot_rejoin_and_changes_nothing_when_refused(
    make_service: ServiceFactory, db_path: Path
) -> None:
    svc = await make_service()
    await open_table(svc, ALICE, BOB, CAROL)
    await _leave(svc, CAROL)
    await settle(svc)
    before = db_dump(db_path)
    table = await svc.table(CH)
    for attempt in (
        svc.join(CH, CAROL, "Carol"),
        svc.hand(CH, CAROL),
        svc.act(CH, CAROL, "take", table.version),
        svc.leave(CH, CAROL),
        svc.forfeit(CH, CAROL),
    ):
        with pytest.raises(Forfeited) as info:
            await attempt
        assert info.value.message.key in (
            "you left this game (a forfeit): you cannot rejoin it",
            "you have already left this game",
        )
    with pytest.raises(NotSeated):
        await svc.forfeit(CH, DAVE)
    with pytest.raises(StaleAction):  # a confirmation for an older game
        await svc.forfeit(CH, BOB, game_id=table.game_id + 1)
    assert db_dump(db_path) == before
    table = await play_out(svc)
    assert table.finished and table.seats[2].forfeited
    with pytest.raises(GameFinished):
        await svc.forfeit(CH, ALICE)


async def test_six_player_game_with_two_forfeits(
    make_service: ServiceFactory, db_path: Path
) -> None:
    svc = await make_service()
    finished = spy_finished(svc)
    users = (ALICE, BOB, CAROL, DAVE, ERIN, FRANK)
    await open_table(svc, *users)
    await _leave(svc, BOB)
    await settle(svc)
    await _leave(svc, ERIN)
    assert await _forfeit_rows(svc) == [(BOB, 1, "leave"), (ERIN, 4, "leave")]
    table = await play_out(svc)
    assert table.finished
    (game,) = finished
    assert game.forfeits == (1, 4)
    losses = [int(i in table.outcome.losers) for i in range(6)]
    losses[1] = losses[4] = 1
    assert await _losses(svc, table.series_id) == losses
    for user in (BOB, ERIN):
        stats = await svc.stats(GUILD, user)
        assert (stats.games, stats.losses, stats.forfeits) == (1, 1, 1)


async def test_a_forfeit_counts_even_when_the_game_is_then_stopped(
    make_service: ServiceFactory, db_path: Path
) -> None:
    svc = await make_service()
    finished = spy_finished(svc)
    await open_table(svc, ALICE, BOB, CAROL)
    await svc.forfeit(CH, BOB)
    await settle(svc)
    assert await svc.stop(CH, ALICE) == "vote_opened"  # Bob has no vote any more
    assert (await svc.table(CH)).stop_vote == (1, 2)
    assert await svc.stop(CH, CAROL) == "stopped"
    (game,) = finished
    assert game.result == "aborted" and game.forfeits == (1,)
    assert await _losses(svc, game.series_id) == [0, 1, 0]
    bob = await svc.stats(GUILD, BOB)
    assert (bob.games, bob.losses, bob.forfeits) == (1, 1, 1)
    assert (await svc.stats(GUILD, ALICE)).games == 0  # an aborted game: no result for them


async def test_a_forfeit_survives_a_restart(make_service: ServiceFactory, db_path: Path) -> None:
    a = await make_service()
    await open_table(a, ALICE, BOB)
    await a.forfeit(CH, BOB)
    await settle(a)
    await a.close()
    b = await make_service()
    table = await b.table(CH)
    assert [s.forfeited for s in table.seats] == [False, True]
    with pytest.raises(Forfeited):
        await b.hand(CH, BOB)
    table = await play_out(b)
    assert table.finished and (await _losses(b, table.series_id))[1] == 1


async def test_a_rematch_puts_the_forfeiter_on_autopilot_even_after_a_restart(
    make_service: ServiceFactory, recorder: Recorder
) -> None:
    a = await make_service()
    await open_table(a, ALICE, BOB, CAROL)
    await a.forfeit(CH, CAROL)
    await play_out(a)
    await a.close()
    b = await make_service(presenters=[recorder])  # restarted between the games
    table = await b.rematch(CH, ALICE)
    assert [s.autopilot for s in table.seats] == [False, False, True]
    assert not any(s.forfeited for s in table.seats)  # a new game: no forfeit in it
    await settle(b)
    (notice,) = recorder.notices("autopilot_on")
    assert notice[2]["name"].index == 2 and notice[3] == CAROL
    hand = await b.hand(CH, CAROL)  # Carol may come back to the new game
    assert not hand.autopilot
