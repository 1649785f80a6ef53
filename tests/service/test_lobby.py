"""Lobby flow: open, join, leave, AI seats, start, stop; every refusal changes nothing."""

from __future__ import annotations

import pytest

from bot.authority import MODERATOR
from bot.errors import (
    AlreadySeated,
    AlreadyStarted,
    BadOption,
    ChannelBusy,
    ConfirmForfeit,
    LobbyFull,
    NoGame,
    NoLobby,
    NotEnoughPlayers,
    NotHost,
    NotSeated,
    ServiceError,
    UnknownLevel,
)
from bot.seating import LobbyOptions

from .conftest import ALICE, BOB, CAROL, CH, DAVE, GUILD, db_dump, settle


async def test_full_lobby_flow(make_service, recorder, db_path):
    svc = await make_service(presenters=[recorder])
    view = await svc.open_lobby(
        CH, GUILD, ALICE, "Alice", {"rules": "perevodnoy", "seats": 4, "turn_timeout": 30}
    )
    assert view.status == "open" and view.host_id == ALICE
    assert [s.user_id for s in view.seats] == [ALICE]
    assert view.rules.profile == "perevodnoy" and view.rules.transfer
    assert view.rules.throw_in == "all"
    assert view.turn_timeout == 30 and view.max_seats == 4 and not view.can_start
    assert svc.state(CH) == "lobby"

    view = await svc.join(CH, BOB, "Bob")
    assert [s.name for s in view.seats] == ["Alice", "Bob"] and view.can_start
    view = await svc.add_ai(CH, ALICE, "beginner")
    assert view.seats[-1].is_ai and view.seats[-1].name == "Beginner AI"
    view = await svc.add_ai(CH, ALICE, "beginner")
    assert view.seats[-1].name == "Beginner AI 2"
    with pytest.raises(LobbyFull):
        await svc.join(CH, CAROL, "Carol")
    view = await svc.remove_seat(CH, ALICE, 3)
    assert len(view.seats) == 3
    view = await svc.leave(CH, BOB)
    assert [s.user_id for s in view.seats] == [ALICE, None]
    await svc.join(CH, CAROL, "Carol")

    table = await svc.start(CH, ALICE)
    assert svc.state(CH) == "playing"
    assert [s.name for s in table.seats] == ["Alice", "Beginner AI", "Carol"]
    assert table.version == 0 and table.rules.profile == "perevodnoy" and table.turn_timeout == 30
    assert table.series is not None and table.series.games == 0
    await settle(svc)
    statuses = [v.status for v in recorder.of("lobby")]
    assert statuses[0] == "open" and statuses[-1] == "started"
    assert recorder.of("table"), "the table was announced"
    with pytest.raises(NoLobby):
        await svc.lobby(CH)
    # the lobby row is gone, the game is live
    state = await svc.storage.load_state()
    assert state.lobbies == [] and [g.channel_id for g in state.live] == [CH]


async def test_host_and_seat_rules(make_service, db_path):
    svc = await make_service()
    await svc.open_lobby(CH, GUILD, ALICE, "Alice", LobbyOptions(seats=3))
    await svc.join(CH, BOB, "Bob")
    before_db = db_dump(db_path)
    before = await svc.lobby(CH)
    refusals = [
        (AlreadySeated, svc.join(CH, BOB, "Bob")),
        (NotHost, svc.start(CH, BOB)),
        (NotHost, svc.add_ai(CH, BOB, "beginner")),
        (NotHost, svc.stop(CH, BOB)),
        (NotHost, svc.remove_seat(CH, BOB, 0)),
        (NotSeated, svc.leave(CH, CAROL)),
        (ChannelBusy, svc.open_lobby(CH, GUILD, CAROL, "Carol")),
        (UnknownLevel, svc.add_ai(CH, ALICE, "grandmaster")),
        (BadOption, svc.remove_seat(CH, ALICE, 7)),
        (NoGame, svc.table(CH)),
        (NoGame, svc.act(CH, ALICE, "take", 0)),
        (NoGame, svc.hand(CH, ALICE)),
    ]
    for error, call in refusals:
        with pytest.raises(error) as info:
            await call
        assert isinstance(info.value, ServiceError) and info.value.code and info.value.message
    assert await svc.lobby(CH) == before
    assert db_dump(db_path) == before_db
    # Manage Channel overrides the host check
    view = await svc.add_ai(CH, BOB, "beginner", authority=MODERATOR)
    assert len(view.seats) == 3
    with pytest.raises(LobbyFull):
        await svc.add_ai(CH, ALICE, "beginner")


