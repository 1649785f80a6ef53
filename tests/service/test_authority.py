"""Who acts: a player (the host by id), a moderator (only where the realm has moderators), or
the system by a rule; the notices say which."""

from __future__ import annotations

import pytest

from bot.authority import MODERATOR, PLAYER, Authority, Role, SystemRule, system
from bot.errors import NotHost
from bot.realm import ROOM_IDS, WEB_REALM, Realm
from bot.service import ChannelPhase, StopOutcome
from bot.terms import Permission

from .conftest import ALICE, BOB, CH, GUILD, Recorder, open_table, play_out, settle

ROOM = ROOM_IDS.start


def test_an_authority_is_a_player_a_moderator_or_the_system_by_a_rule() -> None:
    assert not PLAYER.over_host(Realm.DISCORD)
    assert MODERATOR.over_host(Realm.DISCORD)
    assert not MODERATOR.over_host(Realm.ROOMS) and not MODERATOR.over_host(Realm.LOCAL)
    for realm in Realm:
        assert system(SystemRule.IDLE).over_host(realm)
    with pytest.raises(ValueError):
        Authority(Role.SYSTEM)
    with pytest.raises(ValueError):
        Authority(Role.MODERATOR, SystemRule.IDLE)


async def test_a_moderator_acts_over_the_host_in_discord_only(svc, recorder: Recorder) -> None:
    await svc.open_lobby(CH, GUILD, ALICE, "Alice")
    with pytest.raises(NotHost) as refused:
        await svc.add_ai(CH, BOB, "beginner")
    assert refused.value.message["permission"] is Permission.MANAGE_CHANNEL
    await svc.add_ai(CH, BOB, "beginner", authority=MODERATOR)
    # in a room, nobody moderates: whoever claims to is a player, told so without moderators
    await svc.open_lobby(ROOM, WEB_REALM, ALICE, "Alice")
    with pytest.raises(NotHost) as refused:
        await svc.add_ai(ROOM, BOB, "beginner", authority=MODERATOR)
    assert refused.value.message.key == "only the host can do that"
    assert len((await svc.lobby(ROOM)).seats) == 1


async def test_the_system_closes_a_lobby_stops_a_game_and_ends_a_series(
    svc, recorder: Recorder
) -> None:
    assert await svc.system_stop(CH, SystemRule.IDLE) is None  # nothing there
    await svc.open_lobby(CH, GUILD, ALICE, "Alice")
    assert await svc.system_stop(CH, SystemRule.IDLE) is StopOutcome.CLOSED
    await open_table(svc, ALICE, BOB)
    assert await svc.system_stop(CH, SystemRule.IDLE) is StopOutcome.STOPPED
    assert svc.state(CH) is ChannelPhase.NONE  # its series ended with it
    await open_table(svc, ALICE, BOB)
    await play_out(svc)
    assert await svc.system_stop(CH, SystemRule.IDLE) is StopOutcome.ENDED
    await settle(svc)
    kinds = [(n[1], n[2].key, n[3]) for n in recorder.of("notice")]
    assert kinds == [
        ("stopped", "the lobby was closed", None),
        (
            "stopped",
            "nobody played for too long: the game was stopped, no result is recorded, except "
            "forfeits",
            None,
        ),
        ("series_ended", "the series is over", None),
    ]


async def test_a_lobby_that_cannot_be_shown_is_closed_by_the_system(
    svc, recorder: Recorder
) -> None:
    await svc.open_lobby(CH, GUILD, ALICE, "Alice")
    outcome = await svc.table_unshowable(CH, lobby=True)
    assert outcome.host_id == ALICE and svc.state(CH) is ChannelPhase.NONE
    await settle(svc)
    assert [(n[1], n[3]) for n in recorder.of("notice")] == [("stopped", None)]
