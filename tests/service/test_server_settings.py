"""``/durak config`` in the service: Manage Server only, every bad value refused with a
message and nothing stored, settings kept across restarts, used by ``open_lobby``; and the
timer pause used while a table cannot be shown."""

from __future__ import annotations

import pytest

from bot.errors import BadOption, ChannelNotAllowed, NotManager
from bot.server_config import ServerConfig
from bot.service import settings
from bot.terms import ChannelList, Permission
from rules_engine.messages import Message

from .conftest import ALICE, BOB, CH, GUILD, db_dump, open_table, settle

OTHER_CH = 200


async def test_only_manage_server_changes_settings(make_service, db_path):
    svc = await make_service()
    before = db_dump(db_path)
    with pytest.raises(NotManager) as err:
        await svc.set_server_config(GUILD, BOB, manage_guild=False, turn_timeout=30)
    assert err.value.message["permission"] is Permission.MANAGE_SERVER
    assert db_dump(db_path) == before
    assert (await svc.server_config(GUILD)).turn_timeout == 60


@pytest.mark.parametrize(
    ("changes", "setting"),
    [
        ({"profile": "durak-deluxe"}, "profile"),
        ({"transfer": "maybe"}, "transfer"),
        ({"throw_in": "everybody"}, "throw_in"),
        ({"first_round_limit": 9}, "first_round_limit"),
        ({"first_round_limit": "five"}, "first_round_limit"),
        ({"turn_timeout": 5}, "turn_timeout"),
        ({"turn_timeout": 601}, "turn_timeout"),
        ({"turn_timeout": "soon"}, "turn_timeout"),
        ({"count_ai_games": "sometimes"}, "count_ai_games"),
        ({"channels": "#general"}, "channels"),
        ({"add_channel": "not-a-channel"}, "channels"),
        ({"remove_channel": -3}, "channels"),
        ({"colour": "red"}, "colour"),
        # one bad value among good ones: none of them is applied
        ({"turn_timeout": 30, "profile": "nope"}, "profile"),
    ],
)
async def test_every_bad_value_is_refused_and_nothing_is_stored(
    make_service, db_path, changes, setting
):
    svc = await make_service()
    await svc.set_server_config(GUILD, ALICE, manage_guild=True, turn_timeout=45)
    before = db_dump(db_path)
    with pytest.raises(BadOption) as err:
        await svc.set_server_config(GUILD, ALICE, manage_guild=True, **changes)
    assert err.value.details["setting"] == setting
    message = err.value.message
    assert isinstance(message, Message) and message.key != BadOption.default_message.key
    assert db_dump(db_path) == before
    assert (await svc.server_config(GUILD)) == ServerConfig(turn_timeout=45)


async def test_settings_are_stored_per_server_and_survive_a_restart(make_service, db_path):
    svc = await make_service()
    config = await svc.set_server_config(
        GUILD,
        ALICE,
        manage_guild=True,
        profile="perevodnoy",
        transfer="off",
        turn_timeout="90",
        count_ai_games=True,
        add_channel=CH,
    )
    assert config.profile == "perevodnoy" and config.transfer is False
    assert config.turn_timeout == 90 and config.count_ai_games and config.channels == {CH}
    assert await svc.count_ai_games(GUILD) and svc.count_ai_games_now(GUILD)
    assert not await svc.count_ai_games(GUILD + 1)  # another server keeps the defaults
    assert (await svc.server_config(GUILD + 1)).channels == frozenset()
    await svc.close()

    again = await make_service()
    assert await again.server_config(GUILD) == config
    assert again.count_ai_games_now(GUILD)
    config = await again.set_server_config(
        GUILD, ALICE, manage_guild=True, remove_channel=str(CH), transfer="default"
    )
    assert config.channels == frozenset() and config.transfer is None


async def test_new_lobbies_take_the_server_defaults(make_service):
    svc = await make_service()
    await svc.set_server_config(
        GUILD,
        ALICE,
        manage_guild=True,
        profile="classic",
        transfer="on",
        turn_timeout=120,
    )
    view = await svc.open_lobby(CH, GUILD, ALICE, "Alice", {"seats": 3})
    assert view.rules.profile is None or view.rules.transfer  # classic + transfer: custom
    assert view.rules.transfer and view.rules.first_round_limit == 5
    assert view.turn_timeout == 120 and view.max_seats == 3
    await svc.stop(CH, ALICE)
    # an option given wins; another profile gets its own options, not the server's house ones
    view = await svc.open_lobby(
        CH, GUILD, ALICE, "Alice", {"rules": "podkidnoy", "turn_timeout": 20}
    )
    assert view.rules.profile == "podkidnoy" and not view.rules.transfer
    assert view.turn_timeout == 20


