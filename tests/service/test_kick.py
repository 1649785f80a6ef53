"""``/durak kick``: the host (lobby) or Manage Channel (lobby or game) frees a seat; in a game
the kicked player forfeits and the ``casual`` AI plays the seat from then on."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.authority import MODERATOR
from bot.errors import BadOption, Forfeited, NoGame, NotHost, NotSeated
from bot.service import GameService
from bot.terms import Permission
from bot.views import LobbyView, TableView

from .conftest import Recorder, db_dump, open_table, play_out, settle
from .support import ALICE, BOB, CAROL, CH, DAVE, GUILD, lobby_of


async def test_kick_in_a_lobby(svc: GameService, recorder: Recorder, db_path: Path) -> None:
    await lobby_of(svc, ALICE, BOB, CAROL)
    before = db_dump(db_path)
    for attempt, error in (
        (svc.kick(CH, BOB, CAROL), NotHost),  # only the host (or Manage Channel)
        (svc.kick(CH, ALICE, DAVE), NotSeated),
        (svc.kick(CH, ALICE, ALICE), BadOption),  # your own seat: use leave
    ):
        with pytest.raises(error):
            await attempt
    assert db_dump(db_path) == before
    view = await svc.kick(CH, ALICE, CAROL)
    assert isinstance(view, LobbyView)
    assert [s.user_id for s in view.seats] == [ALICE, BOB]
    await settle(svc)
    kicked = recorder.notices("kicked")[-1]
    assert kicked[2].key == "{name} was removed from the lobby" and kicked[2]["name"] == "Carol"
    await svc.join(CH, CAROL, "Carol")  # a kick from a lobby is no ban


async def test_a_moderator_kicks_the_host_of_a_lobby_and_the_host_role_passes(
    svc: GameService, recorder: Recorder
) -> None:
    await lobby_of(svc, ALICE, "casual", BOB)
    view = await svc.kick(CH, DAVE, ALICE, authority=MODERATOR)
    assert isinstance(view, LobbyView) and view.host_id == BOB
    await settle(svc)
    assert recorder.notices("host")[-1][2]["name"] == "Bob"
    view = await svc.kick(CH, DAVE, BOB, authority=MODERATOR)
    assert view.status == "closed" and svc.state(CH) == "none"  # no human left


async def test_kick_in_a_game_is_a_forfeit_and_the_ai_plays_on(
    svc: GameService, recorder: Recorder, db_path: Path
) -> None:
    await open_table(svc, ALICE, BOB, CAROL)
    before = db_dump(db_path)
    with pytest.raises(NotHost) as info:  # the host may not kick from a running game
        await svc.kick(CH, ALICE, BOB)
    assert info.value.message["permission"] is Permission.MANAGE_CHANNEL
    with pytest.raises(NotSeated):
        await svc.kick(CH, DAVE, 999, authority=MODERATOR)
    assert db_dump(db_path) == before
    table = await svc.kick(CH, DAVE, BOB, authority=MODERATOR)
    assert isinstance(table, TableView) and table.seats[1].forfeited
    forfeits = await svc.storage.forfeits_of_game(table.game_id)
    assert [(f.user_id, f.seat, f.reason) for f in forfeits] == [(BOB, 1, "kick")]
    await settle(svc)
    notice = recorder.notices("forfeit")[-1]
    assert notice[2].key == "{player} was removed from the game: a forfeit, and the AI plays on"
    assert notice[2]["player"].index == 1
    with pytest.raises(Forfeited):
        await svc.kick(CH, DAVE, BOB, authority=MODERATOR)
    with pytest.raises(Forfeited):
        await svc.hand(CH, BOB)
    table = await play_out(svc)
    assert table.finished
    stats = await svc.stats(GUILD, BOB)
    assert (stats.games, stats.losses, stats.forfeits) == (1, 1, 1)
    with pytest.raises(NoGame):  # nothing to kick from between games
        await svc.kick(CH, DAVE, ALICE, authority=MODERATOR)


async def test_kick_by_seat_removes_an_ai_seat_of_a_lobby_but_not_of_a_game(
    svc: GameService, recorder: Recorder, db_path: Path
) -> None:
    await lobby_of(svc, ALICE, "casual", "expert", BOB)
    before = db_dump(db_path)
    for attempt in (
        svc.kick(CH, ALICE),  # neither a player nor a seat
        svc.kick(CH, ALICE, BOB, seat=3),  # both
        svc.kick(CH, ALICE, seat=7),  # no such seat
        svc.kick(CH, ALICE, seat=0),  # your own seat: use leave
    ):
        with pytest.raises(BadOption):
            await attempt
    with pytest.raises(NotHost):
        await svc.kick(CH, BOB, seat=1)
    assert db_dump(db_path) == before
    view = await svc.kick(CH, ALICE, seat=1)
    assert isinstance(view, LobbyView)
    assert [s.ai_level for s in view.seats] == [None, "expert", None]
    await settle(svc)
    assert recorder.notices("kicked")[-1][2].key == "an AI seat was removed from the lobby"
    view = await svc.kick(CH, ALICE, seat=2)  # a human by seat number: same as by user
    assert [s.user_id for s in view.seats] == [ALICE, None]

    await svc.join(CH, BOB, "Bob")
    await svc.start(CH, ALICE)
    with pytest.raises(BadOption) as info:
        await svc.kick(CH, DAVE, seat=1, authority=MODERATOR)
    assert info.value.message.key == "an AI seat cannot be removed from a running game"
    table = await svc.kick(CH, DAVE, seat=2, authority=MODERATOR)
    assert isinstance(table, TableView) and table.seats[2].forfeited


async def test_a_game_with_a_moderator_kick_is_not_rated(svc: GameService) -> None:
    """Kicking the opponent who is winning moves nobody's rating; the kicked player's forfeit
    still counts in the series and the stats.  A leave (the player's own act) is rated."""
    await open_table(svc, ALICE, BOB, CAROL)
    await svc.kick(CH, ALICE, BOB, authority=MODERATOR)  # Alice has Manage Channel
    await play_out(svc)
    assert await svc.storage.rated_games(GUILD) == []
    assert await svc.storage.ratings(GUILD) == {}
    stats = await svc.stats(GUILD, BOB)
    assert (stats.games, stats.losses, stats.forfeits) == (1, 1, 1)
    assert (await svc.series(CH)).standings[1].losses == 1

    await svc.rematch(CH, ALICE)
    await svc.forfeit(CH, CAROL)
    table = await play_out(svc)
    (rated,) = await svc.storage.rated_games(GUILD)
    assert rated.game_id == table.game_id
