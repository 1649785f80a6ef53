"""Series: rematch dealer and leader (RULES.md §4), end series, stop, standings."""

from __future__ import annotations

import pytest

from bot.authority import MODERATOR
from bot.errors import AlreadyStarted, NoGame, NotSeated, NotVoter, StaleAction
from bot.outcome import Outcome
from tests import storage_helpers as stored

from .conftest import ALICE, BOB, CAROL, CH, GUILD, open_table, play_out, settle


def deal_of(svc):
    game = svc.game_of(CH)
    assert game is not None
    return game.deal


async def test_rematch_after_a_loss_loser_deals_left_neighbour_leads(make_service):
    svc = await make_service()
    await open_table(svc, ALICE, BOB, ais=("beginner", "beginner"))
    first = deal_of(svc)
    assert first.first_of_series
    for total_losses in range(1, 4):
        finished = await play_out(svc)
        if not finished.outcome.losers:
            pytest.skip("a draw: covered by the next test")
        (loser,) = finished.outcome.losers
        table = await svc.rematch(CH, ALICE)
        deal = deal_of(svc)
        assert not deal.first_of_series
        assert table.dealer == deal.dealer == loser
        assert deal.leader == (loser + 1) % 4
        assert table.to_act == deal.leader
        assert table.seats[deal.leader].role == "leader"
        assert table.shown == ()  # no lowest trump shown after the first game
        series = table.series
        assert series is not None and series.games == total_losses and series.last_loser == loser
        assert sum(e.losses for e in series.standings) == total_losses


async def test_rematch_after_a_draw_same_dealer(make_service, db_path):
    a = await make_service()
    await open_table(a, ALICE, BOB, ais=("beginner",))
    finished = await play_out(a)
    dealer = finished.dealer
    await a.close()
    # turn the stored result into a draw, as a drawn game leaves it
    async with stored.opened(db_path) as storage:
        await stored.make_series_a_draw(storage, finished.series_id)

    b = await make_service()
    series = await b.series(CH)
    assert series.draws == 1 and series.last_loser is None
    table = await b.rematch(CH, BOB)
    deal = deal_of(b)
    assert table.dealer == deal.dealer == dealer
    assert deal.leader == (dealer + 1) % 3 == table.to_act


async def test_rematch_permissions_and_state(make_service):
    svc = await make_service()
    await open_table(svc, ALICE, BOB)
    with pytest.raises(AlreadyStarted):
        await svc.rematch(CH, ALICE)
    with pytest.raises(AlreadyStarted):
        await svc.end_series(CH, ALICE)
    await play_out(svc)
    with pytest.raises(NotSeated):
        await svc.rematch(CH, CAROL)
    with pytest.raises(NoGame):
        await svc.rematch(CH + 1, ALICE)
    await svc.rematch(CH, CAROL, authority=MODERATOR)


async def test_end_series_frees_the_channel(make_service, recorder, db_path):
    svc = await make_service(presenters=[recorder])
    await open_table(svc, ALICE, BOB, ais=("beginner",))
    finished = await play_out(svc)
    with pytest.raises(NotSeated):
        await svc.end_series(CH, CAROL)
    final = await svc.end_series(CH, BOB)
    assert not final.active and final.games == 1
    for loser in finished.outcome.losers:
        assert final.standings[loser].losses == 1
    assert svc.state(CH) == "none"
    with pytest.raises(NoGame):
        await svc.series(CH)
    await settle(svc)
    assert recorder.notices("series_ended")
    assert not (await stored.series(svc.storage, finished.series_id)).active
    await svc.open_lobby(CH, GUILD, CAROL, "Carol")


async def test_stop_mid_game_records_no_loss(make_service, recorder, db_path):
    svc = await make_service(presenters=[recorder])
    table = await open_table(svc, ALICE, BOB)
    user = ALICE if table.to_act == 0 else BOB
    hand = await svc.hand(CH, user)
    await svc.act(CH, user, hand.legal[0].text, 0)
    with pytest.raises(NotVoter):  # not seated
        await svc.stop(CH, CAROL)
    assert await svc.stop(CH, BOB) == "vote_opened"  # the host alone cannot stop a game
    assert svc.state(CH) == "playing"
    assert await svc.stop(CH, ALICE) == "stopped"  # every player agreed
    await settle(svc)
    assert svc.state(CH) == "none"
    assert recorder.of("table")[-1].outcome == Outcome.stopped()
    assert recorder.notices("stopped")
    assert await stored.results(svc.storage, GUILD) == [("aborted", None)]
    assert await svc.storage.game_results(table.game_id) == []
    assert await stored.live_games(svc.storage) == []
    assert sum((await stored.series(svc.storage, table.series_id)).losses) == 0
    assert (await svc.stats(GUILD, ALICE)).games == 0
    # timers of the stopped game are gone
    await svc.clock.advance(600)  # type: ignore[attr-defined]
    await settle(svc)


async def test_new_lobby_after_a_finished_game_ends_the_series(make_service, db_path):
    svc = await make_service()
    await open_table(svc, ALICE, BOB)
    finished = await play_out(svc)
    await svc.open_lobby(CH, GUILD, CAROL, "Carol")
    assert svc.state(CH) == "lobby"
    assert not (await stored.series(svc.storage, finished.series_id)).active


async def test_an_old_tables_stop_does_not_close_a_lobby_opened_since(make_service):
    """The Stop of a finished game's table names that game: pressed after a new lobby was
    opened there, it is stale (even by a member with Manage Channel), and the lobby stays."""
    svc = await make_service()
    await open_table(svc, ALICE, BOB)
    finished = await play_out(svc)
    await svc.open_lobby(CH, GUILD, CAROL, "Carol")
    with pytest.raises(StaleAction):
        await svc.stop(CH, ALICE, authority=MODERATOR, game_id=finished.game_id)
    assert svc.state(CH) == "lobby"
    assert [s.name for s in (await svc.lobby(CH)).seats] == ["Carol"]
    assert await svc.stop(CH, CAROL) == "closed"  # the lobby's own Stop names no game
