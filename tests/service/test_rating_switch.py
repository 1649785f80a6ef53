"""Whether a game with AI seats is rated is the server's ``count_ai_games`` when the game
started, kept with the game (in its stored meta, so across a restart): turning the setting on
or off mid-game changes nothing for the game under way (issue 22, item 8)."""

from __future__ import annotations

from bot.service import GameService
from tests import storage_helpers as stored

from .conftest import ALICE, BOB, GUILD, open_table, play_out


async def count_ai_games(svc: GameService, value: str) -> None:
    await svc.set_server_config(GUILD, ALICE, manage_guild=True, count_ai_games=value)


async def test_turning_it_on_mid_game_does_not_rate_that_game(make_service):
    svc = await make_service()
    await open_table(svc, ALICE, BOB, ais=("beginner",))
    await count_ai_games(svc, "on")
    await play_out(svc)
    assert await svc.storage.rated_games(GUILD) == []
    assert await svc.storage.ratings() == {}


async def test_turning_it_off_mid_game_still_rates_that_game(make_service):
    svc = await make_service()
    await count_ai_games(svc, "on")
    await open_table(svc, ALICE, BOB, ais=("beginner",))
    await count_ai_games(svc, "off")
    table = await play_out(svc)
    (rated,) = await svc.storage.rated_games(GUILD)
    assert rated.game_id == table.game_id and {u for u, _ in rated.places} == {ALICE, BOB}


async def test_the_setting_of_the_start_survives_a_restart(make_service):
    a = await make_service()
    await open_table(a, ALICE, BOB, ais=("beginner",))
    await count_ai_games(a, "on")
    await a.close()
    b = await make_service()
    assert b.count_ai_games_now(GUILD)
    await play_out(b)
    assert await b.storage.rated_games(GUILD) == []


async def test_a_row_stored_without_it_takes_the_setting_at_restore(make_service, db_path):
    """Rows written before the setting was kept with the game: the server's setting when the
    game is restored applies (what the release that started it would have used)."""
    a = await make_service()
    await open_table(a, ALICE, BOB, ais=("beginner",))
    await count_ai_games(a, "on")
    await a.close()
    async with stored.opened(db_path) as storage:
        (live,) = await stored.live_games(storage)
        assert live.meta["count_ai_games"] is False  # the setting when the game started
        meta = {k: v for k, v in live.meta.items() if k != "count_ai_games"}
        await stored.rewrite_live(storage, live, meta=meta)
    b = await make_service()
    assert b.count_ai_games_now(GUILD)
    table = await play_out(b)
    (rated,) = await b.storage.rated_games(GUILD)
    assert rated.game_id == table.game_id