async def test_lobbies_open_only_in_allowed_channels(make_service, db_path):
    svc = await make_service()
    await svc.set_server_config(GUILD, ALICE, manage_guild=True, add_channel=OTHER_CH)
    before = db_dump(db_path)
    with pytest.raises(ChannelNotAllowed) as err:
        await svc.open_lobby(CH, GUILD, ALICE, "Alice")
    assert err.value.message["channels"] == ChannelList((OTHER_CH,))
    assert db_dump(db_path) == before and svc.state(CH) == "none"
    await svc.open_lobby(OTHER_CH, GUILD, ALICE, "Alice")
    # a thread is checked by its parent channel
    await svc.open_lobby(999, GUILD, BOB, "Bob", parent_id=OTHER_CH)
    assert svc.state(999) == "lobby"


async def test_paused_timers_freeze_the_turn_until_resumed(make_service, clock):
    svc = await make_service(turn_timeout=60)
    table = await open_table(svc, ALICE, BOB)
    deadline = table.deadline
    assert deadline is not None
    await clock.advance(20)
    assert await svc.pause_timers(CH) and svc.timers_paused(CH)
    assert not await svc.pause_timers(CH)  # once
    assert (await svc.table(CH)).deadline is None  # no countdown shown while paused
    await clock.advance(600)
    await settle(svc)
    assert (await svc.table(CH)).version == table.version  # nobody timed out
    assert await svc.resume_timers(CH) and not svc.timers_paused(CH)
    resumed = (await svc.table(CH)).deadline
    assert resumed == pytest.approx(clock.now() + 40)  # the 40 s that were left
    await clock.advance(41)
    await settle(svc)
    assert (await svc.table(CH)).version == table.version + 1  # the turn timed out then


async def test_paused_ai_seats_hold_their_moves(make_service, clock):
    svc = await make_service(ai_delay=1.0)
    await svc.open_lobby(CH, GUILD, ALICE, "Alice", {"seats": 2})
    await svc.add_ai(CH, ALICE, "beginner")
    table = await svc.start(CH, ALICE)
    if table.seats[table.to_act].user_id == ALICE:  # let the AI be the one to act
        hand = await svc.hand(CH, ALICE)
        await svc.act(CH, ALICE, hand.legal[0].text, hand.version, game_id=hand.game_id)
    await settle(svc)
    version = (await svc.table(CH)).version
    assert await svc.pause_timers(CH)
    await clock.advance(30)
    await settle(svc)
    assert (await svc.table(CH)).version == version
    assert await svc.resume_timers(CH)
    await settle(svc)  # the AI decides, then waits its delay on the clock
    await clock.advance(2)
    await settle(svc)
    assert (await svc.table(CH)).version > version


async def test_a_restored_game_knows_its_servers_ratings_switch(make_service):
    """The ratings code asks ``count_ai_games_now`` without waiting, when a game ends: the
    settings of every guild with a lobby or a series are read back at restore."""
    svc = await make_service()
    await svc.set_server_config(GUILD, ALICE, manage_guild=True, count_ai_games="on")
    await open_table(svc, ALICE, ais=("beginner",))
    await svc.close()
    again = await make_service()
    assert again.count_ai_games_now(GUILD)
    assert not again.count_ai_games_now(GUILD + 1)


async def test_the_settings_cache_forgets_idle_servers_but_keeps_those_in_use(
    make_service, monkeypatch
):
    monkeypatch.setattr(settings, "CACHED_GUILDS", 2)
    svc = await make_service()
    await svc.set_server_config(GUILD, ALICE, manage_guild=True, count_ai_games="on")
    await open_table(svc, ALICE, BOB)  # GUILD has a game here: its settings stay cached
    for guild in range(GUILD + 1, GUILD + 6):
        await svc.server_config(guild)
    assert svc.count_ai_games_now(GUILD)  # still cached, read without waiting
    assert svc.cached_servers() == 2  # the guild in use and the latest other one
    assert await svc.count_ai_games(GUILD + 1) is False  # an evicted one is read again
