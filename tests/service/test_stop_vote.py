"""Stopping a running game (README, "Fair play"): every seated
human who has not forfeited must agree within 60 s, shown on the table as Stop? n/m; a member
with Manage Channel forces it; a host alone cannot end a game they are losing."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.authority import MODERATOR
from bot.errors import AlreadyVoted, NoGame, NotVoter, StaleAction
from bot.outcome import Ending
from bot.service import GameService
from bot.terms import Permission
from bot.votes import STOP_VOTE_TIMEOUT
from tests import storage_helpers as stored

from .conftest import Recorder, ServiceFactory, db_dump, open_table, settle, spy_finished
from .support import ALICE, BOB, CAROL, CH, DAVE, GUILD


async def _results(svc: GameService) -> list[tuple[str, int | None]]:
    """``(result, loser seat)`` of every game stored."""
    return await stored.results(svc.storage, GUILD)


async def test_vote_passes_when_every_player_agrees(
    make_service: ServiceFactory, recorder: Recorder, db_path: Path
) -> None:
    svc = await make_service(presenters=[recorder])
    finished = spy_finished(svc)
    await open_table(svc, ALICE, BOB, CAROL)
    assert await svc.stop(CH, BOB) == "vote_opened"  # anyone seated may open it
    table = await svc.table(CH)
    assert table.stop_vote == (1, 3)
    assert table.stop_vote_deadline == svc.clock.now() + STOP_VOTE_TIMEOUT
    with pytest.raises(AlreadyVoted) as again:  # pressing twice counts once, and says so
        await svc.stop(CH, BOB)
    assert (again.value.message["yes"], again.value.message["total"]) == (1, 3)
    assert (await svc.table(CH)).stop_vote == (1, 3)
    assert await svc.stop(CH, ALICE) == "voted"
    assert (await svc.table(CH)).stop_vote == (2, 3) and svc.state(CH) == "playing"
    assert await svc.stop(CH, CAROL) == "stopped"
    await settle(svc)
    assert svc.state(CH) == "none"
    assert recorder.of("table")[-1].outcome.ending is Ending.STOPPED
    (opened,) = recorder.notices("stop_vote")
    assert opened[2]["player"].index == 1 and (opened[2]["yes"], opened[2]["total"]) == (1, 3)
    assert recorder.notices("stopped")[-1][2].key.startswith("every player agreed to stop")
    (game,) = finished
    assert game.result == "aborted" and game.players == [] and game.forfeits == ()
    assert await _results(svc) == [("aborted", None)]
    assert (await svc.stats(GUILD, ALICE)).games == 0
    await svc.clock.advance(STOP_VOTE_TIMEOUT + 1)  # type: ignore[attr-defined]
    await settle(svc)  # the vote's timer is gone with the game
    assert not recorder.notices("stop_vote")[1:]


async def test_vote_fails_when_a_player_wants_to_play_on(
    make_service: ServiceFactory, recorder: Recorder
) -> None:
    svc = await make_service(presenters=[recorder])
    await open_table(svc, ALICE, BOB)
    await svc.stop(CH, ALICE)
    with pytest.raises(NotVoter):
        await svc.keep_playing(CH, CAROL)
    table = await svc.keep_playing(CH, BOB)
    assert table.stop_vote is None and svc.state(CH) == "playing"
    await settle(svc)
    failed = recorder.notices("stop_vote")[-1]
    assert failed[2].key == "{player} wants to play on: the stop vote failed"
    assert failed[2]["player"].index == 1
    with pytest.raises(NoGame):  # no vote open any more
        await svc.keep_playing(CH, BOB)
    # the expired timer of the failed vote does nothing
    await svc.clock.advance(STOP_VOTE_TIMEOUT + 1)  # type: ignore[attr-defined]
    await settle(svc)
    assert len(recorder.notices("stop_vote")) == 2
    assert await svc.stop(CH, BOB) == "vote_opened"  # a new vote may open


async def test_vote_times_out_and_the_game_goes_on(
    make_service: ServiceFactory, recorder: Recorder
) -> None:
    svc = await make_service(presenters=[recorder], turn_timeout=600)
    await open_table(svc, ALICE, BOB, CAROL)
    await svc.stop(CH, ALICE)
    await svc.stop(CH, BOB)
    await svc.clock.advance(STOP_VOTE_TIMEOUT - 1)  # type: ignore[attr-defined]
    await settle(svc)
    assert (await svc.table(CH)).stop_vote == (2, 3)
    await svc.clock.advance(1)  # type: ignore[attr-defined]
    await settle(svc)
    table = await svc.table(CH)
    assert table.stop_vote is None and svc.state(CH) == "playing"
    lapsed = recorder.notices("stop_vote")[-1][2]
    assert lapsed.key == "not every player agreed to stop in time: the game goes on"
    assert recorder.of("table")[-1].stop_vote is None
    # Carol's late yes opens a new vote instead of stopping the game
    assert await svc.stop(CH, CAROL) == "vote_opened"
    assert (await svc.table(CH)).stop_vote == (1, 3)


async def test_a_moderator_forces_the_stop(
    make_service: ServiceFactory, recorder: Recorder, db_path: Path
) -> None:
    svc = await make_service(presenters=[recorder])
    await open_table(svc, ALICE, BOB)
    assert await svc.stop(CH, DAVE, authority=MODERATOR) == "stopped"  # not even seated
    await settle(svc)
    assert svc.state(CH) == "none"
    assert await _results(svc) == [("aborted", None)]
    stopped = recorder.notices("stopped")[-1][2]
    assert stopped.key.startswith("a member with {permission} stopped the game")
    assert stopped["permission"] is Permission.MANAGE_CHANNEL


async def test_refused_votes_change_nothing(make_service: ServiceFactory, db_path: Path) -> None:
    svc = await make_service()
    table = await open_table(svc, ALICE, BOB, CAROL)
    await svc.forfeit(CH, CAROL)
    await settle(svc)
    before = db_dump(db_path)
    for user in (DAVE, CAROL):  # not seated; forfeited
        with pytest.raises(NotVoter) as info:
            await svc.stop(CH, user)
        assert info.value.message.key == "only the players seated at this game can vote to stop it"
    with pytest.raises(StaleAction):  # a Stop button of another game
        await svc.stop(CH, ALICE, game_id=table.game_id + 1)
    assert (await svc.table(CH)).stop_vote is None
    await svc.stop(CH, ALICE)
    with pytest.raises(NotVoter):
        await svc.stop(CH, DAVE)
    assert (await svc.table(CH)).stop_vote == (1, 2)
    assert db_dump(db_path) == before  # votes are not stored; the refusals wrote nothing


async def test_a_single_human_with_ai_seats_stops_alone(make_service: ServiceFactory) -> None:
    svc = await make_service()
    await open_table(svc, ALICE, ais=("beginner",))
    assert await svc.stop(CH, ALICE) == "stopped"
    assert svc.state(CH) == "none"


async def test_a_forfeit_during_a_vote_can_complete_it(
    make_service: ServiceFactory, recorder: Recorder
) -> None:
    svc = await make_service(presenters=[recorder])
    await open_table(svc, ALICE, BOB, CAROL)
    await svc.stop(CH, ALICE)
    await svc.stop(CH, BOB)
    await svc.forfeit(CH, CAROL)  # the only one who had not agreed leaves
    await settle(svc)
    assert svc.state(CH) == "none"
    assert recorder.of("table")[-1].outcome.ending is Ending.STOPPED


async def test_the_host_of_a_table_of_ais_stops_it_alone(
    make_service: ServiceFactory, db_path: Path
) -> None:
    """Nobody seated can vote at a table of AIs: its host (seatless) ends it at once, and a
    stranger still cannot."""
    svc = await make_service(ai_delay=5.0)  # the AIs wait on the manual clock: still running
    await svc.open_lobby(CH, GUILD, ALICE, "Alice", seat_host=False)
    await svc.add_ai(CH, ALICE, "beginner")
    await svc.add_ai(CH, ALICE, "beginner")
    await svc.start(CH, ALICE)
    with pytest.raises(NotVoter):
        await svc.stop(CH, BOB)
    assert await svc.stop(CH, ALICE) == "stopped"
    assert svc.state(CH) == "none"
    assert await _results(svc) == [("aborted", None)]
