"""``/durak privacy`` and ``/durak forget-me`` in the service: what it shows, who may confirm
an erasure and until when, and where a player still in play is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.clock import ManualClock
from bot.errors import BadId, ConfirmationExpired, NotYours, PlayerInPlay
from bot.service import GameService
from bot.service.privacy import FORGET_CONFIRM_SECONDS
from bot.terms import ChannelList, Command
from bot.views import Player

from .conftest import CH, GUILD, db_dump, open_table, play_out
from .support import ALICE, BOB, CAROL


async def _finished_series(svc: GameService) -> int:
    """Alice and Bob play one game in CH and end the series; the game's id."""
    await open_table(svc, ALICE, BOB, seats=2)
    table = await play_out(svc)
    await svc.end_series(CH, ALICE)
    return table.game_id


async def test_privacy_shows_what_is_stored_about_the_caller(svc: GameService) -> None:
    assert (await svc.privacy(ALICE)).empty
    await _finished_series(svc)
    data = await svc.privacy(ALICE)
    assert data.names == (f"user{ALICE}",)
    (server,) = data.servers
    assert (server.guild_id, server.games, server.results, server.series) == (GUILD, 1, 1, 1)
    with pytest.raises(BadId):
        await svc.privacy(0)


async def test_forget_me_is_confirmed_by_its_asker_in_time(
    svc: GameService, clock: ManualClock, db_path: Path
) -> None:
    game_id = await _finished_series(svc)
    bob_stats = await svc.stats(GUILD, BOB)
    old_replay = await svc.replay(GUILD, game_id)  # built, and kept built
    assert not any(p.former for p in old_replay.players)
    request = await svc.ask_forget(ALICE)
    assert request.user_id == ALICE and request.stored == await svc.privacy(ALICE)
    assert request.expires_at == int(clock.now()) + FORGET_CONFIRM_SECONDS
    before = db_dump(db_path)

    # someone else's press, a cancel, a forged expiry: nothing changes
    with pytest.raises(NotYours):
        await svc.forget_me(ALICE, BOB, expires_at=request.expires_at)
    with pytest.raises(NotYours):
        await svc.cancel_forget(ALICE, BOB)
    await svc.cancel_forget(ALICE, ALICE)
    with pytest.raises(ConfirmationExpired):
        await svc.forget_me(ALICE, ALICE, expires_at=request.expires_at + 3600)
    assert db_dump(db_path) == before

    # too late
    await clock.advance(FORGET_CONFIRM_SECONDS + 1)
    with pytest.raises(ConfirmationExpired) as late:
        await svc.forget_me(ALICE, ALICE, expires_at=request.expires_at)
    assert late.value.message["command"] is Command.FORGET_ME
    assert db_dump(db_path) == before

    # in time
    request = await svc.ask_forget(ALICE)
    erased = await svc.forget_me(ALICE, ALICE, expires_at=request.expires_at)
    assert erased == request.stored
    assert (await svc.privacy(ALICE)).empty
    (entry,) = (await svc.history(GUILD)).entries
    assert entry.players == (Player("", former=True), Player(f"user{BOB}"))
    # the replay built before names nobody either, nor does a new one
    assert (await svc.replay(GUILD, game_id)).players == entry.players
    assert (await svc.stats(GUILD, ALICE)).games == 0
    assert await svc.stats(GUILD, BOB) == bob_stats


@pytest.mark.parametrize("where", ["lobby seat", "lobby host", "running game", "series"])
async def test_forget_me_is_refused_while_in_play(
    svc: GameService, db_path: Path, where: str
) -> None:
    if where == "lobby seat":
        await svc.open_lobby(CH, GUILD, BOB, "Bob")
        await svc.join(CH, ALICE, "Alice")
    elif where == "lobby host":
        await svc.open_lobby(CH, GUILD, ALICE, "Alice")
    elif where == "running game":
        await open_table(svc, BOB, ALICE, seats=2)
    else:
        await open_table(svc, BOB, ALICE, seats=2)
        await play_out(svc)  # between games: the series still seats Alice
    with pytest.raises(PlayerInPlay) as refused:
        await svc.ask_forget(ALICE)
    assert refused.value.details["channels"] == (CH,)
    assert refused.value.message["channels"] == ChannelList((CH,))
    before = db_dump(db_path)
    with pytest.raises(PlayerInPlay):
        await svc.forget_me(ALICE, ALICE, expires_at=int(svc.clock.now()) + 60)
    assert db_dump(db_path) == before
    await svc.ask_forget(CAROL)  # someone who is not there may


async def test_a_seat_taken_after_asking_refuses_the_confirmation(svc: GameService) -> None:
    request = await svc.ask_forget(ALICE)
    await svc.open_lobby(CH, GUILD, BOB, "Bob")
    await svc.join(CH, ALICE, "Alice")
    with pytest.raises(PlayerInPlay):
        await svc.forget_me(ALICE, ALICE, expires_at=request.expires_at)
    await svc.leave(CH, ALICE)
    await svc.forget_me(ALICE, ALICE, expires_at=request.expires_at)
    assert (await svc.privacy(ALICE)).empty
