"""The edges of the service's input (issue 22, items 9 and 10): ids outside Discord's range,
pages that do not exist, seats given as bools, and what a removed player or a repeated stop
vote is told.  Every refusal is a clear message and changes nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.authority import MODERATOR
from bot.errors import (
    AlreadyVoted,
    BadId,
    BadOption,
    ConfirmForfeit,
    Forfeited,
    ServiceError,
    StorageFailure,
    UnknownGame,
)
from bot.server_config import ConfigProblem
from bot.service import GameService
from bot.service.options import MAX_ID, need_id, parse_channel_id
from bot.terms import Permission

from .conftest import db_dump, open_table, play_out, settle
from .support import ALICE, BOB, CAROL, CH, DAVE, GUILD, lobby_of

#: Not ids: too large for a 64-bit row, zero, negative, a bool, text.
NOT_IDS: tuple[object, ...] = (2**63, 2**64 + 5, 0, -1, True, "12")


@pytest.mark.parametrize("bad", NOT_IDS)
def test_need_id_takes_discord_ids_only(bad: object) -> None:
    assert need_id(1) == 1 and need_id(MAX_ID) == MAX_ID == 2**63 - 1
    with pytest.raises(BadId) as info:
        need_id(bad)
    assert info.value.message["value"] == repr(bad)


def test_a_channel_setting_takes_ids_in_range_only() -> None:
    assert parse_channel_id(" 42 ") == 42
    for bad in (str(2**63), 2**63, "0", True):
        with pytest.raises(ConfigProblem):
            parse_channel_id(bad)


@pytest.mark.parametrize("big", [2**63, 2**64 - 1, 10**30])
async def test_ids_past_2_63_are_refused_and_change_nothing(
    svc: GameService, db_path: Path, big: int
) -> None:
    """Before: these overflowed SQLite ("the game could not be saved" and a traceback), or a
    huge user id joined and broke the game's save later."""
    await lobby_of(svc, ALICE, BOB)
    before = db_dump(db_path)
    calls: list[Callable[[], Awaitable[Any]]] = [
        lambda: svc.open_lobby(big, GUILD, ALICE, "Alice"),
        lambda: svc.open_lobby(CH + 1, big, ALICE, "Alice"),
        lambda: svc.open_lobby(CH + 1, GUILD, big, "Alice"),
        lambda: svc.open_lobby(CH + 1, GUILD, ALICE, "Alice", parent_id=big),
        lambda: svc.join(CH, big, "Eve"),
        lambda: svc.leave(CH, big),
        lambda: svc.add_ai(CH, big, "casual"),
        lambda: svc.remove_seat(CH, big, 1),
        lambda: svc.start(CH, big),
        lambda: svc.stop(big, ALICE),
        lambda: svc.kick(CH, ALICE, big),
        lambda: svc.stats(big, ALICE),
        lambda: svc.stats(GUILD, big),
        lambda: svc.history(big),
        lambda: svc.history(GUILD, big),
        lambda: svc.leaderboard(big),
        lambda: svc.replay(big, 1),
        lambda: svc.server_config(big),
        lambda: svc.set_server_config(big, ALICE, manage_guild=True, seats=4),
    ]
    for call in calls:
        with pytest.raises(BadId) as info:
            await call()
        assert info.value.message["value"] == repr(big)
    with pytest.raises(UnknownGame) as unknown:  # a game id: there is no such game
        await svc.replay(GUILD, big)
    assert not isinstance(unknown.value, StorageFailure)
    assert db_dump(db_path) == before
    assert [s.user_id for s in (await svc.lobby(CH)).seats] == [ALICE, BOB]


async def test_a_game_button_with_a_huge_game_id_is_refused(svc: GameService) -> None:
    await open_table(svc, ALICE, BOB, CAROL)
    for call in (
        svc.stop(CH, ALICE, game_id=2**63),
        svc.keep_playing(CH, ALICE, game_id=2**63),
        svc.forfeit(CH, ALICE, game_id=2**63),
    ):
        with pytest.raises(BadId):
            await call
    assert (await svc.table(CH)).stop_vote is None


