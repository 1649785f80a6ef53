"""Host hand-off: a host who leaves a lobby stops being host; the role passes to the next
seated human (seat order), and a lobby left with no human closes.  An absent ex-host can no
longer start a game they do not sit in, nor stop the others' game."""

from __future__ import annotations

import pytest

from bot.errors import NoLobby, NotHost, NotVoter
from bot.seating import LobbySeat
from bot.service.lobby import next_host

from .conftest import ALICE, BOB, CAROL, CH, GUILD, Recorder, ServiceFactory, settle
from .support import lobby_of


async def test_the_host_role_passes_in_seat_order_and_the_ex_host_has_no_power(
    make_service: ServiceFactory, recorder: Recorder
) -> None:
    svc = await make_service(presenters=[recorder])
    await svc.open_lobby(CH, GUILD, ALICE, "Alice")
    await svc.add_ai(CH, ALICE, "casual")  # an AI seat never hosts
    await svc.join(CH, BOB, "Bob")
    await svc.join(CH, CAROL, "Carol")
    view = await svc.leave(CH, ALICE)
    assert (view.host_id, view.host_name) == (BOB, "Bob")
    await settle(svc)
    assert recorder.notices("host")[-1][2]["name"] == "Bob"
    for attempt in (
        svc.start(CH, ALICE),
        svc.add_ai(CH, ALICE, "casual"),
        svc.remove_seat(CH, ALICE, 0),
        svc.stop(CH, ALICE),
    ):
        with pytest.raises(NotHost):
            await attempt
    table = await svc.start(CH, BOB)
    assert [s.user_id for s in table.seats] == [None, BOB, CAROL]
    with pytest.raises(NotVoter):  # the absent ex-host cannot stop the others' game
        await svc.stop(CH, ALICE)
    assert svc.state(CH) == "playing"


async def test_a_lobby_left_with_only_ai_seats_closes(
    make_service: ServiceFactory, recorder: Recorder
) -> None:
    svc = await make_service(presenters=[recorder])
    await lobby_of(svc, ALICE, "casual", "expert")
    view = await svc.leave(CH, ALICE)
    assert view.status == "closed" and svc.state(CH) == "none"
    with pytest.raises(NoLobby):
        await svc.start(CH, ALICE)
    await settle(svc)
    assert recorder.of("lobby")[-1].status == "closed"
    await svc.open_lobby(CH, GUILD, BOB, "Bob")  # the channel is free


def test_next_host_keeps_a_seated_host_else_the_first_seated_human():
    alice, bob, carol = LobbySeat(ALICE, "Alice"), LobbySeat(BOB, "Bob"), LobbySeat(CAROL, "Carol")
    ai = LobbySeat(None, "Casual AI", "casual")
    host = (ALICE, "Alice")
    assert next_host(host, [alice, ai, bob]) == host
    assert next_host(host, [ai, carol, bob]) == (CAROL, "Carol")  # seat order, AIs skipped
    assert next_host(host, [ai]) is None  # no human left: the lobby closes
    assert next_host(host, []) is None
