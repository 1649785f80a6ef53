"""Events routed by realm: a presenter is given the events of the realms it serves only (a
Discord channel's never reach the rooms' presenter, a room's never reach Discord's)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.realm import EVERY_REALM, ROOM_IDS, SNOWFLAKE_MIN, WEB_REALM, Realm, realm_of

from .conftest import ALICE, BOB, Recorder, play_out, settle

DISCORD_CHANNEL, DISCORD_GUILD = 7 << 22, 9 << 22
ROOM = ROOM_IDS.start
#: The channel and server of each realm's table in these tests (the terminal's are 1 and 1).
PLACES = {
    Realm.DISCORD: (DISCORD_CHANNEL, DISCORD_GUILD),
    Realm.ROOMS: (ROOM, WEB_REALM),
    Realm.LOCAL: (1, 1),
}


def serving(*realms: Realm) -> Recorder:
    recorder = Recorder()
    recorder.realms = frozenset(realms)  # type: ignore[misc]
    return recorder


def channel_of(event: tuple[str, Any]) -> int:
    """The channel a recorded event is about."""
    kind, value = event
    if kind in ("lobby", "table", "over"):
        return int(value.channel_id)
    return int(value[0])  # hand and notice events start with their channel


def channels_seen(recorder: Recorder) -> set[int]:
    """Every channel an event given to ``recorder`` was about."""
    return {channel_of(event) for event in recorder.events}


def test_a_channels_id_says_its_realm() -> None:
    assert realm_of(SNOWFLAKE_MIN) is Realm.DISCORD
    assert realm_of(DISCORD_CHANNEL) is Realm.DISCORD
    assert realm_of(ROOM_IDS.start) is realm_of(ROOM_IDS[-1]) is Realm.ROOMS
    for local in (1, 3, 100, ROOM_IDS.start - 1):
        assert realm_of(local) is Realm.LOCAL
    assert Realm.DISCORD.has_moderators
    assert not Realm.ROOMS.has_moderators and not Realm.LOCAL.has_moderators


async def test_each_presenter_gets_the_events_of_its_realms_only(make_service) -> None:
    only = {realm: serving(realm) for realm in Realm}
    rooms_and_discord = serving(Realm.ROOMS, Realm.DISCORD)
    everything = Recorder()
    assert everything.realms == EVERY_REALM
    svc = await make_service(presenters=[*only.values(), rooms_and_discord, everything])
    for channel, guild in PLACES.values():
        await svc.open_lobby(channel, guild, ALICE, "Alice", {"seats": 2})
        await svc.join(channel, BOB, "Bob")
        await svc.start(channel, ALICE)
        await play_out(svc, channel)
        await svc.end_series(channel, ALICE)
    await settle(svc)
    for realm, recorder in only.items():
        assert channels_seen(recorder) == {PLACES[realm][0]}, realm
        kinds = {kind for kind, _ in recorder.events}
        assert kinds == {"lobby", "table", "hand", "notice", "over"}, realm
    assert channels_seen(rooms_and_discord) == {ROOM, DISCORD_CHANNEL}
    assert channels_seen(everything) == {channel for channel, _ in PLACES.values()}
    # each realm's presenter saw exactly what the one serving every realm saw of it
    for realm, recorder in only.items():
        channel = PLACES[realm][0]
        assert recorder.events == [e for e in everything.events if channel_of(e) == channel]


async def test_a_restart_announces_each_game_to_its_realm_only(make_service) -> None:
    first = await make_service()
    for channel, guild in PLACES.values():
        await first.open_lobby(channel, guild, ALICE, "Alice", {"seats": 2})
        await first.join(channel, BOB, "Bob")
        await first.start(channel, ALICE)
    await first.close()
    only = {realm: serving(realm) for realm in Realm}
    await settle(await make_service(presenters=list(only.values())))
    for realm, recorder in only.items():
        assert channels_seen(recorder) == {PLACES[realm][0]}, realm
        assert [n[1] for n in recorder.of("notice")] == ["restored"]


async def test_a_removed_presenter_hears_nothing_more(make_service) -> None:
    rooms = serving(Realm.ROOMS)
    svc = await make_service()
    svc.add_presenter(rooms)
    await svc.open_lobby(ROOM, WEB_REALM, ALICE, "Alice")
    await settle(svc)
    assert len(rooms.of("lobby")) == 1
    svc.remove_presenter(rooms)
    await svc.join(ROOM, BOB, "Bob")
    await settle(svc)
    assert len(rooms.of("lobby")) == 1


@pytest.mark.parametrize("realms", [frozenset(), frozenset({"rooms"}), frozenset({1})])
async def test_a_presenter_must_name_its_realms(make_service, realms) -> None:
    svc = await make_service()
    presenter = Recorder()
    presenter.realms = realms  # type: ignore[misc]
    with pytest.raises(ValueError, match="realm"):
        svc.add_presenter(presenter)


def test_the_adapters_presenters_serve_their_own_realms() -> None:
    from cogs.presenter import DiscordPresenter
    from terminal.session import _Printer
    from web.presenter import WebPresenter
    from web.rooms.presenter import RoomPresenter

    assert DiscordPresenter.realms == frozenset({Realm.DISCORD})
    assert RoomPresenter.realms == frozenset({Realm.ROOMS})
    assert _Printer.realms == frozenset({Realm.LOCAL})
    assert WebPresenter.realms == EVERY_REALM  # its pages are of any realm with tables
