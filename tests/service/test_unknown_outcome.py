"""A write of a live game whose answer is lost (the database stopped answering after it
committed): the player hears "try again", memory keeps what they were told, and the next
write of the game finds out from the fence that it was stored after all, shows it, and goes
on from there.  A write that was not stored is simply not played.

The lost answer is injected: the storage does the real write, then says the database did
not answer (what a timeout just after the commit looks like)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.authority import MODERATOR
from bot.errors import Forfeited, StaleAction, StorageBusy
from bot.service import GameService
from bot.storage import DatabaseBusy, Storage
from rules_engine import parse_action
from tests import storage_helpers as stored

from .conftest import ALICE, BOB, CH, GUILD, Recorder, open_table, press, whose_turn


def lose_answer(storage: Storage, method: str, *, write: bool = True) -> list[int]:
    """Make the next call of ``storage.method`` write (unless not ``write``) and then raise
    :class:`DatabaseBusy`; later calls are the real ones.  Returns a list that counts the
    calls made while armed."""
    original: Callable[..., Awaitable[Any]] = getattr(storage, method)
    calls: list[int] = []

    async def lost(*args: Any, **kwargs: Any) -> Any:
        setattr(storage, method, original)
        calls.append(1)
        if write:
            await original(*args, **kwargs)
        raise DatabaseBusy("the database did not answer (injected)")

    setattr(storage, method, lost)
    return calls


async def press_until_one_move_is_left(svc: GameService) -> None:
    """Play the first legal action of whoever is to act until the next one ends the game."""
    for _ in range(2000):
        table = await svc.table(CH)
        assert table.to_act is not None and not table.finished
        _user, hand = await whose_turn(svc)
        game = svc.game_of(CH)
        assert game is not None
        game.apply(parse_action(f"{table.to_act} {hand.legal[0].text}"))
        if game.finished:
            return
        await press(svc)
    raise AssertionError("the game did not end")


async def _game_of_two(make_service: Any, **options: Any) -> GameService:
    """A service (made with ``options``) where Alice and Bob's game runs in :data:`CH`."""
    svc = await make_service(**options)
    await open_table(svc, ALICE, BOB)
    return svc


async def _stored_version(svc: GameService, db_path: Any) -> int:
    """Close ``svc`` (as the process ends) and read the version its live game was stored at."""
    await svc.close()
    async with stored.opened(db_path) as storage:
        (live,) = await stored.live_games(storage)
        return live.version


async def test_a_move_whose_answer_was_lost_is_shown_at_the_next_press(
    make_service: Any, db_path: Any
) -> None:
    recorder = Recorder()
    svc = await _game_of_two(make_service, presenters=[recorder])
    before = await svc.table(CH)
    lose_answer(svc.storage, "save_live")
    user, hand = await whose_turn(svc)
    with pytest.raises(StorageBusy):
        await svc.act(CH, user, hand.legal[0].text, hand.version, game_id=hand.game_id)
    assert (await svc.table(CH)).version == before.version  # not shown as played
    assert (await svc.hand(CH, user)).version == before.version

    recorder.events.clear()
    with pytest.raises(StaleAction):  # the same press again: it was stored after all
        await svc.act(CH, user, hand.legal[0].text, hand.version, game_id=hand.game_id)
    await svc.wait_idle()
    now = await svc.table(CH)
    assert now.version == before.version + 1
    assert [v.version for v in recorder.of("table")] == [now.version]  # the channel sees it
    await press(svc)  # and the game goes on here
    assert (await svc.table(CH)).version == before.version + 2
    assert await _stored_version(svc, db_path) == before.version + 2


async def test_a_move_that_was_not_stored_is_not_played(make_service: Any, db_path: Any) -> None:
    svc = await _game_of_two(make_service)
    before = await svc.table(CH)
    lose_answer(svc.storage, "save_live", write=False)
    with pytest.raises(StorageBusy):
        await press(svc)
    await press(svc)  # played once, from the position the players saw
    assert (await svc.table(CH)).version == before.version + 1
    assert await _stored_version(svc, db_path) == before.version + 1


async def test_a_last_move_whose_answer_was_lost_ends_the_game_at_the_next_press(
    make_service: Any, db_path: Any
) -> None:
    recorder = Recorder()
    svc = await _game_of_two(make_service, presenters=[recorder])
    await press_until_one_move_is_left(svc)
    lose_answer(svc.storage, "finish_game")
    with pytest.raises(StorageBusy):
        await press(svc)
    assert not (await svc.table(CH)).finished
    recorder.events.clear()
    with pytest.raises(StaleAction):
        await press(svc)
    await svc.wait_idle()
    table = await svc.table(CH)
    assert table.finished
    assert [v.finished for v in recorder.of("over")] == [True]
    assert (await svc.series(CH)).games == 1  # counted once
    await svc.rematch(CH, ALICE)  # and the series goes on
    await svc.close()
    async with stored.opened(db_path) as storage:
        results = await stored.results(storage, GUILD)
        assert [r for r, _ in results] in (["loss", "live"], ["draw", "live"])


async def test_a_forfeit_whose_answer_was_lost_is_shown_at_the_next_write(
    make_service: Any,
) -> None:
    svc = await _game_of_two(make_service)
    lose_answer(svc.storage, "record_forfeit")
    with pytest.raises(StorageBusy):
        await svc.forfeit(CH, BOB)
    assert not any(s.forfeited for s in (await svc.table(CH)).seats)
    with pytest.raises(StaleAction):  # whoever is to act: memory still seats Bob
        await press(svc)
    assert (await svc.table(CH)).seats[1].forfeited
    with pytest.raises(Forfeited):  # and he has left for good
        await svc.hand(CH, BOB)


async def test_a_stop_whose_answer_was_lost_is_shown_at_the_next_press(
    make_service: Any, recorder: Recorder
) -> None:
    svc = await _game_of_two(make_service, presenters=[recorder])
    lose_answer(svc.storage, "finish_game")
    with pytest.raises(StorageBusy):
        await svc.stop(CH, ALICE, MODERATOR)
    assert svc.state(CH) == "playing"
    with pytest.raises(StaleAction):
        await press(svc)
    await svc.wait_idle()
    assert svc.state(CH) == "none"
    assert [n[1] for n in recorder.of("notice")][-1:] == ["series_ended"]


async def test_a_timeout_move_whose_answer_was_lost_keeps_the_turns_running(
    make_service: Any, clock: Any
) -> None:
    """The turn timer's move is given up and retried; the retry finds it was stored after
    all, and the next turn's timer still runs (nothing waits for a press that never comes)."""
    svc = await _game_of_two(make_service, turn_timeout=30)
    before = await svc.table(CH)
    calls = lose_answer(svc.storage, "save_live")
    await clock.advance(30)  # the timeout move: stored, but its answer lost
    await svc.wait_idle()
    assert calls == [1] and (await svc.table(CH)).version == before.version
    await clock.advance(5)  # the retry settles it: stored after all
    await svc.wait_idle()
    assert (await svc.table(CH)).version == before.version + 1
    await clock.advance(30)  # and the next player's turn times out as usual
    await svc.wait_idle()
    assert (await svc.table(CH)).version == before.version + 2