async def test_pages_that_do_not_exist_are_refused_naming_the_last(
    svc: GameService, db_path: Path
) -> None:
    """Before: a huge page overflowed SQLite, and a page past the end showed "No finished
    game here yet" beside the number of games."""
    await open_table(svc, ALICE, BOB)
    await play_out(svc)
    await settle(svc)
    await svc.end_series(CH, ALICE)
    history = await svc.history(GUILD)
    assert (history.total, history.pages, len(history.entries)) == (1, 1, 1)
    before = db_dump(db_path)
    for page in (2, 10_000, 2**62, 2**63, 2**70):
        for call in (
            svc.history(GUILD, page=page),
            svc.history(GUILD, ALICE, page=page),
            svc.leaderboard(GUILD, min_games=1, page=page),
        ):
            with pytest.raises(BadOption) as info:
                await call
            assert not isinstance(info.value, StorageFailure)
            assert info.value.message.key == "there is no page {page}: the last page is {pages}"
            assert (info.value.message["page"], info.value.message["pages"]) == (page, 1)
    for bad in (0, -1, True, 1.5, "2"):
        with pytest.raises(BadOption):
            await svc.history(GUILD, page=bad)  # type: ignore[arg-type]
    for kw in ({"min_games": 2**63}, {"per_page": True}, {"min_games": True}):
        with pytest.raises(BadOption):
            await svc.leaderboard(GUILD, **kw)  # type: ignore[arg-type]
    assert db_dump(db_path) == before


@pytest.mark.parametrize("seat", [True, False, 1.0, "1", None])
async def test_remove_seat_takes_a_whole_number_only(
    svc: GameService, db_path: Path, seat: object
) -> None:
    """Before: ``remove_seat(True)`` removed seat 1 (a bool is an int in Python)."""
    await lobby_of(svc, ALICE, BOB, "casual")
    before = db_dump(db_path)
    with pytest.raises(BadOption) as info:
        await svc.remove_seat(CH, ALICE, seat)  # type: ignore[arg-type]
    assert info.value.message["seat"] == repr(seat)
    assert db_dump(db_path) == before
    assert [s.name for s in (await svc.lobby(CH)).seats] == ["Alice", "Bob", "Casual AI"]
    view = await svc.remove_seat(CH, ALICE, 1)  # an int still works
    assert [s.name for s in view.seats] == ["Alice", "Casual AI"]


async def test_a_player_removed_by_a_moderator_is_told_so(svc: GameService) -> None:
    """Before: a kicked player was told "you left this game"."""
    table = await open_table(svc, ALICE, BOB, CAROL)
    await svc.kick(CH, DAVE, BOB, authority=MODERATOR)
    refusals: list[ServiceError] = []
    for call in (
        svc.hand(CH, BOB),
        svc.act(CH, BOB, "take", None),
        svc.join(CH, BOB, "Bob"),
        svc.leave(CH, BOB),
        svc.forfeit(CH, BOB, game_id=table.game_id),
    ):
        with pytest.raises(Forfeited) as info:
            await call
        refusals.append(info.value)
    for refusal in refusals:
        text = str(refusal.message)
        assert "removed you" in text, text
        assert refusal.message["permission"] is Permission.MANAGE_CHANNEL
        assert "you left" not in text and "you have already left" not in text
        assert refusal.details["reason"] == "kick"
    # a player who left by themselves is still told that they left
    with pytest.raises(ConfirmForfeit):
        await svc.leave(CH, CAROL)
    await svc.forfeit(CH, CAROL, game_id=table.game_id)
    for call in (svc.hand(CH, CAROL), svc.leave(CH, CAROL)):
        with pytest.raises(Forfeited) as info:
            await call
        assert "left this game" in str(info.value.message)
        assert "removed" not in str(info.value.message)


async def test_a_second_stop_press_says_you_already_voted(svc: GameService) -> None:
    """Before: the second press of one's own vote returned as if it counted, and the player
    was told nothing."""
    await open_table(svc, ALICE, BOB, CAROL)
    assert await svc.stop(CH, ALICE) == "vote_opened"
    with pytest.raises(AlreadyVoted) as info:
        await svc.stop(CH, ALICE)
    assert str(info.value.message).startswith("you already voted to stop this game")
    assert (await svc.table(CH)).stop_vote == (1, 3)
    assert await svc.stop(CH, BOB) == "voted"  # another voter's yes still counts
    assert (await svc.table(CH)).stop_vote == (2, 3)


async def test_stats_are_named_after_the_player_even_without_a_game(svc: GameService) -> None:
    """Before: a player with no finished game had no name in their stats (the Discord answer
    was titled with their raw id)."""
    view = await svc.stats(GUILD, DAVE, name="  Dave\nthe  Brave ")
    assert view.games == 0 and view.name == "Dave the Brave"
    assert (await svc.stats(GUILD, DAVE)).name is None  # nothing known, nothing given