async def test_host_leaving_hands_over_and_empty_lobby_closes(make_service, recorder):
    svc = await make_service(presenters=[recorder])
    await svc.open_lobby(CH, GUILD, ALICE, "Alice")
    await svc.add_ai(CH, ALICE, "beginner")
    await svc.join(CH, BOB, "Bob")
    view = await svc.leave(CH, ALICE)
    assert view.host_id == BOB and view.host_name == "Bob"
    view = await svc.leave(CH, BOB)
    # no human left: the lobby closes (nobody would be there to start it)
    assert view.status == "closed"
    assert svc.state(CH) == "none"
    await svc.open_lobby(CH, GUILD, CAROL, "Carol")  # the channel is free again


async def test_start_needs_two_seats_and_one_lobby_per_channel(make_service):
    svc = await make_service()
    await svc.open_lobby(CH, GUILD, ALICE, "Alice")
    with pytest.raises(NotEnoughPlayers):
        await svc.start(CH, ALICE)
    await svc.join(CH, BOB, "Bob")
    await svc.start(CH, ALICE)
    with pytest.raises(ChannelBusy):
        await svc.open_lobby(CH, GUILD, CAROL, "Carol")
    with pytest.raises(AlreadyStarted):
        await svc.join(CH, CAROL, "Carol")
    with pytest.raises(ConfirmForfeit):  # leaving a running game is a forfeit, confirmed
        await svc.leave(CH, BOB)
    # another channel is independent
    await svc.open_lobby(CH + 1, GUILD, CAROL, "Carol")
    await svc.join(CH + 1, DAVE, "Dave")
    assert svc.state(CH + 1) == "lobby"


@pytest.mark.parametrize(
    "options",
    [
        {"seats": 7},
        {"seats": 1},
        {"turn_timeout": 10},
        {"turn_timeout": 601},
        {"rules": "bridge"},
        {"first_round_limit": 4},
        {"throw_in": "everyone"},
        {"colour": "red"},
        {"transfer": "yes"},
    ],
)
async def test_bad_options_are_refused(make_service, db_path, options):
    svc = await make_service()
    before = db_dump(db_path)
    with pytest.raises(BadOption):
        await svc.open_lobby(CH, GUILD, ALICE, "Alice", options)
    assert svc.state(CH) == "none"
    assert db_dump(db_path) == before


async def test_rule_overrides_make_a_custom_profile(make_service):
    svc = await make_service()
    view = await svc.open_lobby(CH, GUILD, ALICE, "Alice", {"rules": "classic", "transfer": True})
    assert view.rules.transfer and view.rules.first_round_limit == 5
    assert view.rules.profile is None and view.profile == "classic"


async def test_stop_lobby(make_service, recorder):
    svc = await make_service(presenters=[recorder])
    await svc.open_lobby(CH, GUILD, ALICE, "Alice")
    await svc.stop(CH, BOB, authority=MODERATOR)
    await settle(svc)
    assert svc.state(CH) == "none"
    assert recorder.of("lobby")[-1].status == "closed"
    assert recorder.notices("stopped")
    with pytest.raises(NoGame):
        await svc.stop(CH, ALICE)


async def test_lobby_survives_restart(make_service, db_path):
    svc = await make_service()
    await svc.open_lobby(CH, GUILD, ALICE, "Alice", {"seats": 3, "rules": "classic"})
    await svc.add_ai(CH, ALICE, "beginner")
    before = await svc.lobby(CH)
    await svc.close()
    svc2 = await make_service()
    assert await svc2.lobby(CH) == before
    await svc2.join(CH, BOB, "Bob")
    table = await svc2.start(CH, ALICE)
    assert table.rules.profile == "classic" and len(table.seats) == 3
